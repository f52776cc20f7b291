// SPDX-License-Identifier: MIT
// Kernels for AVX2 + FMA + F16C. Compiled with that ISA's flags (see CMakeLists.txt) and
// reached only through kernels.cpp once isa.cpp has confirmed CPU and OS support.

#define HEARTH_KERNEL_TABLE kAvx2Kernels
#define HEARTH_KERNEL_NAME "avx2"
#define HEARTH_KERNEL_ISA Isa::Avx2
#include "cpu/x86_kernels_impl.h"
