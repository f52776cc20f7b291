// SPDX-License-Identifier: MIT
#include "chat_controller.h"

#include "app_settings.h"
#include "chatstore.h"
#include "logging.h"
#include "message_blocks.h"
#include "reasoning.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QHash>
#include <QJSEngine>
#include <QJsonObject>
#include <QQmlExtensionPlugin>
#include <QRegularExpression>
#include <QSaveFile>
#include <QStandardPaths>

// The Models page's QML module (Hearth.Models) comes with the chat's: every program that links
// the controller (the app, the window tests) can load the Main.qml that shows it.
Q_IMPORT_QML_PLUGIN(Hearth_ModelsPlugin)

namespace hearth::app {

namespace {
QPointer<ChatController> s_instance;

/// A title from the first question: its first line, shortened on a word boundary.
QString titleFrom(const QString& text)
{
    QString title = text.simplified();
    constexpr int MaxLength = 60;
    if (title.size() > MaxLength) {
        title.truncate(MaxLength);
        const qsizetype space = title.lastIndexOf(QLatin1Char(' '));
        if (space > MaxLength / 2)
            title.truncate(space);
        title += QChar(0x2026);
    }
    return title;
}

MessageModel::Message toRow(const hearth::StoredMessage& message)
{
    MessageModel::Message row;
    row.id = message.id;
    row.role = message.role;
    row.content = message.content;
    row.streaming = false; // shown rows are never live after a reload; the live one is kept apart
    row.tokensPerSecond = message.stats.tokensPerSecond;
    row.tokenCount = message.stats.tokens;
    row.timeToFirstTokenMs = message.stats.timeToFirstTokenMs;
    row.state = hearth::messageStateName(message.state);
    row.errorText = message.errorText;
    return row;
}
} // namespace

ChatController::ChatController(ModelSession* session, QObject* parent)
    : QObject(parent)
    , m_session(session)
    , m_store(std::make_unique<hearth::ChatStore>())
{
    // The model's errors show in the chat window's one error line, beside the chat's own.
    connect(m_session, &ModelSession::errorTextChanged, this, [this] { setErrorText(m_session->errorText()); });
    // A model that starts to answer counts the open chat with its own tokenizer and template.
    connect(m_session, &ModelSession::modelReady, this, &ChatController::measureOpenConversation);
    connect(m_session, &ModelSession::turnsLeftOut, this, [this](quint64 requestId, int turns) {
        if (requestId != m_requestId)
            return;
        m_contextNote = tr("%n earlier message(s) no longer fit the model's context and were left out of this answer.", "", turns);
        Q_EMIT contextChanged();
    });
    connect(m_session, &ModelSession::tokenGenerated, this, &ChatController::onToken);
    // The meter shows the open chat's use: live while it answers, measured when it is opened.
    connect(m_session, &ModelSession::contextUsed, this, [this](quint64 requestId, int tokens) {
        if (requestId != m_requestId || m_answerConversation != m_conversationId || tokens == m_contextUsed)
            return;
        m_contextUsed = tokens;
        Q_EMIT contextChanged();
    });
    connect(m_session, &ModelSession::contextMeasured, this, [this](qint64 conversationId, int tokens) {
        if (conversationId != m_conversationId || m_answerId != 0)
            return;
        m_contextUsed = tokens;
        Q_EMIT contextChanged();
    });
    connect(m_session, &ModelSession::answerFinished, this, &ChatController::onFinished);
    connect(m_session, &ModelSession::answerFailed, this, &ChatController::onFailed);
    connect(m_store.get(), &hearth::ChatStore::errorOccurred, this, &ChatController::setErrorText);
    connect(m_store.get(), &hearth::ChatStore::conversationsChanged, &m_conversations,
        &ConversationListModel::refresh);
}

ChatController::~ChatController()
{
    if (m_answerId != 0)
        m_store->markError(m_answerId, tr("The application was closed while answering."));
    m_store->close();
}

ChatController* ChatController::create(QQmlEngine*, QJSEngine*)
{
    if (s_instance) {
        QJSEngine::setObjectOwnership(s_instance, QJSEngine::CppOwnership);
        return s_instance;
    }
    qCWarning(lcApp) << "QML asked for the chat before main() made it";
    return nullptr; // the one controller is main()'s, made for its ModelSession
}

void ChatController::setInstance(ChatController* instance)
{
    s_instance = instance;
}

bool ChatController::openStore(const QString& path)
{
    if (!m_store->open(path)) {
        setErrorText(m_store->lastError());
        return false;
    }
    // The bin keeps deleted chats for a month, long enough to change one's mind.
    if (!m_store->isReadOnly())
        m_store->purgeDeletedConversations(QDateTime::currentDateTimeUtc().addDays(-30));
    m_conversations.setStore(m_store.get());
    return true;
}

void ChatController::setSettings(AppSettings* settings)
{
    m_settings = settings;
    m_sampling = defaultSampling();
    m_systemPrompt = settings ? settings->systemPrompt() : QString();
    Q_EMIT conversationChanged();
}

SamplingSettings ChatController::defaultSampling() const
{
    return m_settings ? m_settings->defaultSampling() : SamplingSettings {};
}

void ChatController::setSystemPrompt(const QString& prompt)
{
    if (prompt == m_systemPrompt)
        return;
    m_systemPrompt = prompt;
    if (m_conversationId != 0)
        m_store->setSystemPrompt(m_conversationId, prompt);
    Q_EMIT conversationChanged();
}

void ChatController::setSampling(const QVariantMap& sampling)
{
    const SamplingSettings settings = SamplingSettings::fromJson(QJsonObject::fromVariantMap(sampling), m_sampling);
    if (settings.toJson() == m_sampling.toJson())
        return;
    m_sampling = settings;
    if (m_conversationId != 0)
        m_store->setSamplingSettings(m_conversationId, m_sampling.toJson());
    Q_EMIT conversationChanged();
}

void ChatController::setMaxTokens(int maxTokens)
{
    QVariantMap map = sampling();
    map.insert(QStringLiteral("max_tokens"), maxTokens);
    setSampling(map);
}

bool ChatController::ensureConversation(const QString& firstMessage)
{
    if (m_conversationId != 0)
        return true;
    const auto id = m_store->createConversation(titleFrom(firstMessage), m_systemPrompt, m_session->modelPath(), m_sampling.toJson());
    if (!id) {
        setErrorText(m_store->lastError());
        return false;
    }
    m_conversationId = *id;
    m_title = titleFrom(firstMessage);
    Q_EMIT conversationChanged();
    return true;
}

void ChatController::send(const QString& text)
{
    const QString prompt = text.trimmed();
    if (m_session->state() != ModelSession::State::Ready || prompt.isEmpty())
        return;
    setErrorText({});
    if (!ensureConversation(prompt))
        return;
    const qint64 parent = m_messages.rowCount() > 0 ? m_messages.at(m_messages.rowCount() - 1).id : 0;
    const auto id = m_store->addMessage(m_conversationId, parent, QStringLiteral("user"), prompt);
    if (!id) {
        setErrorText(m_store->lastError());
        return;
    }
    MessageModel::Message row;
    row.id = *id;
    row.role = QStringLiteral("user");
    row.content = prompt;
    m_messages.append(row);
    refreshSiblings(m_messages.rowCount() - 1);
    startAnswer();
}

void ChatController::startAnswer()
{
    if (!m_session->modelPath().isEmpty())
        m_store->setModelPath(m_conversationId, m_session->modelPath());
    const qint64 parent = m_messages.rowCount() > 0 ? m_messages.at(m_messages.rowCount() - 1).id : 0;
    const auto answerId = m_store->beginAssistantMessage(m_conversationId, parent, m_session->modelName());
    if (!answerId) {
        setErrorText(m_store->lastError());
        return;
    }

    const QList<ChatTurn> turns = openTurns();

    MessageModel::Message answer;
    answer.id = *answerId;
    answer.role = QStringLiteral("assistant");
    answer.streaming = true;
    answer.state = QStringLiteral("streaming");
    m_messages.append(answer);
    refreshSiblings(m_messages.rowCount() - 1);
    m_continued.reset();
    requestAnswer(*answerId, turns);
}

void ChatController::continueAnswer(int row)
{
    if (m_session->state() != ModelSession::State::Ready || m_session->remote() || m_answerId != 0
        || row < 0 || row != m_messages.rowCount() - 1)
        return;
    const MessageModel::Message& cut = m_messages.at(row);
    if (cut.role != QLatin1String("assistant") || !hearth::endedEarly(hearth::messageStateFromName(cut.state)))
        return;
    setErrorText({});
    if (!m_store->resumeAssistantMessage(cut.id)) {
        setErrorText(m_store->lastError());
        return;
    }
    // The answer goes on from its text as the model wrote it, thinking included.
    QList<ChatTurn> turns = openTurns();
    turns.removeLast();
    m_continued = cut;
    const QString answerStart = cut.content;
    m_messages.resume(row);
    requestAnswer(cut.id, turns, answerStart);
}

void ChatController::requestAnswer(qint64 answerId, const QList<ChatTurn>& turns, const QString& answerStart)
{
    m_answerId = answerId;
    m_answerConversation = m_conversationId;
    m_firstTokenMs = 0;
    m_sinceRequest.start();
    if (!m_contextNote.isEmpty()) {
        m_contextNote.clear(); // the worker says again if this answer leaves turns out too
        Q_EMIT contextChanged();
    }
    m_requestId = m_session->generate(turns, m_sampling, answerStart);
    if (m_requestId == 0) // the model is busy or gone: the row says so instead of streaming forever
        onFailed(0, tr("The model is not ready to answer."));
}

void ChatController::onToken(quint64 requestId, const QString& text)
{
    if (requestId != m_requestId || m_answerId == 0)
        return;
    if (m_firstTokenMs == 0)
        m_firstTokenMs = double(m_sinceRequest.nsecsElapsed()) / 1e6;
    m_store->appendToken(m_answerId, text);
    if (m_answerConversation == m_conversationId)
        m_messages.appendToContent(m_messages.rowOfId(m_answerId), text);
    Q_EMIT answerToken(text);
}

void ChatController::onFinished(quint64 requestId, const AnswerStats& stats)
{
    if (requestId != m_requestId || m_answerId == 0)
        return;
    hearth::StoredAnswerStats stored;
    const double earlierFirstTokenMs = m_continued ? m_continued->timeToFirstTokenMs : 0;
    stored.tokens = (m_continued ? m_continued->tokenCount : 0) + stats.generatedTokens;
    stored.tokensPerSecond = stats.tokensPerSecond();
    stored.timeToFirstTokenMs = earlierFirstTokenMs > 0 ? earlierFirstTokenMs
        : m_firstTokenMs > 0                           ? m_firstTokenMs
                                                       : stats.timeToFirstTokenMs;
    stored.model = m_session->modelName();
    // An answer cut off by a limit must not look finished.
    const hearth::MessageState end = stats.stopped ? hearth::MessageState::Stopped
        : stats.reachedMaxTokens                  ? hearth::MessageState::LengthLimit
        : stats.contextFull                       ? hearth::MessageState::ContextFull
                                                  : hearth::MessageState::Complete;
    m_store->finishMessage(m_answerId, stored, end);
    if (m_answerConversation == m_conversationId) {
        m_messages.finish(m_messages.rowOfId(m_answerId), stored.tokensPerSecond, stored.tokens,
            stored.timeToFirstTokenMs, hearth::messageStateName(end));
    }
    if (m_answerConversation == m_conversationId) {
        m_contextUsed = stats.contextUsed;
        Q_EMIT contextChanged();
    }
    const QString answer = storedText(m_answerId);
    m_answerId = 0;
    Q_EMIT answerCompleted(answer);
}

void ChatController::onFailed(quint64 requestId, const QString& message)
{
    if (requestId != m_requestId || m_answerId == 0)
        return;
    if (m_continued) {
        // The answer stays what it was (with any text the continuation added): a conversation
        // that no longer fits says so in the error bar, not as a failed answer.
        hearth::StoredAnswerStats earlier;
        earlier.tokens = m_continued->tokenCount;
        earlier.tokensPerSecond = m_continued->tokensPerSecond;
        earlier.timeToFirstTokenMs = m_continued->timeToFirstTokenMs;
        earlier.model = m_session->modelName();
        m_store->finishMessage(m_answerId, earlier, hearth::messageStateFromName(m_continued->state));
        if (m_answerConversation == m_conversationId) {
            m_messages.finish(m_messages.rowOfId(m_answerId), earlier.tokensPerSecond, earlier.tokens,
                earlier.timeToFirstTokenMs, m_continued->state);
        }
    } else {
        m_store->markError(m_answerId, message);
        if (m_answerConversation == m_conversationId)
            m_messages.finish(m_messages.rowOfId(m_answerId), 0, 0, 0, QStringLiteral("error"), message);
    }
    const QString answer = storedText(m_answerId);
    m_answerId = 0;
    setErrorText(message);
    Q_EMIT answerCompleted(answer);
}

QString ChatController::storedText(qint64 messageId) const
{
    const std::optional<hearth::StoredMessage> message = m_store->message(messageId);
    return message ? message->content : QString();
}

void ChatController::stop()
{
    m_session->stop(m_requestId);
}

void ChatController::regenerate(int row)
{
    if (m_session->state() != ModelSession::State::Ready || row < 0 || row >= m_messages.rowCount()
        || m_messages.at(row).role != QLatin1String("assistant"))
        return;
    setErrorText({});
    // The new answer hangs below the same question; the old one stays as its sibling.
    m_messages.truncate(row);
    startAnswer();
}

void ChatController::editAndResend(int row, const QString& text)
{
    const QString edited = text.trimmed();
    if (m_session->state() != ModelSession::State::Ready || edited.isEmpty() || row < 0 || row >= m_messages.rowCount()
        || m_messages.at(row).role != QLatin1String("user"))
        return;
    setErrorText({});
    const qint64 parent = row > 0 ? m_messages.at(row - 1).id : 0;
    const auto id = m_store->addMessage(m_conversationId, parent, QStringLiteral("user"), edited);
    if (!id) {
        setErrorText(m_store->lastError());
        return;
    }
    m_messages.truncate(row);
    MessageModel::Message message;
    message.id = *id;
    message.role = QStringLiteral("user");
    message.content = edited;
    m_messages.append(message);
    refreshSiblings(row);
    startAnswer();
}

void ChatController::switchSibling(int row, int delta)
{
    if (m_answerId != 0 || row < 0 || row >= m_messages.rowCount())
        return;
    const hearth::SiblingInfo siblings = m_store->siblings(m_messages.at(row).id);
    const int target = siblings.index + delta;
    if (target < 0 || target >= siblings.count())
        return;
    if (m_store->switchBranch(siblings.ids.at(target)))
        reloadMessages();
}

void ChatController::refreshSiblings(int row)
{
    if (row < 0 || row >= m_messages.rowCount())
        return;
    const hearth::SiblingInfo siblings = m_store->siblings(m_messages.at(row).id);
    m_messages.setSiblings(row, qMax(0, siblings.index), qMax(1, siblings.count()));
}

bool ChatController::deleteMessage(int row)
{
    if (m_answerId != 0 || row < 0 || row >= m_messages.rowCount())
        return false;
    if (!m_store->deleteMessage(m_messages.at(row).id, true)) {
        setErrorText(m_store->lastError());
        return false;
    }
    reloadMessages();
    measureOpenConversation();
    return true;
}

void ChatController::copyMessage(int row)
{
    // A reasoning model's answer is copied without its thinking.
    if (row < 0 || row >= m_messages.rowCount())
        return;
    const auto& message = m_messages.at(row);
    MessageBlocks::copyToClipboard(
        message.role == QLatin1String("assistant") ? ReasoningParts::split(message.content).answer : message.content);
}

void ChatController::copyText(const QString& text)
{
    MessageBlocks::copyToClipboard(text);
}

bool ChatController::copyLastAnswer()
{
    for (int row = m_messages.rowCount() - 1; row >= 0; --row) {
        if (m_messages.at(row).role == QLatin1String("assistant")) {
            copyMessage(row);
            return true;
        }
    }
    return false;
}

void ChatController::newConversation()
{
    m_contextNote.clear();
    m_conversationId = 0;
    m_title.clear();
    m_systemPrompt = m_settings ? m_settings->systemPrompt() : QString();
    m_sampling = defaultSampling();
    m_messages.clear();
    Q_EMIT conversationChanged();
    measureOpenConversation();
}

void ChatController::openConversation(qint64 id)
{
    if (id == m_conversationId)
        return;
    const auto conversation = m_store->conversation(id);
    if (!conversation || conversation->deleted)
        return;
    m_contextNote.clear();
    m_conversationId = id;
    m_title = conversation->title;
    m_systemPrompt = conversation->systemPrompt;
    m_sampling = SamplingSettings::fromJson(conversation->sampling, defaultSampling());
    reloadMessages();
    Q_EMIT conversationChanged();
    // The chat's own model, when it is another file that is still there.
    const ModelSession::State state = m_session->state();
    if (!conversation->modelPath.isEmpty() && conversation->modelPath != m_session->modelPath()
        && (state == ModelSession::State::Ready || state == ModelSession::State::NoModel)
        && QFileInfo::exists(conversation->modelPath))
        m_session->loadModel(conversation->modelPath);
}

QList<ChatTurn> ChatController::openTurns() const
{
    QList<ChatTurn> turns;
    turns.reserve(m_messages.rowCount() + 1);
    turns.append({ QStringLiteral("system"), m_systemPrompt });
    // Earlier answers go back without their thinking, as reasoning models' templates expect
    // (Qwen 3's drops it itself; templates that do not would show the model its old thoughts).
    for (int row = 0; row < m_messages.rowCount(); ++row) {
        const auto& message = m_messages.at(row);
        const bool answer = message.role == QLatin1String("assistant");
        turns.append({ message.role, answer ? ReasoningParts::split(message.content).answer : message.content });
    }
    return turns;
}

void ChatController::measureOpenConversation()
{
    // Never another chat's count while the worker counts this one.
    if (m_contextUsed != 0) {
        m_contextUsed = 0;
        Q_EMIT contextChanged();
    }
    m_session->measureContext(m_conversationId, openTurns()); // a remote model counts as it answers
}

void ChatController::reloadMessages()
{
    QList<MessageModel::Message> rows;
    if (m_conversationId != 0) {
        const QList<hearth::StoredMessage> path = m_store->activePath(m_conversationId);
        // One query for every branch instead of one per message: long chats open quickly.
        QHash<qint64, QList<qint64>> children;
        for (const hearth::StoredMessage& message : m_store->allMessages(m_conversationId))
            children[message.parentId].append(message.id);
        rows.reserve(path.size());
        for (const hearth::StoredMessage& message : path) {
            MessageModel::Message row = toRow(message);
            const QList<qint64>& siblings = children.value(message.parentId);
            row.siblingCount = qMax(1, int(siblings.size()));
            row.siblingIndex = qMax(0, int(siblings.indexOf(message.id)));
            row.streaming = message.id == m_answerId; // its text so far comes with it
            rows.append(row);
        }
    }
    m_messages.setMessages(rows);
    if (m_answerId == 0)
        measureOpenConversation();
}

bool ChatController::renameConversation(qint64 id, const QString& title)
{
    const QString name = title.simplified();
    if (name.isEmpty() || !m_store->renameConversation(id, name))
        return false;
    if (id == m_conversationId) {
        m_title = name;
        Q_EMIT conversationChanged();
    }
    return true;
}

bool ChatController::deleteConversation(qint64 id)
{
    if (id == m_answerConversation && m_answerId != 0) {
        setErrorText(tr("This chat is still being answered: stop the answer before deleting the chat."));
        return false;
    }
    const auto conversation = m_store->conversation(id);
    if (!conversation || !m_store->deleteConversation(id))
        return false;
    m_deletedId = id;
    m_deletedTitle = conversation->title;
    Q_EMIT undoChanged();
    if (id == m_conversationId)
        newConversation();
    return true;
}

void ChatController::dismissUndo()
{
    if (m_deletedId == 0)
        return;
    m_deletedId = 0;
    m_deletedTitle.clear();
    Q_EMIT undoChanged();
}

bool ChatController::undoDelete()
{
    if (m_deletedId == 0)
        return false;
    const qint64 id = m_deletedId;
    m_deletedId = 0;
    m_deletedTitle.clear();
    Q_EMIT undoChanged();
    if (!m_store->restoreConversation(id))
        return false;
    openConversation(id);
    return true;
}

QString ChatController::exportConversation(qint64 id, const QUrl& file, const QString& format)
{
    const QString path = file.isLocalFile() ? file.toLocalFile() : file.toString();
    QByteArray bytes;
    if (format == QLatin1String("json")) {
        const auto json = m_store->exportJson(id);
        if (!json)
            return {};
        bytes = *json;
    } else {
        const auto markdown = m_store->exportMarkdown(id);
        if (!markdown)
            return {};
        bytes = markdown->toUtf8();
    }
    QSaveFile out(path);
    if (!out.open(QIODevice::WriteOnly) || out.write(bytes) != bytes.size() || !out.commit()) {
        setErrorText(tr("Could not write %1: %2").arg(path, out.errorString()));
        return {};
    }
    return QDir::toNativeSeparators(path);
}

QUrl ChatController::suggestedExportFile(const QString& title, const QString& suffix)
{
    // Characters no file system takes (Windows' set, the strictest), runs of them folded.
    static const QRegularExpression unsafe(QStringLiteral(R"([\\/:*?"<>|\x00-\x1f]+)"));
    QString name = title.simplified().replace(unsafe, QStringLiteral(" ")).simplified();
    while (name.startsWith(QLatin1Char('.')) || name.startsWith(QLatin1Char(' ')))
        name.remove(0, 1); // no hidden files, no ".." left of "../"
    name.truncate(80);
    if (name.trimmed().isEmpty())
        name = tr("Chat", "file name of an exported chat without a title");
    QString folder = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
    if (folder.isEmpty() || !QDir(folder).exists())
        folder = QStandardPaths::writableLocation(QStandardPaths::HomeLocation);
    return QUrl::fromLocalFile(QDir(folder).filePath(name.trimmed() + QLatin1Char('.') + suffix));
}

void ChatController::setSearchText(const QString& text)
{
    m_conversations.setSearchText(text);
}

void ChatController::setErrorText(const QString& text)
{
    if (text == m_errorText)
        return;
    m_errorText = text;
    Q_EMIT errorTextChanged();
}

} // namespace hearth::app
