// SPDX-License-Identifier: MIT
#pragma once

#include "engine_worker.h"

#include <QString>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>

namespace hearth::openai {

/// What the engine said about one API request, in order.
struct AnswerEvent
{
    enum class Kind {
        Started, ///< the prompt fits and is being evaluated
        Token, ///< text: the next piece of the answer
        TooLong, ///< number: the prompt's tokens, more than the context holds (a Failed follows)
        Finished, ///< stats
        Failed, ///< text: why
    };
    Kind kind = Kind::Failed;
    QString text;
    int number = 0;
    hearth::app::AnswerStats stats;
};

/// The events of one request, handed from the engine thread to the HTTP thread that answers
/// it. Thread-safe.
class PendingAnswer
{
public:
    void push(AnswerEvent event)
    {
        {
            const std::lock_guard lock(m_mutex);
            m_events.push_back(std::move(event));
        }
        m_ready.notify_one();
    }

    /// The next event, waiting at most @p timeout for it; false when none came.
    bool next(AnswerEvent& event, std::chrono::milliseconds timeout)
    {
        std::unique_lock lock(m_mutex);
        if (!m_ready.wait_for(lock, timeout, [this] { return !m_events.empty(); }))
            return false;
        event = std::move(m_events.front());
        m_events.pop_front();
        return true;
    }

private:
    std::mutex m_mutex;
    std::condition_variable m_ready;
    std::deque<AnswerEvent> m_events;
};

} // namespace hearth::openai
