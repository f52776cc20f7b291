// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// FileHasher: SHA-256 of the first bytes of a file, computed on a worker thread.
///
/// A resumed download must hash what is already in its .part file before new bytes can be added
/// to the same running hash; for a model of several GiB that takes seconds, so it never runs on
/// the GUI thread. The running hash is handed over with takeHash() and the transfer continues it.

#include <QCryptographicHash>
#include <QObject>
#include <QString>

#include <atomic>
#include <memory>

class QThread;

namespace hearth {

class FileHasher : public QObject
{
    Q_OBJECT

public:
    explicit FileHasher(QObject* parent = nullptr);
    /// Stops a running hash and waits for its thread (at most one read block).
    ~FileHasher() override;

    /// Hashes the first @p length bytes of @p path. finished() follows on this object's thread.
    /// Returns false when a hash is already running.
    bool start(const QString& path, qint64 length);
    /// Stops early; finished() still follows, with ok == false.
    void cancel();
    [[nodiscard]] bool isRunning() const;

    /// The hash state after finished(ok == true); null before, and after the first call.
    [[nodiscard]] std::unique_ptr<QCryptographicHash> takeHash();

    /// Synchronous variant for small files and worker threads. Returns false when the file
    /// cannot be read to @p length or @p stop becomes true.
    [[nodiscard]] static bool hashPrefix(const QString& path, qint64 length, QCryptographicHash& hash,
        const std::atomic_bool* stop = nullptr, QString* error = nullptr);

Q_SIGNALS:
    void finished(bool ok, const QString& errorText);

private:
    void onThreadFinished();

    QThread* m_thread = nullptr;
    std::atomic_bool m_stop{false};
    std::unique_ptr<QCryptographicHash> m_hash;
    bool m_ok = false;
    QString m_error;
};

} // namespace hearth
