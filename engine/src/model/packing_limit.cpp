// SPDX-License-Identifier: MIT
#include "model/packing_limit.h"

#include "core/available_memory.h"

#include <cstdint>

namespace hearth::model {

std::uint64_t packingLimit(const LoadParams& params)
{
    if (params.memoryBudgetBytes > 0)
        return params.memoryBudgetBytes;
    const std::uint64_t available = availableMemoryBytes();
    if (available == 0)
        return SIZE_MAX;
    const std::uint64_t room = (std::uint64_t(1) << 30) + available / 8;
    return available > room ? available - room : 0;
}

} // namespace hearth::model
