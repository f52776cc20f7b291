// SPDX-License-Identifier: MIT
#pragma once

// Byte accounting of one device's memory against Hearth's budget. Every back end charges its
// allocations here, so "used" means the same thing on the emulated device and on a GPU, and the
// placement planner's padding model (allocations rounded up to a granularity) holds exactly.

#include <hearth/status.h>

#include <cstdint>
#include <mutex>

namespace hearth::device {

class MemoryBudget {
public:
    MemoryBudget(std::uint64_t budgetBytes, std::uint64_t granularity);

    // Bytes an allocation of @p bytes is charged (rounded up; 0 bytes still costs one unit, as
    // cudaMalloc hands out a distinct address for it).
    [[nodiscard]] std::uint64_t charge(std::uint64_t bytes) const;

    // Reserves charge(bytes) or fails with ErrorCode::OutOfMemory naming @p label.
    [[nodiscard]] Result<std::uint64_t> reserve(std::uint64_t bytes, const char* label);
    void release(std::uint64_t charged);

    [[nodiscard]] std::uint64_t used() const;
    [[nodiscard]] std::uint64_t peak() const;
    [[nodiscard]] std::uint64_t budget() const { return m_budget; }
    [[nodiscard]] std::uint64_t granularity() const { return m_granularity; }

private:
    const std::uint64_t m_budget;
    const std::uint64_t m_granularity;
    mutable std::mutex m_mutex;
    std::uint64_t m_used = 0;
    std::uint64_t m_peak = 0;
};

} // namespace hearth::device
