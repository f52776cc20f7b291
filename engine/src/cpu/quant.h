// SPDX-License-Identifier: MIT
#pragma once

// Conversions between float and the storage types. Scalar reference versions define the
// results; SIMD versions must match them (quantization exactly, dequantization bit for bit).

#include "core/dtype.h"

#include <cstdint>

namespace hearth::cpu {

// @p n must be a multiple of the block size of the type.
void quantizeRowQ4_0(const float* x, BlockQ4_0* out, std::int64_t n);
void quantizeRowQ8_0(const float* x, BlockQ8_0* out, std::int64_t n);
void convertRowF16(const float* x, std::uint16_t* out, std::int64_t n);

// Any CPU weight type (isCpuWeightType) back to float.
void dequantizeRow(DType type, const void* row, float* out, std::int64_t n);
// float -> any CPU weight type (the block types through block_quantize.h); returns bytes
// written, 0 for a type it cannot write.
std::size_t quantizeRow(DType type, const float* x, void* out, std::int64_t n);

} // namespace hearth::cpu
