// SPDX-License-Identifier: MIT
// The scale searches follow ggml's reference quantizers step for step, in the same float
// order (the compiler must not contract a * b + c into one fused operation here, which
// x86-64's baseline cannot do anyway): any other order would pick another scale now and then
// and the files would no longer match llama.cpp's.

#include "cpu/block_quantize.h"

#include "core/fp16.h"
#include "cpu/block_dot.h"
#include "cpu/quant_blocks.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace hearth::cpu {

namespace {

constexpr float kGroupMaxEps = 1e-15f; // below this a group counts as all zeros

// Round to nearest, ties to even, for |v| < 2^22: ggml's nearest_int, through the float
// mantissa exactly as it does.
int nearestInt(float v)
{
    const float shifted = v + 12582912.0f;
    std::int32_t bits;
    std::memcpy(&bits, &shifted, sizeof bits);
    return (bits & 0x007fffff) - 0x00400000;
}

// The value of largest magnitude, the first on ties, sign kept; its magnitude into @p amax.
float largestMagnitude(const float* x, int n, float& amax)
{
    float max = 0.0f;
    amax = 0.0f;
    for (int i = 0; i < n; ++i) {
        if (std::fabs(x[i]) > amax) {
            amax = std::fabs(x[i]);
            max = x[i];
        }
    }
    return max;
}

// The smallest and largest of @p n values (the offset types' range).
void range(const float* x, int n, float& min, float& max)
{
    min = FLT_MAX;
    max = -FLT_MAX;
    for (int j = 0; j < n; ++j) {
        min = x[j] < min ? x[j] : min;
        max = x[j] > max ? x[j] : max;
    }
}

// ---------------------------------------------------------------------------------------------
// 32-weight types

void quantizeQ4_1(const float* x, BlockQ4_1* y, std::int64_t n)
{
    for (std::int64_t i = 0; i < n / QK4_1; ++i, x += QK4_1) {
        float min;
        float max;
        range(x, QK4_1, min, max);
        const float d = (max - min) / 15.0f;
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        y[i].d = floatToHalf(d);
        y[i].m = floatToHalf(min);
        for (int j = 0; j < QK4_1 / 2; ++j) {
            const float x0 = (x[j] - min) * id;
            const float x1 = (x[QK4_1 / 2 + j] - min) * id;
            const auto q0 = std::uint8_t(std::min(15, int(std::int8_t(x0 + 0.5f))));
            const auto q1 = std::uint8_t(std::min(15, int(std::int8_t(x1 + 0.5f))));
            y[i].qs[j] = std::uint8_t(q0 | (q1 << 4));
        }
    }
}

template <typename Block>
void packFifthBits(Block& y, const std::uint8_t* q)
{
    std::uint32_t qh = 0;
    for (int j = 0; j < 16; ++j) {
        y.qs[j] = std::uint8_t((q[j] & 0x0f) | ((q[j + 16] & 0x0f) << 4));
        qh |= std::uint32_t((q[j] & 0x10u) >> 4) << j;
        qh |= std::uint32_t((q[j + 16] & 0x10u) >> 4) << (j + 16);
    }
    std::memcpy(y.qh, &qh, sizeof qh);
}

void quantizeQ5_0(const float* x, BlockQ5_0* y, std::int64_t n)
{
    for (std::int64_t i = 0; i < n / QK5_0; ++i, x += QK5_0) {
        float amax = 0.0f;
        const float max = largestMagnitude(x, QK5_0, amax);
        const float d = max / -16.0f;
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        y[i].d = floatToHalf(d);
        std::uint8_t q[QK5_0];
        for (int j = 0; j < QK5_0; ++j)
            q[j] = std::uint8_t(std::min(31, int(std::int8_t(x[j] * id + 16.5f))));
        packFifthBits(y[i], q);
    }
}

void quantizeQ5_1(const float* x, BlockQ5_1* y, std::int64_t n)
{
    for (std::int64_t i = 0; i < n / QK5_1; ++i, x += QK5_1) {
        float min;
        float max;
        range(x, QK5_1, min, max);
        const float d = (max - min) / 31.0f;
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        y[i].d = floatToHalf(d);
        y[i].m = floatToHalf(min);
        std::uint8_t q[QK5_1];
        for (int j = 0; j < QK5_1; ++j)
            q[j] = std::uint8_t((x[j] - min) * id + 0.5f);
        packFifthBits(y[i], q);
    }
}

// ---------------------------------------------------------------------------------------------
// Scale searches

// Symmetric levels -nmax .. nmax-1 (stored + nmax) with weights x^2 (rmse 1), trying 18
// scales around nmax / max and keeping the best least-squares fit (ggml's make_qx_quants).
float symmetricLevels(int n, int nmax, const float* x, std::int8_t* L)
{
    float amax = 0.0f;
    const float max = largestMagnitude(x, n, amax);
    if (amax < kGroupMaxEps) {
        std::fill(L, L + n, std::int8_t(0));
        return 0.0f;
    }
    auto level = [nmax](float v) { return std::max(-nmax, std::min(nmax - 1, nearestInt(v))); };
    float iscale = float(-nmax) / max;
    float sumlx = 0.0f;
    float suml2 = 0.0f;
    for (int i = 0; i < n; ++i) {
        const int l = level(iscale * x[i]);
        L[i] = std::int8_t(l + nmax);
        const float w = x[i] * x[i];
        sumlx += w * x[i] * float(l);
        suml2 += w * float(l) * float(l);
    }
    float scale = suml2 != 0.0f ? sumlx / suml2 : 0.0f;
    float best = scale * sumlx;
    for (int is = -9; is <= 9; ++is) {
        if (is == 0)
            continue;
        iscale = -(float(nmax) + 0.1f * float(is)) / max;
        sumlx = 0.0f;
        suml2 = 0.0f;
        for (int i = 0; i < n; ++i) {
            const int l = level(iscale * x[i]);
            const float w = x[i] * x[i];
            sumlx += w * x[i] * float(l);
            suml2 += w * float(l) * float(l);
        }
        if (suml2 > 0.0f && sumlx * sumlx > best * suml2) {
            for (int i = 0; i < n; ++i)
                L[i] = std::int8_t(nmax + level(iscale * x[i]));
            scale = sumlx / suml2;
            best = scale * sumlx;
        }
    }
    return scale;
}

// Q3_K's symmetric levels: one fit, then up to five rounds of moving single levels while
// that improves the weighted fit (ggml's make_q3_quants with rmse). Levels stored + nmax.
float symmetricLevelsRefined(int n, int nmax, const float* x, std::int8_t* L)
{
    float amax = 0.0f;
    const float max = largestMagnitude(x, n, amax);
    if (amax < kGroupMaxEps) {
        std::fill(L, L + n, std::int8_t(0));
        return 0.0f;
    }
    const float iscale = float(-nmax) / max;
    float sumlx = 0.0f;
    float suml2 = 0.0f;
    for (int i = 0; i < n; ++i) {
        const int l = std::max(-nmax, std::min(nmax - 1, nearestInt(iscale * x[i])));
        L[i] = std::int8_t(l);
        const float w = x[i] * x[i];
        sumlx += w * x[i] * float(l);
        suml2 += w * float(l) * float(l);
    }
    for (int round = 0; round < 5; ++round) {
        int changed = 0;
        for (int i = 0; i < n; ++i) {
            const float w = x[i] * x[i];
            float slx = sumlx - w * x[i] * float(L[i]);
            if (slx > 0.0f) {
                float sl2 = suml2 - w * float(L[i]) * float(L[i]);
                const int l = std::max(-nmax, std::min(nmax - 1, nearestInt(x[i] * sl2 / slx)));
                if (l != L[i]) {
                    slx += w * x[i] * float(l);
                    sl2 += w * float(l) * float(l);
                    if (sl2 > 0.0f && slx * slx * suml2 > sumlx * sumlx * sl2) {
                        L[i] = std::int8_t(l);
                        sumlx = slx;
                        suml2 = sl2;
                        ++changed;
                    }
                }
            }
        }
        if (changed == 0)
            break;
    }
    for (int i = 0; i < n; ++i)
        L[i] = std::int8_t(L[i] + nmax);
    return sumlx / suml2;
}

// Levels 0 .. nmax of value = scale * l - min with min >= 0, for weights @p w: the grid of
// nmax / (max - min) and @p steps trial scales from (rmin + nmax) / range in rdelta steps, each
// with its least-squares scale and min, keeping the smallest weighted error (absolute with
// @p absolute, else squared) (ggml's make_qkx2_quants). Returns the scale; *theMin is the min.
float offsetLevels(int n, int nmax, const float* x, const float* weights, std::uint8_t* L, float* theMin, float rmin,
                   float rdelta, int steps, bool absolute)
{
    float min = x[0];
    float max = x[0];
    float sumW = weights[0];
    float sumX = sumW * x[0];
    for (int i = 1; i < n; ++i) {
        min = x[i] < min ? x[i] : min;
        max = x[i] > max ? x[i] : max;
        const float w = weights[i];
        sumW += w;
        sumX += w * x[i];
    }
    if (min > 0.0f)
        min = 0.0f;
    if (max == min) {
        std::fill(L, L + n, std::uint8_t(0));
        *theMin = -min;
        return 0.0f;
    }
    auto error = [absolute](float diff) { return absolute ? std::fabs(diff) : diff * diff; };
    float iscale = float(nmax) / (max - min);
    float scale = 1.0f / iscale;
    float bestError = 0.0f;
    for (int i = 0; i < n; ++i) {
        const int l = nearestInt(iscale * (x[i] - min));
        L[i] = std::uint8_t(std::max(0, std::min(nmax, l)));
        bestError += weights[i] * error(scale * float(L[i]) + min - x[i]);
    }
    std::uint8_t trial[32];
    for (int is = 0; is <= steps; ++is) {
        iscale = (rmin + rdelta * float(is) + float(nmax)) / (max - min);
        float sumL = 0.0f;
        float sumL2 = 0.0f;
        float sumXL = 0.0f;
        for (int i = 0; i < n; ++i) {
            const int l = std::max(0, std::min(nmax, nearestInt(iscale * (x[i] - min))));
            trial[i] = std::uint8_t(l);
            const float w = weights[i];
            sumL += w * float(l);
            sumL2 += w * float(l) * float(l);
            sumXL += w * float(l) * x[i];
        }
        const float det = sumW * sumL2 - sumL * sumL;
        if (det > 0.0f) {
            float thisScale = (sumW * sumXL - sumX * sumL) / det;
            float thisMin = (sumL2 * sumX - sumL * sumXL) / det;
            if (thisMin > 0.0f) {
                thisMin = 0.0f;
                thisScale = sumXL / sumL2;
            }
            float err = 0.0f;
            for (int i = 0; i < n; ++i)
                err += weights[i] * error(thisScale * float(trial[i]) + thisMin - x[i]);
            if (err < bestError) {
                std::copy(trial, trial + n, L);
                bestError = err;
                scale = thisScale;
                min = thisMin;
            }
        }
    }
    *theMin = -min;
    return scale;
}

// ---------------------------------------------------------------------------------------------
// K-quants

void quantizeQ2_K(const float* x, BlockQ2_K* y, std::int64_t n)
{
    std::uint8_t L[QK_K];
    float weights[16];
    float mins[16];
    float scales[16];
    for (std::int64_t i = 0; i < n / QK_K; ++i, x += QK_K) {
        float maxScale = 0.0f;
        float maxMin = 0.0f;
        for (int j = 0; j < 16; ++j) {
            for (int l = 0; l < 16; ++l)
                weights[l] = std::fabs(x[16 * j + l]);
            scales[j] = offsetLevels(16, 3, x + 16 * j, weights, L + 16 * j, &mins[j], -0.5f, 0.1f, 15, true);
            maxScale = std::max(maxScale, scales[j]);
            maxMin = std::max(maxMin, mins[j]);
        }
        if (maxScale > 0.0f) {
            const float iscale = 15.0f / maxScale;
            for (int j = 0; j < 16; ++j)
                y[i].scales[j] = std::uint8_t(nearestInt(iscale * scales[j]));
            y[i].d = floatToHalf(maxScale / 15.0f);
        } else {
            std::fill(y[i].scales, y[i].scales + 16, std::uint8_t(0));
            y[i].d = floatToHalf(0.0f);
        }
        if (maxMin > 0.0f) {
            const float iscale = 15.0f / maxMin;
            for (int j = 0; j < 16; ++j)
                y[i].scales[j] = std::uint8_t(y[i].scales[j] | (nearestInt(iscale * mins[j]) << 4));
            y[i].dmin = floatToHalf(maxMin / 15.0f);
        } else {
            y[i].dmin = floatToHalf(0.0f);
        }
        for (int j = 0; j < 16; ++j) {
            const float d = halfToFloat(y[i].d) * float(y[i].scales[j] & 0x0f);
            if (d == 0.0f)
                continue;
            const float dm = halfToFloat(y[i].dmin) * float(y[i].scales[j] >> 4);
            for (int l = 0; l < 16; ++l)
                L[16 * j + l] = std::uint8_t(std::max(0, std::min(3, nearestInt((x[16 * j + l] + dm) / d))));
        }
        for (int c = 0; c < 2; ++c) {
            const std::uint8_t* q = L + 128 * c;
            for (int l = 0; l < 32; ++l)
                y[i].qs[32 * c + l] = std::uint8_t(q[l] | (q[l + 32] << 2) | (q[l + 64] << 4) | (q[l + 96] << 6));
        }
    }
}

void quantizeQ3_K(const float* x, BlockQ3_K* y, std::int64_t n)
{
    std::int8_t L[QK_K];
    float scales[16];
    for (std::int64_t i = 0; i < n / QK_K; ++i, x += QK_K) {
        float maxScale = 0.0f;
        float amax = 0.0f;
        for (int j = 0; j < 16; ++j) {
            scales[j] = symmetricLevelsRefined(16, 4, x + 16 * j, L + 16 * j);
            if (std::fabs(scales[j]) > amax) {
                amax = std::fabs(scales[j]);
                maxScale = scales[j];
            }
        }
        std::memset(y[i].scales, 0, sizeof y[i].scales);
        if (maxScale != 0.0f) {
            const float iscale = -32.0f / maxScale;
            for (int j = 0; j < 16; ++j) {
                const int l = std::max(-32, std::min(31, int(std::int8_t(nearestInt(iscale * scales[j]))))) + 32;
                if (j < 8)
                    y[i].scales[j] = std::uint8_t(l & 0x0f);
                else
                    y[i].scales[j - 8] = std::uint8_t(y[i].scales[j - 8] | ((l & 0x0f) << 4));
                y[i].scales[j % 4 + 8] = std::uint8_t(y[i].scales[j % 4 + 8] | ((l >> 4) << (2 * (j / 4))));
            }
            y[i].d = floatToHalf(1.0f / iscale);
        } else {
            y[i].d = floatToHalf(0.0f);
        }
        for (int j = 0; j < 16; ++j) {
            const int low = j < 8 ? (y[i].scales[j] & 0x0f) : (y[i].scales[j - 8] >> 4);
            const int scale = (low | (((y[i].scales[8 + j % 4] >> (2 * (j / 4))) & 3) << 4)) - 32;
            const float d = halfToFloat(y[i].d) * float(scale);
            if (d == 0.0f)
                continue;
            for (int l = 0; l < 16; ++l)
                L[16 * j + l] = std::int8_t(std::max(-4, std::min(3, nearestInt(x[16 * j + l] / d))) + 4);
        }
        // The high bit of weight j goes to bit j / 32 of hmask[j % 32].
        std::memset(y[i].hmask, 0, sizeof y[i].hmask);
        for (int j = 0; j < QK_K; ++j) {
            if (L[j] > 3) {
                y[i].hmask[j % 32] = std::uint8_t(y[i].hmask[j % 32] | (1 << (j / 32)));
                L[j] = std::int8_t(L[j] - 4);
            }
        }
        for (int c = 0; c < 2; ++c) {
            const std::int8_t* q = L + 128 * c;
            for (int l = 0; l < 32; ++l)
                y[i].qs[32 * c + l] = std::uint8_t(q[l] | (q[l + 32] << 2) | (q[l + 64] << 4) | (q[l + 96] << 6));
        }
    }
}

// Q4_K and Q5_K: 8 sub-blocks of 32 with offset levels, weights |x| + rms of the sub-block, and
// six-bit scales and mins against the super-block's largest.
template <typename Block>
void quantizeQ45K(const float* x, Block* y, std::int64_t n, int nmax, float rmin, int steps)
{
    std::uint8_t L[QK_K];
    float weights[32];
    float mins[8];
    float scales[8];
    for (std::int64_t i = 0; i < n / QK_K; ++i, x += QK_K) {
        float maxScale = 0.0f;
        float maxMin = 0.0f;
        for (int j = 0; j < 8; ++j) {
            float sumX2 = 0.0f;
            for (int l = 0; l < 32; ++l)
                sumX2 += x[32 * j + l] * x[32 * j + l];
            const float rms = std::sqrt(sumX2 / 32.0f);
            for (int l = 0; l < 32; ++l)
                weights[l] = rms + std::fabs(x[32 * j + l]);
            scales[j] = offsetLevels(32, nmax, x + 32 * j, weights, L + 32 * j, &mins[j], rmin, 0.1f, steps, false);
            maxScale = std::max(maxScale, scales[j]);
            maxMin = std::max(maxMin, mins[j]);
        }
        const float invScale = maxScale > 0.0f ? 63.0f / maxScale : 0.0f;
        const float invMin = maxMin > 0.0f ? 63.0f / maxMin : 0.0f;
        std::uint8_t* s = y[i].scales;
        for (int j = 0; j < 8; ++j) {
            const auto ls = std::uint8_t(std::min<int>(63, std::uint8_t(nearestInt(invScale * scales[j]))));
            const auto lm = std::uint8_t(std::min<int>(63, std::uint8_t(nearestInt(invMin * mins[j]))));
            if (j < 4) {
                s[j] = ls;
                s[j + 4] = lm;
            } else {
                s[j + 4] = std::uint8_t((ls & 0x0f) | ((lm & 0x0f) << 4));
                s[j - 4] = std::uint8_t(s[j - 4] | ((ls >> 4) << 6));
                s[j] = std::uint8_t(s[j] | ((lm >> 4) << 6));
            }
        }
        y[i].d = floatToHalf(maxScale / 63.0f);
        y[i].dmin = floatToHalf(maxMin / 63.0f);
        for (int j = 0; j < 8; ++j) {
            int sc;
            int m;
            if (j < 4) {
                sc = s[j] & 63;
                m = s[j + 4] & 63;
            } else {
                sc = (s[j + 4] & 0x0f) | ((s[j - 4] >> 6) << 4);
                m = (s[j + 4] >> 4) | ((s[j] >> 6) << 4);
            }
            const float d = halfToFloat(y[i].d) * float(sc);
            if (d == 0.0f)
                continue;
            const float dm = halfToFloat(y[i].dmin) * float(m);
            for (int l = 0; l < 32; ++l)
                L[32 * j + l] = std::uint8_t(std::max(0, std::min(nmax, nearestInt((x[32 * j + l] + dm) / d))));
        }
        if constexpr (std::is_same_v<Block, BlockQ5_K>) {
            std::memset(y[i].qh, 0, sizeof y[i].qh);
            for (int c = 0; c < 4; ++c) {
                for (int l = 0; l < 32; ++l) {
                    int lo = L[64 * c + l];
                    int hi = L[64 * c + 32 + l];
                    if (lo > 15) {
                        lo -= 16;
                        y[i].qh[l] = std::uint8_t(y[i].qh[l] | (1 << (2 * c)));
                    }
                    if (hi > 15) {
                        hi -= 16;
                        y[i].qh[l] = std::uint8_t(y[i].qh[l] | (2 << (2 * c)));
                    }
                    y[i].qs[32 * c + l] = std::uint8_t(lo | (hi << 4));
                }
            }
        } else {
            for (int c = 0; c < 4; ++c) {
                for (int l = 0; l < 32; ++l)
                    y[i].qs[32 * c + l] = std::uint8_t(L[64 * c + l] | (L[64 * c + 32 + l] << 4));
            }
        }
    }
}

void quantizeQ6_K(const float* x, BlockQ6_K* y, std::int64_t n)
{
    std::int8_t L[QK_K];
    float scales[16];
    for (std::int64_t i = 0; i < n / QK_K; ++i, x += QK_K) {
        float maxScale = 0.0f;
        float maxAbsScale = 0.0f;
        for (int j = 0; j < 16; ++j) {
            scales[j] = symmetricLevels(16, 32, x + 16 * j, L + 16 * j);
            if (std::fabs(scales[j]) > maxAbsScale) {
                maxAbsScale = std::fabs(scales[j]);
                maxScale = scales[j];
            }
        }
        if (maxAbsScale < kGroupMaxEps) {
            std::memset(&y[i], 0, sizeof y[i]);
            continue;
        }
        const float iscale = -128.0f / maxScale;
        y[i].d = floatToHalf(1.0f / iscale);
        for (int j = 0; j < 16; ++j)
            y[i].scales[j] = std::int8_t(std::min(127, nearestInt(iscale * scales[j])));
        for (int j = 0; j < 16; ++j) {
            const float d = halfToFloat(y[i].d) * float(y[i].scales[j]);
            if (d == 0.0f)
                continue;
            for (int l = 0; l < 16; ++l)
                L[16 * j + l] = std::int8_t(std::max(-32, std::min(31, nearestInt(x[16 * j + l] / d))) + 32);
        }
        for (int h = 0; h < 2; ++h) {
            const std::int8_t* q = L + 128 * h;
            std::uint8_t* ql = y[i].ql + 64 * h;
            std::uint8_t* qh = y[i].qh + 32 * h;
            for (int l = 0; l < 32; ++l) {
                ql[l] = std::uint8_t((q[l] & 0x0f) | ((q[l + 64] & 0x0f) << 4));
                ql[l + 32] = std::uint8_t((q[l + 32] & 0x0f) | ((q[l + 96] & 0x0f) << 4));
                qh[l] = std::uint8_t((q[l] >> 4) | ((q[l + 32] >> 4) << 2) | ((q[l + 64] >> 4) << 4) | ((q[l + 96] >> 4) << 6));
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// IQ4: the nearest of the 16 codebook values, scales fitted over 15 trial scales (llama-quantize's
// setting, ntry 7) with weights x^2.

int nearestCode(float v)
{
    const std::int8_t* values = kIq4nlValues;
    if (v <= float(values[0]))
        return 0;
    if (v >= float(values[15]))
        return 15;
    int lo = 0;
    int hi = 15;
    while (hi - lo > 1) {
        const int mid = (lo + hi) / 2;
        if (v < float(values[mid]))
            hi = mid;
        else
            lo = mid;
    }
    return v - float(values[hi - 1]) < float(values[hi]) - v ? hi - 1 : hi;
}

// One 32-weight group: its best scale (0 for an all-zero group), levels into L.
float iq4GroupScale(const float* x, std::uint8_t* L)
{
    constexpr int kTries = 7;
    const std::int8_t* values = kIq4nlValues;
    float weight[32];
    for (int j = 0; j < 32; ++j)
        weight[j] = x[j] * x[j];
    float amax = 0.0f;
    const float max = largestMagnitude(x, 32, amax);
    if (amax < kGroupMaxEps)
        return 0.0f;
    float d = -max / float(values[0]);
    float id = 1.0f / d;
    float sumqx = 0.0f;
    float sumq2 = 0.0f;
    for (int j = 0; j < 32; ++j) {
        const int l = nearestCode(id * x[j]);
        L[j] = std::uint8_t(l);
        const float q = float(values[l]);
        sumqx += weight[j] * q * x[j];
        sumq2 += weight[j] * q * q;
    }
    d = sumqx / sumq2;
    float best = d * sumqx;
    for (int t = -kTries; t <= kTries; ++t) {
        id = (float(t) + float(values[0])) / max;
        sumqx = 0.0f;
        sumq2 = 0.0f;
        for (int j = 0; j < 32; ++j) {
            const float q = float(values[nearestCode(id * x[j])]);
            sumqx += weight[j] * q * x[j];
            sumq2 += weight[j] * q * q;
        }
        if (sumq2 > 0.0f && sumqx * sumqx > best * sumq2) {
            d = sumqx / sumq2;
            best = d * sumqx;
        }
    }
    return d;
}

void packNibbles32(const std::uint8_t* L, std::uint8_t* qs)
{
    for (int j = 0; j < 16; ++j)
        qs[j] = std::uint8_t(L[j] | (L[16 + j] << 4));
}

void quantizeIQ4_NL(const float* x, BlockIQ4_NL* y, std::int64_t n)
{
    for (std::int64_t i = 0; i < n / QK4_NL; ++i, x += QK4_NL) {
        std::uint8_t L[32] = {};
        const float d = iq4GroupScale(x, L);
        y[i].d = floatToHalf(d);
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        for (int j = 0; j < 32; ++j)
            L[j] = std::uint8_t(nearestCode(id * x[j]));
        packNibbles32(L, y[i].qs);
    }
}

// As ggml's quantize_row_mxfp4_ref: the exponent puts the block's largest magnitude in the
// codebook's top octave (4..12 times half the scale), each value takes the nearest level.
void quantizeMXFP4(const float* x, BlockMXFP4* y, std::int64_t n)
{
    for (std::int64_t i = 0; i < n / 32; ++i, x += 32) {
        float amax = 0.0f;
        for (int j = 0; j < 32; ++j)
            amax = std::max(amax, std::fabs(x[j]));
        const int exponent = amax > 0.0f ? int(std::floor(std::log2(amax))) - 2 + 127 : 0;
        y[i].e = std::uint8_t(std::clamp(exponent, 0, 254));
        const float d = mxfp4HalfScale(y[i].e);
        std::uint8_t L[32];
        for (int j = 0; j < 32; ++j) {
            int best = 0;
            float bestError = std::fabs(float(kMxfp4Values[0]) * d - x[j]);
            for (int q = 1; q < 16; ++q) {
                const float error = std::fabs(float(kMxfp4Values[q]) * d - x[j]);
                if (error < bestError) {
                    best = q;
                    bestError = error;
                }
            }
            L[j] = std::uint8_t(best);
        }
        packNibbles32(L, y[i].qs);
    }
}

void quantizeIQ4_XS(const float* x, BlockIQ4_XS* y, std::int64_t n)
{
    for (std::int64_t i = 0; i < n / QK_K; ++i, x += QK_K) {
        std::uint8_t L[QK_K] = {};
        float scales[8];
        float maxScale = 0.0f;
        float amaxScale = 0.0f;
        for (int s = 0; s < 8; ++s) {
            scales[s] = iq4GroupScale(x + 32 * s, L + 32 * s);
            if (std::fabs(scales[s]) > amaxScale) {
                amaxScale = std::fabs(scales[s]);
                maxScale = scales[s];
            }
        }
        const float d = -maxScale / 32.0f;
        y[i].d = floatToHalf(d);
        y[i].scalesH = 0;
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        for (int s = 0; s < 8; ++s) {
            int l = std::max(-32, std::min(31, nearestInt(id * scales[s])));
            const float dl = d * float(l);
            const float idl = dl != 0.0f ? 1.0f / dl : 0.0f;
            for (int j = 0; j < 32; ++j)
                L[32 * s + j] = std::uint8_t(nearestCode(idl * x[32 * s + j]));
            l += 32;
            if (s % 2 == 0)
                y[i].scalesL[s / 2] = std::uint8_t(l & 0x0f);
            else
                y[i].scalesL[s / 2] = std::uint8_t(y[i].scalesL[s / 2] | ((l & 0x0f) << 4));
            y[i].scalesH = std::uint16_t(y[i].scalesH | ((l >> 4) << (2 * s)));
        }
        for (int s = 0; s < 8; ++s)
            packNibbles32(L + 32 * s, y[i].qs + 16 * s);
    }
}

// BF16 as ggml_fp32_to_bf16: round to nearest even, NaNs kept quiet.
void quantizeBf16(const float* x, std::uint16_t* y, std::int64_t n)
{
    for (std::int64_t i = 0; i < n; ++i) {
        std::uint32_t bits;
        std::memcpy(&bits, x + i, sizeof bits);
        if ((bits & 0x7fffffffu) > 0x7f800000u)
            y[i] = std::uint16_t((bits >> 16) | 64);
        else
            y[i] = std::uint16_t((bits + (0x7fffu + ((bits >> 16) & 1u))) >> 16);
    }
}

} // namespace

bool isBlockQuantizeType(DType type)
{
    return blockFormat(type) != nullptr; // every block type is written as well as read
}

std::size_t quantizeRowBlock(DType type, const float* x, void* out, std::int64_t n)
{
    switch (type) {
    case DType::Q4_1:
        quantizeQ4_1(x, static_cast<BlockQ4_1*>(out), n);
        break;
    case DType::Q5_0:
        quantizeQ5_0(x, static_cast<BlockQ5_0*>(out), n);
        break;
    case DType::Q5_1:
        quantizeQ5_1(x, static_cast<BlockQ5_1*>(out), n);
        break;
    case DType::Q2_K:
        quantizeQ2_K(x, static_cast<BlockQ2_K*>(out), n);
        break;
    case DType::Q3_K:
        quantizeQ3_K(x, static_cast<BlockQ3_K*>(out), n);
        break;
    case DType::Q4_K:
        quantizeQ45K(x, static_cast<BlockQ4_K*>(out), n, 15, -1.0f, 20);
        break;
    case DType::Q5_K:
        quantizeQ45K(x, static_cast<BlockQ5_K*>(out), n, 31, -0.5f, 15);
        break;
    case DType::Q6_K:
        quantizeQ6_K(x, static_cast<BlockQ6_K*>(out), n);
        break;
    case DType::IQ4_NL:
        quantizeIQ4_NL(x, static_cast<BlockIQ4_NL*>(out), n);
        break;
    case DType::IQ4_XS:
        quantizeIQ4_XS(x, static_cast<BlockIQ4_XS*>(out), n);
        break;
    case DType::MXFP4:
        quantizeMXFP4(x, static_cast<BlockMXFP4*>(out), n);
        break;
    case DType::BF16:
        quantizeBf16(x, static_cast<std::uint16_t*>(out), n);
        break;
    default:
        return 0;
    }
    return rowBytes(type, n);
}

} // namespace hearth::cpu
