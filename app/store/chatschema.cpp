// SPDX-License-Identifier: MIT
#include "chatschema.h"

namespace hearth::ChatSchema {

namespace {

// v1: a flat list of messages per conversation, ordered by id.
MigrationStep version1()
{
    return {1,
        {
            QStringLiteral("CREATE TABLE conversations ("
                           " id INTEGER PRIMARY KEY,"
                           " title TEXT NOT NULL DEFAULT '',"
                           " created_at INTEGER NOT NULL,"
                           " updated_at INTEGER NOT NULL,"
                           " system_prompt TEXT NOT NULL DEFAULT '',"
                           " model_path TEXT NOT NULL DEFAULT '',"
                           " sampling_json TEXT NOT NULL DEFAULT '{}',"
                           " pinned INTEGER NOT NULL DEFAULT 0)"),
            QStringLiteral("CREATE TABLE messages ("
                           " id INTEGER PRIMARY KEY,"
                           " conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,"
                           " role TEXT NOT NULL,"
                           " content TEXT NOT NULL DEFAULT '',"
                           " created_at INTEGER NOT NULL,"
                           " state TEXT NOT NULL DEFAULT 'complete')"),
            QStringLiteral("CREATE INDEX messages_conversation ON messages(conversation_id, id)"),
        }};
}

// v2: messages form a tree (regenerate and edit create siblings), each conversation remembers the
// leaf of the branch on screen, answers carry generation statistics, conversations can sit in a
// bin before they are purged. The old flat list becomes a single chain.
MigrationStep version2()
{
    return {2,
        {
            QStringLiteral("ALTER TABLE messages ADD COLUMN parent_id INTEGER"
                           " REFERENCES messages(id) ON DELETE CASCADE"),
            QStringLiteral("UPDATE messages SET parent_id = (SELECT MAX(p.id) FROM messages p"
                           " WHERE p.conversation_id = messages.conversation_id AND p.id < messages.id)"),
            QStringLiteral("ALTER TABLE messages ADD COLUMN error_text TEXT NOT NULL DEFAULT ''"),
            QStringLiteral("ALTER TABLE messages ADD COLUMN gen_tokens INTEGER NOT NULL DEFAULT 0"),
            QStringLiteral("ALTER TABLE messages ADD COLUMN gen_tokens_per_second REAL NOT NULL DEFAULT 0"),
            QStringLiteral("ALTER TABLE messages ADD COLUMN gen_ttft_ms REAL NOT NULL DEFAULT 0"),
            QStringLiteral("ALTER TABLE messages ADD COLUMN gen_model TEXT NOT NULL DEFAULT ''"),
            // No foreign key: the leaf is fixed up in code when messages go away, and a stale id
            // only costs a fallback to the newest message.
            QStringLiteral("ALTER TABLE conversations ADD COLUMN active_leaf_id INTEGER"),
            QStringLiteral("UPDATE conversations SET active_leaf_id ="
                           " (SELECT MAX(m.id) FROM messages m WHERE m.conversation_id = conversations.id)"),
            QStringLiteral("ALTER TABLE conversations ADD COLUMN deleted_at INTEGER"),
            QStringLiteral("CREATE INDEX messages_parent ON messages(parent_id)"),
        }};
}

// v3: full-text search over message contents and conversation titles. Rows still streaming are
// left out of the index so the flushes during an answer do not re-tokenize it every time; they are
// indexed when they become complete, interrupted or failed.
MigrationStep version3()
{
    return {3,
        {
            QStringLiteral("CREATE VIRTUAL TABLE message_fts USING fts5(content, content='messages',"
                           " content_rowid='id', tokenize='unicode61 remove_diacritics 2')"),
            QStringLiteral("CREATE VIRTUAL TABLE conversation_fts USING fts5(title, content='conversations',"
                           " content_rowid='id', tokenize='unicode61 remove_diacritics 2')"),
            QStringLiteral("CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages"
                           " WHEN new.state <> 'streaming' BEGIN"
                           " INSERT INTO message_fts(rowid, content) VALUES (new.id, new.content);"
                           " END"),
            QStringLiteral("CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages"
                           " WHEN old.state <> 'streaming' BEGIN"
                           " INSERT INTO message_fts(message_fts, rowid, content)"
                           " VALUES ('delete', old.id, old.content);"
                           " END"),
            QStringLiteral("CREATE TRIGGER messages_fts_update AFTER UPDATE OF content, state ON messages BEGIN"
                           " INSERT INTO message_fts(message_fts, rowid, content)"
                           " SELECT 'delete', old.id, old.content WHERE old.state <> 'streaming';"
                           " INSERT INTO message_fts(rowid, content)"
                           " SELECT new.id, new.content WHERE new.state <> 'streaming';"
                           " END"),
            QStringLiteral("CREATE TRIGGER conversations_fts_insert AFTER INSERT ON conversations BEGIN"
                           " INSERT INTO conversation_fts(rowid, title) VALUES (new.id, new.title);"
                           " END"),
            QStringLiteral("CREATE TRIGGER conversations_fts_delete AFTER DELETE ON conversations BEGIN"
                           " INSERT INTO conversation_fts(conversation_fts, rowid, title)"
                           " VALUES ('delete', old.id, old.title);"
                           " END"),
            QStringLiteral("CREATE TRIGGER conversations_fts_update AFTER UPDATE OF title ON conversations BEGIN"
                           " INSERT INTO conversation_fts(conversation_fts, rowid, title)"
                           " VALUES ('delete', old.id, old.title);"
                           " INSERT INTO conversation_fts(rowid, title) VALUES (new.id, new.title);"
                           " END"),
            QStringLiteral("INSERT INTO message_fts(rowid, content)"
                           " SELECT id, content FROM messages WHERE state <> 'streaming'"),
            QStringLiteral("INSERT INTO conversation_fts(rowid, title) SELECT id, title FROM conversations"),
        }};
}

} // namespace

const QList<MigrationStep>& steps()
{
    static const QList<MigrationStep> all = {version1(), version2(), version3()};
    return all;
}

int latestVersion()
{
    return steps().constLast().version;
}

} // namespace hearth::ChatSchema
