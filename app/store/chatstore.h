// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// ChatStore: the only owner of the chat history database.
///
/// * SQLite in WAL mode with synchronous=NORMAL: a killed app loses nothing that was committed,
///   a power cut at most the last transactions.
/// * One connection per thread that uses the store, named after the store and the thread; a
///   connection is never used from a thread that did not open it and goes away with its thread.
/// * The schema is a table of migration steps (ChatSchema); a database from a newer Hearth is
///   refused untouched, one from an older Hearth is backed up and upgraded step by step.
/// * An answer's row exists from beginAssistantMessage(); appendToken() keeps the text in memory
///   and writes it at most every FlushIntervalMs or FlushEveryTokens tokens, so a crash loses at
///   most a fraction of a second. Rows still "streaming" when a database is opened belonged to a
///   process that died: they become "interrupted" with their partial text.
/// * Nothing throws. Failures return false / std::nullopt, set lastError() and emit
///   errorOccurred() with a message for people; text that could not be written stays in memory
///   and is written by the next flush.

#include "chatrecords.h"

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QMutex>
#include <QObject>
#include <QSet>
#include <QSqlDatabase>
#include <QString>
#include <QTimer>

#include <QElapsedTimer>
#include <optional>

class QSqlError;
class QSqlQuery;
class QThread;

namespace hearth {

class ChatStore : public QObject
{
    Q_OBJECT

public:
    /// Streaming text reaches the database at least this often while tokens arrive...
    static constexpr int FlushIntervalMs = 150;
    /// ...and at least every this many tokens, whatever the clock says.
    static constexpr int FlushEveryTokens = 32;
    /// After a failed write (disk full, locked) the next attempt waits this long.
    static constexpr int RetryIntervalMs = 1000;

    explicit ChatStore(QObject* parent = nullptr);
    ~ChatStore() override;

    /// How long a write waits for another connection's lock before failing. Applies to
    /// connections opened afterwards; call before open().
    void setBusyTimeout(int milliseconds);

    /// Opens the database at @p path, creating it (and its folder) or upgrading it as needed.
    /// A database that can only be read is opened read-only: isReadOnly() tells, and an error
    /// message explains why nothing new will be saved.
    [[nodiscard]] bool open(const QString& path);
    /// Writes pending text, marks unfinished answers interrupted and closes every connection.
    void close();

    [[nodiscard]] bool isOpen() const;
    [[nodiscard]] bool isReadOnly() const;
    [[nodiscard]] QString path() const;
    [[nodiscard]] QString lastError() const;
    /// The schema version of the open database (ChatSchema::latestVersion() once migrated).
    [[nodiscard]] int schemaVersion() const;
    /// Messages found "streaming" by open() and turned "interrupted".
    [[nodiscard]] int recoveredMessageCount() const;
    /// The name of the calling thread's connection, for diagnostics and tests.
    [[nodiscard]] QString connectionName() const;

    // Conversations ---------------------------------------------------------------------------

    [[nodiscard]] std::optional<qint64> createConversation(const QString& title,
        const QString& systemPrompt = {}, const QString& modelPath = {}, const QJsonObject& sampling = {});
    [[nodiscard]] std::optional<Conversation> conversation(qint64 id);
    /// Conversations not in the bin: pinned first, then most recently updated.
    [[nodiscard]] QList<Conversation> conversations();
    /// Conversations in the bin, most recently deleted first.
    [[nodiscard]] QList<Conversation> deletedConversations();
    bool renameConversation(qint64 id, const QString& title);
    bool setPinned(qint64 id, bool pinned);
    bool setSystemPrompt(qint64 id, const QString& systemPrompt);
    bool setModelPath(qint64 id, const QString& modelPath);
    bool setSamplingSettings(qint64 id, const QJsonObject& sampling);
    /// Moves a conversation to the bin; restoreConversation() undoes it until it is purged.
    bool deleteConversation(qint64 id);
    bool restoreConversation(qint64 id);
    /// Removes for good the conversations put in the bin before @p deletedBefore.
    /// Returns how many, or -1 on error.
    int purgeDeletedConversations(const QDateTime& deletedBefore);

    // Messages --------------------------------------------------------------------------------

    /// Adds a complete message below @p parentId (0: first message) and makes it the active
    /// leaf. Editing a message and resending is addMessage() with the edited message's parent:
    /// the old branch stays as a sibling.
    [[nodiscard]] std::optional<qint64> addMessage(
        qint64 conversationId, qint64 parentId, const QString& role, const QString& content);
    [[nodiscard]] std::optional<StoredMessage> message(qint64 id);
    /// The branch on screen, from the first message to the active leaf.
    [[nodiscard]] QList<StoredMessage> activePath(qint64 conversationId);
    /// Every message of every branch, oldest first.
    [[nodiscard]] QList<StoredMessage> allMessages(qint64 conversationId);
    /// The messages sharing @p messageId's parent (regenerated answers, edited questions).
    [[nodiscard]] SiblingInfo siblings(qint64 messageId);
    /// Shows the branch through @p messageId, down to its newest leaf.
    bool switchBranch(qint64 messageId);
    /// Deletes a message and every reply below it; with @p keepReplies only the message goes and
    /// its replies move up to its parent, so the rest of the chat stays.
    bool deleteMessage(qint64 messageId, bool keepReplies = false);

    // Streaming -------------------------------------------------------------------------------

    /// Creates the assistant row at once (state streaming) below @p parentId and makes it the
    /// active leaf. Regenerate is this call with the old answer's parent.
    [[nodiscard]] std::optional<qint64> beginAssistantMessage(
        qint64 conversationId, qint64 parentId, const QString& model = {});
    /// Streams a finished answer further (Continue): the assistant message @p messageId, ended
    /// early (endedEarly()), becomes streaming again with its text so far, and
    /// appendToken() adds to it. False for any other message or one already streaming.
    bool resumeAssistantMessage(qint64 messageId);
    /// Appends text to a streaming message. The text is kept in memory at once and written in
    /// batches; returns false only when @p messageId is not streaming in this store.
    bool appendToken(qint64 messageId, const QString& text);
    /// Writes the final text and statistics and marks the message with how it ended: Complete,
    /// or one of the early ends (endedEarly(): Stopped, LengthLimit, ContextFull); any other
    /// state reads as Complete.
    bool finishMessage(qint64 messageId, const StoredAnswerStats& stats, MessageState end = MessageState::Complete);
    /// Writes the text so far and marks the message failed with @p error.
    bool markError(qint64 messageId, const QString& error);
    /// Writes all pending streaming text now. False if some of it could not be written (it
    /// stays in memory for the next attempt).
    bool flush();
    [[nodiscard]] bool hasPendingWrites() const;

    // Search and export -----------------------------------------------------------------------

    /// Full-text search over message contents and titles; every word must match, the last one
    /// as a prefix. Any text is accepted (it is never parsed as FTS syntax).
    [[nodiscard]] QList<SearchHit> search(const QString& text, int limit = 50);
    /// The active branch as Markdown.
    [[nodiscard]] std::optional<QString> exportMarkdown(qint64 conversationId);
    /// The conversation as JSON: the active path, and every branch when @p allBranches.
    [[nodiscard]] std::optional<QByteArray> exportJson(qint64 conversationId, bool allBranches = true);

Q_SIGNALS:
    void errorOccurred(const QString& message);
    /// A conversation was created, renamed, pinned, deleted, restored or purged.
    void conversationsChanged();

private:
    struct PendingStream {
        qint64 conversationId = 0;
        QString text;
        int unflushedTokens = 0;
        bool dirty = false;
        QElapsedTimer sinceWrite;
        // Set by finishMessage()/markError(): the final write still has to happen.
        std::optional<MessageState> finalState;
        StoredAnswerStats stats;
        QString errorText;
    };

    [[nodiscard]] std::optional<QSqlDatabase> database();
    [[nodiscard]] bool openConnection(const QString& name, bool readOnly);
    [[nodiscard]] bool prepareSchema(QSqlDatabase& db);
    [[nodiscard]] bool migrate(QSqlDatabase& db, int fromVersion);
    [[nodiscard]] bool recoverInterrupted(QSqlDatabase& db);
    [[nodiscard]] bool reopenReadOnly();
    void removeConnection(const QString& name);
    void removeAllConnections();

    [[nodiscard]] bool canWrite();
    [[nodiscard]] bool exec(QSqlQuery& query, const QString& action);
    [[nodiscard]] bool touchConversation(QSqlDatabase& db, qint64 conversationId, qint64 activeLeafId);
    [[nodiscard]] std::optional<qint64> insertMessage(qint64 conversationId, qint64 parentId,
        const QString& role, const QString& content, MessageState state, const QString& model);
    [[nodiscard]] std::optional<qint64> newestLeafBelow(QSqlDatabase& db, qint64 messageId);
    [[nodiscard]] std::optional<qint64> conversationOf(QSqlDatabase& db, qint64 messageId);
    [[nodiscard]] QList<Conversation> queryConversations(const QString& where, const QString& order);
    bool updateConversationField(qint64 id, const char* column, const QVariant& value);

    bool finishStream(qint64 messageId, MessageState state, const StoredAnswerStats& stats, const QString& error);
    [[nodiscard]] bool writeStream(qint64 messageId, PendingStream& stream);
    void scheduleFlush(int delayMs);

    void reportError(const QString& message);
    void reportSqlError(const QString& action, const QSqlError& error);

    const quint64 m_instance;
    QString m_path;
    int m_busyTimeoutMs = 3000;
    bool m_open = false;
    bool m_readOnly = false;
    int m_schemaVersion = 0;
    int m_recovered = 0;
    int m_lastSqlCode = 0; // SQLite primary result code of the last reported failure

    mutable QRecursiveMutex m_mutex; // guards everything below; recursive for signal re-entry
    QString m_lastError;
    QString m_lastFlushError; // so a failing flush reports once, not once per token
    QSet<QString> m_connections;
    QHash<qint64, PendingStream> m_streams;
    QTimer m_flushTimer;
};

} // namespace hearth
