// SPDX-License-Identifier: MIT
#pragma once

#include "engine_worker.h"
#include "message_model.h"

#include <QObject>
#include <QThread>
#include <QUrl>
#include <QtQml/qqmlregistration.h>

class QQmlEngine;
class QJSEngine;

namespace hearth::app {

/// The conversation as QML sees it: the loaded model, the messages and the engine's state.
/// Owns the engine thread; every engine call is a queued call to the EngineWorker on it.
class ChatController : public QObject
{
    Q_OBJECT
    QML_ELEMENT
    QML_SINGLETON

    Q_PROPERTY(State state READ state NOTIFY stateChanged)
    Q_PROPERTY(QString modelName READ modelName NOTIFY modelChanged)
    Q_PROPERTY(QString modelDescription READ modelDescription NOTIFY modelChanged)
    Q_PROPERTY(QString errorText READ errorText NOTIFY errorTextChanged)
    Q_PROPERTY(hearth::app::MessageModel* messages READ messages CONSTANT)
    Q_PROPERTY(int maxTokens READ maxTokens WRITE setMaxTokens NOTIFY maxTokensChanged)

public:
    enum class State {
        NoModel,
        Loading,
        Ready,
        Generating,
    };
    Q_ENUM(State)

    // No default arguments: Qt 6.4 prefers a default constructor over create(), and QML must
    // get the instance main() made.
    explicit ChatController(QObject* parent);
    ~ChatController() override;

    static ChatController* create(QQmlEngine* qmlEngine, QJSEngine* jsEngine);
    static void setInstance(ChatController* instance);

    [[nodiscard]] State state() const { return m_state; }
    [[nodiscard]] QString modelName() const { return m_modelName; }
    [[nodiscard]] QString modelDescription() const { return m_modelDescription; }
    [[nodiscard]] QString errorText() const { return m_errorText; }
    [[nodiscard]] MessageModel* messages() { return &m_messages; }
    [[nodiscard]] int maxTokens() const { return m_maxTokens; }
    void setMaxTokens(int maxTokens);

    Q_INVOKABLE void loadModel(const QString& path);
    Q_INVOKABLE void loadModelUrl(const QUrl& url);
    /// Sends @p text as the user's next message. Ignored while loading or answering.
    Q_INVOKABLE void send(const QString& text);
    Q_INVOKABLE void stop();
    Q_INVOKABLE void newConversation();

Q_SIGNALS:
    void stateChanged();
    void modelChanged();
    void errorTextChanged();
    void maxTokensChanged();

private:
    void setState(State state);
    void setErrorText(const QString& text);

    QThread m_thread;
    EngineWorker* m_worker = nullptr; // lives on m_thread, deleted when it finishes
    MessageModel m_messages;
    State m_state = State::NoModel;
    QString m_modelName;
    QString m_modelDescription;
    QString m_errorText;
    int m_answerRow = -1;
    int m_maxTokens = 512;
};

} // namespace hearth::app
