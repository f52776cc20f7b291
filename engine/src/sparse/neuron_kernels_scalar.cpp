// SPDX-License-Identifier: MIT
// Reference neuron kernels: plain loops that define the results the SIMD tables must match
// (up to float summation order).

#include "core/fp16.h"
#include "cpu/block_dot.h"
#include "cpu/kernels.h"
#include "sparse/neuron_kernels.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace hearth::sparse {

namespace {

using cpu::ActBlockQ8;

float dotF32(const void* a, const void* x, std::int64_t n)
{
    const float* w = static_cast<const float*>(a);
    const float* v = static_cast<const float*>(x);
    float sum = 0.0f;
    for (std::int64_t i = 0; i < n; ++i)
        sum += w[i] * v[i];
    return sum;
}

float dotF16(const void* a, const void* x, std::int64_t n)
{
    const std::uint16_t* w = static_cast<const std::uint16_t*>(a);
    const float* v = static_cast<const float*>(x);
    float sum = 0.0f;
    for (std::int64_t i = 0; i < n; ++i)
        sum += halfToFloat(w[i]) * v[i];
    return sum;
}

float dotQ4(const void* a, const void* x, std::int64_t n)
{
    const BlockQ4_0* w = static_cast<const BlockQ4_0*>(a);
    const ActBlockQ8* v = static_cast<const ActBlockQ8*>(x);
    float sum = 0.0f;
    for (std::int64_t b = 0; b < n / QK4_0; ++b) {
        std::int32_t s = 0;
        for (int j = 0; j < QK4_0 / 2; ++j) {
            s += (std::int32_t(w[b].qs[j] & 0x0f) - 8) * v[b].qs[j];
            s += (std::int32_t(w[b].qs[j] >> 4) - 8) * v[b].qs[j + QK4_0 / 2];
        }
        sum += float(s) * halfToFloat(w[b].d) * v[b].d;
    }
    return sum;
}

float dotQ8(const void* a, const void* x, std::int64_t n)
{
    const BlockQ8_0* w = static_cast<const BlockQ8_0*>(a);
    const ActBlockQ8* v = static_cast<const ActBlockQ8*>(x);
    float sum = 0.0f;
    for (std::int64_t b = 0; b < n / QK8_0; ++b) {
        std::int32_t s = 0;
        for (int j = 0; j < QK8_0; ++j)
            s += std::int32_t(w[b].qs[j]) * v[b].qs[j];
        sum += float(s) * halfToFloat(w[b].d) * v[b].d;
    }
    return sum;
}

// K-quants: the block formats' reference dot product and dequantization (cpu/block_dot.h).
template <DType T>
float dotBlocks(const void* a, const void* x, std::int64_t n)
{
    return cpu::blockFormat(T)->dot(a, x, n);
}

template <DType T>
void axpyBlocks(float* y, float s, const void* row, std::int64_t n)
{
    const cpu::BlockFormat* format = cpu::blockFormat(T);
    const std::size_t bytes = rowBytes(T, cpu::QK_K);
    float v[cpu::QK_K];
    for (std::int64_t b = 0; b < n / cpu::QK_K; ++b) {
        format->dequantize(static_cast<const std::uint8_t*>(row) + std::size_t(b) * bytes, v, cpu::QK_K);
        for (int i = 0; i < cpu::QK_K; ++i)
            y[b * cpu::QK_K + i] += s * v[i];
    }
}

template <float (*Dot)(const void*, const void*, std::int64_t)>
void dot2(const void* a, const void* b, const void* x, std::int64_t n, float* out)
{
    out[0] = Dot(a, x, n);
    out[1] = Dot(b, x, n);
}

void axpyF32(float* y, float s, const void* row, std::int64_t n)
{
    const float* w = static_cast<const float*>(row);
    for (std::int64_t i = 0; i < n; ++i)
        y[i] += s * w[i];
}

void axpyF16(float* y, float s, const void* row, std::int64_t n)
{
    const std::uint16_t* w = static_cast<const std::uint16_t*>(row);
    for (std::int64_t i = 0; i < n; ++i)
        y[i] += s * halfToFloat(w[i]);
}

void axpyQ4(float* y, float s, const void* row, std::int64_t n)
{
    const BlockQ4_0* w = static_cast<const BlockQ4_0*>(row);
    for (std::int64_t b = 0; b < n / QK4_0; ++b) {
        const float d = s * halfToFloat(w[b].d);
        float* out = y + b * QK4_0;
        for (int j = 0; j < QK4_0 / 2; ++j) {
            out[j] += d * float(std::int32_t(w[b].qs[j] & 0x0f) - 8);
            out[j + QK4_0 / 2] += d * float(std::int32_t(w[b].qs[j] >> 4) - 8);
        }
    }
}

void axpyQ8(float* y, float s, const void* row, std::int64_t n)
{
    const BlockQ8_0* w = static_cast<const BlockQ8_0*>(row);
    for (std::int64_t b = 0; b < n / QK8_0; ++b) {
        const float d = s * halfToFloat(w[b].d);
        for (int j = 0; j < QK8_0; ++j)
            y[b * QK8_0 + j] += d * float(w[b].qs[j]);
    }
}

template <void (*Axpy)(float*, float, const void*, std::int64_t)>
void axpyTile(float* y, std::int64_t yStride, const float* a, std::int64_t aStride, int tokens,
              const std::uint8_t* rows, std::size_t rowStride, std::int64_t count, std::int64_t n)
{
    for (int t = 0; t < tokens; ++t) {
        for (std::int64_t i = 0; i < count; ++i) {
            const float s = a[t * aStride + i];
            if (s != 0.0f)
                Axpy(y + t * yStride, s, rows + std::size_t(i) * rowStride, n);
        }
    }
}

template <void (*Axpy)(float*, float, const void*, std::int64_t)>
void axpyRows(float* y, const float* s, const void* const* rows, int count, std::int64_t n)
{
    for (int k = 0; k < count; ++k)
        Axpy(y, s[k], rows[k], n);
}

// RowKernels::axpyRowsInt8's reference. Rows are added in passes of kAxpyRowsInt8Pass, each
// in groups of kAxpyRowsGroup, outputs in units of eight runs of 32 (a Q4_K super-block). Run g
// of row r has the factor e = s[r] x its scale and adds the offset -s[r] x dmin x its min; the
// factors of one run round against the largest of the group's:
//   k = round(e x 127 / max |e|), scale = max |e| / 127,
//   sum[i] = fma(sum over the group's rows of k x level(i), scale, sum[i] + the rows' offsets),
// the offsets summed by fma over the even rows, then over the odd ones, then the two added,
// a pass's sums, from 0, are then added to y. The vector kernels compute the same in the same
// order.
void axpyRowsQ4KInt8(float* y, const float* s, const void* const* rows, int count, std::int64_t n)
{
    const auto block = [&](int r, std::int64_t b) -> const cpu::BlockQ4_K& {
        return static_cast<const cpu::BlockQ4_K*>(rows[r])[b];
    };
    for (int p0 = 0; p0 < count; p0 += kAxpyRowsInt8Pass) {
        const int passEnd = std::min(count, p0 + kAxpyRowsInt8Pass);
        for (std::int64_t b = 0; b < n / cpu::QK_K; ++b) {
            float sum[cpu::QK_K] = {};
            for (int k0 = p0; k0 < passEnd; k0 += kAxpyRowsGroup) {
                const int group = std::min(kAxpyRowsGroup, passEnd - k0);
                float e[kAxpyRowsGroup][8] = {};
                float parity[2][8] = {};
                for (int r = 0; r < group; ++r) {
                    const cpu::BlockQ4_K& w = block(k0 + r, b);
                    const float d = s[k0 + r] * halfToFloat(w.d);
                    const float m = -s[k0 + r] * halfToFloat(w.dmin);
                    for (int g = 0; g < 8; ++g) {
                        std::int32_t scale = 0, min = 0;
                        cpu::scaleMinK4(w.scales, g, scale, min);
                        e[r][g] = d * float(scale);
                        parity[r % 2][g] = std::fma(m, float(min), parity[r % 2][g]);
                    }
                }
                for (int g = 0; g < 8; ++g) {
                    float max = 0.0f;
                    for (int r = 0; r < group; ++r)
                        max = std::max(max, std::fabs(e[r][g]));
                    const float scale = max / 127.0f;
                    const float inverse = max > 0.0f ? 127.0f / max : 0.0f;
                    std::int32_t k[kAxpyRowsGroup];
                    for (int r = 0; r < group; ++r)
                        k[r] = std::int32_t(std::nearbyint(e[r][g] * inverse));
                    const float offset = parity[0][g] + parity[1][g];
                    for (int i = 0; i < 32; ++i) {
                        std::int32_t dot = 0;
                        for (int r = 0; r < group; ++r) {
                            const std::uint8_t q = block(k0 + r, b).qs[32 * (g / 2) + i];
                            dot += k[r] * (g % 2 == 0 ? q & 0x0f : q >> 4);
                        }
                        sum[32 * g + i] = std::fma(float(dot), scale, sum[32 * g + i] + offset);
                    }
                }
            }
            for (int i = 0; i < cpu::QK_K; ++i)
                y[b * cpu::QK_K + i] += sum[i];
        }
    }
}

void axpyActiveRows(float* y, const float* a, const std::uint16_t* ids, std::int64_t count, std::int64_t firstRow,
                    const float* rows, std::size_t rowStride, std::int64_t n)
{
    for (std::int64_t k = 0; k < count; ++k)
        axpyF32(y, a[ids[k]], rows + std::size_t(ids[k] - firstRow) * rowStride, n);
}

// The 8-bit columns (ColumnKernels): lane r of register k holds rows 4k .. 4k + 3 of output r,
// 127 levels either side of zero.
constexpr int kColumnLevels = 127;
constexpr int kRowsPerLane = 4;

inline std::size_t columnByte(int row, int output)
{
    return std::size_t(kColumnOutputs * kRowsPerLane * (row / kRowsPerLane) + kRowsPerLane * output
                       + row % kRowsPerLane);
}

void packColumns(const float* rows, std::size_t stride, std::int64_t count, std::uint8_t* out)
{
    for (std::int64_t b = 0; b < count / 32; ++b, out += kColumnBlockBytes) {
        const float* block = rows + std::size_t(b) * 32 * stride;
        float inverse[kColumnOutputs];
        for (int r = 0; r < kColumnOutputs; ++r) {
            float max = 0.0f;
            for (int i = 0; i < 32; ++i)
                max = std::max(max, std::fabs(block[std::size_t(i) * stride + std::size_t(r)]));
            const float scale = max / float(kColumnLevels);
            inverse[r] = max > 0.0f ? float(kColumnLevels) / max : 0.0f;
            std::memcpy(out + sizeof(float) * std::size_t(r), &scale, sizeof(scale));
        }
        auto* q = reinterpret_cast<std::int8_t*>(out + kColumnOutputs * sizeof(float));
        for (int i = 0; i < 32; ++i) {
            for (int r = 0; r < kColumnOutputs; ++r) {
                const float v = block[std::size_t(i) * stride + std::size_t(r)] * inverse[r];
                q[columnByte(i, r)] = std::int8_t(std::nearbyint(v));
            }
        }
    }
}

void gemmColumns(float* y, std::int64_t yStride, const ActBlockQ8* x, std::size_t blockStride, int tokens,
                 const std::uint8_t* packed, std::int64_t blocks)
{
    for (int t = 0; t < tokens; ++t) {
        float* yt = y + std::size_t(t) * std::size_t(yStride);
        for (std::int64_t b = 0; b < blocks; ++b) {
            const std::uint8_t* p = packed + std::size_t(b) * kColumnBlockBytes;
            const auto* q = reinterpret_cast<const std::int8_t*>(p + kColumnOutputs * sizeof(float));
            const ActBlockQ8& a = x[std::size_t(b) * blockStride + std::size_t(t)];
            for (int r = 0; r < kColumnOutputs; ++r) {
                std::int32_t dot = 0;
                for (int i = 0; i < 32; ++i)
                    dot += std::int32_t(q[columnByte(i, r)]) * a.qs[i];
                float scale;
                std::memcpy(&scale, p + sizeof(float) * std::size_t(r), sizeof(scale));
                yt[r] += float(dot) * (scale * a.d);
            }
        }
    }
}

} // namespace

constinit const NeuronKernels kScalarNeuronKernels = {
    "scalar",
    axpyActiveRows,
    {packColumns, gemmColumns},
    {dot2<dotF32>, dotF32, axpyF32, nullptr, axpyTile<axpyF32>, axpyRows<axpyF32>, nullptr},
    {dot2<dotF16>, dotF16, axpyF16, nullptr, axpyTile<axpyF16>, axpyRows<axpyF16>, nullptr},
    {dot2<dotQ4>, dotQ4, axpyQ4, nullptr, axpyTile<axpyQ4>, axpyRows<axpyQ4>, nullptr},
    {dot2<dotQ8>, dotQ8, axpyQ8, nullptr, axpyTile<axpyQ8>, axpyRows<axpyQ8>, nullptr},
    {dot2<dotBlocks<DType::Q4_K>>, dotBlocks<DType::Q4_K>, axpyBlocks<DType::Q4_K>, nullptr, nullptr,
     axpyRows<axpyBlocks<DType::Q4_K>>, axpyRowsQ4KInt8},
    {dot2<dotBlocks<DType::Q5_K>>, dotBlocks<DType::Q5_K>, axpyBlocks<DType::Q5_K>, nullptr, nullptr,
     axpyRows<axpyBlocks<DType::Q5_K>>, nullptr},
    {dot2<dotBlocks<DType::Q6_K>>, dotBlocks<DType::Q6_K>, axpyBlocks<DType::Q6_K>, nullptr, nullptr,
     axpyRows<axpyBlocks<DType::Q6_K>>, nullptr},
};

} // namespace hearth::sparse
