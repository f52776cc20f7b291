// SPDX-License-Identifier: MIT
// Reference kernels: portable C++, the definition every SIMD path is tested against. They also
// run on CPUs (and architectures) without AVX2.

#include "core/fp16.h"
#include "cpu/kernels.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace hearth::cpu {

namespace {

// Float -> int8 as a C cast would do for in-range values, but defined for NaN and overflow
// (values the user's file may contain): NaN gives 0, the rest saturates.
std::int32_t truncToInt(float v)
{
    if (!(v == v)) {
        return 0;
    }
    if (v >= 2147483520.0f) {
        return 2147483647;
    }
    if (v <= -2147483648.0f) {
        return -2147483647 - 1;
    }
    return static_cast<std::int32_t>(v);
}

// roundf() then to int8, matching ggml's quantize_row_q8_0_ref for finite inputs.
std::int8_t roundToInt8(float v)
{
    const std::int32_t i = truncToInt(std::round(v));
    return static_cast<std::int8_t>(i < -128 ? -128 : (i > 127 ? 127 : i));
}

void quantizeRowQ8_0(const float* x, BlockQ8_0* out, std::int64_t n)
{
    for (std::int64_t b = 0; b < n / QK8_0; ++b) {
        const float* v = x + b * QK8_0;
        float amax = 0.0f;
        for (int j = 0; j < QK8_0; ++j) {
            amax = std::fmax(amax, std::fabs(v[j]));
        }
        const float d = amax / 127.0f;
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        out[b].d = floatToHalf(d);
        for (int j = 0; j < QK8_0; ++j) {
            out[b].qs[j] = roundToInt8(v[j] * id);
        }
    }
}

void quantizeRowQ4_0(const float* x, BlockQ4_0* out, std::int64_t n)
{
    for (std::int64_t b = 0; b < n / QK4_0; ++b) {
        const float* v = x + b * QK4_0;
        // The signed value of largest magnitude (the first one on ties) maps to -8, so the
        // full 16 levels are used on that side.
        float amax = 0.0f;
        float max = 0.0f;
        for (int j = 0; j < QK4_0; ++j) {
            if (amax < std::fabs(v[j])) {
                amax = std::fabs(v[j]);
                max = v[j];
            }
        }
        const float d = max / -8.0f;
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        out[b].d = floatToHalf(d);
        for (int j = 0; j < QK4_0 / 2; ++j) {
            const std::int32_t lo = truncToInt(v[j] * id + 8.5f);
            const std::int32_t hi = truncToInt(v[j + QK4_0 / 2] * id + 8.5f);
            // ggml truncates to int8 then caps at 15; the low cap is the int8 wrap of values
            // that cannot occur for finite input, so clamp them to 0.
            const auto nibble = [](std::int32_t q) {
                return static_cast<std::uint8_t>(q < 0 ? 0 : (q > 15 ? 15 : q));
            };
            out[b].qs[j] = static_cast<std::uint8_t>(nibble(lo) | nibble(hi) << 4);
        }
    }
}

void convertRowF16(const float* x, std::uint16_t* out, std::int64_t n)
{
    for (std::int64_t i = 0; i < n; ++i) {
        out[i] = floatToHalf(x[i]);
    }
}

void dequantizeRowF16(const std::uint16_t* in, float* out, std::int64_t n)
{
    for (std::int64_t i = 0; i < n; ++i) {
        out[i] = halfToFloat(in[i]);
    }
}

void dequantizeRowQ8_0(const BlockQ8_0* in, float* out, std::int64_t n)
{
    for (std::int64_t b = 0; b < n / QK8_0; ++b) {
        const float d = halfToFloat(in[b].d);
        for (int j = 0; j < QK8_0; ++j) {
            out[b * QK8_0 + j] = static_cast<float>(in[b].qs[j]) * d;
        }
    }
}

void dequantizeRowQ4_0(const BlockQ4_0* in, float* out, std::int64_t n)
{
    for (std::int64_t b = 0; b < n / QK4_0; ++b) {
        const float d = halfToFloat(in[b].d);
        for (int j = 0; j < QK4_0 / 2; ++j) {
            out[b * QK4_0 + j] = static_cast<float>((in[b].qs[j] & 0x0f) - 8) * d;
            out[b * QK4_0 + j + QK4_0 / 2] = static_cast<float>((in[b].qs[j] >> 4) - 8) * d;
        }
    }
}

void quantizeActivations(const float* x, ActBlockQ8* out, std::int64_t n)
{
    for (std::int64_t b = 0; b < n / QK8_0; ++b) {
        BlockQ8_0 q;
        quantizeRowQ8_0(x + b * QK8_0, &q, QK8_0);
        out[b].d = halfToFloat(q.d);
        std::memcpy(out[b].qs, q.qs, sizeof(q.qs));
        std::int32_t sum = 0;
        for (int j = 0; j < QK8_0; ++j) {
            sum += q.qs[j];
        }
        out[b].sum = sum;
    }
}

template <typename DotFn>
void gemmLoop(const GemmArgs& a, std::int64_t rowBegin, std::int64_t rowEnd, DotFn dot)
{
    for (std::int64_t t = 0; t < a.tokens; ++t) {
        const auto* x = static_cast<const std::uint8_t*>(a.x) + static_cast<std::size_t>(t) * a.xStride;
        float* y = a.y + t * a.yStride;
        for (std::int64_t r = rowBegin; r < rowEnd; ++r) {
            y[r] = dot(a.w + static_cast<std::size_t>(r) * a.wStride, x, a.cols);
        }
    }
}

void gemmF32(const GemmArgs& a, std::int64_t rowBegin, std::int64_t rowEnd)
{
    gemmLoop(a, rowBegin, rowEnd, [](const std::uint8_t* wRow, const std::uint8_t* xRow, std::int64_t n) {
        const auto* w = reinterpret_cast<const float*>(wRow);
        const auto* x = reinterpret_cast<const float*>(xRow);
        float sum = 0.0f;
        for (std::int64_t i = 0; i < n; ++i) {
            sum += w[i] * x[i];
        }
        return sum;
    });
}

void gemmF16(const GemmArgs& a, std::int64_t rowBegin, std::int64_t rowEnd)
{
    gemmLoop(a, rowBegin, rowEnd, [](const std::uint8_t* wRow, const std::uint8_t* xRow, std::int64_t n) {
        const auto* w = reinterpret_cast<const std::uint16_t*>(wRow);
        const auto* x = reinterpret_cast<const float*>(xRow);
        float sum = 0.0f;
        for (std::int64_t i = 0; i < n; ++i) {
            sum += halfToFloat(w[i]) * x[i];
        }
        return sum;
    });
}

void gemmQ4_0(const GemmArgs& a, std::int64_t rowBegin, std::int64_t rowEnd)
{
    gemmLoop(a, rowBegin, rowEnd, [](const std::uint8_t* wRow, const std::uint8_t* xRow, std::int64_t n) {
        const auto* w = reinterpret_cast<const BlockQ4_0*>(wRow);
        const auto* x = reinterpret_cast<const ActBlockQ8*>(xRow);
        float sum = 0.0f;
        for (std::int64_t b = 0; b < n / QK4_0; ++b) {
            std::int32_t isum = 0;
            for (int j = 0; j < QK4_0 / 2; ++j) {
                isum += ((w[b].qs[j] & 0x0f) - 8) * x[b].qs[j];
                isum += ((w[b].qs[j] >> 4) - 8) * x[b].qs[j + QK4_0 / 2];
            }
            sum += halfToFloat(w[b].d) * x[b].d * static_cast<float>(isum);
        }
        return sum;
    });
}

void gemmQ8_0(const GemmArgs& a, std::int64_t rowBegin, std::int64_t rowEnd)
{
    gemmLoop(a, rowBegin, rowEnd, [](const std::uint8_t* wRow, const std::uint8_t* xRow, std::int64_t n) {
        const auto* w = reinterpret_cast<const BlockQ8_0*>(wRow);
        const auto* x = reinterpret_cast<const ActBlockQ8*>(xRow);
        float sum = 0.0f;
        for (std::int64_t b = 0; b < n / QK8_0; ++b) {
            std::int32_t isum = 0;
            for (int j = 0; j < QK8_0; ++j) {
                isum += w[b].qs[j] * x[b].qs[j];
            }
            sum += halfToFloat(w[b].d) * x[b].d * static_cast<float>(isum);
        }
        return sum;
    });
}

// The reference the vector tables are compared with; ops.cpp's historical loop (four partial
// sums, so the compiler vectorizes it for the baseline target without reassociating).
float dotF32(const float* a, const float* b, std::int64_t n)
{
    float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    std::int64_t i = 0;
    for (; i + 4 <= n; i += 4) {
        s0 += a[i] * b[i];
        s1 += a[i + 1] * b[i + 1];
        s2 += a[i + 2] * b[i + 2];
        s3 += a[i + 3] * b[i + 3];
    }
    for (; i < n; ++i) {
        s0 += a[i] * b[i];
    }
    return (s0 + s1) + (s2 + s3);
}

void axpyF32(float* y, float a, const float* x, std::int64_t n)
{
    for (std::int64_t i = 0; i < n; ++i) {
        y[i] += a * x[i];
    }
}

void swigluF32(float* gate, const float* up, std::int64_t n)
{
    for (std::int64_t i = 0; i < n; ++i) {
        const float g = gate[i];
        gate[i] = g / (1.0f + std::exp(-g)) * up[i];
    }
}

void siluF32(float* x, std::int64_t n)
{
    for (std::int64_t i = 0; i < n; ++i)
        x[i] = x[i] / (1.0f + std::exp(-x[i]));
}

inline float kvValue(const float* p, std::size_t i)
{
    return p[i];
}

inline float kvValue(const std::uint16_t* p, std::size_t i)
{
    return halfToFloat(p[i]);
}

inline float kvValue(const BlockQ8_0* p, std::size_t i)
{
    const BlockQ8_0& b = p[i / QK8_0];
    return float(b.qs[i % QK8_0]) * halfToFloat(b.d);
}

// Query by query, as a decoded token attends: the reference for the vector tables, and their
// fallback for head sizes their vectors do not divide. KV: float, F16 halves or Q8_0 blocks.
template <typename KV>
void attendHeadOf(const AttendHeadArgs& a)
{
    const auto* kBase = static_cast<const KV*>(a.k);
    const auto* vBase = static_cast<const KV*>(a.v);
    float* scores = a.scratch;
    for (int i = 0; i < a.nq; ++i) {
        const float* q = a.q + static_cast<std::size_t>(i) * a.qStride;
        const int keys = a.samePosition ? a.firstPos + 1 : a.firstPos + i + 1;
        const float sink = sinkOf(a, i);
        float maxScore = sink;
        for (int j = 0; j < keys; ++j) {
            const KV* k = kBase + static_cast<std::size_t>(j) * a.kvStride;
            float dot = 0.0f;
            for (int d = 0; d < a.headDim; ++d)
                dot += q[d] * kvValue(k, std::size_t(d));
            scores[j] = dot * a.scale;
            if (a.softCap > 0.0f)
                scores[j] = a.softCap * std::tanh(scores[j] / a.softCap);
            maxScore = std::max(maxScore, scores[j]);
        }
        double sum = std::exp(double(sink) - double(maxScore));
        for (int j = 0; j < keys; ++j) {
            scores[j] = std::exp(scores[j] - maxScore);
            sum += scores[j];
        }
        const float inv = static_cast<float>(1.0 / sum);
        float* out = a.out + static_cast<std::size_t>(i) * a.outStride;
        std::fill_n(out, a.headDim, 0.0f);
        for (int j = 0; j < keys; ++j) {
            const KV* v = vBase + static_cast<std::size_t>(j) * a.kvStride;
            const float p = scores[j] * inv;
            for (int d = 0; d < a.headDim; ++d)
                out[d] += p * kvValue(v, std::size_t(d));
        }
    }
}

void attendHead(const AttendHeadArgs& a)
{
    withKvElement(a.kvType, [&a](auto element) { attendHeadOf<decltype(element)>(a); });
}

} // namespace

void attendHeadReference(const AttendHeadArgs& args)
{
    attendHead(args);
}

constinit const CpuKernels kScalarKernels = {
    "scalar",
    Isa::Scalar,
    false,
    quantizeRowQ8_0,
    quantizeRowQ4_0,
    convertRowF16,
    dequantizeRowF16,
    dequantizeRowQ8_0,
    dequantizeRowQ4_0,
    quantizeActivations,
    gemmF32,
    gemmF16,
    gemmQ4_0,
    gemmQ8_0,
    nullptr, // the reference reads Q4_0 rows as stored
    nullptr, // and Q8_0 rows
    nullptr, // K-quant rows too
    nullptr,
    nullptr,
    nullptr,
    nullptr, // and F16 rows through gemmF16
    nullptr,
    dotF32,
    axpyF32,
    swigluF32,
    siluF32,
    attendHead,
};

} // namespace hearth::cpu
