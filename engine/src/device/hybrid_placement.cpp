// SPDX-License-Identifier: MIT
#include "device/hybrid_placement.h"

#include "device/byte_format.h"
#include "sparse/scratch_layout.h"

#include <algorithm>
#include <cstdint>

namespace hearth::device {

namespace {

// Builds every layer for @p plan, with scratch for @p batchSize tokens of a prompt (at most
// sparse::kHybridFfnRows at once); OutOfMemory from the device comes back as is.
Status placeOnce(Device* device, const sparse::PlacementPlan& plan, std::int64_t batchSize,
                 const std::vector<FfnWeights>& layers, HybridPlacement& out)
{
    std::int64_t maxHot = 0;
    for (const sparse::LayerPlacement& lp : plan.layers)
        maxHot = std::max(maxHot, lp.hotCount);
    const bool useDevice = device && maxHot > 0;
    if (useDevice) {
        const std::int64_t rows = std::clamp<std::int64_t>(batchSize, 1, sparse::kHybridFfnRows);
        auto scratch = HybridFfnScratch::create(*device, layers.front().nEmbd(), maxHot, rows);
        if (!scratch)
            return scratch.status();
        out.scratch = std::move(*scratch);
    }
    for (std::size_t l = 0; l < layers.size(); ++l) {
        auto layer = HybridFfnLayer::create(useDevice ? device : nullptr, out.scratch.get(), layers[l],
                                            useDevice ? plan.layers[l].hotNeurons() : std::vector<std::int32_t>());
        if (!layer)
            return layer.status();
        out.layers.push_back(std::move(*layer));
    }
    return {};
}

void clearPlacement(HybridPlacement& p)
{
    p.layers.clear(); // layers first: they use the scratch
    p.scratch.reset();
}

} // namespace

Result<HybridPlacement> placeHybridFfn(Device* device, sparse::PlacementPlanner& planner, sparse::PlannerParams params,
                                       const std::vector<FfnWeights>& layers, const HybridPlacementOptions& options)
{
    if (layers.empty())
        return Status(ErrorCode::InvalidArgument, "no FFN layers to place");
    if (layers.size() != planner.shape().layers.size())
        return Status(ErrorCode::InvalidArgument, "the planner's model has a different number of layers");
    for (std::size_t l = 0; l < layers.size(); ++l) {
        HEARTH_TRY(layers[l].validate());
        if (layers[l].nFF() != planner.shape().layers[l].nFF || layers[l].nEmbd() != layers.front().nEmbd())
            return Status(ErrorCode::InvalidArgument, "layer " + std::to_string(l) + "'s FFN differs from the planned shape");
    }

    HybridPlacement result;
    if (!device)
        params.budgetBytes = 0;
    HEARTH_TRY(placeWithReplanning(
        planner, params, options, result,
        [&](const sparse::PlacementPlan& plan) { return placeOnce(device, plan, params.batchSize, layers, result); },
        [&] { clearPlacement(result); }));
    return result;
}

Status placeWithReplanning(sparse::PlacementPlanner& planner, sparse::PlannerParams params,
                           const HybridPlacementOptions& options, HybridPlacement& result,
                           const std::function<Status(const sparse::PlacementPlan&)>& placeOnce,
                           const std::function<void()>& undo)
{
    if (!(options.shrinkFactor > 0.0 && options.shrinkFactor < 1.0) || options.maxAttempts < 1)
        return Status(ErrorCode::InvalidArgument, "bad re-planning options");
    for (int attempt = 1;; ++attempt) {
        result.attempts = attempt;
        const bool last = attempt >= options.maxAttempts || params.budgetBytes == 0;
        if (attempt >= options.maxAttempts && params.budgetBytes != 0) {
            result.notes.push_back("giving up on the device after " + std::to_string(attempt - 1)
                                   + " failed placements: the FFNs run on the CPU");
            params.budgetBytes = 0;
        }
        auto plan = planner.plan(params);
        if (!plan)
            return plan.status();
        result.plan = std::move(*plan);
        result.budgetBytes = params.budgetBytes;
        const Status placed = placeOnce(result.plan);
        if (placed.ok())
            return {};
        undo();
        if (placed.code() != ErrorCode::OutOfMemory || last)
            return placed;
        const auto smaller = std::uint64_t(double(params.budgetBytes) * options.shrinkFactor);
        result.notes.push_back("placing the plan for a budget of " + formatBytes(params.budgetBytes)
                               + " failed (" + placed.message() + "); re-planning with " + formatBytes(smaller));
        params.budgetBytes = smaller;
    }
}

} // namespace hearth::device
