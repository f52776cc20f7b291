// SPDX-License-Identifier: MIT
#include "sparse/neuron_kernels.h"

#include <algorithm>
#include <cmath>

namespace hearth::sparse {

void quantizeActivationsQ16(const float* x, ActBlockQ16* out, std::int64_t n)
{
    for (std::int64_t b = 0; b < n / 32; ++b) {
        const float* v = x + b * 32;
        float max = 0.0f;
        for (int i = 0; i < 32; ++i)
            max = std::max(max, std::fabs(v[i]));
        out[b].d = max / float(kWideLevels);
        const float inverse = max > 0.0f ? float(kWideLevels) / max : 0.0f;
        for (int i = 0; i < 32; ++i)
            out[b].qs[i] = std::int16_t(std::nearbyint(v[i] * inverse));
    }
}

const NeuronKernels* neuronKernelsFor(cpu::Isa isa)
{
#if HEARTH_SPARSE_X86_KERNELS
    if (!cpu::isaSupported(isa))
        return nullptr;
    switch (isa) {
    case cpu::Isa::Avx512:
        return cpu::hasAvx512Vnni() ? &kAvx512VnniNeuronKernels : &kAvx512NeuronKernels;
    case cpu::Isa::Avx2:
        return &kAvx2NeuronKernels;
    case cpu::Isa::Scalar:
        return &kScalarNeuronKernels;
    }
    return nullptr;
#else
    return isa == cpu::Isa::Scalar ? &kScalarNeuronKernels : nullptr;
#endif
}

const NeuronKernels& neuronKernels()
{
    static const NeuronKernels* const table = [] {
        const NeuronKernels* k = neuronKernelsFor(cpu::activeIsa());
        return k ? k : &kScalarNeuronKernels;
    }();
    return *table;
}

} // namespace hearth::sparse
