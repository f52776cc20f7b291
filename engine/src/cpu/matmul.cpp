// SPDX-License-Identifier: MIT
#include "cpu/matmul.h"

#include "cpu/kernels.h"
#include "cpu/prefetch.h"
#include "cpu/quant.h"
#include "cpu/thread_pool.h"
#include "cpu/weight_pack.h"
#include "core/aligned_allocator.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <vector>

namespace hearth::cpu {

namespace {

// Thread chunks start on multiples of this many rows so register tiles (2-4 rows) and cache
// lines of the output stay whole within one thread.
constexpr std::int64_t kRowAlign = 16;
// Below this many multiply-adds a parallel section costs more than it saves.
constexpr std::int64_t kMinParallelWork = 1 << 16;
// Prefill walks tokens in blocks whose activations stay in L2 while a thread's rows stream by.
constexpr std::size_t kTokenBlockBytes = 256 * 1024;
// A prompt of at least this many tokens over a matrix kept in rows (the sparse FFN reads its
// gate and up rows in place, so they get no interleaved copy at load) packs each group of 16
// rows into a per-thread buffer just before the interleaved kernel reads it. The packing reads
// the group once and writes 16 rows' worth into L2, which the batch's tokens then share. (Two
// tiles of 8 tokens; measured only at 128 tokens, where it is 2-3 times the row kernels.)
constexpr std::int64_t kRepackMinTokens = 16;

ActivationFormat activationFormat(DType type)
{
    if (type == DType::Q4_0 || type == DType::Q8_0)
        return ActivationFormat::Q8;
    const BlockFormat* format = blockFormat(type);
    return format ? format->activations : ActivationFormat::Floats;
}

bool usesQ8Activations(DType type)
{
    return activationFormat(type) == ActivationFormat::Q8;
}

bool usesQ8KActivations(DType type)
{
    return activationFormat(type) == ActivationFormat::Q8K;
}

GemmFn gemmFor(const CpuKernels& k, DType type)
{
    // Block types: the table's own whole-matrix kernel, else row by row through its dot product.
    const auto ownOrRows = [](GemmFn own) { return own ? own : gemmBlockRows; };
    switch (type) {
    case DType::F32:
        return k.gemmF32;
    case DType::F16:
        return k.gemmF16;
    case DType::Q4_0:
        return k.gemmQ4_0;
    case DType::Q8_0:
        return k.gemmQ8_0;
    case DType::Q4_K:
        return ownOrRows(k.gemmQ4_K);
    case DType::Q5_K:
        return ownOrRows(k.gemmQ5_K);
    case DType::Q6_K:
        return ownOrRows(k.gemmQ6_K);
    case DType::IQ4_XS:
        return ownOrRows(k.gemmIQ4_XS);
    case DType::Q4_1:
        return ownOrRows(k.gemmQ4_1);
    case DType::Q5_0:
        return ownOrRows(k.gemmQ5_0);
    case DType::Q5_1:
        return ownOrRows(k.gemmQ5_1);
    case DType::Q2_K:
        return ownOrRows(k.gemmQ2_K);
    case DType::Q3_K:
        return ownOrRows(k.gemmQ3_K);
    default:
        return blockFormat(type) ? gemmBlockRows : nullptr;
    }
}

} // namespace

GemmFn packedGemmFor(const CpuKernels& k, Packing packing)
{
    switch (packing) {
    case Packing::Q4_0x16:
        return k.gemmQ4_0x16;
    case Packing::Q8_0x16:
        return k.gemmQ8_0x16;
    case Packing::Q4_Kx16:
        return k.gemmQ4_Kx16;
    case Packing::Q5_Kx16:
        return k.gemmQ5_Kx16;
    case Packing::Q6_Kx16:
        return k.gemmQ6_Kx16;
    case Packing::IQ4_XSx16:
        return k.gemmIQ4_XSx16;
    case Packing::MXFP4x16:
        return k.gemmMXFP4x16;
    case Packing::None:
    case Packing::Rows:
        break;
    }
    return nullptr;
}

bool packsAsUsed(const CpuKernels& k, const WeightMatrix& w, std::int64_t tokens)
{
    const Packing layout = interleavedPacking(w.type);
    const bool packedCopy = packedGemmFor(k, w.packing) && w.packed && w.packedRows > 0;
    return !packedCopy && tokens >= kRepackMinTokens && w.rows >= kQ4x16Rows && packedGemmFor(k, layout)
           && w.cols % interleavedBlockElements(layout) == 0 && PackedWeightStore::enabled();
}

namespace {

bool isValid(const WeightMatrix& w)
{
    if (!isCpuWeightType(w.type) || !w.data || w.rows <= 0 || w.cols <= 0) {
        return false;
    }
    const auto traits = dtypeTraits(static_cast<std::uint32_t>(w.type));
    if (!traits || w.cols % traits->blockElements != 0) {
        return false;
    }
    return (!usesQ8Activations(w.type) || w.cols % QK8_0 == 0) && (!usesQ8KActivations(w.type) || w.cols % QK_K == 0);
}

void zeroOutput(const WeightMatrix& w, std::int64_t tokens, float* y)
{
    if (y && w.rows > 0 && tokens > 0) {
        std::memset(y, 0, static_cast<std::size_t>(w.rows * tokens) * sizeof(float));
    }
}

// The input of one matmul call in the form the kernels want.
struct Input {
    const void* x = nullptr;
    std::size_t xStride = 0;
};

// Memory that one input of a call keeps its converted activations in, per calling thread, so
// repeated calls reuse it. A grouped call converts several inputs at once: one slot each.
template <typename T>
std::vector<T>& slotBuffer(std::size_t slot)
{
    thread_local std::vector<std::vector<T>> buffers;
    if (buffers.size() <= slot)
        buffers.resize(slot + 1);
    return buffers[slot];
}

// Q8 activations of the current call.
const ActBlockQ8* quantizeInput(const CpuKernels& k, const float* x, std::int64_t tokens, std::int64_t cols,
                                std::size_t slot)
{
    std::vector<ActBlockQ8>& buffer = slotBuffer<ActBlockQ8>(slot);
    const std::int64_t blocks = cols / QK8_0;
    buffer.resize(static_cast<std::size_t>(tokens * blocks));
    for (std::int64_t t = 0; t < tokens; ++t) {
        k.quantizeActivations(x + t * cols, buffer.data() + t * blocks, cols);
    }
    return buffer.data();
}

// Q8_K activations (block_dot.h) of the current call, likewise.
const ActBlockQ8K* quantizeInputQ8K(const CpuKernels& k, const float* x, std::int64_t tokens, std::int64_t cols,
                                    std::size_t slot)
{
    std::vector<ActBlockQ8K>& buffer = slotBuffer<ActBlockQ8K>(slot);
    const std::int64_t blocks = cols / QK_K;
    buffer.resize(static_cast<std::size_t>(tokens * blocks));
    const auto quantize = k.quantizeActivationsQ8K ? k.quantizeActivationsQ8K : quantizeActivationsQ8K;
    for (std::int64_t t = 0; t < tokens; ++t) {
        quantize(x + t * cols, buffer.data() + t * blocks, cols);
    }
    return buffer.data();
}

// The F16 decode input in the order gemmF16Prepared reads (kernels.h), likewise.
const float* prepareF16Input(const CpuKernels& k, const float* x, std::int64_t cols, std::size_t slot)
{
    std::vector<float>& buffer = slotBuffer<float>(slot);
    buffer.resize(static_cast<std::size_t>(cols));
    k.prepareF16Input(x, buffer.data(), cols);
    return buffer.data();
}

// Whether the decode of F16 rows takes the prepared-input kernel.
bool usesPreparedF16(const CpuKernels& k, const WeightMatrix& w, std::int64_t tokens)
{
    return w.type == DType::F16 && w.finiteHalves && tokens == 1 && k.gemmF16Prepared && k.prepareF16Input;
}

// The inputs of one call in each form its matrices need.
struct Inputs {
    Input floats;
    Input q8;
    Input q8k;
    Input f16Decode;
};

// What the matrices of one call need their input as.
struct InputNeeds {
    bool q8 = false;
    bool q8k = false;
    bool preparedF16 = false;

    void add(const CpuKernels& k, const WeightMatrix& w, std::int64_t tokens)
    {
        q8 = q8 || usesQ8Activations(w.type);
        q8k = q8k || usesQ8KActivations(w.type);
        preparedF16 = preparedF16 || usesPreparedF16(k, w, tokens);
    }
};

Inputs prepareInputs(const CpuKernels& k, const float* x, std::int64_t tokens, std::int64_t cols, const InputNeeds& needs,
                     std::size_t slot = 0)
{
    Inputs in;
    in.floats = Input{x, static_cast<std::size_t>(cols) * sizeof(float)};
    if (needs.q8) {
        in.q8.x = quantizeInput(k, x, tokens, cols, slot);
        in.q8.xStride = static_cast<std::size_t>(cols / QK8_0) * sizeof(ActBlockQ8);
    }
    if (needs.q8k) {
        in.q8k.x = quantizeInputQ8K(k, x, tokens, cols, slot);
        in.q8k.xStride = static_cast<std::size_t>(cols / QK_K) * sizeof(ActBlockQ8K);
    }
    if (needs.preparedF16) {
        in.f16Decode = Input{prepareF16Input(k, x, cols, slot), in.floats.xStride};
    }
    return in;
}

} // namespace

WeightMatrix rowsView(const WeightMatrix& w, std::int64_t begin, std::int64_t end)
{
    WeightMatrix view = w;
    view.data = static_cast<const std::uint8_t*>(w.data) + std::size_t(begin) * rowStrideOf(w);
    view.rows = end - begin;
    if (w.packing == Packing::Rows && begin < w.packedRows) {
        view.packed = static_cast<const std::uint8_t*>(w.packed) + std::size_t(begin) * rowBytes(w.type, w.cols);
        view.packedRows = std::min(w.packedRows, end) - begin;
    } else if (w.packing != Packing::None && begin % kQ4x16Rows == 0 && begin < w.packedRows) {
        view.packed = static_cast<const std::uint8_t*>(w.packed) + std::size_t(begin / kQ4x16Rows) * packedGroupBytes(w.packing, w.cols);
        view.packedRows = std::min(w.packedRows, end) - begin;
    } else {
        view.packed = nullptr;
        view.packing = Packing::None;
        view.packedRows = 0;
    }
    return view;
}

namespace {

// One weight matrix of a (possibly shared) call, with its place in the concatenated row space.
struct Part {
    GemmFn gemm = nullptr;
    GemmArgs args;
    // The packed copy of rows [0, packedRows), when the kernels have a kernel for its layout.
    GemmFn packedGemm = nullptr;
    GemmArgs packedArgs;
    std::int64_t packedRows = 0;
    // Or, for a prompt over rows without that copy: their type, whose groups are packed as used
    // (packedArgs then describes one group at a time).
    DType repackType = DType::F32;
    bool repack = false;
    std::int64_t firstRow = 0; // in the concatenation of all parts
    std::int64_t rows = 0;
    std::int64_t tokenBlock = 1;
};

void runTokenBlocks(GemmFn gemm, const GemmArgs& a, std::int64_t tokenBlock, std::int64_t rowBegin,
                    std::int64_t rowEnd)
{
    if (rowBegin >= rowEnd) {
        return;
    }
    if (a.tokens <= tokenBlock) {
        gemm(a, rowBegin, rowEnd);
        return;
    }
    for (std::int64_t t = 0; t < a.tokens; t += tokenBlock) {
        GemmArgs block = a;
        block.x = static_cast<const std::uint8_t*>(a.x) + static_cast<std::size_t>(t) * a.xStride;
        block.y = a.y + t * a.yStride;
        block.tokens = std::min(tokenBlock, a.tokens - t);
        gemm(block, rowBegin, rowEnd);
    }
}

// Rows [rowBegin, rowEnd) of @p part packed a group at a time into this thread's buffer, each
// group then run over all of the call's tokens. While the tiles work on a group, the next
// group's rows come into L2: packing them from memory ran at 9 GB/s on one core (Zen 4, 16 rows
// of 2.3 KiB 6.9 KiB apart), prefetched at 14.
void runRepackedRows(const Part& part, std::int64_t rowBegin, std::int64_t rowEnd)
{
    thread_local std::vector<std::uint8_t, AlignedAllocator<std::uint8_t>> buffer;
    if (buffer.size() < part.packedArgs.wStride)
        buffer.resize(part.packedArgs.wStride);
    WeightMatrix rows{part.repackType, part.args.w, part.rows, part.args.cols};
    rows.rowStride = part.args.wStride;
    GemmArgs group = part.packedArgs;
    group.w = buffer.data();
    const auto* first = static_cast<const std::uint8_t*>(part.args.w);
    const std::size_t usedBytes = hearth::rowBytes(part.repackType, part.args.cols);
    const std::int64_t groupEnd = rowEnd / kQ4x16Rows;
    for (std::int64_t g = rowBegin / kQ4x16Rows; g < groupEnd; ++g) {
        packInterleaved(rows, g, g + 1, buffer.data());
        for (std::int64_t r = 0; g + 1 < groupEnd && r < kQ4x16Rows; ++r)
            prefetchBytes(first + std::size_t((g + 1) * kQ4x16Rows + r) * part.args.wStride, usedBytes);
        group.y = part.args.y + g * kQ4x16Rows;
        runTokenBlocks(part.packedGemm, group, part.tokenBlock, 0, kQ4x16Rows);
    }
}

void runPartRows(const Part& part, std::int64_t rowBegin, std::int64_t rowEnd)
{
    if (part.packedGemm) {
        // Whole packed groups inside the range take the packed kernel; the (rare) ragged edges
        // of a range that does not start or end on a group read the original rows.
        const std::int64_t groupBegin = std::min(part.packedRows, (rowBegin + kQ4x16Rows - 1) / kQ4x16Rows * kQ4x16Rows);
        const std::int64_t groupEnd = std::max(groupBegin, std::min(part.packedRows, rowEnd) / kQ4x16Rows * kQ4x16Rows);
        if (groupBegin < groupEnd) {
            runTokenBlocks(part.gemm, part.args, part.tokenBlock, rowBegin, groupBegin);
            if (part.repack)
                runRepackedRows(part, groupBegin, groupEnd);
            else
                runTokenBlocks(part.packedGemm, part.packedArgs, part.tokenBlock, groupBegin, groupEnd);
            runTokenBlocks(part.gemm, part.args, part.tokenBlock, groupEnd, rowEnd);
            return;
        }
    }
    runTokenBlocks(part.gemm, part.args, part.tokenBlock, rowBegin, rowEnd);
}

// Rows [begin, end) of the concatenated row space of @p parts.
void runRows(const Part* parts, int count, std::int64_t begin, std::int64_t end)
{
    for (int i = 0; i < count; ++i) {
        const Part& p = parts[i];
        const std::int64_t lo = std::max(begin, p.firstRow);
        const std::int64_t hi = std::min(end, p.firstRow + p.rows);
        if (lo < hi) {
            runPartRows(p, lo - p.firstRow, hi - p.firstRow);
        }
    }
}

// Chunks handed out per thread and section: enough that a thread slowed by a neighbour on the
// machine (or a late wake-up) leaves its share to the others instead of making everyone wait
// at the end of the section, few enough that each chunk streams hundreds of KiB of weights
// (the hardware prefetcher ramps up once per chunk) and the shared counter stays cold.
constexpr std::int64_t kChunksPerThread = 8;

void runParts(ThreadPool& pool, const Part* parts, int count, std::int64_t totalRows, std::int64_t work)
{
    const int threads = pool.size();
    if (threads == 1 || work < kMinParallelWork) {
        runRows(parts, count, 0, totalRows);
        return;
    }
    const std::int64_t units = (totalRows + kRowAlign - 1) / kRowAlign;
    const std::int64_t chunkUnits = std::max<std::int64_t>(1, units / (threads * kChunksPerThread));
    // Captures one pointer-sized object so std::function does not allocate per call. Every row
    // is computed by exactly one thread with the same kernel, so which thread takes a chunk
    // does not change the result.
    struct Job {
        const Part* parts;
        int count;
        std::int64_t totalRows;
        std::int64_t chunkRows;
        alignas(64) std::atomic<std::int64_t> next{0};
    } job{parts, count, totalRows, chunkUnits * kRowAlign};
    pool.run([&job](int, int) {
        for (;;) {
            const std::int64_t begin = job.next.fetch_add(job.chunkRows, std::memory_order_relaxed);
            if (begin >= job.totalRows) {
                return;
            }
            runRows(job.parts, job.count, begin, std::min(job.totalRows, begin + job.chunkRows));
        }
    });
}

Part makePart(const CpuKernels& k, const WeightMatrix& w, const Inputs& inputs, std::int64_t tokens, float* y,
              std::int64_t firstRow)
{
    Part p;
    const bool preparedF16 = usesPreparedF16(k, w, tokens);
    p.gemm = preparedF16 ? k.gemmF16Prepared : gemmFor(k, w.type);
    const Input& in = usesQ8Activations(w.type)    ? inputs.q8
                      : usesQ8KActivations(w.type) ? inputs.q8k
                      : preparedF16                ? inputs.f16Decode
                                                   : inputs.floats;
    // A copy of the rows as stored reads the same bytes from memory the TLB covers better.
    const bool rowCopy = w.packing == Packing::Rows && w.packed && w.packedRows == w.rows;
    p.args.w = static_cast<const std::uint8_t*>(rowCopy ? w.packed : w.data);
    p.args.wStride = rowStrideOf(w);
    p.args.cols = w.cols;
    p.args.x = in.x;
    p.args.xStride = in.xStride;
    p.args.tokens = tokens;
    p.args.y = y;
    p.args.yStride = w.rows;
    p.args.dot = blockDotFor(k, w.type);
    p.firstRow = firstRow;
    p.rows = w.rows;
    // A multiple of 24 tokens: whole register tiles of 2, 3, 4, 6 and 8 tokens, the sizes the kernels use.
    p.tokenBlock = std::max<std::int64_t>(24, static_cast<std::int64_t>(kTokenBlockBytes / in.xStride) / 24 * 24);
    const GemmFn packedGemm = packedGemmFor(k, w.packing);
    if (packedGemm && w.packed && w.packedRows > 0 && w.packedRows <= w.rows) {
        p.packedGemm = packedGemm;
        p.packedArgs = p.args;
        p.packedArgs.w = static_cast<const std::uint8_t*>(w.packed);
        p.packedArgs.wStride = packedGroupBytes(w.packing, w.cols);
        p.packedRows = w.packedRows / kQ4x16Rows * kQ4x16Rows;
        return p;
    }
    if (packsAsUsed(k, w, tokens)) {
        const Packing layout = interleavedPacking(w.type);
        p.packedGemm = packedGemmFor(k, layout);
        p.packedArgs = p.args;
        p.packedArgs.wStride = packedGroupBytes(layout, w.cols);
        p.packedRows = w.rows / kQ4x16Rows * kQ4x16Rows;
        p.repackType = w.type;
        p.repack = true;
    }
    return p;
}

} // namespace

void matmulWith(const CpuKernels& kernels, ThreadPool& pool, const WeightMatrix& w, const float* x,
                std::int64_t tokens, float* y)
{
    if (tokens <= 0 || !y) {
        return;
    }
    if (!isValid(w) || !x) {
        zeroOutput(w, tokens, y);
        return;
    }
    InputNeeds needs;
    needs.add(kernels, w, tokens);
    const Inputs inputs = prepareInputs(kernels, x, tokens, w.cols, needs);
    const Part part = makePart(kernels, w, inputs, tokens, y, 0);
    runParts(pool, &part, 1, w.rows, w.rows * w.cols * tokens);
}

void matmulGroupedWith(const CpuKernels& kernels, ThreadPool& pool, std::span<const MatmulTask> tasks)
{
    // Reused per calling thread: a decoded token allocates nothing once the sizes are known.
    struct Converted {
        const float* x;
        std::int64_t tokens;
        std::int64_t cols;
        InputNeeds needs;
        Inputs inputs;
    };
    thread_local std::vector<Part> parts;
    thread_local std::vector<Converted> converted;
    parts.clear();
    converted.clear();
    std::int64_t totalRows = 0;
    std::int64_t work = 0;
    for (const MatmulTask& task : tasks) {
        if (task.tokens <= 0 || !task.y || !task.w)
            continue;
        const WeightMatrix& w = *task.w;
        if (!isValid(w) || !task.x) {
            zeroOutput(w, task.tokens, task.y);
            continue;
        }
        InputNeeds needs;
        needs.add(kernels, w, task.tokens);
        // Tasks that read the same rows in the same form (the gate and up products of one
        // expert) convert them once.
        auto same = std::find_if(converted.begin(), converted.end(), [&](const Converted& c) {
            return c.x == task.x && c.tokens == task.tokens && c.cols == w.cols && c.needs.q8 == needs.q8
                   && c.needs.q8k == needs.q8k && c.needs.preparedF16 == needs.preparedF16;
        });
        if (same == converted.end()) {
            converted.push_back({task.x, task.tokens, w.cols, needs,
                                 prepareInputs(kernels, task.x, task.tokens, w.cols, needs, converted.size())});
            same = converted.end() - 1;
        }
        parts.push_back(makePart(kernels, w, same->inputs, task.tokens, task.y, totalRows));
        totalRows += w.rows;
        work += w.rows * w.cols * task.tokens;
    }
    if (!parts.empty())
        runParts(pool, parts.data(), int(parts.size()), totalRows, work);
}

void matmulSharedWith(const CpuKernels& kernels, ThreadPool& pool, const WeightMatrix* ws, float* const* ys,
                      int count, const float* x, std::int64_t tokens)
{
    // A grouped call whose tasks share the input, which it then converts once.
    thread_local std::vector<MatmulTask> tasks;
    tasks.clear();
    for (int i = 0; ws && ys && i < count; ++i)
        tasks.push_back({&ws[i], x, tokens, ys[i]});
    matmulGroupedWith(kernels, pool, tasks);
}

void matmul(ThreadPool& pool, const WeightMatrix& w, const float* x, std::int64_t tokens, float* y)
{
    matmulWith(activeKernels(), pool, w, x, tokens, y);
}

void matmulShared(ThreadPool& pool, const WeightMatrix* ws, float* const* ys, int count, const float* x,
                  std::int64_t tokens)
{
    matmulSharedWith(activeKernels(), pool, ws, ys, count, x, tokens);
}

void matmulGrouped(ThreadPool& pool, std::span<const MatmulTask> tasks)
{
    matmulGroupedWith(activeKernels(), pool, tasks);
}

void getRow(const WeightMatrix& w, std::int64_t r, float* out)
{
    if (!out || w.cols <= 0) {
        return;
    }
    if (!isValid(w) || r < 0 || r >= w.rows) {
        std::memset(out, 0, static_cast<std::size_t>(w.cols) * sizeof(float));
        return;
    }
    const std::size_t stride = rowStrideOf(w);
    dequantizeRow(w.type, static_cast<const std::uint8_t*>(w.data) + static_cast<std::size_t>(r) * stride, out, w.cols);
}

} // namespace hearth::cpu
