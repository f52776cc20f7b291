// SPDX-License-Identifier: MIT
#pragma once

// Which FFN neurons a forward pass computes for a batch of tokens: every neuron, or those the
// layer's predictor expects to fire (the union over the batch, with each token's own mask).
// Owns the predictor's buffers, sized once for the largest predictor of a model and shared by
// its layers; the llama, falcon and opt forward passes all select through it.

#include "sparse/predictor.h"

#include <hearth/status.h>

#include <cstdint>
#include <vector>

namespace hearth::sparse {

class NeuronSelection {
public:
    struct Active {
        const std::int32_t* ids = nullptr; // ascending neuron ids
        std::int64_t count = 0;
        // [tokens][nFf] per-token flags of a predicted batch; null when every token uses all ids.
        const std::uint8_t* mask = nullptr;
    };

    // Buffers for @p maxBatch tokens of @p nFf neurons and predictors up to @p predictorHidden
    // wide; OutOfMemory when they cannot be had.
    [[nodiscard]] Status reserve(int maxBatch, std::int64_t nFf, std::int64_t predictorHidden);

    // Every neuron, for every token.
    [[nodiscard]] Active all() const { return {m_allIds.data(), std::int64_t(m_allIds.size()), nullptr}; }
    // The neurons @p predictor expects to fire for @p tokens rows of @p x.
    [[nodiscard]] Active predict(cpu::ThreadPool& pool, const PredictorWeights& predictor, const float* x, int tokens,
                                 float threshold);
    // Where a prediction made elsewhere (the device) writes its ids, as selectActive() would,
    // and the selection of the first @p count of them.
    [[nodiscard]] std::int32_t* idBuffer() { return m_ids.data(); }
    [[nodiscard]] Active predicted(std::int64_t count) const { return {m_ids.data(), count, nullptr}; }

    // Whether a batch whose union holds @p count of @p nFf neurons is cheaper through the dense
    // matrix products of a layer that has them: they reuse each weight block across the batch,
    // which the per-neuron path does not.
    [[nodiscard]] static bool denseIsCheaper(std::int64_t count, std::int64_t nFf)
    {
        return double(count) > kDenseUnionShare * double(nFf);
    }

private:
    static constexpr double kDenseUnionShare = 0.6;

    std::vector<float> m_hidden;        // [B][largest predictor hidden size]
    std::vector<float> m_logits;        // [B][nFf] predictor logits
    std::vector<std::uint8_t> m_mask;   // [B][nFf] per-token active flags of a batch
    std::vector<std::int32_t> m_ids;    // [nFf] active neurons (the union over a batch)
    std::vector<std::int32_t> m_allIds; // 0 .. nFf-1
};

} // namespace hearth::sparse
