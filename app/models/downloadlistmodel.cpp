// SPDX-License-Identifier: MIT
#include "downloadlistmodel.h"

#include "catalogentry.h"
#include "languagechangewatcher.h"

#include <QFileInfo>
#include <QLocale>

#include <algorithm>
#include <cmath>

namespace hearth::models {

DownloadListModel::DownloadListModel(DownloadManager* manager, QObject* parent)
    : QAbstractListModel(parent)
    , m_manager(manager)
{
    connect(new LanguageChangeWatcher(this), &LanguageChangeWatcher::languageChanged, this, [this] {
        if (rowCount() > 0)
            Q_EMIT dataChanged(index(0), index(rowCount() - 1));
    });
    if (!manager)
        return;
    connect(manager, &DownloadManager::itemAdded, this, &DownloadListModel::onAdded);
    connect(manager, &DownloadManager::itemChanged, this, &DownloadListModel::onChanged);
    connect(manager, &DownloadManager::itemRemoved, this, &DownloadListModel::onRemoved);
    connect(manager, &DownloadManager::progress, this, &DownloadListModel::onProgress);
    reload();
}

void DownloadListModel::reload()
{
    beginResetModel();
    m_rows.clear();
    for (const DownloadItem& item : m_manager ? m_manager->items() : QList<DownloadItem>()) {
        if (!item.cleared)
            m_rows.append(item);
    }
    m_live.clear();
    endResetModel();
    Q_EMIT countChanged();
}

int DownloadListModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int DownloadListModel::activeCount() const
{
    return int(std::count_if(m_rows.begin(), m_rows.end(), [](const DownloadItem& item) {
        return item.isActive() || item.state == DownloadState::Queued;
    }));
}

int DownloadListModel::rowOf(qint64 id) const
{
    for (int i = 0; i < m_rows.size(); ++i) {
        if (m_rows.at(i).id == id)
            return i;
    }
    return -1;
}

QString DownloadListModel::speedText(double bytesPerSecond)
{
    if (!(bytesPerSecond > 0) || !std::isfinite(bytesPerSecond))
        return {};
    if (bytesPerSecond >= 1e6)
        return tr("%1 MB/s").arg(QLocale().toString(bytesPerSecond / 1e6, 'f', 1));
    return tr("%1 kB/s").arg(QLocale().toString(bytesPerSecond / 1e3, 'f', 0));
}

QString DownloadListModel::etaText(int seconds)
{
    if (seconds < 0)
        return {};
    if (seconds < 60)
        return tr("less than a minute left");
    if (seconds < 3600)
        return tr("about %n min left", nullptr, (seconds + 30) / 60);
    return tr("about %n h left", nullptr, (seconds + 1800) / 3600);
}

namespace {

QString stateText(DownloadState state)
{
    switch (state) {
    case DownloadState::Queued:
        return DownloadListModel::tr("Waiting");
    case DownloadState::Downloading:
        return DownloadListModel::tr("Downloading");
    case DownloadState::Paused:
        return DownloadListModel::tr("Paused");
    case DownloadState::Verifying:
        return DownloadListModel::tr("Checking");
    case DownloadState::Completed:
        return DownloadListModel::tr("Installed");
    case DownloadState::Failed:
        return DownloadListModel::tr("Failed");
    case DownloadState::Cancelled:
        return DownloadListModel::tr("Cancelled");
    }
    return {};
}

} // namespace

QVariant DownloadListModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= m_rows.size())
        return {};
    const DownloadItem& item = m_rows.at(index.row());
    const Live live = m_live.value(item.id);
    const qint64 total = item.expectedSize;
    switch (role) {
    case Qt::DisplayRole:
    case FileNameRole:
        return QFileInfo(item.file.isEmpty() ? item.destination : item.file).fileName();
    case IdRole:
        return item.id;
    case RepoRole:
        return item.repo;
    case StateRole:
        return downloadStateName(item.state);
    case StateTextRole:
        return stateText(item.state);
    case BytesDoneRole:
        return item.bytesDone;
    case BytesTotalRole:
        return total;
    case ProgressRole:
        if (item.state == DownloadState::Completed)
            return 1.0;
        return total > 0 ? std::clamp(double(item.bytesDone) / double(total), 0.0, 1.0) : -1.0;
    case SizeTextRole:
        if (item.state == DownloadState::Completed || total <= 0)
            return formatSize(quint64(std::max<qint64>(total > 0 ? total : item.bytesDone, 0)));
        return tr("%1 of %2").arg(formatSize(quint64(item.bytesDone)), formatSize(quint64(total)));
    case SpeedTextRole:
        return item.state == DownloadState::Downloading ? speedText(live.bytesPerSecond) : QString();
    case EtaTextRole:
        return item.state == DownloadState::Downloading ? etaText(live.etaSeconds) : QString();
    case ErrorTextRole:
        return item.errorText;
    case VerificationTextRole:
        return item.state == DownloadState::Completed ? DownloadManager::verificationText(item.verification) : QString();
    case DestinationRole:
        return item.destination;
    case CanPauseRole:
        return item.state == DownloadState::Downloading || item.state == DownloadState::Queued;
    case CanResumeRole:
        return item.state == DownloadState::Paused;
    case CanCancelRole:
        return item.state == DownloadState::Downloading || item.state == DownloadState::Queued
            || item.state == DownloadState::Paused;
    case CanRetryRole:
        return item.state == DownloadState::Failed || item.state == DownloadState::Cancelled;
    case CanRemoveRole:
        return !item.isActive() && item.state != DownloadState::Queued;
    default:
        return {};
    }
}

QHash<int, QByteArray> DownloadListModel::roleNames() const
{
    return { { IdRole, "downloadId" }, { FileNameRole, "fileName" }, { RepoRole, "repo" }, { StateRole, "state" },
        { StateTextRole, "stateText" }, { BytesDoneRole, "bytesDone" }, { BytesTotalRole, "bytesTotal" },
        { ProgressRole, "progress" }, { SizeTextRole, "sizeText" }, { SpeedTextRole, "speedText" },
        { EtaTextRole, "etaText" }, { ErrorTextRole, "errorText" }, { VerificationTextRole, "verificationText" },
        { DestinationRole, "destination" }, { CanPauseRole, "canPause" }, { CanResumeRole, "canResume" },
        { CanCancelRole, "canCancel" }, { CanRetryRole, "canRetry" }, { CanRemoveRole, "canRemove" } };
}

bool DownloadListModel::pause(qint64 id)
{
    return m_manager && m_manager->pause(id);
}

bool DownloadListModel::resume(qint64 id)
{
    return m_manager && m_manager->resume(id);
}

bool DownloadListModel::cancel(qint64 id)
{
    return m_manager && m_manager->cancel(id);
}

bool DownloadListModel::retry(qint64 id)
{
    return m_manager && m_manager->retry(id);
}

bool DownloadListModel::remove(qint64 id)
{
    return m_manager && m_manager->clearFromList(id);
}

void DownloadListModel::clearFinished()
{
    if (!m_manager)
        return;
    QList<qint64> finished;
    for (const DownloadItem& item : std::as_const(m_rows)) {
        if (item.state == DownloadState::Completed || item.state == DownloadState::Failed
            || item.state == DownloadState::Cancelled)
            finished.append(item.id);
    }
    for (qint64 id : finished)
        m_manager->clearFromList(id);
}

void DownloadListModel::onAdded(qint64 id)
{
    const auto item = m_manager ? m_manager->item(id) : std::nullopt;
    if (!item || item->cleared || rowOf(id) >= 0)
        return;
    beginInsertRows({}, int(m_rows.size()), int(m_rows.size()));
    m_rows.append(*item);
    endInsertRows();
    Q_EMIT countChanged();
}

void DownloadListModel::onChanged(qint64 id)
{
    const int row = rowOf(id);
    const auto item = m_manager ? m_manager->item(id) : std::nullopt;
    if (row < 0 || !item) {
        if (item)
            onAdded(id);
        return;
    }
    if (item->cleared) {
        onRemoved(id);
        return;
    }
    m_rows[row] = *item;
    if (item->state != DownloadState::Downloading)
        m_live.remove(id);
    Q_EMIT dataChanged(index(row), index(row));
    Q_EMIT countChanged(); // the active count may have changed
}

void DownloadListModel::onRemoved(qint64 id)
{
    const int row = rowOf(id);
    if (row < 0)
        return;
    beginRemoveRows({}, row, row);
    m_rows.removeAt(row);
    endRemoveRows();
    m_live.remove(id);
    Q_EMIT countChanged();
}

void DownloadListModel::onProgress(qint64 id, qint64 bytesDone, qint64 bytesTotal, double bytesPerSecond, int etaSeconds)
{
    const int row = rowOf(id);
    if (row < 0)
        return;
    DownloadItem& item = m_rows[row];
    item.bytesDone = bytesDone;
    if (bytesTotal >= 0)
        item.expectedSize = bytesTotal;
    m_live.insert(id, { bytesPerSecond, etaSeconds });
    Q_EMIT dataChanged(index(row), index(row),
        { BytesDoneRole, BytesTotalRole, ProgressRole, SizeTextRole, SpeedTextRole, EtaTextRole });
}

} // namespace hearth::models
