// SPDX-License-Identifier: MIT
#include "filehasher.h"

#include <QCoreApplication>
#include <QFile>
#include <QThread>

namespace hearth {

FileHasher::FileHasher(QObject* parent)
    : QObject(parent)
{
}

FileHasher::~FileHasher()
{
    if (m_thread) {
        m_stop = true;
        m_thread->wait();
        delete m_thread;
    }
}

bool FileHasher::start(const QString& path, qint64 length)
{
    if (m_thread)
        return false;
    m_stop = false;
    m_ok = false;
    m_error.clear();
    m_hash = std::make_unique<QCryptographicHash>(QCryptographicHash::Sha256);
    // The worker touches only m_hash, m_ok and m_error, and only until it finishes; this thread
    // reads them after QThread::finished, which orders the accesses.
    m_thread = QThread::create([this, path, length] {
        m_ok = hashPrefix(path, length, *m_hash, &m_stop, &m_error);
    });
    connect(m_thread, &QThread::finished, this, &FileHasher::onThreadFinished);
    m_thread->start(QThread::LowPriority);
    return true;
}

void FileHasher::cancel()
{
    m_stop = true;
}

bool FileHasher::isRunning() const
{
    return m_thread != nullptr;
}

std::unique_ptr<QCryptographicHash> FileHasher::takeHash()
{
    if (m_thread || !m_ok)
        return nullptr;
    m_ok = false;
    return std::move(m_hash);
}

void FileHasher::onThreadFinished()
{
    m_thread->wait();
    delete m_thread;
    m_thread = nullptr;
    const bool ok = m_ok && !m_stop;
    if (!ok)
        m_hash.reset();
    m_ok = ok;
    Q_EMIT finished(ok, m_error);
}

bool FileHasher::hashPrefix(const QString& path, qint64 length, QCryptographicHash& hash,
    const std::atomic_bool* stop, QString* error)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        if (error) {
            *error = QCoreApplication::translate("hearth::FileHasher", "Cannot read %1: %2")
                         .arg(path, file.errorString());
        }
        return false;
    }
    constexpr qint64 kBlock = 1 << 20;
    QByteArray buffer(kBlock, Qt::Uninitialized);
    qint64 left = length;
    while (left > 0) {
        if (stop && stop->load())
            return false;
        const qint64 got = file.read(buffer.data(), std::min(left, kBlock));
        if (got <= 0) {
            if (error) {
                *error = QCoreApplication::translate("hearth::FileHasher", "Cannot read %1: %2")
                             .arg(path, file.errorString());
            }
            return false;
        }
        hash.addData(QByteArrayView(buffer.constData(), got));
        left -= got;
    }
    return true;
}

} // namespace hearth
