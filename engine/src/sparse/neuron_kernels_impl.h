// SPDX-License-Identifier: MIT
// The body of the x86 neuron kernel tables, included once each by neuron_kernels_avx2.cpp and
// neuron_kernels_avx512.cpp, which are compiled with their ISA's flags. Everything here has
// internal linkage so no inline function compiled for AVX-512 can be merged into baseline code.
//
// Integer dot products follow cpu/x86_kernels_impl.h: Q4_0 nibbles (0..15) and Q8_0 values
// offset to unsigned are multiplied with the signed activation bytes, and the offset is taken
// back out with the activation block's sum, folded into lane 0 of the integer accumulator.
// K-quant rows are dotted by the CPU table of the same ISA (HEARTH_NEURON_CPU_TABLE).

#pragma once

#include "cpu/kernels.h"
#include "sparse/neuron_kernels.h"
#include "sparse/neuron_pack.h"
#include "cpu/prefetch.h"

#if defined(__GNUC__) && !defined(__clang__)
// GCC 12 bug 105593: false uninitialized warnings inside its own AVX-512 headers.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include <immintrin.h>

#include "cpu/kquant_levels_x86.h" // after the pragmas: its inline functions use the intrinsics too

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>

#if !defined(HEARTH_NEURON_TABLE) || !defined(HEARTH_NEURON_NAME) || !defined(HEARTH_NEURON_CPU_TABLE)
#error "define the table name, its printable name and the CPU table of its ISA before including neuron_kernels_impl.h"
#endif

namespace hearth::sparse {

namespace {

using cpu::ActBlockQ8;

inline float hsum256(__m256 v)
{
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

inline float halfToFloat(std::uint16_t h)
{
    return _cvtsh_ss(h);
}

inline __m256i unpackQ4(const std::uint8_t* qs)
{
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(qs));
    const __m256i both = _mm256_set_m128i(_mm_srli_epi16(x, 4), x);
    return _mm256_and_si256(both, _mm256_set1_epi8(0x0f));
}

inline __m256i laneZero(std::int32_t v)
{
    return _mm256_zextsi128_si256(_mm_cvtsi32_si128(v));
}

// Exact signed dot of one weight block with one activation block, as 8 int32 lanes.
inline __m256i blockDotQ4(const BlockQ4_0& w, const ActBlockQ8& a)
{
    const __m256i wq = unpackQ4(w.qs);
    const __m256i aq = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a.qs));
    const __m256i bias = laneZero(-8 * a.sum);
#if defined(__AVX512VNNI__)
    return _mm256_dpbusd_epi32(bias, wq, aq);
#else
    const __m256i pairs = _mm256_maddubs_epi16(wq, aq);
    return _mm256_add_epi32(_mm256_madd_epi16(pairs, _mm256_set1_epi16(1)), bias);
#endif
}

inline __m256i blockDotQ8(const BlockQ8_0& w, const ActBlockQ8& a)
{
    const __m256i wq = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w.qs));
    const __m256i aq = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a.qs));
#if defined(__AVX512VNNI__)
    return _mm256_dpbusd_epi32(laneZero(-128 * a.sum), _mm256_xor_si256(wq, _mm256_set1_epi8(-128)), aq);
#else
    const __m256i pairs = _mm256_maddubs_epi16(_mm256_abs_epi8(wq), _mm256_sign_epi8(aq, wq));
    return _mm256_madd_epi16(pairs, _mm256_set1_epi16(1));
#endif
}

template <typename Block, __m256i (*BlockDot)(const Block&, const ActBlockQ8&)>
void dot2Quantized(const void* pa, const void* pb, const void* px, std::int64_t n, float* out)
{
    const Block* a = static_cast<const Block*>(pa);
    const Block* b = static_cast<const Block*>(pb);
    const ActBlockQ8* x = static_cast<const ActBlockQ8*>(px);
    __m256 accA = _mm256_setzero_ps();
    __m256 accB = _mm256_setzero_ps();
    const std::int64_t blocks = n / QK8_0;
    for (std::int64_t i = 0; i < blocks; ++i) {
        const float ad = x[i].d;
        const __m256 da = _mm256_set1_ps(halfToFloat(a[i].d) * ad);
        const __m256 db = _mm256_set1_ps(halfToFloat(b[i].d) * ad);
        accA = _mm256_fmadd_ps(_mm256_cvtepi32_ps(BlockDot(a[i], x[i])), da, accA);
        accB = _mm256_fmadd_ps(_mm256_cvtepi32_ps(BlockDot(b[i], x[i])), db, accB);
    }
    out[0] = hsum256(accA);
    out[1] = hsum256(accB);
}

template <typename Block, __m256i (*BlockDot)(const Block&, const ActBlockQ8&)>
float dot1Quantized(const void* pa, const void* px, std::int64_t n)
{
    const Block* a = static_cast<const Block*>(pa);
    const ActBlockQ8* x = static_cast<const ActBlockQ8*>(px);
    // Two accumulators: one FMA chain per block would wait on the previous one.
    __m256 acc0 = _mm256_setzero_ps();
    __m256 acc1 = _mm256_setzero_ps();
    const std::int64_t blocks = n / QK8_0;
    std::int64_t i = 0;
    for (; i + 2 <= blocks; i += 2) {
        acc0 = _mm256_fmadd_ps(_mm256_cvtepi32_ps(BlockDot(a[i], x[i])), _mm256_set1_ps(halfToFloat(a[i].d) * x[i].d), acc0);
        acc1 = _mm256_fmadd_ps(_mm256_cvtepi32_ps(BlockDot(a[i + 1], x[i + 1])),
                               _mm256_set1_ps(halfToFloat(a[i + 1].d) * x[i + 1].d), acc1);
    }
    for (; i < blocks; ++i)
        acc0 = _mm256_fmadd_ps(_mm256_cvtepi32_ps(BlockDot(a[i], x[i])), _mm256_set1_ps(halfToFloat(a[i].d) * x[i].d), acc0);
    return hsum256(_mm256_add_ps(acc0, acc1));
}

// Float rows: 512-bit vectors where the table is compiled for AVX-512.
#if defined(__AVX512F__)
using VecF = __m512;
constexpr int kLanes = 16;
inline VecF vzero() { return _mm512_setzero_ps(); }
inline VecF vload(const float* p) { return _mm512_loadu_ps(p); }
inline VecF vload(const std::uint16_t* p) { return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))); }
inline VecF vfma(VecF a, VecF b, VecF c) { return _mm512_fmadd_ps(a, b, c); }
inline VecF vset1(float v) { return _mm512_set1_ps(v); }
inline void vstore(float* p, VecF v) { _mm512_storeu_ps(p, v); }
inline float vsum(VecF v) { return _mm512_reduce_add_ps(v); }
#else
using VecF = __m256;
constexpr int kLanes = 8;
inline VecF vzero() { return _mm256_setzero_ps(); }
inline VecF vload(const float* p) { return _mm256_loadu_ps(p); }
inline VecF vload(const std::uint16_t* p) { return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))); }
inline VecF vfma(VecF a, VecF b, VecF c) { return _mm256_fmadd_ps(a, b, c); }
inline VecF vset1(float v) { return _mm256_set1_ps(v); }
inline void vstore(float* p, VecF v) { _mm256_storeu_ps(p, v); }
inline float vsum(VecF v) { return hsum256(v); }
#endif

inline float scalarValue(float v) { return v; }
inline float scalarValue(std::uint16_t v) { return halfToFloat(v); }

template <typename W>
void dot2Float(const void* pa, const void* pb, const void* px, std::int64_t n, float* out)
{
    const W* a = static_cast<const W*>(pa);
    const W* b = static_cast<const W*>(pb);
    const float* x = static_cast<const float*>(px);
    VecF a0 = vzero(), a1 = vzero(), b0 = vzero(), b1 = vzero();
    std::int64_t i = 0;
    for (; i + 2 * kLanes <= n; i += 2 * kLanes) {
        const VecF x0 = vload(x + i);
        const VecF x1 = vload(x + i + kLanes);
        a0 = vfma(vload(a + i), x0, a0);
        b0 = vfma(vload(b + i), x0, b0);
        a1 = vfma(vload(a + i + kLanes), x1, a1);
        b1 = vfma(vload(b + i + kLanes), x1, b1);
    }
    float sa = vsum(a0) + vsum(a1);
    float sb = vsum(b0) + vsum(b1);
    for (; i < n; ++i) {
        sa += scalarValue(a[i]) * x[i];
        sb += scalarValue(b[i]) * x[i];
    }
    out[0] = sa;
    out[1] = sb;
}

template <typename W>
float dot1Float(const void* pa, const void* px, std::int64_t n)
{
    const W* a = static_cast<const W*>(pa);
    const float* x = static_cast<const float*>(px);
    VecF a0 = vzero(), a1 = vzero();
    std::int64_t i = 0;
    for (; i + 2 * kLanes <= n; i += 2 * kLanes) {
        a0 = vfma(vload(a + i), vload(x + i), a0);
        a1 = vfma(vload(a + i + kLanes), vload(x + i + kLanes), a1);
    }
    float s = vsum(a0) + vsum(a1);
    for (; i < n; ++i)
        s += scalarValue(a[i]) * x[i];
    return s;
}

// axpyRows for float rows: one vector of y at a time, up to kAxpyRowsGroup rows added into it.
template <typename W>
void axpyRowsFloat(float* y, const float* s, const void* const* rows, int count, std::int64_t n)
{
    for (int k0 = 0; k0 < count; k0 += kAxpyRowsGroup) {
        const int group = std::min(kAxpyRowsGroup, count - k0);
        const W* r[kAxpyRowsGroup];
        VecF sv[kAxpyRowsGroup];
        for (int k = 0; k < group; ++k) {
            r[k] = static_cast<const W*>(rows[k0 + k]);
            sv[k] = vset1(s[k0 + k]);
        }
        std::int64_t i = 0;
        for (; i + kLanes <= n; i += kLanes) {
            VecF acc = vload(y + i);
            for (int k = 0; k < group; ++k)
                acc = vfma(vload(r[k] + i), sv[k], acc);
            vstore(y + i, acc);
        }
        for (; i < n; ++i) {
            for (int k = 0; k < group; ++k)
                y[i] += s[k0 + k] * scalarValue(r[k][i]);
        }
    }
}

// RowKernels::axpy as one row of the table's axpyRows: one kernel per type to keep right.
template <void (*Rows)(float*, const float*, const void* const*, int, std::int64_t)>
void axpyOneRow(float* y, float s, const void* row, std::int64_t n)
{
    Rows(y, &s, &row, 1, n);
}

// axpyRows for blocks of 32 signed bytes and a scale (Q8_0, Q4_0 offset by 8), 256 bits at a
// time: a block's four output vectors stay in registers while every row's block is added,
// in the order of one row after another.
template <typename Block, __m256i (*Bytes)(const Block&)>
void axpyRowsBytes(float* y, const float* s, const void* const* rows, int count, std::int64_t n)
{
    for (int k0 = 0; k0 < count; k0 += kAxpyRowsGroup) {
        const int group = std::min(kAxpyRowsGroup, count - k0);
        const Block* w[kAxpyRowsGroup];
        for (int k = 0; k < group; ++k)
            w[k] = static_cast<const Block*>(rows[k0 + k]);
        for (std::int64_t b = 0; b < n / 32; ++b) {
            float* yb = y + b * 32;
            __m256 acc[4];
            for (int v = 0; v < 4; ++v)
                acc[v] = _mm256_loadu_ps(yb + 8 * v);
            for (int k = 0; k < group; ++k) {
                const __m256 d = _mm256_set1_ps(s[k0 + k] * halfToFloat(w[k][b].d));
                const __m256i bytes = Bytes(w[k][b]);
                const __m128i lo = _mm256_castsi256_si128(bytes), hi = _mm256_extracti128_si256(bytes, 1);
                const __m128i parts[4] = {lo, _mm_unpackhi_epi64(lo, lo), hi, _mm_unpackhi_epi64(hi, hi)};
                for (int v = 0; v < 4; ++v)
                    acc[v] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(parts[v])), d, acc[v]);
            }
            for (int v = 0; v < 4; ++v)
                _mm256_storeu_ps(yb + 8 * v, acc[v]);
        }
    }
}

inline __m256i q8Bytes(const BlockQ8_0& w)
{
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w.qs));
}

inline __m256i q4Bytes(const BlockQ4_0& w)
{
    return _mm256_sub_epi8(unpackQ4(w.qs), _mm256_set1_epi8(8));
}

#if defined(__AVX512BW__)
// The scales of 8 consecutive Q4_0 blocks (fp16 at 18-byte strides, all within the first 128
// bytes) as floats: two loads and one vpermt2w instead of a scalar load, conversion and
// broadcast per block (adding a Q4_0 row: 10.9 -> 11.4 GB/s in cache, one thread).
struct Q4ScaleIndex {
    alignas(64) std::int16_t v[32];
};

constexpr Q4ScaleIndex makeQ4ScaleIndex()
{
    Q4ScaleIndex s{};
    for (int b = 0; b < 8; ++b)
        s.v[b] = std::int16_t(b * int(sizeof(BlockQ4_0) / 2));
    return s;
}

constexpr Q4ScaleIndex kQ4ScaleIndex = makeQ4ScaleIndex();

inline __m256 q4Scales8(const BlockQ4_0* w)
{
    const std::uint8_t* p = reinterpret_cast<const std::uint8_t*>(w);
    const __m512i halves = _mm512_permutex2var_epi16(_mm512_loadu_si512(p), _mm512_load_si512(kQ4ScaleIndex.v),
                                                     _mm512_loadu_si512(p + 64));
    return _mm256_cvtph_ps(_mm512_castsi512_si128(halves));
}

// unpackQ4 without a shuffle: the 16 bytes broadcast to both halves by the load itself, the
// upper half shifted by 4 per 64-bit lane.
inline __m256i unpackQ4Broadcast(const std::uint8_t* qs)
{
    const __m256i both = _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(qs)));
    return _mm256_and_si256(_mm256_srlv_epi64(both, _mm256_setr_epi64x(0, 0, 4, 4)), _mm256_set1_epi8(0x0f));
}

inline __m256i blockDotQ4Fast(const BlockQ4_0& w, __m256i aq, __m256i bias)
{
#if defined(__AVX512VNNI__)
    return _mm256_dpbusd_epi32(bias, unpackQ4Broadcast(w.qs), aq);
#else
    return _mm256_add_epi32(_mm256_madd_epi16(_mm256_maddubs_epi16(unpackQ4Broadcast(w.qs), aq), _mm256_set1_epi16(1)), bias);
#endif
}

// dot2Quantized for Q4_0 with fewer shuffles per block: the block scales converted 8 at a
// time and picked by one vpermps, the nibbles unpacked without vinserti128. Same products in
// the same order, so the same results bit for bit.
void dot2Q4(const void* pa, const void* pb, const void* px, std::int64_t n, float* out)
{
    const BlockQ4_0* a = static_cast<const BlockQ4_0*>(pa);
    const BlockQ4_0* b = static_cast<const BlockQ4_0*>(pb);
    const ActBlockQ8* x = static_cast<const ActBlockQ8*>(px);
    __m256 accA = _mm256_setzero_ps();
    __m256 accB = _mm256_setzero_ps();
    const std::int64_t blocks = n / QK8_0;
    std::int64_t i = 0;
    for (; i + 8 <= blocks; i += 8) {
        const __m256 xd = _mm256_setr_ps(x[i].d, x[i + 1].d, x[i + 2].d, x[i + 3].d, x[i + 4].d, x[i + 5].d,
                                         x[i + 6].d, x[i + 7].d);
        const __m256 da = _mm256_mul_ps(q4Scales8(a + i), xd);
        const __m256 db = _mm256_mul_ps(q4Scales8(b + i), xd);
        for (int k = 0; k < 8; ++k) {
            const ActBlockQ8& xk = x[i + k];
            const __m256i aq = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(xk.qs));
            const __m256i bias = laneZero(-8 * xk.sum);
            const __m256i kk = _mm256_set1_epi32(k);
            accA = _mm256_fmadd_ps(_mm256_cvtepi32_ps(blockDotQ4Fast(a[i + k], aq, bias)),
                                   _mm256_permutevar8x32_ps(da, kk), accA);
            accB = _mm256_fmadd_ps(_mm256_cvtepi32_ps(blockDotQ4Fast(b[i + k], aq, bias)),
                                   _mm256_permutevar8x32_ps(db, kk), accB);
        }
    }
    for (; i < blocks; ++i) {
        const float ad = x[i].d;
        accA = _mm256_fmadd_ps(_mm256_cvtepi32_ps(blockDotQ4(a[i], x[i])), _mm256_set1_ps(halfToFloat(a[i].d) * ad), accA);
        accB = _mm256_fmadd_ps(_mm256_cvtepi32_ps(blockDotQ4(b[i], x[i])), _mm256_set1_ps(halfToFloat(b[i].d) * ad), accB);
    }
    out[0] = hsum256(accA);
    out[1] = hsum256(accB);
}

// dot1Quantized for Q4_0 (up-only FFNs: falcon, opt) in the same way; two accumulators as there.
float dot1Q4(const void* pa, const void* px, std::int64_t n)
{
    const BlockQ4_0* a = static_cast<const BlockQ4_0*>(pa);
    const ActBlockQ8* x = static_cast<const ActBlockQ8*>(px);
    __m256 acc[2] = {_mm256_setzero_ps(), _mm256_setzero_ps()};
    const std::int64_t blocks = n / QK8_0;
    std::int64_t i = 0;
    for (; i + 8 <= blocks; i += 8) {
        const __m256 xd = _mm256_setr_ps(x[i].d, x[i + 1].d, x[i + 2].d, x[i + 3].d, x[i + 4].d, x[i + 5].d,
                                         x[i + 6].d, x[i + 7].d);
        const __m256 da = _mm256_mul_ps(q4Scales8(a + i), xd);
        for (int k = 0; k < 8; ++k) {
            const ActBlockQ8& xk = x[i + k];
            const __m256i aq = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(xk.qs));
            acc[k % 2] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(blockDotQ4Fast(a[i + k], aq, laneZero(-8 * xk.sum))),
                                         _mm256_permutevar8x32_ps(da, _mm256_set1_epi32(k)), acc[k % 2]);
        }
    }
    for (; i < blocks; ++i)
        acc[0] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(blockDotQ4(a[i], x[i])), _mm256_set1_ps(halfToFloat(a[i].d) * x[i].d),
                                 acc[0]);
    return hsum256(_mm256_add_ps(acc[0], acc[1]));
}
constexpr auto kDot2Q4 = dot2Q4;
constexpr auto kDot1Q4 = dot1Q4;
#else
constexpr auto kDot2Q4 = dot2Quantized<BlockQ4_0, blockDotQ4>;
constexpr auto kDot1Q4 = dot1Quantized<BlockQ4_0, blockDotQ4>;
#endif

#if defined(__AVX512F__) && defined(__AVX512BW__)
// Q4_0 rows added into floats, 512 bits at a time. The 16 bytes of a block widen to 16 dwords;
// vpermps reads only the low 4 bits of each index, so the low nibbles need no mask, and its
// table holds the values q - 8 as floats: no integer conversion and no offset to take out.
// Measured in cache on Zen 4 (one thread): 12 GB/s against the 256-bit version's 8 GB/s.
// The arithmetic per element is the 256-bit version's (y + (q - 8) * d), so results match it.
inline __m512 q4Values()
{
    return _mm512_setr_ps(-8.0f, -7.0f, -6.0f, -5.0f, -4.0f, -3.0f, -2.0f, -1.0f, 0.0f, 1.0f, 2.0f, 3.0f, 4.0f, 5.0f,
                          6.0f, 7.0f);
}

inline __m512i q4Dwords(const BlockQ4_0& w)
{
    return _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(w.qs)));
}

// One Q4_0 row (RowKernels::axpy: the rows of a prompt's tokens one at a time). The scales of a
// group of 8 blocks are picked from a register: for a single row that is 6-15 % faster than
// broadcasting them from memory as the grouped kernel below does (one thread, 2048 outputs,
// in cache), where several rows share each load and store of the outputs.
inline __m512 lane16(__m256 v, int k)
{
    return _mm512_permutexvar_ps(_mm512_set1_epi32(k), _mm512_castps256_ps512(v));
}

inline void axpyBlockQ4(float* yb, __m512 d, const BlockQ4_0& w, __m512 values)
{
    const __m512i q = q4Dwords(w);
    _mm512_storeu_ps(yb, _mm512_fmadd_ps(_mm512_permutexvar_ps(q, values), d, _mm512_loadu_ps(yb)));
    _mm512_storeu_ps(yb + 16, _mm512_fmadd_ps(_mm512_permutexvar_ps(_mm512_srli_epi32(q, 4), values), d,
                                              _mm512_loadu_ps(yb + 16)));
}

void axpyQ4(float* y, float s, const void* prow, std::int64_t n)
{
    const BlockQ4_0* w = static_cast<const BlockQ4_0*>(prow);
    const __m512 values = q4Values();
    const std::int64_t blocks = n / QK4_0;
    std::int64_t b = 0;
    for (; b + 8 <= blocks; b += 8) {
        const __m256 d = _mm256_mul_ps(_mm256_set1_ps(s), q4Scales8(w + b));
        for (int k = 0; k < 8; ++k)
            axpyBlockQ4(y + (b + k) * QK4_0, lane16(d, k), w[b + k], values);
    }
    for (; b < blocks; ++b)
        axpyBlockQ4(y + b * QK4_0, _mm512_set1_ps(s * halfToFloat(w[b].d)), w[b], values);
}

// Up to kAxpyRowsGroup rows of a token: each block's 32 outputs are loaded once, take every
// row's block, and are stored once; the multiply-adds of one row after another, in order.
template <int Rows>
void axpyGroupQ4(float* y, const float* s, const BlockQ4_0* const* w, std::int64_t n)
{
    const __m512 values = q4Values();
    const std::int64_t blocks = n / QK4_0;
    alignas(32) float d[Rows][8];
    std::int64_t b = 0;
    for (; b + 8 <= blocks; b += 8) {
        for (int r = 0; r < Rows; ++r)
            _mm256_store_ps(d[r], _mm256_mul_ps(_mm256_set1_ps(s[r]), q4Scales8(w[r] + b)));
        for (int k = 0; k < 8; ++k) {
            float* yb = y + (b + k) * QK4_0;
            __m512 lo = _mm512_loadu_ps(yb);
            __m512 hi = _mm512_loadu_ps(yb + 16);
            for (int r = 0; r < Rows; ++r) {
                // A broadcast from memory costs a load, not a shuffle as lane16 does.
                const __m512 dk = _mm512_set1_ps(d[r][k]);
                const __m512i q = q4Dwords(w[r][b + k]);
                lo = _mm512_fmadd_ps(_mm512_permutexvar_ps(q, values), dk, lo);
                hi = _mm512_fmadd_ps(_mm512_permutexvar_ps(_mm512_srli_epi32(q, 4), values), dk, hi);
            }
            _mm512_storeu_ps(yb, lo);
            _mm512_storeu_ps(yb + 16, hi);
        }
    }
    for (; b < blocks; ++b) {
        float* yb = y + b * QK4_0;
        __m512 lo = _mm512_loadu_ps(yb);
        __m512 hi = _mm512_loadu_ps(yb + 16);
        for (int r = 0; r < Rows; ++r) {
            const __m512 dk = _mm512_set1_ps(s[r] * halfToFloat(w[r][b].d));
            const __m512i q = q4Dwords(w[r][b]);
            lo = _mm512_fmadd_ps(_mm512_permutexvar_ps(q, values), dk, lo);
            hi = _mm512_fmadd_ps(_mm512_permutexvar_ps(_mm512_srli_epi32(q, 4), values), dk, hi);
        }
        _mm512_storeu_ps(yb, lo);
        _mm512_storeu_ps(yb + 16, hi);
    }
}

// axpyRows over a kernel for groups of 1 to kAxpyRowsGroup rows of Block (Group<Rows>).
template <typename Block, template <int> class Group>
void axpyRowsInGroups(float* y, const float* s, const void* const* rows, int count, std::int64_t n)
{
    static_assert(kAxpyRowsGroup == 8);
    using Kernel = void (*)(float*, const float*, const Block* const*, std::int64_t);
    static constexpr std::array<Kernel, kAxpyRowsGroup> groups = {Group<1>::run, Group<2>::run, Group<3>::run,
                                                                  Group<4>::run, Group<5>::run, Group<6>::run,
                                                                  Group<7>::run, Group<8>::run};
    for (int k0 = 0; k0 < count; k0 += kAxpyRowsGroup) {
        const int group = std::min(kAxpyRowsGroup, count - k0);
        const Block* w[kAxpyRowsGroup];
        for (int k = 0; k < group; ++k)
            w[k] = static_cast<const Block*>(rows[k0 + k]);
        groups[std::size_t(group - 1)](y, s + k0, w, n);
    }
}

template <int Rows>
struct GroupQ4 {
    static constexpr auto run = axpyGroupQ4<Rows>;
};
constexpr auto axpyRowsQ4 = axpyRowsInGroups<BlockQ4_0, GroupQ4>;
#else
constexpr auto axpyRowsQ4 = axpyRowsBytes<BlockQ4_0, q4Bytes>;
constexpr auto axpyQ4 = axpyOneRow<axpyRowsQ4>;
#endif

#if defined(__AVX512VNNI__)
// Interleaved Q4_0 (neuron_pack.h): per group of 16 blocks, lane r of every register belongs
// to block r, so one vpdpbusd does four elements of 16 blocks and the 16 scales convert at once.
void dot2Interleaved(const void* pa, const void* pb, const void* px, std::int64_t n, float* out)
{
    const std::uint8_t* a = static_cast<const std::uint8_t*>(pa);
    const std::uint8_t* b = static_cast<const std::uint8_t*>(pb);
    const std::uint8_t* x = static_cast<const std::uint8_t*>(px);
    const std::int64_t groups = n / kInterleavedElements;
    const __m512i low = _mm512_set1_epi8(0x0f);
    __m512 accA = _mm512_setzero_ps();
    __m512 accB = _mm512_setzero_ps();
    for (std::int64_t g = 0; g < groups; ++g) {
        const std::uint8_t* ga = a + std::size_t(g) * kInterleavedGroupBytes;
        const std::uint8_t* gb = b + std::size_t(g) * kInterleavedGroupBytes;
        const std::uint8_t* gx = x + std::size_t(g) * kInterleavedActGroupBytes;
        const __m512i bias = _mm512_loadu_si512(gx + 64 + 8 * 64);
        __m512i ia = bias;
        __m512i ib = bias;
        for (int k = 0; k < 4; ++k) {
            const __m512i wa = _mm512_loadu_si512(ga + 32 + 64 * k);
            const __m512i wb = _mm512_loadu_si512(gb + 32 + 64 * k);
            const __m512i xlo = _mm512_loadu_si512(gx + 64 + 64 * (2 * k));
            const __m512i xhi = _mm512_loadu_si512(gx + 64 + 64 * (2 * k + 1));
            ia = _mm512_dpbusd_epi32(ia, _mm512_and_si512(wa, low), xlo);
            ia = _mm512_dpbusd_epi32(ia, _mm512_and_si512(_mm512_srli_epi16(wa, 4), low), xhi);
            ib = _mm512_dpbusd_epi32(ib, _mm512_and_si512(wb, low), xlo);
            ib = _mm512_dpbusd_epi32(ib, _mm512_and_si512(_mm512_srli_epi16(wb, 4), low), xhi);
        }
        const __m512 xd = _mm512_loadu_ps(reinterpret_cast<const float*>(gx));
        const __m512 da = _mm512_mul_ps(_mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(ga))), xd);
        const __m512 db = _mm512_mul_ps(_mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(gb))), xd);
        accA = _mm512_fmadd_ps(_mm512_cvtepi32_ps(ia), da, accA);
        accB = _mm512_fmadd_ps(_mm512_cvtepi32_ps(ib), db, accB);
    }
    out[0] = _mm512_reduce_add_ps(accA);
    out[1] = _mm512_reduce_add_ps(accB);
}
constexpr auto kDot2Interleaved = dot2Interleaved;
#else
constexpr void (*kDot2Interleaved)(const void*, const void*, const void*, std::int64_t, float*) = nullptr;
#endif

// K-quant rows (Q4_K, Q5_K, Q6_K). Their dot products are the dense decode's own, from the CPU
// table of this ISA; only adding a row into floats is the neuron kernels' business.
template <DType T>
float dot1K(const void* a, const void* x, std::int64_t n)
{
    static const cpu::BlockDotFn dot = cpu::blockDotFor(HEARTH_NEURON_CPU_TABLE, T);
    return dot(a, x, n);
}

template <DType T>
void dot2K(const void* a, const void* b, const void* x, std::int64_t n, float* out)
{
    out[0] = dot1K<T>(a, x, n);
    out[1] = dot1K<T>(b, x, n);
}

// A super-block as eight runs of 32 unsigned levels: weight j of run k is
// scale[k][j / 16] * level + offset[k][j / 16], the axpy's factor included.
struct RunsK {
    __m256i levels[8];
    float scale[8][2];
    float offset[8][2];
};

template <bool FifthBit, typename Block>
void decodeRunsQ45K(const Block& w, float s, RunsK& r)
{
    __m256i high = _mm256_setzero_si256();
    if constexpr (FifthBit)
        high = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w.qh));
    for (int c = 0; c < 4; ++c)
        cpu::levelsQ45K<FifthBit>(w, high, c, r.levels[2 * c], r.levels[2 * c + 1]);
    alignas(32) std::int16_t scalesMins[16];
    _mm256_store_si256(reinterpret_cast<__m256i*>(scalesMins), cpu::scalesMinsK4(w.scales));
    const float d = s * halfToFloat(w.d);
    const float m = s * halfToFloat(w.dmin);
    for (int k = 0; k < 8; ++k) {
        r.scale[k][0] = r.scale[k][1] = d * float(scalesMins[k]);
        r.offset[k][0] = r.offset[k][1] = -m * float(scalesMins[8 + k]);
    }
}

// AVX2 only: AVX-512 adds Q4_K and Q5_K rows by table (axpyGroupQ45K).
[[maybe_unused]] void decodeRuns(const cpu::BlockQ4_K& w, float s, RunsK& r) { decodeRunsQ45K<false>(w, s, r); }
[[maybe_unused]] void decodeRuns(const cpu::BlockQ5_K& w, float s, RunsK& r) { decodeRunsQ45K<true>(w, s, r); }

void decodeRuns(const cpu::BlockQ6_K& w, float s, RunsK& r)
{
    cpu::levelsQ6K(w, 0, r.levels);
    cpu::levelsQ6K(w, 1, r.levels + 4);
    const float d = s * halfToFloat(w.d);
    for (int k = 0; k < 8; ++k) {
        for (int h = 0; h < 2; ++h) {
            r.scale[k][h] = d * float(w.scales[2 * k + h]); // one scale per 16 weights
            r.offset[k][h] = -32.0f * r.scale[k][h];
        }
    }
}

// Run k of N decoded super-blocks added into the 32 floats at y: one load and store of y for
// all N rows.
template <int N>
inline void axpyRunK(float* y, const RunsK* const* runs, int k)
{
#if defined(__AVX512F__)
    for (int h = 0; h < 2; ++h) {
        float offset = 0.0f;
        for (int i = 0; i < N; ++i)
            offset += runs[i]->offset[k][h];
        __m512 acc = _mm512_add_ps(_mm512_loadu_ps(y + 16 * h), _mm512_set1_ps(offset));
        for (int i = 0; i < N; ++i) {
            const __m256i q = runs[i]->levels[k];
            const __m128i bytes = h == 0 ? _mm256_castsi256_si128(q) : _mm256_extracti128_si256(q, 1);
            acc = _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(bytes)), _mm512_set1_ps(runs[i]->scale[k][h]), acc);
        }
        _mm512_storeu_ps(y + 16 * h, acc);
    }
#else
    for (int p = 0; p < 4; ++p) {
        const int h = p / 2;
        float offset = 0.0f;
        for (int i = 0; i < N; ++i)
            offset += runs[i]->offset[k][h];
        __m256 acc = _mm256_add_ps(_mm256_loadu_ps(y + 8 * p), _mm256_set1_ps(offset));
        for (int i = 0; i < N; ++i) {
            const __m256i q = runs[i]->levels[k];
            __m128i bytes = h == 0 ? _mm256_castsi256_si128(q) : _mm256_extracti128_si256(q, 1);
            if (p % 2)
                bytes = _mm_srli_si128(bytes, 8);
            acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(bytes)), _mm256_set1_ps(runs[i]->scale[k][h]), acc);
        }
        _mm256_storeu_ps(y + 8 * p, acc);
    }
#endif
}

// axpyRows for K-quants: each super-block of up to kAxpyRowsGroup rows decoded, then every run
// of 32 outputs loaded and stored once for all of them.
template <int N>
void addRunsK(float* y, const RunsK* const* runs)
{
    for (int k = 0; k < 8; ++k)
        axpyRunK<N>(y + 32 * k, runs, k);
}

template <int... N>
constexpr std::array<void (*)(float*, const RunsK* const*), sizeof...(N)> kAddRunsK = {addRunsK<N>...};

template <typename Block>
void axpyRowsK(float* y, const float* s, const void* const* rows, int count, std::int64_t n)
{
    static_assert(kAxpyRowsGroup == 8);
    constexpr auto& add = kAddRunsK<1, 2, 3, 4, 5, 6, 7, 8>;
    RunsK decoded[kAxpyRowsGroup];
    const RunsK* runs[kAxpyRowsGroup];
    for (int k0 = 0; k0 < count; k0 += kAxpyRowsGroup) {
        const int group = std::min(kAxpyRowsGroup, count - k0);
        for (std::int64_t b = 0; b < n / cpu::QK_K; ++b) {
            for (int r = 0; r < group; ++r) {
                decodeRuns(static_cast<const Block*>(rows[k0 + r])[b], s[k0 + r], decoded[r]);
                runs[r] = &decoded[r];
            }
            add[std::size_t(group - 1)](y + b * cpu::QK_K, runs);
        }
    }
}

#if defined(__AVX512F__) && defined(__AVX512BW__)
// Q4_K and Q5_K rows added into floats as Q4_0's are above: a 32-weight run's possible values
// (its scale times each level plus its offset, the activation folded in) are held in registers,
// from which vpermps picks each weight by its nibble (Q4_K: 16 levels, one register) or
// vpermt2ps by its nibble and fifth bit (Q5_K: 32 levels, two registers), so nothing is
// decoded first. A chunk of 64 weights is 32 bytes: their low nibbles are run 2c, their high
// ones run 2c + 1; Q5_K's fifth bits are bits 2c and 2c + 1 of the 32 bytes of qh.
template <bool FifthBit, typename Block, int Rows>
void axpyGroupQ45K(float* y, const float* s, const Block* const* w, std::int64_t n)
{
    const __m512 levels = _mm512_setr_ps(0.0f, 1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f, 7.0f, 8.0f, 9.0f, 10.0f, 11.0f,
                                         12.0f, 13.0f, 14.0f, 15.0f);
    const __m512 upperLevels = _mm512_add_ps(levels, _mm512_set1_ps(16.0f));
    const __m512i fifth = _mm512_set1_epi32(16);
    alignas(32) std::int16_t scalesMins[Rows][16];
    float d[Rows];
    float m[Rows];
    // The values of run k of row r, as one register (Q4_K) or two (Q5_K's upper 16 levels).
    const auto table = [&](int r, int k, __m512 at) {
        return _mm512_fmadd_ps(at, _mm512_set1_ps(d[r] * float(scalesMins[r][k])),
                               _mm512_set1_ps(m[r] * float(scalesMins[r][8 + k])));
    };
    for (std::int64_t b = 0; b < n / cpu::QK_K; ++b) {
        for (int r = 0; r < Rows; ++r) {
            const Block& block = w[r][b];
            _mm256_store_si256(reinterpret_cast<__m256i*>(scalesMins[r]), cpu::scalesMinsK4(block.scales));
            d[r] = s[r] * halfToFloat(block.d);
            m[r] = -s[r] * halfToFloat(block.dmin);
        }
        for (int c = 0; c < 4; ++c) {
            float* yc = y + b * cpu::QK_K + 64 * c;
            __m512 out[4] = {_mm512_loadu_ps(yc), _mm512_loadu_ps(yc + 16), _mm512_loadu_ps(yc + 32),
                             _mm512_loadu_ps(yc + 48)};
            for (int r = 0; r < Rows; ++r) {
                const std::uint8_t* qs = w[r][b].qs + 32 * c;
                const __m512i q[2] = {_mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(qs))),
                                      _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(qs + 16)))};
                const __m512 low = table(r, 2 * c, levels);
                const __m512 high = table(r, 2 * c + 1, levels);
                if constexpr (FifthBit) {
                    const __m512 lowUpper = table(r, 2 * c, upperLevels);
                    const __m512 highUpper = table(r, 2 * c + 1, upperLevels);
                    for (int h = 0; h < 2; ++h) {
                        const __m512i bits = _mm512_cvtepu8_epi32(
                            _mm_loadu_si128(reinterpret_cast<const __m128i*>(w[r][b].qh + 16 * h)));
                        // (q & 15) | fifth bit << 4, then (q >> 4) | the next bit << 4.
                        const __m512i lowIndex = _mm512_ternarylogic_epi32(
                            q[h], _mm512_set1_epi32(15),
                            _mm512_and_si512(_mm512_slli_epi32(_mm512_srli_epi32(bits, 2 * c), 4), fifth), 0xEA);
                        const __m512i highIndex = _mm512_or_si512(
                            _mm512_srli_epi32(q[h], 4),
                            _mm512_and_si512(_mm512_slli_epi32(_mm512_srli_epi32(bits, 2 * c + 1), 4), fifth));
                        out[h] = _mm512_add_ps(out[h], _mm512_permutex2var_ps(low, lowIndex, lowUpper));
                        out[2 + h] = _mm512_add_ps(out[2 + h], _mm512_permutex2var_ps(high, highIndex, highUpper));
                    }
                } else {
                    for (int h = 0; h < 2; ++h) {
                        out[h] = _mm512_add_ps(out[h], _mm512_permutexvar_ps(q[h], low));
                        out[2 + h] = _mm512_add_ps(out[2 + h], _mm512_permutexvar_ps(_mm512_srli_epi32(q[h], 4), high));
                    }
                }
            }
            for (int i = 0; i < 4; ++i)
                _mm512_storeu_ps(yc + 16 * i, out[i]);
        }
    }
}

template <int Rows>
struct GroupQ4K {
    static constexpr auto run = axpyGroupQ45K<false, cpu::BlockQ4_K, Rows>;
};
template <int Rows>
struct GroupQ5K {
    static constexpr auto run = axpyGroupQ45K<true, cpu::BlockQ5_K, Rows>;
};
constexpr auto axpyRowsQ4K = axpyRowsInGroups<cpu::BlockQ4_K, GroupQ4K>;
constexpr auto axpyRowsQ5K = axpyRowsInGroups<cpu::BlockQ5_K, GroupQ5K>;
#else
constexpr auto axpyRowsQ4K = axpyRowsK<cpu::BlockQ4_K>;
constexpr auto axpyRowsQ5K = axpyRowsK<cpu::BlockQ5_K>;
#endif

#if defined(__AVX512VNNI__)
// RowKernels::axpyRowsInt8 for Q4_K (the scalar table holds the reference and its rounding):
// a pass of up to kAxpyRowsInt8Pass rows rounds its factors (runByRows' s times each run's
// scale) to signed bytes once per super-block and group of eight rows, then adds four rows at a
// time, one vpdpbusd for 16 outputs of the four.
//
// A byte per factor rounds a token's inputs about as a dense product's Q8_0 activations do.
// Two bytes (1/16256 of the group's largest) ran 20-25 % slower; they kept a decode's logits
// within 0.08 (relative RMS) of its prompt's on tst_magnitude_sparsity's input-sparse model
// where one byte leaves 0.12, but both decodes stayed as close to the file's dense logits as its
// prompts (0.30 over 96 positions): the thresholds turn any rounding into inputs dropped or kept
// on either side, and which rounding does not matter.
//
// Q4_0 keeps the float axpyRows, which adds its rows at about the integer kernels' rate (12.5
// GB/s in L2 on one Zen 4 thread, against the float Q4_K's 7.4). An integer Q4_0 with a byte
// of factors (eight blocks a unit, their levels gathered by vpermt2w) added rows from L2 at
// 1.1-1.3x the float kernel's rate, and decoded the 7B-shape input-sparse files no faster:
// their scattered rows come from memory at 7-9 GB/s a thread either way.

// Rows x runs of factor bytes, two rows to a 128-bit lane, become dwords of four rows' bytes
// for one run: vpermd takes lane 2q + h from dword h of rows 4q-4q+3, vpshufb transposes the
// 4 x 4 bytes inside each lane.
struct alignas(64) FactorIndex {
    std::int32_t lanes[16];
    std::int8_t bytes[64]; // in each lane: byte 4c + r from byte 4r + c
};

constexpr FactorIndex makeFactorIndex()
{
    FactorIndex x{};
    for (int l = 0; l < 4; ++l) {
        for (int r = 0; r < 4; ++r) {
            x.lanes[4 * l + r] = 2 * (4 * (l / 2) + r) + l % 2;
            for (int c = 0; c < 4; ++c)
                x.bytes[16 * l + 4 * c + r] = std::int8_t(4 * r + c);
        }
    }
    return x;
}

constexpr FactorIndex kFactorIndex = makeFactorIndex();

// Bytes [offset, offset + 16) of rows p[0..3], one row to a lane.
inline __m512i fourRows16(const std::uint8_t* const* p, std::size_t offset)
{
    __m512i v = _mm512_castsi128_si512(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p[0] + offset)));
    v = _mm512_inserti32x4(v, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p[1] + offset)), 1);
    v = _mm512_inserti32x4(v, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p[2] + offset)), 2);
    return _mm512_inserti32x4(v, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p[3] + offset)), 3);
}

// A unit's eight runs of factors for 4 x Quads rows (rows past the group's have factor 0),
// each rounded to a signed byte k: k[8q + g] holds run g's of rows 4q-4q+3 and scale[g] run g's
// scale (per unit of k).
struct RoundedFactors {
    alignas(64) std::int32_t k[16];
    alignas(32) float scale[8];
};

// Bytes of 8 rows x 8 runs, two rows to an xmm, as dwords of four rows' bytes for one run.
inline __m512i factorDwords(const __m128i* bytes)
{
    __m512i rowMajor = _mm512_castsi128_si512(bytes[0]);
    rowMajor = _mm512_inserti32x4(rowMajor, bytes[1], 1);
    rowMajor = _mm512_inserti32x4(rowMajor, bytes[2], 2);
    rowMajor = _mm512_inserti32x4(rowMajor, bytes[3], 3);
    return _mm512_shuffle_epi8(_mm512_permutexvar_epi32(_mm512_load_si512(kFactorIndex.lanes), rowMajor),
                               _mm512_load_si512(kFactorIndex.bytes));
}

// The factors come as pairs of rows: e[p] holds rows 2p and 2p + 1, runs 0-7 each.
template <int Quads>
inline void roundFactors(const __m512* e, RoundedFactors& f)
{
    constexpr int kPairs = 2 * Quads;
    const __m512 sign = _mm512_set1_ps(-0.0f);
    __m512 max = _mm512_setzero_ps();
    for (int p = 0; p < kPairs; ++p)
        max = _mm512_max_ps(max, _mm512_andnot_ps(sign, e[p]));
    max = _mm512_max_ps(max, _mm512_shuffle_f32x4(max, max, _MM_SHUFFLE(1, 0, 3, 2))); // both rows of a pair
    _mm256_store_ps(f.scale, _mm512_castps512_ps256(_mm512_div_ps(max, _mm512_set1_ps(127.0f))));
    const __m512 inverse = _mm512_maskz_div_ps(_mm512_cmp_ps_mask(max, _mm512_setzero_ps(), _CMP_GT_OQ),
                                               _mm512_set1_ps(127.0f), max);
    __m128i k[4] = {};
    for (int p = 0; p < kPairs; ++p)
        k[p] = _mm512_cvtepi32_epi8(_mm512_cvtps_epi32(_mm512_mul_ps(e[p], inverse)));
    _mm512_store_si512(f.k, factorDwords(k));
}

// The next units of rows p[0 .. Rows) are asked for this far ahead: eight or more scattered
// rows at once are more streams than the hardware prefetcher follows.
constexpr std::size_t kInt8Ahead = 4 * 144;

template <int Rows>
inline void prefetchRows(const std::uint8_t* const* p, std::size_t offset, std::size_t end)
{
    if (offset + kInt8Ahead >= end)
        return;
    for (int r = 0; r < Rows; ++r) {
        cpu::prefetchLine(p[r] + offset + kInt8Ahead);
        cpu::prefetchLine(p[r] + offset + kInt8Ahead + 64);
        cpu::prefetchLine(p[r] + offset + kInt8Ahead + 128);
    }
}

// A pass of 4 x Quads rows (the last quad padded with factor 0): groups of two quads, each
// with its own factors, added one after another to the outputs, which stay in registers for
// the whole pass.
template <int Quads>
struct Int8Pass {
    static constexpr int kGroups = (Quads + 1) / 2;
    static constexpr int quadsOf(int group) { return std::min(2, Quads - 2 * group); }
    RoundedFactors factors[kGroups];
};

// Q4_K, a super-block a unit, its 128 bytes of levels in two registers per row: byte i of
// half H holds the low nibble of output 128H + 64(i / 32) + i % 32 (run 4H + 2(i / 32)) and
// the high one 32 further (the next run). Four rows' registers are interleaved by vpunpck*,
// which stay inside 128-bit lanes: register j of the four then holds, in lane l, dword i, byte
// 16l + 4j + i of each of the rows, so each lane is one run's (its factors and scales are
// picked per lane), and the sums come out with lanes and registers transposed, which one 4 x 4
// transposition of lanes per 64 outputs undoes at the end of the pass.
struct alignas(64) Q4KLaneIndex {
    std::int32_t run[2][2][16]; // [half][nibble]: lane l takes run 4 half + 2 (l / 2) + nibble
};

constexpr Q4KLaneIndex makeQ4KLaneIndex()
{
    Q4KLaneIndex x{};
    for (int h = 0; h < 2; ++h)
        for (int nibble = 0; nibble < 2; ++nibble)
            for (int i = 0; i < 16; ++i)
                x.run[h][nibble][i] = 4 * h + 2 * (i / 8) + nibble;
    return x;
}

constexpr Q4KLaneIndex kQ4KLanes = makeQ4KLaneIndex();

// A 4 x 4 transposition of 128-bit lanes: lane l' of out[l] is lane l of in[l'].
inline void transposeLanes(const __m512 (&in)[4], __m512 (&out)[4])
{
    const __m512 a = _mm512_shuffle_f32x4(in[0], in[1], _MM_SHUFFLE(1, 0, 1, 0));
    const __m512 b = _mm512_shuffle_f32x4(in[2], in[3], _MM_SHUFFLE(1, 0, 1, 0));
    const __m512 c = _mm512_shuffle_f32x4(in[0], in[1], _MM_SHUFFLE(3, 2, 3, 2));
    const __m512 d = _mm512_shuffle_f32x4(in[2], in[3], _MM_SHUFFLE(3, 2, 3, 2));
    out[0] = _mm512_shuffle_f32x4(a, b, _MM_SHUFFLE(2, 0, 2, 0));
    out[1] = _mm512_shuffle_f32x4(a, b, _MM_SHUFFLE(3, 1, 3, 1));
    out[2] = _mm512_shuffle_f32x4(c, d, _MM_SHUFFLE(2, 0, 2, 0));
    out[3] = _mm512_shuffle_f32x4(c, d, _MM_SHUFFLE(3, 1, 3, 1));
}

// Four Q4_K super-blocks' first 16 bytes (d, dmin, the 12 bytes of six-bit scales and mins
// s[0..11]), one to a lane, unpacked to bytes [scales 0-7, mins 0-7] per lane (block_dot.cpp's
// scaleMinK4): scales 0-3 are s[0..3] & 63, mins 0-3 s[4..7] & 63, scales 4-7 s[8..11] & 15
// and mins 4-7 s[8..11] >> 4, each with the top two bits of s[0..3] (scales) or s[4..7]
// (mins) above.
struct alignas(64) Q4KHeaderIndex {
    std::int8_t low[64];      // lane bytes: s[0..3], s[8..11], s[4..7], s[8..11]
    std::int8_t high[64];     // lane bytes: none, s[0..3], none, s[4..7]
    std::int8_t lowMask[64];  // 63, 15, 63, 0 per quarter (the last takes the nibble above)
    std::int8_t nibbleMask[64];
    std::int8_t highMask[64];
    std::int16_t dmin[32];    // of two registers of four headers: d of rows 0-7, then dmin
};

constexpr Q4KHeaderIndex makeQ4KHeaderIndex()
{
    Q4KHeaderIndex x{};
    constexpr int kScales = 4; // offset of the scales in a header
    for (int l = 0; l < 4; ++l) {
        for (int i = 0; i < 4; ++i) {
            const int at = 16 * l;
            x.low[at + i] = std::int8_t(kScales + i);
            x.low[at + 4 + i] = std::int8_t(kScales + 8 + i);
            x.low[at + 8 + i] = std::int8_t(kScales + 4 + i);
            x.low[at + 12 + i] = std::int8_t(kScales + 8 + i);
            x.high[at + i] = -1;
            x.high[at + 4 + i] = std::int8_t(kScales + i);
            x.high[at + 8 + i] = -1;
            x.high[at + 12 + i] = std::int8_t(kScales + 4 + i);
            x.lowMask[at + i] = 63;
            x.lowMask[at + 4 + i] = 15;
            x.lowMask[at + 8 + i] = 63;
            x.lowMask[at + 12 + i] = 0;
            x.nibbleMask[at + 12 + i] = 15;
            x.highMask[at + 4 + i] = 3;
            x.highMask[at + 12 + i] = 3;
        }
    }
    for (int r = 0; r < 8; ++r) {
        x.dmin[r] = std::int16_t(32 * (r / 4) + 8 * (r % 4));
        x.dmin[8 + r] = std::int16_t(x.dmin[r] + 1);
    }
    return x;
}

constexpr Q4KHeaderIndex kQ4KHeaders = makeQ4KHeaderIndex();

inline __m512i scalesMinsQ4K(__m512i headers)
{
    const auto load = [](const std::int8_t* v) { return _mm512_load_si512(v); };
    const __m512i low = _mm512_shuffle_epi8(headers, load(kQ4KHeaders.low));
    const __m512i high = _mm512_shuffle_epi8(headers, load(kQ4KHeaders.high));
    const __m512i bits = _mm512_or_si512(_mm512_and_si512(low, load(kQ4KHeaders.lowMask)),
                                         _mm512_and_si512(_mm512_srli_epi16(low, 4), load(kQ4KHeaders.nibbleMask)));
    return _mm512_or_si512(bits, _mm512_slli_epi16(_mm512_and_si512(_mm512_srli_epi16(high, 6),
                                                                    load(kQ4KHeaders.highMask)), 4));
}

template <int Quads>
void axpyPassQ4KInt8(float* y, const float* s, const std::uint8_t* const* w, std::int64_t n)
{
    using Pass = Int8Pass<Quads>;
    const __m512i low = _mm512_set1_epi8(0x0f);
    Pass pass;
    alignas(32) float offsets[Pass::kGroups][8];
    for (std::int64_t b = 0; b < n / cpu::QK_K; ++b) {
        prefetchRows<4 * Quads>(w, std::size_t(b) * sizeof(cpu::BlockQ4_K),
                                std::size_t(n / cpu::QK_K) * sizeof(cpu::BlockQ4_K));
        for (int j = 0; j < Pass::kGroups; ++j) {
            const std::uint8_t* const* rows = w + 8 * j;
            const std::size_t header = std::size_t(b) * sizeof(cpu::BlockQ4_K);
            const __m512i headers[2] = {fourRows16(rows, header),
                                        Pass::quadsOf(j) == 2 ? fourRows16(rows + 4, header) : _mm512_setzero_si512()};
            // d and dmin of the eight rows, times the rows' factors: [s d of rows 0-7, -s dmin of rows 0-7].
            const __m256 factors = _mm256_loadu_ps(s + 8 * j);
            const __m512 scaled = _mm512_mul_ps(
                _mm512_cvtph_ps(_mm512_castsi512_si256(
                    _mm512_permutex2var_epi16(headers[0], _mm512_load_si512(kQ4KHeaders.dmin), headers[1]))),
                _mm512_insertf32x8(_mm512_castps256_ps512(factors), _mm256_xor_ps(factors, _mm256_set1_ps(-0.0f)), 1));
            // Qwords: the scales of four rows, then their mins.
            __m512i scalesMins[2];
            for (int q = 0; q < Pass::quadsOf(j); ++q)
                scalesMins[q] = _mm512_permutexvar_epi64(_mm512_setr_epi64(0, 2, 4, 6, 1, 3, 5, 7),
                                                         scalesMinsQ4K(headers[q]));
            __m512 e[4];
            __m512 offset = _mm512_setzero_ps(); // even rows in the low half, odd ones in the high
            for (int p = 0; p < 2 * Pass::quadsOf(j); ++p) {
                const __m512i& unpacked = scalesMins[p / 2];
                const __m512 scales = _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(
                    p % 2 ? _mm512_extracti32x4_epi32(unpacked, 1) : _mm512_castsi512_si128(unpacked)));
                const __m512 mins = _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(
                    p % 2 ? _mm512_extracti32x4_epi32(unpacked, 3) : _mm512_extracti32x4_epi32(unpacked, 2)));
                const __m512i rowOf = _mm512_setr_epi32(2 * p, 2 * p, 2 * p, 2 * p, 2 * p, 2 * p, 2 * p, 2 * p,
                                                        2 * p + 1, 2 * p + 1, 2 * p + 1, 2 * p + 1, 2 * p + 1, 2 * p + 1,
                                                        2 * p + 1, 2 * p + 1);
                e[p] = _mm512_mul_ps(_mm512_permutexvar_ps(rowOf, scaled), scales);
                offset = _mm512_fmadd_ps(_mm512_permutexvar_ps(_mm512_add_epi32(rowOf, _mm512_set1_epi32(8)), scaled),
                                         mins, offset);
            }
            if (Pass::quadsOf(j) == 2)
                roundFactors<2>(e, pass.factors[j]);
            else
                roundFactors<1>(e, pass.factors[j]);
            _mm256_store_ps(offsets[j], _mm256_add_ps(_mm512_castps512_ps256(offset), _mm512_extractf32x8_ps(offset, 1)));
        }
        const std::size_t qs = std::size_t(b) * sizeof(cpu::BlockQ4_K) + offsetof(cpu::BlockQ4_K, qs);
        for (int h = 0; h < 2; ++h) {
            // [nibble][register]: the pass's sums, lanes and registers transposed.
            __m512 sum[2][4];
            for (auto& nibble : sum)
                for (__m512& v : nibble)
                    v = _mm512_setzero_ps();
            for (int j = 0; j < Pass::kGroups; ++j) {
                const RoundedFactors& f = pass.factors[j];
                const __m512i factors = _mm512_load_si512(f.k);
                __m512i dot[2][4];
                for (auto& nibble : dot)
                    for (__m512i& v : nibble)
                        v = _mm512_setzero_si512();
                for (int q = 0; q < Pass::quadsOf(j); ++q) {
                    const std::uint8_t* const* p = w + 8 * j + 4 * q;
                    const std::size_t at = qs + std::size_t(64 * h);
                    const __m512i r0 = _mm512_loadu_si512(p[0] + at);
                    const __m512i r1 = _mm512_loadu_si512(p[1] + at);
                    const __m512i r2 = _mm512_loadu_si512(p[2] + at);
                    const __m512i r3 = _mm512_loadu_si512(p[3] + at);
                    const __m512i lo01 = _mm512_unpacklo_epi8(r0, r1);
                    const __m512i hi01 = _mm512_unpackhi_epi8(r0, r1);
                    const __m512i lo23 = _mm512_unpacklo_epi8(r2, r3);
                    const __m512i hi23 = _mm512_unpackhi_epi8(r2, r3);
                    const __m512i rows[4] = {_mm512_unpacklo_epi16(lo01, lo23), _mm512_unpackhi_epi16(lo01, lo23),
                                             _mm512_unpacklo_epi16(hi01, hi23), _mm512_unpackhi_epi16(hi01, hi23)};
                    const __m512i quad = _mm512_set1_epi32(8 * q);
                    for (int nibble = 0; nibble < 2; ++nibble) {
                        const __m512i lanes = _mm512_add_epi32(_mm512_load_si512(kQ4KLanes.run[h][nibble]), quad);
                        const __m512i k = _mm512_permutexvar_epi32(lanes, factors);
                        for (int r = 0; r < 4; ++r) {
                            const __m512i levels = _mm512_and_si512(nibble ? _mm512_srli_epi16(rows[r], 4) : rows[r], low);
                            dot[nibble][r] = _mm512_dpbusd_epi32(dot[nibble][r], levels, k);
                        }
                    }
                }
                for (int nibble = 0; nibble < 2; ++nibble) {
                    const __m512i lanes = _mm512_load_si512(kQ4KLanes.run[h][nibble]);
                    const __m512 scale = _mm512_permutexvar_ps(lanes, _mm512_castps256_ps512(_mm256_load_ps(f.scale)));
                    const __m512 offset = _mm512_permutexvar_ps(lanes, _mm512_castps256_ps512(_mm256_load_ps(offsets[j])));
                    for (int r = 0; r < 4; ++r)
                        sum[nibble][r] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(dot[nibble][r]), scale,
                                                         _mm512_add_ps(sum[nibble][r], offset));
                }
            }
            for (int nibble = 0; nibble < 2; ++nibble) {
                __m512 out[4];
                transposeLanes(sum[nibble], out);
                for (int l = 0; l < 4; ++l) {
                    float* yl = y + b * cpu::QK_K + 128 * h + 64 * (l / 2) + 32 * nibble + 16 * (l % 2);
                    _mm512_storeu_ps(yl, _mm512_add_ps(_mm512_loadu_ps(yl), out[l]));
                }
            }
        }
    }
}

// Passes of up to kAxpyRowsInt8Pass rows, padded with factor 0 (and the pass's first row) to
// whole quads.
void axpyRowsQ4KInt8(float* y, const float* s, const void* const* rows, int count, std::int64_t n)
{
    static_assert(kAxpyRowsInt8Pass == 16 && kAxpyRowsGroup == 8);
    using Kernel = void (*)(float*, const float*, const std::uint8_t* const*, std::int64_t);
    static constexpr std::array<Kernel, 4> passes = {axpyPassQ4KInt8<1>, axpyPassQ4KInt8<2>, axpyPassQ4KInt8<3>,
                                                     axpyPassQ4KInt8<4>};
    for (int k0 = 0; k0 < count; k0 += kAxpyRowsInt8Pass) {
        const int size = std::min(kAxpyRowsInt8Pass, count - k0);
        const int quads = (size + 3) / 4;
        const std::uint8_t* w[kAxpyRowsInt8Pass];
        float factors[kAxpyRowsInt8Pass] = {};
        for (int r = 0; r < 4 * quads; ++r) {
            w[r] = static_cast<const std::uint8_t*>(rows[k0 + (r < size ? r : 0)]);
            factors[r] = r < size ? s[k0 + r] : 0.0f;
        }
        passes[std::size_t(quads - 1)](y, factors, w, n);
    }
}

#else
constexpr decltype(RowKernels::axpyRowsInt8) axpyRowsQ4KInt8 = nullptr;
#endif

// Values of a row at element e (a multiple of kLanes), one vector, for axpyTile.
template <typename W>
struct FloatValues {
    static VecF load(const std::uint8_t* row, std::int64_t e) { return vload(reinterpret_cast<const W*>(row) + e); }
};

struct Q4Values {
    static VecF load(const std::uint8_t* row, std::int64_t e)
    {
        const BlockQ4_0& b = reinterpret_cast<const BlockQ4_0*>(row)[e / QK4_0];
        const int within = int(e % QK4_0); // low nibbles hold elements 0..15, high ones 16..31
#if defined(__AVX512F__)
        __m512i q = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b.qs)));
        if (within >= QK4_0 / 2)
            q = _mm512_srli_epi32(q, 4);
        q = _mm512_sub_epi32(_mm512_and_si512(q, _mm512_set1_epi32(0x0f)), _mm512_set1_epi32(8));
        return _mm512_mul_ps(_mm512_cvtepi32_ps(q), _mm512_set1_ps(halfToFloat(b.d)));
#else
        __m256i q = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(b.qs + within % (QK4_0 / 2))));
        if (within >= QK4_0 / 2)
            q = _mm256_srli_epi32(q, 4);
        q = _mm256_sub_epi32(_mm256_and_si256(q, _mm256_set1_epi32(0x0f)), _mm256_set1_epi32(8));
        return _mm256_mul_ps(_mm256_cvtepi32_ps(q), _mm256_set1_ps(halfToFloat(b.d)));
#endif
    }
};

struct Q8Values {
    static VecF load(const std::uint8_t* row, std::int64_t e)
    {
        const BlockQ8_0& b = reinterpret_cast<const BlockQ8_0*>(row)[e / QK8_0];
        const std::int8_t* q = b.qs + e % QK8_0;
#if defined(__AVX512F__)
        const __m512i v = _mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(q)));
        return _mm512_mul_ps(_mm512_cvtepi32_ps(v), _mm512_set1_ps(halfToFloat(b.d)));
#else
        const __m256i v = _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(q)));
        return _mm256_mul_ps(_mm256_cvtepi32_ps(v), _mm256_set1_ps(halfToFloat(b.d)));
#endif
    }
};

// kAxpyTileTokens tokens x kTileVectors vectors of outputs held in registers (16 zmm of the 32;
// 8 ymm of AVX2's 16) while a block of rows passes; a row whose activations are all zero for the
// tile's tokens is skipped. Measured on the 7B shape's prompts (64 tokens, AVX-512): 4 tokens x 4
// vectors 48-56 tok/s, 8 x 2 57-59: the row's decoding is shared by more tokens.
#if defined(__AVX512F__)
constexpr int kTileVectors = 2;
#else
constexpr int kTileVectors = 1;
#endif
// n is a multiple of 32, so tiles never leave a rest.
static_assert(32 % (kTileVectors * kLanes) == 0);

template <typename Values>
void axpyTile(float* y, std::int64_t yStride, const float* a, std::int64_t aStride, int tokens,
              const std::uint8_t* rows, std::size_t rowStride, std::int64_t count, std::int64_t n)
{
    constexpr int T = kAxpyTileTokens;
    for (std::int64_t c0 = 0; c0 < n; c0 += kTileVectors * kLanes) {
        VecF acc[T][kTileVectors];
#pragma GCC unroll 8
        for (int t = 0; t < T; ++t) {
#pragma GCC unroll 2
            for (int k = 0; k < kTileVectors; ++k)
                acc[t][k] = t < tokens ? vload(y + t * yStride + c0 + k * kLanes) : vzero();
        }
        for (std::int64_t i = 0; i < count; ++i) {
            float s[T];
            bool any = false;
#pragma GCC unroll 8
            for (int t = 0; t < T; ++t) {
                s[t] = t < tokens ? a[t * aStride + i] : 0.0f;
                any |= s[t] != 0.0f;
            }
            if (!any)
                continue;
            const std::uint8_t* row = rows + std::size_t(i) * rowStride;
#pragma GCC unroll 2
            for (int k = 0; k < kTileVectors; ++k) {
                const VecF v = Values::load(row, c0 + k * kLanes);
#pragma GCC unroll 8
                for (int t = 0; t < T; ++t)
                    acc[t][k] = vfma(v, vset1(s[t]), acc[t][k]);
            }
        }
        for (int t = 0; t < tokens; ++t) {
#pragma GCC unroll 2
            for (int k = 0; k < kTileVectors; ++k)
                vstore(y + t * yStride + c0 + k * kLanes, acc[t][k]);
        }
    }
}

// 32 or 64 outputs at a time (2 or 4 zmm, 4 or 8 ymm accumulators): at 10 % of a 13B layer's
// neurons active per token, a token has ~50 rows in a block of 512, so the accumulators are
// loaded and stored once per ~200 multiply-adds.
template <int Vectors>
inline void axpyActiveRowsSlice(float* y, const float* a, const std::uint16_t* ids, std::int64_t count,
                                std::int64_t firstRow, const float* rows, std::size_t rowStride)
{
    VecF acc[Vectors];
#pragma GCC unroll 8
    for (int v = 0; v < Vectors; ++v)
        acc[v] = vload(y + v * kLanes);
    for (std::int64_t k = 0; k < count; ++k) {
        const VecF s = vset1(a[ids[k]]);
        const float* row = rows + std::size_t(ids[k] - firstRow) * rowStride;
#pragma GCC unroll 8
        for (int v = 0; v < Vectors; ++v)
            acc[v] = vfma(vload(row + v * kLanes), s, acc[v]);
    }
#pragma GCC unroll 8
    for (int v = 0; v < Vectors; ++v)
        vstore(y + v * kLanes, acc[v]);
}

void axpyActiveRows(float* y, const float* a, const std::uint16_t* ids, std::int64_t count, std::int64_t firstRow,
                    const float* rows, std::size_t rowStride, std::int64_t n)
{
    std::int64_t c = 0;
    for (; c + 64 <= n; c += 64)
        axpyActiveRowsSlice<64 / kLanes>(y + c, a, ids, count, firstRow, rows + c, rowStride);
    for (; c < n; c += 32)
        axpyActiveRowsSlice<32 / kLanes>(y + c, a, ids, count, firstRow, rows + c, rowStride);
}

// ---------------------------------------------------------------------------------------------
// Prompts over neuron-major rows (ColumnKernels): 16 outputs' columns requantized to Q8_0 along
// the rows, one int32 lane per output, four rows' bytes to a lane; then tiles of tokens against
// them with the activation's four bytes broadcast, as the dense products' interleaved tiles do.

// Four consecutive activation bytes of a block, as one broadcastable word.
inline std::int32_t activationWord(const ActBlockQ8& a, int offset)
{
    std::int32_t v;
    std::memcpy(&v, a.qs + offset, sizeof(v));
    return v;
}

// The 8-bit columns against Q8_0 activations. With VNNI the signed weight bytes become unsigned
// by a flip of their top bit (+128), which the activation sum takes back out; without it
// maddubs wants an unsigned operand, so each weight's sign moves onto the activation (each
// product at most 127 x 127: no saturation).
struct ColumnWeights {
    static constexpr int kRegisters = 8;
    static constexpr int kLevels = 127;
#if defined(__AVX512VNNI__)
    static __m512i load(const std::uint8_t* q) { return _mm512_xor_si512(_mm512_loadu_si512(q), _mm512_set1_epi8(-128)); }
    static __m512i dot(const __m512i (&w)[kRegisters], const ActBlockQ8& a)
    {
        __m512i dot = _mm512_set1_epi32(-128 * a.sum);
        for (int k = 0; k < kRegisters; ++k)
            dot = _mm512_dpbusd_epi32(dot, w[k], _mm512_set1_epi32(activationWord(a, 4 * k)));
        return dot;
    }
#else
    // The half of each register at @p q (64 bytes apart).
    static __m256i dotHalf(const std::uint8_t* q, const ActBlockQ8& a)
    {
        __m256i dot = _mm256_setzero_si256();
        for (int k = 0; k < kRegisters; ++k) {
            const __m256i w = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q + 64 * k));
            const __m256i pairs =
                _mm256_maddubs_epi16(_mm256_abs_epi8(w), _mm256_sign_epi8(_mm256_set1_epi32(activationWord(a, 4 * k)), w));
            dot = _mm256_add_epi32(dot, _mm256_madd_epi16(pairs, _mm256_set1_epi16(1)));
        }
        return dot;
    }
#endif
};

// Requantizes 16 outputs of decoded rows into ColumnWeights' layout: four rows' values to
// each int32 lane, ColumnWeights::kLevels either side of zero.
#if defined(__AVX512F__)
void packColumns(const float* rows, std::size_t stride, std::int64_t count, std::uint8_t* out)
{
    constexpr int PerLane = 32 / ColumnWeights::kRegisters;
    constexpr int bits = 32 / PerLane;
    const __m512 levels = _mm512_set1_ps(float(ColumnWeights::kLevels));
    const __m512i lowBits = _mm512_set1_epi32((1 << bits) - 1);
    for (std::int64_t b = 0; b < count / 32; ++b, out += kColumnBlockBytes) {
        const float* block = rows + std::size_t(b) * 32 * stride;
        __m512 max = _mm512_setzero_ps();
        for (int i = 0; i < 32; ++i)
            max = _mm512_max_ps(max, _mm512_abs_ps(_mm512_loadu_ps(block + std::size_t(i) * stride)));
        _mm512_storeu_ps(out, _mm512_div_ps(max, levels));
        const __m512 inverse =
            _mm512_maskz_div_ps(_mm512_cmp_ps_mask(max, _mm512_setzero_ps(), _CMP_GT_OQ), levels, max);
        for (int k = 0; k < 32 / PerLane; ++k) {
            __m512i word = _mm512_setzero_si512();
            for (int i = 0; i < PerLane; ++i) {
                const __m512 v =
                    _mm512_mul_ps(_mm512_loadu_ps(block + std::size_t(PerLane * k + i) * stride), inverse);
                word = _mm512_or_si512(word,
                                       _mm512_slli_epi32(_mm512_and_si512(_mm512_cvtps_epi32(v), lowBits), bits * i));
            }
            _mm512_storeu_si512(out + kColumnOutputs * sizeof(float) + 64 * k, word);
        }
    }
}
#else
void packColumns(const float* rows, std::size_t stride, std::int64_t count, std::uint8_t* out)
{
    constexpr int PerLane = 32 / ColumnWeights::kRegisters;
    constexpr int bits = 32 / PerLane;
    const __m256 levels = _mm256_set1_ps(float(ColumnWeights::kLevels));
    const __m256 sign = _mm256_set1_ps(-0.0f);
    const __m256i lowBits = _mm256_set1_epi32((1 << bits) - 1);
    for (std::int64_t b = 0; b < count / 32; ++b, out += kColumnBlockBytes) {
        for (int h = 0; h < 2; ++h) {
            const float* block = rows + std::size_t(b) * 32 * stride + std::size_t(8 * h);
            __m256 max = _mm256_setzero_ps();
            for (int i = 0; i < 32; ++i)
                max = _mm256_max_ps(max, _mm256_andnot_ps(sign, _mm256_loadu_ps(block + std::size_t(i) * stride)));
            _mm256_storeu_ps(reinterpret_cast<float*>(out) + 8 * h, _mm256_div_ps(max, levels));
            const __m256 inverse =
                _mm256_and_ps(_mm256_cmp_ps(max, _mm256_setzero_ps(), _CMP_GT_OQ), _mm256_div_ps(levels, max));
            for (int k = 0; k < 32 / PerLane; ++k) {
                __m256i word = _mm256_setzero_si256();
                for (int i = 0; i < PerLane; ++i) {
                    const __m256 v =
                        _mm256_mul_ps(_mm256_loadu_ps(block + std::size_t(PerLane * k + i) * stride), inverse);
                    word = _mm256_or_si256(
                        word, _mm256_slli_epi32(_mm256_and_si256(_mm256_cvtps_epi32(v), lowBits), bits * i));
                }
                _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + kColumnOutputs * sizeof(float) + 64 * k + 32 * h),
                                    word);
            }
        }
    }
}
#endif

#if defined(__AVX512VNNI__)
constexpr int kColumnTileTokens = 8;

// T tokens x 16 outputs, one accumulator per token; a block's weights stay in registers while
// the tokens pass.
template <int T>
void columnTile(float* y, std::int64_t yStride, const ActBlockQ8* x, std::size_t blockStride,
                const std::uint8_t* p, std::int64_t blocks)
{
    __m512 acc[T];
    for (int t = 0; t < T; ++t)
        acc[t] = _mm512_loadu_ps(y + std::size_t(t) * std::size_t(yStride));
    for (std::int64_t b = 0; b < blocks; ++b, p += kColumnBlockBytes, x += blockStride) {
        const __m512 scale = _mm512_loadu_ps(p);
        __m512i w[ColumnWeights::kRegisters];
        for (int k = 0; k < ColumnWeights::kRegisters; ++k)
            w[k] = ColumnWeights::load(p + kColumnOutputs * sizeof(float) + 64 * k);
        for (int t = 0; t < T; ++t) {
            const __m512i dot = ColumnWeights::dot(w, x[t]);
            acc[t] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(dot), _mm512_mul_ps(scale, _mm512_set1_ps(x[t].d)), acc[t]);
        }
    }
    for (int t = 0; t < T; ++t)
        _mm512_storeu_ps(y + std::size_t(t) * std::size_t(yStride), acc[t]);
}
#else
constexpr int kColumnTileTokens = 4;

// T tokens x 16 outputs as two halves of 8.
template <int T>
void columnTile(float* y, std::int64_t yStride, const ActBlockQ8* x, std::size_t blockStride,
                const std::uint8_t* p, std::int64_t blocks)
{
    __m256 acc[2][T];
    for (int t = 0; t < T; ++t) {
        acc[0][t] = _mm256_loadu_ps(y + std::size_t(t) * std::size_t(yStride));
        acc[1][t] = _mm256_loadu_ps(y + std::size_t(t) * std::size_t(yStride) + 8);
    }
    for (std::int64_t b = 0; b < blocks; ++b, p += kColumnBlockBytes, x += blockStride) {
        for (int h = 0; h < 2; ++h) {
            const __m256 scale = _mm256_loadu_ps(reinterpret_cast<const float*>(p) + 8 * h);
            for (int t = 0; t < T; ++t) {
                const __m256i dot = ColumnWeights::dotHalf(p + kColumnOutputs * sizeof(float) + 32 * h, x[t]);
                acc[h][t] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(dot), _mm256_mul_ps(scale, _mm256_set1_ps(x[t].d)),
                                            acc[h][t]);
            }
        }
    }
    for (int t = 0; t < T; ++t) {
        _mm256_storeu_ps(y + std::size_t(t) * std::size_t(yStride), acc[0][t]);
        _mm256_storeu_ps(y + std::size_t(t) * std::size_t(yStride) + 8, acc[1][t]);
    }
}
#endif

// Tiles of T tokens, then the rest a smaller tile at a time.
template <int T>
void columnTiles(float* y, std::int64_t yStride, const ActBlockQ8* x, std::size_t blockStride, int tokens,
                 const std::uint8_t* packed, std::int64_t blocks)
{
    int t = 0;
    for (; t + T <= tokens; t += T)
        columnTile<T>(y + std::size_t(t) * std::size_t(yStride), yStride, x + t, blockStride, packed, blocks);
    if constexpr (T > 1) {
        if (t < tokens)
            columnTiles<T - 1>(y + std::size_t(t) * std::size_t(yStride), yStride, x + t, blockStride,
                                        tokens - t, packed, blocks);
    }
}

void gemmColumns(float* y, std::int64_t yStride, const ActBlockQ8* x, std::size_t blockStride, int tokens,
                 const std::uint8_t* packed, std::int64_t blocks)
{
    columnTiles<kColumnTileTokens>(y, yStride, x, blockStride, tokens, packed, blocks);
}

} // namespace

constinit const NeuronKernels HEARTH_NEURON_TABLE = {
    HEARTH_NEURON_NAME,
    axpyActiveRows,
    {packColumns, gemmColumns},
    {dot2Float<float>, dot1Float<float>, axpyOneRow<axpyRowsFloat<float>>, nullptr, axpyTile<FloatValues<float>>,
     axpyRowsFloat<float>, nullptr},
    {dot2Float<std::uint16_t>, dot1Float<std::uint16_t>, axpyOneRow<axpyRowsFloat<std::uint16_t>>, nullptr,
     axpyTile<FloatValues<std::uint16_t>>, axpyRowsFloat<std::uint16_t>, nullptr},
    {kDot2Q4, kDot1Q4, axpyQ4, kDot2Interleaved, axpyTile<Q4Values>, axpyRowsQ4, nullptr},
    {dot2Quantized<BlockQ8_0, blockDotQ8>, dot1Quantized<BlockQ8_0, blockDotQ8>,
     axpyOneRow<axpyRowsBytes<BlockQ8_0, q8Bytes>>, nullptr, axpyTile<Q8Values>, axpyRowsBytes<BlockQ8_0, q8Bytes>,
     nullptr},
    {dot2K<DType::Q4_K>, dot1K<DType::Q4_K>, axpyOneRow<axpyRowsQ4K>, nullptr, nullptr, axpyRowsQ4K, axpyRowsQ4KInt8},
    {dot2K<DType::Q5_K>, dot1K<DType::Q5_K>, axpyOneRow<axpyRowsQ5K>, nullptr, nullptr, axpyRowsQ5K, nullptr},
    {dot2K<DType::Q6_K>, dot1K<DType::Q6_K>, axpyOneRow<axpyRowsK<cpu::BlockQ6_K>>, nullptr, nullptr,
     axpyRowsK<cpu::BlockQ6_K>, nullptr},
};

} // namespace hearth::sparse
