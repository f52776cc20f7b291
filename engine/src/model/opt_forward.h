// SPDX-License-Identifier: MIT
#pragma once

// The OPT forward pass (pre-LayerNorm) over a batch of tokens at consecutive positions:
//   x = tok_embd[id] + pos_embd[p + offset]
//   x = x + out_proj(attn(LN1(x)));  x = x + down(ReLU(up(LN2(x))))
// Buffers are allocated at creation; a decoded token allocates nothing.
//
// setFfnHook (FamilyForward): the hook sees the FFN input (after the FFN LayerNorm) and, as
// predictor input, the residual stream before that norm, as PowerInfer's OPT predictors expect.

#include "model/family_forward.h"

#include <hearth/status.h>

#include <memory>
#include <vector>

namespace hearth::model {

class OptModel;

class OptForward final : public FamilyForward {
public:
    // @p threads <= 0: one per physical core. The context cannot exceed the position table.
    static Result<std::unique_ptr<OptForward>> create(const OptModel& model, int contextLength, int maxBatch,
                                                     int threads, KvCache::Type cache = KvCache::Type::F32);
    ~OptForward() override;

    void forward(const Token* tokens, int n, int start, float* logits, bool allLogits) override;

private:
    OptForward(const OptModel& model, int maxBatch, int threads);

    const OptModel& m_model;

    // Scratch, B = maxBatch rows each.
    std::vector<float> m_q;   // [B][nEmbd]
    std::vector<float> m_k;   // [B][nEmbd]
    std::vector<float> m_v;   // [B][nEmbd]
    std::vector<float> m_row; // [nEmbd] one position embedding
};

} // namespace hearth::model
