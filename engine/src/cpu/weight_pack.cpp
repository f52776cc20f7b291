// SPDX-License-Identifier: MIT
#include "cpu/weight_pack.h"

#include "cpu/block_dot.h"
#include "cpu/kernels.h"
#include "cpu/quant.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <type_traits>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace hearth::cpu {

namespace {

// Vector loads of a group start on a cache line.
constexpr std::size_t kAlignment = 64;

// Four bytes of each of the 16 rows of a group into one 64-byte register: lane r gets
// bytes(r) [0, 4).
template <typename Bytes>
void interleave4(std::uint8_t* out, Bytes bytes)
{
    for (int r = 0; r < kQ4x16Rows; ++r)
        std::memcpy(out + 4 * r, bytes(r), 4);
}

// Q4_0x16 and Q8_0x16: the 16 scales, then four bytes of each row to a lane (a Q4_0 block's
// 16 bytes of nibble pairs, a Q8_0 block's 32 values).
template <typename Block>
void packQ0x16Block(const Block* const* rows, std::int64_t b, std::uint8_t* out)
{
    for (int r = 0; r < kQ4x16Rows; ++r)
        std::memcpy(out + 2 * r, &rows[r][b].d, 2);
    for (int k = 0; k < int(sizeof(Block::qs)) / 4; ++k)
        interleave4(out + 2 * kQ4x16Rows + 64 * k, [&](int r) { return rows[r][b].qs + 4 * k; });
}

void packMxfp4x16Block(const BlockMXFP4* const* rows, std::int64_t b, std::uint8_t* out)
{
    for (int r = 0; r < kQ4x16Rows; ++r)
        out[r] = rows[r][b].e;
    for (int k = 0; k < 4; ++k)
        interleave4(out + kQ4x16Rows + 64 * k, [&](int r) { return rows[r][b].qs + 4 * k; });
}

template <typename Block>
void packQ45Kx16Block(const Block* const* rows, std::int64_t b, std::uint8_t* out)
{
    for (int r = 0; r < kQ4x16Rows; ++r) {
        const Block& block = rows[r][b];
        std::memcpy(out + 2 * r, &block.d, 2);
        std::memcpy(out + kQ4Kx16DminOffset + 2 * r, &block.dmin, 2);
        for (int run = 0; run < 8; ++run) {
            std::int32_t scale = 0;
            std::int32_t min = 0;
            scaleMinK4(block.scales, run, scale, min);
            out[kQ4Kx16ScaleOffset + kQ4x16Rows * std::size_t(run) + std::size_t(r)] = static_cast<std::uint8_t>(scale);
            out[kQ4Kx16MinOffset + 2 * kQ4x16Rows * std::size_t(run / 2) + 2 * std::size_t(r) + std::size_t(run % 2)] =
                static_cast<std::uint8_t>(min);
        }
    }
    for (int j = 0; j < 4; ++j) {
        for (int k = 0; k < 8; ++k)
            interleave4(out + kQ4Kx16QuantOffset + 512 * j + 64 * k, [&](int r) { return rows[r][b].qs + 32 * j + 4 * k; });
    }
    if constexpr (std::is_same_v<Block, BlockQ5_K>) {
        for (int k = 0; k < 8; ++k)
            interleave4(out + kQ5Kx16HighOffset + 64 * k, [&](int r) { return rows[r][b].qh + 4 * k; });
    }
}

void packQ6Kx16Block(const BlockQ6_K* const* rows, std::int64_t b, std::uint8_t* out)
{
    for (int r = 0; r < kQ4x16Rows; ++r) {
        const BlockQ6_K& block = rows[r][b];
        std::memcpy(out + 2 * r, &block.d, 2);
        for (int pair = 0; pair < 8; ++pair)
            std::memcpy(out + kQ6Kx16ScaleOffset + 32 * pair + 2 * r, block.scales + 2 * pair, 2);
    }
    for (int h = 0; h < 2; ++h) {
        for (int k = 0; k < 8; ++k) {
            std::uint8_t* low = out + kQ6Kx16LowOffset + 128 * (8 * h + k);
            interleave4(low, [&](int r) { return rows[r][b].ql + 64 * h + 4 * k; });
            interleave4(low + 64, [&](int r) { return rows[r][b].ql + 64 * h + 32 + 4 * k; });
            interleave4(out + kQ6Kx16HighOffset + 64 * (8 * h + k), [&](int r) { return rows[r][b].qh + 32 * h + 4 * k; });
        }
    }
}

void packIQ4XSx16Block(const BlockIQ4_XS* const* rows, std::int64_t b, std::uint8_t* out)
{
    for (int r = 0; r < kQ4x16Rows; ++r) {
        const BlockIQ4_XS& block = rows[r][b];
        std::memcpy(out + 2 * r, &block.d, 2);
        for (int run = 0; run < 8; ++run) {
            const int scale = (((block.scalesL[run / 2] >> (4 * (run % 2))) & 0x0f) | (((block.scalesH >> (2 * run)) & 3) << 4)) - 32;
            out[kIQ4XSx16ScaleOffset + 32 * std::size_t(run / 2) + 2 * std::size_t(r) + std::size_t(run % 2)] =
                static_cast<std::uint8_t>(static_cast<std::int8_t>(scale));
        }
        // Run s keeps weights 0-15 in the low nibbles of qs[16s ...], 16-31 in the high ones;
        // the packed bytes pair weight 64j + e (low) with 64j + 32 + e (high), as Q4_K's do.
        const auto index = [&](int w) {
            const std::uint8_t byte = block.qs[16 * (w / 32) + w % 16];
            return (w % 32 < 16 ? byte : byte >> 4) & 0x0f;
        };
        for (int j = 0; j < 4; ++j) {
            for (int e = 0; e < 32; ++e) {
                out[kIQ4XSx16QuantOffset + 512 * std::size_t(j) + 64 * std::size_t(e / 4) + 4 * std::size_t(r) + std::size_t(e % 4)] =
                    static_cast<std::uint8_t>(index(64 * j + e) | (index(64 * j + 32 + e) << 4));
            }
        }
    }
}

template <typename Block, typename PackBlock>
void packGroups(const WeightMatrix& w, std::int64_t groupBegin, std::int64_t groupEnd, std::uint8_t* out,
                std::size_t blockBytes, PackBlock packBlock)
{
    const std::int64_t blocks = w.cols / interleavedBlockElements(interleavedPacking(w.type));
    const std::size_t rowStride = rowStrideOf(w);
    const auto* base = static_cast<const std::uint8_t*>(w.data);
    for (std::int64_t g = groupBegin; g < groupEnd; ++g) {
        const Block* rows[kQ4x16Rows];
        for (int r = 0; r < kQ4x16Rows; ++r)
            rows[r] = reinterpret_cast<const Block*>(base + static_cast<std::size_t>(g * kQ4x16Rows + r) * rowStride);
        for (std::int64_t b = 0; b < blocks; ++b, out += blockBytes)
            packBlock(rows, b, out);
    }
}

} // namespace

void packInterleaved(const WeightMatrix& w, std::int64_t groupBegin, std::int64_t groupEnd, std::uint8_t* out)
{
    switch (w.type) {
    case DType::Q4_0:
        packGroups<BlockQ4_0>(w, groupBegin, groupEnd, out, kQ4x16BlockBytes, packQ0x16Block<BlockQ4_0>);
        break;
    case DType::Q8_0:
        packGroups<BlockQ8_0>(w, groupBegin, groupEnd, out, kQ8x16BlockBytes, packQ0x16Block<BlockQ8_0>);
        break;
    case DType::Q4_K:
        packGroups<BlockQ4_K>(w, groupBegin, groupEnd, out, kQ4Kx16BlockBytes, packQ45Kx16Block<BlockQ4_K>);
        break;
    case DType::Q5_K:
        packGroups<BlockQ5_K>(w, groupBegin, groupEnd, out, kQ5Kx16BlockBytes, packQ45Kx16Block<BlockQ5_K>);
        break;
    case DType::Q6_K:
        packGroups<BlockQ6_K>(w, groupBegin, groupEnd, out, kQ6Kx16BlockBytes, packQ6Kx16Block);
        break;
    case DType::IQ4_XS:
        packGroups<BlockIQ4_XS>(w, groupBegin, groupEnd, out, kIQ4XSx16BlockBytes, packIQ4XSx16Block);
        break;
    case DType::MXFP4:
        packGroups<BlockMXFP4>(w, groupBegin, groupEnd, out, kMxfp4x16BlockBytes, packMxfp4x16Block);
        break;
    default:
        break;
    }
}

namespace {

constexpr std::size_t kHugePage = std::size_t(2) << 20;
// Arenas are at least this large (address space only: untouched pages cost no memory).
constexpr std::size_t kArenaBytes = std::size_t(256) << 20;

std::size_t roundUp(std::size_t n, std::size_t to)
{
    return (n + to - 1) / to * to;
}

} // namespace

PackedWeightStore::ArenaList::ArenaList(ArenaList&& other) noexcept
    : arenas(std::move(other.arenas))
{
    other.arenas.clear();
}

PackedWeightStore::ArenaList& PackedWeightStore::ArenaList::operator=(ArenaList&& other) noexcept
{
    if (this != &other) {
        release();
        arenas = std::move(other.arenas);
        other.arenas.clear();
    }
    return *this;
}

PackedWeightStore::ArenaList::~ArenaList()
{
    release();
}

void PackedWeightStore::ArenaList::release()
{
    for (const Arena& a : arenas) {
#if defined(__linux__)
        (void)munmap(a.mapping, a.mappingBytes);
#else
        ::operator delete[](static_cast<std::uint8_t*>(a.mapping), std::align_val_t(kHugePage));
#endif
    }
    arenas.clear();
}

std::uint8_t* PackedWeightStore::allocate(std::size_t bytes)
{
    bytes = roundUp(bytes, kAlignment);
    if (bytes > m_limit || m_allocated > m_limit - bytes) {
        m_refused += bytes;
        return nullptr;
    }
    if (!m_arenas.arenas.empty()) {
        Arena& last = m_arenas.arenas.back();
        if (last.size - last.used >= bytes) {
            std::uint8_t* p = last.base + last.used;
            last.used += bytes;
            m_allocated += bytes;
            return p;
        }
    }
    try {
        m_arenas.arenas.reserve(m_arenas.arenas.size() + 1);
    } catch (const std::bad_alloc&) {
        return nullptr;
    }
    Arena a;
    a.size = roundUp(std::max(bytes, kArenaBytes), kHugePage);
#if defined(__linux__)
    // Reserve one huge page more than needed so the arena can start on a 2 MiB boundary.
    a.mappingBytes = a.size + kHugePage;
    a.mapping = mmap(nullptr, a.mappingBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (a.mapping == MAP_FAILED) {
        return nullptr;
    }
    a.base = reinterpret_cast<std::uint8_t*>(roundUp(reinterpret_cast<std::uintptr_t>(a.mapping), kHugePage));
    if (hugePagesEnabled()) {
        // Advice only: without transparent huge pages the arena is ordinary memory.
        (void)madvise(a.base, a.size, MADV_HUGEPAGE);
    }
#else
    a.mappingBytes = a.size;
    a.mapping = ::operator new[](a.size, std::align_val_t(kHugePage), std::nothrow);
    if (!a.mapping) {
        return nullptr;
    }
    a.base = static_cast<std::uint8_t*>(a.mapping);
#endif
    a.used = bytes;
    m_arenas.arenas.push_back(a);
    m_allocated += bytes;
    return a.base;
}

bool PackedWeightStore::hugePagesEnabled()
{
    static const bool on = [] {
        const char* env = std::getenv("HEARTH_CPU_HUGEPAGES");
        if (env && std::strcmp(env, "0") == 0) {
            return false;
        }
#if defined(__linux__)
        std::FILE* f = std::fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
        if (!f) {
            return false;
        }
        char line[128] = {};
        const bool read = std::fgets(line, sizeof line, f) != nullptr;
        std::fclose(f);
        return read && (std::strstr(line, "[always]") || std::strstr(line, "[madvise]"));
#else
        return false;
#endif
    }();
    return on;
}

bool PackedWeightStore::enabled()
{
    static const bool on = [] {
        const char* env = std::getenv("HEARTH_CPU_REPACK");
        return !(env && std::strcmp(env, "0") == 0);
    }();
    return on;
}

bool PackedWeightStore::pack(WeightMatrix& w)
{
    return packFor(activeKernels(), w);
}

namespace {

#if defined(__linux__)
constexpr int kDropPages = MADV_DONTNEED;
constexpr int kReadPagesAhead = MADV_WILLNEED;
#else
constexpr int kDropPages = 0;
constexpr int kReadPagesAhead = 0;
#endif

// madvise(@p advice) over the pages of [data, data + bytes): those wholly inside it when
// @p inside (dropping pages must not touch a neighbour's), else every page it touches.
void advisePages(const void* data, std::size_t bytes, [[maybe_unused]] int advice, bool inside)
{
#if defined(__linux__)
    const long page = sysconf(_SC_PAGESIZE);
    if (!data || page <= 0 || bytes == 0) {
        return;
    }
    const auto p = reinterpret_cast<std::uintptr_t>(data);
    const auto pageSize = static_cast<std::uintptr_t>(page);
    const std::uintptr_t first = (inside ? p + pageSize - 1 : p) / pageSize * pageSize;
    const std::uintptr_t last = inside ? (p + bytes) / pageSize * pageSize : p + bytes;
    if (first < last) {
        (void)madvise(reinterpret_cast<void*>(first), last - first, advice);
    }
#else
    (void)data;
    (void)bytes;
    (void)inside;
#endif
}

} // namespace

void releaseMappedPages(const void* data, std::size_t bytes)
{
    // Fails harmlessly on locked pages; the pages are only a cache of the file either way.
    advisePages(data, bytes, kDropPages, true);
}

void readAhead(const void* data, std::size_t bytes)
{
    advisePages(data, bytes, kReadPagesAhead, false);
}

std::uint8_t* PackedWeightStore::copyRows(const WeightMatrix& w)
{
    const std::size_t bytes = rowBytes(w.type, w.cols) * static_cast<std::size_t>(w.rows);
    std::uint8_t* copy = allocate(bytes);
    if (copy) {
        std::memcpy(copy, w.data, bytes);
        m_bytes += bytes;
    }
    return copy;
}

bool PackedWeightStore::moveToHugePages(WeightMatrix& w, bool fileMapped)
{
    if (!enabled() || !hugePagesEnabled() || !w.data || w.rows <= 0 || w.cols <= 0) {
        return false;
    }
    std::uint8_t* copy = copyRows(w);
    if (!copy) {
        return false;
    }
    if (fileMapped) {
        const std::size_t bytes = rowBytes(w.type, w.cols) * static_cast<std::size_t>(w.rows);
        releaseMappedPages(w.data, bytes);
    }
    w.data = copy;
    return true;
}

bool halvesAreFinite(const std::uint16_t* halves, std::size_t count)
{
    // Four halves per 64-bit word: a half is infinite or NaN when its exponent bits are all
    // set, i.e. when (h & 0x7c00) ^ 0x7c00 is zero; the borrow trick finds a zero 16-bit lane
    // (exact here: the lanes of v hold at most 0x7c00).
    constexpr std::uint64_t kExponents = 0x7c007c007c007c00ull;
    std::size_t i = 0;
    std::uint64_t found = 0;
    for (; i + 4 <= count; i += 4) {
        std::uint64_t word;
        std::memcpy(&word, halves + i, sizeof(word));
        const std::uint64_t v = (word & kExponents) ^ kExponents;
        found |= (v - 0x0001000100010001ull) & ~v & 0x8000800080008000ull;
    }
    for (; i < count; ++i) {
        found |= (halves[i] & 0x7c00u) == 0x7c00u;
    }
    return found == 0;
}

namespace {

// Sets w.finiteHalves from @p halves, the matrix's rows or a copy of them. Run on the copy when
// there is one: the file's mapping would fault in every page first (1.7 s for the 1.1B F16
// model, against 0.1 s for the copy).
void markFiniteHalves(WeightMatrix& w, const void* halves)
{
    w.finiteHalves = halvesAreFinite(static_cast<const std::uint16_t*>(halves),
                                     static_cast<std::size_t>(w.rows) * static_cast<std::size_t>(w.cols));
}

} // namespace

bool PackedWeightStore::packFor(const CpuKernels& kernels, WeightMatrix& w)
{
    // Strided views (a fused sparse file's gate or up rows) take the interleaved layout only.
    const bool packable = enabled() && w.packing == Packing::None && w.data && w.rows >= kQ4x16Rows && w.cols > 0;
    // Q4_0, Q8_0 and the K-quants with a kernel for their interleaved layout get it below; every other
    // type its own rows in huge pages (7B Q4_K decode read 10.8 GB/s through the file mapping's
    // 4 KiB pages).
    const Packing layout = interleavedPacking(w.type);
    const Packing interleaved =
        w.cols % interleavedBlockElements(layout) == 0 && packedGemmFor(kernels, layout) ? layout : Packing::None;
    if (packable && w.rowStride == 0 && interleaved == Packing::None && isCpuWeightType(w.type) && hugePagesEnabled()) {
        std::uint8_t* copy = copyRows(w);
        if (w.type == DType::F16) {
            markFiniteHalves(w, copy ? copy : w.data);
        }
        if (!copy) {
            return false;
        }
        w.packed = copy;
        w.packing = Packing::Rows;
        w.packedRows = w.rows;
        return true;
    }
    if (w.type == DType::F16 && w.data && w.rows > 0 && w.cols > 0) {
        markFiniteHalves(w, w.data);
    }
    if (!packable || interleaved == Packing::None) {
        return false;
    }
    const std::int64_t groups = w.rows / kQ4x16Rows;
    const std::size_t bytes = static_cast<std::size_t>(groups) * packedGroupBytes(interleaved, w.cols);
    std::uint8_t* raw = allocate(bytes);
    if (!raw) {
        return false;
    }
    // At load this is dominated by the kernel clearing the new pages (71 % of loading an 8-layer
    // 8B Q4_K_M file, the packing 11 %); packing on two threads did not shorten it.
    packInterleaved(w, 0, groups, raw);
    m_bytes += bytes;
    w.packed = raw;
    w.packing = interleaved;
    w.packedRows = groups * kQ4x16Rows;
    return true;
}

WeightMatrix PackedWeightStore::transposedQ8Copy(const WeightMatrix& w)
{
    if (!w.data || w.rows <= 0 || w.cols <= 0 || w.rows % QK8_0 != 0)
        return {};
    const std::size_t outRow = rowBytes(DType::Q8_0, w.rows);
    std::uint8_t* out = allocate(outRow * static_cast<std::size_t>(w.cols));
    if (!out)
        return {};
    // A block of 32 input rows at a time, decoded once (32 rows of a 7B down projection: 512 KiB,
    // in L2), gives every output row its block of them.
    std::vector<float> rows(static_cast<std::size_t>(QK8_0 * w.cols));
    float column[QK8_0];
    for (std::int64_t b = 0; b < w.rows / QK8_0; ++b) {
        for (int r = 0; r < QK8_0; ++r)
            getRow(w, b * QK8_0 + r, rows.data() + static_cast<std::size_t>(r) * static_cast<std::size_t>(w.cols));
        for (std::int64_t c = 0; c < w.cols; ++c) {
            for (int r = 0; r < QK8_0; ++r)
                column[r] = rows[static_cast<std::size_t>(r * w.cols + c)];
            quantizeRowQ8_0(column, reinterpret_cast<BlockQ8_0*>(out + static_cast<std::size_t>(c) * outRow) + b, QK8_0);
        }
    }
    m_bytes += outRow * static_cast<std::size_t>(w.cols);
    return WeightMatrix{DType::Q8_0, out, w.cols, w.rows};
}

} // namespace hearth::cpu
