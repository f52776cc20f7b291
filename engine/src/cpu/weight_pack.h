// SPDX-License-Identifier: MIT
#pragma once

// Weight matrices rearranged once at load into the layout the SIMD kernels stream fastest.
//
// A GGUF Q4_0 row is a run of 18-byte blocks, each with its own half-precision scale; a decode
// kernel walking rows one by one spends most of its instructions converting and broadcasting
// those scales and summing short dot products across lanes. The Q4_0x16 layout interleaves 16
// rows so that one vector instruction handles the same block of all 16 rows:
//
//   group g (rows 16g .. 16g+15), for each block column b, 288 bytes:
//     [ 16 x fp16 scale d (row order) | 4 x 64 bytes of quants ]
//   quant register k (k = 0..3), int32 lane r, byte i = original qs[4k + i] of row 16g + r,
//   i.e. the low nibble is element 4k + i and the high nibble element 16 + 4k + i.
//
// Each lane then accumulates its own row's dot product (vpdpbusd with the activation's four
// bytes broadcast), and the 16 scales convert with one instruction. The packed copy has exactly
// the size of the original rows it replaces. Rows past the last whole group, and kernel tables
// without a packed kernel, keep using the original data, which the matrix still points at (so
// getRow() and any row-wise reader are unaffected).

#include "cpu/matmul.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace hearth::cpu {

struct CpuKernels;

constexpr int kQ4x16Rows = 16;
constexpr std::size_t kQ4x16BlockBytes = kQ4x16Rows * (sizeof(std::uint16_t) + QK4_0 / 2); // 288

// Bytes of one packed Q4_0x16 group of @p cols columns.
[[nodiscard]] constexpr std::size_t q4x16GroupBytes(std::int64_t cols)
{
    return static_cast<std::size_t>(cols / QK4_0) * kQ4x16BlockBytes;
}

// Whether none of @p count halves is an infinity or a NaN.
[[nodiscard]] bool halvesAreFinite(const std::uint16_t* halves, std::size_t count);

// Writes rows [16 * groupBegin, 16 * groupEnd) of the Q4_0 matrix @p w in the Q4_0x16 layout to
// @p out (q4x16GroupBytes(w.cols) bytes per group). Exposed for tests.
void packQ4_0x16(const WeightMatrix& w, std::int64_t groupBegin, std::int64_t groupEnd, std::uint8_t* out);

// Owns packed copies of weight matrices. Packing is an optimisation only: a matrix that
// cannot be packed (type without a packed layout, too few rows, no memory, kernels without a
// packed path, HEARTH_CPU_REPACK=0 in the environment) stays as it was and computes the same
// results from its original rows.
class PackedWeightStore {
public:
    PackedWeightStore() = default;
    PackedWeightStore(PackedWeightStore&&) noexcept = default;
    PackedWeightStore& operator=(PackedWeightStore&&) noexcept = default;
    ~PackedWeightStore() = default;

    // Repacks @p w for the active kernels when they have a packed path for its type, setting
    // w.packed / w.packing / w.packedRows. Returns whether it did. Never throws.
    // Q4_0 (with a Q4_0x16 kernel) gets the Q4_0x16 layout. Every other type gets a plain copy
    // of its rows (Packing::Rows) when transparent huge pages are available: their layout is
    // already what the kernels want, but a file mapping uses 4 KiB pages, and a decode
    // streaming through those measured ~25-30 % slower for F16 and ~10 % for Q4_K than through
    // huge pages (the hardware prefetcher stops at every page boundary). Callers release the mapped pages of a
    // packed matrix either way (releaseMappedPages), so memory use does not grow.
    // F16 matrices are also checked for infinite and NaN weights (WeightMatrix::finiteHalves),
    // packed or not.
    bool pack(WeightMatrix& w);
    // Same for an explicit kernel table (tests, benchmarks).
    bool packFor(const CpuKernels& kernels, WeightMatrix& w);

    // Moves a matrix that is read in place rather than through matmul() (the sparse FFN's neuron
    // rows) into the store's huge-page memory: @p w then points at the copy and, when
    // @p fileMapped, the mapped original is released so memory use does not grow. False (and
    // @p w unchanged) when huge pages are unavailable or memory is short.
    bool moveToHugePages(WeightMatrix& w, bool fileMapped);

    // Bytes held by packed copies.
    [[nodiscard]] std::size_t bytes() const { return m_bytes; }

    // Whether packing is enabled for this process (HEARTH_CPU_REPACK unset or not "0").
    [[nodiscard]] static bool enabled();
    // Whether packed copies ask for transparent huge pages (HEARTH_CPU_HUGEPAGES unset or not
    // "0", and the kernel offers them: /sys/kernel/mm/transparent_hugepage/enabled is
    // "always" or "madvise").
    [[nodiscard]] static bool hugePagesEnabled();

private:
    // A copy of @p w's rows as stored, in the store's memory; nullptr when memory is short.
    [[nodiscard]] std::uint8_t* copyRows(const WeightMatrix& w);
    // Packed matrices are placed one after another in large regions (arenas) aligned to 2 MiB
    // and advised as huge-page memory on Linux: a decode streams every matrix once per token,
    // and with 4 KiB pages that is a TLB miss per 64 cache lines. One region for many matrices
    // wastes at most the unused tail of its last huge page, where one per matrix could waste up
    // to 2 MiB each.
    struct Arena {
        std::uint8_t* base = nullptr; // 2 MiB aligned
        std::size_t size = 0;
        std::size_t used = 0;
        void* mapping = nullptr; // what to release
        std::size_t mappingBytes = 0;
    };
    struct ArenaList {
        std::vector<Arena> arenas;
        ArenaList() = default;
        ArenaList(ArenaList&& other) noexcept;
        ArenaList& operator=(ArenaList&& other) noexcept;
        ~ArenaList();
        void release();
    };
    // Room for @p bytes, 64-byte aligned, or nullptr when out of memory.
    std::uint8_t* allocate(std::size_t bytes);

    ArenaList m_arenas;
    std::size_t m_bytes = 0;
};

// Drops this process's resident pages of [data, data + bytes) (the whole pages inside it), so a
// matrix that was packed does not stay in memory twice. ONLY for memory mapped read-only from a
// file: such pages come back from the file if anything reads them again (getRow() on a packed
// matrix still works), whereas anonymous memory would lose its contents. No-op off Linux.
void releaseMappedPages(const void* data, std::size_t bytes);

} // namespace hearth::cpu
