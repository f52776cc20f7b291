// SPDX-License-Identifier: MIT
// F16 weights widened to floats by integer shifts instead of conversion instructions, for the
// decode kernels of cpu/ (dense rows) and sparse/ (neuron rows). Included only by translation
// units compiled with AVX2 or AVX-512 flags; like the kernel bodies that use it, everything
// here has internal linkage.
//
// vcvtph2ps is the bottleneck of an F16 dot product in cache on Zen 4: one 512-bit conversion
// per 16 weights, ~21 GB/s per core. A half h moved into a float as
// (sign << 31) | ((h & 0x7fff) << 13) is the float h * 2^-112 exactly, for normal and subnormal
// halves alike: one arithmetic shift and one mask per 16 weights, on pipes the FMAs do not use.
// (An infinity or NaN half reads as a finite value; files with those are broken anyway.) The
// 2^-112 is split between the activations, scaled up by 2^56 once per token, and the result,
// scaled by 2^56: powers of two, so every product and partial sum is exactly the conversion
// path's scaled (unless it falls below 2^-70, far under anything that changes a float sum of
// such terms). Two halves share a 32-bit lane, so each run of 2 x kLanes weights widens into the
// even and the odd ones: the activations are stored in that order (prepareInput), and outputs
// accumulated in it are put back by finishOutput. In cache 37 against 21 GB/s per core, from
// memory 24 against 20 GB/s (one thread, rows of 2048 halves).

#pragma once

#include <immintrin.h>

#include <cstdint>

namespace hearth::cpu {
namespace {
namespace f16w {

constexpr float kLift = 0x1p56f;

#if defined(__AVX512F__)
constexpr int kLanes = 16;
using VecF = __m512;
using VecI = __m512i;
inline VecI load(const std::uint16_t* p) { return _mm512_loadu_si512(p); }
// The upper half of each lane as a float times 2^-112.
inline VecF upper(VecI v)
{
    return _mm512_castsi512_ps(_mm512_and_si512(_mm512_srai_epi32(v, 3), _mm512_set1_epi32(int(0x8fffe000u))));
}
inline VecF lower(VecI v) { return upper(_mm512_slli_epi32(v, 16)); }
#else
constexpr int kLanes = 8;
using VecF = __m256;
using VecI = __m256i;
inline VecI load(const std::uint16_t* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
inline VecF upper(VecI v)
{
    return _mm256_castsi256_ps(_mm256_and_si256(_mm256_srai_epi32(v, 3), _mm256_set1_epi32(int(0x8fffe000u))));
}
inline VecF lower(VecI v) { return upper(_mm256_slli_epi32(v, 16)); }
#endif

// Weights per widening step: kLanes even and kLanes odd ones.
constexpr int kRun = 2 * kLanes;

// @p x scaled by kLift, each whole run stored as its even elements then its odd ones; the
// elements after the last whole run stay in place.
inline void prepareInput(const float* x, float* out, std::int64_t n)
{
    std::int64_t c = 0;
    for (; c + kRun <= n; c += kRun) {
        for (int k = 0; k < kLanes; ++k) {
            out[c + k] = x[c + 2 * k] * kLift;
            out[c + kLanes + k] = x[c + 2 * k + 1] * kLift;
        }
    }
    for (; c < n; ++c) {
        out[c] = x[c] * kLift;
    }
}

// out[i] += the element i of @p yp, which holds outputs / kLift in prepareInput's order.
inline void finishOutput(float* out, const float* yp, std::int64_t n)
{
    std::int64_t c = 0;
    for (; c + kRun <= n; c += kRun) {
        for (int k = 0; k < kLanes; ++k) {
            out[c + 2 * k] += yp[c + k] * kLift;
            out[c + 2 * k + 1] += yp[c + kLanes + k] * kLift;
        }
    }
    for (; c < n; ++c) {
        out[c] += yp[c] * kLift;
    }
}

} // namespace f16w
} // namespace
} // namespace hearth::cpu
