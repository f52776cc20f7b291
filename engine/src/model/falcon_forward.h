// SPDX-License-Identifier: MIT
#pragma once

// The Falcon forward pass over a batch of tokens at consecutive positions:
//   x_{l+1} = x + attn(LN(x)) + ffn(LN2(x) or LN(x))
// Buffers are allocated at creation; a decoded token allocates nothing.

#include "model/architecture_forward.h"
#include "model/dense_ffn.h"
#include "model/kv_cache.h"

#include <hearth/status.h>

#include <memory>
#include <vector>

namespace hearth::cpu {
class ThreadPool;
}

namespace hearth::model {

class FalconModel;

class FalconForward final : public ArchitectureForward {
public:
    // @p threads <= 0: one per physical core.
    static Result<std::unique_ptr<FalconForward>> create(const FalconModel& model, int contextLength, int maxBatch,
                                                        int threads);
    ~FalconForward() override;

    [[nodiscard]] int contextLength() const override { return m_cache->capacity(); }
    [[nodiscard]] int maxBatch() const override { return m_maxBatch; }
    [[nodiscard]] int vocabSize() const override;
    void forward(const Token* tokens, int n, int start, float* logits, bool allLogits) override;

    // Replaces the dense FFN of every layer (a sparse FFN: predictor, then active neurons).
    // The hook sees the FFN input (the normalized layer input) and, as predictor input, the
    // layer input itself, as PowerInfer's ReluFalcon predictors expect. An empty hook restores
    // the dense FFN.
    void setFfnHook(FfnHook hook) { m_ffnHook = std::move(hook); }

    [[nodiscard]] cpu::ThreadPool& threadPool() { return *m_pool; }

private:
    FalconForward(const FalconModel& model, int maxBatch, int threads);
    void attention(std::int64_t begin, std::int64_t end, int threadIndex);

    const FalconModel& m_model;
    int m_maxBatch;
    std::unique_ptr<cpu::ThreadPool> m_pool;
    std::unique_ptr<KvCache> m_cache;
    DenseFfn m_ffn;
    FfnHook m_ffnHook;

    // The batch in flight, read by the parallel sections (which capture only `this`).
    int m_batchStart = 0;
    int m_batchLayer = 0;

    // Scratch, B = maxBatch rows each.
    std::vector<float> m_x;      // [B][nEmbd] residual stream
    std::vector<float> m_xn;     // [B][nEmbd] attention (and shared FFN) input
    std::vector<float> m_xn2;    // [B][nEmbd] FFN input when it has its own norm
    std::vector<float> m_qkv;    // [B][qDim + 2 kvDim] fused projection
    std::vector<float> m_attn;   // [B][qDim] attention output, heads concatenated
    std::vector<float> m_tmp;    // [B][nEmbd] attention block output
    std::vector<float> m_ffnOut; // [B][nEmbd] FFN block output
    std::vector<float> m_cos;    // [B][nRot / 2]
    std::vector<float> m_sin;    // [B][nRot / 2]
    std::vector<float> m_scores; // [threads][contextLength]
};

} // namespace hearth::model
