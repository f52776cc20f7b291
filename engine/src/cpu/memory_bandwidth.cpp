// SPDX-License-Identifier: MIT
#include "cpu/memory_bandwidth.h"

#include "cpu/thread_pool.h"
#include "cpu/weight_pack.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace hearth::cpu {

namespace {

// Sums 64-bit words with four independent chains: enough loads in flight to saturate the memory
// system, and the result is used so the compiler cannot drop the reads. Plain C++ that the
// compiler vectorizes for the baseline target; wider loads do not raise DRAM throughput.
std::uint64_t readRange(const std::uint64_t* p, std::size_t n)
{
    std::uint64_t a = 0;
    std::uint64_t b = 0;
    std::uint64_t c = 0;
    std::uint64_t d = 0;
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        a += p[i] ^ p[i + 4];
        b += p[i + 1] ^ p[i + 5];
        c += p[i + 2] ^ p[i + 6];
        d += p[i + 3] ^ p[i + 7];
    }
    for (; i < n; ++i) {
        a += p[i];
    }
    return a + b + c + d;
}

} // namespace

BandwidthProbe::BandwidthProbe(ThreadPool& pool, std::size_t bufferBytes)
    : m_pool(pool)
{
    const std::size_t words = bufferBytes / sizeof(std::uint64_t);
    if (words == 0) {
        return;
    }
    const std::size_t bytes = words * sizeof(std::uint64_t);
#if defined(__linux__)
    constexpr std::size_t kHugePage = std::size_t(2) << 20;
    m_mappingBytes = bytes + kHugePage;
    void* mapping = mmap(nullptr, m_mappingBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapping == MAP_FAILED) {
        return;
    }
    m_mapping = mapping;
    const auto aligned = (reinterpret_cast<std::uintptr_t>(mapping) + kHugePage - 1) / kHugePage * kHugePage;
    m_buffer = reinterpret_cast<std::uint64_t*>(aligned);
    if (PackedWeightStore::hugePagesEnabled()) {
        (void)madvise(m_buffer, bytes, MADV_HUGEPAGE);
    }
#else
    m_mappingBytes = bytes;
    m_mapping = new (std::nothrow) std::uint64_t[words];
    if (!m_mapping) {
        return;
    }
    m_buffer = static_cast<std::uint64_t*>(m_mapping);
#endif
    m_words = words;
    std::uint64_t* buffer = m_buffer;
    m_pool.parallelFor(static_cast<std::int64_t>(words), [buffer](std::int64_t begin, std::int64_t end, int) {
        for (std::int64_t i = begin; i < end; ++i) {
            buffer[static_cast<std::size_t>(i)] = static_cast<std::uint64_t>(i) * 0x9e3779b97f4a7c15ull;
        }
    });
}

BandwidthProbe::~BandwidthProbe()
{
    if (!m_mapping) {
        return;
    }
#if defined(__linux__)
    (void)munmap(m_mapping, m_mappingBytes);
#else
    delete[] static_cast<std::uint64_t*>(m_mapping);
#endif
}

bool BandwidthProbe::valid() const
{
    return m_words > 0;
}

std::size_t BandwidthProbe::bytes() const
{
    return m_words * sizeof(std::uint64_t);
}

double BandwidthProbe::measure()
{
    if (m_words == 0) {
        return 0.0;
    }
    const std::uint64_t* buffer = m_buffer;
    std::atomic<std::uint64_t> sink{0};
    const auto start = std::chrono::steady_clock::now();
    m_pool.parallelFor(static_cast<std::int64_t>(m_words), [&](std::int64_t begin, std::int64_t end, int) {
        sink.fetch_add(readRange(buffer + begin, static_cast<std::size_t>(end - begin)), std::memory_order_relaxed);
    });
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    m_sink += sink.load(std::memory_order_relaxed); // keeps the reads alive
    return seconds > 0.0 ? static_cast<double>(bytes()) / seconds / 1e9 : 0.0;
}

double measureMemoryBandwidthGBs(ThreadPool& pool, std::size_t bufferBytes, int passes)
{
    const std::size_t words = bufferBytes / sizeof(std::uint64_t);
    if (words == 0 || passes <= 0) {
        return 0.0;
    }
    std::unique_ptr<std::uint64_t[]> buffer(new (std::nothrow) std::uint64_t[words]);
    if (!buffer) {
        return 0.0;
    }
    // Each thread touches its own part first so pages are committed (and NUMA-local) before
    // timing starts.
    pool.parallelFor(static_cast<std::int64_t>(words), [&](std::int64_t begin, std::int64_t end, int) {
        for (std::int64_t i = begin; i < end; ++i) {
            buffer[static_cast<std::size_t>(i)] = static_cast<std::uint64_t>(i) * 0x9e3779b97f4a7c15ull;
        }
    });

    // Timed in windows of 1/8 of the buffer (still far larger than any LLC, and not cached
    // since it was last read a whole buffer ago): the best window filters out moments when
    // other processes held the cores.
    constexpr std::size_t kWindows = 8;
    const std::size_t windowWords = words / kWindows;
    std::atomic<std::uint64_t> sink{0};
    double best = 0.0;
    for (int pass = 0; pass < passes; ++pass) {
        for (std::size_t w = 0; w < kWindows && windowWords > 0; ++w) {
            const std::uint64_t* window = buffer.get() + w * windowWords;
            const auto start = std::chrono::steady_clock::now();
            pool.parallelFor(static_cast<std::int64_t>(windowWords), [&](std::int64_t begin, std::int64_t end, int) {
                const std::uint64_t s = readRange(window + begin, static_cast<std::size_t>(end - begin));
                sink.fetch_add(s, std::memory_order_relaxed);
            });
            const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            if (seconds > 0.0) {
                best = std::max(best, static_cast<double>(windowWords * sizeof(std::uint64_t)) / seconds / 1e9);
            }
        }
    }
    return sink.load() == 0xdeadbeefull ? best + 1e-12 : best; // keeps the sum alive
}

} // namespace hearth::cpu
