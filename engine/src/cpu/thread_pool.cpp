// SPDX-License-Identifier: MIT
#include "cpu/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>
#endif

namespace hearth::cpu {

namespace {

inline void cpuRelax()
{
#if defined(__x86_64__) || defined(_M_X64)
    _mm_pause();
#else
    std::this_thread::yield();
#endif
}

// How long an idle worker polls for the next parallel section before sleeping. A decoded token
// runs ~10 sections per layer separated by a few microseconds of single-threaded work, so
// polling avoids a futex wake-up per section; after a pause this long the model is not
// decoding and the worker should give its core back.
constexpr auto kSpinTime = std::chrono::microseconds(200);

} // namespace

struct ThreadPool::Impl {
    using Task = std::function<void(int, int)>;

    int threads = 1;
    bool spinning = true; // off when there are more threads than CPUs: spinning would then
                          // steal the time slice of the very thread being waited for
    std::vector<std::thread> workers;

    // Each run() bumps the generation; workers run the task once per generation they see.
    alignas(64) std::atomic<std::uint64_t> generation{0};
    alignas(64) std::atomic<int> pending{0};
    alignas(64) std::atomic<int> sleepers{0};
    const Task* task = nullptr;
    bool stopping = false; // written before the final generation bump

    std::mutex mutex;
    std::condition_variable wake;

    void workerLoop(int index)
    {
        std::uint64_t seen = 0;
        for (;;) {
            const std::uint64_t next = waitForWork(seen);
            seen = next;
            if (stopping) {
                return;
            }
            (*task)(index, threads);
            pending.fetch_sub(1, std::memory_order_acq_rel);
        }
    }

    std::uint64_t waitForWork(std::uint64_t seen)
    {
        const auto start = std::chrono::steady_clock::now();
        for (unsigned spin = 1; spinning; ++spin) {
            const std::uint64_t g = generation.load(std::memory_order_acquire);
            if (g != seen) {
                return g;
            }
            cpuRelax();
            if ((spin & 63u) == 0) {
                // Lets a descheduled peer (or another process) run on a busy machine.
                std::this_thread::yield();
                if (std::chrono::steady_clock::now() - start > kSpinTime) {
                    break;
                }
            }
        }
        std::unique_lock lock(mutex);
        // seq_cst pairs with run(): either we see the new generation here or run() sees us.
        sleepers.fetch_add(1, std::memory_order_seq_cst);
        wake.wait(lock, [&] { return generation.load(std::memory_order_seq_cst) != seen; });
        sleepers.fetch_sub(1, std::memory_order_relaxed);
        return generation.load(std::memory_order_acquire);
    }

    void publish()
    {
        generation.fetch_add(1, std::memory_order_seq_cst);
        if (sleepers.load(std::memory_order_seq_cst) > 0) {
            // Taking the mutex orders us after any worker that is between its check and wait().
            { std::lock_guard lock(mutex); }
            wake.notify_all();
        }
    }
};

ThreadPool::ThreadPool(int threads)
    : d(std::make_unique<Impl>())
{
    d->threads = threads > 0 ? threads : physicalCoreCount();
    d->threads = std::clamp(d->threads, 1, 1024);
    d->spinning = static_cast<unsigned>(d->threads) <= std::max(1u, std::thread::hardware_concurrency());
    d->workers.reserve(static_cast<std::size_t>(d->threads - 1));
    for (int i = 1; i < d->threads; ++i) {
        d->workers.emplace_back([impl = d.get(), i] { impl->workerLoop(i); });
    }
}

ThreadPool::~ThreadPool()
{
    d->stopping = true;
    d->publish();
    for (std::thread& t : d->workers) {
        t.join();
    }
}

int ThreadPool::size() const
{
    return d->threads;
}

void ThreadPool::run(const std::function<void(int threadIndex, int threadCount)>& task)
{
    if (d->threads == 1) {
        task(0, 1);
        return;
    }
    d->task = &task;
    d->pending.store(d->threads - 1, std::memory_order_relaxed);
    d->publish();
    task(0, d->threads);
    for (unsigned spin = 1; d->pending.load(std::memory_order_acquire) != 0; ++spin) {
        // A worker may have been descheduled on a busy machine; give it the core back then.
        if (d->spinning && (spin & 63u) != 0) {
            cpuRelax();
        } else {
            std::this_thread::yield();
        }
    }
}

void ThreadPool::parallelFor(std::int64_t n,
                             const std::function<void(std::int64_t begin, std::int64_t end, int threadIndex)>& body)
{
    if (n <= 0) {
        return;
    }
    const int threads = static_cast<int>(std::min<std::int64_t>(d->threads, n));
    if (threads == 1) {
        body(0, n, 0);
        return;
    }
    run([&](int index, int count) {
        (void)count;
        if (index >= threads) {
            return;
        }
        const std::int64_t begin = n * index / threads;
        const std::int64_t end = n * (index + 1) / threads;
        if (begin < end) {
            body(begin, end, index);
        }
    });
}

int ThreadPool::physicalCoreCount()
{
    const int logical = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
#if defined(__linux__)
    // Distinct (package, core) pairs; SMT siblings share one. Works where /sys is mounted.
    std::set<std::pair<int, int>> cores;
    for (int cpu = 0; cpu < 4096; ++cpu) {
        const std::string base = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/";
        std::ifstream coreFile(base + "core_id");
        if (!coreFile) {
            if (cpu >= logical) {
                break;
            }
            continue; // offline CPUs have no topology folder
        }
        int core = -1;
        int package = 0;
        coreFile >> core;
        std::ifstream packageFile(base + "physical_package_id");
        packageFile >> package;
        if (core >= 0) {
            cores.emplace(package, core);
        }
    }
    if (!cores.empty()) {
        return static_cast<int>(std::min<std::size_t>(cores.size(), static_cast<std::size_t>(logical)));
    }
    // Older or restricted systems: /proc/cpuinfo lists "physical id" and "core id" per CPU.
    std::ifstream cpuinfo("/proc/cpuinfo");
    std::string line;
    int package = 0;
    while (std::getline(cpuinfo, line)) {
        const auto colon = line.find(':');
        if (colon == std::string::npos) {
            continue;
        }
        const std::string key = line.substr(0, line.find_last_not_of(" \t", colon - 1) + 1);
        const int value = std::atoi(line.c_str() + colon + 1);
        if (key == "physical id") {
            package = value;
        } else if (key == "core id") {
            cores.emplace(package, value);
        }
    }
    if (!cores.empty()) {
        return static_cast<int>(std::min<std::size_t>(cores.size(), static_cast<std::size_t>(logical)));
    }
#endif
    return logical;
}

} // namespace hearth::cpu
