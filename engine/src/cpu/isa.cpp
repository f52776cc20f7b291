// SPDX-License-Identifier: MIT
#include "cpu/isa.h"

#include <cstdlib>
#include <cstring>

#if defined(__x86_64__) || defined(_M_X64)
#define HEARTH_X86 1
#if defined(_MSC_VER)
#include <immintrin.h>
#include <intrin.h>
#else
#include <cpuid.h>
#endif
#endif

namespace hearth::cpu {

namespace {

struct CpuFeatures {
    bool avx = false;
    bool avx2 = false;
    bool fma = false;
    bool f16c = false;
    bool avx512f = false;
    bool avx512bw = false;
    bool avx512vl = false;
    bool avx512dq = false;
    bool avx512vnni = false;
    bool osYmm = false; // OS saves YMM state on context switches
    bool osZmm = false; // ... and the opmask and ZMM state
};

#if HEARTH_X86
void cpuid(unsigned leaf, unsigned subleaf, unsigned regs[4])
{
#if defined(_MSC_VER)
    int r[4];
    __cpuidex(r, static_cast<int>(leaf), static_cast<int>(subleaf));
    for (int i = 0; i < 4; ++i) {
        regs[i] = static_cast<unsigned>(r[i]);
    }
#else
    __cpuid_count(leaf, subleaf, regs[0], regs[1], regs[2], regs[3]);
#endif
}

// XGETBV(0) without needing -mxsave for this translation unit.
unsigned long long xgetbv0()
{
#if defined(_MSC_VER)
    return _xgetbv(0);
#else
    unsigned eax = 0;
    unsigned edx = 0;
    __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
    return (static_cast<unsigned long long>(edx) << 32) | eax;
#endif
}
#endif

CpuFeatures probe()
{
    CpuFeatures f;
#if HEARTH_X86
    unsigned r[4] = {};
    cpuid(0, 0, r);
    const unsigned maxLeaf = r[0];
    if (maxLeaf < 1) {
        return f;
    }
    cpuid(1, 0, r);
    const bool osxsave = (r[2] >> 27) & 1u;
    f.avx = (r[2] >> 28) & 1u;
    f.fma = (r[2] >> 12) & 1u;
    f.f16c = (r[2] >> 29) & 1u;
    if (osxsave) {
        const unsigned long long xcr0 = xgetbv0();
        f.osYmm = (xcr0 & 0x6u) == 0x6u;    // SSE and AVX state
        f.osZmm = (xcr0 & 0xe6u) == 0xe6u;  // plus opmask, ZMM0-15 upper halves, ZMM16-31
    }
    if (maxLeaf >= 7) {
        cpuid(7, 0, r);
        f.avx2 = (r[1] >> 5) & 1u;
        f.avx512f = (r[1] >> 16) & 1u;
        f.avx512dq = (r[1] >> 17) & 1u;
        f.avx512bw = (r[1] >> 30) & 1u;
        f.avx512vl = (r[1] >> 31) & 1u;
        f.avx512vnni = (r[2] >> 11) & 1u;
    }
#endif
    return f;
}

const CpuFeatures& features()
{
    static const CpuFeatures f = probe();
    return f;
}

bool hasAvx2(const CpuFeatures& f)
{
    return f.osYmm && f.avx && f.avx2 && f.fma && f.f16c;
}

bool hasAvx512(const CpuFeatures& f)
{
    return hasAvx2(f) && f.osZmm && f.avx512f && f.avx512bw && f.avx512vl && f.avx512dq;
}

Isa chooseActive()
{
    const Isa best = detectedIsa();
    const char* env = std::getenv("HEARTH_CPU_ISA");
    if (!env || !*env) {
        return best;
    }
    Isa wanted = best;
    if (std::strcmp(env, "scalar") == 0) {
        wanted = Isa::Scalar;
    } else if (std::strcmp(env, "avx2") == 0) {
        wanted = Isa::Avx2;
    } else if (std::strcmp(env, "avx512") == 0) {
        wanted = Isa::Avx512;
    }
    // The variable only lowers the choice: the enum is ordered by capability.
    return static_cast<int>(wanted) < static_cast<int>(best) ? wanted : best;
}

} // namespace

Isa detectedIsa()
{
    const CpuFeatures& f = features();
    if (hasAvx512(f)) {
        return Isa::Avx512;
    }
    if (hasAvx2(f)) {
        return Isa::Avx2;
    }
    return Isa::Scalar;
}

Isa activeIsa()
{
    static const Isa isa = chooseActive();
    return isa;
}

bool isaSupported(Isa isa)
{
    switch (isa) {
    case Isa::Scalar:
        return true;
    case Isa::Avx2:
        return hasAvx2(features());
    case Isa::Avx512:
        return hasAvx512(features());
    }
    return false;
}

bool hasAvx512Vnni()
{
    return hasAvx512(features()) && features().avx512vnni;
}

const char* isaName(Isa isa)
{
    switch (isa) {
    case Isa::Scalar:
        return "scalar";
    case Isa::Avx2:
        return "avx2";
    case Isa::Avx512:
        return "avx512";
    }
    return "unknown";
}

std::string cpuFeatureString()
{
    const CpuFeatures& f = features();
    std::string s;
    const auto add = [&s](bool present, const char* name) {
        if (present) {
            if (!s.empty()) {
                s += ' ';
            }
            s += name;
        }
    };
    add(f.avx && f.osYmm, "AVX");
    add(f.avx2 && f.osYmm, "AVX2");
    add(f.fma && f.osYmm, "FMA");
    add(f.f16c && f.osYmm, "F16C");
    add(f.avx512f && f.osZmm, "AVX512F");
    add(f.avx512dq && f.osZmm, "AVX512DQ");
    add(f.avx512bw && f.osZmm, "AVX512BW");
    add(f.avx512vl && f.osZmm, "AVX512VL");
    add(f.avx512vnni && f.osZmm, "AVX512VNNI");
    return s.empty() ? std::string("none") : s;
}

} // namespace hearth::cpu
