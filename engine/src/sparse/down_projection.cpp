// SPDX-License-Identifier: MIT
#include "sparse/down_projection.h"

#include "cpu/kernels.h"
#include "cpu/quant.h"
#include "cpu/thread_pool.h"
#include "cpu/prefetch.h"
#include "sparse/sparse_ffn.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <new>

namespace hearth::sparse {

namespace {

// Ranges of outputs per thread (whole blocks of every type, K-quants' 256 included) and blocks
// of rows whose slices (72 KiB in Q4_0) stay in L2 while every tile of tokens passes them.
constexpr std::int64_t kColumns = 256;
constexpr std::int64_t kRowBlock = 512;
// The column path (runByColumns) decodes 32 rows at a time and requantizes them into blocks of
// 1024 rows (512 in 16 bits; 288 KiB) that its tiles then pass: each token's outputs are loaded
// and stored once per such block. The decoded rows lie a range and 64 bytes apart: packing reads
// a column group's 64 bytes from each, and 1 KiB apart they would crowd into few cache sets.
constexpr std::int64_t kColumnRowBlock = 1024;
constexpr std::int64_t kColumnRowFloats = kColumns + 16;
// A prompt whose share of non-zero activations is at most this takes the per-token lists: a
// tile of 8 tokens reads a row for all 8 when any needs it, so at 30 % a row is read by ~94 % of
// the tiles for 2.4 tokens' worth of use.
constexpr double kMaxActiveShare = 0.3;
// Against the integer products over columns, which run at four times the float rate: the
// 7B-shape file with fitted predictors (17-32 % of the activations non-zero) prefilled 116-119
// tok/s with the lists, 123-135 with the columns below any of 5, 10 and 20 %.
constexpr double kMaxActiveShareColumns = 0.1;
// A decoded token's rows are prefetched a group ahead of the row being gathered, and only
// their first lines: the rest of a row follows in sequence, which the hardware prefetcher sees.
constexpr std::size_t kPrefetchLines = 8;
constexpr std::size_t kLine = 64;
// Rows a block's decoding asks for ahead of the one it decodes.
constexpr std::int64_t kDecodeAhead = 4;

// Rows [i0, i0 + count) of @p w at byte @p offset of each row, @p width outputs, as floats
// @p stride apart in @p scratch: F16, Q4_0 and Q8_0 in one vector pass (the CPU table's
// dequantizers), the other types with a row kernel by their own axpy into zeros (vector code
// too, where the generic decoder is not), the rest by the generic decoder.
// @p used (optional, indexed by row): only the rows it marks are decoded, the others' slices are
// left as they were.
const float* decodeRowBlock(const cpu::WeightMatrix& w, const RowKernels* own, std::int64_t i0, std::int64_t count,
                            std::size_t offset, std::int64_t width, float* scratch, std::int64_t stride,
                            const std::uint8_t* used = nullptr)
{
    const bool vectorDequantize = w.type == DType::F16 || w.type == DType::Q4_0 || w.type == DType::Q8_0;
    const std::size_t rowBytes = cpu::rowStrideOf(w);
    const std::uint8_t* block = static_cast<const std::uint8_t*>(w.data) + std::size_t(i0) * rowBytes + offset;
    // The slices are short runs far apart: each row's is asked for a few rows ahead.
    const std::size_t sliceLines = (hearth::rowBytes(w.type, width) + kLine - 1) / kLine;
    // Rows past the block too: the next call decodes them.
    const std::int64_t available = w.rows - i0;
    const auto prefetchRow = [&](std::int64_t i) {
        if (i < available && (!used || used[i0 + i]))
            for (std::size_t l = 0; l < sliceLines; ++l)
                cpu::prefetchLine(block + std::size_t(i) * rowBytes + l * kLine);
    };
    for (std::int64_t i = 0; i < kDecodeAhead; ++i)
        prefetchRow(i);
    for (std::int64_t i = 0; i < count; ++i) {
        prefetchRow(i + kDecodeAhead);
        if (used && !used[i0 + i])
            continue;
        float* decoded = scratch + i * stride;
        if (own && !vectorDequantize) {
            std::fill_n(decoded, width, 0.0f);
            own->axpy(decoded, 1.0f, block + std::size_t(i) * rowBytes, width);
        } else {
            cpu::dequantizeRow(w.type, block + std::size_t(i) * rowBytes, decoded, width);
        }
    }
    return scratch;
}

} // namespace

std::size_t scratchFloats(std::int64_t columns)
{
    return std::size_t(std::max(kRowBlock * kColumns, kAxpyRowsGroup * columns));
}

std::size_t DownProjection::packedBytes()
{
    return std::size_t(kColumns / kColumnOutputs) * std::size_t(kColumnRowBlock / QK8_0) * kColumnBlockBytes;
}

Result<std::unique_ptr<DownProjection>> DownProjection::create(int threads, std::int64_t columns, int maxTokens,
                                                               std::int64_t maxRows)
{
    if (threads <= 0 || columns <= 0 || maxTokens < 0 || maxRows < 0)
        return Status(ErrorCode::InvalidArgument, "the down projection needs a thread and outputs");
    std::unique_ptr<DownProjection> d(new DownProjection());
    d->m_threads = threads;
    d->m_columns = columns;
    // The lists hold 16-bit row numbers: wider layers keep the tiles.
    if (maxTokens >= kAxpyTileTokens && maxRows > 0 && maxRows <= 65536) {
        d->m_maxTokens = maxTokens;
        d->m_maxRows = maxRows;
    }
    try {
        d->m_scratch.resize(std::size_t(threads) * scratchFloats(columns));
        d->m_partial.resize(std::size_t(threads) * std::size_t(kAxpyTileTokens - 1) * std::size_t(columns));
        d->m_active.resize(std::size_t(d->m_maxTokens) * std::size_t(d->m_maxRows));
        d->m_activeCount.resize(std::size_t(d->m_maxTokens));
        d->m_rowUsed.resize(std::size_t(d->m_maxRows));
        d->m_cursor.resize(std::size_t(threads) * std::size_t(d->m_maxTokens));
        if (maxTokens >= kColumnTokens && maxRows > 0) {
            d->m_columnTokens = maxTokens;
            d->m_columnRows = maxRows;
            d->m_actRowBlocks = std::size_t((maxRows + QK8_0 - 1) / QK8_0);
            d->m_actBlocks.resize(std::size_t(maxTokens) * d->m_actRowBlocks);
            d->m_actRow.resize(std::size_t(threads) * d->m_actRowBlocks);
            d->m_packed.resize(std::size_t(threads) * packedBytes());
        }
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
    if (pool.size() > m_threads || downT.cols > m_columns)
        return;
    m_job = {&downT, acts, tokens, out, false};
    if (tokens < kAxpyTileTokens) {
        runByRows(pool);
        return;
    }
    m_job.lists = listActiveRows(pool);
    if (!m_job.lists && takesColumns(downT, tokens)) {
        runByColumns(pool);
        return;
    }
    pool.parallelFor((downT.cols + kColumns - 1) / kColumns, [this](std::int64_t begin, std::int64_t end, int thread) {
        const Job& job = m_job;
        const cpu::WeightMatrix& w = *job.downT;
        // The vector tiles take whole groups of 32 outputs; other widths the scalar table.
        const NeuronKernels& table = w.cols % 32 == 0 ? *m_kernels : kScalarNeuronKernels;
        // Rows without a tile kernel (K-quants, types the neuron kernels do not read) are decoded
        // a block at a time into the scratch.
        const RowKernels* own = table.forType(w.type);
        // The lists add float rows: every type but F32 is decoded into the scratch first.
        const RowKernels* direct = own && own->axpyTile && (!job.lists || w.type == DType::F32) ? own : nullptr;
        const RowKernels& k = direct ? *direct : table.f32;
        const auto* rows = static_cast<const std::uint8_t*>(w.data);
        const std::size_t rowBytes = cpu::rowStrideOf(w);
        float* scratch = m_scratch.data() + std::size_t(thread) * scratchFloats(m_columns);
        std::int64_t* cursor = m_cursor.data() + std::size_t(thread) * std::size_t(m_maxTokens);
        for (std::int64_t r = begin; r < end; ++r) {
            const std::int64_t first = r * kColumns;
            const std::int64_t width = std::min(kColumns, w.cols - first);
            const std::size_t offset = hearth::rowBytes(w.type, first);
            if (job.lists)
                std::fill_n(cursor, job.tokens, 0);
            for (std::int64_t i0 = 0; i0 < w.rows; i0 += kRowBlock) {
                const std::int64_t count = std::min(kRowBlock, w.rows - i0);
                const std::uint8_t* block = rows + std::size_t(i0) * rowBytes + offset;
                std::size_t stride = rowBytes;
                if (!direct) {
                    const float* decoded = decodeRowBlock(w, own, i0, count, offset, width, scratch, kColumns,
                                                          job.lists ? m_rowUsed.data() : nullptr);
                    block = reinterpret_cast<const std::uint8_t*>(decoded);
                    stride = kColumns * sizeof(float);
                }
                if (job.lists) {
                    // Each token's rows of this block: the next entries of its list.
                    for (int t = 0; t < job.tokens; ++t) {
                        const std::uint16_t* ids = m_active.data() + std::size_t(t) * std::size_t(m_maxRows);
                        const std::int64_t from = cursor[t];
                        std::int64_t to = from;
                        while (to < m_activeCount[std::size_t(t)] && ids[to] < i0 + count)
                            ++to;
                        cursor[t] = to;
                        table.axpyActiveRows(job.out + std::size_t(t) * std::size_t(w.cols) + std::size_t(first),
                                             job.acts + std::size_t(t) * std::size_t(w.rows), ids + from, to - from, i0,
                                             reinterpret_cast<const float*>(block), stride / sizeof(float), width);
                    }
                    continue;
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

bool DownProjection::takesColumns(const cpu::WeightMatrix& w, int tokens) const
{
    // Float weights: the dense file's products are float too, and requantizing would only lose
    // precision.
    if (w.type == DType::F32 || w.type == DType::F16 || w.type == DType::BF16)
        return false;
    return tokens >= kColumnTokens && tokens <= m_columnTokens && w.rows <= m_columnRows && w.rows % QK8_0 == 0
        && w.cols % kColumnOutputs == 0;
}

void DownProjection::runByColumns(cpu::ThreadPool& pool)
{
    const auto quantize = cpu::activeKernels().quantizeActivations;
    const ColumnKernels& k = m_kernels->columns;
    constexpr std::size_t blockBytes = kColumnBlockBytes;
    const cpu::WeightMatrix& w = *m_job.downT;
    const std::size_t blocks = std::size_t(w.rows / QK8_0);
    // The tokens' blocks side by side, so a tile of tokens reads one run per block.
    const std::size_t tokens = std::size_t(m_job.tokens);
    cpu::ActBlockQ8* acts = m_actBlocks.data();
    pool.parallelFor(m_job.tokens, [&](std::int64_t begin, std::int64_t end, int thread) {
        cpu::ActBlockQ8* row = m_actRow.data() + std::size_t(thread) * m_actRowBlocks;
        for (std::int64_t t = begin; t < end; ++t) {
            quantize(m_job.acts + std::size_t(t) * std::size_t(w.rows), row, w.rows);
            for (std::size_t b = 0; b < blocks; ++b)
                acts[b * tokens + std::size_t(t)] = row[b];
        }
    });
    // Rows a pass of the tiles takes: what fills the packed scratch.
    const std::int64_t rowBlock = std::int64_t(packedBytes() / (blockBytes * (kColumns / kColumnOutputs))) * QK8_0;
    pool.parallelFor((w.cols + kColumns - 1) / kColumns, [&](std::int64_t begin, std::int64_t end, int thread) {
        const RowKernels* own = m_kernels->forType(w.type);
        float* scratch = m_scratch.data() + std::size_t(thread) * scratchFloats(m_columns);
        std::uint8_t* packed = m_packed.data() + std::size_t(thread) * packedBytes();
        // Rows [i0 + from, i0 + to) of column range r, the part of them a pass decodes, into L2.
        const auto prefetch = [&](std::int64_t r, std::int64_t i0, std::int64_t from, std::int64_t to) {
            const std::int64_t first = r * kColumns;
            const std::size_t bytes = hearth::rowBytes(w.type, std::min(kColumns, w.cols - first));
            const auto* slice = static_cast<const std::uint8_t*>(w.data) + hearth::rowBytes(w.type, first);
            for (std::int64_t i = i0 + from; i < std::min(w.rows, i0 + to); ++i)
                cpu::prefetchBytes(slice + std::size_t(i) * cpu::rowStrideOf(w), bytes);
        };
        for (std::int64_t r = begin; r < end; ++r) {
            const std::int64_t first = r * kColumns;
            const std::int64_t width = std::min(kColumns, w.cols - first);
            const std::size_t offset = hearth::rowBytes(w.type, first);
            for (std::int64_t i0 = 0; i0 < w.rows; i0 += rowBlock) {
                const std::int64_t count = std::min(rowBlock, w.rows - i0);
                const std::size_t groupBytes = std::size_t(count / QK8_0) * blockBytes;
                for (std::int64_t b = 0; b < count / QK8_0; ++b) {
                    const float* rows = decodeRowBlock(w, own, i0 + b * QK8_0, QK8_0, offset, width, scratch,
                                                       kColumnRowFloats);
                    for (std::int64_t g = 0; g < width / kColumnOutputs; ++g)
                        k.pack(rows + g * kColumnOutputs, std::size_t(kColumnRowFloats), QK8_0,
                             packed + std::size_t(g) * groupBytes + std::size_t(b) * blockBytes);
                }
                // Each group's blocks (18 KiB) stay in L1 while every token passes them; after
                // each group a share of the next pass's rows is asked for, so that its decoding
                // reads L2 (in sequence, the rows' slices are short runs far apart).
                const bool last = i0 + rowBlock >= w.rows;
                const std::int64_t nextRange = last ? r + 1 : r;
                const std::int64_t nextI0 = last ? 0 : i0 + rowBlock;
                const std::int64_t groups = width / kColumnOutputs;
                const std::int64_t share = (rowBlock + groups - 1) / groups;
                for (std::int64_t g = 0; g < groups; ++g) {
                    if (nextRange < end)
                        prefetch(nextRange, nextI0, g * share, (g + 1) * share);
                    k.gemm(m_job.out + first + g * kColumnOutputs, w.cols, acts + std::size_t(i0 / QK8_0) * tokens,
                           tokens, m_job.tokens, packed + std::size_t(g) * groupBytes, count / QK8_0);
                }
            }
        }
    });
}

bool DownProjection::listActiveRows(cpu::ThreadPool& pool)
{
    const cpu::WeightMatrix& w = *m_job.downT;
    if (m_job.tokens > m_maxTokens || w.rows > m_maxRows)
        return false;
    pool.parallelFor(m_job.tokens, [this](std::int64_t begin, std::int64_t end, int) {
        const std::int64_t rows = m_job.downT->rows;
        for (std::int64_t t = begin; t < end; ++t) {
            const float* a = m_job.acts + std::size_t(t) * std::size_t(rows);
            std::uint16_t* ids = m_active.data() + std::size_t(t) * std::size_t(m_maxRows);
            std::int64_t count = 0;
            for (std::int64_t i = 0; i < rows; ++i) {
                ids[count] = std::uint16_t(i); // written always, kept when non-zero: no branch to mispredict
                count += a[i] != 0.0f ? 1 : 0;
            }
            m_activeCount[std::size_t(t)] = count;
        }
    });
    std::int64_t active = 0;
    for (int t = 0; t < m_job.tokens; ++t)
        active += m_activeCount[std::size_t(t)];
    const double share = takesColumns(w, m_job.tokens) ? kMaxActiveShareColumns : kMaxActiveShare;
    if (double(active) > share * double(m_job.tokens) * double(w.rows))
        return false;
    // The rows some token needs: a sparse prompt's union can leave many unread (cold neurons).
    pool.parallelFor(w.rows, [this](std::int64_t begin, std::int64_t end, int) {
        const std::int64_t rows = m_job.downT->rows;
        std::fill(m_rowUsed.begin() + begin, m_rowUsed.begin() + end, std::uint8_t(0));
        for (int t = 0; t < m_job.tokens; ++t) {
            const float* a = m_job.acts + std::size_t(t) * std::size_t(rows);
            for (std::int64_t i = begin; i < end; ++i)
                m_rowUsed[std::size_t(i)] |= a[i] != 0.0f ? 1 : 0;
        }
    });
    return true;
}

void DownProjection::runByRows(cpu::ThreadPool& pool)
{
    // run(), not parallelFor(): every thread must clear its sums, even one without rows.
    pool.run([this](int thread, int threadCount) {
        const Job& job = m_job;
        const cpu::WeightMatrix& w = *job.downT;
        const RowKernels* direct = m_kernels->forType(w.type);
        const RowKernels& k = direct ? *direct : m_kernels->f32;
        const bool integer = k.axpyRowsInt8 && w.cols % cpu::QK_K == 0;
        const auto addRows = integer ? k.axpyRowsInt8 : k.axpyRows;
        const int groupSize = integer ? kAxpyRowsInt8Pass : kAxpyRowsGroup;
        const std::size_t cols = std::size_t(w.cols);
        const std::size_t rowBytes = cpu::rowStrideOf(w);
        const auto* rows = static_cast<const std::uint8_t*>(w.data);
        // Thread 0 adds into out (cleared by run()), the others into their own sums.
        float* sums = m_partial.data() + std::size_t(thread - 1) * std::size_t(kAxpyTileTokens - 1) * cols;
        if (thread > 0)
            std::fill_n(sums, std::size_t(job.tokens) * cols, 0.0f);
        float* target = thread == 0 ? job.out : sums;
        float* decoded = m_scratch.data() + std::size_t(thread) * scratchFloats(m_columns);
        const std::int64_t begin = w.rows * thread / threadCount;
        const std::int64_t end = w.rows * (thread + 1) / threadCount;
        // The rows some token needs, in order, a group at a time: the others are not read (nor
        // decoded), and each token adds the group's rows it needs in one pass over its sums.
        const auto nextUsed = [&](std::int64_t i) {
            for (; i < end; ++i) {
                for (int t = 0; t < job.tokens; ++t) {
                    if (job.acts[std::size_t(t) * std::size_t(w.rows) + std::size_t(i)] != 0.0f)
                        return i;
                }
            }
            return end;
        };
        // Scattered rows defeat the hardware prefetcher: a second cursor asks for the start of
        // the rows a group ahead of the one being added.
        const std::size_t lines = std::min(kPrefetchLines, (rowBytes + kLine - 1) / kLine);
        std::int64_t ahead = begin;
        const auto prefetchNext = [&] {
            ahead = nextUsed(ahead);
            if (ahead >= end)
                return;
            for (std::size_t l = 0; l < lines; ++l)
                cpu::prefetchLine(rows + std::size_t(ahead) * rowBytes + l * kLine);
            ++ahead;
        };
        for (int p = 0; p < groupSize; ++p)
            prefetchNext();
        static_assert(kAxpyRowsInt8Pass >= kAxpyRowsGroup);
        std::int64_t group[kAxpyRowsInt8Pass];
        const void* groupRows[kAxpyRowsInt8Pass];
        const void* tokenRows[kAxpyRowsInt8Pass];
        float tokenScales[kAxpyRowsInt8Pass];
        std::uint64_t count = 0;
        for (std::int64_t i = nextUsed(begin); i < end;) {
            int size = 0;
            for (; size < groupSize && i < end; i = nextUsed(i + 1)) {
                prefetchNext();
                const void* row = rows + std::size_t(i) * rowBytes;
                if (!direct) {
                    float* into = decoded + std::size_t(size) * cols;
                    cpu::dequantizeRow(w.type, row, into, w.cols);
                    row = into;
                }
                group[size] = i;
                groupRows[size++] = row;
            }
            count += std::uint64_t(size);
            for (int t = 0; t < job.tokens; ++t) {
                const float* a = job.acts + std::size_t(t) * std::size_t(w.rows);
                int kept = 0;
                for (int r = 0; r < size; ++r) {
                    // Written always, kept when non-zero: no branch to mispredict.
                    tokenScales[kept] = a[group[r]];
                    tokenRows[kept] = groupRows[r];
                    kept += tokenScales[kept] != 0.0f ? 1 : 0;
                }
                addRows(target + std::size_t(t) * cols, tokenScales, tokenRows, kept, w.cols);
            }
        }
        countFfnTrafficBytes(count * rowBytes);
    });
    const std::size_t count = std::size_t(m_job.tokens) * std::size_t(m_job.downT->cols);
    for (int thread = 1; thread < pool.size(); ++thread) {
        const float* sums = m_partial.data() + std::size_t(thread - 1) * std::size_t(kAxpyTileTokens - 1)
                                                   * std::size_t(m_job.downT->cols);
        for (std::size_t i = 0; i < count; ++i)
            m_job.out[i] += sums[i];
    }
}

} // namespace hearth::sparse
