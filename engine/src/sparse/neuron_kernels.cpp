// SPDX-License-Identifier: MIT
#include "sparse/neuron_kernels.h"

#include <algorithm>
#include <cmath>

namespace hearth::sparse {

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
