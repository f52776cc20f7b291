// SPDX-License-Identifier: MIT
#include "chat_controller.h"

#include "logging.h"

#include <QJSEngine>
#include <QPointer>

namespace hearth::app {

namespace {
QPointer<ChatController> s_instance;
}

ChatController::ChatController(QObject* parent)
    : QObject(parent)
{
    m_thread.setObjectName(QStringLiteral("hearth-engine"));
    m_worker = new EngineWorker;
    m_worker->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);

    connect(
        m_worker, &EngineWorker::modelLoaded, this, [this](const QString& name, const QString& description) {
            m_modelName = name;
            m_modelDescription = description;
            Q_EMIT modelChanged();
            setErrorText({});
            setState(State::Ready);
        });
    connect(m_worker, &EngineWorker::modelLoadFailed, this, [this](const QString& message) {
        qCWarning(lcApp) << message;
        setErrorText(message);
        setState(State::NoModel);
    });
    connect(m_worker, &EngineWorker::tokenGenerated, this,
        [this](const QString& text) { m_messages.appendToContent(m_answerRow, text); });
    connect(m_worker, &EngineWorker::answerFinished, this, [this](const QString&, const AnswerStats& stats) {
        m_messages.finish(m_answerRow, stats.tokensPerSecond());
        m_answerRow = -1;
        setState(State::Ready);
    });
    connect(m_worker, &EngineWorker::answerFailed, this, [this](const QString& message) {
        m_messages.finish(m_answerRow, 0);
        m_answerRow = -1;
        setErrorText(message);
        setState(m_modelName.isEmpty() ? State::NoModel : State::Ready);
    });
    m_thread.start();
}

ChatController::~ChatController()
{
    m_worker->stop();
    m_thread.quit();
    m_thread.wait();
}

ChatController* ChatController::create(QQmlEngine*, QJSEngine*)
{
    if (s_instance) {
        QJSEngine::setObjectOwnership(s_instance, QJSEngine::CppOwnership);
        return s_instance;
    }
    return new ChatController(nullptr);
}

void ChatController::setInstance(ChatController* instance)
{
    s_instance = instance;
}

void ChatController::setMaxTokens(int maxTokens)
{
    maxTokens = qBound(1, maxTokens, 32768);
    if (maxTokens == m_maxTokens)
        return;
    m_maxTokens = maxTokens;
    Q_EMIT maxTokensChanged();
}

void ChatController::loadModel(const QString& path)
{
    if (m_state == State::Loading || m_state == State::Generating || path.isEmpty())
        return;
    m_messages.clear();
    m_modelName.clear();
    m_modelDescription.clear();
    Q_EMIT modelChanged();
    setState(State::Loading);
    QMetaObject::invokeMethod(m_worker, "loadModel", Qt::QueuedConnection, Q_ARG(QString, path));
}

void ChatController::loadModelUrl(const QUrl& url)
{
    loadModel(url.isLocalFile() ? url.toLocalFile() : url.toString());
}

void ChatController::send(const QString& text)
{
    const QString prompt = text.trimmed();
    if (m_state != State::Ready || prompt.isEmpty())
        return;
    setErrorText({});
    m_messages.append(QStringLiteral("user"), prompt);
    m_answerRow = m_messages.append(QStringLiteral("assistant"), QString(), true);
    setState(State::Generating);
    QMetaObject::invokeMethod(
        m_worker, "chat", Qt::QueuedConnection, Q_ARG(QString, prompt), Q_ARG(int, m_maxTokens));
}

void ChatController::stop()
{
    m_worker->stop();
}

void ChatController::newConversation()
{
    if (m_state == State::Generating)
        return;
    m_messages.clear();
    QMetaObject::invokeMethod(m_worker, "resetConversation", Qt::QueuedConnection);
}

void ChatController::setState(State state)
{
    if (state == m_state)
        return;
    m_state = state;
    Q_EMIT stateChanged();
}

void ChatController::setErrorText(const QString& text)
{
    if (text == m_errorText)
        return;
    m_errorText = text;
    Q_EMIT errorTextChanged();
}

} // namespace hearth::app
