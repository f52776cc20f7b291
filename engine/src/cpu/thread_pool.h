// SPDX-License-Identifier: MIT
#pragma once

// A fixed set of worker threads for the forward pass. The calling thread takes part as
// thread 0, so ThreadPool(1) runs everything inline. Workers spin briefly before sleeping, so
// the many short parallel sections of one decoded token do not pay a futex wake-up each.

#include <cstdint>
#include <functional>
#include <memory>

namespace hearth::cpu {

class ThreadPool {
public:
    // @p threads <= 0 picks one thread per physical core.
    explicit ThreadPool(int threads);
    ~ThreadPool();
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    [[nodiscard]] int size() const;

    // Runs task(threadIndex, threadCount) on every thread and returns when all are done.
    // Not reentrant: a task must not call run() on the same pool.
    void run(const std::function<void(int threadIndex, int threadCount)>& task);

    // Splits [0, n) into contiguous chunks, one per thread: body(begin, end, threadIndex).
    void parallelFor(std::int64_t n, const std::function<void(std::int64_t begin, std::int64_t end, int threadIndex)>& body);

    static int physicalCoreCount();

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

} // namespace hearth::cpu
