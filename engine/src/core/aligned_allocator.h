// SPDX-License-Identifier: MIT
#pragma once

// A std::vector allocator that starts every buffer on an @p Alignment boundary. glibc's malloc
// puts large blocks 16 bytes past a page start, so rows of 64-byte multiples (a KV cache's) would
// each straddle one cache line more than they fill: a third more lines read per row.
//
//     std::vector<std::uint16_t, AlignedAllocator<std::uint16_t>> rows(n);

#include <cstddef>
#include <cstdint>
#include <new>

namespace hearth {

template <typename T, std::size_t Alignment = 4096>
struct AlignedAllocator {
    using value_type = T;
    static_assert(Alignment >= alignof(T) && (Alignment & (Alignment - 1)) == 0);

    AlignedAllocator() noexcept = default;
    template <typename U>
    AlignedAllocator(const AlignedAllocator<U, Alignment>&) noexcept
    {
    }
    template <typename U>
    struct rebind {
        using other = AlignedAllocator<U, Alignment>;
    };

    [[nodiscard]] T* allocate(std::size_t n)
    {
        return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(Alignment)));
    }
    void deallocate(T* p, std::size_t) noexcept { ::operator delete(p, std::align_val_t(Alignment)); }

    friend bool operator==(const AlignedAllocator&, const AlignedAllocator&) noexcept { return true; }
};

} // namespace hearth
