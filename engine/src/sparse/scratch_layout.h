// SPDX-License-Identifier: MIT
#pragma once

// The GPU scratch (activation) buffers of one forward pass, sized once for the whole model. The
// CUDA back end allocates exactly what this function returns, so the planner's budget and the
// real allocation cannot drift apart; change both together.

#include "sparse/model_shape.h"

#include <cstdint>

namespace hearth::sparse {

struct ScratchLayout {
    std::uint64_t activations = 0;     // residual, norm output, q, k, v, attention output, FFN out
    std::uint64_t ffnIntermediate = 0; // gate and up activations of the widest FFN
    std::uint64_t predictor = 0;       // predictor hidden layer, logits, active-neuron index list
    std::uint64_t attentionScores = 0; // batch x heads x context (no fused attention kernel)
    std::uint64_t logits = 0;          // batch x vocabulary
    std::uint64_t hostExchange = 0;    // the CPU's partial FFN output, uploaded per layer

    [[nodiscard]] std::uint64_t total() const;
};

// Every scratch buffer is F32 (indices I32) and reused by every layer. Predictor buffers exist
// only for a sparse placement of a model that has predictors.
[[nodiscard]] ScratchLayout scratchLayout(const ModelShape& shape, std::int64_t contextLength, std::int64_t batchSize,
                                          bool sparse);

} // namespace hearth::sparse
