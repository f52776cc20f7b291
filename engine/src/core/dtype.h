// SPDX-License-Identifier: MIT
#pragma once

// Tensor element types with GGUF's numbering, and their block layouts.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace hearth {

// Values are GGUF's (ggml_type). Types Hearth cannot compute with are still known by size, so a
// reader can validate any file and report "unsupported type" instead of "corrupt file".
enum class DType : std::uint32_t {
    F32 = 0,
    F16 = 1,
    Q4_0 = 2,
    Q4_1 = 3,
    Q5_0 = 6,
    Q5_1 = 7,
    Q8_0 = 8,
    Q8_1 = 9,
    Q2_K = 10,
    Q3_K = 11,
    Q4_K = 12,
    Q5_K = 13,
    Q6_K = 14,
    Q8_K = 15,
    IQ2_XXS = 16,
    IQ2_XS = 17,
    IQ3_XXS = 18,
    IQ1_S = 19,
    IQ4_NL = 20,
    IQ3_S = 21,
    IQ2_S = 22,
    IQ4_XS = 23,
    I8 = 24,
    I16 = 25,
    I32 = 26,
    I64 = 27,
    F64 = 28,
    IQ1_M = 29,
    BF16 = 30,
    TQ1_0 = 34,
    TQ2_0 = 35,
    MXFP4 = 39,
};

struct DTypeTraits {
    std::string_view name;
    std::uint32_t blockElements; // elements per block (1 for plain types)
    std::uint32_t blockBytes;    // bytes per block
};

// Size facts for a GGUF type id, or nullopt for ids no known ggml version uses.
std::optional<DTypeTraits> dtypeTraits(std::uint32_t ggufTypeId);
std::string_view dtypeName(DType type);

// True for the types every part of the engine computes with, sparse files' neuron kernels
// included (the CPU's matrix products and the device take more: isCpuWeightType, isDeviceType).
constexpr bool isComputeType(DType t)
{
    return t == DType::F32 || t == DType::F16 || t == DType::Q4_0 || t == DType::Q8_0 || t == DType::Q4_K
           || t == DType::Q5_K || t == DType::Q6_K;
}

// Elements per block of a CPU weight type (1 for F32, F16 and BF16): its rows are whole blocks.
constexpr std::int64_t weightBlockElements(DType t)
{
    switch (t) {
    case DType::Q4_0:
    case DType::Q4_1:
    case DType::Q5_0:
    case DType::Q5_1:
    case DType::Q8_0:
    case DType::IQ4_NL:
    case DType::MXFP4:
        return 32;
    case DType::Q2_K:
    case DType::Q3_K:
    case DType::Q4_K:
    case DType::Q5_K:
    case DType::Q6_K:
    case DType::IQ4_XS:
        return 256;
    default:
        return 1;
    }
}

// Elements per block of a compute type (1 for F32 and F16): its rows are whole blocks.
constexpr std::int64_t computeBlockElements(DType t)
{
    return isComputeType(t) ? weightBlockElements(t) : 1;
}

// True for the types the CPU's matrix products and row lookups take: the compute types and
// the block types of cpu/block_dot.h (the other legacy quants, K-quants, IQ4_NL, IQ4_XS, MXFP4,
// BF16).
constexpr bool isCpuWeightType(DType t)
{
    switch (t) {
    case DType::F32:
    case DType::F16:
    case DType::Q4_0:
    case DType::Q8_0:
    case DType::Q4_1:
    case DType::Q5_0:
    case DType::Q5_1:
    case DType::Q2_K:
    case DType::Q3_K:
    case DType::Q4_K:
    case DType::Q5_K:
    case DType::Q6_K:
    case DType::IQ4_NL:
    case DType::IQ4_XS:
    case DType::MXFP4:
    case DType::BF16:
        return true;
    default:
        return false;
    }
}

// True for the types the device (the CUDA module, and the emulated device that stands in for
// it) multiplies: the CPU's weight types, every one.
constexpr bool isDeviceType(DType t)
{
    return isCpuWeightType(t);
}

// Bytes of one row of @p n elements; n must be a multiple of the block size.
std::size_t rowBytes(DType type, std::int64_t n);

// Block layouts exactly as in GGUF files (little-endian, packed).
constexpr int QK4_0 = 32;
constexpr int QK8_0 = 32;

struct BlockQ4_0 {
    std::uint16_t d;             // scale, IEEE half
    std::uint8_t qs[QK4_0 / 2];  // element j in low nibble of qs[j], element j+16 in high nibble; value = (q - 8) * d
};
static_assert(sizeof(BlockQ4_0) == 18);

struct BlockQ8_0 {
    std::uint16_t d;        // scale, IEEE half
    std::int8_t qs[QK8_0];  // value = q * d
};
static_assert(sizeof(BlockQ8_0) == 34);

} // namespace hearth
