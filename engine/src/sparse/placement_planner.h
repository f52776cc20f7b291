// SPDX-License-Identifier: MIT
#pragma once

// Decides, for a model shape, its activation statistics and a VRAM budget, which layers' attention
// (with its KV cache) and which FFN neurons live on the GPU, counting every byte the GPU back end
// allocates: weights, KV cache, scratch buffers, the cuBLAS workspace and a reserve for the CUDA
// context.
//
// Placement is the longest prefix of one fixed priority list that fits the budget after the fixed
// costs (reserve + workspace + scratch):
//   1. attention + KV cache of layer 0, 1, ..., N-1
//   2. predictors of every layer, 3. norms of every layer, 4. output matrix
//   5. FFN neuron groups by activation frequency per byte, best first, across all layers.
// Items 1-4 are touched by every token (frequency 1), so the list is ordered by frequency per
// byte throughout, as PowerInfer's order is. Stopping at the first item that does not fit (rather
// than skipping it and trying smaller ones) wastes at most one item of budget but makes the plan
// monotone by construction: the list does not depend on the budget and the fixed costs do not
// either, so a larger budget yields a longer prefix, a superset of the smaller one's placement.
// Groups are small (32 neurons by default) so the waste is small too.
//
// A magnitude-sparse file with the gate screen is placed by neuron too, by how often each neuron
// is kept (its statistics file), a neuron's gate row counting as read for every token.
//
// Dense models (no predictors or no statistics) place whole layers instead, llama.cpp style:
// attention + KV + norms + the whole FFN of layer 0, 1, ..., then the output matrix.
//
// A mixture of experts is placed by its experts, the way sparse models are placed by neurons:
// attention + KV of layer 0, 1, ..., the output matrix, the shared experts (every token runs
// them), then the routed experts by how often the router picks them (per-expert statistics,
// hearth-profile's ffn_expert_freq), most used first across all layers. Without statistics every
// expert counts as equally used, which places them layer by layer (llama.cpp's --n-cpu-moe).
//
// Speed model (decode, memory-bound): per layer, attention reads its weights and the KV cache of
// half the context (the average over a conversation filling it) on its device; the predictor reads
// its weights; then the GPU and CPU compute their FFN neurons at the same time, each reading
// frequency x bytes per neuron: time = max(cpu, gpu). A layer whose work spans both devices pays a
// synchronisation latency. Seconds per token = the sum over layers plus the output matrix.

#include "sparse/activation_stats.h"
#include "sparse/model_shape.h"
#include "sparse/placement_plan.h"

#include <hearth/status.h>

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace hearth::sparse {

constexpr std::uint64_t kMiB = std::uint64_t(1) << 20;
constexpr std::uint64_t kGiB = std::uint64_t(1) << 30;

struct PlannerParams {
    std::uint64_t budgetBytes = 0;
    std::int64_t contextLength = 4096;
    // Tokens per forward pass during prompt processing: scratch buffers scale with it.
    std::int64_t batchSize = 512;
    std::uint64_t reserveBytes = 300 * kMiB;       // CUDA context, module images, allocator slack
    // The CUDA back end's own buffers (cuda_backend.cu): cuBLAS workspace 4 MiB, F16 scratch
    // 16 MiB, the prompt path's dequantized tile 32 MiB.
    std::uint64_t workspaceBytes = 52 * kMiB;
    // Neurons placed together. PowerInfer uses 256 to keep its integer program small; the greedy
    // here is O(groups log groups) once per group size, so Hearth can afford 32: one warp's worth,
    // and a 256-neuron group of a 70B Q4_0 layer is 3.5 MiB that a tight budget would waste.
    std::int64_t groupSize = 32;
    std::uint64_t allocationGranularity = 256;    // cudaMalloc alignment: padding per allocation
    double cpuBandwidthGBs = 20.0;                // measured (cpu/memory_bandwidth.h)
    double gpuBandwidthGBs = 400.0;
    double syncMicroseconds = 15.0;               // per layer split across both devices
    bool dense = false;                           // ignore predictors: whole layers
    bool ffnOnGpu = true;                         // false: --disable-gpu-index
    bool outputOnGpu = true;                      // false: the output matrix stays on the CPU
    // A mixture's experts layer by layer whatever the statistics say (llama.cpp's --n-cpu-moe
    // placement, for comparisons).
    bool expertsByLayer = false;
};

class PlacementPlanner {
public:
    // @p stats may be empty (dense placement); otherwise its layer count and widths must match:
    // n_ff per layer, or, for a mixture of experts, the layer's expert count.
    [[nodiscard]] static Result<PlacementPlanner> create(ModelShape shape, const ActivationStats& stats);

    // Fast: after the first call for a group size, O(layers + placed groups). Not thread-safe
    // (caches the group order); use one planner per thread.
    [[nodiscard]] Result<PlacementPlan> plan(const PlannerParams& params);
    // The same accounting for given FFN hot sets (ascending ids per layer), e.g. from a cached
    // gpuidx file; the fixed items are placed as plan() places them. fits tells whether it holds.
    [[nodiscard]] Result<PlacementPlan> planWithHotSets(const PlannerParams& params,
                                                        const std::vector<std::vector<std::int32_t>>& hotSets) const;

    [[nodiscard]] const ModelShape& shape() const { return m_shape; }
    // Predictors and statistics are present: sparse placement is possible.
    [[nodiscard]] bool sparseCapable() const { return m_sparseCapable; }
    [[nodiscard]] std::uint64_t statsFingerprint() const { return m_statsFingerprint; }

private:
    struct Group {
        std::uint32_t layer;
        std::uint32_t endCount; // the layer's hot count once this group is placed
    };
    struct Walk;

    PlacementPlanner() = default;
    [[nodiscard]] Status checkParams(const PlannerParams& params) const;
    void buildGroupOrder(std::int64_t groupSize);
    [[nodiscard]] PlacementPlan begin(const PlannerParams& params, bool sparse) const;
    void finish(PlacementPlan& plan, const PlannerParams& params) const;
    [[nodiscard]] double frequencySum(std::size_t layer, std::int64_t hotCount) const;
    void buildExpertOrder(bool byLayer);

    ModelShape m_shape;
    bool m_sparseCapable = false;
    std::uint64_t m_statsFingerprint = 0;
    std::vector<std::shared_ptr<const std::vector<std::int32_t>>> m_rankings; // frequency descending
    std::vector<std::vector<double>> m_prefixFrequency;                        // along the ranking, n_ff + 1
    std::vector<std::shared_ptr<const std::vector<float>>> m_frequencies;
    std::int64_t m_groupSize = 0;
    std::vector<Group> m_groups;
    // A mixture's routed experts in placement order ({layer, position in its ranking}); built on
    // first use, for the order asked last.
    std::vector<std::pair<std::uint32_t, std::uint32_t>> m_expertOrder;
    bool m_expertOrderByLayer = false;
};

// One-shot convenience: create + plan.
[[nodiscard]] Result<PlacementPlan> planPlacement(const ModelShape& shape, const ActivationStats& stats,
                                                  const PlannerParams& params);

} // namespace hearth::sparse
