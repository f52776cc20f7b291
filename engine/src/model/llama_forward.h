// SPDX-License-Identifier: MIT
#pragma once

// The llama-family forward pass over a batch of tokens at consecutive positions. Prompt
// processing and decoding are the same code: a batch of N tokens goes through each weight
// matrix together; decode is N = 1. Every buffer is allocated at creation, so a decoded token
// allocates nothing.

#include "cpu/matmul.h"
#include "model/kv_cache.h"

#include <hearth/status.h>
#include <hearth/tokenizer.h>

#include <memory>
#include <vector>

namespace hearth::cpu {
class ThreadPool;
}

namespace hearth::model {

class LlamaModel;

class LlamaForward {
public:
    // @p threads <= 0: one per physical core. @p maxBatch is the most tokens one forward() takes.
    static Result<std::unique_ptr<LlamaForward>> create(const LlamaModel& model, int contextLength, int maxBatch,
                                                       int threads);
    ~LlamaForward();

    [[nodiscard]] int contextLength() const { return m_cache->capacity(); }
    [[nodiscard]] int maxBatch() const { return m_maxBatch; }
    [[nodiscard]] int threads() const;

    // Runs @p n tokens (1 <= n <= maxBatch, ids checked by the caller) at positions
    // [start, start + n) and stores their K/V in the cache; start + n <= contextLength.
    // Writes n rows of vocabulary logits to @p logits when @p allLogits, else only the last row.
    void forward(const Token* tokens, int n, int start, float* logits, bool allLogits);

private:
    LlamaForward(const LlamaModel& model, int maxBatch, int threads);
    void attention(int layer, std::int64_t begin, std::int64_t end, int threadIndex);
    // Down projection stored neuron-major (PowerInfer's ffn_down_t): m_tmp = act x down_t.
    void downTransposed(const cpu::WeightMatrix& downT, int n);

    const LlamaModel& m_model;
    int m_maxBatch;
    std::unique_ptr<cpu::ThreadPool> m_pool;
    std::unique_ptr<KvCache> m_cache;

    // State of the batch in flight, read by the parallel sections (which capture only `this`,
    // so that std::function needs no allocation).
    int m_batchStart = 0;
    int m_batchLayer = 0;
    int m_batchTokens = 0;
    const cpu::WeightMatrix* m_batchDownT = nullptr;

    // Scratch, B = maxBatch rows each.
    std::vector<float> m_x;      // [B][nEmbd] residual stream
    std::vector<float> m_xn;     // [B][nEmbd] normalized input of a block
    std::vector<float> m_tmp;    // [B][nEmbd] block output before the residual add
    std::vector<float> m_q;      // [B][qDim]
    std::vector<float> m_k;      // [B][kvDim]
    std::vector<float> m_v;      // [B][kvDim]
    std::vector<float> m_attn;   // [B][qDim] attention output, heads concatenated
    std::vector<float> m_gate;   // [B][nFf] gate projection, then the activation
    std::vector<float> m_up;     // [B][nFf]
    std::vector<float> m_cos;    // [B][nRot / 2] rotary tables per token
    std::vector<float> m_sin;    // [B][nRot / 2]
    std::vector<float> m_scores; // [threads][contextLength] attention scores per thread
    // Only for models with a neuron-major down projection:
    std::vector<float> m_partial; // [threads][B][nEmbd] per-thread partial sums
    std::vector<float> m_neuron;  // [threads][nEmbd] one dequantized neuron row per thread
};

} // namespace hearth::model
