// SPDX-License-Identifier: MIT
// Compiled with -mavx2 -mfma -mf16c; used only after isa.cpp found AVX2.
#define HEARTH_NEURON_TABLE kAvx2NeuronKernels
#define HEARTH_NEURON_NAME "avx2"
#define HEARTH_NEURON_CPU_TABLE cpu::kAvx2Kernels
#include "sparse/neuron_kernels_impl.h"
