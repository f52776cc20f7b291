// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// DownloadListModel: the DownloadManager's queue as a list for the Downloads section, with the
/// live progress, speed and ETA of each transfer and which actions apply to it. Rows follow the
/// manager's signals one at a time (a progress tick updates one row, never the whole list).

#include "downloadmanager.h"

#include <QAbstractListModel>
#include <QHash>
#include <QPointer>
#include <QtQmlIntegration>

namespace hearth::models {

class DownloadListModel : public QAbstractListModel
{
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("Owned by ModelManager")
    Q_PROPERTY(int count READ rowCount NOTIFY countChanged)
    /// Downloads that are queued, running or verifying.
    Q_PROPERTY(int activeCount READ activeCount NOTIFY countChanged)

public:
    /// Roles, from Qt::UserRole + 1; QML names in roleNames().
    enum Role {
        IdRole = Qt::UserRole + 1, ///< "downloadId"
        FileNameRole, ///< "fileName": the file's name without folders
        RepoRole, ///< "repo": "owner/name", empty for imports and direct links
        StateRole, ///< "state": downloadStateName(), stable for QML
        StateTextRole, ///< "stateText": translated
        BytesDoneRole, ///< "bytesDone"
        BytesTotalRole, ///< "bytesTotal": -1 when unknown
        ProgressRole, ///< "progress": 0..1, -1 when the size is unknown
        SizeTextRole, ///< "sizeText": "1.2 GB of 4.1 GB"
        SpeedTextRole, ///< "speedText": "12.3 MB/s" while downloading
        EtaTextRole, ///< "etaText": "about 3 min left"
        ErrorTextRole, ///< "errorText": translated, why it failed
        VerificationTextRole, ///< "verificationText": how a completed file was checked
        DestinationRole, ///< "destination": final path
        CanPauseRole, ///< "canPause"
        CanResumeRole, ///< "canResume"
        CanCancelRole, ///< "canCancel"
        CanRetryRole, ///< "canRetry"
        CanRemoveRole, ///< "canRemove"
    };
    Q_ENUM(Role)

    explicit DownloadListModel(DownloadManager* manager, QObject* parent = nullptr);

    [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] QVariant data(const QModelIndex& index, int role) const override;
    [[nodiscard]] QHash<int, QByteArray> roleNames() const override;
    [[nodiscard]] int activeCount() const;

    Q_INVOKABLE bool pause(qint64 id);
    Q_INVOKABLE bool resume(qint64 id);
    Q_INVOKABLE bool cancel(qint64 id);
    Q_INVOKABLE bool retry(qint64 id);
    /// Takes @p id off the list (DownloadManager::clearFromList: a completed model stays
    /// installed).
    Q_INVOKABLE bool remove(qint64 id);
    /// Takes every completed, failed and cancelled entry off the list (files stay on disk, and
    /// completed models stay installed).
    Q_INVOKABLE void clearFinished();

    /// Re-reads the manager's queue (after it was opened).
    void reload();

    /// "12.3 MB/s", "850 kB/s" (decimal units, as download speeds are usually given).
    [[nodiscard]] static QString speedText(double bytesPerSecond);
    /// "about 3 min left", "less than a minute left"; empty when unknown.
    [[nodiscard]] static QString etaText(int seconds);

Q_SIGNALS:
    void countChanged();

private:
    struct Live
    {
        double bytesPerSecond = 0;
        int etaSeconds = -1;
    };

    [[nodiscard]] int rowOf(qint64 id) const;
    void onAdded(qint64 id);
    void onChanged(qint64 id);
    void onRemoved(qint64 id);
    void onProgress(qint64 id, qint64 bytesDone, qint64 bytesTotal, double bytesPerSecond, int etaSeconds);

    QPointer<DownloadManager> m_manager;
    QList<DownloadItem> m_rows;
    QHash<qint64, Live> m_live;
};

} // namespace hearth::models
