// SPDX-License-Identifier: MIT
#pragma once

#include "engine_worker.h"

#include <QThread>

namespace hearth::app {

/// The engine's thread and the EngineWorker on it, for everything that runs the engine: the
/// window's ModelSession, the API server, --self-test. Calls reach the worker as queued
/// functor calls (post()), so they run on the engine thread in the order they were made.
///
///     EngineThread engine;
///     QObject::connect(engine.worker(), &EngineWorker::modelLoaded, ...);
///     engine.post([path](EngineWorker& worker) { worker.loadModel(path); });
class EngineThread
{
public:
    EngineThread()
        : m_worker(new EngineWorker)
    {
        m_thread.setObjectName(QStringLiteral("hearth-engine"));
        m_worker->moveToThread(&m_thread);
        QObject::connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
        m_thread.start();
    }

    /// Ends the running answer and load, then waits for the thread.
    ~EngineThread()
    {
        m_worker->stopAll();
        m_worker->cancelLoad();
        m_thread.quit();
        m_thread.wait();
    }

    EngineThread(const EngineThread&) = delete;
    EngineThread& operator=(const EngineThread&) = delete;

    /// For connections and the thread-safe calls (stop(), cancelLoad()) only: it lives on the
    /// engine thread.
    [[nodiscard]] EngineWorker* worker() const { return m_worker; }

    /// Runs @p call with the worker on the engine thread, after the calls posted before it.
    template<typename Call>
    void post(Call&& call) const
    {
        EngineWorker* worker = m_worker;
        QMetaObject::invokeMethod(worker, [worker, call = std::forward<Call>(call)]() mutable { call(*worker); },
            Qt::QueuedConnection);
    }

private:
    QThread m_thread;
    EngineWorker* m_worker; ///< lives on m_thread, deleted when it finishes
};

} // namespace hearth::app
