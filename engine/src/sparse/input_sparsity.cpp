// SPDX-License-Identifier: MIT
#include "sparse/input_sparsity.h"

#include "cpu/ops.h"

#include <cmath>
#include <cstddef>
#include <cstdint>

namespace hearth::sparse {

void dropSmallInputs(float* x, int tokens, std::int64_t width, const float* thresholds)
{
    for (int t = 0; t < tokens; ++t) {
        float* row = x + std::size_t(t) * std::size_t(width);
        const float scale = cpu::rootMeanSquare(row, width);
        for (std::int64_t i = 0; i < width; ++i)
            row[i] = std::fabs(row[i]) >= thresholds[i] * scale ? row[i] : 0.0f;
    }
}

} // namespace hearth::sparse
