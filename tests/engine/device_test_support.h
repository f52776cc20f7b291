// SPDX-License-Identifier: MIT
#pragma once

// Fixture data shared by the device layer tests (tst_device, tst_hybrid): seeded random
// activations and weight matrices in any storage type, and the error measure their
// comparisons with the CPU code use.

#include "core/dtype.h"
#include "cpu/quant.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace hearth::test {

// @p n normally distributed floats (standard deviation @p scale), the same for the same seed.
inline std::vector<float> randomFloats(std::size_t n, std::uint32_t seed, float scale = 1.0f)
{
    std::mt19937 rng(seed);
    std::normal_distribution<float> dist(0.0f, scale);
    std::vector<float> v(n);
    for (float& x : v)
        x = dist(rng);
    return v;
}

// A rows x cols matrix of @p type from random floats.
inline std::vector<std::uint8_t> randomMatrix(DType type, std::int64_t rows, std::int64_t cols, std::uint32_t seed)
{
    const std::vector<float> f = randomFloats(std::size_t(rows * cols), seed, 1.0f / std::sqrt(float(cols)));
    const std::size_t stride = rowBytes(type, cols);
    std::vector<std::uint8_t> out(stride * std::size_t(rows));
    for (std::int64_t r = 0; r < rows; ++r)
        cpu::quantizeRow(type, f.data() + r * cols, out.data() + std::size_t(r) * stride, cols);
    return out;
}

// The largest difference relative to the largest magnitude in @p want; 1e30 when the sizes
// differ.
inline float maxRelativeError(const std::vector<float>& got, const std::vector<float>& want)
{
    float scale = 1e-6f;
    for (float w : want)
        scale = std::max(scale, std::fabs(w));
    float err = 0;
    for (std::size_t i = 0; i < got.size() && i < want.size(); ++i)
        err = std::max(err, std::fabs(got[i] - want[i]));
    return got.size() == want.size() ? err / scale : 1e30f;
}

} // namespace hearth::test
