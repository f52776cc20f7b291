// SPDX-License-Identifier: MIT
#pragma once

#include "conversation_list_model.h"
#include "message_model.h"
#include "model_session.h"
#include "sampling_settings.h"

#include <QElapsedTimer>
#include <QObject>
#include <QPointer>
#include <QUrl>
#include <QVariantMap>
#include <QtQml/qqmlregistration.h>

#include <memory>
#include <optional>

class QQmlEngine;
class QJSEngine;

namespace hearth {
class ChatStore;
}

namespace hearth::app {

class AppSettings;

/// The open conversation as QML sees it: the chats in the ChatStore, the active branch of the
/// open one, its system prompt and sampling, and the answer being written. The model that answers
/// is the ModelSession's; every streamed token goes to the store as it arrives (the store batches
/// the writes).
///
///     ModelSession session(nullptr);
///     ChatController chat(&session, nullptr);
///     chat.openStore(path);
///     chat.send(QStringLiteral("Hello"));      // answerCompleted() once the answer is stored
class ChatController : public QObject
{
    Q_OBJECT
    QML_ELEMENT
    QML_SINGLETON

    /// Why the last action on the chat failed: the model's errors, the store's, the answer's.
    Q_PROPERTY(QString errorText READ errorText NOTIFY errorTextChanged)
    Q_PROPERTY(hearth::app::MessageModel* messages READ messages CONSTANT)
    Q_PROPERTY(hearth::app::ConversationListModel* conversations READ conversations CONSTANT)
    Q_PROPERTY(qint64 conversationId READ conversationId NOTIFY conversationChanged)
    Q_PROPERTY(QString conversationTitle READ conversationTitle NOTIFY conversationChanged)
    Q_PROPERTY(QString systemPrompt READ systemPrompt WRITE setSystemPrompt NOTIFY conversationChanged)
    /// The open chat's sampling: temperature, top_k, top_p, min_p, repeat_penalty, max_tokens, seed.
    Q_PROPERTY(QVariantMap sampling READ sampling WRITE setSampling NOTIFY conversationChanged)
    Q_PROPERTY(int maxTokens READ maxTokens WRITE setMaxTokens NOTIFY conversationChanged)
    /// The tokens the open chat takes in the model's context.
    Q_PROPERTY(int contextUsed READ contextUsed NOTIFY contextChanged)
    /// Set when the last answer's prompt left the oldest turns out to fit the context.
    Q_PROPERTY(QString contextNote READ contextNote NOTIFY contextChanged)
    Q_PROPERTY(bool canUndoDelete READ canUndoDelete NOTIFY undoChanged)
    Q_PROPERTY(QString deletedTitle READ deletedTitle NOTIFY undoChanged)

public:
    /// @p session answers; it must outlive the controller. (No default arguments: Qt 6.4 prefers
    /// a default constructor over create(), and QML must get the instance main() made.)
    ChatController(ModelSession* session, QObject* parent);
    ~ChatController() override;

    static ChatController* create(QQmlEngine* qmlEngine, QJSEngine* jsEngine);
    static void setInstance(ChatController* instance);

    /// Opens (or creates) the history database; without it chats are not kept.
    [[nodiscard]] bool openStore(const QString& path);
    [[nodiscard]] hearth::ChatStore* store() const { return m_store.get(); }
    /// Defaults for new chats, threads and recent models; not owned, may be null.
    void setSettings(AppSettings* settings);

    [[nodiscard]] ModelSession* session() const { return m_session; }
    [[nodiscard]] QString errorText() const { return m_errorText; }
    [[nodiscard]] MessageModel* messages() { return &m_messages; }
    [[nodiscard]] ConversationListModel* conversations() { return &m_conversations; }
    [[nodiscard]] qint64 conversationId() const { return m_conversationId; }
    [[nodiscard]] QString conversationTitle() const { return m_title; }
    [[nodiscard]] QString systemPrompt() const { return m_systemPrompt; }
    void setSystemPrompt(const QString& prompt);
    [[nodiscard]] QVariantMap sampling() const { return m_sampling.toJson().toVariantMap(); }
    void setSampling(const QVariantMap& sampling);
    [[nodiscard]] int maxTokens() const { return m_sampling.maxTokens; }
    void setMaxTokens(int maxTokens);
    [[nodiscard]] int contextUsed() const { return m_contextUsed; }
    [[nodiscard]] QString contextNote() const { return m_contextNote; }
    [[nodiscard]] bool canUndoDelete() const { return m_deletedId != 0; }
    [[nodiscard]] QString deletedTitle() const { return m_deletedTitle; }

    /// Sends @p text as the user's next message. Ignored while loading or answering.
    Q_INVOKABLE void send(const QString& text);
    Q_INVOKABLE void stop();
    /// Answers again the question before the answer in @p row; the old answer stays as a sibling.
    Q_INVOKABLE void regenerate(int row);
    /// Lets the answer in @p row, the last one, cut off at the length limit or stopped, go on
    /// where it ended (local models).
    Q_INVOKABLE void continueAnswer(int row);
    /// Replaces the user message in @p row with @p text on a new branch and answers it.
    Q_INVOKABLE void editAndResend(int row, const QString& text);
    /// Shows the previous (-1) or next (+1) alternative of the message in @p row.
    Q_INVOKABLE void switchSibling(int row, int delta);
    Q_INVOKABLE void copyMessage(int row);
    /// Deletes the message at @p row only; the messages after it stay (to free context, or to
    /// drop a wrong turn).
    Q_INVOKABLE bool deleteMessage(int row);
    /// Puts @p text on the clipboard (code blocks' copy buttons).
    Q_INVOKABLE void copyText(const QString& text);
    /// Copies the newest answer; false when there is none.
    Q_INVOKABLE bool copyLastAnswer();

    /// An empty chat; it is stored once its first message is sent.
    Q_INVOKABLE void newConversation();
    Q_INVOKABLE void openConversation(qint64 id);
    Q_INVOKABLE bool renameConversation(qint64 id, const QString& title);
    /// Moves a chat to the bin; undoDelete() brings back the last one.
    Q_INVOKABLE bool deleteConversation(qint64 id);
    Q_INVOKABLE bool undoDelete();
    /// Gives up the chance to undo the last delete (the undo bar timed out); the chat stays in
    /// the bin.
    Q_INVOKABLE void dismissUndo();
    /// Writes @p id as "markdown" or "json" to @p file; returns the path written, or an empty
    /// string (and errorText says why).
    Q_INVOKABLE QString exportConversation(qint64 id, const QUrl& file, const QString& format);
    /// Where an export of the chat titled @p title goes unless the user says otherwise: the
    /// title made safe as a file name, with @p suffix, in the Documents folder.
    Q_INVOKABLE static QUrl suggestedExportFile(const QString& title, const QString& suffix);
    Q_INVOKABLE void setSearchText(const QString& text);

Q_SIGNALS:
    void errorTextChanged();
    void conversationChanged();
    void contextChanged();
    void undoChanged();
    /// Each streamed piece of the running answer (logs, the test hook in main()).
    void answerToken(const QString& text);
    /// An answer ended (finished, stopped or failed) and its row is final in the store.
    void answerCompleted(const QString& answer);

private:
    void setErrorText(const QString& text);
    void reloadMessages();
    /// The system prompt and the open branch, as the model sees them.
    [[nodiscard]] QList<ChatTurn> openTurns() const;
    /// Sets the meter to the open chat's own use: its tokens, counted on the worker.
    void measureOpenConversation();
    [[nodiscard]] bool ensureConversation(const QString& firstMessage);
    /// Starts an answer below the last row of the view.
    void startAnswer();
    // Asks the model for the answer in message @p answerId (on screen, streaming) to @p turns,
    // going on from @p answerStart.
    void requestAnswer(qint64 answerId, const QList<ChatTurn>& turns, const QString& answerStart = {});
    void onToken(quint64 requestId, const QString& text);
    void onFinished(quint64 requestId, const AnswerStats& stats);
    /// A message's text as the store has it, streamed pieces not yet written included: the one
    /// copy of a streaming answer besides the view's.
    [[nodiscard]] QString storedText(qint64 messageId) const;
    void onFailed(quint64 requestId, const QString& message);
    void refreshSiblings(int row);
    [[nodiscard]] SamplingSettings defaultSampling() const;

    ModelSession* m_session;
    std::unique_ptr<hearth::ChatStore> m_store;
    QPointer<AppSettings> m_settings;
    MessageModel m_messages;
    ConversationListModel m_conversations;
    QString m_contextNote;
    QString m_errorText;

    qint64 m_conversationId = 0;
    QString m_title;
    QString m_systemPrompt;
    SamplingSettings m_sampling;
    int m_contextUsed = 0;

    // The running answer.
    quint64 m_requestId = 0;
    qint64 m_answerId = 0;
    qint64 m_answerConversation = 0;
    QElapsedTimer m_sinceRequest;
    double m_firstTokenMs = 0;
    // A continued answer as it was before: its tokens count too, its first token stays the
    // first, and a continuation that fails leaves it so.
    std::optional<MessageModel::Message> m_continued;

    qint64 m_deletedId = 0;
    QString m_deletedTitle;
};

} // namespace hearth::app
