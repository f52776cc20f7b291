// SPDX-License-Identifier: MIT
#include "chatstore.h"

#include "chatexport.h"
#include "chatschema.h"

#include <QAtomicInteger>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QLoggingCategory>
#include <QMutexLocker>
#include <QRegularExpression>
#include <QSqlError>
#include <QSqlQuery>
#include <QThread>

Q_LOGGING_CATEGORY(lcChatStore, "hearth.chatstore")

namespace hearth {

namespace {

QAtomicInteger<quint64> s_nextInstance = 1;

// SQLite primary result codes (the low byte of an extended code), as Qt's driver reports them in
// QSqlError::nativeErrorCode().
enum SqliteCode {
    SqliteBusy = 5,
    SqliteLocked = 6,
    SqliteReadOnly = 8,
    SqliteIoErr = 10,
    SqliteCorrupt = 11,
    SqliteFull = 13,
    SqliteCantOpen = 14,
    SqliteNotADb = 26,
};

int primaryCode(const QSqlError& error)
{
    bool ok = false;
    const int code = error.nativeErrorCode().toInt(&ok);
    return ok ? (code & 0xff) : -1;
}

QString describe(const QSqlError& error)
{
    const QString detail = error.databaseText().isEmpty() ? error.text() : error.databaseText();
    switch (primaryCode(error)) {
    case SqliteBusy:
    case SqliteLocked:
        return ChatStore::tr("The chat database is locked by another program (%1). Is Hearth running twice?")
            .arg(detail);
    case SqliteReadOnly:
        return ChatStore::tr("The chat database is read-only (%1).").arg(detail);
    case SqliteFull:
        return ChatStore::tr("The disk holding the chat database is full (%1).").arg(detail);
    case SqliteCorrupt:
    case SqliteNotADb:
        return ChatStore::tr("The chat database is damaged or is not a database (%1).").arg(detail);
    case SqliteCantOpen:
        return ChatStore::tr("The chat database cannot be opened (%1). Check the folder's permissions.")
            .arg(detail);
    case SqliteIoErr:
        return ChatStore::tr("The disk reported an error while reading or writing the chat database (%1).")
            .arg(detail);
    default:
        return detail;
    }
}

QString messageColumns()
{
    return QStringLiteral("m.id, m.conversation_id, m.parent_id, m.role, m.content, m.created_at, m.state,"
                          " m.error_text, m.gen_tokens, m.gen_tokens_per_second, m.gen_ttft_ms, m.gen_model");
}

StoredMessage readMessage(const QSqlQuery& q)
{
    StoredMessage m;
    m.id = q.value(0).toLongLong();
    m.conversationId = q.value(1).toLongLong();
    m.parentId = q.value(2).toLongLong();
    m.role = q.value(3).toString();
    m.content = q.value(4).toString();
    m.created = QDateTime::fromMSecsSinceEpoch(q.value(5).toLongLong(), Qt::UTC);
    m.state = messageStateFromName(q.value(6).toString());
    m.errorText = q.value(7).toString();
    m.stats.tokens = q.value(8).toInt();
    m.stats.tokensPerSecond = q.value(9).toDouble();
    m.stats.timeToFirstTokenMs = q.value(10).toDouble();
    m.stats.model = q.value(11).toString();
    return m;
}

QString conversationColumns()
{
    return QStringLiteral("id, title, created_at, updated_at, system_prompt, model_path, sampling_json, pinned,"
                          " active_leaf_id, deleted_at");
}

Conversation readConversation(const QSqlQuery& q)
{
    Conversation c;
    c.id = q.value(0).toLongLong();
    c.title = q.value(1).toString();
    c.created = QDateTime::fromMSecsSinceEpoch(q.value(2).toLongLong(), Qt::UTC);
    c.updated = QDateTime::fromMSecsSinceEpoch(q.value(3).toLongLong(), Qt::UTC);
    c.systemPrompt = q.value(4).toString();
    c.modelPath = q.value(5).toString();
    c.sampling = QJsonDocument::fromJson(q.value(6).toString().toUtf8()).object();
    c.pinned = q.value(7).toBool();
    c.activeLeafId = q.value(8).toLongLong();
    if (!q.value(9).isNull())
        c.deleted = QDateTime::fromMSecsSinceEpoch(q.value(9).toLongLong(), Qt::UTC);
    return c;
}

qint64 now()
{
    return QDateTime::currentMSecsSinceEpoch();
}

// Qt binds a null QString as SQL NULL; the text columns are NOT NULL, an absent text is ''.
QString notNull(const QString& text)
{
    return text.isNull() ? QStringLiteral("") : text;
}

QVariant nullableId(qint64 id)
{
    return id > 0 ? QVariant(id) : QVariant(QMetaType::fromType<qint64>());
}

// Turns whatever the user typed into an FTS5 query: every word quoted (so AND, quotes, stars and
// brackets are just text), all required, the last one a prefix so results follow typing.
QString ftsQuery(const QString& text)
{
    const QStringList words = text.split(QRegularExpression(QStringLiteral("\\s+")), Qt::SkipEmptyParts);
    QStringList terms;
    for (const QString& word : words) {
        QString escaped = word;
        escaped.replace(QLatin1Char('"'), QLatin1String("\"\""));
        terms << QLatin1Char('"') + escaped + QLatin1Char('"');
    }
    if (!terms.isEmpty())
        terms.last() += QLatin1Char('*');
    return terms.join(QLatin1Char(' '));
}

// FTS5 marks matches with \x02...\x03 (characters that never appear in chat text); turn them into
// plain and HTML forms.
void fillSnippet(SearchHit& hit, const QString& marked)
{
    hit.snippet = marked;
    hit.snippet.remove(QChar(0x02)).remove(QChar(0x03));
    hit.snippetHtml = marked.toHtmlEscaped();
    hit.snippetHtml.replace(QChar(0x02), QLatin1String("<b>")).replace(QChar(0x03), QLatin1String("</b>"));
}

} // namespace

ChatStore::ChatStore(QObject* parent)
    : QObject(parent)
    , m_instance(s_nextInstance.fetchAndAddRelaxed(1))
{
    m_flushTimer.setSingleShot(true);
    connect(&m_flushTimer, &QTimer::timeout, this, [this] { flush(); });
}

ChatStore::~ChatStore()
{
    close();
}

void ChatStore::setBusyTimeout(int milliseconds)
{
    m_busyTimeoutMs = qMax(0, milliseconds);
}

QString ChatStore::connectionName() const
{
    return QStringLiteral("hearth.chatstore.%1.%2")
        .arg(m_instance)
        .arg(reinterpret_cast<quintptr>(QThread::currentThread()), 0, 16);
}

bool ChatStore::isOpen() const
{
    return m_open;
}

bool ChatStore::isReadOnly() const
{
    return m_readOnly;
}

QString ChatStore::path() const
{
    return m_path;
}

QString ChatStore::lastError() const
{
    QMutexLocker lock(&m_mutex);
    return m_lastError;
}

int ChatStore::schemaVersion() const
{
    return m_schemaVersion;
}

int ChatStore::recoveredMessageCount() const
{
    return m_recovered;
}

void ChatStore::reportError(const QString& message)
{
    {
        QMutexLocker lock(&m_mutex);
        m_lastError = message;
    }
    qCWarning(lcChatStore).noquote() << message;
    Q_EMIT errorOccurred(message);
}

void ChatStore::reportSqlError(const QString& action, const QSqlError& error)
{
    m_lastSqlCode = primaryCode(error);
    reportError(tr("%1: %2").arg(action, describe(error)));
}

// Connections -----------------------------------------------------------------------------------

bool ChatStore::openConnection(const QString& name, bool readOnly)
{
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), name);
        db.setDatabaseName(m_path);
        QStringList options {QStringLiteral("QSQLITE_BUSY_TIMEOUT=%1").arg(m_busyTimeoutMs)};
        if (readOnly)
            options << QStringLiteral("QSQLITE_OPEN_READONLY");
        db.setConnectOptions(options.join(QLatin1Char(';')));
        if (!db.open()) {
            const QSqlError error = db.lastError();
            db = {};
            QSqlDatabase::removeDatabase(name);
            reportSqlError(tr("Opening %1").arg(m_path), error);
            return false;
        }
        QSqlQuery q(db);
        // foreign_keys and synchronous are per connection; journal_mode is set once in open().
        for (const char* pragma : {"PRAGMA foreign_keys = ON", "PRAGMA synchronous = NORMAL"}) {
            if (!q.exec(QString::fromLatin1(pragma))) {
                const QSqlError error = q.lastError();
                q = QSqlQuery();
                db.close();
                db = {};
                QSqlDatabase::removeDatabase(name);
                reportSqlError(tr("Opening %1").arg(m_path), error);
                return false;
            }
        }
    }
    QMutexLocker lock(&m_mutex);
    m_connections.insert(name);
    // A worker thread's connection must go away with the thread; the finished signal is emitted
    // from that thread, the only one allowed to close it.
    QThread* thread = QThread::currentThread();
    if (thread != this->thread()) {
        connect(thread, &QThread::finished, thread, [this, name] { removeConnection(name); },
            Qt::DirectConnection);
    }
    return true;
}

void ChatStore::removeConnection(const QString& name)
{
    {
        QMutexLocker lock(&m_mutex);
        if (!m_connections.remove(name))
            return;
    }
    {
        QSqlDatabase db = QSqlDatabase::database(name, false);
        if (db.isValid())
            db.close();
    }
    QSqlDatabase::removeDatabase(name);
}

void ChatStore::removeAllConnections()
{
    QStringList names;
    {
        QMutexLocker lock(&m_mutex);
        names = m_connections.values();
    }
    // Connections of other threads cannot be used from here, only dropped; the store being
    // destroyed while workers still run is a programming error that this keeps harmless.
    for (const QString& name : std::as_const(names))
        removeConnection(name);
}

std::optional<QSqlDatabase> ChatStore::database()
{
    if (!m_open) {
        reportError(tr("The chat database is not open."));
        return std::nullopt;
    }
    const QString name = connectionName();
    bool known = false;
    {
        QMutexLocker lock(&m_mutex);
        known = m_connections.contains(name);
    }
    if (!known && !openConnection(name, m_readOnly))
        return std::nullopt;
    return QSqlDatabase::database(name, false);
}

bool ChatStore::canWrite()
{
    if (m_readOnly) {
        reportError(tr("The chat database %1 is read-only: changes cannot be saved.").arg(m_path));
        return false;
    }
    return true;
}

bool ChatStore::exec(QSqlQuery& query, const QString& action)
{
    if (query.exec())
        return true;
    reportSqlError(action, query.lastError());
    return false;
}

// Opening and migrating ---------------------------------------------------------------------------

bool ChatStore::open(const QString& path)
{
    close();
    m_path = QFileInfo(path).absoluteFilePath();
    m_readOnly = false;
    m_schemaVersion = 0;
    m_recovered = 0;
    QDir().mkpath(QFileInfo(m_path).absolutePath()); // a failure shows up as "cannot open" below

    const QString name = connectionName();
    if (!openConnection(name, false)) {
        // A database that exists but cannot be opened for writing (read-only folder) may still
        // open for reading.
        const int code = m_lastSqlCode;
        if ((code == SqliteCantOpen || code == SqliteReadOnly) && QFileInfo::exists(m_path))
            return reopenReadOnly();
        return false;
    }
    m_open = true;

    QSqlDatabase db = QSqlDatabase::database(name, false);
    if (prepareSchema(db))
        return true;

    db = {};
    if (m_readOnly)
        return reopenReadOnly();
    close();
    return false;
}

bool ChatStore::prepareSchema(QSqlDatabase& db)
{
    QSqlQuery q(db);
    // Reading the version first makes "not a database" fail before anything is written.
    if (!q.exec(QStringLiteral("PRAGMA user_version")) || !q.next()) {
        reportSqlError(tr("Reading %1").arg(m_path), q.lastError());
        return false;
    }
    const int version = q.value(0).toInt();
    q.finish();
    if (version > ChatSchema::latestVersion()) {
        reportError(tr("The chat database %1 was written by a newer version of Hearth (schema %2; this "
                       "version understands up to %3). It was left untouched; please update Hearth.")
                        .arg(m_path)
                        .arg(version)
                        .arg(ChatSchema::latestVersion()));
        return false;
    }

    if (!q.exec(QStringLiteral("PRAGMA journal_mode = WAL")) || !q.next()) {
        const QSqlError error = q.lastError();
        if (primaryCode(error) == SqliteReadOnly)
            m_readOnly = true;
        reportSqlError(tr("Opening %1").arg(m_path), error);
        return false;
    }
    if (q.value(0).toString().compare(QLatin1String("wal"), Qt::CaseInsensitive) != 0) {
        // SQLite answers with the old mode instead of failing when it cannot write the file.
        m_readOnly = true;
        reportError(tr("The chat database %1 cannot be written.").arg(m_path));
        return false;
    }
    q.finish();

    if (version < ChatSchema::latestVersion() && !migrate(db, version))
        return false;
    m_schemaVersion = ChatSchema::latestVersion();
    if (!recoverInterrupted(db))
        return false;

    // Nothing above needed to write when the database is current, so try a write once: a file
    // that can only be read must show up now, not at the first answer.
    // Rewriting the version inside a transaction that is rolled back touches nothing, but fails
    // like a real write would (SQLite takes the write lock lazily and opens unwritable files
    // read-only without a word).
    const bool writable = q.exec(QStringLiteral("BEGIN IMMEDIATE"))
        && q.exec(QStringLiteral("PRAGMA user_version = %1").arg(m_schemaVersion));
    if (!writable) {
        const QSqlError error = q.lastError();
        (void)q.exec(QStringLiteral("ROLLBACK"));
        if (primaryCode(error) == SqliteReadOnly) {
            m_readOnly = true;
            reportSqlError(tr("Opening %1").arg(m_path), error);
            return false;
        }
        // Locked by someone else: readable now, writes are retried; say so once.
        reportSqlError(tr("Opening %1").arg(m_path), error);
        return true;
    }
    (void)q.exec(QStringLiteral("ROLLBACK"));
    return true;
}

bool ChatStore::migrate(QSqlDatabase& db, int fromVersion)
{
    QSqlQuery q(db);
    if (fromVersion > 0) {
        // A consistent copy before touching an existing history; an upgrade must never be the
        // thing that loses chats.
        const QString backup = m_path + QStringLiteral(".v%1.bak").arg(fromVersion);
        QFile::remove(backup);
        q.prepare(QStringLiteral("VACUUM INTO ?"));
        q.addBindValue(backup);
        if (!q.exec()) {
            const QSqlError error = q.lastError();
            m_readOnly = primaryCode(error) == SqliteReadOnly;
            reportSqlError(tr("Backing up %1 before upgrading it").arg(m_path), error);
            return false;
        }
        qCInfo(lcChatStore) << "backed up schema version" << fromVersion << "to" << backup;
    }
    for (const MigrationStep& step : ChatSchema::steps()) {
        if (step.version <= fromVersion)
            continue;
        if (!db.transaction()) {
            const QSqlError error = db.lastError();
            m_readOnly = primaryCode(error) == SqliteReadOnly;
            reportSqlError(tr("Upgrading %1 to schema %2").arg(m_path).arg(step.version), error);
            return false;
        }
        bool ok = true;
        QSqlError error;
        for (const QString& statement : step.statements) {
            if (!q.exec(statement)) {
                ok = false;
                error = q.lastError();
                break;
            }
        }
        if (ok && !q.exec(QStringLiteral("PRAGMA user_version = %1").arg(step.version))) {
            ok = false;
            error = q.lastError();
        }
        q.finish();
        if (ok && !db.commit()) {
            ok = false;
            error = db.lastError();
        }
        if (!ok) {
            db.rollback();
            m_readOnly = primaryCode(error) == SqliteReadOnly;
            reportSqlError(tr("Upgrading %1 to schema %2").arg(m_path).arg(step.version), error);
            return false;
        }
        qCInfo(lcChatStore) << "migrated" << m_path << "to schema version" << step.version;
    }
    return true;
}

bool ChatStore::recoverInterrupted(QSqlDatabase& db)
{
    QSqlQuery q(db);
    // Count first: an UPDATE would take the write lock even when there is nothing to change.
    if (!q.exec(QStringLiteral("SELECT COUNT(*) FROM messages WHERE state = 'streaming'")) || !q.next()) {
        reportSqlError(tr("Reading %1").arg(m_path), q.lastError());
        return false;
    }
    const int streaming = q.value(0).toInt();
    q.finish();
    if (streaming == 0)
        return true;
    if (!q.exec(QStringLiteral("UPDATE messages SET state = 'interrupted' WHERE state = 'streaming'"))) {
        const QSqlError error = q.lastError();
        m_readOnly = primaryCode(error) == SqliteReadOnly;
        reportSqlError(tr("Recovering answers interrupted in %1").arg(m_path), error);
        return false;
    }
    m_recovered = streaming;
    qCInfo(lcChatStore) << "marked" << streaming << "unfinished answers as interrupted";
    return true;
}

bool ChatStore::reopenReadOnly()
{
    removeAllConnections();
    m_open = false;
    m_readOnly = true;
    const QString name = connectionName();
    if (!openConnection(name, true)) {
        m_readOnly = false;
        return false;
    }
    QSqlDatabase db = QSqlDatabase::database(name, false);
    QSqlQuery q(db);
    if (!q.exec(QStringLiteral("PRAGMA user_version")) || !q.next()) {
        reportSqlError(tr("Reading %1").arg(m_path), q.lastError());
        q = QSqlQuery();
        db = {};
        removeAllConnections();
        m_readOnly = false;
        return false;
    }
    const int version = q.value(0).toInt();
    q = QSqlQuery();
    db = {};
    if (version != ChatSchema::latestVersion()) {
        reportError(tr("The chat database %1 is read-only and needs an upgrade (schema %2, this version "
                       "uses %3): it cannot be opened until it is writable.")
                        .arg(m_path)
                        .arg(version)
                        .arg(ChatSchema::latestVersion()));
        removeAllConnections();
        m_readOnly = false;
        return false;
    }
    m_open = true;
    m_schemaVersion = version;
    reportError(tr("The chat database %1 is read-only: your chats can be read, but nothing new will be saved.")
                    .arg(m_path));
    return true;
}

void ChatStore::close()
{
    if (m_open && !m_readOnly) {
        flush();
        // Answers still open when the store closes will not be finished by anyone.
        QList<qint64> unfinished;
        {
            QMutexLocker lock(&m_mutex);
            for (auto it = m_streams.cbegin(); it != m_streams.cend(); ++it) {
                if (!it->finalState)
                    unfinished << it.key();
            }
        }
        for (qint64 id : std::as_const(unfinished))
            finishStream(id, MessageState::Interrupted, {}, {});
    }
    m_flushTimer.stop();
    {
        QMutexLocker lock(&m_mutex);
        m_streams.clear();
        m_lastFlushError.clear();
    }
    removeAllConnections();
    m_open = false;
}

// Conversations -----------------------------------------------------------------------------------

std::optional<qint64> ChatStore::createConversation(
    const QString& title, const QString& systemPrompt, const QString& modelPath, const QJsonObject& sampling)
{
    if (!canWrite())
        return std::nullopt;
    auto db = database();
    if (!db)
        return std::nullopt;
    QSqlQuery q(*db);
    q.prepare(QStringLiteral("INSERT INTO conversations (title, created_at, updated_at, system_prompt, model_path,"
                             " sampling_json) VALUES (?, ?, ?, ?, ?, ?)"));
    const qint64 t = now();
    q.addBindValue(notNull(title));
    q.addBindValue(t);
    q.addBindValue(t);
    q.addBindValue(notNull(systemPrompt));
    q.addBindValue(notNull(modelPath));
    q.addBindValue(QString::fromUtf8(QJsonDocument(sampling).toJson(QJsonDocument::Compact)));
    if (!exec(q, tr("Creating a conversation")))
        return std::nullopt;
    const qint64 id = q.lastInsertId().toLongLong();
    Q_EMIT conversationsChanged();
    return id;
}

QList<Conversation> ChatStore::queryConversations(const QString& where, const QString& order)
{
    QList<Conversation> result;
    auto db = database();
    if (!db)
        return result;
    QSqlQuery q(*db);
    q.setForwardOnly(true);
    if (!q.exec(QStringLiteral("SELECT %1 FROM conversations WHERE %2 ORDER BY %3")
                    .arg(conversationColumns(), where, order))) {
        reportSqlError(tr("Reading conversations"), q.lastError());
        return result;
    }
    while (q.next())
        result << readConversation(q);
    return result;
}

std::optional<Conversation> ChatStore::conversation(qint64 id)
{
    auto db = database();
    if (!db)
        return std::nullopt;
    QSqlQuery q(*db);
    q.prepare(QStringLiteral("SELECT %1 FROM conversations WHERE id = ?").arg(conversationColumns()));
    q.addBindValue(id);
    if (!exec(q, tr("Reading a conversation")))
        return std::nullopt;
    if (!q.next())
        return std::nullopt;
    return readConversation(q);
}

QList<Conversation> ChatStore::conversations()
{
    return queryConversations(QStringLiteral("deleted_at IS NULL"), QStringLiteral("pinned DESC, updated_at DESC, id DESC"));
}

QList<Conversation> ChatStore::deletedConversations()
{
    return queryConversations(QStringLiteral("deleted_at IS NOT NULL"), QStringLiteral("deleted_at DESC, id DESC"));
}

bool ChatStore::updateConversationField(qint64 id, const char* column, const QVariant& value)
{
    if (!canWrite())
        return false;
    auto db = database();
    if (!db)
        return false;
    QSqlQuery q(*db);
    q.prepare(QStringLiteral("UPDATE conversations SET %1 = ?, updated_at = ? WHERE id = ?")
                  .arg(QString::fromLatin1(column)));
    q.addBindValue(value);
    q.addBindValue(now());
    q.addBindValue(id);
    if (!exec(q, tr("Updating a conversation")))
        return false;
    if (q.numRowsAffected() != 1) {
        reportError(tr("There is no conversation %1.").arg(id));
        return false;
    }
    Q_EMIT conversationsChanged();
    return true;
}

bool ChatStore::renameConversation(qint64 id, const QString& title)
{
    return updateConversationField(id, "title", notNull(title));
}

bool ChatStore::setPinned(qint64 id, bool pinned)
{
    return updateConversationField(id, "pinned", pinned ? 1 : 0);
}

bool ChatStore::setSystemPrompt(qint64 id, const QString& systemPrompt)
{
    return updateConversationField(id, "system_prompt", notNull(systemPrompt));
}

bool ChatStore::setModelPath(qint64 id, const QString& modelPath)
{
    return updateConversationField(id, "model_path", notNull(modelPath));
}

bool ChatStore::setSamplingSettings(qint64 id, const QJsonObject& sampling)
{
    return updateConversationField(
        id, "sampling_json", QString::fromUtf8(QJsonDocument(sampling).toJson(QJsonDocument::Compact)));
}

bool ChatStore::deleteConversation(qint64 id)
{
    if (!canWrite())
        return false;
    auto db = database();
    if (!db)
        return false;
    QSqlQuery q(*db);
    q.prepare(QStringLiteral("UPDATE conversations SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL"));
    q.addBindValue(now());
    q.addBindValue(id);
    if (!exec(q, tr("Deleting a conversation")))
        return false;
    if (q.numRowsAffected() != 1) {
        reportError(tr("There is no conversation %1 to delete.").arg(id));
        return false;
    }
    Q_EMIT conversationsChanged();
    return true;
}

bool ChatStore::restoreConversation(qint64 id)
{
    if (!canWrite())
        return false;
    auto db = database();
    if (!db)
        return false;
    QSqlQuery q(*db);
    q.prepare(QStringLiteral("UPDATE conversations SET deleted_at = NULL WHERE id = ? AND deleted_at IS NOT NULL"));
    q.addBindValue(id);
    if (!exec(q, tr("Restoring a conversation")))
        return false;
    if (q.numRowsAffected() != 1) {
        reportError(tr("Conversation %1 is not in the bin.").arg(id));
        return false;
    }
    Q_EMIT conversationsChanged();
    return true;
}

int ChatStore::purgeDeletedConversations(const QDateTime& deletedBefore)
{
    if (!canWrite())
        return -1;
    auto db = database();
    if (!db)
        return -1;
    QSqlQuery q(*db);
    // Messages go with their conversation (ON DELETE CASCADE), their index entries by trigger.
    q.prepare(QStringLiteral("DELETE FROM conversations WHERE deleted_at IS NOT NULL AND deleted_at < ?"));
    q.addBindValue(deletedBefore.toMSecsSinceEpoch());
    if (!exec(q, tr("Emptying the bin")))
        return -1;
    const int purged = q.numRowsAffected();
    if (purged > 0)
        Q_EMIT conversationsChanged();
    return purged;
}

// Messages ----------------------------------------------------------------------------------------

std::optional<qint64> ChatStore::conversationOf(QSqlDatabase& db, qint64 messageId)
{
    QSqlQuery q(db);
    q.prepare(QStringLiteral("SELECT conversation_id FROM messages WHERE id = ?"));
    q.addBindValue(messageId);
    if (!exec(q, tr("Reading a message")))
        return std::nullopt;
    if (!q.next()) {
        reportError(tr("There is no message %1.").arg(messageId));
        return std::nullopt;
    }
    return q.value(0).toLongLong();
}

bool ChatStore::touchConversation(QSqlDatabase& db, qint64 conversationId, qint64 activeLeafId)
{
    QSqlQuery q(db);
    q.prepare(QStringLiteral("UPDATE conversations SET active_leaf_id = ?, updated_at = ? WHERE id = ?"));
    q.addBindValue(nullableId(activeLeafId));
    q.addBindValue(now());
    q.addBindValue(conversationId);
    return exec(q, tr("Updating a conversation"));
}

std::optional<qint64> ChatStore::insertMessage(qint64 conversationId, qint64 parentId, const QString& role,
    const QString& content, MessageState state, const QString& model)
{
    if (!canWrite())
        return std::nullopt;
    auto db = database();
    if (!db)
        return std::nullopt;
    if (parentId > 0) {
        const auto owner = conversationOf(*db, parentId);
        if (!owner)
            return std::nullopt;
        if (*owner != conversationId) {
            reportError(tr("Message %1 belongs to another conversation.").arg(parentId));
            return std::nullopt;
        }
    }
    if (!db->transaction()) {
        reportSqlError(tr("Saving a message"), db->lastError());
        return std::nullopt;
    }
    QSqlQuery q(*db);
    q.prepare(QStringLiteral("INSERT INTO messages (conversation_id, parent_id, role, content, created_at, state,"
                             " gen_model) VALUES (?, ?, ?, ?, ?, ?, ?)"));
    q.addBindValue(conversationId);
    q.addBindValue(nullableId(parentId));
    q.addBindValue(notNull(role));
    q.addBindValue(notNull(content));
    q.addBindValue(now());
    q.addBindValue(messageStateName(state));
    q.addBindValue(notNull(model));
    if (!exec(q, tr("Saving a message"))) {
        db->rollback();
        return std::nullopt;
    }
    const qint64 id = q.lastInsertId().toLongLong();
    q.finish();
    if (!touchConversation(*db, conversationId, id)) {
        db->rollback();
        return std::nullopt;
    }
    if (!db->commit()) {
        reportSqlError(tr("Saving a message"), db->lastError());
        db->rollback();
        return std::nullopt;
    }
    return id;
}

std::optional<qint64> ChatStore::addMessage(
    qint64 conversationId, qint64 parentId, const QString& role, const QString& content)
{
    return insertMessage(conversationId, parentId, role, content, MessageState::Complete, {});
}

std::optional<StoredMessage> ChatStore::message(qint64 id)
{
    auto db = database();
    if (!db)
        return std::nullopt;
    QSqlQuery q(*db);
    q.prepare(QStringLiteral("SELECT %1 FROM messages m WHERE m.id = ?").arg(messageColumns()));
    q.addBindValue(id);
    if (!exec(q, tr("Reading a message")) || !q.next())
        return std::nullopt;
    StoredMessage m = readMessage(q);
    QMutexLocker lock(&m_mutex);
    // Text not yet written is still part of the message.
    if (const auto it = m_streams.constFind(id); it != m_streams.cend())
        m.content = it->text;
    return m;
}

QList<StoredMessage> ChatStore::activePath(qint64 conversationId)
{
    QList<StoredMessage> path;
    auto db = database();
    if (!db)
        return path;
    QSqlQuery q(*db);
    // The stored leaf, or the newest message if the leaf is missing (older schema, deleted).
    q.prepare(QStringLiteral("SELECT COALESCE((SELECT m.id FROM messages m JOIN conversations c"
                             " ON c.active_leaf_id = m.id WHERE c.id = ? AND m.conversation_id = ?),"
                             " (SELECT MAX(id) FROM messages WHERE conversation_id = ?))"));
    q.addBindValue(conversationId);
    q.addBindValue(conversationId);
    q.addBindValue(conversationId);
    if (!exec(q, tr("Reading a conversation")) || !q.next() || q.value(0).isNull())
        return path;
    const qint64 leaf = q.value(0).toLongLong();
    q.finish();
    // Walk up the parents; the depth bound keeps a damaged (cyclic) tree from looping.
    q.prepare(QStringLiteral("WITH RECURSIVE up(id, depth) AS (SELECT ?, 0 UNION ALL"
                             " SELECT m.parent_id, up.depth + 1 FROM messages m JOIN up ON m.id = up.id"
                             " WHERE m.parent_id IS NOT NULL AND up.depth < 100000)"
                             " SELECT %1 FROM messages m JOIN up ON m.id = up.id ORDER BY up.depth DESC")
                  .arg(messageColumns()));
    q.addBindValue(leaf);
    if (!exec(q, tr("Reading a conversation")))
        return path;
    while (q.next())
        path << readMessage(q);
    QMutexLocker lock(&m_mutex);
    for (StoredMessage& m : path) {
        if (const auto it = m_streams.constFind(m.id); it != m_streams.cend())
            m.content = it->text;
    }
    return path;
}

QList<StoredMessage> ChatStore::allMessages(qint64 conversationId)
{
    QList<StoredMessage> all;
    auto db = database();
    if (!db)
        return all;
    QSqlQuery q(*db);
    q.prepare(QStringLiteral("SELECT %1 FROM messages m WHERE m.conversation_id = ? ORDER BY m.id").arg(messageColumns()));
    q.addBindValue(conversationId);
    if (!exec(q, tr("Reading a conversation")))
        return all;
    while (q.next())
        all << readMessage(q);
    QMutexLocker lock(&m_mutex);
    for (StoredMessage& m : all) {
        if (const auto it = m_streams.constFind(m.id); it != m_streams.cend())
            m.content = it->text;
    }
    return all;
}

SiblingInfo ChatStore::siblings(qint64 messageId)
{
    SiblingInfo info;
    auto db = database();
    if (!db)
        return info;
    QSqlQuery q(*db);
    q.prepare(QStringLiteral("SELECT s.id FROM messages s JOIN messages m ON m.id = ?"
                             " WHERE s.conversation_id = m.conversation_id AND s.parent_id IS m.parent_id"
                             " ORDER BY s.id"));
    q.addBindValue(messageId);
    if (!exec(q, tr("Reading a conversation")))
        return info;
    while (q.next())
        info.ids << q.value(0).toLongLong();
    info.index = static_cast<int>(info.ids.indexOf(messageId));
    return info;
}

std::optional<qint64> ChatStore::newestLeafBelow(QSqlDatabase& db, qint64 messageId)
{
    QSqlQuery q(db);
    q.prepare(QStringLiteral("WITH RECURSIVE down(id, depth) AS (SELECT ?, 0 UNION ALL"
                             " SELECT (SELECT MAX(c.id) FROM messages c WHERE c.parent_id = down.id), down.depth + 1"
                             " FROM down WHERE down.id IS NOT NULL AND down.depth < 100000)"
                             " SELECT id FROM down WHERE id IS NOT NULL ORDER BY depth DESC LIMIT 1"));
    q.addBindValue(messageId);
    if (!exec(q, tr("Reading a conversation")) || !q.next())
        return std::nullopt;
    return q.value(0).toLongLong();
}

bool ChatStore::switchBranch(qint64 messageId)
{
    if (!canWrite())
        return false;
    auto db = database();
    if (!db)
        return false;
    const auto conversationId = conversationOf(*db, messageId);
    if (!conversationId)
        return false;
    const auto leaf = newestLeafBelow(*db, messageId);
    if (!leaf)
        return false;
    QSqlQuery q(*db);
    q.prepare(QStringLiteral("UPDATE conversations SET active_leaf_id = ? WHERE id = ?"));
    q.addBindValue(*leaf);
    q.addBindValue(*conversationId);
    return exec(q, tr("Switching branch"));
}

bool ChatStore::deleteMessage(qint64 messageId, bool keepReplies)
{
    if (!canWrite())
        return false;
    auto db = database();
    if (!db)
        return false;
    const auto msg = message(messageId);
    if (!msg) {
        reportError(tr("There is no message %1.").arg(messageId));
        return false;
    }
    if (!db->transaction()) {
        reportSqlError(tr("Deleting a message"), db->lastError());
        return false;
    }
    QSqlQuery q(*db);
    if (keepReplies) {
        q.prepare(QStringLiteral("UPDATE messages SET parent_id = ? WHERE parent_id = ?"));
        q.addBindValue(nullableId(msg->parentId));
        q.addBindValue(messageId);
        if (!exec(q, tr("Deleting a message"))) {
            db->rollback();
            return false;
        }
        q.finish();
    }
    q.prepare(QStringLiteral("DELETE FROM messages WHERE id = ?"));
    q.addBindValue(messageId);
    if (!exec(q, tr("Deleting a message"))) {
        db->rollback();
        return false;
    }
    q.finish();
    // If the active leaf went with the subtree, show the newest branch that is left under the
    // deleted message's parent (or the newest message when it was a first message).
    q.prepare(QStringLiteral("SELECT c.active_leaf_id IS NULL OR NOT EXISTS (SELECT 1 FROM messages m"
                             " WHERE m.id = c.active_leaf_id) FROM conversations c WHERE c.id = ?"));
    q.addBindValue(msg->conversationId);
    if (!exec(q, tr("Deleting a message")) || !q.next()) {
        db->rollback();
        return false;
    }
    const bool leafGone = q.value(0).toBool();
    q.finish();
    if (leafGone) {
        std::optional<qint64> leaf;
        if (msg->parentId > 0)
            leaf = newestLeafBelow(*db, msg->parentId);
        if (!leaf || *leaf == 0) {
            q.prepare(QStringLiteral("SELECT MAX(id) FROM messages WHERE conversation_id = ?"));
            q.addBindValue(msg->conversationId);
            if (exec(q, tr("Deleting a message")) && q.next())
                leaf = q.value(0).toLongLong();
            q.finish();
        }
        if (!touchConversation(*db, msg->conversationId, leaf.value_or(0))) {
            db->rollback();
            return false;
        }
    }
    if (!db->commit()) {
        reportSqlError(tr("Deleting a message"), db->lastError());
        db->rollback();
        return false;
    }
    // Streams below the deleted message have no row left to write to.
    QMutexLocker lock(&m_mutex);
    for (auto it = m_streams.begin(); it != m_streams.end();) {
        q.prepare(QStringLiteral("SELECT 1 FROM messages WHERE id = ?"));
        q.addBindValue(it.key());
        const bool exists = q.exec() && q.next();
        q.finish();
        it = exists ? std::next(it) : m_streams.erase(it);
    }
    return true;
}

// Streaming ---------------------------------------------------------------------------------------

std::optional<qint64> ChatStore::beginAssistantMessage(qint64 conversationId, qint64 parentId, const QString& model)
{
    const auto id = insertMessage(
        conversationId, parentId, QStringLiteral("assistant"), QString(), MessageState::Streaming, model);
    if (!id)
        return std::nullopt;
    PendingStream stream;
    stream.conversationId = conversationId;
    stream.stats.model = model;
    stream.sinceWrite.start();
    QMutexLocker lock(&m_mutex);
    m_streams.insert(*id, stream);
    return id;
}

bool ChatStore::resumeAssistantMessage(qint64 messageId)
{
    if (!canWrite())
        return false;
    const std::optional<StoredMessage> stored = message(messageId);
    if (!stored || stored->role != QLatin1String("assistant") || !endedEarly(stored->state))
        return false;
    {
        QMutexLocker lock(&m_mutex);
        if (m_streams.contains(messageId))
            return false;
    }
    auto db = database();
    if (!db)
        return false;
    // Marked streaming first, so that a crash while it continues leaves it "interrupted" with
    // its text, as any answer.
    QSqlQuery q(*db);
    q.prepare(QStringLiteral("UPDATE messages SET state = ? WHERE id = ?"));
    q.addBindValue(messageStateName(MessageState::Streaming));
    q.addBindValue(messageId);
    if (!exec(q, tr("Continuing an answer")))
        return false;
    PendingStream stream;
    stream.conversationId = stored->conversationId;
    stream.text = stored->content;
    stream.stats = stored->stats;
    stream.sinceWrite.start();
    QMutexLocker lock(&m_mutex);
    m_streams.insert(messageId, stream);
    return true;
}

bool ChatStore::appendToken(qint64 messageId, const QString& text)
{
    QMutexLocker lock(&m_mutex);
    const auto it = m_streams.find(messageId);
    if (it == m_streams.end() || it->finalState) {
        lock.unlock();
        reportError(tr("Message %1 is not being streamed.").arg(messageId));
        return false;
    }
    it->text += text;
    it->dirty = true;
    ++it->unflushedTokens;
    // The clock bounds what a crash loses in time, the count in tokens; the timer catches the
    // tail when tokens stop arriving.
    if (it->unflushedTokens >= FlushEveryTokens || it->sinceWrite.elapsed() >= FlushIntervalMs)
        (void)writeStream(messageId, *it);
    else
        scheduleFlush(FlushIntervalMs);
    return true;
}

void ChatStore::scheduleFlush(int delayMs)
{
    // The timer belongs to the store's thread; from another thread, ask that thread to start it.
    if (QThread::currentThread() == thread()) {
        if (!m_flushTimer.isActive())
            m_flushTimer.start(delayMs);
        return;
    }
    QMetaObject::invokeMethod(
        this,
        [this, delayMs] {
            if (!m_flushTimer.isActive())
                m_flushTimer.start(delayMs);
        },
        Qt::QueuedConnection);
}

bool ChatStore::writeStream(qint64 messageId, PendingStream& stream)
{
    if (!stream.dirty && !stream.finalState)
        return true;
    stream.sinceWrite.restart();
    if (m_readOnly) {
        // Reported once by open(); keep the text in memory for as long as the app runs.
        return false;
    }
    auto db = database();
    if (!db)
        return false;
    QSqlQuery q(*db);
    if (stream.finalState) {
        q.prepare(QStringLiteral("UPDATE messages SET content = ?, state = ?, error_text = ?, gen_tokens = ?,"
                                 " gen_tokens_per_second = ?, gen_ttft_ms = ?, gen_model = ? WHERE id = ?"));
        q.addBindValue(notNull(stream.text));
        q.addBindValue(messageStateName(*stream.finalState));
        q.addBindValue(notNull(stream.errorText));
        q.addBindValue(stream.stats.tokens);
        q.addBindValue(stream.stats.tokensPerSecond);
        q.addBindValue(stream.stats.timeToFirstTokenMs);
        q.addBindValue(notNull(stream.stats.model));
        q.addBindValue(messageId);
    } else {
        q.prepare(QStringLiteral("UPDATE messages SET content = ? WHERE id = ?"));
        q.addBindValue(notNull(stream.text));
        q.addBindValue(messageId);
    }
    if (!q.exec()) {
        const QString message = tr("Saving the answer: %1").arg(describe(q.lastError()));
        if (message != m_lastFlushError) {
            m_lastFlushError = message;
            reportError(message);
        }
        scheduleFlush(RetryIntervalMs);
        return false;
    }
    if (!m_lastFlushError.isEmpty()) {
        m_lastFlushError.clear();
        qCInfo(lcChatStore) << "saving answers works again";
    }
    stream.dirty = false;
    stream.unflushedTokens = 0;
    return true;
}

bool ChatStore::flush()
{
    QMutexLocker lock(&m_mutex);
    bool ok = true;
    QList<qint64> done;
    for (auto it = m_streams.begin(); it != m_streams.end(); ++it) {
        if (!writeStream(it.key(), *it))
            ok = false;
        else if (it->finalState)
            done << it.key();
    }
    for (qint64 id : std::as_const(done))
        m_streams.remove(id);
    return ok;
}

bool ChatStore::hasPendingWrites() const
{
    QMutexLocker lock(&m_mutex);
    for (const PendingStream& stream : m_streams) {
        if (stream.dirty || stream.finalState)
            return true;
    }
    return false;
}

bool ChatStore::finishStream(qint64 messageId, MessageState state, const StoredAnswerStats& stats, const QString& error)
{
    QMutexLocker lock(&m_mutex);
    auto it = m_streams.find(messageId);
    if (it == m_streams.end()) {
        // Not streamed by this store (for example found interrupted after a restart): only the
        // state and statistics change, the stored text stays.
        const auto stored = message(messageId);
        if (!stored) {
            lock.unlock();
            reportError(tr("There is no message %1.").arg(messageId));
            return false;
        }
        PendingStream stream;
        stream.conversationId = stored->conversationId;
        stream.text = stored->content;
        it = m_streams.insert(messageId, stream);
    }
    it->finalState = state;
    if (!stats.model.isEmpty() || stats.tokens > 0)
        it->stats = stats;
    else if (it->stats.model.isEmpty())
        it->stats.model = stats.model;
    it->errorText = error;
    if (!writeStream(messageId, *it))
        return false; // stays pending: the next flush retries the final write
    const qint64 conversationId = it->conversationId;
    m_streams.erase(it);
    auto db = database();
    if (db) {
        QSqlQuery q(*db);
        q.prepare(QStringLiteral("UPDATE conversations SET updated_at = ? WHERE id = ?"));
        q.addBindValue(now());
        q.addBindValue(conversationId);
        (void)exec(q, tr("Updating a conversation"));
    }
    return true;
}

bool ChatStore::finishMessage(qint64 messageId, const StoredAnswerStats& stats, MessageState end)
{
    if (!endedEarly(end))
        end = MessageState::Complete;
    return finishStream(messageId, end, stats, {});
}

bool ChatStore::markError(qint64 messageId, const QString& error)
{
    return finishStream(messageId, MessageState::Error, {}, error);
}

// Search and export -------------------------------------------------------------------------------

QList<SearchHit> ChatStore::search(const QString& text, int limit)
{
    QList<SearchHit> hits;
    const QString match = ftsQuery(text);
    if (match.isEmpty() || limit <= 0)
        return hits;
    auto db = database();
    if (!db)
        return hits;
    QHash<qint64, qsizetype> byConversation;

    QSqlQuery q(*db);
    q.setForwardOnly(true);
    // Title matches first: a conversation named after the words is the likeliest target.
    q.prepare(QStringLiteral("SELECT c.id, c.title, snippet(conversation_fts, 0, char(2), char(3), '…', 12)"
                             " FROM conversation_fts JOIN conversations c ON c.id = conversation_fts.rowid"
                             " WHERE conversation_fts MATCH ? AND c.deleted_at IS NULL ORDER BY rank LIMIT ?"));
    q.addBindValue(match);
    q.addBindValue(limit);
    if (!exec(q, tr("Searching")))
        return hits;
    while (q.next()) {
        SearchHit hit;
        hit.conversationId = q.value(0).toLongLong();
        hit.title = q.value(1).toString();
        fillSnippet(hit, q.value(2).toString());
        byConversation.insert(hit.conversationId, hits.size());
        hits << hit;
    }
    q.finish();

    q.prepare(QStringLiteral("SELECT m.conversation_id, m.id, c.title,"
                             " snippet(message_fts, 0, char(2), char(3), '…', 16)"
                             " FROM message_fts JOIN messages m ON m.id = message_fts.rowid"
                             " JOIN conversations c ON c.id = m.conversation_id"
                             " WHERE message_fts MATCH ? AND c.deleted_at IS NULL ORDER BY rank"));
    q.addBindValue(match);
    if (!exec(q, tr("Searching")))
        return hits;
    while (q.next()) {
        const qint64 conversationId = q.value(0).toLongLong();
        const auto seen = byConversation.constFind(conversationId);
        if (seen != byConversation.cend()) {
            // A title hit still shows where the words occur in the text.
            SearchHit& hit = hits[*seen];
            if (hit.messageId == 0) {
                hit.messageId = q.value(1).toLongLong();
                fillSnippet(hit, q.value(3).toString());
            }
            continue;
        }
        if (hits.size() >= limit)
            break;
        SearchHit hit;
        hit.conversationId = conversationId;
        hit.messageId = q.value(1).toLongLong();
        hit.title = q.value(2).toString();
        fillSnippet(hit, q.value(3).toString());
        byConversation.insert(conversationId, hits.size());
        hits << hit;
    }
    return hits;
}

std::optional<QString> ChatStore::exportMarkdown(qint64 conversationId)
{
    const auto conv = conversation(conversationId);
    if (!conv) {
        reportError(tr("There is no conversation %1 to export.").arg(conversationId));
        return std::nullopt;
    }
    return ChatExport::toMarkdown(*conv, activePath(conversationId));
}

std::optional<QByteArray> ChatStore::exportJson(qint64 conversationId, bool allBranches)
{
    const auto conv = conversation(conversationId);
    if (!conv) {
        reportError(tr("There is no conversation %1 to export.").arg(conversationId));
        return std::nullopt;
    }
    const QList<StoredMessage> path = activePath(conversationId);
    return ChatExport::toJson(*conv, path, allBranches ? allMessages(conversationId) : path);
}

} // namespace hearth
