// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// DownloadQueueStore: the download queue's table in SQLite, so downloads survive a restart.
///
/// The database file may be the one ChatStore uses: this class opens its own connection (named
/// "hearth.downloads.N"), touches only its own tables and keeps its schema version in its own
/// table (download_schema) rather than PRAGMA user_version, which belongs to ChatStore. The
/// schema is a table of steps; a database written by a newer Hearth is refused untouched.
/// Used from the thread that opened it only.

#include "downloaditem.h"

#include <QList>
#include <QString>

#include <optional>

namespace hearth {

class DownloadQueueStore
{
public:
    DownloadQueueStore();
    ~DownloadQueueStore();
    DownloadQueueStore(const DownloadQueueStore&) = delete;
    DownloadQueueStore& operator=(const DownloadQueueStore&) = delete;

    [[nodiscard]] bool open(const QString& path);
    void close();
    [[nodiscard]] bool isOpen() const;
    [[nodiscard]] QString lastError() const { return m_lastError; }
    [[nodiscard]] int schemaVersion() const { return m_schemaVersion; }
    [[nodiscard]] static int latestSchemaVersion();

    /// Stores a new item and returns its id.
    [[nodiscard]] std::optional<qint64> insert(const DownloadItem& item);
    /// Writes every column of an existing item.
    bool update(const DownloadItem& item);
    bool remove(qint64 id);
    /// Every item, oldest first.
    [[nodiscard]] QList<DownloadItem> loadAll();

private:
    [[nodiscard]] bool migrate();
    bool fail(const QString& what, const QString& detail);

    QString m_connectionName;
    QString m_lastError;
    int m_schemaVersion = 0;
};

} // namespace hearth
