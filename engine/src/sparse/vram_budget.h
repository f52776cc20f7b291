// SPDX-License-Identifier: MIT
#pragma once

// The --vram-budget setting: GiB as a decimal number, or "auto" for the free VRAM less a margin
// for other programs' allocations (PowerInfer's default, kept so its users' habits carry over).

#include <hearth/status.h>

#include <cstdint>
#include <string_view>

namespace hearth::sparse {

constexpr std::uint64_t kAutoBudgetMargin = std::uint64_t(256) << 20;

// Free VRAM minus 256 MiB, or 0 when less is free.
[[nodiscard]] std::uint64_t autoVramBudget(std::uint64_t freeVramBytes);

// GiB (a finite number >= 0, at most 1 PiB) to bytes, rounded down.
[[nodiscard]] Result<std::uint64_t> gibToBytes(double gib);

// "6", "6.5", " 12 " -> GiB; "auto" (any case) or an empty string -> autoVramBudget(freeVramBytes).
[[nodiscard]] Result<std::uint64_t> parseVramBudget(std::string_view text, std::uint64_t freeVramBytes);

} // namespace hearth::sparse
