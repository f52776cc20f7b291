// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// DownloadManager: the model download queue.
///
/// * Lives on the GUI thread and never blocks it: transfers are asynchronous QNetworkReplys, the
///   hash of an existing .part file is computed on a worker thread (FileHasher), local copies
///   run on a worker thread.
/// * The queue is persisted (DownloadQueueStore) so downloads survive a restart: an item that was
///   downloading when the app quit or crashed is queued again on open() and resumes from its
///   .part file.
/// * Bytes go to "<destination>.part" and are hashed (SHA-256) while they are written. A resume
///   sends "Range: bytes=N-"; a 206 continues, a 200 (Range ignored) restarts from zero, a 416
///   verifies what is there. Only when the size and the hash match the repository's metadata is
///   an existing final file replaced and the .part renamed to the final name; a mismatch deletes
///   the .part. Files the Hub publishes no hash for are checked by size only, and say so.
/// * A dropped connection, a stall or a 429/5xx is retried with exponential back-off (or the
///   server's Retry-After); a retry that made progress resets the count. 401/403/404 fail at once
///   with a message that says what to do.
/// * Only Completed items whose file exists are installed (installedFiles(), fileInstalled()).
///   A .part file is never offered for loading.

#include "downloaditem.h"
#include "huggingfaceapi.h"

#include <QHash>
#include <QList>
#include <QObject>
#include <QString>
#include <QStringList>

#include <functional>
#include <map>
#include <memory>
#include <optional>

class QNetworkReply;

namespace hearth {

class DownloadQueueStore;

class DownloadManager : public QObject
{
    Q_OBJECT

public:
    /// Free bytes on the volume holding @p directory; negative when unknown.
    using FreeSpaceFunction = std::function<qint64(const QString& directory)>;

    /// Space kept free beyond what a download still needs.
    static constexpr qint64 DefaultDiskMargin = 64LL * 1024 * 1024;
    /// More parallel downloads do not make one model arrive sooner; they split the bandwidth.
    static constexpr int MaxConcurrent = 2;
    static constexpr int DefaultMaxConcurrent = 2;
    static constexpr int DefaultInitialBackoffMs = 1000;
    static constexpr int DefaultMaxBackoffMs = 60000;
    static constexpr int DefaultMaxAttempts = 8;
    /// Progress signals at most this often per download (10 Hz).
    static constexpr int DefaultProgressIntervalMs = 100;
    /// The longest Retry-After obeyed; a server asking for more is retried after this.
    static constexpr int MaxRetryAfterMs = 10 * 60 * 1000;

    explicit DownloadManager(QObject* parent = nullptr);
    /// Stops transfers without changing their saved state: the next open() resumes them.
    ~DownloadManager() override;

    /// Opens (or creates) the queue in the SQLite file @p databasePath, which may be shared with
    /// the chat store, and starts what was queued or interrupted.
    [[nodiscard]] bool open(const QString& databasePath);
    [[nodiscard]] QString lastError() const { return m_lastError; }

    /// Endpoint and token settings, listings and search.
    [[nodiscard]] HuggingFaceApi* api() const { return m_api; }

    /// 1 or 2 (clamped); the rest wait in the queue.
    void setMaxConcurrent(int downloads);
    [[nodiscard]] int maxConcurrent() const { return m_maxConcurrent; }
    /// Waits initialMs, 2*initialMs, 4*initialMs ... (at most maxMs) between automatic retries,
    /// and gives up after @p maxAttempts consecutive failed attempts without progress.
    void setRetryPolicy(int initialBackoffMs, int maxBackoffMs, int maxAttempts);
    /// Replaces the QStorageInfo query, for tests and for volumes that misreport.
    void setFreeSpaceFunction(FreeSpaceFunction function);
    void setDiskMargin(qint64 bytes) { m_diskMargin = std::max<qint64>(0, bytes); }
    void setProgressInterval(int milliseconds) { m_progressIntervalMs = std::max(0, milliseconds); }

    // The queue ------------------------------------------------------------------------------

    /// Queues @p file of @p repo for @p destination (the final path). @p expectedSha256 is the
    /// LFS hash in hex; empty for files the Hub publishes none for. Returns the item id, the id
    /// of an unfinished item for the same destination, or 0 on error (see lastError()).
    qint64 enqueue(const QString& repo, const QString& file, const QString& destination,
        qint64 expectedSize = -1, const QByteArray& expectedSha256 = {},
        const QString& revision = QStringLiteral("main"));
    /// Queues a listing entry below @p destinationDir (keeping its sub-folders).
    qint64 enqueue(const QString& repo, const HfFileEntry& entry, const QString& destinationDir,
        const QString& revision = QStringLiteral("main"));
    /// Queues a direct URL (not on the Hub).
    qint64 enqueueUrl(const QUrl& url, const QString& destination, qint64 expectedSize = -1,
        const QByteArray& expectedSha256 = {});

    bool pause(qint64 id);
    /// Queues a paused item again; it continues from its .part file.
    bool resume(qint64 id);
    /// Stops and deletes the .part file.
    bool cancel(qint64 id);
    /// Queues a failed or cancelled item again, with a fresh retry count.
    bool retry(qint64 id);
    /// Forgets a finished, failed, cancelled or paused item (its .part is deleted; a completed
    /// file stays on disk).
    bool remove(qint64 id);
    /// Takes @p id off the Downloads list: a completed item is kept, marked cleared, so that
    /// its model stays installed; any other is removed as remove() does.
    bool clearFromList(qint64 id);

    [[nodiscard]] QList<DownloadItem> items() const;
    [[nodiscard]] std::optional<DownloadItem> item(qint64 id) const;
    /// Final paths of verified downloads and imports that still exist on disk.
    [[nodiscard]] QStringList installedFiles() const;
    /// A sentence for people about how a completed file was checked.
    [[nodiscard]] static QString verificationText(Verification verification);

    /// Adds a model file from disk after checking that it is a GGUF (magic and version). With an
    /// empty @p copyToDir the file is used where it is (installed at once); otherwise it is
    /// copied there on a worker thread, through a .part file, and installed when the copy is
    /// complete. Returns the item id, or 0 with lastError() set.
    qint64 importLocalFile(const QString& path, const QString& copyToDir = {});

Q_SIGNALS:
    void itemAdded(qint64 id);
    /// State, error text, retry count or verification changed.
    void itemChanged(qint64 id);
    void itemRemoved(qint64 id);
    /// At most every progress interval per download. @p bytesTotal and @p etaSeconds are -1 when
    /// unknown; @p bytesPerSecond is smoothed.
    void progress(qint64 id, qint64 bytesDone, qint64 bytesTotal, double bytesPerSecond, int etaSeconds);
    /// A verified file is in place under its final name.
    void fileInstalled(const QString& path);
    void downloadFailed(qint64 id, const QString& errorText);

private:
    struct Transfer;
    struct CopyJob;

    qint64 addItem(DownloadItem item);
    DownloadItem* find(qint64 id);
    void save(const DownloadItem& item);
    void setState(DownloadItem& item, DownloadState state, const QString& errorText = {});

    void scheduleNext();
    void startTransfer(qint64 id);
    void beginRequests(Transfer& t);
    void sendRequest(Transfer& t);
    void onReadyRead(Transfer& t);
    /// Repository downloads follow the commit the endpoint says its first answer came from.
    void pinRevision(const QNetworkReply* reply, DownloadItem& item);
    bool checkHeaders(Transfer& t);
    void onFinished(Transfer& t);
    void restartFromZero(Transfer& t);
    void retryLater(Transfer& t, const QString& reason, std::optional<int> retryAfterSeconds = std::nullopt);
    void verifyAndInstall(Transfer& t);
    void reportProgress(Transfer& t, bool force);
    void failTransfer(qint64 id, const QString& errorText, bool removePart);
    /// Stops network, hashing and timers and closes the .part; the item's state is not touched.
    void stopTransfer(qint64 id);
    void finishCopy(qint64 id);
    [[nodiscard]] qint64 freeSpace(const QString& directory) const;

    HuggingFaceApi* m_api = nullptr;
    std::unique_ptr<DownloadQueueStore> m_store;
    QList<DownloadItem> m_items;
    std::map<qint64, std::unique_ptr<Transfer>> m_transfers;
    std::map<qint64, std::unique_ptr<CopyJob>> m_copies;
    QString m_lastError;
    FreeSpaceFunction m_freeSpace;
    qint64 m_diskMargin = DefaultDiskMargin;
    int m_maxConcurrent = DefaultMaxConcurrent;
    int m_initialBackoffMs = DefaultInitialBackoffMs;
    int m_maxBackoffMs = DefaultMaxBackoffMs;
    int m_maxAttempts = DefaultMaxAttempts;
    int m_progressIntervalMs = DefaultProgressIntervalMs;
    bool m_scheduleQueued = false;
    qint64 m_nextMemoryId = 1; ///< ids for items when no database is open
};

} // namespace hearth
