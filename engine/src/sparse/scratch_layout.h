// SPDX-License-Identifier: MIT
#pragma once

// The GPU scratch (activation) buffers of one forward pass, sized once for the whole model. The
// device parts allocate no more than this function returns, so the planner's budget and the
// real allocation cannot drift apart; change both together.

#include "sparse/model_shape.h"

#include <cstdint>

namespace hearth::sparse {

// Rows of whole-layer offload's work buffers (device::DenseOffload): past a few dozen rows a
// larger batch buys little on a GPU and would take budget from whole layers.
constexpr std::int64_t kDenseOffloadRows = 32;
// Rows of the output head's input and logits on the device (device::OutputHead): a decoded token
// needs one, perplexity's every row comes in slices of this many.
constexpr std::int64_t kOutputHeadRows = 8;
// Rows of a batch a mixture's device experts take at once (device::DeviceExperts), and the
// batch rows of the attention those sessions run on the device (HybridDeviceLayers).
constexpr std::int64_t kExpertRows = 64;
// Rows of a prompt the hybrid FFN's device part takes at once (device::HybridFfnScratch).
constexpr std::int64_t kHybridFfnRows = 64;
constexpr std::int64_t kDeviceAttentionRows = 16;

// Device bytes of the output head's two buffers (kOutputHeadRows rows of n_embd and of the
// vocabulary); the planner charges them with the output matrix.
[[nodiscard]] std::uint64_t outputHeadScratchBytes(const ModelShape& shape);

struct ScratchLayout {
    std::uint64_t activations = 0;     // residual, norm output, q, k, v, attention output, FFN out
    std::uint64_t ffnIntermediate = 0; // gate and up activations of the widest FFN
    std::uint64_t predictor = 0;       // predictor hidden layer, logits, active-neuron index list
    std::uint64_t attentionScores = 0; // batch x heads x context (no fused attention kernel)
    std::uint64_t logits = 0;          // batch x vocabulary
    std::uint64_t hostExchange = 0;    // the CPU's partial FFN output, uploaded per layer
    std::uint64_t padding = 0;         // each buffer rounded up to the allocation granularity

    [[nodiscard]] std::uint64_t total() const;
};

// Every scratch buffer is F32 (indices I32) and reused by every layer. Predictor buffers exist
// only for a sparse placement of a model that has predictors. A dense placement is whole-layer
// offload: kDenseOffloadRows rows at most and no logits (the output head has its own,
// outputHeadScratchBytes()). A mixture of experts, whatever @p sparse says, has the device
// attention's buffers and its experts' (kExpertRows rows of the widest expert).
// @p granularity: what each allocation may be rounded up by (0: nothing counted).
[[nodiscard]] ScratchLayout scratchLayout(const ModelShape& shape, std::int64_t contextLength, std::int64_t batchSize,
                                          bool sparse, std::uint64_t granularity = 0);

} // namespace hearth::sparse
