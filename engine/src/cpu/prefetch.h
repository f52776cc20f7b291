// SPDX-License-Identifier: MIT
#pragma once

// Software prefetch, for reads the hardware prefetcher does not see coming: the sparse kernels'
// scattered rows, and the next rows a prompt packs or decodes while the tiles work on the last.

#include <cstddef>
#include <cstdint>

namespace hearth::cpu {

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

// The @p bytes from @p p into L2, a line at a time.
inline void prefetchBytes(const std::uint8_t* p, std::size_t bytes)
{
    constexpr std::size_t kLine = 64;
    for (std::size_t offset = 0; offset < bytes; offset += kLine)
        prefetchLine(p + offset);
}

} // namespace hearth::cpu
