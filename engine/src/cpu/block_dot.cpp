// SPDX-License-Identifier: MIT
// Scalar definitions of the block types: each type is unpacked into small integers and its
// scales once, and dequantization and dot products are both written over that unpacked form,
// so the two cannot disagree about the layout.

#include "cpu/block_dot.h"

#include "core/fp16.h"
#include "cpu/kernels.h"

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace hearth::cpu {

namespace {

// ---------------------------------------------------------------------------------------------
// Unpacking. A 32-weight block gives 32 integer levels and its float scale (and offset); a
// super-block gives 256 levels and one integer scale (and min) per sub-block.

struct Levels32 {
    std::int8_t q[32];
    float d = 0.0f;
    float m = 0.0f; // added to every value (Q4_1, Q5_1)
};

// Whether a 32-weight type adds an offset m. The others compute q * d alone, as ggml does,
// which keeps the sign of a zero.
template <typename Block>
constexpr bool kHasOffset = std::is_same_v<Block, BlockQ4_1> || std::is_same_v<Block, BlockQ5_1>;

void nibbles(const std::uint8_t* qs, std::int8_t* q, int count)
{
    for (int j = 0; j < count / 2; ++j) {
        q[j] = std::int8_t(qs[j] & 0x0f);
        q[j + count / 2] = std::int8_t(qs[j] >> 4);
    }
}

std::uint32_t loadU32(const std::uint8_t* p)
{
    std::uint32_t v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

Levels32 unpack(const BlockQ4_1& b)
{
    Levels32 l;
    nibbles(b.qs, l.q, 32);
    l.d = halfToFloat(b.d);
    l.m = halfToFloat(b.m);
    return l;
}

template <typename Block>
void fifthBits(const Block& b, Levels32& l, int offset)
{
    const std::uint32_t qh = loadU32(b.qh);
    nibbles(b.qs, l.q, 32);
    for (int j = 0; j < 32; ++j)
        l.q[j] = std::int8_t(l.q[j] + int((qh >> j) & 1u) * 16 - offset);
}

Levels32 unpack(const BlockQ5_0& b)
{
    Levels32 l;
    fifthBits(b, l, 16);
    l.d = halfToFloat(b.d);
    return l;
}

Levels32 unpack(const BlockQ5_1& b)
{
    Levels32 l;
    fifthBits(b, l, 0);
    l.d = halfToFloat(b.d);
    l.m = halfToFloat(b.m);
    return l;
}

// 16 bytes of nibble pairs through a 16-level codebook (IQ4_NL, MXFP4), with scale @p d.
Levels32 codebookLevels(const std::uint8_t* qs, const std::int8_t (&codebook)[16], float d)
{
    Levels32 l;
    nibbles(qs, l.q, 32);
    for (std::int8_t& q : l.q)
        q = codebook[q];
    l.d = d;
    return l;
}

Levels32 unpack(const BlockIQ4_NL& b)
{
    return codebookLevels(b.qs, kIq4nlValues, halfToFloat(b.d));
}

Levels32 unpack(const BlockMXFP4& b)
{
    return codebookLevels(b.qs, kMxfp4Values, mxfp4HalfScale(b.e));
}

// A super-block: value i = d * scale[i / sub] * q[i] - dmin * min[i / sub].
template <int SubBlocks>
struct Levels256 {
    static constexpr int kSub = QK_K / SubBlocks;
    std::int8_t q[QK_K];
    std::int32_t scale[SubBlocks];
    std::int32_t min[SubBlocks] = {};
    float d = 0.0f;
    float dmin = 0.0f;
};

Levels256<16> unpack(const BlockQ2_K& b)
{
    Levels256<16> l;
    // Four 2-bit planes per 32 bytes: byte l of chunk c holds weights 128c + 32s + l (s = plane).
    for (int c = 0; c < 2; ++c) {
        for (int s = 0; s < 4; ++s) {
            for (int j = 0; j < 32; ++j)
                l.q[128 * c + 32 * s + j] = std::int8_t((b.qs[32 * c + j] >> (2 * s)) & 3);
        }
    }
    for (int i = 0; i < 16; ++i) {
        l.scale[i] = b.scales[i] & 0x0f;
        l.min[i] = b.scales[i] >> 4;
    }
    l.d = halfToFloat(b.d);
    l.dmin = halfToFloat(b.dmin);
    return l;
}

Levels256<16> unpack(const BlockQ3_K& b)
{
    Levels256<16> l;
    for (int c = 0; c < 2; ++c) {
        for (int s = 0; s < 4; ++s) {
            const int bit = 4 * c + s; // the hmask bit of this plane
            for (int j = 0; j < 32; ++j) {
                const int low = (b.qs[32 * c + j] >> (2 * s)) & 3;
                const bool high = (b.hmask[j] >> bit) & 1;
                l.q[128 * c + 32 * s + j] = std::int8_t(low - (high ? 0 : 4));
            }
        }
    }
    // Sixteen 6-bit scales: low 4 bits in bytes 0-7 (two a byte), high 2 bits in bytes 8-11.
    for (int i = 0; i < 16; ++i) {
        const int low = (b.scales[i % 8] >> (4 * (i / 8))) & 0x0f;
        const int high = (b.scales[8 + i % 4] >> (2 * (i / 4))) & 3;
        l.scale[i] = (low | (high << 4)) - 32;
    }
    l.d = halfToFloat(b.d);
    return l;
}

template <typename Block>
Levels256<8> unpackQ45K(const Block& b, const std::uint8_t* qh)
{
    Levels256<8> l;
    // Four chunks of 64 weights: 32 bytes each, low nibbles first, then high nibbles.
    for (int c = 0; c < 4; ++c) {
        for (int j = 0; j < 32; ++j) {
            const std::uint8_t byte = b.qs[32 * c + j];
            int lo = byte & 0x0f;
            int hi = byte >> 4;
            if (qh) {
                lo |= ((qh[j] >> (2 * c)) & 1) << 4;
                hi |= ((qh[j] >> (2 * c + 1)) & 1) << 4;
            }
            l.q[64 * c + j] = std::int8_t(lo);
            l.q[64 * c + 32 + j] = std::int8_t(hi);
        }
    }
    for (int j = 0; j < 8; ++j)
        scaleMinK4(b.scales, j, l.scale[j], l.min[j]);
    l.d = halfToFloat(b.d);
    l.dmin = halfToFloat(b.dmin);
    return l;
}

Levels256<8> unpack(const BlockQ4_K& b) { return unpackQ45K(b, nullptr); }
Levels256<8> unpack(const BlockQ5_K& b) { return unpackQ45K(b, b.qh); }

Levels256<16> unpack(const BlockQ6_K& b)
{
    Levels256<16> l;
    // Two halves of 128: ql bytes 0-63 and qh bytes 0-31 each; four 32-weight quarters.
    for (int h = 0; h < 2; ++h) {
        const std::uint8_t* ql = b.ql + 64 * h;
        const std::uint8_t* qh = b.qh + 32 * h;
        std::int8_t* q = l.q + 128 * h;
        for (int j = 0; j < 32; ++j) {
            q[j] = std::int8_t(((ql[j] & 0x0f) | (((qh[j] >> 0) & 3) << 4)) - 32);
            q[j + 32] = std::int8_t(((ql[j + 32] & 0x0f) | (((qh[j] >> 2) & 3) << 4)) - 32);
            q[j + 64] = std::int8_t(((ql[j] >> 4) | (((qh[j] >> 4) & 3) << 4)) - 32);
            q[j + 96] = std::int8_t(((ql[j + 32] >> 4) | (((qh[j] >> 6) & 3) << 4)) - 32);
        }
    }
    for (int i = 0; i < 16; ++i)
        l.scale[i] = b.scales[i];
    l.d = halfToFloat(b.d);
    return l;
}

Levels256<8> unpack(const BlockIQ4_XS& b)
{
    Levels256<8> l;
    for (int s = 0; s < 8; ++s) {
        nibbles(b.qs + 16 * s, l.q + 32 * s, 32);
        for (int j = 0; j < 32; ++j)
            l.q[32 * s + j] = kIq4nlValues[l.q[32 * s + j]];
        const int low = (b.scalesL[s / 2] >> (4 * (s % 2))) & 0x0f;
        const int high = (b.scalesH >> (2 * s)) & 3;
        l.scale[s] = (low | (high << 4)) - 32;
    }
    l.d = halfToFloat(b.d);
    return l;
}

// ---------------------------------------------------------------------------------------------
// Dequantization and dot products over the unpacked forms.

template <typename Block>
void dequantize(const void* row, float* out, std::int64_t n)
{
    const auto* blocks = static_cast<const Block*>(row);
    constexpr int kPer = int(sizeof(unpack(blocks[0]).q));
    for (std::int64_t b = 0; b < n / kPer; ++b) {
        const auto l = unpack(blocks[b]);
        float* y = out + b * kPer;
        if constexpr (kPer == 32) {
            for (int j = 0; j < 32; ++j)
                y[j] = kHasOffset<Block> ? float(l.q[j]) * l.d + l.m : float(l.q[j]) * l.d;
        } else {
            constexpr int kSub = decltype(l)::kSub;
            for (int j = 0; j < QK_K; ++j) {
                const float scale = l.d * float(l.scale[j / kSub]);
                const float min = l.dmin * float(l.min[j / kSub]);
                y[j] = scale * float(l.q[j]) - min;
            }
        }
    }
}

// 32-weight types against ActBlockQ8: d_w d_x sum(q_w q_x) + m_w d_x sum(q_x). (ggml's Q8_1
// keeps d_x sum(q_x) as a half made from the unrounded d_x: a little further from the exact
// sum than this, by up to 2^-11 of each block's offset term.)
template <typename Block>
float dot32(const void* row, const void* activations, std::int64_t n)
{
    const auto* blocks = static_cast<const Block*>(row);
    const auto* x = static_cast<const ActBlockQ8*>(activations);
    float sum = 0.0f;
    for (std::int64_t b = 0; b < n / 32; ++b) {
        const Levels32 l = unpack(blocks[b]);
        std::int32_t sumi = 0;
        for (int j = 0; j < 32; ++j)
            sumi += std::int32_t(l.q[j]) * x[b].qs[j];
        sum += l.d * x[b].d * float(sumi);
        if constexpr (kHasOffset<Block>)
            sum += l.m * x[b].d * float(x[b].sum);
    }
    return sum;
}

// Super-blocks against ActBlockQ8K: d_x (d sum_s scale_s sum(q x) - dmin sum_s min_s sum(x)).
template <typename Block>
float dot256(const void* row, const void* activations, std::int64_t n)
{
    const auto* blocks = static_cast<const Block*>(row);
    const auto* x = static_cast<const ActBlockQ8K*>(activations);
    float sum = 0.0f;
    for (std::int64_t b = 0; b < n / QK_K; ++b) {
        const auto l = unpack(blocks[b]);
        constexpr int kSub = decltype(l)::kSub;
        std::int32_t sumi = 0;
        std::int32_t summ = 0;
        for (int s = 0; s < QK_K / kSub; ++s) {
            std::int32_t dot = 0;
            for (int j = s * kSub; j < (s + 1) * kSub; ++j)
                dot += std::int32_t(l.q[j]) * x[b].qs[j];
            sumi += l.scale[s] * dot;
            std::int32_t xsum = 0;
            for (int g = s * kSub / 16; g < (s + 1) * kSub / 16; ++g)
                xsum += x[b].bsums[g];
            summ += l.min[s] * xsum;
        }
        sum += x[b].d * (l.d * float(sumi) - l.dmin * float(summ));
    }
    return sum;
}

void dequantizeBf16(const void* row, float* out, std::int64_t n)
{
    const auto* h = static_cast<const std::uint16_t*>(row);
    for (std::int64_t i = 0; i < n; ++i) {
        const std::uint32_t bits = std::uint32_t(h[i]) << 16;
        std::memcpy(out + i, &bits, sizeof bits);
    }
}

float dotBf16(const void* row, const void* activations, std::int64_t n)
{
    const auto* h = static_cast<const std::uint16_t*>(row);
    const auto* x = static_cast<const float*>(activations);
    float sum = 0.0f;
    for (std::int64_t i = 0; i < n; ++i) {
        const std::uint32_t bits = std::uint32_t(h[i]) << 16;
        float w;
        std::memcpy(&w, &bits, sizeof w);
        sum += w * x[i];
    }
    return sum;
}

constexpr std::array<BlockFormat, 12> kFormats{{
    {DType::Q4_1, ActivationFormat::Q8, dequantize<BlockQ4_1>, dot32<BlockQ4_1>},
    {DType::Q5_0, ActivationFormat::Q8, dequantize<BlockQ5_0>, dot32<BlockQ5_0>},
    {DType::Q5_1, ActivationFormat::Q8, dequantize<BlockQ5_1>, dot32<BlockQ5_1>},
    {DType::IQ4_NL, ActivationFormat::Q8, dequantize<BlockIQ4_NL>, dot32<BlockIQ4_NL>},
    {DType::MXFP4, ActivationFormat::Q8, dequantize<BlockMXFP4>, dot32<BlockMXFP4>},
    {DType::Q2_K, ActivationFormat::Q8K, dequantize<BlockQ2_K>, dot256<BlockQ2_K>},
    {DType::Q3_K, ActivationFormat::Q8K, dequantize<BlockQ3_K>, dot256<BlockQ3_K>},
    {DType::Q4_K, ActivationFormat::Q8K, dequantize<BlockQ4_K>, dot256<BlockQ4_K>},
    {DType::Q5_K, ActivationFormat::Q8K, dequantize<BlockQ5_K>, dot256<BlockQ5_K>},
    {DType::Q6_K, ActivationFormat::Q8K, dequantize<BlockQ6_K>, dot256<BlockQ6_K>},
    {DType::IQ4_XS, ActivationFormat::Q8K, dequantize<BlockIQ4_XS>, dot256<BlockIQ4_XS>},
    {DType::BF16, ActivationFormat::Floats, dequantizeBf16, dotBf16},
}};

} // namespace

// The 12-byte scale/min packing of Q4_K and Q5_K: sub-blocks 0-3 use the low 6 bits of bytes
// 0-3 (scales) and 4-7 (mins); 4-7 take 4 bits from bytes 8-11 and 2 from the top of 0-7.
void scaleMinK4(const std::uint8_t* s, int j, std::int32_t& scale, std::int32_t& min)
{
    if (j < 4) {
        scale = s[j] & 63;
        min = s[j + 4] & 63;
    } else {
        scale = (s[j + 4] & 0x0f) | ((s[j - 4] >> 6) << 4);
        min = (s[j + 4] >> 4) | ((s[j] >> 6) << 4);
    }
}

const BlockFormat* blockFormat(DType type)
{
    for (const BlockFormat& f : kFormats) {
        if (f.type == type)
            return &f;
    }
    return nullptr;
}

void quantizeActivationsQ8K(const float* x, ActBlockQ8K* out, std::int64_t n)
{
    for (std::int64_t b = 0; b < n / QK_K; ++b) {
        const float* v = x + b * QK_K;
        ActBlockQ8K& y = out[b];
        float max = 0.0f;
        float amax = 0.0f;
        for (int j = 0; j < QK_K; ++j) {
            const float a = std::fabs(v[j]);
            if (a > amax) {
                amax = a;
                max = v[j];
            }
        }
        if (amax == 0.0f) {
            std::memset(&y, 0, sizeof y);
            continue;
        }
        const float iscale = -127.0f / max;
        for (int j = 0; j < QK_K; ++j) {
            const long q = std::lrint(iscale * v[j]); // nearest, ties to even, as ggml's nearest_int
            y.qs[j] = std::int8_t(q > 127 ? 127 : q);
        }
        for (int g = 0; g < QK_K / 16; ++g) {
            int sum = 0;
            for (int j = 0; j < 16; ++j)
                sum += y.qs[16 * g + j];
            y.bsums[g] = std::int16_t(sum);
        }
        y.d = 1.0f / iscale;
    }
}

} // namespace hearth::cpu
