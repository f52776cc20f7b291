// SPDX-License-Identifier: MIT
// K-quant super-blocks unpacked into unsigned 8-bit levels, 32 weights per vector, for the row
// dot products of cpu/ and the neuron kernels of sparse/ (which add rows into floats). Included
// only by translation units compiled with AVX2 or AVX-512 flags; like the kernel bodies that use
// it, everything here has internal linkage.

#pragma once

#include "cpu/quant_blocks.h"

#include <immintrin.h>

#include <cstdint>
#include <cstring>

namespace hearth::cpu {
namespace {

// The scales and mins of a Q4_K/Q5_K super-block (the packing of block_dot.cpp's scaleMinK4)
// as 16 int16: scales 0-7, then mins 0-7. Unpacked in 32-bit words: byte-wise unpacking
// through memory stalls on store forwarding.
inline __m256i scalesMinsK4(const std::uint8_t* packed)
{
    std::uint32_t u[3];
    std::memcpy(u, packed, sizeof u);
    constexpr std::uint32_t kLow6 = 0x3f3f3f3fu;
    constexpr std::uint32_t kLow4 = 0x0f0f0f0fu;
    constexpr std::uint32_t kLow2 = 0x03030303u;
    const std::uint32_t scalesLow = u[0] & kLow6;
    const std::uint32_t minsLow = u[1] & kLow6;
    const std::uint32_t scalesHigh = (u[2] & kLow4) | (((u[0] >> 6) & kLow2) << 4);
    const std::uint32_t minsHigh = ((u[2] >> 4) & kLow4) | (((u[1] >> 6) & kLow2) << 4);
    return _mm256_cvtepu8_epi16(_mm_set_epi32(int(minsHigh), int(minsLow), int(scalesHigh), int(scalesLow)));
}

// The unsigned levels of 64 weights (chunk C) of a Q4_K/Q5_K super-block: the low nibbles
// (weights 64C .. 64C + 31) and the high ones, with Q5_K's fifth bits from @p high (its qh).
template <bool FifthBit, typename Block>
inline void levelsQ45K(const Block& w, __m256i high, int c, __m256i& lo, __m256i& hi)
{
    const __m256i lowNibbles = _mm256_set1_epi8(0x0f);
    const __m256i q = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w.qs + 32 * c));
    lo = _mm256_and_si256(q, lowNibbles);
    hi = _mm256_and_si256(_mm256_srli_epi16(q, 4), lowNibbles);
    if constexpr (FifthBit) {
        const __m256i bit = _mm256_set1_epi8(1);
        lo = _mm256_or_si256(lo, _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(high, 2 * c), bit), 4));
        hi = _mm256_or_si256(hi, _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(high, 2 * c + 1), bit), 4));
    }
}

// The four 32-weight runs of unsigned six-bit levels of one Q6_K half (128 weights).
inline void levelsQ6K(const BlockQ6_K& w, int h, __m256i q[4])
{
    const __m256i lowNibbles = _mm256_set1_epi8(0x0f);
    const __m256i twoBits = _mm256_set1_epi8(3);
    const std::uint8_t* ql = w.ql + 64 * h;
    const __m256i qh = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w.qh + 32 * h));
    const __m256i l0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(ql));
    const __m256i l1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(ql + 32));
    q[0] = _mm256_or_si256(_mm256_and_si256(l0, lowNibbles), _mm256_slli_epi16(_mm256_and_si256(qh, twoBits), 4));
    q[1] = _mm256_or_si256(_mm256_and_si256(l1, lowNibbles),
                           _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(qh, 2), twoBits), 4));
    q[2] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l0, 4), lowNibbles),
                           _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(qh, 4), twoBits), 4));
    q[3] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l1, 4), lowNibbles),
                           _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(qh, 6), twoBits), 4));
}

} // namespace
} // namespace hearth::cpu
