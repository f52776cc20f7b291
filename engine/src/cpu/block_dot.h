// SPDX-License-Identifier: MIT
#pragma once

// The weight types computed block by block against quantized activations: every GGUF type
// beyond F32, F16, Q4_0 and Q8_0 (which have their own tiled kernels), and BF16. For each: its
// dequantization, the activation format ggml multiplies it with, and a row dot product. The
// scalar versions here define the results; the vector tables (kernels.h) replace the dot
// products they speed up and are tested against these.
//
//     const BlockFormat* f = blockFormat(DType::Q4_K);
//     std::vector<ActBlockQ8K> act(cols / QK_K);
//     quantizeActivationsQ8K(x, act.data(), cols);
//     float y = f->dot(row, act.data(), cols);

#include "core/dtype.h"
#include "cpu/quant_blocks.h"

#include <cstdint>

namespace hearth::cpu {

// How a type's activations are given to its dot product.
enum class ActivationFormat : std::uint8_t {
    Floats, // plain floats (BF16)
    Q8,     // ActBlockQ8 per 32 values (kernels.h)
    Q8K,    // ActBlockQ8K per 256 values
};

// y = dot(weight row, activations) over @p n weights.
using BlockDotFn = float (*)(const void* row, const void* activations, std::int64_t n);
using DequantizeFn = void (*)(const void* row, float* out, std::int64_t n);

struct BlockFormat {
    DType type;
    ActivationFormat activations;
    DequantizeFn dequantize;
    BlockDotFn dot; // the scalar reference
};

// The format of @p type, or nullptr for types with tiled kernels of their own or none at all.
[[nodiscard]] const BlockFormat* blockFormat(DType type);

// Sub-block @p j (0-7) of the 12-byte scale/min packing of Q4_K and Q5_K super-blocks.
void scaleMinK4(const std::uint8_t* scales, int j, std::int32_t& scale, std::int32_t& min);

// ggml's quantize_row_q8_K: per 256 values, scale -127 / (the value of largest magnitude).
void quantizeActivationsQ8K(const float* x, ActBlockQ8K* out, std::int64_t n);

} // namespace hearth::cpu
