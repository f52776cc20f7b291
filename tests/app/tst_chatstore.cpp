// SPDX-License-Identifier: MIT
// ChatStore: migrations, the message tree, streaming, search, export, and the failures users hit
// in practice (killed app, read-only, full disk, corrupt file, locked database).

#include "chatexport.h"
#include "chatschema.h"
#include "chatstore.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#ifdef Q_OS_UNIX
#include <unistd.h>
#endif

using namespace hearth;

namespace {

// Schema SQL exactly as released versions 1 and 2 wrote it; kept here rather than taken from
// ChatSchema so an edit to a released step cannot go unnoticed.
const char* const kSchemaV1[] = {
    "CREATE TABLE conversations (id INTEGER PRIMARY KEY, title TEXT NOT NULL DEFAULT '',"
    " created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, system_prompt TEXT NOT NULL DEFAULT '',"
    " model_path TEXT NOT NULL DEFAULT '', sampling_json TEXT NOT NULL DEFAULT '{}',"
    " pinned INTEGER NOT NULL DEFAULT 0)",
    "CREATE TABLE messages (id INTEGER PRIMARY KEY,"
    " conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,"
    " role TEXT NOT NULL, content TEXT NOT NULL DEFAULT '', created_at INTEGER NOT NULL,"
    " state TEXT NOT NULL DEFAULT 'complete')",
    "CREATE INDEX messages_conversation ON messages(conversation_id, id)",
    "PRAGMA user_version = 1",
};

const char* const kSchemaV2[] = {
    "ALTER TABLE messages ADD COLUMN parent_id INTEGER REFERENCES messages(id) ON DELETE CASCADE",
    "ALTER TABLE messages ADD COLUMN error_text TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE messages ADD COLUMN gen_tokens INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE messages ADD COLUMN gen_tokens_per_second REAL NOT NULL DEFAULT 0",
    "ALTER TABLE messages ADD COLUMN gen_ttft_ms REAL NOT NULL DEFAULT 0",
    "ALTER TABLE messages ADD COLUMN gen_model TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE conversations ADD COLUMN active_leaf_id INTEGER",
    "ALTER TABLE conversations ADD COLUMN deleted_at INTEGER",
    "CREATE INDEX messages_parent ON messages(parent_id)",
    "PRAGMA user_version = 2",
};

// A plain connection of the test's own, standing in for an older Hearth or another program.
class RawDb
{
public:
    explicit RawDb(const QString& path, const QString& name = QStringLiteral("raw"))
        : m_name(name)
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), m_name);
        db.setDatabaseName(path);
        db.setConnectOptions(QStringLiteral("QSQLITE_BUSY_TIMEOUT=2000"));
        m_ok = db.open();
    }
    ~RawDb()
    {
        {
            QSqlDatabase db = QSqlDatabase::database(m_name, false);
            db.close();
        }
        QSqlDatabase::removeDatabase(m_name);
    }
    [[nodiscard]] bool ok() const { return m_ok; }
    bool exec(const QString& sql)
    {
        QSqlQuery q(QSqlDatabase::database(m_name, false));
        if (!q.exec(sql)) {
            qWarning() << sql << q.lastError().text();
            return false;
        }
        return true;
    }
    QVariant scalar(const QString& sql)
    {
        QSqlQuery q(QSqlDatabase::database(m_name, false));
        if (!q.exec(sql) || !q.next())
            return {};
        return q.value(0);
    }

private:
    QString m_name;
    bool m_ok = false;
};

QString tokenText(int n)
{
    return QStringLiteral("t%1 ").arg(n);
}

QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

class TestChatStore : public QObject
{
    Q_OBJECT

private:
    QString dbPath() const { return m_dir->filePath(QStringLiteral("chats.db")); }
    std::unique_ptr<QTemporaryDir> m_dir;

    // Makes @p path unwritable even for root (immutable attribute) and tells whether it worked.
    static bool makeReadOnly(const QString& path, bool directory)
    {
        QFile::setPermissions(path,
            directory ? (QFile::ReadOwner | QFile::ExeOwner | QFile::ReadGroup | QFile::ExeGroup)
                      : (QFile::ReadOwner | QFile::ReadGroup));
#ifdef Q_OS_UNIX
        if (::access(QFile::encodeName(path).constData(), W_OK) == 0)
            QProcess::execute(QStringLiteral("chattr"), {QStringLiteral("+i"), path});
        if (directory) {
            QFile probe(path + QStringLiteral("/probe"));
            if (probe.open(QIODevice::WriteOnly)) {
                probe.close();
                probe.remove();
                return false;
            }
            return true;
        }
        QFile probe(path);
        return !probe.open(QIODevice::ReadWrite | QIODevice::Append);
#else
        return true;
#endif
    }
    static void makeWritable(const QString& path)
    {
#ifdef Q_OS_UNIX
        QProcess::execute(QStringLiteral("chattr"), {QStringLiteral("-i"), path});
#endif
        QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner | QFile::ReadGroup);
    }

private Q_SLOTS:
    void init()
    {
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
    }
    void cleanup() { m_dir.reset(); }

    void createsLatestSchema()
    {
        ChatStore store;
        QVERIFY2(store.open(dbPath()), qPrintable(store.lastError()));
        QCOMPARE(store.schemaVersion(), ChatSchema::latestVersion());
        QVERIFY(!store.isReadOnly());
        store.close();
        RawDb raw(dbPath());
        QCOMPARE(raw.scalar(QStringLiteral("PRAGMA user_version")).toInt(), ChatSchema::latestVersion());
        QCOMPARE(raw.scalar(QStringLiteral("PRAGMA journal_mode")).toString(), QStringLiteral("wal"));
    }

    void migratesFromVersion1()
    {
        {
            RawDb raw(dbPath());
            QVERIFY(raw.ok());
            for (const char* sql : kSchemaV1)
                QVERIFY(raw.exec(QString::fromLatin1(sql)));
            QVERIFY(raw.exec(QStringLiteral("INSERT INTO conversations VALUES (1, 'Bread baking', 1000, 2000,"
                                            " 'You are a baker', '/m/a.gguf', '{\"temperature\":0.7}', 1)")));
            QVERIFY(raw.exec(QStringLiteral("INSERT INTO conversations VALUES (2, 'Other', 1000, 1500, '', '', '{}', 0)")));
            QVERIFY(raw.exec(QStringLiteral("INSERT INTO messages VALUES (1, 1, 'user', 'How long to proof sourdough?', 1000, 'complete')")));
            QVERIFY(raw.exec(QStringLiteral("INSERT INTO messages VALUES (2, 2, 'user', 'hello', 1001, 'complete')")));
            QVERIFY(raw.exec(QStringLiteral("INSERT INTO messages VALUES (3, 1, 'assistant', 'About twelve hours', 1002, 'complete')")));
            QVERIFY(raw.exec(QStringLiteral("INSERT INTO messages VALUES (4, 1, 'user', 'Thanks', 1003, 'complete')")));
        }
        ChatStore store;
        QVERIFY2(store.open(dbPath()), qPrintable(store.lastError()));
        QCOMPARE(store.schemaVersion(), ChatSchema::latestVersion());
        QVERIFY(QFile::exists(dbPath() + QStringLiteral(".v1.bak")));

        const auto conv = store.conversation(1);
        QVERIFY(conv);
        QCOMPARE(conv->title, QStringLiteral("Bread baking"));
        QCOMPARE(conv->systemPrompt, QStringLiteral("You are a baker"));
        QCOMPARE(conv->modelPath, QStringLiteral("/m/a.gguf"));
        QCOMPARE(conv->sampling.value(QStringLiteral("temperature")).toDouble(), 0.7);
        QVERIFY(conv->pinned);
        QCOMPARE(conv->activeLeafId, 4);

        // The flat list became a chain, in the old order.
        const QList<StoredMessage> path = store.activePath(1);
        QCOMPARE(path.size(), 3);
        QCOMPARE(path[0].id, 1);
        QCOMPARE(path[0].parentId, 0);
        QCOMPARE(path[1].parentId, 1);
        QCOMPARE(path[1].content, QStringLiteral("About twelve hours"));
        QCOMPARE(path[2].parentId, 3);
        QCOMPARE(store.activePath(2).size(), 1);

        // Old text is searchable after the upgrade.
        const QList<SearchHit> hits = store.search(QStringLiteral("sourdough"));
        QCOMPARE(hits.size(), 1);
        QCOMPARE(hits[0].conversationId, 1);
    }

    void migratesFromVersion2()
    {
        {
            RawDb raw(dbPath());
            for (const char* sql : kSchemaV1)
                QVERIFY(raw.exec(QString::fromLatin1(sql)));
            for (const char* sql : kSchemaV2)
                QVERIFY(raw.exec(QString::fromLatin1(sql)));
            QVERIFY(raw.exec(QStringLiteral("INSERT INTO conversations (id, title, created_at, updated_at, active_leaf_id)"
                                            " VALUES (1, 'Branches', 1, 2, 2)")));
            QVERIFY(raw.exec(QStringLiteral("INSERT INTO conversations (id, title, created_at, updated_at, deleted_at)"
                                            " VALUES (2, 'Binned', 1, 2, 5)")));
            QVERIFY(raw.exec(QStringLiteral("INSERT INTO messages (id, conversation_id, parent_id, role, content, created_at)"
                                            " VALUES (1, 1, NULL, 'user', 'Name a colour', 1)")));
            QVERIFY(raw.exec(QStringLiteral("INSERT INTO messages (id, conversation_id, parent_id, role, content, created_at,"
                                            " gen_tokens, gen_tokens_per_second, gen_ttft_ms, gen_model)"
                                            " VALUES (2, 1, 1, 'assistant', 'Vermilion', 2, 3, 41.5, 120, 'tiny')")));
            QVERIFY(raw.exec(QStringLiteral("INSERT INTO messages (id, conversation_id, parent_id, role, content, created_at)"
                                            " VALUES (3, 1, 1, 'assistant', 'Turquoise', 3)")));
            // Left streaming by a crash of the old version.
            QVERIFY(raw.exec(QStringLiteral("INSERT INTO messages (id, conversation_id, parent_id, role, content, created_at, state)"
                                            " VALUES (4, 2, NULL, 'assistant', 'half an ans', 4, 'streaming')")));
        }
        ChatStore store;
        QVERIFY2(store.open(dbPath()), qPrintable(store.lastError()));
        QCOMPARE(store.schemaVersion(), ChatSchema::latestVersion());
        QCOMPARE(store.recoveredMessageCount(), 1);

        const QList<StoredMessage> path = store.activePath(1);
        QCOMPARE(path.size(), 2);
        QCOMPARE(path[1].content, QStringLiteral("Vermilion"));
        QCOMPARE(path[1].stats.tokens, 3);
        QCOMPARE(path[1].stats.tokensPerSecond, 41.5);
        QCOMPARE(path[1].stats.timeToFirstTokenMs, 120.0);
        QCOMPARE(path[1].stats.model, QStringLiteral("tiny"));
        const SiblingInfo sib = store.siblings(2);
        QCOMPARE(sib.count(), 2);
        QCOMPARE(sib.index, 0);

        QCOMPARE(store.conversations().size(), 1);
        QCOMPARE(store.deletedConversations().size(), 1);
        const auto recovered = store.message(4);
        QVERIFY(recovered);
        QCOMPARE(recovered->state, MessageState::Interrupted);
        QCOMPARE(recovered->content, QStringLiteral("half an ans"));
        QCOMPARE(store.search(QStringLiteral("turquoise")).size(), 1);
    }

    void rejectsNewerSchema()
    {
        {
            RawDb raw(dbPath());
            QVERIFY(raw.exec(QStringLiteral("CREATE TABLE future (x TEXT)")));
            QVERIFY(raw.exec(QStringLiteral("INSERT INTO future VALUES ('precious')")));
            QVERIFY(raw.exec(QStringLiteral("PRAGMA user_version = 99")));
        }
        const QByteArray before = readAll(dbPath());
        ChatStore store;
        QSignalSpy errors(&store, &ChatStore::errorOccurred);
        QVERIFY(!store.open(dbPath()));
        QVERIFY(!store.isOpen());
        QVERIFY(store.lastError().contains(QStringLiteral("newer")));
        QVERIFY(store.lastError().contains(QStringLiteral("99")));
        QCOMPARE(errors.size(), 1);
        QCOMPARE(readAll(dbPath()), before);
        QVERIFY(!store.createConversation(QStringLiteral("x")));
    }

    void treeBranchesRegenerateAndEdit()
    {
        ChatStore store;
        QVERIFY(store.open(dbPath()));
        const qint64 conv = *store.createConversation(QStringLiteral("Tree"));
        const qint64 q1 = *store.addMessage(conv, 0, QStringLiteral("user"), QStringLiteral("Q1"));
        const qint64 a1 = *store.addMessage(conv, q1, QStringLiteral("assistant"), QStringLiteral("A1"));
        const qint64 q2 = *store.addMessage(conv, a1, QStringLiteral("user"), QStringLiteral("Q2"));
        const qint64 a2 = *store.addMessage(conv, q2, QStringLiteral("assistant"), QStringLiteral("A2"));

        // Regenerate the last answer twice: three siblings, the newest shown.
        const qint64 a2b = *store.beginAssistantMessage(conv, q2);
        QVERIFY(store.appendToken(a2b, QStringLiteral("A2b")));
        QVERIFY(store.finishMessage(a2b, {}));
        const qint64 a2c = *store.beginAssistantMessage(conv, q2);
        QVERIFY(store.appendToken(a2c, QStringLiteral("A2c")));
        QVERIFY(store.finishMessage(a2c, {}));
        SiblingInfo sib = store.siblings(a2c);
        QCOMPARE(sib.ids, (QList<qint64> {a2, a2b, a2c}));
        QCOMPARE(sib.index, 2);
        QCOMPARE(store.activePath(conv).last().content, QStringLiteral("A2c"));

        // "< 2/3 >"
        QVERIFY(store.switchBranch(a2b));
        QCOMPARE(store.activePath(conv).last().id, a2b);
        QCOMPARE(store.siblings(a2b).index, 1);

        // Edit the first question and resend: a new branch from the root; the old one stays.
        const qint64 q1e = *store.addMessage(conv, 0, QStringLiteral("user"), QStringLiteral("Q1 edited"));
        const qint64 a1e = *store.addMessage(conv, q1e, QStringLiteral("assistant"), QStringLiteral("A1 edited"));
        QList<StoredMessage> path = store.activePath(conv);
        QCOMPARE(path.size(), 2);
        QCOMPARE(path[0].id, q1e);
        QCOMPARE(path[1].id, a1e);
        QCOMPARE(store.siblings(q1e).count(), 2);

        // Back to the original question: its newest leaf (the last regenerated answer) shows.
        QVERIFY(store.switchBranch(q1));
        path = store.activePath(conv);
        QCOMPARE(path.size(), 4);
        QCOMPARE(path.last().id, a2c);
        QCOMPARE(store.allMessages(conv).size(), 8);

        // Deleting the shown answer falls back to a sibling branch.
        QVERIFY(store.deleteMessage(a2c));
        QCOMPARE(store.activePath(conv).last().id, a2b);
        QCOMPARE(store.siblings(a2b).count(), 2);

        // A parent from another conversation is refused.
        const qint64 other = *store.createConversation(QStringLiteral("Other"));
        QSignalSpy errors(&store, &ChatStore::errorOccurred);
        QVERIFY(!store.addMessage(other, q1, QStringLiteral("user"), QStringLiteral("x")));
        QCOMPARE(errors.size(), 1);
        QVERIFY(!store.switchBranch(123456));
    }

    void deleteOneMessageKeepsTheRest()
    {
        // q1 a1 q2 a2 q3: deleting a1 alone leaves q1 q2 a2 q3 on screen, and deleting the first
        // message makes q2's turn the start of the chat; nothing else is lost.
        ChatStore store;
        QVERIFY(store.open(dbPath()));
        const qint64 conv = *store.createConversation(QStringLiteral("Long"));
        QList<qint64> ids;
        qint64 parent = 0;
        for (const char* role : {"user", "assistant", "user", "assistant", "user"}) {
            parent = *store.addMessage(conv, parent, QString::fromLatin1(role), QStringLiteral("m%1").arg(ids.size()));
            ids.append(parent);
        }
        QVERIFY(store.deleteMessage(ids[1], true));
        QList<hearth::StoredMessage> path = store.activePath(conv);
        QCOMPARE(path.size(), 4);
        QCOMPARE(path[0].id, ids[0]);
        QCOMPARE(path[1].id, ids[2]);
        QCOMPARE(path[1].parentId, ids[0]);
        QCOMPARE(path.last().id, ids[4]);
        QVERIFY(store.deleteMessage(ids[0], true));
        path = store.activePath(conv);
        QCOMPARE(path.size(), 3);
        QCOMPARE(path[0].id, ids[2]);
        QCOMPARE(path[0].parentId, 0);
        // The last message: the chat ends one earlier.
        QVERIFY(store.deleteMessage(ids[4], true));
        path = store.activePath(conv);
        QCOMPARE(path.size(), 2);
        QCOMPARE(path.last().id, ids[3]);
        QCOMPARE(store.allMessages(conv).size(), 2);
        // Reopened, the same.
        store.close();
        QVERIFY(store.open(dbPath()));
        QCOMPARE(store.activePath(conv).size(), 2);
    }

    void search()
    {
        ChatStore store;
        QVERIFY(store.open(dbPath()));
        const qint64 a = *store.createConversation(QStringLiteral("Garden planning"));
        QVERIFY(store.addMessage(a, 0, QStringLiteral("user"), QStringLiteral("When should I plant tomatoes outdoors?")));
        const qint64 b = *store.createConversation(QStringLiteral("Code"));
        const qint64 bq = *store.addMessage(b, 0, QStringLiteral("user"), QStringLiteral("Escape <script> tags in tomatoes.html"));
        const qint64 c = *store.createConversation(QStringLiteral("Cooking"));
        QVERIFY(store.addMessage(c, 0, QStringLiteral("user"), QStringLiteral("A soup with potatoes")));

        QList<SearchHit> hits = store.search(QStringLiteral("tomatoes"));
        QCOMPARE(hits.size(), 2);
        // Prefix match on the last word, diacritics folded.
        QCOMPARE(store.search(QStringLiteral("potat")).size(), 1);
        QCOMPARE(store.search(QStringLiteral("pötatoes")).size(), 1);
        // Every word must match.
        hits = store.search(QStringLiteral("tomatoes script"));
        QCOMPARE(hits.size(), 1);
        QCOMPARE(hits[0].conversationId, b);
        QCOMPARE(hits[0].messageId, bq);
        QVERIFY(hits[0].snippet.contains(QStringLiteral("<script>")));
        QVERIFY(hits[0].snippetHtml.contains(QStringLiteral("&lt;<b>script</b>&gt;")));
        // Titles match too.
        hits = store.search(QStringLiteral("garden"));
        QCOMPARE(hits.size(), 1);
        QCOMPARE(hits[0].title, QStringLiteral("Garden planning"));

        // FTS syntax typed by a user is just text.
        QSignalSpy errors(&store, &ChatStore::errorOccurred);
        for (const QString& odd : {QStringLiteral("\"unbalanced"), QStringLiteral("AND OR NOT ("),
                 QStringLiteral("*"), QStringLiteral("col:umn^ -x"), QStringLiteral("   ")})
            (void)store.search(odd);
        QCOMPARE(errors.size(), 0);

        // Binned conversations are not found; renamed titles are.
        QVERIFY(store.deleteConversation(a));
        QCOMPARE(store.search(QStringLiteral("tomatoes")).size(), 1);
        QVERIFY(store.renameConversation(c, QStringLiteral("Winter soups")));
        QCOMPARE(store.search(QStringLiteral("winter")).size(), 1);
        QCOMPARE(store.search(QStringLiteral("cooking")).size(), 0);

        // A streaming answer becomes searchable once finished.
        const qint64 ans = *store.beginAssistantMessage(c, 0);
        store.appendToken(ans, QStringLiteral("Leek and parsnip"));
        QVERIFY(store.finishMessage(ans, {}));
        QCOMPARE(store.search(QStringLiteral("parsnip")).size(), 1);
        store.close();
        RawDb raw(dbPath());
        QVERIFY(raw.exec(QStringLiteral("INSERT INTO message_fts(message_fts) VALUES ('integrity-check')")));
    }

    void renameDeleteUndoPurge()
    {
        ChatStore store;
        QVERIFY(store.open(dbPath()));
        QSignalSpy changed(&store, &ChatStore::conversationsChanged);
        const qint64 a = *store.createConversation(QStringLiteral("First"));
        const qint64 b = *store.createConversation(QStringLiteral("Second"));
        QVERIFY(store.addMessage(a, 0, QStringLiteral("user"), QStringLiteral("keep me")));
        QVERIFY(store.renameConversation(a, QStringLiteral("Renamed")));
        QCOMPARE(store.conversation(a)->title, QStringLiteral("Renamed"));
        QVERIFY(store.setPinned(b, true));
        QCOMPARE(store.conversations().first().id, b);

        QVERIFY(store.deleteConversation(a));
        QCOMPARE(store.conversations().size(), 1);
        QCOMPARE(store.deletedConversations().size(), 1);
        QVERIFY(store.conversation(a)->deleted.has_value());
        QVERIFY(store.restoreConversation(a));
        QCOMPARE(store.conversations().size(), 2);
        QCOMPARE(store.activePath(a).first().content, QStringLiteral("keep me"));
        QVERIFY(!store.restoreConversation(a));

        QVERIFY(store.deleteConversation(a));
        // Not yet old enough to purge.
        QCOMPARE(store.purgeDeletedConversations(QDateTime::currentDateTimeUtc().addDays(-30)), 0);
        QVERIFY(store.conversation(a));
        QCOMPARE(store.purgeDeletedConversations(QDateTime::currentDateTimeUtc().addSecs(1)), 1);
        QVERIFY(!store.conversation(a));
        QVERIFY(store.activePath(a).isEmpty());
        QVERIFY(changed.size() >= 7);
        QVERIFY(!store.renameConversation(a, QStringLiteral("gone")));
    }

    void exportFormats()
    {
        ChatStore store;
        QVERIFY(store.open(dbPath()));
        const qint64 conv = *store.createConversation(QStringLiteral("Export me"), QStringLiteral("Be brief."),
            QStringLiteral("/models/tiny.gguf"), QJsonObject {{QStringLiteral("temperature"), 0.5}});
        const qint64 q = *store.addMessage(conv, 0, QStringLiteral("user"), QStringLiteral("Say hi"));
        const qint64 old = *store.addMessage(conv, q, QStringLiteral("assistant"), QStringLiteral("Old answer"));
        const qint64 a = *store.beginAssistantMessage(conv, q, QStringLiteral("tiny"));
        store.appendToken(a, QStringLiteral("Hi!"));
        QVERIFY(store.finishMessage(a, {5, 33.3, 80, QStringLiteral("tiny")}));

        const auto md = store.exportMarkdown(conv);
        QVERIFY(md);
        QVERIFY(md->startsWith(QStringLiteral("# Export me\n")));
        QVERIFY(md->contains(QStringLiteral("Be brief.")));
        QVERIFY(md->contains(QStringLiteral("## User\n\nSay hi")));
        QVERIFY(md->contains(QStringLiteral("## Assistant\n\nHi!")));
        QVERIFY(md->contains(QStringLiteral("33.3 tokens/s")));
        QVERIFY(!md->contains(QStringLiteral("Old answer"))); // active branch only

        const auto json = store.exportJson(conv, true);
        QVERIFY(json);
        QJsonParseError error;
        const QJsonObject root = QJsonDocument::fromJson(*json, &error).object();
        QCOMPARE(error.error, QJsonParseError::NoError);
        QCOMPARE(root.value(QStringLiteral("format")).toString(), QStringLiteral("hearth-chat"));
        QCOMPARE(root.value(QStringLiteral("title")).toString(), QStringLiteral("Export me"));
        QCOMPARE(root.value(QStringLiteral("sampling")).toObject().value(QStringLiteral("temperature")).toDouble(), 0.5);
        const QJsonArray path = root.value(QStringLiteral("activePath")).toArray();
        QCOMPARE(path.size(), 2);
        QCOMPARE(path[1].toInteger(), a);
        const QJsonArray messages = root.value(QStringLiteral("messages")).toArray();
        QCOMPARE(messages.size(), 3);
        QCOMPARE(messages[1].toObject().value(QStringLiteral("id")).toInteger(), old);
        QCOMPARE(messages[2].toObject().value(QStringLiteral("parentId")).toInteger(), q);
        QCOMPARE(messages[2].toObject().value(QStringLiteral("stats")).toObject().value(QStringLiteral("tokens")).toInt(), 5);

        const QJsonObject activeOnly = QJsonDocument::fromJson(*store.exportJson(conv, false)).object();
        QCOMPARE(activeOnly.value(QStringLiteral("messages")).toArray().size(), 2);
        QVERIFY(!store.exportMarkdown(9999));
    }

    void streamingFlushesInBatches()
    {
        ChatStore store;
        QVERIFY(store.open(dbPath()));
        const qint64 conv = *store.createConversation(QStringLiteral("Stream"));
        const qint64 q = *store.addMessage(conv, 0, QStringLiteral("user"), QStringLiteral("Go"));
        const qint64 a = *store.beginAssistantMessage(conv, q, QStringLiteral("tiny"));
        RawDb raw(dbPath());
        const QString contentSql = QStringLiteral("SELECT content FROM messages WHERE id = %1").arg(a);
        const QString stateSql = QStringLiteral("SELECT state FROM messages WHERE id = %1").arg(a);
        // The row exists from the start.
        QCOMPARE(raw.scalar(stateSql).toString(), QStringLiteral("streaming"));

        QString expected;
        for (int i = 0; i < ChatStore::FlushEveryTokens + 3; ++i) {
            QVERIFY(store.appendToken(a, tokenText(i)));
            expected += tokenText(i);
        }
        // The token count forced a write, whatever the clock.
        QVERIFY(raw.scalar(contentSql).toString().length()
            >= expected.left(expected.indexOf(tokenText(ChatStore::FlushEveryTokens - 1))).length());
        // Readers through the store see everything at once...
        QCOMPARE(store.message(a)->content, expected);
        QCOMPARE(store.activePath(conv).last().content, expected);
        // ...and the timer writes the tail soon after tokens stop.
        QTRY_COMPARE_WITH_TIMEOUT(raw.scalar(contentSql).toString(), expected, 5000);
        QVERIFY(!store.hasPendingWrites());

        QVERIFY(store.finishMessage(a, {35, 50.0, 90.0, QStringLiteral("tiny")}));
        const auto done = store.message(a);
        QCOMPARE(done->state, MessageState::Complete);
        QCOMPARE(done->content, expected);
        QCOMPARE(done->stats.tokens, 35);
        QCOMPARE(done->stats.tokensPerSecond, 50.0);
        QVERIFY(!store.appendToken(a, QStringLiteral("late")));

        // markError keeps the partial text.
        const qint64 e = *store.beginAssistantMessage(conv, q);
        store.appendToken(e, QStringLiteral("partial"));
        QVERIFY(store.markError(e, QStringLiteral("out of memory")));
        QCOMPARE(store.message(e)->state, MessageState::Error);
        QCOMPARE(store.message(e)->content, QStringLiteral("partial"));
        QCOMPARE(store.message(e)->errorText, QStringLiteral("out of memory"));

        // Closing with an answer still open keeps its text, marked interrupted.
        const qint64 open = *store.beginAssistantMessage(conv, q);
        store.appendToken(open, QStringLiteral("cut"));
        store.close();
        QCOMPARE(raw.scalar(QStringLiteral("SELECT state || ':' || content FROM messages WHERE id = %1").arg(open)).toString(),
            QStringLiteral("interrupted:cut"));
    }

    // A stop by the user and a crash leave different marks: "stopped" is an answer the user cut
    // short, "interrupted" one the process never finished. Both stay searchable and exported.
    void stoppedIsNotInterrupted()
    {
        qint64 stopped = 0;
        {
            ChatStore store;
            QVERIFY(store.open(dbPath()));
            const qint64 conv = *store.createConversation(QStringLiteral("Stops"));
            const qint64 q = *store.addMessage(conv, 0, QStringLiteral("user"), QStringLiteral("Go on"));
            stopped = *store.beginAssistantMessage(conv, q, QStringLiteral("tiny"));
            QVERIFY(store.appendToken(stopped, QStringLiteral("Once upon")));
            QVERIFY(store.finishMessage(stopped, {}, MessageState::Stopped));
            QCOMPARE(store.message(stopped)->state, MessageState::Stopped);
        }
        ChatStore reopened;
        QVERIFY(reopened.open(dbPath()));
        QCOMPARE(reopened.message(stopped)->state, MessageState::Stopped); // not "recovered"
        QCOMPARE(reopened.message(stopped)->content, QStringLiteral("Once upon"));
        QCOMPARE(reopened.search(QStringLiteral("upon")).size(), 1);
        QCOMPARE(messageStateName(MessageState::Stopped), QStringLiteral("stopped"));
        QCOMPARE(messageStateFromName(QStringLiteral("stopped")), MessageState::Stopped);
    }

    void connectionPerThread()
    {
        ChatStore store;
        QVERIFY(store.open(dbPath()));
        const qint64 conv = *store.createConversation(QStringLiteral("Threads"));
        QString workerName;
        int seen = 0;
        std::optional<qint64> fromWorker;
        QThread* worker = QThread::create([&] {
            workerName = store.connectionName();
            seen = static_cast<int>(store.conversations().size());
            fromWorker = store.addMessage(conv, 0, QStringLiteral("user"), QStringLiteral("from a worker"));
        });
        worker->start();
        QVERIFY(worker->wait(10000));
        delete worker;
        QCOMPARE(seen, 1);
        QVERIFY(fromWorker);
        QVERIFY(workerName != store.connectionName());
        // The worker's connection went away with its thread.
        QVERIFY(!QSqlDatabase::contains(workerName));
        QCOMPARE(store.activePath(conv).first().content, QStringLiteral("from a worker"));
    }

    void survivesKillMidAnswer()
    {
#ifndef Q_OS_UNIX
        QSKIP("SIGKILL is POSIX");
#else
        const QString child = QStringLiteral(HEARTH_BIN_DIR "/chatstore_crash_child");
        if (!QFile::exists(child))
            QSKIP("chatstore_crash_child is not built");
        qint64 keep = 0;
        {
            ChatStore store;
            QVERIFY(store.open(dbPath()));
            keep = *store.createConversation(QStringLiteral("Earlier chat"));
            const qint64 q = *store.addMessage(keep, 0, QStringLiteral("user"), QStringLiteral("earlier question"));
            QVERIFY(store.addMessage(keep, q, QStringLiteral("assistant"), QStringLiteral("earlier answer")));
        }

        QProcess proc;
        proc.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        proc.start(child, {dbPath()});
        QVERIFY(proc.waitForStarted());
        qint64 conversationId = 0;
        qint64 messageId = 0;
        int lastToken = -1;
        QByteArray buffer;
        QElapsedTimer clock;
        clock.start();
        while (lastToken < 150 && clock.elapsed() < 30000) {
            if (!proc.waitForReadyRead(1000) && proc.state() != QProcess::Running)
                break;
            buffer += proc.readAllStandardOutput();
            qsizetype nl;
            while ((nl = buffer.indexOf('\n')) >= 0) {
                const QList<QByteArray> words = buffer.left(nl).split(' ');
                buffer.remove(0, nl + 1);
                if (words.value(0) == "ready" && words.size() == 3) {
                    conversationId = words[1].toLongLong();
                    messageId = words[2].toLongLong();
                } else if (words.value(0) == "token" && words.size() == 2) {
                    lastToken = words[1].toInt();
                }
            }
        }
        QVERIFY2(lastToken >= 150, "the child did not stream");
        proc.kill(); // SIGKILL: no destructor, no flush
        QVERIFY(proc.waitForFinished(10000));
        QCOMPARE(proc.exitStatus(), QProcess::CrashExit);

        ChatStore store;
        QVERIFY2(store.open(dbPath()), qPrintable(store.lastError()));
        QCOMPARE(store.recoveredMessageCount(), 1);
        const auto answer = store.message(messageId);
        QVERIFY(answer);
        QCOMPARE(answer->state, MessageState::Interrupted);
        QCOMPARE(answer->conversationId, conversationId);
        // The stored text is exactly the first k tokens, and at most one batch is missing.
        QString expected;
        int k = 0;
        while (expected.length() < answer->content.length())
            expected += tokenText(k++);
        QCOMPARE(answer->content, expected);
        qInfo("child had handed %d tokens to the store when killed; %d were on disk", lastToken + 1, k);
        QVERIFY2(k >= lastToken + 1 - ChatStore::FlushEveryTokens,
            qPrintable(QStringLiteral("stored %1 tokens, child had sent %2").arg(k).arg(lastToken + 1)));

        const QList<StoredMessage> path = store.activePath(conversationId);
        QCOMPARE(path.size(), 2);
        QCOMPARE(path[0].content, QStringLiteral("Tell me a long story"));
        QCOMPARE(path[1].id, messageId);
        const QList<StoredMessage> earlier = store.activePath(keep);
        QCOMPARE(earlier.size(), 2);
        QCOMPARE(earlier[1].content, QStringLiteral("earlier answer"));
        // Interrupted answers are searchable and can still be completed or regenerated.
        QCOMPARE(store.search(QStringLiteral("t5")).size(), 1);
        QVERIFY(store.finishMessage(messageId, {}));
        QCOMPARE(store.message(messageId)->content, expected);
#endif
    }

    void readOnlyFile()
    {
        {
            ChatStore store;
            QVERIFY(store.open(dbPath()));
            const qint64 c = *store.createConversation(QStringLiteral("Stored before"));
            QVERIFY(store.addMessage(c, 0, QStringLiteral("user"), QStringLiteral("precious")));
        }
        const QByteArray before = readAll(dbPath());
        auto restore = qScopeGuard([this] { makeWritable(dbPath()); });
        if (!makeReadOnly(dbPath(), false)) {
            makeWritable(dbPath());
            QSKIP("cannot make a file read-only here");
        }
        {
            ChatStore store;
            QSignalSpy errors(&store, &ChatStore::errorOccurred);
            const bool opened = store.open(dbPath());
            QVERIFY(errors.size() >= 1);
            QVERIFY(!store.lastError().isEmpty());
            if (opened) {
                // Readable, and says why nothing new is saved.
                QVERIFY(store.isReadOnly());
                QVERIFY(store.lastError().contains(QStringLiteral("read-only")));
                QCOMPARE(store.conversations().size(), 1);
                QVERIFY(!store.createConversation(QStringLiteral("new")));
                QVERIFY(store.lastError().contains(QStringLiteral("read-only")));
            }
        }
        makeWritable(dbPath());
        QCOMPARE(readAll(dbPath()), before);
        ChatStore store;
        QVERIFY(store.open(dbPath()));
        QCOMPARE(store.conversations().size(), 1);
    }

    void readOnlyDirectory()
    {
        const QString dir = m_dir->filePath(QStringLiteral("sub"));
        const QString path = dir + QStringLiteral("/chats.db");
        {
            ChatStore store;
            QVERIFY(store.open(path));
            QVERIFY(store.createConversation(QStringLiteral("Stored before")));
        }
        auto restore = qScopeGuard([dir] { makeWritable(dir); });
        if (!makeReadOnly(dir, true)) {
            makeWritable(dir);
            QSKIP("cannot make a folder read-only here");
        }
        {
            ChatStore store;
            QSignalSpy errors(&store, &ChatStore::errorOccurred);
            const bool opened = store.open(path);
            QVERIFY(errors.size() >= 1);
            QVERIFY(!store.lastError().isEmpty());
            if (opened)
                QCOMPARE(store.conversations().size(), 1);
        }
        makeWritable(dir);
        ChatStore store;
        QVERIFY(store.open(path));
        QCOMPARE(store.conversations().size(), 1);
    }

    void fullDiskKeepsTextForRetry()
    {
        ChatStore store;
        QVERIFY(store.open(dbPath()));
        const qint64 keep = *store.createConversation(QStringLiteral("Before the disk filled"));
        QVERIFY(store.addMessage(keep, 0, QStringLiteral("user"), QStringLiteral("safe")));
        const qint64 conv = *store.createConversation(QStringLiteral("Big answer"));
        const qint64 a = *store.beginAssistantMessage(conv, 0);

        // The store's own connection for this thread: cap the file at one more page.
        const auto setMaxPages = [&store](const QString& value) {
            QSqlQuery q(QSqlDatabase::database(store.connectionName(), false));
            if (value.isEmpty())
                return q.exec(QStringLiteral("PRAGMA page_count")) && q.next() ? q.value(0).toString() : QString();
            return q.exec(QStringLiteral("PRAGMA max_page_count = %1").arg(value)) ? value : QString();
        };
        const QString pages = setMaxPages({});
        QVERIFY(!pages.isEmpty());
        QVERIFY(!setMaxPages(QString::number(pages.toInt() + 1)).isEmpty());

        QSignalSpy errors(&store, &ChatStore::errorOccurred);
        const QString chunk(2000, QLatin1Char('x'));
        QString expected;
        for (int i = 0; i < 40; ++i) {
            QVERIFY(store.appendToken(a, chunk)); // accepted in memory even when the disk is full
            expected += chunk;
        }
        QVERIFY(!store.flush());
        QVERIFY(store.hasPendingWrites());
        QCOMPARE(errors.size(), 1); // reported once, not once per token
        QVERIFY2(store.lastError().contains(QStringLiteral("full")), qPrintable(store.lastError()));
        QCOMPARE(store.message(a)->content, expected);
        // Finishing fails too but is remembered.
        QVERIFY(!store.finishMessage(a, {40, 10.0, 5.0, QStringLiteral("m")}));
        QCOMPARE(store.activePath(keep).first().content, QStringLiteral("safe"));

        // Space comes back: the next flush writes everything.
        QVERIFY(!setMaxPages(QStringLiteral("1000000")).isEmpty());
        QVERIFY2(store.flush(), qPrintable(store.lastError()));
        QVERIFY(!store.hasPendingWrites());
        store.close();
        ChatStore reopened;
        QVERIFY(reopened.open(dbPath()));
        const auto stored = reopened.message(a);
        QCOMPARE(stored->content, expected);
        QCOMPARE(stored->state, MessageState::Complete);
        QCOMPARE(stored->stats.tokens, 40);
    }

    void corruptFile()
    {
        QFile f(dbPath());
        QVERIFY(f.open(QIODevice::WriteOnly));
        for (int i = 0; i < 500; ++i)
            f.write("this is not a database, it is a shopping list\n");
        f.close();
        const QByteArray before = readAll(dbPath());
        ChatStore store;
        QSignalSpy errors(&store, &ChatStore::errorOccurred);
        QVERIFY(!store.open(dbPath()));
        QVERIFY(errors.size() >= 1);
        QVERIFY2(store.lastError().contains(QStringLiteral("not a database")), qPrintable(store.lastError()));
        QCOMPARE(readAll(dbPath()), before); // never "repaired" by overwriting
        QVERIFY(store.conversations().isEmpty());
        QVERIFY(!store.beginAssistantMessage(1, 0));
    }

    void damagedPagesDoNotCrash()
    {
        {
            ChatStore store;
            QVERIFY(store.open(dbPath()));
            for (int i = 0; i < 50; ++i) {
                const qint64 c = *store.createConversation(QStringLiteral("Chat %1").arg(i));
                QVERIFY(store.addMessage(c, 0, QStringLiteral("user"), QString(3000, QLatin1Char('a' + i % 26))));
            }
        }
        QFile f(dbPath());
        QVERIFY(f.open(QIODevice::ReadWrite));
        QVERIFY(f.size() > 40000);
        f.seek(4096 * 2);
        f.write(QByteArray(4096 * 6, '\xa5'));
        f.close();
        ChatStore store;
        if (store.open(dbPath())) {
            (void)store.conversations();
            (void)store.search(QStringLiteral("aaa"));
            for (qint64 id = 1; id <= 50; ++id)
                (void)store.activePath(id);
        }
        QVERIFY(!store.lastError().isEmpty()); // whatever broke was reported, nothing crashed
    }

    void lockedByAnotherConnection()
    {
        ChatStore store;
        store.setBusyTimeout(100);
        QVERIFY(store.open(dbPath()));
        const qint64 conv = *store.createConversation(QStringLiteral("Locked"));
        const qint64 a = *store.beginAssistantMessage(conv, 0);

        RawDb other(dbPath(), QStringLiteral("other-program"));
        QVERIFY(other.exec(QStringLiteral("BEGIN EXCLUSIVE")));
        QVERIFY(other.exec(QStringLiteral("UPDATE conversations SET title = title")));

        QSignalSpy errors(&store, &ChatStore::errorOccurred);
        QVERIFY(!store.createConversation(QStringLiteral("blocked")));
        QVERIFY2(store.lastError().contains(QStringLiteral("locked")), qPrintable(store.lastError()));
        QString expected;
        for (int i = 0; i < ChatStore::FlushEveryTokens; ++i) {
            QVERIFY(store.appendToken(a, tokenText(i)));
            expected += tokenText(i);
        }
        QVERIFY(!store.flush());
        QVERIFY(errors.size() >= 2);
        // Reads still work in WAL mode while another writer holds the lock.
        QCOMPARE(store.conversations().size(), 1);
        QCOMPARE(store.message(a)->content, expected);

        QVERIFY(other.exec(QStringLiteral("ROLLBACK")));
        QVERIFY(store.flush());
        QVERIFY(store.finishMessage(a, {}));
        QCOMPARE(other.scalar(QStringLiteral("SELECT content FROM messages WHERE id = %1").arg(a)).toString(), expected);
    }

    void exportIsPure()
    {
        Conversation c;
        c.title = QStringLiteral("T");
        StoredMessage m;
        m.id = 1;
        m.role = QStringLiteral("assistant");
        m.content = QStringLiteral("cut short");
        m.state = MessageState::Interrupted;
        QVERIFY(ChatExport::toMarkdown(c, {m}).contains(QStringLiteral("interrupted")));
        const QJsonObject o = QJsonDocument::fromJson(ChatExport::toJson(c, {m}, {m})).object();
        QCOMPARE(o.value(QStringLiteral("messages")).toArray()[0].toObject().value(QStringLiteral("state")).toString(),
            QStringLiteral("interrupted"));
    }
};

QTEST_GUILESS_MAIN(TestChatStore)
#include "tst_chatstore.moc"
