// SPDX-License-Identifier: MIT
#include "device/memory_budget.h"

#include "device/byte_format.h"

#include <algorithm>
#include <cstdint>

namespace hearth::device {

MemoryBudget::MemoryBudget(std::uint64_t budgetBytes, std::uint64_t granularity)
    : m_budget(budgetBytes)
    , m_granularity(std::max<std::uint64_t>(granularity, 1))
{
}

std::uint64_t MemoryBudget::charge(std::uint64_t bytes) const
{
    const std::uint64_t units = bytes == 0 ? 1 : (bytes - 1) / m_granularity + 1;
    return units * m_granularity;
}

Result<std::uint64_t> MemoryBudget::reserve(std::uint64_t bytes, const char* label)
{
    // Requests near 2^64 would overflow the rounding; nothing that large can fit anyway.
    if (bytes > m_budget)
        return Status(ErrorCode::OutOfMemory, std::string("device budget exceeded allocating ") + (label ? label : "a buffer")
                                                  + ": " + formatBytes(bytes) + " requested, budget " + formatBytes(m_budget));
    const std::uint64_t charged = charge(bytes);
    std::lock_guard lock(m_mutex);
    if (charged > m_budget - m_used)
        return Status(ErrorCode::OutOfMemory, std::string("device budget exceeded allocating ") + (label ? label : "a buffer")
                                                  + ": " + formatBytes(charged) + " needed, " + formatBytes(m_budget - m_used)
                                                  + " of " + formatBytes(m_budget) + " left");
    m_used += charged;
    m_peak = std::max(m_peak, m_used);
    return charged;
}

void MemoryBudget::release(std::uint64_t charged)
{
    std::lock_guard lock(m_mutex);
    m_used -= std::min(charged, m_used);
}

std::uint64_t MemoryBudget::used() const
{
    std::lock_guard lock(m_mutex);
    return m_used;
}

std::uint64_t MemoryBudget::peak() const
{
    std::lock_guard lock(m_mutex);
    return m_peak;
}

} // namespace hearth::device
