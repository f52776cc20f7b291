// SPDX-License-Identifier: MIT
#include "cpu/kernels.h"

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

} // namespace hearth::cpu
