// SPDX-License-Identifier: MIT
#include "cpu/quant.h"

#include "cpu/block_quantize.h"
#include "cpu/kernels.h"

#include <cstdint>
#include <cstring>

namespace hearth::cpu {

void quantizeRowQ4_0(const float* x, BlockQ4_0* out, std::int64_t n)
{
    activeKernels().quantizeRowQ4_0(x, out, n);
}

void quantizeRowQ8_0(const float* x, BlockQ8_0* out, std::int64_t n)
{
    activeKernels().quantizeRowQ8_0(x, out, n);
}

void convertRowF16(const float* x, std::uint16_t* out, std::int64_t n)
{
    activeKernels().convertRowF16(x, out, n);
}

void dequantizeRow(DType type, const void* row, float* out, std::int64_t n)
{
    const CpuKernels& k = activeKernels();
    switch (type) {
    case DType::F32:
        std::memcpy(out, row, static_cast<std::size_t>(n) * sizeof(float));
        return;
    case DType::F16:
        k.dequantizeRowF16(static_cast<const std::uint16_t*>(row), out, n);
        return;
    case DType::Q4_0:
        k.dequantizeRowQ4_0(static_cast<const BlockQ4_0*>(row), out, n);
        return;
    case DType::Q8_0:
        k.dequantizeRowQ8_0(static_cast<const BlockQ8_0*>(row), out, n);
        return;
    default:
        if (const BlockFormat* format = blockFormat(type)) {
            format->dequantize(row, out, n);
            return;
        }
        // Callers check isCpuWeightType() when loading; zeros beat reading garbage.
        std::memset(out, 0, static_cast<std::size_t>(n > 0 ? n : 0) * sizeof(float));
        return;
    }
}

std::size_t quantizeRow(DType type, const float* x, void* out, std::int64_t n)
{
    switch (type) {
    case DType::F32:
        std::memcpy(out, x, static_cast<std::size_t>(n) * sizeof(float));
        break;
    case DType::F16:
        convertRowF16(x, static_cast<std::uint16_t*>(out), n);
        break;
    case DType::Q4_0:
        quantizeRowQ4_0(x, static_cast<BlockQ4_0*>(out), n);
        break;
    case DType::Q8_0:
        quantizeRowQ8_0(x, static_cast<BlockQ8_0*>(out), n);
        break;
    default:
        return quantizeRowBlock(type, x, out, n);
    }
    return rowBytes(type, n);
}

} // namespace hearth::cpu
