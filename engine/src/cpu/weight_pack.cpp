// SPDX-License-Identifier: MIT
#include "cpu/weight_pack.h"

#include "cpu/kernels.h"

#include <cstdlib>
#include <cstring>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace hearth::cpu {

namespace {

// Vector loads of a group start on a cache line.
constexpr std::size_t kAlignment = 64;

} // namespace

void packQ4_0x16(const WeightMatrix& w, std::int64_t groupBegin, std::int64_t groupEnd, std::uint8_t* out)
{
    const std::int64_t blocks = w.cols / QK4_0;
    const std::size_t rowStride = rowBytes(DType::Q4_0, w.cols);
    const auto* base = static_cast<const std::uint8_t*>(w.data);
    for (std::int64_t g = groupBegin; g < groupEnd; ++g) {
        const BlockQ4_0* rows[kQ4x16Rows];
        for (int r = 0; r < kQ4x16Rows; ++r) {
            rows[r] = reinterpret_cast<const BlockQ4_0*>(base + static_cast<std::size_t>(g * kQ4x16Rows + r) * rowStride);
        }
        for (std::int64_t b = 0; b < blocks; ++b) {
            std::uint8_t* dst = out;
            for (int r = 0; r < kQ4x16Rows; ++r) {
                std::memcpy(dst + 2 * r, &rows[r][b].d, 2);
            }
            dst += 2 * kQ4x16Rows;
            for (int k = 0; k < 4; ++k) {
                for (int r = 0; r < kQ4x16Rows; ++r) {
                    std::memcpy(dst + 64 * k + 4 * r, rows[r][b].qs + 4 * k, 4);
                }
            }
            out += kQ4x16BlockBytes;
        }
    }
}

void PackedWeightStore::AlignedFree::operator()(std::uint8_t* p) const
{
    ::operator delete[](p, std::align_val_t(kAlignment));
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

void releaseMappedPages(const void* data, std::size_t bytes)
{
#if defined(__linux__)
    const long page = sysconf(_SC_PAGESIZE);
    if (!data || page <= 0 || bytes == 0) {
        return;
    }
    const auto p = reinterpret_cast<std::uintptr_t>(data);
    const auto pageSize = static_cast<std::uintptr_t>(page);
    const std::uintptr_t first = (p + pageSize - 1) / pageSize * pageSize;
    const std::uintptr_t last = (p + bytes) / pageSize * pageSize;
    if (first < last) {
        // Fails harmlessly on locked pages; the pages are only a cache of the file either way.
        (void)madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
    }
#else
    (void)data;
    (void)bytes;
#endif
}

bool PackedWeightStore::packFor(const CpuKernels& kernels, WeightMatrix& w)
{
    if (!enabled() || w.packing != Packing::None || !w.data || w.rows < kQ4x16Rows || w.cols <= 0) {
        return false;
    }
    if (w.type != DType::Q4_0 || w.cols % QK4_0 != 0 || !kernels.gemmQ4_0x16) {
        return false;
    }
    const std::int64_t groups = w.rows / kQ4x16Rows;
    const std::size_t bytes = static_cast<std::size_t>(groups) * q4x16GroupBytes(w.cols);
    std::uint8_t* raw = static_cast<std::uint8_t*>(::operator new[](bytes, std::align_val_t(kAlignment), std::nothrow));
    if (!raw) {
        return false;
    }
    std::unique_ptr<std::uint8_t[], AlignedFree> buffer(raw);
    packQ4_0x16(w, 0, groups, buffer.get());
    try {
        m_buffers.push_back(std::move(buffer));
    } catch (const std::bad_alloc&) {
        return false;
    }
    m_bytes += bytes;
    w.packed = raw;
    w.packing = Packing::Q4_0x16;
    w.packedRows = groups * kQ4x16Rows;
    return true;
}

} // namespace hearth::cpu
