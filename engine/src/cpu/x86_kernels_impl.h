// SPDX-License-Identifier: MIT
// The body of the x86 kernel tables, included (once each) by kernels_avx2.cpp,
// kernels_avx512.cpp and kernels_avx512_vnni.cpp. Those files are compiled with their ISA's
// flags and define HEARTH_KERNEL_TABLE / HEARTH_KERNEL_NAME / HEARTH_KERNEL_ISA before including
// this file; the instruction set actually used follows from the compiler's __AVX512F__ and
// __AVX512VNNI__. Everything here has internal linkage: an inline function shared with
// baseline code could otherwise be merged with a copy that uses instructions the CPU lacks.
//
// Layout of a matmul tile: R weight rows x T tokens of accumulators stay in registers while the
// inner loop walks the row in blocks, so each loaded weight block is used T times and each
// activation block R times. Decode (T = 1) streams weights; prefill reuses them from L1.

#pragma once

#include "cpu/kernels.h"
#include "cpu/weight_pack.h"

#if defined(__GNUC__) && !defined(__clang__)
// GCC 12's AVX-512 headers use their own _mm512_undefined_* values in ways its flow analysis
// reports as uninitialized (GCC bug 105593); nothing in this file reads uninitialized data.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include <immintrin.h>

#include "cpu/f16_widen.h" // after the pragmas: its inline functions use the intrinsics too
#include "cpu/kquant_levels_x86.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>
#include <type_traits>

#if !defined(HEARTH_KERNEL_TABLE) || !defined(HEARTH_KERNEL_NAME) || !defined(HEARTH_KERNEL_ISA)
#error "define the table name, its printable name and its Isa before including x86_kernels_impl.h"
#endif


namespace hearth::cpu {

namespace {

// ---------------------------------------------------------------------------------------------
// Small helpers

inline float hsum256(__m256 v)
{
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

inline float hmax256(__m256 v)
{
    __m128 m = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    m = _mm_max_ps(m, _mm_movehl_ps(m, m));
    m = _mm_max_ss(m, _mm_movehdup_ps(m));
    return _mm_cvtss_f32(m);
}

inline std::int32_t hsumInt256(__m256i v)
{
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    s = _mm_add_epi32(s, _mm_unpackhi_epi64(s, s));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, _MM_SHUFFLE(2, 3, 0, 1)));
    return _mm_cvtsi128_si32(s);
}

inline float halfToFloatF16c(std::uint16_t h)
{
    return _cvtsh_ss(h);
}

inline std::uint16_t floatToHalfF16c(float f)
{
    // Not _cvtss_sh: clang's headers define it with a compound literal, which -Wpedantic flags.
    return static_cast<std::uint16_t>(_mm_extract_epi16(_mm_cvtps_ph(_mm_set_ss(f), _MM_FROUND_TO_NEAREST_INT), 0));
}

inline __m256 absPs(__m256 v)
{
    return _mm256_and_ps(v, _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff)));
}

// roundf(): to nearest, ties away from zero (the SIMD rounding modes only do ties-to-even).
inline __m256 roundHalfAway(__m256 v)
{
    const __m256 truncated = _mm256_round_ps(v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    const __m256 fraction = absPs(_mm256_sub_ps(v, truncated)); // exact
    const __m256 up = _mm256_cmp_ps(fraction, _mm256_set1_ps(0.5f), _CMP_GE_OQ);
    const __m256 signedOne = _mm256_or_ps(_mm256_set1_ps(1.0f),
                                          _mm256_and_ps(v, _mm256_castsi256_ps(_mm256_set1_epi32(INT32_MIN))));
    return _mm256_add_ps(truncated, _mm256_and_ps(up, signedOne));
}

// ---------------------------------------------------------------------------------------------
// Quantization (byte-identical to kernels_scalar.cpp for finite input)

// One block of 32 floats to Q8_0 values as four vectors of int32, with the float scale.
inline void quantizeBlockQ8(const float* x, __m256i q[4], float& d)
{
    __m256 v[4];
    __m256 amax = _mm256_setzero_ps();
    for (int k = 0; k < 4; ++k) {
        v[k] = _mm256_loadu_ps(x + 8 * k);
        amax = _mm256_max_ps(amax, absPs(v[k]));
    }
    d = hmax256(amax) / 127.0f;
    const __m256 id = _mm256_set1_ps(d != 0.0f ? 1.0f / d : 0.0f);
    for (int k = 0; k < 4; ++k) {
        q[k] = _mm256_cvtps_epi32(roundHalfAway(_mm256_mul_ps(v[k], id)));
    }
}

inline __m256i packQ8(const __m256i q[4])
{
    const __m256i a = _mm256_packs_epi32(q[0], q[1]);
    const __m256i b = _mm256_packs_epi32(q[2], q[3]);
    const __m256i c = _mm256_packs_epi16(a, b);
    // The packs work within 128-bit lanes; this puts the 4-byte groups back in order.
    return _mm256_permutevar8x32_epi32(c, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}

void quantizeRowQ8_0(const float* x, BlockQ8_0* out, std::int64_t n)
{
    for (std::int64_t b = 0; b < n / QK8_0; ++b) {
        __m256i q[4];
        float d = 0.0f;
        quantizeBlockQ8(x + b * QK8_0, q, d);
        out[b].d = floatToHalfF16c(d);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out[b].qs), packQ8(q));
    }
}

void quantizeActivations(const float* x, ActBlockQ8* out, std::int64_t n)
{
    for (std::int64_t b = 0; b < n / QK8_0; ++b) {
        __m256i q[4];
        float d = 0.0f;
        quantizeBlockQ8(x + b * QK8_0, q, d);
        out[b].d = halfToFloatF16c(floatToHalfF16c(d));
        out[b].sum = hsumInt256(_mm256_add_epi32(_mm256_add_epi32(q[0], q[1]), _mm256_add_epi32(q[2], q[3])));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out[b].qs), packQ8(q));
    }
}

void quantizeRowQ4_0(const float* x, BlockQ4_0* out, std::int64_t n)
{
    for (std::int64_t b = 0; b < n / QK4_0; ++b) {
        const float* v = x + b * QK4_0;
        __m256 vec[4];
        __m256 amaxVec = _mm256_setzero_ps();
        for (int k = 0; k < 4; ++k) {
            vec[k] = _mm256_loadu_ps(v + 8 * k);
            amaxVec = _mm256_max_ps(amaxVec, absPs(vec[k]));
        }
        const float amax = hmax256(amaxVec);
        // The reference keeps the first value of largest magnitude, sign included.
        float max = 0.0f;
        if (amax != 0.0f) {
            for (int j = 0; j < QK4_0; ++j) {
                if ((v[j] < 0.0f ? -v[j] : v[j]) == amax) {
                    max = v[j];
                    break;
                }
            }
        }
        const float d = max / -8.0f;
        const __m256 id = _mm256_set1_ps(d != 0.0f ? 1.0f / d : 0.0f);
        alignas(32) std::int32_t q[QK4_0];
        for (int k = 0; k < 4; ++k) {
            const __m256 shifted = _mm256_add_ps(_mm256_mul_ps(vec[k], id), _mm256_set1_ps(8.5f));
            __m256i qi = _mm256_cvttps_epi32(shifted);
            qi = _mm256_min_epi32(_mm256_max_epi32(qi, _mm256_setzero_si256()), _mm256_set1_epi32(15));
            _mm256_store_si256(reinterpret_cast<__m256i*>(q + 8 * k), qi);
        }
        out[b].d = floatToHalfF16c(d);
        for (int j = 0; j < QK4_0 / 2; ++j) {
            out[b].qs[j] = static_cast<std::uint8_t>(q[j] | q[j + QK4_0 / 2] << 4);
        }
    }
}

void convertRowF16(const float* x, std::uint16_t* out, std::int64_t n)
{
    std::int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i),
                         _mm256_cvtps_ph(_mm256_loadu_ps(x + i), _MM_FROUND_TO_NEAREST_INT));
    }
    for (; i < n; ++i) {
        out[i] = floatToHalfF16c(x[i]);
    }
}

void dequantizeRowF16(const std::uint16_t* in, float* out, std::int64_t n)
{
    std::int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        _mm256_storeu_ps(out + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i))));
    }
    for (; i < n; ++i) {
        out[i] = halfToFloatF16c(in[i]);
    }
}

void dequantizeRowQ8_0(const BlockQ8_0* in, float* out, std::int64_t n)
{
    for (std::int64_t b = 0; b < n / QK8_0; ++b) {
        const __m256 d = _mm256_set1_ps(halfToFloatF16c(in[b].d));
        for (int k = 0; k < 4; ++k) {
            const __m128i bytes = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(in[b].qs + 8 * k));
            const __m256 v = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(bytes));
            _mm256_storeu_ps(out + b * QK8_0 + 8 * k, _mm256_mul_ps(v, d));
        }
    }
}

// The 32 nibbles of a Q4_0 block as bytes 0..15 in element order: low nibbles give elements
// 0-15, high nibbles 16-31, matching the activation layout.
inline __m256i unpackQ4(const std::uint8_t* qs)
{
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(qs));
    const __m256i both = _mm256_set_m128i(_mm_srli_epi16(x, 4), x);
    return _mm256_and_si256(both, _mm256_set1_epi8(0x0f));
}

// The fifth bits of a Q5 block as bytes in element order: 0x10 where bit j of qh is set.
inline __m256i fifthBitBytes(const std::uint8_t* qh)
{
    std::uint32_t bits;
    std::memcpy(&bits, qh, sizeof bits);
    // Byte j takes the qh byte that holds bit j, then keeps only that bit.
    const __m256i spread = _mm256_shuffle_epi8(_mm256_set1_epi32(static_cast<int>(bits)),
        _mm256_setr_epi64x(0x0000000000000000, 0x0101010101010101, 0x0202020202020202, 0x0303030303030303));
    const __m256i others = _mm256_or_si256(spread, _mm256_set1_epi64x(0x7fbfdfeff7fbfdfe));
    return _mm256_and_si256(_mm256_cmpeq_epi8(others, _mm256_set1_epi64x(-1)), _mm256_set1_epi8(0x10));
}

void dequantizeRowQ4_0(const BlockQ4_0* in, float* out, std::int64_t n)
{
#if defined(__AVX512F__)
    // One lane per byte: its low nibble is element i, its high one element 16 + i.
    const __m512i low = _mm512_set1_epi32(0x0f);
    const __m512i eight = _mm512_set1_epi32(8);
    for (std::int64_t b = 0; b < n / QK4_0; ++b) {
        const __m512 d = _mm512_set1_ps(halfToFloatF16c(in[b].d));
        const __m512i q = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in[b].qs)));
        const __m512i lo = _mm512_sub_epi32(_mm512_and_si512(q, low), eight);
        const __m512i hi = _mm512_sub_epi32(_mm512_srli_epi32(q, 4), eight);
        _mm512_storeu_ps(out + b * QK4_0, _mm512_mul_ps(_mm512_cvtepi32_ps(lo), d));
        _mm512_storeu_ps(out + b * QK4_0 + 16, _mm512_mul_ps(_mm512_cvtepi32_ps(hi), d));
    }
#else
    const __m256i low = _mm256_set1_epi32(0x0f);
    const __m256i eight = _mm256_set1_epi32(8);
    for (std::int64_t b = 0; b < n / QK4_0; ++b) {
        const __m256 d = _mm256_set1_ps(halfToFloatF16c(in[b].d));
        for (int h = 0; h < 2; ++h) {
            const __m256i q = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(in[b].qs + 8 * h)));
            const __m256i lo = _mm256_sub_epi32(_mm256_and_si256(q, low), eight);
            const __m256i hi = _mm256_sub_epi32(_mm256_srli_epi32(q, 4), eight);
            _mm256_storeu_ps(out + b * QK4_0 + 8 * h, _mm256_mul_ps(_mm256_cvtepi32_ps(lo), d));
            _mm256_storeu_ps(out + b * QK4_0 + 16 + 8 * h, _mm256_mul_ps(_mm256_cvtepi32_ps(hi), d));
        }
    }
#endif
}

// ---------------------------------------------------------------------------------------------
// Integer dot products of one 32-element block pair. Each returns 8 int32 lanes whose sum is
// the exact signed dot product; the caller scales and accumulates them in float.

// Bias that undoes an unsigned offset of the weights: -offset * sum(activations), in lane 0.
inline __m256i offsetBias(std::int32_t offset, std::int32_t activationSum)
{
    return _mm256_zextsi128_si256(_mm_cvtsi32_si128(-offset * activationSum));
}

#if defined(__AVX512VNNI__)
// Q4_0 and Q8_0 weights are both made unsigned (nibbles 0..15, int8 + 128) so one vpdpbusd
// per pair does the whole block, with the offset folded into the accumulator's start value.
struct Q4Policy {
    using Prepared = __m256i;
    static constexpr std::int32_t kOffset = 8;
    static constexpr bool kHasMin = false;
    static Prepared prepare(const BlockQ4_0& b) { return unpackQ4(b.qs); }
    static __m256i dot(Prepared w, __m256i a, __m256i bias) { return _mm256_dpbusd_epi32(bias, w, a); }
};
struct Q8Policy {
    using Prepared = __m256i;
    static constexpr std::int32_t kOffset = 128;
    static constexpr bool kHasMin = false;
    static Prepared prepare(const BlockQ8_0& b)
    {
        return _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(b.qs)), _mm256_set1_epi8(-128));
    }
    static __m256i dot(Prepared w, __m256i a, __m256i bias) { return _mm256_dpbusd_epi32(bias, w, a); }
};
#else
// maddubs multiplies unsigned by signed bytes into saturating int16 pairs: nibbles (<= 15)
// cannot saturate; int8 weights use |w| times sign-adjusted activations instead.
struct Q4Policy {
    using Prepared = __m256i;
    static constexpr std::int32_t kOffset = 8;
    static constexpr bool kHasMin = false;
    static Prepared prepare(const BlockQ4_0& b) { return unpackQ4(b.qs); }
    static __m256i dot(Prepared w, __m256i a, __m256i bias)
    {
        const __m256i pairs = _mm256_maddubs_epi16(w, a);
        return _mm256_add_epi32(_mm256_madd_epi16(pairs, _mm256_set1_epi16(1)), bias);
    }
};
struct Q8Policy {
    struct Prepared {
        __m256i magnitude;
        __m256i sign;
    };
    static constexpr std::int32_t kOffset = 0;
    static constexpr bool kHasMin = false;
    static Prepared prepare(const BlockQ8_0& b)
    {
        const __m256i w = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b.qs));
        return {_mm256_abs_epi8(w), w};
    }
    static __m256i dot(const Prepared& w, __m256i a, __m256i /*bias*/)
    {
        const __m256i pairs = _mm256_maddubs_epi16(w.magnitude, _mm256_sign_epi8(a, w.sign));
        return _mm256_madd_epi16(pairs, _mm256_set1_epi16(1));
    }
};
#endif

// The other 32-weight types have unsigned levels too, and go through Q4_0's dot: Q5_0 levels
// are 0..31 with an offset of 16; Q4_1 and Q5_1 add m_w d_x sum(x) per block instead.
struct Q4_1Policy {
    using Prepared = __m256i;
    static constexpr std::int32_t kOffset = 0;
    static constexpr bool kHasMin = true;
    static Prepared prepare(const BlockQ4_1& b) { return unpackQ4(b.qs); }
    static __m256i dot(Prepared w, __m256i a, __m256i bias) { return Q4Policy::dot(w, a, bias); }
};
struct Q5_0Policy {
    using Prepared = __m256i;
    static constexpr std::int32_t kOffset = 16;
    static constexpr bool kHasMin = false;
    static Prepared prepare(const BlockQ5_0& b) { return _mm256_or_si256(unpackQ4(b.qs), fifthBitBytes(b.qh)); }
    static __m256i dot(Prepared w, __m256i a, __m256i bias) { return Q4Policy::dot(w, a, bias); }
};
struct Q5_1Policy {
    using Prepared = __m256i;
    static constexpr std::int32_t kOffset = 0;
    static constexpr bool kHasMin = true;
    static Prepared prepare(const BlockQ5_1& b) { return _mm256_or_si256(unpackQ4(b.qs), fifthBitBytes(b.qh)); }
    static __m256i dot(Prepared w, __m256i a, __m256i bias) { return Q4Policy::dot(w, a, bias); }
};

template <typename Block>
struct BlockTraits;
template <>
struct BlockTraits<BlockQ4_0> {
    using Policy = Q4Policy;
};
template <>
struct BlockTraits<BlockQ4_1> {
    using Policy = Q4_1Policy;
};
template <>
struct BlockTraits<BlockQ5_0> {
    using Policy = Q5_0Policy;
};
template <>
struct BlockTraits<BlockQ5_1> {
    using Policy = Q5_1Policy;
};
template <>
struct BlockTraits<BlockQ8_0> {
    using Policy = Q8Policy;
};

// R rows x T tokens of a quantized matmul, starting at row r0 and token t0.
template <typename Block, int R, int T>
inline void tileQuantized(const GemmArgs& a, std::int64_t r0, std::int64_t t0)
{
    using Policy = typename BlockTraits<Block>::Policy;
    const std::int64_t blocks = a.cols / QK8_0;
    const Block* w[R];
    const ActBlockQ8* x[T];
    for (int r = 0; r < R; ++r) {
        w[r] = reinterpret_cast<const Block*>(a.w + static_cast<std::size_t>(r0 + r) * a.wStride);
    }
    for (int t = 0; t < T; ++t) {
        x[t] = reinterpret_cast<const ActBlockQ8*>(static_cast<const std::uint8_t*>(a.x) +
                                                   static_cast<std::size_t>(t0 + t) * a.xStride);
    }
    __m256 acc[R][T];
    float mins[R][T] = {}; // the m_w d_x sum(x) terms of types with an offset per block
    for (int r = 0; r < R; ++r) {
        for (int t = 0; t < T; ++t) {
            acc[r][t] = _mm256_setzero_ps();
        }
    }
    for (std::int64_t b = 0; b < blocks; ++b) {
        typename Policy::Prepared wq[R];
        __m256 wd[R];
        float wm[R] = {};
        for (int r = 0; r < R; ++r) {
            wq[r] = Policy::prepare(w[r][b]);
            wd[r] = _mm256_set1_ps(halfToFloatF16c(w[r][b].d));
            if constexpr (Policy::kHasMin)
                wm[r] = halfToFloatF16c(w[r][b].m);
        }
        for (int t = 0; t < T; ++t) {
            const ActBlockQ8& ab = x[t][b];
            const __m256i aq = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(ab.qs));
            const __m256i bias = offsetBias(Policy::kOffset, ab.sum);
            const __m256 ad = _mm256_set1_ps(ab.d);
            for (int r = 0; r < R; ++r) {
                const __m256 dot = _mm256_cvtepi32_ps(Policy::dot(wq[r], aq, bias));
                acc[r][t] = _mm256_fmadd_ps(dot, _mm256_mul_ps(wd[r], ad), acc[r][t]);
                if constexpr (Policy::kHasMin)
                    mins[r][t] += wm[r] * ab.d * float(ab.sum);
            }
        }
    }
    for (int t = 0; t < T; ++t) {
        float* y = a.y + (t0 + t) * a.yStride + r0;
        for (int r = 0; r < R; ++r) {
            y[r] = hsum256(acc[r][t]) + mins[r][t];
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Float weights (F32, F16): widest vectors available, weights converted once per tile step.

#if defined(__AVX512F__)
using VecF = __m512;
constexpr int kLanes = 16;
inline VecF vzero() { return _mm512_setzero_ps(); }
inline VecF vload(const float* p) { return _mm512_loadu_ps(p); }
inline VecF vload(const std::uint16_t* p)
{
    return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
}
inline VecF vfma(VecF a, VecF b, VecF c) { return _mm512_fmadd_ps(a, b, c); }
inline VecF vadd(VecF a, VecF b) { return _mm512_add_ps(a, b); }
inline VecF vsub(VecF a, VecF b) { return _mm512_sub_ps(a, b); }
inline VecF vmul(VecF a, VecF b) { return _mm512_mul_ps(a, b); }
inline VecF vdiv(VecF a, VecF b) { return _mm512_div_ps(a, b); }
inline VecF vmax(VecF a, VecF b) { return _mm512_max_ps(a, b); }
inline VecF vset1(float v) { return _mm512_set1_ps(v); }
inline void vstore(float* p, VecF v) { _mm512_storeu_ps(p, v); }
inline float vsum(VecF v) { return _mm512_reduce_add_ps(v); }
inline float vmaxAcross(VecF v) { return _mm512_reduce_max_ps(v); }
#else
using VecF = __m256;
constexpr int kLanes = 8;
inline VecF vzero() { return _mm256_setzero_ps(); }
inline VecF vload(const float* p) { return _mm256_loadu_ps(p); }
inline VecF vload(const std::uint16_t* p)
{
    return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}
inline VecF vfma(VecF a, VecF b, VecF c) { return _mm256_fmadd_ps(a, b, c); }
inline VecF vadd(VecF a, VecF b) { return _mm256_add_ps(a, b); }
inline VecF vsub(VecF a, VecF b) { return _mm256_sub_ps(a, b); }
inline VecF vmul(VecF a, VecF b) { return _mm256_mul_ps(a, b); }
inline VecF vdiv(VecF a, VecF b) { return _mm256_div_ps(a, b); }
inline VecF vmax(VecF a, VecF b) { return _mm256_max_ps(a, b); }
inline VecF vset1(float v) { return _mm256_set1_ps(v); }
inline void vstore(float* p, VecF v) { _mm256_storeu_ps(p, v); }
inline float vsum(VecF v) { return hsum256(v); }
inline float vmaxAcross(VecF v)
{
    __m128 m = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    m = _mm_max_ps(m, _mm_movehl_ps(m, m));
    m = _mm_max_ss(m, _mm_movehdup_ps(m));
    return _mm_cvtss_f32(m);
}
#endif

inline float scalarValue(float v) { return v; }
inline float scalarValue(std::uint16_t v) { return halfToFloatF16c(v); }

template <typename W, int R, int T>
inline void tileFloat(const GemmArgs& a, std::int64_t r0, std::int64_t t0)
{
    const W* w[R];
    const float* x[T];
    for (int r = 0; r < R; ++r) {
        w[r] = reinterpret_cast<const W*>(a.w + static_cast<std::size_t>(r0 + r) * a.wStride);
    }
    for (int t = 0; t < T; ++t) {
        x[t] = reinterpret_cast<const float*>(static_cast<const std::uint8_t*>(a.x) +
                                              static_cast<std::size_t>(t0 + t) * a.xStride);
    }
    VecF acc[R][T];
    for (int r = 0; r < R; ++r) {
        for (int t = 0; t < T; ++t) {
            acc[r][t] = vzero();
        }
    }
    std::int64_t c = 0;
    for (; c + kLanes <= a.cols; c += kLanes) {
        VecF wv[R];
        for (int r = 0; r < R; ++r) {
            wv[r] = vload(w[r] + c);
        }
        for (int t = 0; t < T; ++t) {
            const VecF xv = vload(x[t] + c);
            for (int r = 0; r < R; ++r) {
                acc[r][t] = vfma(wv[r], xv, acc[r][t]);
            }
        }
    }
    for (int t = 0; t < T; ++t) {
        float* y = a.y + (t0 + t) * a.yStride + r0;
        for (int r = 0; r < R; ++r) {
            float sum = vsum(acc[r][t]);
            for (std::int64_t i = c; i < a.cols; ++i) {
                sum += scalarValue(w[r][i]) * x[t][i];
            }
            y[r] = sum;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Q4_0 in the Q4_0x16 layout (weight_pack.h): each int32 lane holds one row, so a block of 16
// rows costs a handful of vector instructions, the 16 scales convert at once and no horizontal
// sums are needed. Activation bytes are broadcast four at a time.

inline std::int32_t activationWord(const ActBlockQ8& ab, int offset)
{
    std::int32_t v;
    std::memcpy(&v, ab.qs + offset, sizeof(v));
    return v;
}

// The activation rows (ActBlockQ8 or ActBlockQ8K blocks) of tokens t0 .. t0 + T - 1 of a tile.
template <typename Act, int T>
inline void tileTokens(const GemmArgs& a, std::int64_t t0, const Act* (&x)[T])
{
    for (int t = 0; t < T; ++t)
        x[t] = reinterpret_cast<const Act*>(static_cast<const std::uint8_t*>(a.x) + static_cast<std::size_t>(t0 + t) * a.xStride);
}

// The last tile of a group, of @p rest < N tokens.
template <typename Tile, int N>
inline void restTile(const GemmArgs& a, std::int64_t group, std::int64_t t0, std::int64_t rest)
{
    if constexpr (N > 0) {
        if (rest == N)
            Tile::template run<N>(a, group, t0);
        else
            restTile<Tile, N - 1>(a, group, t0, rest);
    }
}

// Groups [rowBegin / 16, rowEnd / 16) of an x16 layout through Tile::run<T>: tiles of Tokens
// tokens, then one of the rest.
template <typename Tile, int Tokens>
void gemmGroupTiles(const GemmArgs& a, std::int64_t rowBegin, std::int64_t rowEnd)
{
    for (std::int64_t g = rowBegin / kQ4x16Rows; g < rowEnd / kQ4x16Rows; ++g) {
        std::int64_t t = 0;
        for (; t + Tokens <= a.tokens; t += Tokens)
            Tile::template run<Tokens>(a, g, t);
        restTile<Tile, Tokens - 1>(a, g, t, a.tokens - t);
    }
}

#if !defined(__AVX512VNNI__)
// Q4_0x16, Q8_0x16 and MXFP4x16 (weight_pack.h) 256 bits at a time: the group as two halves of
// 8 rows (the first and second 32 bytes of each 64-byte register of a block, the first and
// second 8 scales), register k against activation bytes 4k-4k+3.
template <typename Layout, int T>
inline void bytesX16Halves(const GemmArgs& a, std::int64_t group, std::int64_t t0)
{
    const std::int64_t blocks = a.cols / QK8_0;
    const std::uint8_t* p = a.w + static_cast<std::size_t>(group) * a.wStride;
    const ActBlockQ8* x[T];
    tileTokens(a, t0, x);
    __m256 acc[2][T];
    for (int t = 0; t < T; ++t) {
        acc[0][t] = _mm256_setzero_ps();
        acc[1][t] = _mm256_setzero_ps();
    }
    for (std::int64_t b = 0; b < blocks; ++b, p += Layout::kBlockBytes) {
        for (int h = 0; h < 2; ++h) {
            const __m256 dw = Layout::scales(p, h);
            __m256i w[8];
            Layout::load(p, h, w);
            for (int t = 0; t < T; ++t) {
                const ActBlockQ8& ab = x[t][b];
                acc[h][t] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(Layout::dot(w, ab)), _mm256_mul_ps(dw, _mm256_set1_ps(ab.d)),
                                            acc[h][t]);
            }
        }
    }
    for (int t = 0; t < T; ++t) {
        float* y = a.y + (t0 + t) * a.yStride + group * kQ4x16Rows;
        _mm256_storeu_ps(y, acc[0][t]);
        _mm256_storeu_ps(y + 8, acc[1][t]);
    }
}

// The 8 half-precision scales of half @p h of a Q4_0x16 or Q8_0x16 block.
inline __m256 halfScales(const std::uint8_t* p, int h)
{
    return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * h)));
}

// Q4_0: registers 0-3 the low nibbles (elements 0-15), 4-7 the high ones.
struct Q4x16Halves {
    static constexpr std::size_t kBlockBytes = kQ4x16BlockBytes;
    static __m256 scales(const std::uint8_t* p, int h) { return halfScales(p, h); }
    static void load(const std::uint8_t* p, int h, __m256i (&w)[8])
    {
        const __m256i lowMask = _mm256_set1_epi8(0x0f);
        for (int k = 0; k < 4; ++k) {
            const __m256i q = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 32 + 64 * k + 32 * h));
            w[k] = _mm256_and_si256(q, lowMask);
            w[4 + k] = _mm256_and_si256(_mm256_srli_epi16(q, 4), lowMask);
        }
    }
    static __m256i dot(const __m256i (&w)[8], const ActBlockQ8& ab)
    {
        // maddubs pairs are at most 2 * 15 * 128 = 3840, so eight of them fit one int16.
        __m256i pairs = _mm256_maddubs_epi16(w[0], _mm256_set1_epi32(activationWord(ab, 0)));
        for (int k = 1; k < 8; ++k)
            pairs = _mm256_add_epi16(pairs, _mm256_maddubs_epi16(w[k], _mm256_set1_epi32(activationWord(ab, 4 * k))));
        // The -8 offset of the nibbles: sum((q - 8) * a) = sum(q * a) - 8 * sum(a).
        return _mm256_add_epi32(_mm256_madd_epi16(pairs, _mm256_set1_epi16(1)), _mm256_set1_epi32(-8 * ab.sum));
    }
};

// Q8_0: maddubs wants an unsigned operand, so each weight's sign moves onto the activation
// (each product at most 127 x 127: no saturation).
struct Q8x16Halves {
    static constexpr std::size_t kBlockBytes = kQ8x16BlockBytes;
    static __m256 scales(const std::uint8_t* p, int h) { return halfScales(p, h); }
    static void load(const std::uint8_t* p, int h, __m256i (&w)[8])
    {
        for (int k = 0; k < 8; ++k)
            w[k] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 32 + 64 * k + 32 * h));
    }
    static __m256i dot(const __m256i (&w)[8], const ActBlockQ8& ab)
    {
        __m256i dot = _mm256_setzero_si256();
        for (int k = 0; k < 8; ++k) {
            const __m256i pairs =
                _mm256_maddubs_epi16(_mm256_abs_epi8(w[k]), _mm256_sign_epi8(_mm256_set1_epi32(activationWord(ab, 4 * k)), w[k]));
            dot = _mm256_add_epi32(dot, _mm256_madd_epi16(pairs, _mm256_set1_epi16(1)));
        }
        return dot;
    }
};

// MXFP4: the indices become their signed levels (kMxfp4Values, -12..12) by a shuffle, and then
// multiply as Q8_0's bytes do; a row's scale 2^(e - 128) is its exponent byte shifted into a
// float's exponent field (the two smallest exponents, weights under 1e-37, become 0).
struct Mxfp4x16Halves {
    static constexpr std::size_t kBlockBytes = kMxfp4x16BlockBytes;
    static __m256 scales(const std::uint8_t* p, int h)
    {
        const __m256i e = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p + 8 * h)));
        const __m256i one = _mm256_set1_epi32(1);
        return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_sub_epi32(_mm256_max_epi32(e, one), one), 23));
    }
    static void load(const std::uint8_t* p, int h, __m256i (&w)[8])
    {
        const __m256i table = _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(kMxfp4Values)));
        const __m256i lowMask = _mm256_set1_epi8(0x0f);
        for (int k = 0; k < 4; ++k) {
            const __m256i q = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + kQ4x16Rows + 64 * k + 32 * h));
            w[k] = _mm256_shuffle_epi8(table, _mm256_and_si256(q, lowMask));
            w[4 + k] = _mm256_shuffle_epi8(table, _mm256_and_si256(_mm256_srli_epi16(q, 4), lowMask));
        }
    }
    static __m256i dot(const __m256i (&w)[8], const ActBlockQ8& ab) { return Q8x16Halves::dot(w, ab); }
};
#endif

// The interleaved tiles ask for the weights @p distance bytes ahead of the block at @p p
// (@p blockBytes of them) into L2, prompts as well as decode: a tile of a few tokens (a
// speculative pass, the rest of a prompt) waits on memory much as a decoded token does, and
// the hardware prefetcher alone leaves it waiting. TinyLlama-1.1B shape, Q4_K, 2 threads, Zen 4:
// passes of 2, 3, 5 and 9 tokens 159-160, 201-208, 217-219 and 235 -> 175-178, 251-254, 291-341
// and 346-371 tok/s, prompts of 64 tokens 377-379 -> 425-432.
inline void prefetchX16Ahead(const std::uint8_t* p, std::size_t distance, std::size_t blockBytes)
{
    const char* ahead = reinterpret_cast<const char*>(p) + distance;
    for (std::size_t l = 0; l < blockBytes; l += 64)
        _mm_prefetch(ahead + l, _MM_HINT_T1);
}

#if defined(__AVX512VNNI__)
// Q4_0x16 and Q8_0x16 (weight_pack.h) with VNNI: a block is 16 fp16 scales and eight registers
// of four bytes of each of the 16 rows, register k against activation bytes 4k-4k+3. Both
// layouts' bytes are unsigned with an offset of 128 per unit of activation, which the
// activation sum takes back out; 16 rows x T tokens, one 512-bit accumulator per token.
template <typename Layout, int T>
inline void bytesX16Tile(const GemmArgs& a, std::int64_t group, std::int64_t t0)
{
    const std::int64_t blocks = a.cols / QK8_0;
    const std::uint8_t* p = a.w + static_cast<std::size_t>(group) * a.wStride;
    const ActBlockQ8* x[T];
    tileTokens(a, t0, x);
    __m512 acc[T];
    for (int t = 0; t < T; ++t)
        acc[t] = _mm512_setzero_ps();
    for (std::int64_t b = 0; b < blocks; ++b, p += Layout::kBlockBytes) {
        if constexpr (T > 1) // decode streams these rows as fast without it
            prefetchX16Ahead(p, 2 * kQ4Kx16BlockBytes, Layout::kBlockBytes); // about the K tiles' distance
        const __m512 dw = Layout::scales(p);
        __m512i w[8];
        Layout::load(p, w);
        for (int t = 0; t < T; ++t) {
            const ActBlockQ8& ab = x[t][b];
            __m512i dot = _mm512_set1_epi32(-128 * ab.sum);
            if constexpr (T == 1) {
                // Decode: two shorter chains, so one block's latency does not stall the stream.
                __m512i odd = _mm512_setzero_si512();
                for (int k = 0; k < 8; k += 2) {
                    dot = _mm512_dpbusd_epi32(dot, w[k], _mm512_set1_epi32(activationWord(ab, 4 * k)));
                    odd = _mm512_dpbusd_epi32(odd, w[k + 1], _mm512_set1_epi32(activationWord(ab, 4 * k + 4)));
                }
                dot = _mm512_add_epi32(dot, odd);
            } else {
                // Prefill: the other tokens' chains run in parallel.
                for (int k = 0; k < 8; ++k)
                    dot = _mm512_dpbusd_epi32(dot, w[k], _mm512_set1_epi32(activationWord(ab, 4 * k)));
            }
            acc[t] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(dot), _mm512_mul_ps(dw, _mm512_set1_ps(ab.d)), acc[t]);
        }
    }
    for (int t = 0; t < T; ++t)
        _mm512_storeu_ps(a.y + (t0 + t) * a.yStride + group * kQ4x16Rows, acc[t]);
}

// Q4_0: both nibbles are used as 16x their value (the low one shifted up, the high one masked
// in place), so the -8 offset is -128 too: vpdpbusd does not saturate, the sums stay far below
// 2^24 so their conversion to float is exact, and the factor 1/16 goes into the scales (exact:
// a power of two). Registers 0-3 are the low nibbles (elements 0-15), 4-7 the high ones.
struct Q4x16Bytes {
    static constexpr std::size_t kBlockBytes = kQ4x16BlockBytes;
    static __m512 scales(const std::uint8_t* p)
    {
        return _mm512_mul_ps(_mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))),
                             _mm512_set1_ps(1.0f / 16.0f));
    }
    static void load(const std::uint8_t* p, __m512i (&w)[8])
    {
        const __m512i highMask = _mm512_set1_epi8(static_cast<char>(0xf0));
        for (int k = 0; k < 4; ++k) {
            const __m512i q = _mm512_loadu_si512(p + 32 + 64 * k);
            w[k] = _mm512_and_si512(_mm512_slli_epi16(q, 4), highMask);
            w[4 + k] = _mm512_and_si512(q, highMask);
        }
    }
};

// MXFP4: each index picks its level v (twice the E2M1 value, -12..12) as the byte 128 + 8v, so
// the offset is 128 as for Q4_0 and the factor 1/8 goes into the scales (exact). A row's scale
// 2^(e - 128) is made from its exponent byte by a shift into a float's exponent field; the two
// smallest exponents (below 2^-126, weights under 1e-37) become 0.
struct Mxfp4x16Bytes {
    static constexpr std::size_t kBlockBytes = kMxfp4x16BlockBytes;
    static __m512 scales(const std::uint8_t* p)
    {
        const __m512i e = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
        const __m512i bits = _mm512_slli_epi32(_mm512_sub_epi32(_mm512_max_epi32(e, _mm512_set1_epi32(1)), _mm512_set1_epi32(1)), 23);
        return _mm512_mul_ps(_mm512_castsi512_ps(bits), _mm512_set1_ps(1.0f / 8.0f));
    }
    static void load(const std::uint8_t* p, __m512i (&w)[8])
    {
        const __m512i table = _mm512_broadcast_i32x4(
            _mm_setr_epi8(char(128), char(136), char(144), char(152), char(160), char(176), char(192), char(224), char(128),
                          char(120), char(112), char(104), char(96), char(80), char(64), char(32)));
        const __m512i lowMask = _mm512_set1_epi8(0x0f);
        for (int k = 0; k < 4; ++k) {
            const __m512i q = _mm512_loadu_si512(p + kQ4x16Rows + 64 * k);
            w[k] = _mm512_shuffle_epi8(table, _mm512_and_si512(q, lowMask));
            w[4 + k] = _mm512_shuffle_epi8(table, _mm512_and_si512(_mm512_srli_epi16(q, 4), lowMask));
        }
    }
};

// Q8_0: the bytes become unsigned by a flip of their top bit (+128).
struct Q8x16Bytes {
    static constexpr std::size_t kBlockBytes = kQ8x16BlockBytes;
    static __m512 scales(const std::uint8_t* p)
    {
        return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
    }
    static void load(const std::uint8_t* p, __m512i (&w)[8])
    {
        for (int k = 0; k < 8; ++k)
            w[k] = _mm512_xor_si512(_mm512_loadu_si512(p + 32 + 64 * k), _mm512_set1_epi8(-128));
    }
};

template <int T>
inline void q4x16Tile(const GemmArgs& a, std::int64_t group, std::int64_t t0)
{
    bytesX16Tile<Q4x16Bytes, T>(a, group, t0);
}
constexpr int kQ4x16Tokens = 8;
#elif defined(__AVX512F__)
// 16 rows x T tokens; one 512-bit accumulator per token.
template <int T>
inline void q4x16Tile(const GemmArgs& a, std::int64_t group, std::int64_t t0)
{
    const std::int64_t blocks = a.cols / QK4_0;
    const std::uint8_t* p = a.w + static_cast<std::size_t>(group) * a.wStride;
    const ActBlockQ8* x[T];
    tileTokens(a, t0, x);
    __m512 acc[T];
    for (int t = 0; t < T; ++t) {
        acc[t] = _mm512_setzero_ps();
    }
    const __m512i lowMask = _mm512_set1_epi8(0x0f);
    for (std::int64_t b = 0; b < blocks; ++b, p += kQ4x16BlockBytes) {
        const __m512 dw = _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
        __m512i lo[4];
        __m512i hi[4];
        for (int k = 0; k < 4; ++k) {
            const __m512i q = _mm512_loadu_si512(p + 32 + 64 * k);
            lo[k] = _mm512_and_si512(q, lowMask);
            hi[k] = _mm512_and_si512(_mm512_srli_epi16(q, 4), lowMask);
        }
        for (int t = 0; t < T; ++t) {
            const ActBlockQ8& ab = x[t][b];
            // maddubs pairs are at most 2 * 15 * 128 = 3840, so eight of them fit one int16.
            __m512i pairs = _mm512_setzero_si512();
            for (int k = 0; k < 4; ++k) {
                pairs = _mm512_add_epi16(pairs, _mm512_maddubs_epi16(lo[k], _mm512_set1_epi32(activationWord(ab, 4 * k))));
                pairs = _mm512_add_epi16(pairs,
                                         _mm512_maddubs_epi16(hi[k], _mm512_set1_epi32(activationWord(ab, 16 + 4 * k))));
            }
            // The -8 offset of the nibbles: sum((q - 8) * a) = sum(q * a) - 8 * sum(a).
            const __m512i dot =
                _mm512_add_epi32(_mm512_madd_epi16(pairs, _mm512_set1_epi16(1)), _mm512_set1_epi32(-8 * ab.sum));
            acc[t] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(dot), _mm512_mul_ps(dw, _mm512_set1_ps(ab.d)), acc[t]);
        }
    }
    for (int t = 0; t < T; ++t) {
        _mm512_storeu_ps(a.y + (t0 + t) * a.yStride + group * kQ4x16Rows, acc[t]);
    }
}
constexpr int kQ4x16Tokens = 8;
#else
template <int T>
inline void q4x16Tile(const GemmArgs& a, std::int64_t group, std::int64_t t0)
{
    bytesX16Halves<Q4x16Halves, T>(a, group, t0);
}
constexpr int kQ4x16Tokens = 2;
#endif

struct Q40x16Tile {
    template <int T>
    static void run(const GemmArgs& a, std::int64_t group, std::int64_t t0) { q4x16Tile<T>(a, group, t0); }
};

// Q8_0 in the Q8_0x16 layout (weight_pack.h): as Q4_0x16 with whole signed bytes, four of a
// row to each lane.
#if defined(__AVX512VNNI__)
template <int T>
inline void q8x16Tile(const GemmArgs& a, std::int64_t group, std::int64_t t0)
{
    bytesX16Tile<Q8x16Bytes, T>(a, group, t0);
}
#else
template <int T>
inline void q8x16Tile(const GemmArgs& a, std::int64_t group, std::int64_t t0)
{
    bytesX16Halves<Q8x16Halves, T>(a, group, t0);
}
#endif

struct Q80x16Tile {
    template <int T>
    static void run(const GemmArgs& a, std::int64_t group, std::int64_t t0) { q8x16Tile<T>(a, group, t0); }
};

// MXFP4 in the MXFP4x16 layout (weight_pack.h).
struct Mxfp4x16Tile {
    template <int T>
    static void run(const GemmArgs& a, std::int64_t group, std::int64_t t0)
    {
#if defined(__AVX512VNNI__)
        bytesX16Tile<Mxfp4x16Bytes, T>(a, group, t0);
#else
        bytesX16Halves<Mxfp4x16Halves, T>(a, group, t0);
#endif
    }
};

// ---------------------------------------------------------------------------------------------
// K-quants and IQ4_XS in their x16 layouts (weight_pack.h): as for Q4_0x16, each int32 lane
// accumulates one row. A run of weights sharing a scale (32; Q6_K: 16) is a few 64-byte level
// registers against the token's bytes broadcast four at a time; its integer sum meets the 16
// rows' scales in one float FMA (the K-quants' products are exact, the sums round as any float
// sum does), and the mins (Q6_K: the offset 32, IQ4_XS: 128) meet the activations' group sums by
// vpmaddwd (vpdpwssd) once per super-block. A prompt tile walks one run at a time for all its
// tokens, so the unpacked levels serve eight tokens (AVX2: four) and the live registers stay
// within the register file. Decode asks for the super-blocks two ahead of the one it reads: the
// hardware prefetcher alone fell short of the row layout's prefetched stream. AVX2 runs each
// group as two halves of 8 rows (the first and second 32 bytes of every 64); on one core of the
// Xeon it took Q4_K prompts from 100 to 143 GFLOP/s, Q5_K from 76-82 to 87-89, decode unchanged.

constexpr std::size_t kKx16PrefetchBlocks = 2;

inline void prefetchKx16Block(const std::uint8_t* p, std::size_t blockBytes)
{
    prefetchX16Ahead(p, kKx16PrefetchBlocks * blockBytes, blockBytes);
}

// The activations' sums of runs 2p and 2p + 1 of 32, as two int16 in an int32, for p = 0..3.
inline void runPairSums(const ActBlockQ8K& x, std::int32_t out[4])
{
    const __m256i bsums = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x.bsums));
    const __m256i runs = _mm256_madd_epi16(bsums, _mm256_set1_epi16(1)); // 8 x int32, |sum| <= 4064
    // packs interleaves per 128-bit lane: words 0, 1 and 4, 5 hold runs 0-3 and 4-7 in pairs.
    const __m256i packed = _mm256_packs_epi32(runs, runs);
    out[0] = _mm256_extract_epi32(packed, 0);
    out[1] = _mm256_extract_epi32(packed, 1);
    out[2] = _mm256_extract_epi32(packed, 4);
    out[3] = _mm256_extract_epi32(packed, 5);
}

#if defined(__AVX512F__)
constexpr int kKx16Tokens = 8;

// sum[t] += levels . (four bytes of token t's activations at @p offset), per lane.
template <int T>
inline void dotLevels(__m512i (&sum)[T], __m512i levels, const ActBlockQ8K* const* x, std::int64_t b, int offset)
{
    for (int t = 0; t < T; ++t) {
        std::int32_t word;
        std::memcpy(&word, x[t][b].qs + offset, sizeof(word));
#if defined(__AVX512VNNI__)
        sum[t] = _mm512_dpbusd_epi32(sum[t], levels, _mm512_set1_epi32(word));
#else
        // maddubs pairs of six-bit levels reach 2 * 63 * 127: widened at once, as they come.
        sum[t] = _mm512_add_epi32(
            sum[t], _mm512_madd_epi16(_mm512_maddubs_epi16(levels, _mm512_set1_epi32(word)), _mm512_set1_epi16(1)));
#endif
    }
}

// acc += pairs . word per lane (int16 pairs, int32 sums).
inline __m512i dotPairs(__m512i acc, __m512i pairs, std::int32_t word)
{
#if defined(__AVX512VNNI__)
    return _mm512_dpwssd_epi32(acc, pairs, _mm512_set1_epi32(word));
#else
    return _mm512_add_epi32(acc, _mm512_madd_epi16(pairs, _mm512_set1_epi32(word)));
#endif
}

// 16 rows x T tokens of Q4_Kx16, Q5_Kx16 (a fifth bit per level) or IQ4_XSx16 (VNNI only: its
// codebook's values plus 128 are the unsigned levels, one vpshufb a register, and maddubs would
// saturate on them; the 128 comes back off as Q4_K's mins do, with the scales for mins and
// 128 d for dmin).
template <typename Block, int T>
inline void q45kx16Tile(const GemmArgs& a, std::int64_t group, std::int64_t t0)
{
    constexpr bool fifthBit = std::is_same_v<Block, BlockQ5_K>;
    constexpr bool codebook = std::is_same_v<Block, BlockIQ4_XS>;
    constexpr std::size_t blockBytes = codebook ? kIQ4XSx16BlockBytes : fifthBit ? kQ5Kx16BlockBytes : kQ4Kx16BlockBytes;
    constexpr std::size_t quantOffset = codebook ? kIQ4XSx16QuantOffset : kQ4Kx16QuantOffset;
    const std::int64_t blocks = a.cols / QK_K;
    const std::uint8_t* p = a.w + static_cast<std::size_t>(group) * a.wStride;
    const ActBlockQ8K* x[T];
    tileTokens(a, t0, x);
    __m512 acc[T];
    for (int t = 0; t < T; ++t)
        acc[t] = _mm512_setzero_ps();
    const __m512i lowMask = _mm512_set1_epi8(0x0f);
    const __m512i levelOf = _mm512_xor_si512(
        _mm512_broadcast_i32x4(_mm_loadu_si128(reinterpret_cast<const __m128i*>(kIq4nlValues))), _mm512_set1_epi8(static_cast<char>(0x80)));
    for (std::int64_t b = 0; b < blocks; ++b, p += blockBytes) {
        prefetchKx16Block(p, blockBytes);
        __m512 body[T]; // sum over runs of scale * level sum, per row
        for (int t = 0; t < T; ++t)
            body[t] = _mm512_setzero_ps();
        for (int run = 0; run < 8; ++run) {
            const std::uint8_t* q = p + quantOffset + 512 * (run / 2);
            const int shift = 4 * (run % 2);
            __m512i sum[T];
            for (int t = 0; t < T; ++t)
                sum[t] = _mm512_setzero_si512();
            for (int k = 0; k < 8; ++k) {
                __m512i levels = _mm512_and_si512(_mm512_srli_epi16(_mm512_loadu_si512(q + 64 * k), shift), lowMask);
                if constexpr (codebook)
                    levels = _mm512_shuffle_epi8(levelOf, levels);
                if constexpr (fifthBit) {
                    const __m512i high = _mm512_loadu_si512(p + kQ5Kx16HighOffset + 64 * k);
                    const __mmask64 set = _mm512_test_epi8_mask(high, _mm512_set1_epi8(static_cast<char>(1 << run)));
                    levels = _mm512_mask_add_epi8(levels, set, levels, _mm512_set1_epi8(16));
                }
                dotLevels<T>(sum, levels, x, b, 32 * run + 4 * k);
            }
            __m512i scales;
            if constexpr (codebook) {
                // The run's signed scale: the low or high int16 of its pair.
                const __m512i pairs = _mm512_cvtepi8_epi16(
                    _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + kIQ4XSx16ScaleOffset + 32 * (run / 2))));
                scales = run % 2 ? _mm512_srai_epi32(pairs, 16) : _mm512_srai_epi32(_mm512_slli_epi32(pairs, 16), 16);
            } else {
                scales = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + kQ4Kx16ScaleOffset + 16 * run)));
            }
            const __m512 scale = _mm512_cvtepi32_ps(scales);
            for (int t = 0; t < T; ++t)
                body[t] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(sum[t]), scale, body[t]);
        }
        const __m512 d = _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
        const __m512 dmin = codebook ? _mm512_mul_ps(d, _mm512_set1_ps(128.0f))
                                     : _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + kQ4Kx16DminOffset)));
        __m512i mins[4];
        for (int pair = 0; pair < 4; ++pair) {
            if constexpr (codebook)
                mins[pair] = _mm512_cvtepi8_epi16(
                    _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + kIQ4XSx16ScaleOffset + 32 * pair)));
            else
                mins[pair] = _mm512_cvtepu8_epi16(
                    _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + kQ4Kx16MinOffset + 32 * pair)));
        }
        for (int t = 0; t < T; ++t) {
            std::int32_t pairSums[4];
            runPairSums(x[t][b], pairSums);
            __m512i minSum = _mm512_setzero_si512();
            for (int pair = 0; pair < 4; ++pair)
                minSum = dotPairs(minSum, mins[pair], pairSums[pair]);
            // x.d * (d * body - dmin * sum of min * run sum)
            const __m512 value = _mm512_fmsub_ps(d, body[t], _mm512_mul_ps(dmin, _mm512_cvtepi32_ps(minSum)));
            acc[t] = _mm512_fmadd_ps(value, _mm512_set1_ps(x[t][b].d), acc[t]);
        }
    }
    for (int t = 0; t < T; ++t)
        _mm512_storeu_ps(a.y + (t0 + t) * a.yStride + group * kQ4x16Rows, acc[t]);
}

// The levels 0..63 of quarter m of a Q6_Kx16 register: the low or high nibbles of @p ql (the
// register's first or second 64 bytes, as m is even or odd) and bits 2m, 2m + 1 of @p qh.
inline __m512i q6Levels(__m512i ql, __m512i qh, int m)
{
    const __m512i low = _mm512_and_si512(m < 2 ? ql : _mm512_srli_epi16(ql, 4), _mm512_set1_epi8(0x0f));
    // Bits 2m, 2m + 1 of qh to bits 4, 5.
    const __m512i shifted = m == 0   ? _mm512_slli_epi16(qh, 4)
                            : m == 1 ? _mm512_slli_epi16(qh, 2)
                            : m == 2 ? qh
                                     : _mm512_srli_epi16(qh, 2);
    // low | (shifted & 0x30)
    return _mm512_ternarylogic_epi32(low, shifted, _mm512_set1_epi8(0x30), 0xf8);
}

// The 16 rows' int8 scales of group g (the low or high int16 of their pair), as floats.
inline __m512 q6GroupScale(const std::uint8_t* p, int g)
{
    const __m512i pairs =
        _mm512_cvtepi8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + kQ6Kx16ScaleOffset + 32 * (g / 2))));
    return _mm512_cvtepi32_ps(g % 2 ? _mm512_srai_epi32(pairs, 16) : _mm512_srai_epi32(_mm512_slli_epi32(pairs, 16), 16));
}

// 16 rows x T tokens of Q6_Kx16: levels 0..63 from a nibble and two high bits, offset 32.
template <int T>
inline void q6kx16Tile(const GemmArgs& a, std::int64_t group, std::int64_t t0)
{
    const std::int64_t blocks = a.cols / QK_K;
    const std::uint8_t* p = a.w + static_cast<std::size_t>(group) * a.wStride;
    const ActBlockQ8K* x[T];
    tileTokens(a, t0, x);
    __m512 acc[T];
    for (int t = 0; t < T; ++t)
        acc[t] = _mm512_setzero_ps();
    for (std::int64_t b = 0; b < blocks; ++b, p += kQ6Kx16BlockBytes) {
        prefetchKx16Block(p, kQ6Kx16BlockBytes);
        __m512 body[T];
        for (int t = 0; t < T; ++t)
            body[t] = _mm512_setzero_ps();
        // Group g of 16 weights: half h = g / 8, quarter m = (g / 2) % 4 (ql's low or high nibbles
        // of its first or second 32 bytes, qh's bits 2m, 2m + 1), registers 4 (g % 2) .. + 3.
        const auto lowBits = [p](int h, int k, int m) {
            return _mm512_loadu_si512(p + kQ6Kx16LowOffset + 128 * (8 * h + k) + 64 * (m % 2));
        };
        const auto highBits = [p](int h, int k) { return _mm512_loadu_si512(p + kQ6Kx16HighOffset + 64 * (8 * h + k)); };
        if constexpr (T == 1) {
            // Decode: each register of low and high bits is loaded once for its four quarters,
            // every group summed in its own accumulator (a group per quarter and register).
            __m512i sum[16][1];
            for (int g = 0; g < 16; ++g)
                sum[g][0] = _mm512_setzero_si512();
            for (int h = 0; h < 2; ++h) {
                for (int k = 0; k < 8; ++k) {
                    const __m512i ql[2] = {lowBits(h, k, 0), lowBits(h, k, 1)};
                    const __m512i qh = highBits(h, k);
                    for (int m = 0; m < 4; ++m)
                        dotLevels<1>(sum[8 * h + 2 * m + k / 4], q6Levels(ql[m % 2], qh, m), x, b, 128 * h + 32 * m + 4 * k);
                }
            }
            for (int g = 0; g < 16; ++g)
                body[0] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(sum[g][0]), q6GroupScale(p, g), body[0]);
        } else {
            // A prompt: a group at a time, its registers loaded once for all the tile's tokens.
            for (int g = 0; g < 16; ++g) {
                const int h = g / 8;
                const int m = (g / 2) % 4;
                __m512i sum[T];
                for (int t = 0; t < T; ++t)
                    sum[t] = _mm512_setzero_si512();
                for (int k = 4 * (g % 2); k < 4 * (g % 2) + 4; ++k)
                    dotLevels<T>(sum, q6Levels(lowBits(h, k, m), highBits(h, k), m), x, b, 128 * h + 32 * m + 4 * k);
                const __m512 scale = q6GroupScale(p, g);
                for (int t = 0; t < T; ++t)
                    body[t] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(sum[t]), scale, body[t]);
            }
        }
        const __m512 d = _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
        __m512i pairs[8];
        for (int pair = 0; pair < 8; ++pair)
            pairs[pair] = _mm512_cvtepi8_epi16(
                _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + kQ6Kx16ScaleOffset + 32 * pair)));
        for (int t = 0; t < T; ++t) {
            // The offset: 32 * sum of scale * group sum, the group sums' pairs straight from bsums.
            __m512i offset = _mm512_setzero_si512();
            for (int pair = 0; pair < 8; ++pair) {
                std::int32_t word;
                std::memcpy(&word, x[t][b].bsums + 2 * pair, sizeof(word));
                offset = dotPairs(offset, pairs[pair], word);
            }
            const __m512 value = _mm512_mul_ps(d, _mm512_fnmadd_ps(_mm512_set1_ps(32.0f), _mm512_cvtepi32_ps(offset), body[t]));
            acc[t] = _mm512_fmadd_ps(value, _mm512_set1_ps(x[t][b].d), acc[t]);
        }
    }
    for (int t = 0; t < T; ++t)
        _mm512_storeu_ps(a.y + (t0 + t) * a.yStride + group * kQ4x16Rows, acc[t]);
}

#else
constexpr int kKx16Tokens = 4;

// 8 rows (half a group) x T tokens: pairs[t] += levels . (four bytes of token t at @p offset),
// as maddubs' int16 pairs (each at most 2 * maxLevel * 127: the callers widen them in time).
template <int T>
inline void dotLevels8(__m256i (&pairs)[T], __m256i levels, const ActBlockQ8K* const* x, std::int64_t b, int offset)
{
    for (int t = 0; t < T; ++t) {
        std::int32_t word;
        std::memcpy(&word, x[t][b].qs + offset, sizeof(word));
        pairs[t] = _mm256_add_epi16(pairs[t], _mm256_maddubs_epi16(levels, _mm256_set1_epi32(word)));
    }
}

// sum[t] += the int32 lane sums of pairs[t]; pairs[t] = 0.
template <int T>
inline void widenPairs(__m256i (&sum)[T], __m256i (&pairs)[T])
{
    for (int t = 0; t < T; ++t) {
        sum[t] = _mm256_add_epi32(sum[t], _mm256_madd_epi16(pairs[t], _mm256_set1_epi16(1)));
        pairs[t] = _mm256_setzero_si256();
    }
}

template <typename Block, int T>
inline void q45kx16Tile(const GemmArgs& a, std::int64_t group, std::int64_t t0)
{
    constexpr bool FifthBit = std::is_same_v<Block, BlockQ5_K>;
    static_assert(!std::is_same_v<Block, BlockIQ4_XS>, "IQ4_XSx16 needs VNNI");
    constexpr std::size_t blockBytes = FifthBit ? kQ5Kx16BlockBytes : kQ4Kx16BlockBytes;
    const std::int64_t blocks = a.cols / QK_K;
    const ActBlockQ8K* x[T];
    tileTokens(a, t0, x);
    const __m256i lowMask = _mm256_set1_epi8(0x0f);
    for (int h = 0; h < 2; ++h) {
        const std::uint8_t* p = a.w + static_cast<std::size_t>(group) * a.wStride;
        __m256 acc[T];
        for (int t = 0; t < T; ++t)
            acc[t] = _mm256_setzero_ps();
        for (std::int64_t b = 0; b < blocks; ++b, p += blockBytes) {
            if (h == 0)
                prefetchKx16Block(p, blockBytes);
            __m256 body[T];
            for (int t = 0; t < T; ++t)
                body[t] = _mm256_setzero_ps();
            for (int run = 0; run < 8; ++run) {
                const std::uint8_t* q = p + kQ4Kx16QuantOffset + 512 * (run / 2) + 32 * h;
                const int shift = 4 * (run % 2);
                __m256i sum[T];
                __m256i pairs[T];
                for (int t = 0; t < T; ++t) {
                    sum[t] = _mm256_setzero_si256();
                    pairs[t] = _mm256_setzero_si256();
                }
                for (int k = 0; k < 8; ++k) {
                    __m256i levels = _mm256_and_si256(
                        _mm256_srli_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(q + 64 * k)), shift), lowMask);
                    if constexpr (FifthBit) {
                        const __m256i high = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + kQ5Kx16HighOffset + 64 * k + 32 * h));
                        const __m256i bit = _mm256_set1_epi8(static_cast<char>(1 << run));
                        levels = _mm256_or_si256(levels, _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_and_si256(high, bit), bit), _mm256_set1_epi8(16)));
                    }
                    dotLevels8<T>(pairs, levels, x, b, 32 * run + 4 * k);
                    // Pairs of four-bit levels reach 3810 (eight fit an int16), of five-bit ones 7874.
                    if (k == 7 || (FifthBit && k == 3))
                        widenPairs<T>(sum, pairs);
                }
                const __m256 scale = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(
                    _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p + kQ4Kx16ScaleOffset + 16 * run + 8 * h))));
                for (int t = 0; t < T; ++t)
                    body[t] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(sum[t]), scale, body[t]);
            }
            const __m256 d = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * h)));
            const __m256 dmin = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + kQ4Kx16DminOffset + 16 * h)));
            for (int t = 0; t < T; ++t) {
                std::int32_t pairSums[4];
                runPairSums(x[t][b], pairSums);
                __m256i minSum = _mm256_setzero_si256();
                for (int pair = 0; pair < 4; ++pair) {
                    const __m256i mins = _mm256_cvtepu8_epi16(
                        _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + kQ4Kx16MinOffset + 32 * pair + 16 * h)));
                    minSum = _mm256_add_epi32(minSum, _mm256_madd_epi16(mins, _mm256_set1_epi32(pairSums[pair])));
                }
                const __m256 value = _mm256_fmsub_ps(d, body[t], _mm256_mul_ps(dmin, _mm256_cvtepi32_ps(minSum)));
                acc[t] = _mm256_fmadd_ps(value, _mm256_set1_ps(x[t][b].d), acc[t]);
            }
        }
        for (int t = 0; t < T; ++t)
            _mm256_storeu_ps(a.y + (t0 + t) * a.yStride + group * kQ4x16Rows + 8 * h, acc[t]);
    }
}

// Q6_K stays in rows here: assembling six-bit levels for 8 rows at a time cost more than the
// layout saved (one core: decode 6 against 11 GB/s, prompts 27-56 against 63-78 GFLOP/s).
#endif

template <typename Block>
struct Q45Kx16Tile {
    template <int T>
    static void run(const GemmArgs& a, std::int64_t group, std::int64_t t0) { q45kx16Tile<Block, T>(a, group, t0); }
};

#if defined(__AVX512F__)
struct Q6Kx16Tile {
    template <int T>
    static void run(const GemmArgs& a, std::int64_t group, std::int64_t t0) { q6kx16Tile<T>(a, group, t0); }
};

#endif
// Decode of float weights: one row at a time with four independent FMA chains, so a thread's
// reads form a single sequential stream for the hardware prefetcher. Measured on Zen 4, this
// streams F16 from DRAM ~25% faster than the 4-row register tile (and 2 rows was slower still),
// although sharing each activation load across rows would need fewer instructions.
template <typename W>
inline void rowFloatDecode(const GemmArgs& a, std::int64_t r)
{
    const W* w = reinterpret_cast<const W*>(a.w + static_cast<std::size_t>(r) * a.wStride);
    const float* x = static_cast<const float*>(a.x);
    VecF acc[4] = {vzero(), vzero(), vzero(), vzero()};
    std::int64_t c = 0;
    for (; c + 4 * kLanes <= a.cols; c += 4 * kLanes) {
        for (int i = 0; i < 4; ++i) {
            acc[i] = vfma(vload(w + c + i * kLanes), vload(x + c + i * kLanes), acc[i]);
        }
    }
    for (; c + kLanes <= a.cols; c += kLanes) {
        acc[0] = vfma(vload(w + c), vload(x + c), acc[0]);
    }
    // One horizontal sum per row: it costs as much as several loop iterations.
    float sum = vsum(vadd(vadd(acc[0], acc[1]), vadd(acc[2], acc[3])));
    for (; c < a.cols; ++c) {
        sum += scalarValue(w[c]) * x[c];
    }
    a.y[r] = sum;
}

// F16 decode through cpu/f16_widen.h: the input is prepared once per call, rows are widened by
// integer shifts.
void prepareF16Input(const float* x, float* out, std::int64_t n)
{
    f16w::prepareInput(x, out, n);
}

void gemmF16Prepared(const GemmArgs& a, std::int64_t rowBegin, std::int64_t rowEnd)
{
    static_assert(f16w::kLanes == kLanes);
    const float* x = static_cast<const float*>(a.x);
    for (std::int64_t r = rowBegin; r < rowEnd; ++r) {
        const std::uint16_t* w = reinterpret_cast<const std::uint16_t*>(a.w + static_cast<std::size_t>(r) * a.wStride);
        VecF acc[4] = {vzero(), vzero(), vzero(), vzero()};
        std::int64_t c = 0;
        for (; c + 2 * f16w::kRun <= a.cols; c += 2 * f16w::kRun) {
            for (int j = 0; j < 2; ++j) {
                const f16w::VecI v = f16w::load(w + c + j * f16w::kRun);
                acc[2 * j] = vfma(f16w::lower(v), vload(x + c + j * f16w::kRun), acc[2 * j]);
                acc[2 * j + 1] = vfma(f16w::upper(v), vload(x + c + j * f16w::kRun + kLanes), acc[2 * j + 1]);
            }
        }
        for (; c + f16w::kRun <= a.cols; c += f16w::kRun) {
            const f16w::VecI v = f16w::load(w + c);
            acc[0] = vfma(f16w::lower(v), vload(x + c), acc[0]);
            acc[1] = vfma(f16w::upper(v), vload(x + c + kLanes), acc[1]);
        }
        float tail = 0.0f; // exact weights times lifted inputs: kLift^2 too large
        for (; c < a.cols; ++c) {
            tail += halfToFloatF16c(w[c]) * x[c];
        }
        a.y[r] = vsum(vadd(vadd(acc[0], acc[1]), vadd(acc[2], acc[3]))) * f16w::kLift + tail / f16w::kLift;
    }
}

// Attention helpers: short rows (a head), so one accumulator per vector width and a masked
// or scalar tail; no call-level setup worth amortizing. The KV cache's elements, F32, F16
// (widened by F16C) or Q8_0 blocks, read as floats: kvAt one element of a row, kvLoad kLanes
// of them from a column that is a multiple of kLanes (so a vector never straddles a block).
#if defined(__AVX512F__)
inline VecF vloadInt8(const std::int8_t* p)
{
    return _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))));
}
#else
inline VecF vloadInt8(const std::int8_t* p)
{
    return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p))));
}
#endif
inline float kvAt(const float* row, std::int64_t col) { return row[col]; }
inline float kvAt(const std::uint16_t* row, std::int64_t col) { return halfToFloatF16c(row[col]); }
inline float kvAt(const BlockQ8_0* row, std::int64_t col)
{
    const BlockQ8_0& b = row[col / QK8_0];
    return float(b.qs[col % QK8_0]) * halfToFloatF16c(b.d);
}
inline VecF kvLoad(const float* row, std::int64_t col) { return vload(row + col); }
inline VecF kvLoad(const std::uint16_t* row, std::int64_t col) { return vload(row + col); }
inline VecF kvLoad(const BlockQ8_0* row, std::int64_t col)
{
    const BlockQ8_0& b = row[col / QK8_0];
    return vmul(vloadInt8(b.qs + col % QK8_0), vset1(halfToFloatF16c(b.d)));
}

// dotF32 and axpyF32 over a key or value row of any of those types.
template <typename KV>
float dotKv(const float* a, const KV* b, std::int64_t n)
{
    VecF acc0 = vzero();
    VecF acc1 = vzero();
    std::int64_t i = 0;
    for (; i + 2 * kLanes <= n; i += 2 * kLanes) {
        acc0 = vfma(vload(a + i), kvLoad(b, i), acc0);
        acc1 = vfma(vload(a + i + kLanes), kvLoad(b, i + kLanes), acc1);
    }
    if (i + kLanes <= n) {
        acc0 = vfma(vload(a + i), kvLoad(b, i), acc0);
        i += kLanes;
    }
    float sum = vsum(vadd(acc0, acc1));
    for (; i < n; ++i) {
        sum += a[i] * kvAt(b, i);
    }
    return sum;
}

template <typename KV>
void axpyKv(float* y, float a, const KV* x, std::int64_t n)
{
    const VecF av = vset1(a);
    std::int64_t i = 0;
    for (; i + kLanes <= n; i += kLanes) {
        vstore(y + i, vfma(kvLoad(x, i), av, vload(y + i)));
    }
    for (; i < n; ++i) {
        y[i] += a * kvAt(x, i);
    }
}

float dotF32(const float* a, const float* b, std::int64_t n)
{
    return dotKv(a, b, n);
}

void axpyF32(float* y, float a, const float* x, std::int64_t n)
{
    axpyKv(y, a, x, n);
}

// exp(x) for SwiGLU: 2^k * p(r) with k = round(x / ln 2), r = x - k ln 2 (ln 2 split in two
// parts so r is exact to float precision) and p the degree-6 Taylor polynomial of exp on
// |r| <= ln 2 / 2: within 2 ulp of expf over the range where silu is not saturated. Large
// |x| gives 0 or infinity as expf does (silu then yields 0 or g), NaN stays NaN.
#if defined(__AVX512F__)
inline __m512 expApprox(__m512 x)
{
    const __m512 k = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)),
                                          _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 r = _mm512_fnmadd_ps(k, _mm512_set1_ps(0.693359375f), x);
    r = _mm512_fnmadd_ps(k, _mm512_set1_ps(-2.12194440e-4f), r);
    __m512 p = _mm512_set1_ps(1.0f / 720.0f);
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 120.0f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 24.0f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 6.0f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0.5f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
    // scalef saturates to 0 / infinity by itself.
    return _mm512_scalef_ps(p, k);
}
#else
inline __m256 expApprox(__m256 x)
{
    // Outside [-87.3, 88.7] expf is 0 / infinity (or denormal); clamping keeps 2^k a normal
    // float, and the blend below restores the limits.
    const __m256 xc = _mm256_min_ps(_mm256_max_ps(x, _mm256_set1_ps(-87.0f)), _mm256_set1_ps(88.0f));
    const __m256 k = _mm256_round_ps(_mm256_mul_ps(xc, _mm256_set1_ps(1.44269504088896341f)),
                                     _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256 r = _mm256_fnmadd_ps(k, _mm256_set1_ps(0.693359375f), xc);
    r = _mm256_fnmadd_ps(k, _mm256_set1_ps(-2.12194440e-4f), r);
    __m256 p = _mm256_set1_ps(1.0f / 720.0f);
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 120.0f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 24.0f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 6.0f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(0.5f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
    const __m256i bits = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(k), _mm256_set1_epi32(127)), 23);
    __m256 e = _mm256_mul_ps(p, _mm256_castsi256_ps(bits));
    e = _mm256_blendv_ps(e, _mm256_setzero_ps(), _mm256_cmp_ps(x, _mm256_set1_ps(-87.0f), _CMP_LT_OQ));
    e = _mm256_blendv_ps(e, _mm256_set1_ps(std::numeric_limits<float>::infinity()),
                         _mm256_cmp_ps(x, _mm256_set1_ps(88.0f), _CMP_GT_OQ));
    // NaN in, NaN out (the clamps above would have turned it into a number).
    return _mm256_blendv_ps(e, x, _mm256_cmp_ps(x, x, _CMP_UNORD_Q));
}
#endif

void swigluF32(float* gate, const float* up, std::int64_t n)
{
    std::int64_t i = 0;
    for (; i + kLanes <= n; i += kLanes) {
        const VecF g = vload(gate + i);
        const VecF e = expApprox(vsub(vzero(), g));
        vstore(gate + i, vmul(vdiv(g, vadd(vset1(1.0f), e)), vload(up + i)));
    }
    for (; i < n; ++i) {
        const float g = gate[i];
        gate[i] = g / (1.0f + std::exp(-g)) * up[i];
    }
}

void siluF32(float* x, std::int64_t n)
{
    std::int64_t i = 0;
    for (; i + kLanes <= n; i += kLanes) {
        const VecF g = vload(x + i);
        vstore(x + i, vdiv(g, vadd(vset1(1.0f), expApprox(vsub(vzero(), g)))));
    }
    for (; i < n; ++i)
        x[i] = x[i] / (1.0f + std::exp(-x[i]));
}

// A prompt's attention for one head (kernels.h, AttendHeadArgs). The keys are transposed once
// into the scratch (headDim rows of all keys), so kAttendQueryBlock queries score a vector of
// keys per step with broadcast query elements: no horizontal sums, one FMA per query and key
// vector per head element. Softmax uses the polynomial exp of SwiGLU, and the weighted sum of
// values adds a value row into four queries' outputs at a time. Head sizes the vectors do not
// divide take the scalar reference.
// row[0..n) = softmax(row[0..n)); row[n..padded) = 0 (padded is a multiple of kLanes).
inline void softmaxRow(float* row, int n, int padded, float sink)
{
    VecF m = vset1(-std::numeric_limits<float>::infinity());
    int j = 0;
    for (; j + kLanes <= n; j += kLanes) {
        m = vmax(m, vload(row + j));
    }
    float maxScore = std::max(vmaxAcross(m), sink);
    for (int t = j; t < n; ++t) {
        maxScore = std::max(maxScore, row[t]);
    }
    const VecF mv = vset1(maxScore);
    VecF sum = vzero();
    for (j = 0; j + kLanes <= n; j += kLanes) {
        const VecF e = expApprox(vsub(vload(row + j), mv));
        vstore(row + j, e);
        sum = vadd(sum, e);
    }
    // A sink takes its share of the sum and gives nothing back (exp(-inf) = 0 without one).
    float tail = std::exp(sink - maxScore);
    for (int t = j; t < n; ++t) {
        row[t] = std::exp(row[t] - maxScore);
        tail += row[t];
    }
    const VecF inv = vset1(1.0f / (vsum(sum) + tail));
    for (j = 0; j + kLanes <= n; j += kLanes) {
        vstore(row + j, vmul(vload(row + j), inv));
    }
    const float invScalar = 1.0f / (vsum(sum) + tail);
    for (int t = j; t < padded; ++t) {
        row[t] = t < n ? row[t] * invScalar : 0.0f;
    }
}

// Gemma 2's soft-capping of @p n scores, none for @p cap 0. Scalar: only that family pays.
inline void softCapRow(float* row, int n, float cap)
{
    if (cap <= 0.0f) {
        return;
    }
    for (int j = 0; j < n; ++j) {
        row[j] = cap * std::tanh(row[j] / cap);
    }
}


// out[l] = the sum of v[l]'s lanes, for the kLanes vectors v[0 .. kLanes): a transposing tree of
// adds, about one shuffle and one add per input instead of a horizontal sum each.
#if defined(__AVX512F__)
inline VecF reduceLanes(const VecF* v)
{
    __m512 t[8];
    for (int i = 0; i < 8; ++i) {
        // Per 128-bit block: [a0+a2, b0+b2, a1+a3, b1+b3].
        t[i] = _mm512_add_ps(_mm512_unpacklo_ps(v[2 * i], v[2 * i + 1]), _mm512_unpackhi_ps(v[2 * i], v[2 * i + 1]));
    }
    __m512 u[4];
    for (int i = 0; i < 4; ++i) {
        // Per 128-bit block: the block's sums of v[4i .. 4i + 4).
        const __m512d a = _mm512_castps_pd(t[2 * i]);
        const __m512d b = _mm512_castps_pd(t[2 * i + 1]);
        u[i] = _mm512_add_ps(_mm512_castpd_ps(_mm512_unpacklo_pd(a, b)), _mm512_castpd_ps(_mm512_unpackhi_pd(a, b)));
    }
    // Block m of the result: the four blocks of u[m] added up.
    const __m512 y0 = _mm512_add_ps(_mm512_shuffle_f32x4(u[0], u[1], 0x88), _mm512_shuffle_f32x4(u[0], u[1], 0xDD));
    const __m512 y1 = _mm512_add_ps(_mm512_shuffle_f32x4(u[2], u[3], 0x88), _mm512_shuffle_f32x4(u[2], u[3], 0xDD));
    return _mm512_add_ps(_mm512_shuffle_f32x4(y0, y1, 0x88), _mm512_shuffle_f32x4(y0, y1, 0xDD));
}
#else
inline VecF reduceLanes(const VecF* v)
{
    // Per 128-bit half: the half's sums of v[0..4) and of v[4..8).
    const __m256 s0 = _mm256_hadd_ps(_mm256_hadd_ps(v[0], v[1]), _mm256_hadd_ps(v[2], v[3]));
    const __m256 s1 = _mm256_hadd_ps(_mm256_hadd_ps(v[4], v[5]), _mm256_hadd_ps(v[6], v[7]));
    return _mm256_add_ps(_mm256_permute2f128_ps(s0, s1, 0x20), _mm256_permute2f128_ps(s0, s1, 0x31));
}
#endif

// Rows of one head lie a whole cache row apart (every head's keys of a position together), a
// stride the hardware prefetchers follow poorly: a decoded token's attention asks for the rows it
// reads kPrefetchRows positions ahead itself.
constexpr int kPrefetchRows = 32;
template <typename KV>
inline void prefetchRows(const KV* base, std::size_t stride, int first, int count, int rowBytes)
{
    for (int r = 0; r < count; ++r) {
        const char* row = reinterpret_cast<const char*>(base + static_cast<std::size_t>(first + r) * stride);
        for (int b = 0; b < rowBytes; b += 64)
            _mm_prefetch(row + b, _MM_HINT_T0);
    }
}

// attendSamePosition's weighted sum of the values for vectors [c0, c0 + cn) of a head too wide for
// the accumulators: out = scores . V for every query, each query's cn vectors in registers.
template <int kAccumulators, typename KV>
void addValueSlice(const AttendHeadArgs& a, const KV* vBase, const float* scores, int padded, int rowBytes, int c0,
                   int cn)
{
    const int keys = a.firstPos + 1;
    const int chunk = std::max(1, kAccumulators / cn);
    for (int i0 = 0; i0 < a.nq; i0 += chunk) {
        const int in = std::min(chunk, a.nq - i0);
        VecF acc[kAccumulators];
        for (int c = 0; c < kAccumulators; ++c) {
            acc[c] = vzero();
        }
        for (int j = 0; j < keys; ++j) {
            const KV* vr = vBase + static_cast<std::size_t>(j) * a.kvStride;
            if (j + kPrefetchRows < keys)
                prefetchRows(vBase, a.kvStride, j + kPrefetchRows, 1, rowBytes);
            for (int i = 0; i < in; ++i) {
                const VecF p = vset1(scores[static_cast<std::size_t>(i0 + i) * padded + j]);
                for (int c = 0; c < cn; ++c) {
                    acc[i * cn + c] = vfma(p, kvLoad(vr, (c0 + c) * kLanes), acc[i * cn + c]);
                }
            }
        }
        for (int i = 0; i < in; ++i) {
            float* out = a.out + static_cast<std::size_t>(i0 + i) * a.outStride + c0 * kLanes;
            for (int c = 0; c < cn; ++c) {
                vstore(out + c * kLanes, acc[i * cn + c]);
            }
        }
    }
}

// Vectors of a head whose weighted value sums fit the registers at once.
constexpr int kSamePositionAccumulators = kLanes == 16 ? 16 : 8;

// AttendHeadArgs::samePosition: the query heads of one KV head for a decoded token. Each key row
// is dotted with every query while it is in L1, and each value row is added into every query's
// output held in registers, so the cache is read once per KV head instead of once per query head.
// The rows are prefetched (see prefetchRows). @p kWide: heads of more vectors than
// kSamePositionAccumulators, whose value sums go in slices (a separate instantiation, so the
// common case's code stays as tight as it was: GCC schedules the two-path version worse).
template <typename KV, bool kWide>
void attendSamePosition(const AttendHeadArgs& a, const KV* kBase, const KV* vBase)
{
    const int hd = a.headDim;
    const int keys = a.firstPos + 1;
    const int padded = (keys + 15) / 16 * 16;
    float* scores = a.scratch; // [nq][padded]
    const int vectors = hd / kLanes;
    const VecF scale = vset1(a.scale);
    // kLanes keys at a time: while their rows are in L1, every query takes its kLanes dots and
    // sums them with one reduceLanes().
    const int rowBytes = hd * int(sizeof(KV)) / (std::is_same_v<KV, BlockQ8_0> ? QK8_0 : 1);
    for (int j0 = 0; j0 < keys; j0 += kLanes) {
        const int jn = std::min(kLanes, keys - j0);
        prefetchRows(kBase, a.kvStride, j0 + kPrefetchRows, std::min(kLanes, keys - j0 - kPrefetchRows), rowBytes);
        for (int i = 0; i < a.nq; ++i) {
            const float* q = a.q + static_cast<std::size_t>(i) * a.qStride;
            VecF acc[kLanes];
            for (int jj = 0; jj < kLanes; ++jj) {
                acc[jj] = vzero();
            }
            for (int jj = 0; jj < jn; ++jj) {
                const KV* kr = kBase + static_cast<std::size_t>(j0 + jj) * a.kvStride;
                for (int c = 0; c < vectors; ++c) {
                    acc[jj] = vfma(vload(q + c * kLanes), kvLoad(kr, c * kLanes), acc[jj]);
                }
            }
            // padded is a multiple of 16, so the row has room for the whole vector.
            vstore(scores + static_cast<std::size_t>(i) * padded + j0, vmul(reduceLanes(acc), scale));
        }
    }
    for (int i = 0; i < a.nq; ++i) {
        softCapRow(scores + static_cast<std::size_t>(i) * padded, keys, a.softCap);
        softmaxRow(scores + static_cast<std::size_t>(i) * padded, keys, keys, sinkOf(a, i));
    }
    constexpr int kAccumulators = kSamePositionAccumulators;
    if constexpr (kWide) {
        // Heads wider than the accumulators (AVX2 beyond 64): the weighted sum in slices of them.
        for (int c0 = 0; c0 < vectors; c0 += kAccumulators)
            addValueSlice<kAccumulators>(a, vBase, scores, padded, rowBytes, c0, std::min(kAccumulators, vectors - c0));
        return;
    }
    const int chunk = std::max(1, kAccumulators / vectors);
    for (int i0 = 0; i0 < a.nq; i0 += chunk) {
        const int in = std::min(chunk, a.nq - i0);
        VecF acc[kAccumulators];
        for (int c = 0; c < kAccumulators; ++c) {
            acc[c] = vzero();
        }
        for (int j = 0; j < keys; ++j) {
            const KV* vr = vBase + static_cast<std::size_t>(j) * a.kvStride;
            if (j + kPrefetchRows < keys)
                prefetchRows(vBase, a.kvStride, j + kPrefetchRows, 1, rowBytes);
            for (int i = 0; i < in; ++i) {
                const VecF p = vset1(scores[static_cast<std::size_t>(i0 + i) * padded + j]);
                for (int c = 0; c < vectors; ++c) {
                    acc[i * vectors + c] = vfma(p, kvLoad(vr, c * kLanes), acc[i * vectors + c]);
                }
            }
        }
        for (int i = 0; i < in; ++i) {
            float* out = a.out + static_cast<std::size_t>(i0 + i) * a.outStride;
            for (int c = 0; c < vectors; ++c) {
                vstore(out + c * kLanes, acc[i * vectors + c]);
            }
        }
    }
}

template <typename KV>
void attendHeadOf(const AttendHeadArgs& a)
{
    const auto* kBase = static_cast<const KV*>(a.k);
    const auto* vBase = static_cast<const KV*>(a.v);
    const int hd = a.headDim;
    if (a.samePosition) {
        // Head sizes the vectors do not divide: the reference.
        if (hd % kLanes != 0) {
            attendHeadReference(a);
        } else if (hd / kLanes > kSamePositionAccumulators) {
            attendSamePosition<KV, true>(a, kBase, vBase);
        } else {
            attendSamePosition<KV, false>(a, kBase, vBase);
        }
        return;
    }
    if (a.nq == 1) {
        // A decoded token: nothing to share a transposed key with, so one vector dot per key;
        // the softmax still takes the vector exp.
        const int keys = a.firstPos + 1;
        float* scores = a.scratch;
        for (int j = 0; j < keys; ++j) {
            scores[j] = dotKv(a.q, kBase + static_cast<std::size_t>(j) * a.kvStride, hd) * a.scale;
        }
        softCapRow(scores, keys, a.softCap);
        softmaxRow(scores, keys, keys, sinkOf(a, 0));
        std::fill_n(a.out, hd, 0.0f);
        for (int j = 0; j < keys; ++j) {
            axpyKv(a.out, scores[j], vBase + static_cast<std::size_t>(j) * a.kvStride, hd);
        }
        return;
    }
    if (hd % kLanes != 0) {
        attendHeadReference(a);
        return;
    }
    constexpr int QB = kAttendQueryBlock;
    const int keys = a.firstPos + a.nq;
    const int padded = (keys + 15) / 16 * 16;
    float* kt = a.scratch;                                // [hd][padded]
    float* scores = kt + static_cast<std::size_t>(hd) * padded; // [QB][padded]
    for (int j = 0; j < keys; ++j) {
        const KV* kr = kBase + static_cast<std::size_t>(j) * a.kvStride;
        for (int d = 0; d < hd; ++d) {
            kt[static_cast<std::size_t>(d) * padded + j] = kvAt(kr, d);
        }
    }
    for (int d = 0; d < hd; ++d) {
        std::fill(kt + static_cast<std::size_t>(d) * padded + keys, kt + static_cast<std::size_t>(d + 1) * padded, 0.0f);
    }
    const VecF scale = vset1(a.scale);
    for (int q0 = 0; q0 < a.nq; q0 += QB) {
        const int qn = std::min(QB, a.nq - q0);
        const float* q[QB];
        for (int i = 0; i < QB; ++i) {
            q[i] = a.q + static_cast<std::size_t>(q0 + std::min(i, qn - 1)) * a.qStride;
        }
        const int blockKeys = a.firstPos + q0 + qn; // the last query's keys
        const int keyVectors = (blockKeys + kLanes - 1) / kLanes;
        const int rowLength = keyVectors * kLanes;
        for (int b = 0; b < keyVectors; ++b) {
            VecF acc[QB];
            for (int i = 0; i < QB; ++i) {
                acc[i] = vzero();
            }
            const float* kcol = kt + static_cast<std::size_t>(b) * kLanes;
            for (int d = 0; d < hd; ++d) {
                const VecF kv = vload(kcol + static_cast<std::size_t>(d) * padded);
                for (int i = 0; i < QB; ++i) {
                    acc[i] = vfma(vset1(q[i][d]), kv, acc[i]);
                }
            }
            for (int i = 0; i < qn; ++i) {
                vstore(scores + static_cast<std::size_t>(i) * padded + static_cast<std::size_t>(b) * kLanes,
                       vmul(acc[i], scale));
            }
        }
        for (int i = 0; i < qn; ++i) {
            softCapRow(scores + static_cast<std::size_t>(i) * padded, a.firstPos + q0 + i + 1, a.softCap);
            softmaxRow(scores + static_cast<std::size_t>(i) * padded, a.firstPos + q0 + i + 1, rowLength, sinkOf(a, 0));
        }
        // out[i] = sum over keys of p[i][j] * v[j], four queries and 4 x kLanes of the head at a
        // time; probabilities past a query's own position are 0.
        for (int i0 = 0; i0 < qn; i0 += 4) {
            const int in = std::min(4, qn - i0);
            for (int d0 = 0; d0 < hd; d0 += 4 * kLanes) {
                const int dv = std::min(4, (hd - d0) / kLanes);
                VecF acc[4][4];
                for (int i = 0; i < 4; ++i) {
                    for (int c = 0; c < 4; ++c) {
                        acc[i][c] = vzero();
                    }
                }
                const int lastKey = a.firstPos + q0 + i0 + in; // keys of the block's last query
                for (int j = 0; j < lastKey; ++j) {
                    const KV* vr = vBase + static_cast<std::size_t>(j) * a.kvStride;
                    VecF vv[4];
                    for (int c = 0; c < dv; ++c) {
                        vv[c] = kvLoad(vr, d0 + c * kLanes);
                    }
                    for (int i = 0; i < in; ++i) {
                        const VecF p = vset1(scores[static_cast<std::size_t>(i0 + i) * padded + j]);
                        for (int c = 0; c < dv; ++c) {
                            acc[i][c] = vfma(p, vv[c], acc[i][c]);
                        }
                    }
                }
                for (int i = 0; i < in; ++i) {
                    float* out = a.out + static_cast<std::size_t>(q0 + i0 + i) * a.outStride + d0;
                    for (int c = 0; c < dv; ++c) {
                        vstore(out + c * kLanes, acc[i][c]);
                    }
                }
            }
        }
    }
}

void attendHead(const AttendHeadArgs& a)
{
    withKvElement(a.kvType, [&a](auto element) { attendHeadOf<decltype(element)>(a); });
}

// ---------------------------------------------------------------------------------------------
// Drivers: full tiles, then the leftover tokens and rows with smaller instantiations.

#define HEARTH_DEFINE_TILE_DISPATCH(Name, Fn)                                                           \
    template <typename E, int R, int T>                                                                 \
    inline void Name(const GemmArgs& a, std::int64_t r0, std::int64_t t0, std::int64_t count)          \
    {                                                                                                   \
        /* count < T tokens remain: peel them one instantiation at a time */                             \
        if constexpr (T > 1) {                                                                          \
            if (count == T - 1) {                                                                       \
                Fn<E, R, T - 1>(a, r0, t0);                                                             \
            } else {                                                                                    \
                Name<E, R, T - 1>(a, r0, t0, count);                                                    \
            }                                                                                           \
        } else {                                                                                        \
            (void)a, (void)r0, (void)t0, (void)count;                                                   \
        }                                                                                               \
    }

HEARTH_DEFINE_TILE_DISPATCH(tokenTailQuantized, tileQuantized)
HEARTH_DEFINE_TILE_DISPATCH(tokenTailFloat, tileFloat)
#undef HEARTH_DEFINE_TILE_DISPATCH

template <typename E, int R, int T, bool Quantized>
inline void rowGroup(const GemmArgs& a, std::int64_t r0)
{
    std::int64_t t = 0;
    for (; t + T <= a.tokens; t += T) {
        if constexpr (Quantized) {
            tileQuantized<E, R, T>(a, r0, t);
        } else {
            tileFloat<E, R, T>(a, r0, t);
        }
    }
    if (t < a.tokens) {
        if constexpr (Quantized) {
            tokenTailQuantized<E, R, T>(a, r0, t, a.tokens - t);
        } else {
            tokenTailFloat<E, R, T>(a, r0, t, a.tokens - t);
        }
    }
}

template <typename E, int R, int T, bool Quantized>
inline void gemmRows(const GemmArgs& a, std::int64_t rowBegin, std::int64_t rowEnd)
{
    std::int64_t r = rowBegin;
    for (; r + R <= rowEnd; r += R) {
        rowGroup<E, R, T, Quantized>(a, r);
    }
    for (; r < rowEnd; ++r) {
        rowGroup<E, 1, T, Quantized>(a, r);
    }
}

// Quantized decode of rows as stored (Q8_0, Q4_0 without packing) keeps several rows in flight
// to hide latency; prefill uses the largest register tile.
#if defined(__AVX512F__)
constexpr int kQuantRows = 4;
constexpr int kQuantTokens = 4;
constexpr int kFloatRows = 4;
constexpr int kFloatTokens = 4;
#else
constexpr int kQuantRows = 2;
constexpr int kQuantTokens = 4;
constexpr int kFloatRows = 4;
constexpr int kFloatTokens = 2;
#endif
constexpr int kDecodeRows = 4;

template <typename E, bool Quantized, int PrefillRows, int PrefillTokens>
void gemm(const GemmArgs& a, std::int64_t rowBegin, std::int64_t rowEnd)
{
    if (a.tokens == 1) {
        if constexpr (!Quantized) {
            for (std::int64_t r = rowBegin; r < rowEnd; ++r) {
                rowFloatDecode<E>(a, r);
            }
            return;
        }
        gemmRows<E, kDecodeRows, 1, Quantized>(a, rowBegin, rowEnd);
    } else {
        gemmRows<E, PrefillRows, PrefillTokens, Quantized>(a, rowBegin, rowEnd);
    }
}

// Q4_1, Q5_0, Q5_1: a prompt batch reuses each unpacked block for a tile of tokens; one token
// goes row by row through the type's dot product, which measured faster than a 4 x 1 tile
// (1.1B Q5_0 decode 24.1 against 18.9 tok/s).
template <typename Block>
void gemmPromptTiles(const GemmArgs& a, std::int64_t rowBegin, std::int64_t rowEnd)
{
    if (a.tokens == 1)
        gemmBlockRows(a, rowBegin, rowEnd);
    else
        gemmRows<Block, kQuantRows, kQuantTokens, true>(a, rowBegin, rowEnd);
}

// ---------------------------------------------------------------------------------------------
// K-quant row dot products against ActBlockQ8K (block_dot.h has the scalar definitions). Each
// 32-weight run is widened to unsigned bytes, multiplied with the signed activations by
// maddubs (pairs of products in int16, which cannot overflow: 2 * 63 * 127 < 32767) and summed
// to int32 with its sub-block scale by madd; the constant parts (Q4_K/Q5_K mins, Q6_K's -32
// offset) come from the activation block sums. One float multiply-add per super-block.

// 8 int32 sums of q * x over 32 weights, times @p scale.
inline __m256i scaledDot32(__m256i q, __m256i x, int scale)
{
    return _mm256_madd_epi16(_mm256_maddubs_epi16(q, x), _mm256_set1_epi16(static_cast<std::int16_t>(scale)));
}

// Like scaledDot32, with one scale for weights 0-15 and another for 16-31.
inline __m256i scaledDot32x2(__m256i q, __m256i x, int scaleLow, int scaleHigh)
{
    const __m256i scales = _mm256_set_m128i(_mm_set1_epi16(static_cast<std::int16_t>(scaleHigh)),
                                            _mm_set1_epi16(static_cast<std::int16_t>(scaleLow)));
    return _mm256_madd_epi16(_mm256_maddubs_epi16(q, x), scales);
}

// The int16 at lane @p lane of @p v (a constant) in all 16 lanes; v's two 128-bit halves equal.
template <int Lane>
inline __m256i broadcastLane16(__m256i v)
{
    return _mm256_shuffle_epi8(v, _mm256_set1_epi16(static_cast<std::int16_t>((2 * Lane + 1) << 8 | (2 * Lane))));
}

// Sub-block scales s and s + 1 of a 16-lane int16 vector: lanes 0-7 get scale s, 8-15 scale s + 1
// (the halves of a 32-weight run of 16-weight sub-blocks).
template <int Sub>
inline __m256i scalePair16(__m256i scales)
{
    const __m128i low = _mm_set1_epi16(static_cast<std::int16_t>((2 * Sub + 1) << 8 | (2 * Sub)));
    const __m128i high = _mm_set1_epi16(static_cast<std::int16_t>((2 * Sub + 3) << 8 | (2 * Sub + 2)));
    return _mm256_shuffle_epi8(scales, _mm256_set_m128i(high, low));
}

template <bool FifthBit, typename Block>
float dotQ45K(const void* row, const void* activations, std::int64_t n)
{
    const auto* blocks = static_cast<const Block*>(row);
    const auto* x = static_cast<const ActBlockQ8K*>(activations);
    __m256 acc = _mm256_setzero_ps();
    __m128 accMin = _mm_setzero_ps();
    for (std::int64_t b = 0; b < n / QK_K; ++b) {
        const Block& w = blocks[b];
        const __m256i scalesMins = scalesMinsK4(w.scales);
        // The min terms: min_s * (sum of the sub-block's activations), from the pair sums of bsums.
        const __m256i bsums = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x[b].bsums));
        const __m128i pairSums = _mm_hadd_epi16(_mm256_castsi256_si128(bsums), _mm256_extracti128_si256(bsums, 1));
        const __m128i minProducts = _mm_madd_epi16(_mm256_extracti128_si256(scalesMins, 1), pairSums);
        accMin = _mm_fmadd_ps(_mm_set1_ps(x[b].d * halfToFloatF16c(w.dmin)), _mm_cvtepi32_ps(minProducts), accMin);

        const __m256i scales = _mm256_broadcastsi128_si256(_mm256_castsi256_si128(scalesMins));
        __m256i high = _mm256_setzero_si256();
        if constexpr (FifthBit)
            high = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w.qh));
        __m256i sumi = _mm256_setzero_si256();
        auto chunk = [&](auto c, __m256i scaleLo, __m256i scaleHi) {
            constexpr int C = decltype(c)::value;
            __m256i lo;
            __m256i hi;
            levelsQ45K<FifthBit>(w, high, C, lo, hi);
            const __m256i xlo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x[b].qs + 64 * C));
            const __m256i xhi = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x[b].qs + 64 * C + 32));
            sumi = _mm256_add_epi32(sumi, _mm256_madd_epi16(_mm256_maddubs_epi16(lo, xlo), scaleLo));
            sumi = _mm256_add_epi32(sumi, _mm256_madd_epi16(_mm256_maddubs_epi16(hi, xhi), scaleHi));
        };
        chunk(std::integral_constant<int, 0>{}, broadcastLane16<0>(scales), broadcastLane16<1>(scales));
        chunk(std::integral_constant<int, 1>{}, broadcastLane16<2>(scales), broadcastLane16<3>(scales));
        chunk(std::integral_constant<int, 2>{}, broadcastLane16<4>(scales), broadcastLane16<5>(scales));
        chunk(std::integral_constant<int, 3>{}, broadcastLane16<6>(scales), broadcastLane16<7>(scales));
        acc = _mm256_fmadd_ps(_mm256_set1_ps(x[b].d * halfToFloatF16c(w.d)), _mm256_cvtepi32_ps(sumi), acc);
    }
    __m128 m = _mm_add_ps(accMin, _mm_movehl_ps(accMin, accMin));
    m = _mm_add_ss(m, _mm_movehdup_ps(m));
    return hsum256(acc) - _mm_cvtss_f32(m);
}

float dotQ4_K(const void* row, const void* activations, std::int64_t n)
{
    return dotQ45K<false, BlockQ4_K>(row, activations, n);
}

float dotQ5_K(const void* row, const void* activations, std::int64_t n)
{
    return dotQ45K<true, BlockQ5_K>(row, activations, n);
}

float dotQ6_K(const void* row, const void* activations, std::int64_t n)
{
    const auto* blocks = static_cast<const BlockQ6_K*>(row);
    const auto* x = static_cast<const ActBlockQ8K*>(activations);
    __m256 acc = _mm256_setzero_ps();
    for (std::int64_t b = 0; b < n / QK_K; ++b) {
        const BlockQ6_K& w = blocks[b];
        const __m256i scales16 = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(w.scales)));
        // The -32 of every weight: 32 * sum over sub-blocks of scale * (sum of its activations).
        const __m256i bsums = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x[b].bsums));
        __m256i sumi = _mm256_mullo_epi32(_mm256_madd_epi16(scales16, bsums), _mm256_set1_epi32(-32));
        const __m256i scalesLow = _mm256_broadcastsi128_si256(_mm256_castsi256_si128(scales16));
        const __m256i scalesHigh = _mm256_broadcastsi128_si256(_mm256_extracti128_si256(scales16, 1));
        auto half = [&](auto h, __m256i halfScales) {
            constexpr int H = decltype(h)::value;
            __m256i q[4];
            levelsQ6K(w, H, q);
            const std::int8_t* xs = x[b].qs + 128 * H;
            auto run = [&](__m256i q, int k, __m256i scale) {
                const __m256i xv = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(xs + 32 * k));
                sumi = _mm256_add_epi32(sumi, _mm256_madd_epi16(_mm256_maddubs_epi16(q, xv), scale));
            };
            run(q[0], 0, scalePair16<0>(halfScales));
            run(q[1], 1, scalePair16<2>(halfScales));
            run(q[2], 2, scalePair16<4>(halfScales));
            run(q[3], 3, scalePair16<6>(halfScales));
        };
        half(std::integral_constant<int, 0>{}, scalesLow);
        half(std::integral_constant<int, 1>{}, scalesHigh);
        acc = _mm256_fmadd_ps(_mm256_set1_ps(x[b].d * halfToFloatF16c(w.d)), _mm256_cvtepi32_ps(sumi), acc);
    }
    return hsum256(acc);
}

// Signed 8-bit products in pairs of int16 (|a b| <= 127 * 128, two of them fit): maddubs wants
// an unsigned first operand, so a's sign moves onto b.
inline __m256i signedPairSums(__m256i a, __m256i b)
{
    return _mm256_maddubs_epi16(_mm256_sign_epi8(a, a), _mm256_sign_epi8(b, a));
}

// The 32 levels of a block of 16 nibble pairs through a 16-entry codebook (IQ4_NL's, MXFP4's),
// low nibbles first, then high ones.
inline __m256i codebookValues(const std::uint8_t* qs, const std::int8_t (&codebook)[16])
{
    const __m128i packed = _mm_loadu_si128(reinterpret_cast<const __m128i*>(qs));
    const __m128i mask = _mm_set1_epi8(0x0f);
    const __m256i nibbles = _mm256_set_m128i(_mm_and_si128(_mm_srli_epi16(packed, 4), mask), _mm_and_si128(packed, mask));
    const __m256i table = _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(codebook)));
    return _mm256_shuffle_epi8(table, nibbles);
}

inline __m256i iq4Values(const std::uint8_t* qs)
{
    return codebookValues(qs, kIq4nlValues);
}

float dotIQ4_XS(const void* row, const void* activations, std::int64_t n)
{
    const auto* blocks = static_cast<const BlockIQ4_XS*>(row);
    const auto* x = static_cast<const ActBlockQ8K*>(activations);
    __m256 acc = _mm256_setzero_ps();
    for (std::int64_t b = 0; b < n / QK_K; ++b) {
        const BlockIQ4_XS& w = blocks[b];
        __m256i sumi = _mm256_setzero_si256();
        for (int s = 0; s < 8; ++s) {
            const __m256i xs = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x[b].qs + 32 * s));
            const __m256i pairs = signedPairSums(iq4Values(w.qs + 16 * s), xs);
            const int scale = (((w.scalesL[s / 2] >> (4 * (s % 2))) & 0x0f) | (((w.scalesH >> (2 * s)) & 3) << 4)) - 32;
            // The int16 pair sums times the scale, summed to int32 in one step.
            sumi = _mm256_add_epi32(sumi, _mm256_madd_epi16(pairs, _mm256_set1_epi16(static_cast<std::int16_t>(scale))));
        }
        acc = _mm256_fmadd_ps(_mm256_set1_ps(x[b].d * halfToFloatF16c(w.d)), _mm256_cvtepi32_ps(sumi), acc);
    }
    return hsum256(acc);
}

float dotIQ4_NL(const void* row, const void* activations, std::int64_t n)
{
    const auto* blocks = static_cast<const BlockIQ4_NL*>(row);
    const auto* x = static_cast<const ActBlockQ8*>(activations);
    const __m256i one = _mm256_set1_epi16(1);
    __m256 acc = _mm256_setzero_ps();
    for (std::int64_t b = 0; b < n / QK4_NL; ++b) {
        const __m256i xs = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x[b].qs));
        const __m256i sums = _mm256_madd_epi16(signedPairSums(iq4Values(blocks[b].qs), xs), one);
        acc = _mm256_fmadd_ps(_mm256_set1_ps(x[b].d * halfToFloatF16c(blocks[b].d)), _mm256_cvtepi32_ps(sums), acc);
    }
    return hsum256(acc);
}

float dotMXFP4(const void* row, const void* activations, std::int64_t n)
{
    const auto* blocks = static_cast<const BlockMXFP4*>(row);
    const auto* x = static_cast<const ActBlockQ8*>(activations);
    const __m256i one = _mm256_set1_epi16(1);
    __m256 acc = _mm256_setzero_ps();
    for (std::int64_t b = 0; b < n / 32; ++b) {
        const __m256i xs = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x[b].qs));
        const __m256i sums = _mm256_madd_epi16(signedPairSums(codebookValues(blocks[b].qs, kMxfp4Values), xs), one);
        acc = _mm256_fmadd_ps(_mm256_set1_ps(x[b].d * mxfp4HalfScale(blocks[b].e)), _mm256_cvtepi32_ps(sums), acc);
    }
    return hsum256(acc);
}

// Q4_1, Q5_0 and Q5_1 rows against ActBlockQ8, as the reference (block_dot.cpp): d_w d_x
// sum(q_w q_x), plus m_w d_x sum(q_x) for the types with an offset. @p levels gives a block's
// 32 levels (0..31, or -16..15 for Q5_0) in element order.
template <typename Block, bool Offset, bool Signed, typename Levels>
float dot32Levels(const void* row, const void* activations, std::int64_t n, Levels levels)
{
    const auto* blocks = static_cast<const Block*>(row);
    const auto* x = static_cast<const ActBlockQ8*>(activations);
    const __m256i one = _mm256_set1_epi16(1);
    __m256 acc = _mm256_setzero_ps();
    float offsets = 0.0f;
    for (std::int64_t b = 0; b < n / 32; ++b) {
        const Block& w = blocks[b];
        const __m256i q = levels(w);
        const __m256i xs = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x[b].qs));
        // Unsigned levels multiply the signed activations directly; signed ones go through signs.
        const __m256i pairs = Signed ? signedPairSums(q, xs) : _mm256_maddubs_epi16(q, xs);
        const __m256i sums = _mm256_madd_epi16(pairs, one);
        acc = _mm256_fmadd_ps(_mm256_set1_ps(x[b].d * halfToFloatF16c(w.d)), _mm256_cvtepi32_ps(sums), acc);
        if constexpr (Offset)
            offsets += halfToFloatF16c(w.m) * x[b].d * float(x[b].sum);
    }
    return hsum256(acc) + offsets;
}

float dotQ4_1(const void* row, const void* activations, std::int64_t n)
{
    return dot32Levels<BlockQ4_1, true, false>(row, activations, n, [](const BlockQ4_1& w) { return unpackQ4(w.qs); });
}

float dotQ5_0(const void* row, const void* activations, std::int64_t n)
{
    return dot32Levels<BlockQ5_0, false, true>(row, activations, n, [](const BlockQ5_0& w) {
        return _mm256_sub_epi8(_mm256_or_si256(unpackQ4(w.qs), fifthBitBytes(w.qh)), _mm256_set1_epi8(16));
    });
}

float dotQ5_1(const void* row, const void* activations, std::int64_t n)
{
    return dot32Levels<BlockQ5_1, true, false>(row, activations, n,
        [](const BlockQ5_1& w) { return _mm256_or_si256(unpackQ4(w.qs), fifthBitBytes(w.qh)); });
}

float dotBF16(const void* row, const void* activations, std::int64_t n)
{
    const auto* w = static_cast<const std::uint16_t*>(row);
    const auto* x = static_cast<const float*>(activations);
    __m256 acc0 = _mm256_setzero_ps();
    __m256 acc1 = _mm256_setzero_ps();
    auto widen = [](const std::uint16_t* p) {
        return _mm256_castsi256_ps(
            _mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))), 16));
    };
    std::int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        acc0 = _mm256_fmadd_ps(widen(w + i), _mm256_loadu_ps(x + i), acc0);
        acc1 = _mm256_fmadd_ps(widen(w + i + 8), _mm256_loadu_ps(x + i + 8), acc1);
    }
    float sum = hsum256(_mm256_add_ps(acc0, acc1));
    for (; i < n; ++i) {
        const std::uint32_t bits = std::uint32_t(w[i]) << 16;
        float v;
        std::memcpy(&v, &bits, sizeof v);
        sum += v * x[i];
    }
    return sum;
}


// ---------------------------------------------------------------------------------------------
// Prompt batches of K-quant rows. A row's super-blocks are unpacked once into unsigned 8-bit
// levels with 16-lane scale vectors (UnpackedK), and several tokens' activations then meet each
// loaded level vector: value = d * scale * (level - offset) - dmin * min per 16-weight group,
// with the offset and min terms taken from the activations' group sums (bsums).

struct UnpackedK {
    alignas(32) std::uint8_t levels[QK_K]; // unsigned; for IQ4_XS the signed codebook values
    alignas(32) std::int16_t runScales[8][16]; // the scales of each 32-weight run, lane by lane
    alignas(32) std::int16_t offsets[16];      // scale * offset per 16-weight group
    alignas(32) std::int16_t mins[16];         // min per 16-weight group
    float d;
    float dmin;
};

template <bool FifthBit, typename Block>
void unpackQ45K(const Block& w, UnpackedK& out)
{
    __m256i high = _mm256_setzero_si256();
    if constexpr (FifthBit)
        high = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w.qh));
    for (int c = 0; c < 4; ++c) {
        __m256i lo;
        __m256i hi;
        levelsQ45K<FifthBit>(w, high, c, lo, hi);
        _mm256_store_si256(reinterpret_cast<__m256i*>(out.levels + 64 * c), lo);
        _mm256_store_si256(reinterpret_cast<__m256i*>(out.levels + 64 * c + 32), hi);
    }
    alignas(32) std::int16_t sm[16];
    _mm256_store_si256(reinterpret_cast<__m256i*>(sm), scalesMinsK4(w.scales));
    for (int r = 0; r < 8; ++r) {
        _mm256_store_si256(reinterpret_cast<__m256i*>(out.runScales[r]), _mm256_set1_epi16(sm[r]));
        out.mins[2 * r] = out.mins[2 * r + 1] = sm[8 + r];
    }
    _mm256_store_si256(reinterpret_cast<__m256i*>(out.offsets), _mm256_setzero_si256());
    out.d = halfToFloatF16c(w.d);
    out.dmin = halfToFloatF16c(w.dmin);
}

void unpack(const BlockQ4_K& w, UnpackedK& out) { unpackQ45K<false>(w, out); }
void unpack(const BlockQ5_K& w, UnpackedK& out) { unpackQ45K<true>(w, out); }

void unpack(const BlockQ6_K& w, UnpackedK& out)
{
    for (int h = 0; h < 2; ++h) {
        __m256i q[4];
        levelsQ6K(w, h, q);
        for (int k = 0; k < 4; ++k)
            _mm256_store_si256(reinterpret_cast<__m256i*>(out.levels + 128 * h + 32 * k), q[k]);
    }
    for (int r = 0; r < 8; ++r) {
        for (int lane = 0; lane < 16; ++lane)
            out.runScales[r][lane] = w.scales[2 * r + lane / 8];
    }
    for (int g = 0; g < 16; ++g) {
        out.offsets[g] = static_cast<std::int16_t>(32 * w.scales[g]);
        out.mins[g] = 0;
    }
    out.d = halfToFloatF16c(w.d);
    out.dmin = 0.0f;
}

void unpack(const BlockIQ4_XS& w, UnpackedK& out)
{
    for (int s = 0; s < 8; ++s) {
        _mm256_store_si256(reinterpret_cast<__m256i*>(out.levels + 32 * s), iq4Values(w.qs + 16 * s));
        const int scale = (((w.scalesL[s / 2] >> (4 * (s % 2))) & 0x0f) | (((w.scalesH >> (2 * s)) & 3) << 4)) - 32;
        _mm256_store_si256(reinterpret_cast<__m256i*>(out.runScales[s]), _mm256_set1_epi16(static_cast<std::int16_t>(scale)));
    }
    _mm256_store_si256(reinterpret_cast<__m256i*>(out.offsets), _mm256_setzero_si256());
    _mm256_store_si256(reinterpret_cast<__m256i*>(out.mins), _mm256_setzero_si256());
    out.d = halfToFloatF16c(w.d);
    out.dmin = 0.0f;
}

// Run r's scale vector from a super-block's 16 signed 8-bit scales held in both 128-bit lanes:
// each byte goes to the high half of its int16 lane by a shuffle and comes back sign-extended by
// an arithmetic shift, with no trip through memory (which took a third of Q3_K's decode).
inline __m256i runScaleFromBytes(__m256i bytes, int r)
{
    const __m256i first = _mm256_setr_epi8(-128, 0, -128, 0, -128, 0, -128, 0, -128, 0, -128, 0, -128, 0, -128, 0,
                                           -128, 1, -128, 1, -128, 1, -128, 1, -128, 1, -128, 1, -128, 1, -128, 1);
    const __m256i control = _mm256_add_epi8(first, _mm256_set1_epi16(static_cast<short>((2 * r) << 8)));
    return _mm256_srai_epi16(_mm256_shuffle_epi8(bytes, control), 8);
}

// Q2_K: levels 0..3, two bits of each byte of a 32-byte run per shift; value = d * (sc & 15) * q -
// dmin * (sc >> 4) per 16-weight group.
void unpack(const BlockQ2_K& w, UnpackedK& out)
{
    for (int n = 0; n < 2; ++n) {
        const __m256i q = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w.qs + 32 * n));
        for (int j = 0; j < 4; ++j) {
            const __m256i levels = _mm256_and_si256(_mm256_srli_epi16(q, 2 * j), _mm256_set1_epi8(3));
            _mm256_store_si256(reinterpret_cast<__m256i*>(out.levels + 128 * n + 32 * j), levels);
        }
    }
    const __m128i packed = _mm_loadu_si128(reinterpret_cast<const __m128i*>(w.scales));
    const __m256i scaleBytes = _mm256_broadcastsi128_si256(_mm_and_si128(packed, _mm_set1_epi8(0x0f)));
    for (int r = 0; r < 8; ++r)
        _mm256_store_si256(reinterpret_cast<__m256i*>(out.runScales[r]), runScaleFromBytes(scaleBytes, r));
    _mm256_store_si256(reinterpret_cast<__m256i*>(out.offsets), _mm256_setzero_si256());
    _mm256_store_si256(reinterpret_cast<__m256i*>(out.mins),
                       _mm256_cvtepu8_epi16(_mm_and_si128(_mm_srli_epi16(packed, 4), _mm_set1_epi8(0x0f))));
    out.d = halfToFloatF16c(w.d);
    out.dmin = halfToFloatF16c(w.dmin);
}

// Q3_K: levels 0..7 (two bits plus the high bit from hmask), offset 4; six-bit scales less 32,
// unpacked from their 12 bytes as ggml does.
// The 16 scales less 32, as signed bytes.
inline __m128i q3kScaleBytes(const BlockQ3_K& w)
{
    std::uint32_t aux[4];
    std::memcpy(aux, w.scales, 12);
    const std::uint32_t tmp = aux[2];
    constexpr std::uint32_t kmask1 = 0x03030303;
    constexpr std::uint32_t kmask2 = 0x0f0f0f0f;
    aux[2] = ((aux[0] >> 4) & kmask2) | (((tmp >> 4) & kmask1) << 4);
    aux[3] = ((aux[1] >> 4) & kmask2) | (((tmp >> 6) & kmask1) << 4);
    aux[0] = (aux[0] & kmask2) | (((tmp >> 0) & kmask1) << 4);
    aux[1] = (aux[1] & kmask2) | (((tmp >> 2) & kmask1) << 4);
    // From registers: a 16-byte load of the four words just stored waits on store forwarding
    // (35 % of Q3_K decode before).
    const __m128i bytes = _mm_setr_epi32(static_cast<int>(aux[0]), static_cast<int>(aux[1]), static_cast<int>(aux[2]),
                                         static_cast<int>(aux[3]));
    return _mm_sub_epi8(bytes, _mm_set1_epi8(32));
}

// The levels of run 4 h + j: bits 2j of the h-th 32 bytes of qs, plus 4 where hmask has bit 4h + j.
inline __m256i q3kLevels(__m256i q, __m256i hm, int h, int j)
{
    const __m256i bit = _mm256_set1_epi8(static_cast<char>(1u << (4 * h + j)));
    const __m256i high = _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_and_si256(hm, bit), bit), _mm256_set1_epi8(4));
    return _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(q, 2 * j), _mm256_set1_epi8(3)), high);
}

void unpack(const BlockQ3_K& w, UnpackedK& out)
{
    const __m256i hm = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w.hmask));
    for (int h = 0; h < 2; ++h) {
        const __m256i q = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w.qs + 32 * h));
        for (int j = 0; j < 4; ++j)
            _mm256_store_si256(reinterpret_cast<__m256i*>(out.levels + 128 * h + 32 * j), q3kLevels(q, hm, h, j));
    }
    const __m128i scales = q3kScaleBytes(w);
    const __m256i scaleBytes = _mm256_broadcastsi128_si256(scales);
    for (int r = 0; r < 8; ++r)
        _mm256_store_si256(reinterpret_cast<__m256i*>(out.runScales[r]), runScaleFromBytes(scaleBytes, r));
    _mm256_store_si256(reinterpret_cast<__m256i*>(out.offsets), _mm256_slli_epi16(_mm256_cvtepi8_epi16(scales), 2));
    _mm256_store_si256(reinterpret_cast<__m256i*>(out.mins), _mm256_setzero_si256());
    out.d = halfToFloatF16c(w.d);
    out.dmin = 0.0f;
}

// Signed levels (IQ4_XS's codebook reaches 127 in magnitude, so unsigned with an offset would
// overflow maddubs' int16 pairs): each token's activations take the levels' signs instead.
template <typename Block>
constexpr bool kSignedLevels = std::is_same_v<Block, BlockIQ4_XS>;

// Adds one block of a token to its sums: @p sumi holds the block's level sums times the run
// scales; the offsets (Q6_K's 32, ...) and mins come from the token's group sums.
inline void addUnpackedBlock(const UnpackedK& w, const ActBlockQ8K& x, __m256i sumi, __m256i offsets, __m256i mins,
                             __m256& acc, __m256& accMin)
{
    const __m256i bsums = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x.bsums));
    const __m256i body = _mm256_sub_epi32(sumi, _mm256_madd_epi16(offsets, bsums));
    acc = _mm256_fmadd_ps(_mm256_set1_ps(x.d * w.d), _mm256_cvtepi32_ps(body), acc);
    accMin = _mm256_fmadd_ps(_mm256_set1_ps(x.d * w.dmin), _mm256_cvtepi32_ps(_mm256_madd_epi16(mins, bsums)), accMin);
}

// T tokens of one unpacked row: y[t] = sum over blocks of the block's value.
template <int T, bool Signed>
void dotUnpackedTokens(const UnpackedK* blocks, std::int64_t blockCount, const ActBlockQ8K* const* x, float* y)
{
    __m256 acc[T];
    __m256 accMin[T];
    for (int t = 0; t < T; ++t) {
        acc[t] = _mm256_setzero_ps();
        accMin[t] = _mm256_setzero_ps();
    }
    for (std::int64_t b = 0; b < blockCount; ++b) {
        const UnpackedK& w = blocks[b];
        __m256i sumi[T];
        for (int t = 0; t < T; ++t)
            sumi[t] = _mm256_setzero_si256();
        for (int r = 0; r < 8; ++r) {
            const __m256i levels = _mm256_load_si256(reinterpret_cast<const __m256i*>(w.levels + 32 * r));
            const __m256i magnitudes = Signed ? _mm256_sign_epi8(levels, levels) : levels;
            const __m256i scale = _mm256_load_si256(reinterpret_cast<const __m256i*>(w.runScales[r]));
            for (int t = 0; t < T; ++t) {
                __m256i xs = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x[t][b].qs + 32 * r));
                if constexpr (Signed)
                    xs = _mm256_sign_epi8(xs, levels);
                sumi[t] = _mm256_add_epi32(sumi[t], _mm256_madd_epi16(_mm256_maddubs_epi16(magnitudes, xs), scale));
            }
        }
        const __m256i offsets = _mm256_load_si256(reinterpret_cast<const __m256i*>(w.offsets));
        const __m256i mins = _mm256_load_si256(reinterpret_cast<const __m256i*>(w.mins));
        for (int t = 0; t < T; ++t)
            addUnpackedBlock(w, x[t][b], sumi[t], offsets, mins, acc[t], accMin[t]);
    }
    for (int t = 0; t < T; ++t)
        y[t] = hsum256(_mm256_sub_ps(acc[t], accMin[t]));
}

#if defined(__AVX512VNNI__)
// dotUnpackedTokens for unsigned levels with VNNI: one vpdpbusd multiplies a 64-weight pair of
// runs with the token (four products a lane, at most 4 * 63 * 127: an int16 holds it), two pairs
// are packed to int16 and their scales applied by one vpmaddwd. 20 instructions a block and token
// where the maddubs/madd/add chain of the AVX2 version takes 32. The scales are arranged once
// per block in the order vpackssdw leaves the sums in: 128-bit lane L of group g holds four sums
// of run 4g + L/2 and four of run 4g + 2 + L/2, both of weights 16 (L % 2) .. 16 (L % 2) + 15.
template <int T>
void dotUnpackedTokensVnni(const UnpackedK* blocks, std::int64_t blockCount, const ActBlockQ8K* const* x, float* y)
{
    __m256 acc[T];
    __m256 accMin[T];
    for (int t = 0; t < T; ++t) {
        acc[t] = _mm256_setzero_ps();
        accMin[t] = _mm256_setzero_ps();
    }
    const __m512i pick = _mm512_setr_epi64(0, 8, 2, 10, 4, 12, 6, 14);
    for (std::int64_t b = 0; b < blockCount; ++b) {
        const UnpackedK& w = blocks[b];
        __m512i levels[4];
        for (int k = 0; k < 4; ++k)
            levels[k] = _mm512_loadu_si512(w.levels + 64 * k);
        __m512i scales[2];
        for (int g = 0; g < 2; ++g) {
            const __m512i first = _mm512_loadu_si512(w.runScales[4 * g]);      // runs 4g, 4g + 1
            const __m512i second = _mm512_loadu_si512(w.runScales[4 * g + 2]); // runs 4g + 2, 4g + 3
            scales[g] = _mm512_permutex2var_epi64(first, pick, second);
        }
        const __m256i offsets = _mm256_load_si256(reinterpret_cast<const __m256i*>(w.offsets));
        const __m256i mins = _mm256_load_si256(reinterpret_cast<const __m256i*>(w.mins));
        for (int t = 0; t < T; ++t) {
            const std::int8_t* xs = x[t][b].qs;
            __m512i sum = _mm512_setzero_si512();
            for (int g = 0; g < 2; ++g) {
                const __m512i d0 = _mm512_dpbusd_epi32(_mm512_setzero_si512(), levels[2 * g], _mm512_loadu_si512(xs + 128 * g));
                const __m512i d1 =
                    _mm512_dpbusd_epi32(_mm512_setzero_si512(), levels[2 * g + 1], _mm512_loadu_si512(xs + 128 * g + 64));
                sum = _mm512_add_epi32(sum, _mm512_madd_epi16(_mm512_packs_epi32(d0, d1), scales[g]));
            }
            const __m256i sumi = _mm256_add_epi32(_mm512_castsi512_si256(sum), _mm512_extracti64x4_epi64(sum, 1));
            addUnpackedBlock(w, x[t][b], sumi, offsets, mins, acc[t], accMin[t]);
        }
    }
    for (int t = 0; t < T; ++t)
        y[t] = hsum256(_mm256_sub_ps(acc[t], accMin[t]));
}
#endif

// T tokens of one unpacked row through the best kernel this table has for its levels.
template <int T, bool Signed>
void dotUnpackedRow(const UnpackedK* blocks, std::int64_t blockCount, const ActBlockQ8K* const* x, float* y)
{
#if defined(__AVX512VNNI__)
    if constexpr (!Signed) {
        dotUnpackedTokensVnni<T>(blocks, blockCount, x, y);
        return;
    }
#endif
    dotUnpackedTokens<T, Signed>(blocks, blockCount, x, y);
}

// Q2_K and Q3_K decode, fused: the levels of each 32-weight run meet the token in registers (going
// through UnpackedK decoded at a third of the speed).

float dotQ2_K(const void* row, const void* activations, std::int64_t n)
{
    const auto* blocks = static_cast<const BlockQ2_K*>(row);
    const auto* x = static_cast<const ActBlockQ8K*>(activations);
    __m256 acc = _mm256_setzero_ps();
    float minSum = 0.0f;
    for (std::int64_t b = 0; b < n / QK_K; ++b) {
        const BlockQ2_K& w = blocks[b];
        const __m128i packed = _mm_loadu_si128(reinterpret_cast<const __m128i*>(w.scales));
        const __m256i scaleBytes = _mm256_broadcastsi128_si256(_mm_and_si128(packed, _mm_set1_epi8(0x0f)));
        const __m256i mins = _mm256_cvtepu8_epi16(_mm_and_si128(_mm_srli_epi16(packed, 4), _mm_set1_epi8(0x0f)));
        const __m256i bsums = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x[b].bsums));
        __m256i sumi = _mm256_setzero_si256();
        for (int h = 0; h < 2; ++h) {
            const __m256i q = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w.qs + 32 * h));
            for (int j = 0; j < 4; ++j) {
                const int r = 4 * h + j;
                const __m256i levels = _mm256_and_si256(_mm256_srli_epi16(q, 2 * j), _mm256_set1_epi8(3));
                const __m256i xs = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x[b].qs + 32 * r));
                sumi = _mm256_add_epi32(sumi, _mm256_madd_epi16(_mm256_maddubs_epi16(levels, xs), runScaleFromBytes(scaleBytes, r)));
            }
        }
        acc = _mm256_fmadd_ps(_mm256_set1_ps(x[b].d * halfToFloatF16c(w.d)), _mm256_cvtepi32_ps(sumi), acc);
        minSum += x[b].d * halfToFloatF16c(w.dmin) * float(hsumInt256(_mm256_madd_epi16(mins, bsums)));
    }
    return hsum256(acc) - minSum;
}

float dotQ3_K(const void* row, const void* activations, std::int64_t n)
{
    const auto* blocks = static_cast<const BlockQ3_K*>(row);
    const auto* x = static_cast<const ActBlockQ8K*>(activations);
    __m256 acc = _mm256_setzero_ps();
    for (std::int64_t b = 0; b < n / QK_K; ++b) {
        const BlockQ3_K& w = blocks[b];
        const __m128i scales = q3kScaleBytes(w);
        const __m256i scaleBytes = _mm256_broadcastsi128_si256(scales);
        const __m256i offsets = _mm256_slli_epi16(_mm256_cvtepi8_epi16(scales), 2);
        const __m256i bsums = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x[b].bsums));
        const __m256i hm = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w.hmask));
        __m256i sumi = _mm256_setzero_si256();
        for (int h = 0; h < 2; ++h) {
            const __m256i q = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w.qs + 32 * h));
            for (int j = 0; j < 4; ++j) {
                const int r = 4 * h + j;
                const __m256i levels = q3kLevels(q, hm, h, j);
                const __m256i xs = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x[b].qs + 32 * r));
                sumi = _mm256_add_epi32(sumi, _mm256_madd_epi16(_mm256_maddubs_epi16(levels, xs), runScaleFromBytes(scaleBytes, r)));
            }
        }
        const __m256i body = _mm256_sub_epi32(sumi, _mm256_madd_epi16(offsets, bsums));
        acc = _mm256_fmadd_ps(_mm256_set1_ps(x[b].d * halfToFloatF16c(w.d)), _mm256_cvtepi32_ps(body), acc);
    }
    return hsum256(acc);
}

// Rows a decode asks for ahead of the one it reads (see gemmSuperBlocks).
constexpr std::int64_t kSuperBlockRowsAhead = 2;

// One token: the row dot product. Several: each row unpacked once, then four tokens at a time.
template <typename Block, BlockDotFn Dot>
void gemmSuperBlocks(const GemmArgs& a, std::int64_t rowBegin, std::int64_t rowEnd)
{
    const auto activations = [&](std::int64_t t) {
        return reinterpret_cast<const ActBlockQ8K*>(static_cast<const std::uint8_t*>(a.x) + static_cast<std::size_t>(t) * a.xStride);
    };
    if (a.tokens == 1) {
        // Decode streams the rows once. The hardware prefetcher alone left a core at 5.9 GB/s
        // from DRAM against 16 in the L3 (Q4_K rows of 4096, Intel Xeon VM); asking for the rows
        // two ahead into L2 as well: 7.9 GB/s, two threads 12-14 -> 14-17 GB/s (four ahead: the
        // same within the noise).
        const std::size_t rowLines = (a.wStride + 63) / 64;
        for (std::int64_t r = rowBegin; r < rowEnd; ++r) {
            if (r + kSuperBlockRowsAhead < rowEnd) {
                const char* ahead = reinterpret_cast<const char*>(a.w + static_cast<std::size_t>(r + kSuperBlockRowsAhead) * a.wStride);
                for (std::size_t l = 0; l < rowLines; ++l)
                    _mm_prefetch(ahead + 64 * l, _MM_HINT_T1);
            }
            a.y[r] = Dot(a.w + static_cast<std::size_t>(r) * a.wStride, activations(0), a.cols);
        }
        return;
    }
    const std::int64_t blockCount = a.cols / QK_K;
    thread_local std::vector<UnpackedK> unpacked;
    unpacked.resize(static_cast<std::size_t>(blockCount));
    for (std::int64_t r = rowBegin; r < rowEnd; ++r) {
        const auto* row = reinterpret_cast<const Block*>(a.w + static_cast<std::size_t>(r) * a.wStride);
        for (std::int64_t b = 0; b < blockCount; ++b)
            unpack(row[b], unpacked[static_cast<std::size_t>(b)]);
        std::int64_t t = 0;
        for (; t + 4 <= a.tokens; t += 4) {
            const ActBlockQ8K* x[4] = {activations(t), activations(t + 1), activations(t + 2), activations(t + 3)};
            float y[4];
            dotUnpackedRow<4, kSignedLevels<Block>>(unpacked.data(), blockCount, x, y);
            for (int i = 0; i < 4; ++i)
                a.y[(t + i) * a.yStride + r] = y[i];
        }
        for (; t < a.tokens; ++t) {
            const ActBlockQ8K* x[1] = {activations(t)};
            dotUnpackedRow<1, kSignedLevels<Block>>(unpacked.data(), blockCount, x, a.y + t * a.yStride + r);
        }
    }
}


// ggml's quantize_row_q8_K (block_dot.cpp's quantizeActivationsQ8K), the same bytes: the value of
// largest magnitude (the first on ties) maps to -127, rounding to nearest even.
void quantizeRowQ8K(const float* x, ActBlockQ8K* out, std::int64_t n)
{
    for (std::int64_t b = 0; b < n / QK_K; ++b) {
        const float* v = x + b * QK_K;
        ActBlockQ8K& y = out[b];
        __m256 amaxVec = _mm256_setzero_ps();
        for (int j = 0; j < QK_K; j += 8)
            amaxVec = _mm256_max_ps(amaxVec, absPs(_mm256_loadu_ps(v + j)));
        const float amax = hmax256(amaxVec);
        if (amax == 0.0f) {
            std::memset(&y, 0, sizeof y);
            continue;
        }
        float max = 0.0f;
        for (int j = 0; j < QK_K; ++j) {
            if ((v[j] < 0.0f ? -v[j] : v[j]) == amax) {
                max = v[j];
                break;
            }
        }
        const float iscale = -127.0f / max;
        const __m256 scale = _mm256_set1_ps(iscale);
        const __m256i limit = _mm256_set1_epi32(127);
        for (int j = 0; j < QK_K; j += 32) {
            __m256i q[4];
            for (int k = 0; k < 4; ++k)
                q[k] = _mm256_min_epi32(_mm256_cvtps_epi32(_mm256_mul_ps(scale, _mm256_loadu_ps(v + j + 8 * k))), limit);
            // Pack 32 int32 to int8 in order: packs interleave 128-bit lanes, the permute undoes it.
            const __m256i q16a = _mm256_packs_epi32(q[0], q[1]);
            const __m256i q16b = _mm256_packs_epi32(q[2], q[3]);
            const __m256i q8 = _mm256_permutevar8x32_epi32(_mm256_packs_epi16(q16a, q16b), _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(y.qs + j), q8);
        }
        for (int g = 0; g < QK_K / 16; ++g) {
            const __m128i q = _mm_loadu_si128(reinterpret_cast<const __m128i*>(y.qs + 16 * g));
            const __m256i wide = _mm256_cvtepi8_epi16(q);
            const __m256i pairs = _mm256_madd_epi16(wide, _mm256_set1_epi16(1));
            y.bsums[g] = static_cast<std::int16_t>(hsumInt256(pairs));
        }
        y.d = 1.0f / iscale;
    }
}

} // namespace

constinit const CpuKernels HEARTH_KERNEL_TABLE = {
    HEARTH_KERNEL_NAME,
    HEARTH_KERNEL_ISA,
#if defined(__AVX512VNNI__)
    true,
#else
    false,
#endif
    quantizeRowQ8_0,
    quantizeRowQ4_0,
    convertRowF16,
    dequantizeRowF16,
    dequantizeRowQ8_0,
    dequantizeRowQ4_0,
    quantizeActivations,
    gemm<float, false, kFloatRows, kFloatTokens>,
    gemm<std::uint16_t, false, kFloatRows, kFloatTokens>,
    gemm<BlockQ4_0, true, kQuantRows, kQuantTokens>,
    gemm<BlockQ8_0, true, kQuantRows, kQuantTokens>,
    gemmGroupTiles<Q40x16Tile, kQ4x16Tokens>,
    gemmGroupTiles<Q80x16Tile, kQ4x16Tokens>,
    gemmGroupTiles<Q45Kx16Tile<BlockQ4_K>, kKx16Tokens>,
    gemmGroupTiles<Q45Kx16Tile<BlockQ5_K>, kKx16Tokens>,
#if defined(__AVX512F__)
    gemmGroupTiles<Q6Kx16Tile, kKx16Tokens>,
#else
    nullptr,
#endif
#if defined(__AVX512VNNI__)
    gemmGroupTiles<Q45Kx16Tile<BlockIQ4_XS>, kKx16Tokens>,
#else
    nullptr,
#endif
    gemmF16Prepared,
    prepareF16Input,
    dotF32,
    axpyF32,
    swigluF32,
    siluF32,
    attendHead,
    dotQ4_K,
    dotQ5_K,
    dotQ6_K,
    dotIQ4_XS,
    dotIQ4_NL,
    dotMXFP4,
    dotBF16,
    dotQ4_1,
    dotQ5_0,
    dotQ5_1,
    dotQ2_K,
    dotQ3_K,
    quantizeRowQ8K,
    gemmSuperBlocks<BlockQ4_K, dotQ4_K>,
    gemmSuperBlocks<BlockQ5_K, dotQ5_K>,
    gemmSuperBlocks<BlockQ6_K, dotQ6_K>,
    gemmSuperBlocks<BlockIQ4_XS, dotIQ4_XS>,
    gemmPromptTiles<BlockQ4_1>,
    gemmPromptTiles<BlockQ5_0>,
    gemmPromptTiles<BlockQ5_1>,
    gemmSuperBlocks<BlockQ2_K, dotQ2_K>,
    gemmSuperBlocks<BlockQ3_K, dotQ3_K>,
    gemmGroupTiles<Mxfp4x16Tile, kQ4x16Tokens>,
};

} // namespace hearth::cpu
