// SPDX-License-Identifier: MIT
#pragma once

// PowerInfer's cached neuron placement, "<model>.generated.gpuidx": a GGUF file with architecture
// "generic.gpu_index", keys "generic.gpu_index.block_count" and "split.vram_capacity" (bytes of
// FFN neurons on the GPU) and two I32 tensors per layer: "blk.N.gpu_idx" (n_ff flags, 1 = on the
// GPU) and "blk.N.gpu_bucket" (ascending ids of the neurons on the GPU).
//
// Hearth adds "hearth.gpu_index.*" keys describing what the placement was computed for (model
// size and modification time, budget, context, batch, group size, statistics) so a stale file is
// noticed and recomputed. A file without them (written by PowerInfer) is read, but not trusted
// for planning: PowerInfer's capacity ignores scratch buffers.

#include "sparse/placement_planner.h"

#include <hearth/status.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hearth::sparse {

constexpr std::uint32_t kGpuIndexVersion = 1;

struct GpuIndexKey {
    std::uint32_t version = kGpuIndexVersion; // of the planner's rules
    std::uint64_t modelSize = 0;
    std::uint64_t modelMtime = 0;             // file clock ticks, compared bit for bit
    std::uint64_t budgetBytes = 0;
    std::uint64_t contextLength = 0;
    std::uint64_t batchSize = 0;
    std::uint64_t groupSize = 0;
    std::uint64_t statsFingerprint = 0;
    bool operator==(const GpuIndexKey&) const = default;
};

struct GpuIndex {
    std::uint64_t vramCapacity = 0;
    std::vector<std::int64_t> nFF;                       // per layer
    std::vector<std::vector<std::int32_t>> hotNeurons;  // per layer, ascending
    std::optional<GpuIndexKey> key;                      // absent in files Hearth did not write
};

[[nodiscard]] std::string gpuIndexPath(const std::string& modelPath);

// The key for planning @p modelPath with @p params (stats from PlacementPlanner::statsFingerprint).
[[nodiscard]] Result<GpuIndexKey> gpuIndexKey(const std::string& modelPath, const PlannerParams& params,
                                              std::uint64_t statsFingerprint);

[[nodiscard]] GpuIndex gpuIndexFromPlan(const PlacementPlan& plan, std::optional<GpuIndexKey> key);

// Written to a temporary file and renamed, so a crash never leaves a half-written cache.
[[nodiscard]] Status writeGpuIndex(const std::string& path, const GpuIndex& index);
// Validates everything: flags and bucket must agree, ids ascending and in range.
[[nodiscard]] Result<GpuIndex> readGpuIndex(const std::string& path);

// How the cache is used: --reset-gpu-index recomputes and rewrites it, --disable-gpu-index keeps
// every FFN neuron off the GPU (attention still goes there) and leaves the file alone.
enum class GpuIndexMode { Use, Reset, Disable };

struct CachedPlacement {
    PlacementPlan plan;
    bool fromCache = false;
    bool cacheWritten = false;
    std::string note; // why the cache was not used, or why writing it failed; empty when all went well
};

// Plans with the cache next to @p modelPath: a valid cache (same key, fits the budget) supplies
// the neuron placement; otherwise the plan is computed and the cache (re)written. Failing to
// write the cache (read-only folder) is not an error: the note says so. Meant for loading a model;
// a budget slider calls PlacementPlanner::plan() directly and touches no file.
[[nodiscard]] Result<CachedPlacement> planWithGpuIndex(PlacementPlanner& planner, PlannerParams params,
                                                       const std::string& modelPath, GpuIndexMode mode);

} // namespace hearth::sparse
