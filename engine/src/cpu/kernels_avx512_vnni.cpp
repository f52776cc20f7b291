// SPDX-License-Identifier: MIT
// Kernels for AVX-512 with VNNI (vpdpbusd). Compiled with that ISA's flags (see CMakeLists.txt) and
// reached only through kernels.cpp once isa.cpp has confirmed CPU and OS support.

#define HEARTH_KERNEL_TABLE kAvx512VnniKernels
#define HEARTH_KERNEL_NAME "avx512-vnni"
#define HEARTH_KERNEL_ISA Isa::Avx512
#include "cpu/x86_kernels_impl.h"
