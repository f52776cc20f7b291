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
// the size of the original rows it replaces.
//
// MXFP4x16 is Q4_0x16 with each row's exponent byte in place of its half scale, 272 bytes per
// group and block column, the size of the rows it replaces:
//   [ 16 x u8 E8M0 exponent (row order) | 4 x 64 bytes of codebook indices, arranged as Q4_0x16's ]
//
// Q8_0x16 is the same with whole bytes, 544 bytes per group and block column:
//   [ 16 x fp16 scale d (row order) | 8 x 64 bytes of quants ]
//   quant register k (k = 0..7), int32 lane r, byte i = qs[4k + i] of row 16g + r.
//
// The K-quants and IQ4_XS get the same treatment (Q4_Kx16, Q5_Kx16, Q6_Kx16, IQ4_XSx16). Their
// 256-weight super-blocks carry a scale (and a min) per 32-weight run, or per 16 weights for
// Q6_K, in bit packings a row-by-row kernel unpacks per row and per token; the packed layouts
// store them unpacked and row-interleaved like the quants. Per group and super-block column:
//
//   Q4_Kx16, 2368 bytes (16 x 144 plus 64):
//     [ 16 x fp16 d | 16 x fp16 dmin | 8 runs x 16 rows u8 scale | 4 run pairs x 16 rows x 2 u8 min
//       | 4 chunks x 8 x 64 bytes of quants ]
//     chunk j, quant register k, int32 lane r, byte i = qs[32j + 4k + i] of row 16g + r: its low
//     nibble is weight 64j + 4k + i (run 2j), its high nibble weight 64j + 32 + 4k + i. The min
//     bytes of pair p, lane r, are the mins of runs 2p and 2p + 1 of that row.
//   Q5_Kx16, 2880 bytes (16 x 176 plus 64): Q4_Kx16, then 8 x 64 bytes of fifth bits: register
//     k, lane r, byte i = qh[4k + i] (bit j: the fifth bit of weight 32j + 4k + i).
//   Q6_Kx16, 3360 bytes (16 x 210): [ 16 x fp16 d | 8 pairs x 16 rows x 2 int8 scale
//     | for half h, register k: 64 bytes ql[64h + 4k + i], 64 bytes ql[64h + 32 + 4k + i]
//     | for half h, register k: 64 bytes qh[32h + 4k + i] ], each of lane r from row 16g + r.
//   IQ4_XSx16, 2208 bytes (16 x 136 plus 32): [ 16 x fp16 d | 4 run pairs x 16 rows x 2 int8
//     scale (less 32) | 4 chunks x 8 x 64 bytes of codebook indices, arranged as Q4_Kx16's ].
//
// Rows past the last whole group, and kernel tables without a packed kernel, keep using the
// original data, which the matrix still points at (so
// getRow() and any row-wise reader are unaffected).

#include "cpu/matmul.h"
#include "cpu/quant_blocks.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace hearth::cpu {

struct CpuKernels;

constexpr int kQ4x16Rows = 16;
constexpr std::size_t kQ4x16BlockBytes = kQ4x16Rows * (sizeof(std::uint16_t) + QK4_0 / 2); // 288
constexpr std::size_t kQ8x16BlockBytes = kQ4x16Rows * (sizeof(std::uint16_t) + QK8_0); // 544
constexpr std::size_t kMxfp4x16BlockBytes = kQ4x16Rows * sizeof(BlockMXFP4); // 272

// Bytes of one packed Q4_0x16 group of @p cols columns.
[[nodiscard]] constexpr std::size_t q4x16GroupBytes(std::int64_t cols)
{
    return static_cast<std::size_t>(cols / QK4_0) * kQ4x16BlockBytes;
}

// Where the parts of a Q4_Kx16 / Q5_Kx16 super-block column start.
constexpr std::size_t kQ4Kx16DminOffset = 32;
constexpr std::size_t kQ4Kx16ScaleOffset = 64;
constexpr std::size_t kQ4Kx16MinOffset = kQ4Kx16ScaleOffset + 8 * kQ4x16Rows;
constexpr std::size_t kQ4Kx16QuantOffset = kQ4Kx16MinOffset + 8 * kQ4x16Rows;
constexpr std::size_t kQ4Kx16BlockBytes = kQ4Kx16QuantOffset + kQ4x16Rows * QK_K / 2; // 2368
constexpr std::size_t kQ5Kx16HighOffset = kQ4Kx16BlockBytes;
constexpr std::size_t kQ5Kx16BlockBytes = kQ5Kx16HighOffset + kQ4x16Rows * QK_K / 8; // 2880
// And of a Q6_Kx16 one.
constexpr std::size_t kQ6Kx16ScaleOffset = 32;
constexpr std::size_t kQ6Kx16LowOffset = kQ6Kx16ScaleOffset + 16 * kQ4x16Rows;
constexpr std::size_t kQ6Kx16HighOffset = kQ6Kx16LowOffset + kQ4x16Rows * QK_K / 2;
constexpr std::size_t kQ6Kx16BlockBytes = kQ6Kx16HighOffset + kQ4x16Rows * QK_K / 4; // 3360
// And of an IQ4_XSx16 one.
constexpr std::size_t kIQ4XSx16ScaleOffset = 32;
constexpr std::size_t kIQ4XSx16QuantOffset = kIQ4XSx16ScaleOffset + 8 * kQ4x16Rows;
constexpr std::size_t kIQ4XSx16BlockBytes = kIQ4XSx16QuantOffset + kQ4x16Rows * QK_K / 2; // 2208

// The interleaved layout of @p type (Packing::None where it has none).
[[nodiscard]] constexpr Packing interleavedPacking(DType type)
{
    switch (type) {
    case DType::Q4_0:
        return Packing::Q4_0x16;
    case DType::Q8_0:
        return Packing::Q8_0x16;
    case DType::Q4_K:
        return Packing::Q4_Kx16;
    case DType::Q5_K:
        return Packing::Q5_Kx16;
    case DType::Q6_K:
        return Packing::Q6_Kx16;
    case DType::IQ4_XS:
        return Packing::IQ4_XSx16;
    case DType::MXFP4:
        return Packing::MXFP4x16;
    default:
        return Packing::None;
    }
}

// The columns of one block of an interleaved layout: its rows' widths must be whole blocks.
[[nodiscard]] constexpr std::int64_t interleavedBlockElements(Packing packing)
{
    return packing == Packing::Q4_0x16 || packing == Packing::Q8_0x16 || packing == Packing::MXFP4x16 ? QK4_0 : QK_K;
}

// Bytes of one group of @p cols columns in the interleaved layout @p packing, or 0 for the
// other packings.
[[nodiscard]] constexpr std::size_t packedGroupBytes(Packing packing, std::int64_t cols)
{
    switch (packing) {
    case Packing::Q4_0x16:
        return q4x16GroupBytes(cols);
    case Packing::Q8_0x16:
        return static_cast<std::size_t>(cols / QK8_0) * kQ8x16BlockBytes;
    case Packing::Q4_Kx16:
        return static_cast<std::size_t>(cols / QK_K) * kQ4Kx16BlockBytes;
    case Packing::Q5_Kx16:
        return static_cast<std::size_t>(cols / QK_K) * kQ5Kx16BlockBytes;
    case Packing::Q6_Kx16:
        return static_cast<std::size_t>(cols / QK_K) * kQ6Kx16BlockBytes;
    case Packing::IQ4_XSx16:
        return static_cast<std::size_t>(cols / QK_K) * kIQ4XSx16BlockBytes;
    case Packing::MXFP4x16:
        return static_cast<std::size_t>(cols / QK4_0) * kMxfp4x16BlockBytes;
    case Packing::None:
    case Packing::Rows:
        break;
    }
    return 0;
}

// Bytes the interleaved layout of @p type adds to a matrix of @p rows x @p cols beyond its rows
// as stored (the K-quants' unpacked scales: 64 bytes per 16 rows and super-block column of
// Q4_K and Q5_K, 32 for IQ4_XS), for memory estimates; 0 for types without one or packed at
// their own size. Inline: the planner estimates memory without linking the kernels.
[[nodiscard]] inline std::uint64_t interleavedExtraBytes(DType type, std::int64_t rows, std::int64_t cols)
{
    const Packing packing = interleavedPacking(type);
    if (packing == Packing::None || rows < kQ4x16Rows || cols <= 0 || cols % interleavedBlockElements(packing) != 0)
        return 0;
    const auto groups = static_cast<std::uint64_t>(rows / kQ4x16Rows);
    const std::uint64_t packed = groups * packedGroupBytes(packing, cols);
    const std::uint64_t stored = groups * kQ4x16Rows * rowBytes(type, cols);
    return packed > stored ? packed - stored : 0;
}

// Whether none of @p count halves is an infinity or a NaN.
[[nodiscard]] bool halvesAreFinite(const std::uint16_t* halves, std::size_t count);

// Writes rows [16 * groupBegin, 16 * groupEnd) of @p w (Q4_0, Q8_0, the K-quants, IQ4_XS or MXFP4) in
// the type's interleaved layout to @p out, packedGroupBytes(interleavedPacking(w.type), w.cols)
// bytes per group; nothing for other types. Used at load, by prompts over matrices kept in
// rows (matmul.cpp) and by tests.
void packInterleaved(const WeightMatrix& w, std::int64_t groupBegin, std::int64_t groupEnd, std::uint8_t* out);

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
    // Q4_0, Q4_K, Q5_K, Q6_K and IQ4_XS get their interleaved layout where the kernels have a
    // kernel for it. Every other type gets a plain copy
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

    // @p w transposed (a row per column of w) in Q8_0, in the store's memory: the output-major
    // layout of a matrix stored a row per input (a sparse file's neuron-major down projection),
    // for batched products. Empty (null data) when memory is short or w.rows is not a whole
    // number of Q8_0 blocks.
    [[nodiscard]] WeightMatrix transposedQ8Copy(const WeightMatrix& w);

    // Bytes held by packed copies.
    [[nodiscard]] std::size_t bytes() const { return m_bytes; }

    // Copies beyond @p bytes in all are refused (their matrices stay as they are): they live in
    // memory the kernel cannot reclaim, where a file mapping's pages come and go as needed.
    void setLimit(std::size_t bytes) { m_limit = bytes; }
    // Bytes of the copies the limit refused.
    [[nodiscard]] std::size_t refusedBytes() const { return m_refused; }

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
    std::size_t m_allocated = 0; // handed out by allocate()
    std::size_t m_limit = SIZE_MAX;
    std::size_t m_refused = 0;
};

// Drops this process's resident pages of [data, data + bytes) (the whole pages inside it), so a
// matrix that was packed does not stay in memory twice. ONLY for memory mapped read-only from a
// file: such pages come back from the file if anything reads them again (getRow() on a packed
// matrix still works), whereas anonymous memory would lose its contents. No-op off Linux.
void releaseMappedPages(const void* data, std::size_t bytes);

// Asks the kernel to start reading the pages of [data, data + bytes) of a file mapping
// (MADV_WILLNEED) and returns at once. No-op off Linux.
void readAhead(const void* data, std::size_t bytes);

} // namespace hearth::cpu
