// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// Checked 64-bit arithmetic: a template's numbers must not overflow into undefined behaviour.
/// Each returns true on overflow and leaves @p r unchanged; otherwise @p r holds the result.

#include <cstdint>
#include <limits>

namespace hearth::jinja {

inline bool addOverflows(std::int64_t a, std::int64_t b, std::int64_t& r)
{
    if ((b > 0 && a > std::numeric_limits<std::int64_t>::max() - b) || (b < 0 && a < std::numeric_limits<std::int64_t>::min() - b))
        return true;
    r = a + b;
    return false;
}

inline bool subOverflows(std::int64_t a, std::int64_t b, std::int64_t& r)
{
    if ((b < 0 && a > std::numeric_limits<std::int64_t>::max() + b) || (b > 0 && a < std::numeric_limits<std::int64_t>::min() + b))
        return true;
    r = a - b;
    return false;
}

inline bool mulOverflows(std::int64_t a, std::int64_t b, std::int64_t& r)
{
    if (a == 0 || b == 0) {
        r = 0;
        return false;
    }
    const std::int64_t max = std::numeric_limits<std::int64_t>::max();
    const std::int64_t min = std::numeric_limits<std::int64_t>::min();
    if ((a == -1 && b == min) || (b == -1 && a == min))
        return true;
    if (a > 0 ? (b > 0 ? a > max / b : b < min / a) : (b > 0 ? a < min / b : a < max / b))
        return true;
    r = a * b;
    return false;
}

} // namespace hearth::jinja
