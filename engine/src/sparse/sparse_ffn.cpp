// SPDX-License-Identifier: MIT
#include "sparse/sparse_ffn.h"

#include "cpu/block_dot.h"
#include "cpu/thread_pool.h"
#include "sparse/neuron_pack.h"
#include "cpu/prefetch.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <new>

namespace hearth::sparse {

namespace {

std::atomic<std::uint64_t> g_calls{0};
std::atomic<std::uint64_t> g_neurons{0};
std::atomic<std::uint64_t> g_downRows{0};
std::atomic<std::uint64_t> g_bytes{0};

// Cache lines of a coming neuron's rows asked for ahead of time. The hardware prefetcher
// follows a row once it is being read; what it cannot guess is the jump to the next active
// neuron. Measured on the 1.1B Q4_0 shape, 30% of the neurons active, one thread, from DRAM:
// the whole block of the neuron after next into L2 streams 13-14 GB/s against 6 without
// prefetching; into L1 only 6.5 (the miss buffers fill up); 1 to 6 neurons ahead all do
// about the same. The whole block, not just its first 4 KiB: on the 7B Q4_0 shape (6.75 KiB
// per neuron) one thread went from 12.0 to 12.9-13.3 GB/s, the decode of the whole model on two
// threads from 11.8-12.6 to 12.4-13.9 tok/s; F16 1.1B blocks (12 KiB) gained ~5 %.
constexpr int kPrefetchLines = 384;    // fused: the whole block, up to 24 KiB (7B F16)
constexpr int kPrefetchRowLines = 128; // separate: per row, up to 8 KiB
constexpr std::int64_t kPrefetchAhead = 2; // neurons
constexpr std::size_t kLine = 64;
// Each thread's counter lives on its own cache line.
constexpr std::size_t kCounterStride = kLine / sizeof(std::uint64_t);

// What prefetchRows() asks for per neuron, worked out once per call rather than per neuron.
struct PrefetchPlan {
    std::size_t blockLines = 0; // fused layout: lines of the block (without its down row when !down)
    std::size_t rowLines = 0;   // separate matrices: lines per row
    bool down = true;           // the down row is read too (not by activations())
};

PrefetchPlan prefetchPlan(const NeuronWeights& w, bool down = true)
{
    PrefetchPlan plan;
    plan.down = down;
    if (w.gate && w.stride >= w.neuronBytes()) {
        const std::size_t bytes = down ? w.neuronBytes() : 2 * w.rowSize();
        plan.blockLines = std::min<std::size_t>(kPrefetchLines, (bytes + kLine - 1) / kLine);
    } else {
        plan.rowLines = std::min<std::size_t>(kPrefetchRowLines, (w.rowSize() + kLine - 1) / kLine);
    }
    return plan;
}

inline void prefetchRows(const NeuronWeights& w, const PrefetchPlan& plan, std::int64_t neuron)
{
    const std::size_t offset = std::size_t(neuron) * w.stride;
    // Fused: one block, gate then up then down.
    for (std::size_t l = 0; l < plan.blockLines; ++l)
        cpu::prefetchLine(w.gate + offset + l * kLine);
    for (std::size_t l = 0; l < plan.rowLines; ++l) {
        if (w.gate)
            cpu::prefetchLine(w.gate + offset + l * kLine);
        cpu::prefetchLine(w.up + offset + l * kLine);
        if (plan.down)
            cpu::prefetchLine(w.down + offset + l * kLine);
    }
}

inline float activate(NeuronActivation a, float g, float u)
{
    switch (a) {
    case NeuronActivation::ReGlu:
        return g > 0.0f ? g * u : 0.0f;
    case NeuronActivation::DRelu:
        return g > 0.0f && u > 0.0f ? g * u : 0.0f;
    case NeuronActivation::Relu2:
        return g > 0.0f ? g * g * u : 0.0f;
    case NeuronActivation::SwiGlu:
        return g / (1.0f + std::exp(-g)) * u;
    case NeuronActivation::Relu:
        return u > 0.0f ? u : 0.0f;
    case NeuronActivation::GateGiven:
        return g * u; // g: silu(gate) from FfnInput::gateActs
    }
    return 0.0f;
}

// The row kernels for @p w with @p in, or null when @p in lacks the input form they need.
// Interleaved rows take the active ISA's interleaved dot, whatever table the caller chose
// (@p scratch holds the combined table).
const RowKernels* rowKernelsFor(const NeuronKernels& kernels, const NeuronWeights& w, const FfnInput& in,
                                RowKernels& scratch)
{
    const RowKernels* k = kernels.forType(w.type);
    if (!k || !w.valid())
        return nullptr;
    const cpu::ActivationFormat format = neuronInputFormat(w.type);
    if ((format == cpu::ActivationFormat::Q8 && !in.xq) || (format == cpu::ActivationFormat::Q8K && !in.xk)
        || (w.activation == NeuronActivation::GateGiven && !in.gateActs))
        return nullptr;
    if (!w.interleaved)
        return k;
    const RowKernels* best = neuronKernels().forType(w.type);
    if (!in.xi || !best || !best->dot2Interleaved)
        return nullptr;
    scratch = *k;
    scratch.dot2 = best->dot2Interleaved;
    return &scratch;
}

// Token t's input in the form the kernels take.
const void* tokenInput(const NeuronWeights& w, const FfnInput& in, int t)
{
    const std::int64_t nEmbd = w.nEmbd;
    if (w.interleaved)
        return in.xi + std::size_t(t) * std::size_t(nEmbd / kInterleavedElements) * kInterleavedActGroupBytes;
    switch (neuronInputFormat(w.type)) {
    case cpu::ActivationFormat::Q8:
        return in.xq + std::size_t(t) * std::size_t(nEmbd / QK8_0);
    case cpu::ActivationFormat::Q8K:
        return in.xk + std::size_t(t) * std::size_t(nEmbd / cpu::QK_K);
    case cpu::ActivationFormat::Floats:
        break;
    }
    return in.x + std::size_t(t) * std::size_t(nEmbd);
}

// Neuron i's activation for token t of a batch (its input @p x): gate and up rows, or the up
// row with its bias, a given gate and the floor.
inline float neuronActivation(const RowKernels& k, const NeuronWeights& w, const FfnInput& in, const void* x, int t,
                              std::int64_t i)
{
    const std::size_t offset = std::size_t(i) * w.stride;
    if (w.gate) {
        float gu[2];
        k.dot2(w.gate + offset, w.up + offset, x, w.nEmbd, gu);
        return activate(w.activation, gu[0], gu[1]);
    }
    const float g = in.gateActs ? in.gateActs[std::size_t(t) * std::size_t(w.nFf) + std::size_t(i)] : 0.0f;
    const float a = activate(w.activation, g, k.dot1(w.up + offset, x, w.nEmbd) + (w.upBias ? w.upBias[i] : 0.0f));
    return in.activationFloor && std::fabs(a) < in.activationFloor[i] * in.floorScale[t] ? 0.0f : a;
}

} // namespace

FfnTraffic ffnTraffic()
{
    return {g_calls.load(std::memory_order_relaxed), g_neurons.load(std::memory_order_relaxed),
            g_downRows.load(std::memory_order_relaxed), g_bytes.load(std::memory_order_relaxed)};
}

void countFfnTrafficBytes(std::uint64_t bytes)
{
    g_bytes.fetch_add(bytes, std::memory_order_relaxed);
}

void resetFfnTraffic()
{
    g_calls = 0;
    g_neurons = 0;
    g_downRows = 0;
    g_bytes = 0;
}

std::uint64_t accumulateNeurons(const NeuronKernels& kernels, const NeuronWeights& w, const FfnInput& in, int tokens,
                                const std::int32_t* ids, std::int64_t count, const std::uint8_t* mask, float* out,
                                float* acts)
{
    RowKernels scratch = {};
    const RowKernels* k = rowKernelsFor(kernels, w, in, scratch);
    if (!k || count <= 0 || tokens <= 0)
        return 0;
    const PrefetchPlan plan = prefetchPlan(w);
    const std::int64_t nEmbd = w.nEmbd;
    std::uint64_t downRows = 0;
    for (std::int64_t j = 0; j < std::min(count, kPrefetchAhead); ++j)
        prefetchRows(w, plan, ids[j]);
    if (tokens == 1 && !mask) {
        // Decode: down rows go in groups, so the output is loaded and stored once per group of
        // neurons instead of once per neuron (RowKernels::axpyRows).
        const void* x = tokenInput(w, in, 0);
        const void* pending[kAxpyRowsGroup];
        float pendingA[kAxpyRowsGroup];
        int pendingCount = 0;
        const auto addPending = [&] {
            k->axpyRows(out, pendingA, pending, pendingCount, nEmbd);
            pendingCount = 0;
        };
        // Adds neuron i's down row (with the ones before it where it can).
        const auto addDown = [&](std::int64_t i, float a) {
            if (acts)
                acts[i] = a;
            if (a == 0.0f)
                return;
            ++downRows;
            pending[pendingCount] = w.down + std::size_t(i) * w.stride;
            pendingA[pendingCount++] = a;
            if (pendingCount == kAxpyRowsGroup)
                addPending();
        };
        // Up-only neurons (opt, falcon, magnitude-sparse SwiGLU): the up rows of two neurons in one
        // pass, two dot products in flight as a gated neuron's gate and up rows are.
        const auto upActivation = [&](std::int64_t i, float u) {
            const float g = in.gateActs ? in.gateActs[i] : 0.0f;
            const float a = activate(w.activation, g, u + (w.upBias ? w.upBias[i] : 0.0f));
            return in.activationFloor && std::fabs(a) < in.activationFloor[i] * in.floorScale[0] ? 0.0f : a;
        };
        for (std::int64_t j = 0; j < count;) {
            const std::int64_t i = ids[j];
            const std::size_t offset = std::size_t(i) * w.stride;
            if (w.gate) {
                if (j + kPrefetchAhead < count)
                    prefetchRows(w, plan, ids[j + kPrefetchAhead]);
                float gu[2];
                k->dot2(w.gate + offset, w.up + offset, x, nEmbd, gu);
                addDown(i, activate(w.activation, gu[0], gu[1]));
                ++j;
            } else if (j + 1 < count) {
                for (std::int64_t p = j + kPrefetchAhead; p < std::min(count, j + kPrefetchAhead + 2); ++p)
                    prefetchRows(w, plan, ids[p]);
                const std::int64_t i1 = ids[j + 1];
                float u[2];
                k->dot2(w.up + offset, w.up + std::size_t(i1) * w.stride, x, nEmbd, u);
                addDown(i, upActivation(i, u[0]));
                addDown(i1, upActivation(i1, u[1]));
                j += 2;
            } else {
                addDown(i, upActivation(i, k->dot1(w.up + offset, x, nEmbd)));
                ++j;
            }
        }
        if (pendingCount > 0)
            addPending();
        return downRows;
    }
    for (std::int64_t j = 0; j < count; ++j) {
        const std::int64_t i = ids[j];
        if (j + kPrefetchAhead < count)
            prefetchRows(w, plan, ids[j + kPrefetchAhead]);
        const std::uint8_t* down = w.down + std::size_t(i) * w.stride;
        for (int t = 0; t < tokens; ++t) {
            if (mask && !mask[std::size_t(t) * std::size_t(w.nFf) + std::size_t(i)])
                continue;
            const float a = neuronActivation(*k, w, in, tokenInput(w, in, t), t, i);
            if (acts)
                acts[std::size_t(t) * std::size_t(w.nFf) + std::size_t(i)] = a;
            if (a == 0.0f)
                continue;
            k->axpy(out + std::size_t(t) * std::size_t(nEmbd), a, down, nEmbd);
            ++downRows;
        }
    }
    return downRows;
}

void computeActivations(const NeuronKernels& kernels, const NeuronWeights& w, const FfnInput& in, int tokens,
                        const std::int32_t* ids, std::int64_t count, const std::uint8_t* mask, float* acts)
{
    RowKernels scratch = {};
    const RowKernels* k = rowKernelsFor(kernels, w, in, scratch);
    if (!k || count <= 0 || tokens <= 0)
        return;
    const PrefetchPlan plan = prefetchPlan(w, false);
    for (std::int64_t j = 0; j < std::min(count, kPrefetchAhead); ++j)
        prefetchRows(w, plan, ids[j]);
    // Neuron by neuron, so that its rows stay in L1 for every token that needs it.
    for (std::int64_t j = 0; j < count; ++j) {
        const std::int64_t i = ids[j];
        if (j + kPrefetchAhead < count)
            prefetchRows(w, plan, ids[j + kPrefetchAhead]);
        for (int t = 0; t < tokens; ++t) {
            const std::size_t at = std::size_t(t) * std::size_t(w.nFf) + std::size_t(i);
            if (!mask || mask[at])
                acts[at] = neuronActivation(*k, w, in, tokenInput(w, in, t), t, i);
        }
    }
}

SparseFfn::~SparseFfn() = default;

Result<std::unique_ptr<SparseFfn>> SparseFfn::create(std::int64_t nEmbd, int maxTokens, int threads)
{
    if (nEmbd <= 0 || maxTokens <= 0 || threads <= 0)
        return Status(ErrorCode::InvalidArgument, "sparse FFN sizes must be positive");
    std::unique_ptr<SparseFfn> f(new SparseFfn());
    f->m_nEmbd = nEmbd;
    f->m_maxTokens = maxTokens;
    f->m_threads = threads;
    try {
        f->m_xq.resize(std::size_t(maxTokens) * std::size_t(nEmbd / QK8_0 + 1));
        if (nEmbd % cpu::QK_K == 0)
            f->m_xk.resize(std::size_t(maxTokens) * std::size_t(nEmbd / cpu::QK_K));
        if (nEmbd % kInterleavedElements == 0)
            f->m_xi.resize(std::size_t(maxTokens) * std::size_t(nEmbd / kInterleavedElements) * kInterleavedActGroupBytes);
        f->m_partial.resize(std::size_t(threads) * std::size_t(maxTokens) * std::size_t(nEmbd));
        f->m_downRows.resize(std::size_t(threads) * kCounterStride);
    } catch (const std::bad_alloc&) {
        return Status(ErrorCode::OutOfMemory, "not enough memory for the sparse FFN's buffers");
    }
    return f;
}

FfnInput SparseFfn::prepareInput(DType type, const float* x, int tokens)
{
    FfnInput in{x, nullptr};
    const cpu::CpuKernels& k = cpu::activeKernels();
    tokens = std::min(tokens, m_maxTokens);
    const cpu::ActivationFormat format = neuronInputFormat(type);
    if (format == cpu::ActivationFormat::Q8K && !m_xk.empty()) {
        const std::int64_t superBlocks = m_nEmbd / cpu::QK_K;
        const auto quantize = k.quantizeActivationsQ8K ? k.quantizeActivationsQ8K : cpu::quantizeActivationsQ8K;
        for (int t = 0; t < tokens; ++t)
            quantize(x + std::size_t(t) * std::size_t(m_nEmbd),
                                     m_xk.data() + std::size_t(t) * std::size_t(superBlocks), m_nEmbd);
        in.xk = m_xk.data();
        return in;
    }
    if (format != cpu::ActivationFormat::Q8 || m_nEmbd % QK8_0 != 0)
        return in;
    const std::int64_t blocks = m_nEmbd / QK8_0;
    for (int t = 0; t < tokens; ++t)
        k.quantizeActivations(x + std::size_t(t) * std::size_t(m_nEmbd), m_xq.data() + std::size_t(t) * std::size_t(blocks),
                              m_nEmbd);
    in.xq = m_xq.data();
    if (type == DType::Q4_0 && !m_xi.empty()) {
        const std::size_t perToken = std::size_t(m_nEmbd / kInterleavedElements) * kInterleavedActGroupBytes;
        for (int t = 0; t < tokens; ++t)
            packInterleavedActivation(m_xq.data() + std::size_t(t) * std::size_t(blocks), m_nEmbd, m_xi.data() + std::size_t(t) * perToken);
        in.xi = m_xi.data();
    }
    return in;
}

void SparseFfn::run(cpu::ThreadPool& pool, const NeuronWeights& w, const FfnInput& in, int tokens,
                    const std::int32_t* ids, std::int64_t count, const std::uint8_t* mask, float* out, float* acts)
{
    const std::size_t n = std::size_t(tokens) * std::size_t(m_nEmbd);
    if (tokens <= 0 || tokens > m_maxTokens || w.nEmbd != m_nEmbd || pool.size() > m_threads) {
        if (tokens > 0 && out)
            std::memset(out, 0, std::size_t(tokens) * std::size_t(w.nEmbd) * sizeof(float));
        return;
    }
    m_job = {&w, &in, tokens, ids, count, mask, out, acts};
    // Thread 0 adds straight into out; the others into their own buffers, summed below in
    // thread order. Neurons have the same size, so equal counts are equal bytes.
    pool.run([this](int thread, int threadCount) {
        const Job& job = m_job;
        float* target = thread == 0 ? job.out : m_partial.data() + std::size_t(thread) * std::size_t(m_maxTokens) * std::size_t(m_nEmbd);
        std::memset(target, 0, std::size_t(job.tokens) * std::size_t(m_nEmbd) * sizeof(float));
        const std::int64_t begin = job.count * thread / threadCount;
        const std::int64_t end = job.count * (thread + 1) / threadCount;
        m_downRows[std::size_t(thread) * kCounterStride] =
            accumulateNeurons(*m_kernels, *job.w, *job.in, job.tokens, job.ids + begin, end - begin, job.mask, target,
                              job.acts);
    });
    std::uint64_t downRows = m_downRows[0];
    for (int t = 1; t < pool.size(); ++t) {
        const float* partial = m_partial.data() + std::size_t(t) * std::size_t(m_maxTokens) * std::size_t(m_nEmbd);
        for (std::size_t i = 0; i < n; ++i)
            out[i] += partial[i];
        downRows += m_downRows[std::size_t(t) * kCounterStride];
    }
    // Traffic: gate/up rows of every listed neuron (once per call: the rows stay in cache across
    // the tokens of a batch), down rows as read.
    const std::uint64_t row = w.rowSize();
    const std::uint64_t inputRows = w.gated() ? 2 : 1;
    g_calls.fetch_add(1, std::memory_order_relaxed);
    g_neurons.fetch_add(std::uint64_t(std::max<std::int64_t>(count, 0)), std::memory_order_relaxed);
    g_downRows.fetch_add(downRows, std::memory_order_relaxed);
    g_bytes.fetch_add(std::uint64_t(std::max<std::int64_t>(count, 0)) * inputRows * row
                          + std::min<std::uint64_t>(downRows, std::uint64_t(std::max<std::int64_t>(count, 0))) * row,
                      std::memory_order_relaxed);
}

void SparseFfn::activations(cpu::ThreadPool& pool, const NeuronWeights& w, const FfnInput& in, int tokens,
                            const std::int32_t* ids, std::int64_t count, const std::uint8_t* mask, float* acts)
{
    if (tokens <= 0 || tokens > m_maxTokens || w.nEmbd != m_nEmbd || pool.size() > m_threads)
        return;
    m_job = {&w, &in, tokens, ids, count, mask, nullptr, acts};
    pool.parallelFor(tokens, [this](std::int64_t begin, std::int64_t end, int) {
        std::fill(m_job.acts + std::size_t(begin) * std::size_t(m_job.w->nFf),
                  m_job.acts + std::size_t(end) * std::size_t(m_job.w->nFf), 0.0f);
    });
    pool.run([this](int thread, int threadCount) {
        const Job& job = m_job;
        const std::int64_t begin = job.count * thread / threadCount;
        const std::int64_t end = job.count * (thread + 1) / threadCount;
        computeActivations(*m_kernels, *job.w, *job.in, job.tokens, job.ids + begin, end - begin, job.mask, job.acts);
    });
    g_calls.fetch_add(1, std::memory_order_relaxed);
    g_neurons.fetch_add(std::uint64_t(std::max<std::int64_t>(count, 0)), std::memory_order_relaxed);
    g_bytes.fetch_add(std::uint64_t(std::max<std::int64_t>(count, 0)) * (w.gated() ? 2 : 1) * w.rowSize(),
                      std::memory_order_relaxed);
}

} // namespace hearth::sparse
