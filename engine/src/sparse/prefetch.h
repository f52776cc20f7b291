// SPDX-License-Identifier: MIT
#pragma once

// Software prefetch for the sparse kernels, whose rows are scattered where the hardware
// prefetcher expects a stream.

#include <cstdint>

namespace hearth::sparse {

// One cache line into L2. Not a bare __builtin_prefetch: GCC (-O2 and up, C++11 and later,
// through -ffinite-loops) deletes a loop whose body is nothing but __builtin_prefetch calls as
// free of side effects, which silently removed every prefetch of the neuron blocks it served.
inline void prefetchLine(const std::uint8_t* p)
{
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
    asm volatile("prefetcht1 %0" : : "m"(*p));
#elif defined(__aarch64__) && (defined(__GNUC__) || defined(__clang__))
    asm volatile("prfm pldl2keep, %0" : : "Q"(*p));
#elif defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(p, 0, 2);
#else
    (void)p;
#endif
}

} // namespace hearth::sparse
