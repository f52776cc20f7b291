// SPDX-License-Identifier: MIT
#pragma once

// Which instruction set the CPU kernels use, chosen once at run time.

#include <string>

namespace hearth::cpu {

enum class Isa { Scalar, Avx2, Avx512 };

// The best ISA this CPU and OS support. HEARTH_CPU_ISA=scalar|avx2|avx512 lowers the choice
// (tests and benchmarks compare paths); asking for more than the CPU has is ignored.
[[nodiscard]] Isa activeIsa();
[[nodiscard]] Isa detectedIsa();          // ignores the environment
[[nodiscard]] bool isaSupported(Isa isa); // CPU and OS (XSAVE state) support it
const char* isaName(Isa isa); // "scalar", "avx2", "avx512"
bool hasAvx512Vnni();         // the AVX-512 path may use vpdpbusd
std::string cpuFeatureString(); // "AVX2 FMA F16C AVX512F ..." for --version

} // namespace hearth::cpu
