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
        // (token, neuron) pairs the batch computes: the flags set in the mask; count for one token.
        std::int64_t pairs = 0;
    };

    // Buffers for @p maxBatch tokens of @p nFf neurons and predictors up to @p predictorHidden
    // wide; OutOfMemory when they cannot be had.
    [[nodiscard]] Status reserve(int maxBatch, std::int64_t nFf, std::int64_t predictorHidden);

    // Every neuron, for every token.
    [[nodiscard]] Active all() const
    {
        return {m_allIds.data(), std::int64_t(m_allIds.size()), nullptr, std::int64_t(m_allIds.size())};
    }
    // The neurons @p predictor expects to fire for @p tokens rows of @p x.
    [[nodiscard]] Active predict(cpu::ThreadPool& pool, const PredictorWeights& predictor, const float* x, int tokens,
                                 float threshold);
    // Where a prediction made elsewhere (the device) writes its ids, as selectActive() would,
    // and the selection of the first @p count of them.
    [[nodiscard]] std::int32_t* idBuffer() { return m_ids.data(); }
    [[nodiscard]] Active predicted(std::int64_t count) const { return {m_ids.data(), count, nullptr, count}; }

    // Whether a batch of @p tokens tokens that computes @p pairs (token, neuron) pairs is cheaper
    // through the dense matrix products (every neuron for every token, through the interleaved
    // integer kernels, the unpredicted ones then zeroed) than through the per-neuron path (each
    // token's own neurons, one dot product each):
    // the line is a token's own share of the neurons, 15 %, between what these measured with
    // 128-token prompts, per-neuron against dense: 1.1B Q4_0 shape at 70 % sparsity 114-121
    // against 129-142 tok/s, at 90 % 200-232 against 195-224, at 95 % 286-342 against 245-273;
    // 13B shape (8 layers) at 90 %, Q4_0 79-95 against 71-78, Q4_K 114-115 against 91-104.
    [[nodiscard]] static bool denseIsCheaper(std::int64_t pairs, int tokens, std::int64_t nFf)
    {
        return double(pairs) > kDenseTokenShare * double(tokens) * double(nFf);
    }

private:
    static constexpr double kDenseTokenShare = 0.15;

    std::vector<float> m_hidden;        // [B][largest predictor hidden size]
    std::vector<float> m_logits;        // [B][nFf] predictor logits
    std::vector<std::uint8_t> m_mask;   // [B][nFf] per-token active flags of a batch
    std::vector<std::int32_t> m_ids;    // [nFf] active neurons (the union over a batch)
    std::vector<std::int32_t> m_allIds; // 0 .. nFf-1
};

} // namespace hearth::sparse
