// SPDX-License-Identifier: MIT
#pragma once

// Saturating byte arithmetic: a hostile shape or setting must give "does not fit", never a
// wrapped-around small number that would make the planner place more than the GPU holds.

#include <cstdint>
#include <limits>

namespace hearth::sparse {

constexpr std::uint64_t kSaturated = std::numeric_limits<std::uint64_t>::max();

[[nodiscard]] constexpr std::uint64_t satAdd(std::uint64_t a, std::uint64_t b)
{
    return a > kSaturated - b ? kSaturated : a + b;
}

[[nodiscard]] constexpr std::uint64_t satMul(std::uint64_t a, std::uint64_t b)
{
    return (a != 0 && b > kSaturated / a) ? kSaturated : a * b;
}

// @p bytes rounded up to whole allocation granules, @p allocations of them each padded.
[[nodiscard]] constexpr std::uint64_t withPadding(std::uint64_t bytes, std::uint64_t allocations, std::uint64_t granule)
{
    return bytes == 0 ? 0 : satAdd(bytes, satMul(allocations, granule));
}

} // namespace hearth::sparse
