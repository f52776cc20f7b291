// SPDX-License-Identifier: MIT
#include "downloadmanager.h"

#include "downloadlogging.h"
#include "downloadqueuestore.h"
#include "filehasher.h"
#include "ggufprobe.h"

#include <QCryptographicHash>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QLocale>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QPointer>
#include <QRegularExpression>
#include <QStorageInfo>
#include <QThread>
#include <QTimer>

#include <atomic>
#include <cmath>

namespace hearth {

struct DownloadManager::Transfer {
    qint64 id = 0;
    QUrl url;                 ///< current URL (after redirects)
    int redirects = 0;
    QPointer<QNetworkReply> reply;
    std::unique_ptr<QFile> part;
    std::unique_ptr<QCryptographicHash> hash; ///< covers exactly the bytes in the .part file
    std::unique_ptr<FileHasher> hasher;
    QTimer retryTimer;
    qint64 requestOffset = 0; ///< the Range start of the current request
    bool headersChecked = false;
    bool ignoreBody = false;  ///< redirect or error answer: the body is not file data
    int attempts = 0;         ///< consecutive failures without progress
    qint64 bytesAtRequest = 0;
    // progress
    QElapsedTimer sinceEmit;
    QElapsedTimer sinceSample;
    qint64 bytesAtSample = 0;
    double speed = 0.0;
    QElapsedTimer sinceSave;
};

struct DownloadManager::CopyJob {
    QThread* thread = nullptr;
    std::atomic_bool stop{false};
    bool ok = false;
    QString error;
};

namespace {

QString formatBytes(qint64 bytes)
{
    return QLocale().formattedDataSize(bytes);
}

} // namespace

DownloadManager::DownloadManager(QObject* parent)
    : QObject(parent)
    , m_api(new HuggingFaceApi(nullptr, this))
    , m_store(std::make_unique<DownloadQueueStore>())
{
}

DownloadManager::~DownloadManager()
{
    // Saved states stay "downloading": the next open() queues those items again.
    std::vector<qint64> ids;
    for (const auto& [id, transfer] : m_transfers)
        ids.push_back(id);
    for (qint64 id : ids) {
        if (DownloadItem* item = find(id)) {
            stopTransfer(id);
            save(*item);
        }
    }
    for (auto& [id, job] : m_copies) {
        job->stop = true;
        job->thread->disconnect(this);
        job->thread->wait();
        delete job->thread;
        if (DownloadItem* item = find(id))
            QFile::remove(item->partPath());
    }
    m_copies.clear();
}

bool DownloadManager::open(const QString& databasePath)
{
    if (!m_store->open(databasePath)) {
        m_lastError = m_store->lastError();
        return false;
    }
    m_items = m_store->loadAll();
    for (DownloadItem& item : m_items) {
        // Interrupted by a quit or crash: the .part file (not the saved count) says how far.
        if (item.isActive() && item.url.isLocalFile()) {
            QFile::remove(item.partPath());
            item.state = DownloadState::Failed;
            item.errorText = tr("Copying %1 was interrupted; import it again.").arg(item.file);
            save(item);
        } else if (item.isActive()) {
            item.state = DownloadState::Queued;
            item.bytesDone = QFileInfo(item.partPath()).size();
            save(item);
        }
        Q_EMIT itemAdded(item.id);
    }
    scheduleNext();
    return true;
}

void DownloadManager::setMaxConcurrent(int downloads)
{
    m_maxConcurrent = std::clamp(downloads, 1, MaxConcurrent);
    scheduleNext();
}

void DownloadManager::setRetryPolicy(int initialBackoffMs, int maxBackoffMs, int maxAttempts)
{
    m_initialBackoffMs = std::max(1, initialBackoffMs);
    m_maxBackoffMs = std::max(m_initialBackoffMs, maxBackoffMs);
    m_maxAttempts = std::max(1, maxAttempts);
}

void DownloadManager::setFreeSpaceFunction(FreeSpaceFunction function)
{
    m_freeSpace = std::move(function);
}

qint64 DownloadManager::freeSpace(const QString& directory) const
{
    if (m_freeSpace)
        return m_freeSpace(directory);
    const QStorageInfo storage(directory);
    return storage.isValid() ? storage.bytesAvailable() : -1;
}

// Items -------------------------------------------------------------------------------------

DownloadItem* DownloadManager::find(qint64 id)
{
    for (DownloadItem& item : m_items) {
        if (item.id == id)
            return &item;
    }
    return nullptr;
}

std::optional<DownloadItem> DownloadManager::item(qint64 id) const
{
    for (const DownloadItem& item : m_items) {
        if (item.id == id)
            return item;
    }
    return std::nullopt;
}

QList<DownloadItem> DownloadManager::items() const
{
    return m_items;
}

QStringList DownloadManager::installedFiles() const
{
    QStringList files;
    for (const DownloadItem& item : m_items) {
        if (item.state == DownloadState::Completed && !item.destination.endsWith(QLatin1String(".part"))
            && QFileInfo(item.destination).isFile()) {
            files.append(item.destination);
        }
    }
    return files;
}

QString DownloadManager::verificationText(Verification verification)
{
    switch (verification) {
    case Verification::Sha256:
        return tr("Verified: the SHA-256 checksum matches the one published with the model.");
    case Verification::Size:
        return tr("Only the size was checked: no checksum is published for this file.");
    case Verification::None:
        break;
    }
    return tr("Not verified.");
}

void DownloadManager::save(const DownloadItem& item)
{
    if (m_store->isOpen() && !m_store->update(item))
        m_lastError = m_store->lastError();
}

void DownloadManager::setState(DownloadItem& item, DownloadState state, const QString& errorText)
{
    item.state = state;
    item.errorText = errorText;
    item.updatedAt = QDateTime::currentDateTimeUtc();
    save(item);
    Q_EMIT itemChanged(item.id);
}

qint64 DownloadManager::addItem(DownloadItem item)
{
    item.destination = QDir::cleanPath(QFileInfo(item.destination).absoluteFilePath());
    for (const DownloadItem& existing : std::as_const(m_items)) {
        const bool unfinished = existing.state != DownloadState::Completed && existing.state != DownloadState::Failed
            && existing.state != DownloadState::Cancelled;
        if (unfinished && existing.destination == item.destination)
            return existing.id;
    }
    item.expectedSha256 = item.expectedSha256.trimmed().toLower();
    item.createdAt = item.updatedAt = QDateTime::currentDateTimeUtc();
    if (m_store->isOpen()) {
        const auto id = m_store->insert(item);
        if (!id) {
            m_lastError = m_store->lastError();
            return 0;
        }
        item.id = *id;
    } else {
        item.id = m_nextMemoryId++;
    }
    m_items.append(item);
    Q_EMIT itemAdded(item.id);
    scheduleNext();
    return item.id;
}

qint64 DownloadManager::enqueue(const QString& repo, const QString& file, const QString& destination,
    qint64 expectedSize, const QByteArray& expectedSha256, const QString& revision)
{
    DownloadItem item;
    item.repo = repo;
    item.file = file;
    item.revision = revision.isEmpty() ? QStringLiteral("main") : revision;
    item.url = m_api->fileUrl(repo, file, item.revision);
    item.destination = destination;
    item.expectedSize = expectedSize;
    item.expectedSha256 = expectedSha256;
    return addItem(std::move(item));
}

qint64 DownloadManager::enqueue(
    const QString& repo, const HfFileEntry& entry, const QString& destinationDir, const QString& revision)
{
    return enqueue(repo, entry.path, QDir(destinationDir).filePath(entry.path), entry.downloadSize(), entry.lfsSha256,
        revision);
}

qint64 DownloadManager::enqueueUrl(
    const QUrl& url, const QString& destination, qint64 expectedSize, const QByteArray& expectedSha256)
{
    DownloadItem item;
    item.file = url.fileName();
    item.url = url;
    item.destination = destination;
    item.expectedSize = expectedSize;
    item.expectedSha256 = expectedSha256;
    return addItem(std::move(item));
}

bool DownloadManager::pause(qint64 id)
{
    DownloadItem* item = find(id);
    if (!item || (item->state != DownloadState::Downloading && item->state != DownloadState::Queued))
        return false;
    if (m_copies.count(id))
        return false; // a local copy is quick and cannot resume; cancel it instead
    stopTransfer(id);
    setState(*item, DownloadState::Paused);
    scheduleNext();
    return true;
}

bool DownloadManager::resume(qint64 id)
{
    DownloadItem* item = find(id);
    if (!item || item->state != DownloadState::Paused)
        return false;
    item->retries = 0;
    setState(*item, DownloadState::Queued);
    scheduleNext();
    return true;
}

bool DownloadManager::cancel(qint64 id)
{
    DownloadItem* item = find(id);
    if (!item || item->state == DownloadState::Completed || item->state == DownloadState::Cancelled)
        return false;
    stopTransfer(id);
    if (auto it = m_copies.find(id); it != m_copies.end()) {
        it->second->stop = true;
        it->second->thread->disconnect(this);
        it->second->thread->wait();
        delete it->second->thread;
        m_copies.erase(it);
    }
    QFile::remove(item->partPath());
    item->bytesDone = 0;
    setState(*item, DownloadState::Cancelled);
    scheduleNext();
    return true;
}

bool DownloadManager::retry(qint64 id)
{
    DownloadItem* item = find(id);
    if (!item || (item->state != DownloadState::Failed && item->state != DownloadState::Cancelled))
        return false;
    if (item->url.isLocalFile())
        return false; // imports are redone with importLocalFile()
    item->retries = 0;
    item->verification = Verification::None;
    setState(*item, DownloadState::Queued);
    scheduleNext();
    return true;
}

bool DownloadManager::remove(qint64 id)
{
    DownloadItem* item = find(id);
    if (!item || item->isActive() || m_copies.count(id))
        return false;
    if (item->state != DownloadState::Completed)
        QFile::remove(item->partPath());
    if (m_store->isOpen() && !m_store->remove(id)) {
        m_lastError = m_store->lastError();
        return false;
    }
    m_items.removeIf([id](const DownloadItem& i) { return i.id == id; });
    Q_EMIT itemRemoved(id);
    return true;
}

bool DownloadManager::clearFromList(qint64 id)
{
    DownloadItem* item = find(id);
    if (!item || item->state != DownloadState::Completed)
        return remove(id);
    if (item->cleared)
        return true;
    item->cleared = true;
    save(*item);
    Q_EMIT itemChanged(id);
    return true;
}

// Scheduling --------------------------------------------------------------------------------

void DownloadManager::scheduleNext()
{
    // Coalesced and deferred: callers may be inside a reply's signal, and a caller that just got
    // an id from enqueue() sees the item's signals only after it returned.
    if (m_scheduleQueued)
        return;
    m_scheduleQueued = true;
    QTimer::singleShot(0, this, [this] {
        m_scheduleQueued = false;
        for (DownloadItem& item : m_items) {
            if (static_cast<int>(m_transfers.size()) >= m_maxConcurrent)
                break;
            if (item.state == DownloadState::Queued)
                startTransfer(item.id);
        }
    });
}

void DownloadManager::startTransfer(qint64 id)
{
    DownloadItem* item = find(id);
    if (!item)
        return;
    const QFileInfo destination(item->destination);
    if (!QDir().mkpath(destination.absolutePath())) {
        setState(*item, DownloadState::Downloading);
        failTransfer(id, tr("Cannot create the folder %1.").arg(destination.absolutePath()), false);
        return;
    }

    qint64 partSize = QFileInfo(item->partPath()).size();
    if (item->expectedSize >= 0 && partSize > item->expectedSize) {
        qCInfo(lcDownloads) << "part file larger than the expected size, starting over:" << item->partPath();
        QFile::remove(item->partPath());
        partSize = 0;
    }
    item->bytesDone = partSize;

    const qint64 needed = (item->expectedSize >= 0 ? item->expectedSize - partSize : 0) + m_diskMargin;
    const qint64 available = freeSpace(destination.absolutePath());
    if (available >= 0 && available < needed) {
        setState(*item, DownloadState::Downloading);
        failTransfer(id,
            tr("Not enough disk space in %1: the download needs %2 more, %3 is free.")
                .arg(QDir::toNativeSeparators(destination.absolutePath()), formatBytes(needed), formatBytes(available)),
            false);
        return;
    }

    auto transfer = std::make_unique<Transfer>();
    Transfer& t = *transfer;
    t.id = id;
    t.url = item->url;
    t.retryTimer.setSingleShot(true);
    connect(&t.retryTimer, &QTimer::timeout, this, [this, id] {
        if (auto it = m_transfers.find(id); it != m_transfers.end())
            sendRequest(*it->second);
    });
    m_transfers.emplace(id, std::move(transfer));
    setState(*item, DownloadState::Downloading);

    if (partSize == 0) {
        t.hash = std::make_unique<QCryptographicHash>(QCryptographicHash::Sha256);
        beginRequests(t);
        return;
    }
    // Resuming: the running hash must first cover what is already on disk.
    t.hasher = std::make_unique<FileHasher>();
    connect(t.hasher.get(), &FileHasher::finished, this, [this, id](bool ok, const QString& errorText) {
        auto it = m_transfers.find(id);
        if (it == m_transfers.end())
            return;
        Transfer& transfer = *it->second;
        transfer.hash = transfer.hasher->takeHash();
        transfer.hasher.release()->deleteLater();
        if (!ok || !transfer.hash) {
            qCWarning(lcDownloads) << "cannot hash the existing part file, starting over:" << errorText;
            QFile::remove(find(id)->partPath());
            find(id)->bytesDone = 0;
            transfer.hash = std::make_unique<QCryptographicHash>(QCryptographicHash::Sha256);
        }
        beginRequests(transfer);
    });
    t.hasher->start(item->partPath(), partSize);
}

void DownloadManager::beginRequests(Transfer& t)
{
    DownloadItem* item = find(t.id);
    t.part = std::make_unique<QFile>(item->partPath());
    const QIODevice::OpenMode mode = item->bytesDone > 0 ? QIODevice::WriteOnly | QIODevice::Append
                                                         : QIODevice::WriteOnly | QIODevice::Truncate;
    if (!t.part->open(mode)) {
        failTransfer(t.id, tr("Cannot write %1: %2").arg(QDir::toNativeSeparators(item->partPath()), t.part->errorString()),
            false);
        return;
    }
    t.sinceSave.start();
    sendRequest(t);
}

void DownloadManager::sendRequest(Transfer& t)
{
    DownloadItem* item = find(t.id);
    QNetworkRequest request = m_api->makeRequest(t.url);
    // Compression would make byte offsets meaningless for Range.
    request.setRawHeader("Accept-Encoding", "identity");
    t.requestOffset = item->bytesDone;
    if (t.requestOffset > 0)
        request.setRawHeader("Range", "bytes=" + QByteArray::number(t.requestOffset) + '-');
    t.headersChecked = false;
    t.ignoreBody = false;
    t.bytesAtRequest = item->bytesDone;
    t.sinceSample.start();
    t.bytesAtSample = item->bytesDone;
    t.sinceEmit.invalidate();
    qCDebug(lcDownloads) << "GET" << t.url << "from" << t.requestOffset;

    QNetworkReply* reply = m_api->networkAccessManager()->get(request);
    t.reply = reply;
    const qint64 id = t.id;
    connect(reply, &QNetworkReply::readyRead, this, [this, id] {
        if (auto it = m_transfers.find(id); it != m_transfers.end())
            onReadyRead(*it->second);
    });
    connect(reply, &QNetworkReply::finished, this, [this, id] {
        if (auto it = m_transfers.find(id); it != m_transfers.end())
            onFinished(*it->second);
    });
}

void DownloadManager::pinRevision(const QNetworkReply* reply, DownloadItem& item)
{
    // The Hub names the commit a branch resolved to. Downloading the rest of the file from that
    // commit, not from the branch, keeps a resume from joining two versions of a file that
    // changed in between (which would only fail its checksum and start over).
    static const QRegularExpression kCommit(QStringLiteral("^[0-9a-f]{40}$"));
    const QString commit = QString::fromLatin1(reply->rawHeader("X-Repo-Commit")).trimmed();
    if (item.repo.isEmpty() || item.revision == commit || !kCommit.match(commit).hasMatch()
        || !m_api->isEndpointOrigin(reply->url()))
        return;
    qCInfo(lcDownloads) << item.repo << item.file << "pinned to commit" << commit;
    item.revision = commit;
    item.url = m_api->fileUrl(item.repo, item.file, commit);
    save(item);
}

bool DownloadManager::checkHeaders(Transfer& t)
{
    if (t.headersChecked)
        return true;
    t.headersChecked = true;
    QNetworkReply* reply = t.reply;
    pinRevision(reply, *find(t.id));
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (status != 200 && status != 206) {
        t.ignoreBody = true; // redirects and errors are handled in onFinished()
        return true;
    }
    if (t.requestOffset > 0 && status == 200) {
        qCInfo(lcDownloads) << "server ignored the Range request, starting over:" << t.url;
        DownloadItem* item = find(t.id);
        t.part->resize(0);
        t.part->seek(0);
        t.hash->reset();
        item->bytesDone = 0;
        t.requestOffset = 0;
        t.bytesAtRequest = 0;
        t.bytesAtSample = 0;
        return true;
    }
    if (status == 206) {
        static const QRegularExpression kRange(QStringLiteral(R"(^\s*bytes\s+(\d+)-(\d+)/(\d+|\*))"));
        const auto match = kRange.match(QString::fromLatin1(reply->rawHeader("Content-Range")));
        if (!match.hasMatch() || match.captured(1).toLongLong() != t.requestOffset) {
            qCWarning(lcDownloads) << "unexpected Content-Range" << reply->rawHeader("Content-Range") << "starting over";
            restartFromZero(t);
            return false;
        }
    }
    return true;
}

void DownloadManager::onReadyRead(Transfer& t)
{
    if (!t.reply || !checkHeaders(t))
        return;
    const QByteArray data = t.reply->readAll();
    if (t.ignoreBody || data.isEmpty())
        return;
    DownloadItem* item = find(t.id);
    if (item->expectedSize >= 0 && item->bytesDone + data.size() > item->expectedSize) {
        failTransfer(t.id, tr("The file is damaged: the server sent more data than expected."), true);
        return;
    }
    if (t.part->write(data) != data.size()) {
        failTransfer(t.id,
            tr("Cannot write %1: %2").arg(QDir::toNativeSeparators(t.part->fileName()), t.part->errorString()), false);
        return;
    }
    t.hash->addData(data);
    item->bytesDone += data.size();
    reportProgress(t, false);
}

void DownloadManager::reportProgress(Transfer& t, bool force)
{
    DownloadItem* item = find(t.id);
    if (!force && t.sinceEmit.isValid() && t.sinceEmit.elapsed() < m_progressIntervalMs)
        return;
    t.sinceEmit.start();
    const qint64 elapsed = t.sinceSample.elapsed();
    if (elapsed >= 50) {
        const double instant = double(item->bytesDone - t.bytesAtSample) * 1000.0 / double(elapsed);
        // An exponential moving average: steady enough to read, quick enough to follow changes.
        t.speed = t.speed <= 0.0 ? instant : 0.3 * instant + 0.7 * t.speed;
        t.sinceSample.start();
        t.bytesAtSample = item->bytesDone;
    }
    int eta = -1;
    if (item->expectedSize >= 0 && t.speed > 1.0)
        eta = static_cast<int>(std::ceil(double(item->expectedSize - item->bytesDone) / t.speed));
    if (t.sinceSave.isValid() && t.sinceSave.elapsed() > 2000) {
        t.sinceSave.start();
        save(*item);
    }
    Q_EMIT progress(t.id, item->bytesDone, item->expectedSize, t.speed, eta);
}

void DownloadManager::onFinished(Transfer& t)
{
    QNetworkReply* reply = t.reply;
    if (!reply)
        return;
    const qint64 id = t.id;
    if (!checkHeaders(t))
        return;
    // Whatever arrived with the end of the reply.
    if (reply->bytesAvailable() > 0)
        onReadyRead(t);
    if (m_transfers.find(id) == m_transfers.end())
        return; // onReadyRead failed the transfer
    reply->disconnect(this);
    reply->deleteLater();
    t.reply = nullptr;

    DownloadItem* item = find(t.id);
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    const QString what = item->repo.isEmpty() ? item->url.toDisplayString() : item->repo + QLatin1Char('/') + item->file;

    if (const auto target = HuggingFaceApi::redirectTarget(reply)) {
        if (++t.redirects > HuggingFaceApi::MaxRedirects || !HuggingFaceApi::isAllowedRedirect(t.url, *target)) {
            failTransfer(t.id, tr("Too many or unsafe redirects while downloading %1.").arg(what), false);
            return;
        }
        qCDebug(lcDownloads) << "redirected to" << target->host();
        t.url = *target;
        sendRequest(t);
        return;
    }
    // Signed CDN URLs expire: a retry starts again from the original URL.
    const auto restartUrl = [&t, item] {
        t.url = item->url;
        t.redirects = 0;
    };
    if (status == 416) {
        // Nothing left to send: the .part is complete, or not the file the server has.
        verifyAndInstall(t);
        return;
    }
    if (status == 0) {
        const auto error = reply->error();
        const bool permanent = error == QNetworkReply::SslHandshakeFailedError
            || error == QNetworkReply::ProtocolUnknownError || error == QNetworkReply::ProtocolInvalidOperationError;
        if (permanent) {
            failTransfer(t.id, HuggingFaceApi::networkErrorText(reply), false);
            return;
        }
        restartUrl();
        retryLater(t, HuggingFaceApi::networkErrorText(reply));
        return;
    }
    if (status != 200 && status != 206) {
        const auto retryAfter = HuggingFaceApi::retryAfterSeconds(reply);
        if (HuggingFaceApi::isRetryableHttpStatus(status)) {
            restartUrl();
            retryLater(t, HuggingFaceApi::httpErrorText(status, what, retryAfter), retryAfter);
            return;
        }
        failTransfer(t.id, HuggingFaceApi::httpErrorText(status, what, retryAfter), false);
        return;
    }
    if (reply->error() != QNetworkReply::NoError) {
        // A 200/206 that broke off mid-body: keep what arrived and continue with Range.
        restartUrl();
        retryLater(t, HuggingFaceApi::networkErrorText(reply));
        return;
    }
    if (item->expectedSize >= 0 && item->bytesDone < item->expectedSize) {
        restartUrl();
        retryLater(t, tr("The connection was closed before the download finished."));
        return;
    }
    verifyAndInstall(t);
}

void DownloadManager::restartFromZero(Transfer& t)
{
    if (t.reply) {
        t.reply->disconnect(this);
        t.reply->abort();
        t.reply->deleteLater();
        t.reply = nullptr;
    }
    DownloadItem* item = find(t.id);
    t.part->resize(0);
    t.part->seek(0);
    t.hash->reset();
    item->bytesDone = 0;
    t.url = item->url;
    t.redirects = 0;
    sendRequest(t);
}

void DownloadManager::retryLater(Transfer& t, const QString& reason, std::optional<int> retryAfterSeconds)
{
    DownloadItem* item = find(t.id);
    t.part->flush();
    if (item->bytesDone > t.bytesAtRequest)
        t.attempts = 0; // progress was made: this is a flaky link, not a dead one
    ++t.attempts;
    item->retries = t.attempts;
    if (t.attempts >= m_maxAttempts) {
        failTransfer(t.id, tr("The download failed after %n attempt(s): %1", nullptr, t.attempts).arg(reason), false);
        return;
    }
    int delayMs = m_initialBackoffMs;
    for (int i = 1; i < t.attempts && delayMs < m_maxBackoffMs; ++i)
        delayMs *= 2;
    delayMs = std::min(delayMs, m_maxBackoffMs);
    if (retryAfterSeconds)
        delayMs = std::min(std::max(delayMs, *retryAfterSeconds * 1000), MaxRetryAfterMs);
    qCInfo(lcDownloads) << "retry" << t.attempts << "of" << item->destination << "in" << delayMs << "ms:" << reason;
    item->errorText = reason;
    save(*item);
    Q_EMIT itemChanged(t.id);
    t.retryTimer.start(delayMs);
}

void DownloadManager::verifyAndInstall(Transfer& t)
{
    DownloadItem* item = find(t.id);
    const qint64 id = t.id;
    reportProgress(t, true);
    t.part->close();
    setState(*item, DownloadState::Verifying);

    const qint64 size = QFileInfo(item->partPath()).size();
    if (item->expectedSize >= 0 && size != item->expectedSize) {
        failTransfer(id,
            tr("The file is damaged (size mismatch: %1 instead of %2); it was deleted.")
                .arg(formatBytes(size), formatBytes(item->expectedSize)),
            true);
        return;
    }
    if (!item->expectedSha256.isEmpty()) {
        const QByteArray actual = t.hash->result().toHex();
        if (actual != item->expectedSha256) {
            qCWarning(lcDownloads) << "checksum mismatch for" << item->destination << actual << "expected"
                                   << item->expectedSha256;
            failTransfer(id, tr("The file is damaged (checksum mismatch); it was deleted. Try downloading it again."),
                true);
            return;
        }
        item->verification = Verification::Sha256;
    } else {
        qCInfo(lcDownloads) << "no checksum published for" << item->destination << "- compared the size only";
        item->verification = Verification::Size;
    }

    // Only a verified file may replace what is there.
    if (QFileInfo::exists(item->destination) && !QFile::remove(item->destination)) {
        failTransfer(id, tr("Cannot replace %1.").arg(QDir::toNativeSeparators(item->destination)), false);
        return;
    }
    if (!QFile::rename(item->partPath(), item->destination)) {
        failTransfer(id, tr("Cannot rename the finished download to %1.").arg(QDir::toNativeSeparators(item->destination)),
            false);
        return;
    }
    stopTransfer(id);
    item->bytesDone = size;
    setState(*item, DownloadState::Completed);
    qCInfo(lcDownloads) << "installed" << item->destination;
    Q_EMIT fileInstalled(item->destination);
    scheduleNext();
}

void DownloadManager::failTransfer(qint64 id, const QString& errorText, bool removePart)
{
    stopTransfer(id);
    DownloadItem* item = find(id);
    if (!item)
        return;
    if (removePart) {
        QFile::remove(item->partPath());
        item->bytesDone = 0;
    }
    qCWarning(lcDownloads) << "download failed:" << item->destination << errorText;
    setState(*item, DownloadState::Failed, errorText);
    Q_EMIT downloadFailed(id, errorText);
    scheduleNext();
}

void DownloadManager::stopTransfer(qint64 id)
{
    auto it = m_transfers.find(id);
    if (it == m_transfers.end())
        return;
    std::unique_ptr<Transfer> t = std::move(it->second);
    m_transfers.erase(it);
    t->retryTimer.stop();
    if (t->reply) {
        t->reply->disconnect(this);
        t->reply->abort();
        t->reply->deleteLater();
    }
    if (t->hasher)
        t->hasher->disconnect(this); // its destructor stops and waits for the thread
    if (t->part && t->part->isOpen())
        t->part->close();
    if (DownloadItem* item = find(id); item && item->state != DownloadState::Completed)
        item->bytesDone = QFileInfo(item->partPath()).size();
}

// Local files -------------------------------------------------------------------------------

qint64 DownloadManager::importLocalFile(const QString& path, const QString& copyToDir)
{
    const GgufProbe probe = probeGgufFile(path);
    if (!probe.ok) {
        m_lastError = probe.errorText;
        return 0;
    }
    const QFileInfo source(path);
    DownloadItem item;
    item.file = source.fileName();
    item.url = QUrl::fromLocalFile(source.absoluteFilePath());
    item.expectedSize = source.size();
    if (copyToDir.isEmpty()) {
        // Used in place: nothing to transfer.
        item.destination = source.absoluteFilePath();
        item.bytesDone = source.size();
        item.state = DownloadState::Completed;
        const qint64 id = addItem(item);
        if (id != 0 && find(id)->state == DownloadState::Completed)
            Q_EMIT fileInstalled(find(id)->destination);
        return id;
    }

    item.destination = QDir(copyToDir).filePath(source.fileName());
    if (QFileInfo(item.destination).absoluteFilePath() == source.absoluteFilePath()) {
        m_lastError = tr("%1 is already in the models folder.").arg(source.fileName());
        return 0;
    }
    if (!QDir().mkpath(copyToDir)) {
        m_lastError = tr("Cannot create the folder %1.").arg(QDir::toNativeSeparators(copyToDir));
        return 0;
    }
    const qint64 available = freeSpace(copyToDir);
    if (available >= 0 && available < source.size() + m_diskMargin) {
        m_lastError = tr("Not enough disk space in %1: copying the model needs %2, %3 is free.")
                          .arg(QDir::toNativeSeparators(copyToDir), formatBytes(source.size() + m_diskMargin),
                              formatBytes(available));
        return 0;
    }
    item.state = DownloadState::Downloading;
    const qint64 id = addItem(item);
    if (id == 0)
        return 0;
    DownloadItem* added = find(id);
    if (added->state != DownloadState::Downloading || m_copies.count(id))
        return id; // an unfinished item for the same destination already exists

    auto job = std::make_unique<CopyJob>();
    CopyJob* raw = job.get();
    const QString from = source.absoluteFilePath();
    const QString to = added->partPath();
    raw->thread = QThread::create([raw, from, to] {
        QFile in(from);
        QFile out(to);
        if (!in.open(QIODevice::ReadOnly) || !out.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
            raw->error = in.isOpen() ? out.errorString() : in.errorString();
            return;
        }
        QByteArray buffer(4 << 20, Qt::Uninitialized);
        while (!raw->stop) {
            const qint64 got = in.read(buffer.data(), buffer.size());
            if (got < 0) {
                raw->error = in.errorString();
                return;
            }
            if (got == 0) {
                raw->ok = out.flush();
                if (!raw->ok)
                    raw->error = out.errorString();
                return;
            }
            if (out.write(buffer.constData(), got) != got) {
                raw->error = out.errorString();
                return;
            }
        }
    });
    connect(raw->thread, &QThread::finished, this, [this, id] { finishCopy(id); });
    m_copies.emplace(id, std::move(job));
    raw->thread->start(QThread::LowPriority);
    return id;
}

void DownloadManager::finishCopy(qint64 id)
{
    auto it = m_copies.find(id);
    if (it == m_copies.end())
        return;
    std::unique_ptr<CopyJob> job = std::move(it->second);
    m_copies.erase(it);
    job->thread->wait();
    delete job->thread;
    DownloadItem* item = find(id);
    if (!item)
        return;
    const qint64 size = QFileInfo(item->partPath()).size();
    if (!job->ok || size != item->expectedSize) {
        QFile::remove(item->partPath());
        const QString text = tr("Copying %1 failed: %2").arg(item->file, job->error);
        setState(*item, DownloadState::Failed, text);
        Q_EMIT downloadFailed(id, text);
        return;
    }
    if ((QFileInfo::exists(item->destination) && !QFile::remove(item->destination))
        || !QFile::rename(item->partPath(), item->destination)) {
        QFile::remove(item->partPath());
        const QString text = tr("Cannot rename the copied file to %1.").arg(QDir::toNativeSeparators(item->destination));
        setState(*item, DownloadState::Failed, text);
        Q_EMIT downloadFailed(id, text);
        return;
    }
    item->bytesDone = size;
    item->verification = Verification::Size;
    setState(*item, DownloadState::Completed);
    Q_EMIT fileInstalled(item->destination);
}

} // namespace hearth
