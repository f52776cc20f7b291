// SPDX-License-Identifier: MIT
#pragma once

// The Falcon forward pass over a batch of tokens at consecutive positions:
//   x_{l+1} = x + attn(LN(x)) + ffn(LN2(x) or LN(x))
// Buffers are allocated at creation; a decoded token allocates nothing.
//
// setFfnHook (FamilyForward): the hook sees the FFN input (the normalized layer input) and, as
// predictor input, the layer input itself, as PowerInfer's ReluFalcon predictors expect.

#include "model/family_forward.h"

#include <hearth/status.h>

#include <memory>
#include <vector>

namespace hearth::model {

class FalconModel;

class FalconForward final : public FamilyForward {
public:
    // @p threads <= 0: one per physical core.
    static Result<std::unique_ptr<FalconForward>> create(const FalconModel& model, int contextLength, int maxBatch,
                                                        int threads, KvCache::Type cache = KvCache::Type::F32);
    ~FalconForward() override;

    void forward(const Token* tokens, int n, int start, float* logits, bool allLogits) override;

private:
    FalconForward(const FalconModel& model, int maxBatch, int threads);

    const FalconModel& m_model;

    // Scratch, B = maxBatch rows each; m_xn is the attention (and shared FFN) input.
    std::vector<float> m_xn2;    // [B][nEmbd] FFN input when it has its own norm
    std::vector<float> m_qkv;    // [B][qDim + 2 kvDim] fused projection
    std::vector<float> m_ffnOut; // [B][nEmbd] FFN block output
    std::vector<float> m_cos;    // [B][nRot / 2]
    std::vector<float> m_sin;    // [B][nRot / 2]
};

} // namespace hearth::model
