// SPDX-License-Identifier: MIT
// Compiled with AVX-512 (F, BW, VL, DQ) flags; used only after isa.cpp found them.
#define HEARTH_NEURON_TABLE kAvx512NeuronKernels
#define HEARTH_NEURON_NAME "avx512"
#define HEARTH_NEURON_CPU_TABLE cpu::kAvx512Kernels
#include "sparse/neuron_kernels_impl.h"
