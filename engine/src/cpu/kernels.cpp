// SPDX-License-Identifier: MIT
#include "cpu/kernels.h"

#include <cstdint>

namespace hearth::cpu {

namespace {

#if HEARTH_CPU_X86_KERNELS
const CpuKernels* bestFor(Isa isa)
{
    if (!isaSupported(isa)) {
        return nullptr;
    }
    switch (isa) {
    case Isa::Scalar:
        return &kScalarKernels;
    case Isa::Avx2:
        return &kAvx2Kernels;
    case Isa::Avx512:
        return hasAvx512Vnni() ? &kAvx512VnniKernels : &kAvx512Kernels;
    }
    return nullptr;
}
#else
const CpuKernels* bestFor(Isa isa)
{
    return isa == Isa::Scalar ? &kScalarKernels : nullptr;
}
#endif

} // namespace

const CpuKernels& activeKernels()
{
    static const CpuKernels* const kernels = [] {
        const CpuKernels* k = bestFor(activeIsa());
        return k ? k : &kScalarKernels;
    }();
    return *kernels;
}

const CpuKernels* kernelsFor(Isa isa)
{
    return bestFor(isa);
}

std::vector<const CpuKernels*> kernelVariants()
{
    std::vector<const CpuKernels*> variants{&kScalarKernels};
#if HEARTH_CPU_X86_KERNELS
    if (isaSupported(Isa::Avx2)) {
        variants.push_back(&kAvx2Kernels);
    }
    if (isaSupported(Isa::Avx512)) {
        variants.push_back(&kAvx512Kernels);
        if (hasAvx512Vnni()) {
            variants.push_back(&kAvx512VnniKernels);
        }
    }
#endif
    return variants;
}

BlockDotFn blockDotFor(const CpuKernels& kernels, DType type)
{
    const BlockFormat* format = blockFormat(type);
    if (!format)
        return nullptr;
    BlockDotFn own = nullptr;
    switch (type) {
    case DType::Q4_K:
        own = kernels.dotQ4_K;
        break;
    case DType::Q5_K:
        own = kernels.dotQ5_K;
        break;
    case DType::Q6_K:
        own = kernels.dotQ6_K;
        break;
    case DType::IQ4_XS:
        own = kernels.dotIQ4_XS;
        break;
    case DType::IQ4_NL:
        own = kernels.dotIQ4_NL;
        break;
    case DType::MXFP4:
        own = kernels.dotMXFP4;
        break;
    case DType::BF16:
        own = kernels.dotBF16;
        break;
    case DType::Q4_1:
        own = kernels.dotQ4_1;
        break;
    case DType::Q5_0:
        own = kernels.dotQ5_0;
        break;
    case DType::Q5_1:
        own = kernels.dotQ5_1;
        break;
    case DType::Q2_K:
        own = kernels.dotQ2_K;
        break;
    case DType::Q3_K:
        own = kernels.dotQ3_K;
        break;
    default:
        break;
    }
    return own ? own : format->dot;
}

void gemmBlockRows(const GemmArgs& a, std::int64_t rowBegin, std::int64_t rowEnd)
{
    // Each row is a few KiB: it stays in L1 while the tokens of a block go by.
    for (std::int64_t r = rowBegin; r < rowEnd; ++r) {
        const std::uint8_t* row = a.w + static_cast<std::size_t>(r) * a.wStride;
        for (std::int64_t t = 0; t < a.tokens; ++t) {
            const void* x = static_cast<const std::uint8_t*>(a.x) + static_cast<std::size_t>(t) * a.xStride;
            a.y[t * a.yStride + r] = a.dot(row, x, a.cols);
        }
    }
}

} // namespace hearth::cpu
