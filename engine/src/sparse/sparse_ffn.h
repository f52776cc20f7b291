// SPDX-License-Identifier: MIT
#pragma once

// The FFN of one layer computed over a chosen set of neurons only: the CPU half of sparse
// inference. The forward pass calls it with the neurons the predictor expects to fire; the
// hybrid executor calls it with the cold ones while the GPU computes the hot ones.
//
// Per token the input is quantized once (quantized weights use integer dots), the active
// neurons are split over the threads in contiguous runs of equal bytes, each thread adds its
// neurons' down rows into its own buffer, and the buffers are summed in thread order: no races,
// and for a fixed thread count the result is the same on every run. A neuron whose activation
// comes out exactly zero (ReLU) skips its down row. Nothing is allocated after create().

#include "cpu/kernels.h"
#include "sparse/neuron_kernels.h"
#include "sparse/neuron_weights.h"

#include <hearth/status.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

namespace hearth::cpu {
class ThreadPool;
}

namespace hearth::sparse {

// Bytes and neurons the sparse kernels touched, for benchmarks (relaxed counters, per process):
// the sparse FFN's neurons, and the rows a decoded token's down projection and input-major
// products read (sparse::DownProjection).
struct FfnTraffic {
    std::uint64_t calls = 0;        // layer evaluations
    std::uint64_t neurons = 0;      // (token, neuron) pairs whose gate/up rows were read
    std::uint64_t downRows = 0;     // down rows read (activation non-zero)
    std::uint64_t bytes = 0;        // weight bytes read by the FFN (predictors not included)
};
[[nodiscard]] FfnTraffic ffnTraffic();
void resetFfnTraffic();
// Adds @p bytes of weights read outside SparseFfn.
void countFfnTrafficBytes(std::uint64_t bytes);

// A token's FFN input in the forms the kernels need: the normalized floats, and their Q8 or
// Q8_K blocks when the weights are quantized (made by prepareInput).
struct FfnInput {
    const float* x = nullptr;          // tokens x nEmbd
    const cpu::ActBlockQ8* xq = nullptr; // tokens x nEmbd / 32 (Q4_0, Q8_0 weights), or null
    const std::uint8_t* xi = nullptr;     // interleaved form (neuron_pack.h), or null
    const cpu::ActBlockQ8K* xk = nullptr; // tokens x nEmbd / 256 (K-quant weights), or null
    // NeuronActivation::GateGiven: tokens x nFf values of silu(gate), computed beforehand, and
    // optionally a floor: neuron i's activation of token t counts as zero (its down row unread)
    // when its magnitude is below activationFloor[i] * floorScale[t].
    const float* gateActs = nullptr;
    const float* activationFloor = nullptr; // nFf
    const float* floorScale = nullptr;      // tokens
};

// Single-threaded core, for callers with their own threads (the hybrid executor): adds to
// out[t * nEmbd ...] the contribution of neurons ids[0..count) for each of @p tokens tokens.
// @p mask (optional, tokens x nFf bytes) limits neuron i of token t to mask[t * nFf + i] != 0.
// ids must be valid neuron indices (< w.nFf). @p acts (optional, tokens x nFf) receives the
// activation of every neuron computed (others are left alone). Returns the down rows read.
std::uint64_t accumulateNeurons(const NeuronKernels& kernels, const NeuronWeights& w, const FfnInput& in,
                                int tokens, const std::int32_t* ids, std::int64_t count, const std::uint8_t* mask,
                                float* out, float* acts = nullptr);

// Like accumulateNeurons, but writes each (token, neuron) pair's activation to acts (tokens x
// w.nFf) and adds no down row: a prompt's down projection then goes through DownProjection.
// Entries of pairs not computed are left alone.
void computeActivations(const NeuronKernels& kernels, const NeuronWeights& w, const FfnInput& in, int tokens,
                        const std::int32_t* ids, std::int64_t count, const std::uint8_t* mask, float* acts);

class SparseFfn {
public:
    // Buffers for up to @p maxTokens tokens of @p nEmbd and @p threads threads.
    static Result<std::unique_ptr<SparseFfn>> create(std::int64_t nEmbd, int maxTokens, int threads);
    ~SparseFfn();

    // Quantizes @p x (tokens x nEmbd floats) for @p type's integer dots (neuronInputFormat);
    // the FfnInput stays valid until the next call. Float types need nothing and get x back.
    [[nodiscard]] FfnInput prepareInput(DType type, const float* x, int tokens);

    // out (tokens x nEmbd) = FFN of @p in over ids[0..count) (masked per token by @p mask as in
    // accumulateNeurons). Uses every thread of @p pool (its size must not exceed create()'s).
    void run(cpu::ThreadPool& pool, const NeuronWeights& w, const FfnInput& in, int tokens, const std::int32_t* ids,
             std::int64_t count, const std::uint8_t* mask, float* out, float* acts = nullptr);

    // A prompt's first half: acts (tokens x w.nFf) = each token's activations of the neurons
    // ids[0..count) (masked as in run()), zero for every other neuron. Its down projection is
    // left to the caller: sparse::DownProjection adds a token's few non-zero rows from a list, or
    // many through integer products, where run() adds each pair's down row into its token's
    // output, a round trip through that output per pair.
    void activations(cpu::ThreadPool& pool, const NeuronWeights& w, const FfnInput& in, int tokens,
                     const std::int32_t* ids, std::int64_t count, const std::uint8_t* mask, float* acts);

    // Kernel table override for tests (null: the active ISA's).
    void setKernels(const NeuronKernels* kernels) { m_kernels = kernels ? kernels : &neuronKernels(); }

private:
    SparseFfn() = default;

    const NeuronKernels* m_kernels = &neuronKernels();
    std::int64_t m_nEmbd = 0;
    int m_maxTokens = 0;
    int m_threads = 0;
    std::vector<cpu::ActBlockQ8> m_xq;  // maxTokens x nEmbd / 32
    std::vector<cpu::ActBlockQ8K> m_xk; // maxTokens x nEmbd / 256
    std::vector<std::uint8_t> m_xi;     // maxTokens x interleaved activation bytes
    std::vector<float> m_partial;       // threads x maxTokens x nEmbd
    std::vector<std::uint64_t> m_downRows; // per thread, padded to a cache line each

    // The call in flight, read by the worker threads (captured by pointer only).
    struct Job {
        const NeuronWeights* w;
        const FfnInput* in;
        int tokens;
        const std::int32_t* ids;
        std::int64_t count;
        const std::uint8_t* mask;
        float* out;
        float* acts;
    };
    Job m_job{};
};

} // namespace hearth::sparse
