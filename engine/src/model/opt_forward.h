// SPDX-License-Identifier: MIT
#pragma once

// The OPT forward pass (pre-LayerNorm) over a batch of tokens at consecutive positions:
//   x = tok_embd[id] + pos_embd[p + offset]
//   x = x + out_proj(attn(LN1(x)));  x = x + down(ReLU(up(LN2(x))))
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

class OptModel;

class OptForward final : public ArchitectureForward {
public:
    // @p threads <= 0: one per physical core. The context cannot exceed the position table.
    static Result<std::unique_ptr<OptForward>> create(const OptModel& model, int contextLength, int maxBatch,
                                                     int threads);
    ~OptForward() override;

    [[nodiscard]] int contextLength() const override { return m_cache->capacity(); }
    [[nodiscard]] int maxBatch() const override { return m_maxBatch; }
    [[nodiscard]] int vocabSize() const override;
    void forward(const Token* tokens, int n, int start, float* logits, bool allLogits) override;

    // Replaces the dense FFN of every layer (a sparse FFN: predictor, then active neurons).
    // The hook sees the FFN input (after the FFN LayerNorm) and, as predictor input, the
    // residual stream before that norm, as PowerInfer's OPT predictors expect. An empty hook
    // restores the dense FFN.
    void setFfnHook(FfnHook hook) { m_ffnHook = std::move(hook); }

    [[nodiscard]] cpu::ThreadPool& threadPool() { return *m_pool; }

private:
    OptForward(const OptModel& model, int maxBatch, int threads);
    void attention(std::int64_t begin, std::int64_t end, int threadIndex);

    const OptModel& m_model;
    int m_maxBatch;
    std::unique_ptr<cpu::ThreadPool> m_pool;
    std::unique_ptr<KvCache> m_cache;
    DenseFfn m_ffn;
    FfnHook m_ffnHook;

    int m_batchStart = 0;
    int m_batchLayer = 0;

    // Scratch, B = maxBatch rows each.
    std::vector<float> m_x;      // [B][nEmbd] residual stream
    std::vector<float> m_xn;     // [B][nEmbd] normalized block input
    std::vector<float> m_q;      // [B][nEmbd]
    std::vector<float> m_k;      // [B][nEmbd]
    std::vector<float> m_v;      // [B][nEmbd]
    std::vector<float> m_attn;   // [B][nEmbd]
    std::vector<float> m_tmp;    // [B][nEmbd] block output before the residual add
    std::vector<float> m_row;    // [nEmbd] one position embedding
    std::vector<float> m_scores; // [threads][contextLength]
};

} // namespace hearth::model
