// SPDX-License-Identifier: MIT
#include "sparse/vram_budget.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>

namespace hearth::sparse {

std::uint64_t autoVramBudget(std::uint64_t freeVramBytes)
{
    return freeVramBytes > kAutoBudgetMargin ? freeVramBytes - kAutoBudgetMargin : 0;
}

Result<std::uint64_t> gibToBytes(double gib)
{
    constexpr double kMaxGib = 1024.0 * 1024.0; // 1 PiB: far above any GPU, far below overflow
    if (!std::isfinite(gib) || gib < 0 || gib > kMaxGib) {
        return Status(ErrorCode::InvalidArgument, "a VRAM budget must be between 0 and 1048576 GiB");
    }
    return static_cast<std::uint64_t>(std::floor(gib * double(std::uint64_t(1) << 30)));
}

Result<std::uint64_t> parseVramBudget(std::string_view text, std::uint64_t freeVramBytes)
{
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
        text.remove_prefix(1);
    }
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
        text.remove_suffix(1);
    }
    std::string lower(text);
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (lower.empty() || lower == "auto") {
        return autoVramBudget(freeVramBytes);
    }
    double gib = 0;
    const auto [ptr, ec] = std::from_chars(lower.data(), lower.data() + lower.size(), gib, std::chars_format::fixed);
    if (ec != std::errc() || ptr != lower.data() + lower.size()) {
        return Status(ErrorCode::InvalidArgument, "VRAM budget '" + std::string(text) + "' is not a number of GiB or 'auto'");
    }
    return gibToBytes(gib);
}

} // namespace hearth::sparse
