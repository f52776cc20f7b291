// SPDX-License-Identifier: MIT
#pragma once

// The machine's sustainable memory read bandwidth: the yardstick for decode speed, which
// streams every weight once per token.

#include <cstddef>

namespace hearth::cpu {

class ThreadPool;

// Streams a buffer much larger than the last-level cache with all of @p pool's threads and
// returns the best of a few passes in GB/s (1e9 bytes), or 0 when the buffer cannot be
// allocated. Takes about a second with the default 1 GiB.
[[nodiscard]] double measureMemoryBandwidthGBs(ThreadPool& pool, std::size_t bufferBytes = std::size_t(1) << 30,
                                               int passes = 5);

} // namespace hearth::cpu
