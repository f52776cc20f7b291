// SPDX-License-Identifier: MIT
#pragma once

// Quantization of float rows to the block types of block_dot.h, byte for byte as llama.cpp's
// llama-quantize writes them without an importance matrix (ggml_quantize_chunk with no
// weights), so a file Hearth quantizes is the file llama.cpp would have made from the same
// input. The search for scales is ggml's: for K-quants, per sub-block a least-squares fit over
// a few trial scales, then the sub-block scales themselves quantized against a super-block
// scale; IQ4 types pick the nearest codebook value. Scalar and deterministic: these run when a
// file is converted, not per token.
//
//     std::vector<std::uint8_t> out(rowBytes(DType::Q4_K, n));
//     quantizeRowBlock(DType::Q4_K, row, out.data(), n);

#include "core/dtype.h"

#include <cstddef>
#include <cstdint>

namespace hearth::cpu {

// True for the types quantizeRowBlock() writes.
[[nodiscard]] bool isBlockQuantizeType(DType type);

// Quantizes @p n floats (a multiple of the type's block size) into @p out; returns the bytes
// written, or 0 when @p type is not a block quantize type.
std::size_t quantizeRowBlock(DType type, const float* x, void* out, std::int64_t n);

} // namespace hearth::cpu
