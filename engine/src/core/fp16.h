// SPDX-License-Identifier: MIT
#pragma once

// IEEE half <-> float conversion for scalar code (SIMD kernels use F16C).

#include <bit>
#include <cstdint>

namespace hearth {

inline float halfToFloat(std::uint16_t h)
{
    const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
    const std::uint32_t exponent = (h >> 10) & 0x1fu;
    std::uint32_t mantissa = h & 0x3ffu;
    std::uint32_t bits;
    if (exponent == 0) {
        if (mantissa == 0) {
            bits = sign;
        } else { // subnormal: normalise
            int e = -1;
            do {
                ++e;
                mantissa <<= 1;
            } while ((mantissa & 0x400u) == 0);
            bits = sign | static_cast<std::uint32_t>(127 - 15 - e) << 23 | (mantissa & 0x3ffu) << 13;
        }
    } else if (exponent == 31) {
        bits = sign | 0x7f800000u | mantissa << 13;
    } else {
        bits = sign | (exponent + (127 - 15)) << 23 | mantissa << 13;
    }
    return std::bit_cast<float>(bits);
}

// Round to nearest even, like F16C's _cvtss_sh(x, 0).
inline std::uint16_t floatToHalf(float f)
{
    const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
    const std::uint32_t sign = (x >> 16) & 0x8000u;
    const std::uint32_t absx = x & 0x7fffffffu;
    if (absx > 0x7f800000u) { // NaN
        return static_cast<std::uint16_t>(sign | 0x7e00u);
    }
    if (absx >= 0x47800000u) { // overflow to infinity
        return static_cast<std::uint16_t>(sign | 0x7c00u);
    }
    if (absx < 0x38800000u) { // subnormal or zero in half
        const float magnitude = std::bit_cast<float>(absx);
        // Adding 0.5 shifts the value so the FPU rounds the half's mantissa for us.
        const float shifted = magnitude + 0.5f;
        return static_cast<std::uint16_t>(sign | (std::bit_cast<std::uint32_t>(shifted) - 0x3f000000u));
    }
    const std::uint32_t mantissaOdd = (absx >> 13) & 1u;
    std::uint32_t rounded = absx + 0xfffu + mantissaOdd;
    rounded -= 0x38000000u; // rebias exponent 127 -> 15
    return static_cast<std::uint16_t>(sign | (rounded >> 13));
}

} // namespace hearth
