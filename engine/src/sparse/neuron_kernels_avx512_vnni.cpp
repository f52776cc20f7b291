// SPDX-License-Identifier: MIT
// Compiled with AVX-512 (F, BW, VL, DQ, VNNI) flags; used only after isa.cpp found them.
#define HEARTH_NEURON_TABLE kAvx512VnniNeuronKernels
#define HEARTH_NEURON_NAME "avx512-vnni"
#define HEARTH_NEURON_CPU_TABLE cpu::kAvx512VnniKernels
#include "sparse/neuron_kernels_impl.h"
