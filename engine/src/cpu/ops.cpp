// SPDX-License-Identifier: MIT
#include "cpu/ops.h"

#include "cpu/kernels.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>

namespace hearth::cpu {

void rmsNorm(const float* x, const float* weight, float eps, std::int64_t n, float* out)
{
    // Accumulate in double: models with large activations (and long rows) lose digits in float.
    double sum = 0;
    for (std::int64_t i = 0; i < n; ++i)
        sum += double(x[i]) * double(x[i]);
    const float scale = float(1.0 / std::sqrt(sum / double(n) + double(eps)));
    for (std::int64_t i = 0; i < n; ++i)
        out[i] = x[i] * scale * weight[i];
}

float rootMeanSquare(const float* x, std::int64_t n)
{
    double sum = 0;
    for (std::int64_t i = 0; i < n; ++i)
        sum += double(x[i]) * double(x[i]);
    return n > 0 ? float(std::sqrt(sum / double(n))) : 0.0f;
}

void layerNorm(const float* x, const float* weight, const float* bias, float eps, std::int64_t n, float* out)
{
    double mean = 0;
    for (std::int64_t i = 0; i < n; ++i)
        mean += x[i];
    mean /= double(n);
    double var = 0;
    for (std::int64_t i = 0; i < n; ++i) {
        const double d = x[i] - mean;
        var += d * d;
    }
    var /= double(n);
    const float scale = float(1.0 / std::sqrt(var + double(eps)));
    const float m = float(mean);
    for (std::int64_t i = 0; i < n; ++i) {
        float v = (x[i] - m) * scale;
        if (weight)
            v *= weight[i];
        if (bias)
            v += bias[i];
        out[i] = v;
    }
}

YarnRamp yarnRamp(int nRot, int originalContext, float freqBase, float betaFast, float betaSlow)
{
    // The pair whose wavelength fits `rotations` times into the original context.
    const auto pairOf = [&](float rotations) {
        return float(nRot) * std::log(float(originalContext) / (rotations * 2.0f * std::numbers::pi_v<float>))
               / (2.0f * std::log(freqBase));
    };
    return {std::max(0.0f, std::floor(pairOf(betaFast))), std::min(float(nRot - 1), std::ceil(pairOf(betaSlow)))};
}

double yarnAngleScale(const YarnRamp& ramp, int i, float freqScale)
{
    const float y = (float(i) - ramp.low) / std::max(0.001f, ramp.high - ramp.low);
    const double keep = 1.0 - double(std::clamp(y, 0.0f, 1.0f));
    return double(freqScale) * (1.0 - keep) + keep;
}

void ropeTables(std::int64_t pos, int nRot, float freqBase, float freqScale, float* cosTable, float* sinTable,
                const float* freqFactors, float attnFactor, const YarnRamp* yarn)
{
    // Angles in double: at positions in the thousands a float angle loses the low bits that
    // distinguish neighbouring positions in the slow-rotating dimensions.
    const double p = double(pos);
    const float magnitude = yarn ? attnFactor * yarnMagnitude(freqScale) : attnFactor;
    for (int i = 0; i < nRot / 2; ++i) {
        double original = p * std::pow(double(freqBase), -2.0 * i / double(nRot));
        if (freqFactors)
            original /= double(freqFactors[i]);
        const double theta = original * (yarn ? yarnAngleScale(*yarn, i, freqScale) : double(freqScale));
        cosTable[i] = float(std::cos(theta)) * magnitude;
        sinTable[i] = float(std::sin(theta)) * magnitude;
    }
}

void ropeNormal(float* x, int nHeads, int headDim, int nRot, const float* cosTable, const float* sinTable)
{
    for (int h = 0; h < nHeads; ++h) {
        float* v = x + std::int64_t(h) * headDim;
        for (int i = 0; i < nRot / 2; ++i) {
            const float x0 = v[2 * i];
            const float x1 = v[2 * i + 1];
            v[2 * i] = x0 * cosTable[i] - x1 * sinTable[i];
            v[2 * i + 1] = x0 * sinTable[i] + x1 * cosTable[i];
        }
    }
}

void ropeNeox(float* x, int nHeads, int headDim, int nRot, const float* cosTable, const float* sinTable)
{
    const int half = nRot / 2;
    for (int h = 0; h < nHeads; ++h) {
        float* head = x + std::int64_t(h) * headDim;
        for (int i = 0; i < half; ++i) {
            const float a = head[i];
            const float b = head[i + half];
            head[i] = a * cosTable[i] - b * sinTable[i];
            head[i + half] = a * sinTable[i] + b * cosTable[i];
        }
    }
}

void softmax(float* x, std::int64_t n)
{
    if (n <= 0)
        return;
    const float maxValue = *std::max_element(x, x + n);
    double sum = 0;
    for (std::int64_t i = 0; i < n; ++i) {
        x[i] = std::exp(x[i] - maxValue);
        sum += x[i];
    }
    const float inv = float(1.0 / sum);
    for (std::int64_t i = 0; i < n; ++i)
        x[i] *= inv;
}

void swiglu(float* gate, const float* up, std::int64_t n)
{
    activeKernels().swigluF32(gate, up, n);
}

void silu(float* x, std::int64_t n)
{
    activeKernels().siluF32(x, n);
}

void reglu(float* gate, const float* up, std::int64_t n)
{
    for (std::int64_t i = 0; i < n; ++i)
        gate[i] = std::max(gate[i], 0.0f) * up[i];
}

void scale(float* x, float factor, std::int64_t n)
{
    for (std::int64_t i = 0; i < n; ++i)
        x[i] *= factor;
}

void geglu(float* gate, const float* up, std::int64_t n)
{
    gelu(gate, n);
    for (std::int64_t i = 0; i < n; ++i)
        gate[i] *= up[i];
}

void swigluOai(float* gate, const float* up, std::int64_t n)
{
    constexpr float kAlpha = 1.702f;
    constexpr float kLimit = 7.0f;
    for (std::int64_t i = 0; i < n; ++i) {
        const float g = std::min(gate[i], kLimit);
        const float u = std::clamp(up[i], -kLimit, kLimit);
        gate[i] = g / (1.0f + std::exp(kAlpha * -g)) * (u + 1.0f);
    }
}

void drelu(float* gate, const float* up, std::int64_t n)
{
    for (std::int64_t i = 0; i < n; ++i)
        gate[i] = std::max(gate[i], 0.0f) * std::max(up[i], 0.0f);
}

void relu2(float* gate, const float* up, std::int64_t n)
{
    for (std::int64_t i = 0; i < n; ++i) {
        const float r = std::max(gate[i], 0.0f);
        gate[i] = r * r * up[i];
    }
}

void relu(float* x, std::int64_t n)
{
    for (std::int64_t i = 0; i < n; ++i)
        x[i] = std::max(x[i], 0.0f);
}

void gelu(float* x, std::int64_t n)
{
    constexpr float sqrt2OverPi = 0.7978845608028654f;
    for (std::int64_t i = 0; i < n; ++i) {
        const float v = x[i];
        x[i] = 0.5f * v * (1.0f + std::tanh(sqrt2OverPi * v * (1.0f + 0.044715f * v * v)));
    }
}

void add(float* y, const float* x, std::int64_t n)
{
    for (std::int64_t i = 0; i < n; ++i)
        y[i] += x[i];
}

void axpy(float* y, float a, const float* x, std::int64_t n)
{
    activeKernels().axpyF32(y, a, x, n);
}

float dot(const float* a, const float* b, std::int64_t n)
{
    return activeKernels().dotF32(a, b, n);
}

} // namespace hearth::cpu
