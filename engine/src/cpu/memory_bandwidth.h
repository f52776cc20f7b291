// SPDX-License-Identifier: MIT
#pragma once

// The machine's sustainable memory read bandwidth: the yardstick for decode speed, which
// streams every weight once per token.

#include <cstddef>
#include <cstdint>

namespace hearth::cpu {

class ThreadPool;

// A read-only streaming probe over a buffer much larger than the last-level cache, made once
// and measured as often as needed. Benchmarks interleave its passes with the work they judge
// (probe, decode, probe, decode, ...) so that the bandwidth a result is divided by was measured
// under the same conditions as the result, not in a quieter or busier moment of a shared machine.
class BandwidthProbe {
public:
    // Allocates @p bufferBytes and has each of @p pool's threads write its own share once, so
    // pages are committed (and NUMA-local) before anything is timed. The buffer is advised as
    // huge-page memory like the packed weights (cpu/weight_pack.h), so the probe and the decode
    // it is compared with read memory mapped the same way. The pool must outlive the probe.
    explicit BandwidthProbe(ThreadPool& pool, std::size_t bufferBytes = std::size_t(1) << 30);
    ~BandwidthProbe();
    BandwidthProbe(const BandwidthProbe&) = delete;
    BandwidthProbe& operator=(const BandwidthProbe&) = delete;

    // False when the buffer could not be allocated; measure() then returns 0.
    [[nodiscard]] bool valid() const;
    [[nodiscard]] std::size_t bytes() const;

    // One pass over the whole buffer, every pool thread reading a contiguous share with plain
    // loads: bytes read / wall time of the pass, in GB/s (1e9 bytes). Not a best-of: a pass
    // slowed by other processes counts, as it would for a decode running at that moment.
    [[nodiscard]] double measure();

private:
    ThreadPool& m_pool;
    std::uint64_t* m_buffer = nullptr; // inside m_mapping, 2 MiB aligned where possible
    void* m_mapping = nullptr;
    std::size_t m_mappingBytes = 0;
    std::size_t m_words = 0;
    std::uint64_t m_sink = 0;
};

// Streams a buffer much larger than the last-level cache with all of @p pool's threads and
// returns the best window of a few passes in GB/s (1e9 bytes), or 0 when the buffer cannot be
// allocated: an upper bound of what the machine can read. Takes about a second with the
// default 1 GiB.
[[nodiscard]] double measureMemoryBandwidthGBs(ThreadPool& pool, std::size_t bufferBytes = std::size_t(1) << 30,
                                               int passes = 5);

} // namespace hearth::cpu
