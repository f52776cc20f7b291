// SPDX-License-Identifier: MIT
#pragma once

// The planner's answer: where each layer's attention and FFN neurons live, every byte the GPU
// will hold by kind, and the speed that placement should reach.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace hearth::sparse {

// GPU memory by kind. Weights are split so the UI can show a breakdown; `ffn` includes the
// per-layer index of hot neuron ids the kernels read, `padding` the allocation rounding.
struct GpuBytes {
    std::uint64_t attention = 0;
    std::uint64_t predictors = 0;
    std::uint64_t norms = 0;
    std::uint64_t output = 0;
    std::uint64_t ffn = 0;
    std::uint64_t padding = 0;
    std::uint64_t kvCache = 0;
    std::uint64_t scratch = 0;
    std::uint64_t workspace = 0;
    std::uint64_t reserve = 0;

    [[nodiscard]] std::uint64_t weights() const { return attention + predictors + norms + output + ffn + padding; }
    [[nodiscard]] std::uint64_t total() const { return weights() + kvCache + scratch + workspace + reserve; }
};

struct LayerPlacement {
    bool attentionOnGpu = false; // with its KV cache
    bool predictorOnGpu = false;
    bool normsOnGpu = false;
    std::int64_t nFF = 0;
    std::int64_t hotCount = 0;   // FFN neurons on the GPU
    // Neurons in placement priority order; the hot set is its first hotCount entries. Shared
    // between plans of the same planner, so re-planning on every slider step copies nothing.
    std::shared_ptr<const std::vector<std::int32_t>> ranking;
    // A mixture of experts: its routed experts in placement order (the most used first), the
    // first hotExperts of them on the GPU, and whether its shared expert is there too. hotCount
    // then counts their neurons.
    std::int64_t expertCount = 0;
    std::int64_t hotExperts = 0;
    bool sharedExpertOnGpu = false;
    std::shared_ptr<const std::vector<std::int32_t>> expertRanking;
    // Expected share of this layer's neuron activations that the GPU computes, in [0, 1].
    double gpuActivationShare = 0;
    GpuBytes bytes; // this layer's part (attention, kvCache, predictors, norms, ffn, padding)

    // Ids of the neurons on the GPU, ascending (PowerInfer's gpu_bucket).
    [[nodiscard]] std::vector<std::int32_t> hotNeurons() const;
    // n_ff flags, 1 = on the GPU (PowerInfer's gpu_idx).
    [[nodiscard]] std::vector<std::int32_t> gpuFlags() const;
    // Ids of the routed experts on the GPU, ascending.
    [[nodiscard]] std::vector<std::int32_t> gpuExperts() const;
};

struct PlacementPlan {
    // Sparse: predictors pick neurons, hot ones on the GPU. Dense: whole layers, as llama.cpp;
    // for a mixture of experts, attention by layer and then experts, the most used first.
    bool sparse = false;
    std::vector<LayerPlacement> layers;
    bool outputOnGpu = false;
    GpuBytes gpu;                  // totals, all layers plus global buffers
    std::uint64_t budgetBytes = 0;
    // The GPU total is within the budget. Always true for plan(); a placement read from a cache
    // file can exceed a smaller budget.
    bool fits = true;
    // What stopped the placement (or why nothing went to the GPU); empty when everything fits.
    std::string limit;
    // Decode estimate from bytes touched per token (see PlacementPlanner for the model).
    double tokensPerSecond = 0;
    double cpuBytesPerToken = 0;
    double gpuBytesPerToken = 0;
    double cpuBandwidthGBs = 0;
    double gpuBandwidthGBs = 0;

    [[nodiscard]] bool usesGpu() const { return gpu.total() > 0; }
    [[nodiscard]] std::int64_t attentionLayersOnGpu() const;
    [[nodiscard]] std::int64_t hotNeuronCount() const;
    [[nodiscard]] std::int64_t neuronCount() const;
    [[nodiscard]] std::int64_t hotExpertCount() const;
    // FFN bytes on the GPU, as PowerInfer's split.vram_capacity counts them.
    [[nodiscard]] std::uint64_t ffnCapacityBytes() const { return gpu.ffn; }
    // A few lines for logs and tooltips (not translated: the app formats its own from the fields).
    [[nodiscard]] std::string summary() const;
};

} // namespace hearth::sparse
