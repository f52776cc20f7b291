// SPDX-License-Identifier: MIT
#pragma once

// The block layouts of the GGUF weight types beyond F32/F16/Q4_0/Q8_0 (those are in
// core/dtype.h), exactly as files store them: little-endian and packed. "d" fields are IEEE
// halves. K-quants and IQ4_XS group 256 weights in a super-block of 8 or 16 sub-blocks with
// their own 4-8 bit scales; the others are 32-weight blocks with one scale.
//
// The activations they are multiplied with are quantized the way ggml does it for each type,
// so Hearth's sums are llama.cpp's up to their order: ActBlockQ8 (Q8_0 with the block sum, as
// Q8_1 carries it) for the 32-weight types, ActBlockQ8K for the 256-weight ones.

#include <cstdint>
#include <cstring>

namespace hearth::cpu {

constexpr int QK_K = 256;    // weights per K-quant (and IQ4_XS) super-block
constexpr int QK4_1 = 32;
constexpr int QK5_0 = 32;
constexpr int QK5_1 = 32;
constexpr int QK4_NL = 32;

struct BlockQ4_1 {
    std::uint16_t d, m;         // value = q * d + m
    std::uint8_t qs[QK4_1 / 2]; // element j low nibble, j + 16 high nibble
};
static_assert(sizeof(BlockQ4_1) == 20);

struct BlockQ5_0 {
    std::uint16_t d;            // value = (q - 16) * d
    std::uint8_t qh[4];         // fifth bit of element j is bit j of this 32-bit word
    std::uint8_t qs[QK5_0 / 2];
};
static_assert(sizeof(BlockQ5_0) == 22);

struct BlockQ5_1 {
    std::uint16_t d, m;         // value = q * d + m
    std::uint8_t qh[4];
    std::uint8_t qs[QK5_1 / 2];
};
static_assert(sizeof(BlockQ5_1) == 24);

// 16 sub-blocks of 16: value = d * (scales[i] & 15) * q - dmin * (scales[i] >> 4), q in 0..3.
struct BlockQ2_K {
    std::uint8_t scales[QK_K / 16];
    std::uint8_t qs[QK_K / 4];
    std::uint16_t d, dmin;
};
static_assert(sizeof(BlockQ2_K) == 84);

// 16 sub-blocks of 16: value = d * (scale - 32) * (q - 4 * !highbit), q in 0..3 plus a high bit.
struct BlockQ3_K {
    std::uint8_t hmask[QK_K / 8];
    std::uint8_t qs[QK_K / 4];
    std::uint8_t scales[12]; // 16 six-bit scales
    std::uint16_t d;
};
static_assert(sizeof(BlockQ3_K) == 110);

// 8 sub-blocks of 32: value = d * scale * q - dmin * min, six-bit scales and mins in 12 bytes.
struct BlockQ4_K {
    std::uint16_t d, dmin;
    std::uint8_t scales[12];
    std::uint8_t qs[QK_K / 2];
};
static_assert(sizeof(BlockQ4_K) == 144);

struct BlockQ5_K {
    std::uint16_t d, dmin;
    std::uint8_t scales[12];
    std::uint8_t qh[QK_K / 8];
    std::uint8_t qs[QK_K / 2];
};
static_assert(sizeof(BlockQ5_K) == 176);

// 16 sub-blocks of 16: value = d * scales[i] * (q - 32), q six bits (4 in ql, 2 in qh).
struct BlockQ6_K {
    std::uint8_t ql[QK_K / 2];
    std::uint8_t qh[QK_K / 4];
    std::int8_t scales[QK_K / 16];
    std::uint16_t d;
};
static_assert(sizeof(BlockQ6_K) == 210);

// Non-linear 4-bit: value = d * kIq4nlValues[q].
struct BlockIQ4_NL {
    std::uint16_t d;
    std::uint8_t qs[QK4_NL / 2];
};
static_assert(sizeof(BlockIQ4_NL) == 18);

// 8 sub-blocks of 32 with six-bit scales: value = d * (scale - 32) * kIq4nlValues[q].
struct BlockIQ4_XS {
    std::uint16_t d;
    std::uint16_t scalesH; // two high bits of each sub-block's scale
    std::uint8_t scalesL[QK_K / 64]; // four low bits, two sub-blocks a byte
    std::uint8_t qs[QK_K / 2];
};
static_assert(sizeof(BlockIQ4_XS) == 136);

// OCP microscaling FP4 (gpt-oss's experts): 32 E2M1 values sharing a power-of-two scale,
// value = 2^(e - 128) * kMxfp4Values[q] (the table holds twice each E2M1 value, as ggml's).
// Nibbles as IQ4_NL: element j in the low nibble of qs[j], element j + 16 in the high one.
struct BlockMXFP4 {
    std::uint8_t e; // E8M0 exponent
    std::uint8_t qs[16];
};
static_assert(sizeof(BlockMXFP4) == 17);

inline constexpr std::int8_t kMxfp4Values[16] = {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12};

// Half the scale an MXFP4 exponent stands for, 2^(e - 128), exactly (a subnormal below e = 2).
inline float mxfp4HalfScale(std::uint8_t e)
{
    const std::uint32_t bits = e < 2 ? std::uint32_t(0x00200000) << e : std::uint32_t(e - 1) << 23;
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

// The codebook of IQ4_NL and IQ4_XS.
inline constexpr std::int8_t kIq4nlValues[16] = {-127, -104, -83, -65, -49, -35, -22, -10,
                                                 1,    13,   25,  38,  53,  69,  89,  113};

// One super-block of an activation row for the 256-weight types (ggml's block_q8_K): the
// scale stays a float, and bsums[i] is the sum of qs[16 i .. 16 i + 15], which turns the min
// terms of K-quants into one multiply per sub-block.
struct ActBlockQ8K {
    float d;
    std::int8_t qs[QK_K];
    std::int16_t bsums[QK_K / 16];
};
static_assert(sizeof(ActBlockQ8K) == 292);

} // namespace hearth::cpu
