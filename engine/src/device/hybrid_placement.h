// SPDX-License-Identifier: MIT
#pragma once

// Puts a sparse model's hot FFN neurons on a device as the placement planner decides, and copes
// with a device that cannot hold what the plan promised (a free-memory figure that was a lie,
// fragmentation, another program's allocation in between): when an allocation fails, everything
// placed so far is freed and the model is re-planned with a smaller budget (80% of the previous
// one by default), until it fits or nothing is left to place, in which case the FFNs run on the
// CPU alone. Each step is reported in notes; nothing crashes.

#include "device/hybrid_ffn.h"
#include "sparse/placement_planner.h"

#include <hearth/status.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace hearth::device {

struct HybridPlacementOptions {
    double shrinkFactor = 0.8; // budget multiplier after a failed allocation
    int maxAttempts = 16;      // then CPU-only
};

struct HybridPlacement {
    sparse::PlacementPlan plan;                           // the plan that was placed
    std::unique_ptr<HybridFfnScratch> scratch;            // null when nothing is on the device
    std::vector<std::unique_ptr<HybridFfnLayer>> layers;  // one per model layer
    std::vector<std::string> notes;                       // re-planning steps, for the log
    int attempts = 0;
    std::uint64_t budgetBytes = 0;                        // the budget the final plan used

    [[nodiscard]] bool cpuOnly() const { return !scratch; }
};

// @p device may be null (CPU-only). @p params.budgetBytes is the first budget tried. The layer
// weights must outlive the placement, and must match the planner's shape (n_ff per layer).
[[nodiscard]] Result<HybridPlacement> placeHybridFfn(Device* device, sparse::PlacementPlanner& planner,
                                                     sparse::PlannerParams params,
                                                     const std::vector<FfnWeights>& layers,
                                                     const HybridPlacementOptions& options = {});

// The re-planning loop of placeHybridFfn, for FFN layouts that place their layers otherwise
// (falcon's and opt's up-only FFNs): plans for @p params.budgetBytes and calls @p placeOnce with
// the plan; after an OutOfMemory from it, calls @p undo and re-plans with a smaller budget, and
// after options.maxAttempts tries plans nothing on the device. Sets @p result's plan, budget,
// attempts and notes; its scratch and layers are @p placeOnce's to fill.
[[nodiscard]] Status placeWithReplanning(sparse::PlacementPlanner& planner, sparse::PlannerParams params,
                                         const HybridPlacementOptions& options, HybridPlacement& result,
                                         const std::function<Status(const sparse::PlacementPlan&)>& placeOnce,
                                         const std::function<void()>& undo);

} // namespace hearth::device
