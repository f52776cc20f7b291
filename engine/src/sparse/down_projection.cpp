// SPDX-License-Identifier: MIT
#include "sparse/down_projection.h"

#include "cpu/quant.h"
#include "cpu/thread_pool.h"

#include <algorithm>
#include <cstring>
#include <new>

namespace hearth::sparse {

namespace {

// Ranges of outputs per thread (whole blocks of every type, K-quants' 256 included) and blocks
// of rows whose slices (72 KiB in Q4_0) stay in L2 while every tile of tokens passes them.
constexpr std::int64_t kColumns = 256;
constexpr std::int64_t kRowBlock = 512;

} // namespace

Result<std::unique_ptr<DownProjection>> DownProjection::create(int threads)
{
    if (threads <= 0)
        return Status(ErrorCode::InvalidArgument, "the down projection needs a thread");
    std::unique_ptr<DownProjection> d(new DownProjection());
    d->m_threads = threads;
    try {
        d->m_scratch.resize(std::size_t(threads) * std::size_t(kRowBlock * kColumns));
    } catch (const std::bad_alloc&) {
        return Status(ErrorCode::OutOfMemory, "not enough memory for the down projection's scratch");
    }
    return d;
}

void DownProjection::run(cpu::ThreadPool& pool, const cpu::WeightMatrix& downT, const float* acts, int tokens,
                         float* out)
{
    if (tokens <= 0)
        return;
    std::memset(out, 0, std::size_t(tokens) * std::size_t(downT.cols) * sizeof(float));
    if (pool.size() > m_threads)
        return;
    m_job = {&downT, acts, tokens, out};
    pool.parallelFor((downT.cols + kColumns - 1) / kColumns, [this](std::int64_t begin, std::int64_t end, int thread) {
        const Job& job = m_job;
        const cpu::WeightMatrix& w = *job.downT;
        // The vector tiles take whole groups of 32 outputs; other widths the scalar table.
        const NeuronKernels& table = w.cols % 32 == 0 ? *m_kernels : kScalarNeuronKernels;
        const RowKernels* direct = table.forType(w.type);
        const RowKernels& k = direct ? *direct : table.f32;
        const auto* rows = static_cast<const std::uint8_t*>(w.data);
        const std::size_t rowBytes = hearth::rowBytes(w.type, w.cols);
        float* scratch = m_scratch.data() + std::size_t(thread) * std::size_t(kRowBlock * kColumns);
        for (std::int64_t r = begin; r < end; ++r) {
            const std::int64_t first = r * kColumns;
            const std::int64_t width = std::min(kColumns, w.cols - first);
            const std::size_t offset = hearth::rowBytes(w.type, first);
            for (std::int64_t i0 = 0; i0 < w.rows; i0 += kRowBlock) {
                const std::int64_t count = std::min(kRowBlock, w.rows - i0);
                const std::uint8_t* block = rows + std::size_t(i0) * rowBytes + offset;
                std::size_t stride = rowBytes;
                if (!direct) {
                    for (std::int64_t i = 0; i < count; ++i)
                        cpu::dequantizeRow(w.type, block + std::size_t(i) * rowBytes, scratch + i * kColumns, width);
                    block = reinterpret_cast<const std::uint8_t*>(scratch);
                    stride = kColumns * sizeof(float);
                }
                for (int t0 = 0; t0 < job.tokens; t0 += kAxpyTileTokens) {
                    k.axpyTile(job.out + std::size_t(t0) * std::size_t(w.cols) + std::size_t(first), w.cols,
                               job.acts + std::size_t(t0) * std::size_t(w.rows) + std::size_t(i0), w.rows,
                               std::min(kAxpyTileTokens, job.tokens - t0), block, stride, count, width);
                }
            }
        }
    });
}

} // namespace hearth::sparse
