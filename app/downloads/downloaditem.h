// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// One entry of the download queue, as stored in the database and shown to the user.

#include <QDateTime>
#include <QMetaType>
#include <QString>
#include <QUrl>

#include <optional>

namespace hearth {

enum class DownloadState {
    Queued,      ///< waiting for a free slot
    Downloading, ///< bytes are arriving (or a retry is waiting for its back-off)
    Paused,      ///< stopped by the user; the .part file is kept
    Verifying,   ///< all bytes are there; size and SHA-256 are being checked
    Completed,   ///< verified and renamed to its final name: the only state that is "installed"
    Failed,      ///< gave up; errorText says why
    Cancelled,   ///< stopped by the user; the .part file is deleted
};

/// Stable names used in the database (never translated, never renamed).
[[nodiscard]] QString downloadStateName(DownloadState state);
[[nodiscard]] std::optional<DownloadState> downloadStateFromName(const QString& name);

/// How a completed file was checked.
enum class Verification {
    None,   ///< not verified (yet)
    Sha256, ///< the SHA-256 from the repository's LFS metadata matched
    Size,   ///< no hash is published for this file: only its size was compared
};

struct DownloadItem {
    qint64 id = 0;
    QString repo;            ///< "owner/name"; empty for direct URLs and imports
    QString file;            ///< path inside the repository
    QString revision;        ///< branch, tag or commit; "main" by default
    QUrl url;                ///< where the bytes come from
    QString destination;     ///< final path; bytes go to destination + ".part" until verified
    qint64 expectedSize = -1;   ///< -1: unknown
    QByteArray expectedSha256;  ///< lower-case hex; empty: unknown (size check only)
    qint64 bytesDone = 0;
    DownloadState state = DownloadState::Queued;
    QString errorText;       ///< translated, for people
    int retries = 0;         ///< automatic retries since the last progress or user action
    Verification verification = Verification::None;
    QDateTime createdAt;
    QDateTime updatedAt;
    /// Taken off the Downloads list by the user (DownloadManager::clearFromList): a completed
    /// file stays installed, since the Installed list reads the completed downloads.
    bool cleared = false;

    [[nodiscard]] QString partPath() const { return destination + QStringLiteral(".part"); }
    [[nodiscard]] bool isActive() const
    {
        return state == DownloadState::Downloading || state == DownloadState::Verifying;
    }
};

} // namespace hearth

Q_DECLARE_METATYPE(hearth::DownloadItem)
