// SPDX-License-Identifier: MIT
#include "model/falcon_forward.h"

#include "cpu/matmul.h"
#include "cpu/ops.h"
#include "cpu/thread_pool.h"
#include "model/decoder_ops.h"
#include "model/falcon_model.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <new>

namespace hearth::model {

FalconForward::FalconForward(const FalconModel& model, int maxBatch, int threads)
    : m_model(model)
    , m_maxBatch(maxBatch)
    , m_pool(std::make_unique<cpu::ThreadPool>(threads))
{
}

FalconForward::~FalconForward() = default;

int FalconForward::vocabSize() const
{
    return m_model.hyperParams().nVocab;
}

Result<std::unique_ptr<FalconForward>> FalconForward::create(const FalconModel& model, int contextLength, int maxBatch,
                                                             int threads)
{
    const HyperParams& hp = model.hyperParams();
    if (contextLength <= 0 || maxBatch <= 0)
        return Status(ErrorCode::InvalidArgument, "context length and batch size must be positive");
    std::unique_ptr<FalconForward> f(new FalconForward(model, std::min(maxBatch, contextLength), threads));
    auto cache = KvCache::create(hp.nLayer, contextLength, hp.kvDim());
    if (!cache)
        return cache.status();
    f->m_cache = std::move(cache).value();
    const auto& layers = model.weights().layers;
    const bool transposedDown
        = std::any_of(layers.begin(), layers.end(), [](const auto& l) { return l.ffn.downTransposed; });
    HEARTH_TRY(f->m_ffn.reserve(f->m_maxBatch, hp.nFf, hp.nEmbd, f->m_pool->size(), transposedDown));

    const std::size_t b = std::size_t(f->m_maxBatch);
    const bool separateFfnNorm = !model.weights().layers.empty() && model.weights().layers[0].ffnNorm;
    try {
        f->m_x.resize(b * hp.nEmbd);
        f->m_xn.resize(b * hp.nEmbd);
        if (separateFfnNorm)
            f->m_xn2.resize(b * hp.nEmbd);
        f->m_qkv.resize(b * std::size_t(hp.qDim() + 2 * hp.kvDim()));
        f->m_attn.resize(b * hp.qDim());
        f->m_tmp.resize(b * hp.nEmbd);
        f->m_ffnOut.resize(b * hp.nEmbd);
        f->m_cos.resize(b * std::size_t(hp.nRot / 2));
        f->m_sin.resize(b * std::size_t(hp.nRot / 2));
        f->m_scores.resize(std::size_t(f->m_pool->size()) * std::size_t(contextLength));
    } catch (const std::bad_alloc&) {
        return Status(ErrorCode::OutOfMemory, "not enough memory for the session's work buffers");
    }
    return f;
}

void FalconForward::attention(std::int64_t begin, std::int64_t end, int threadIndex)
{
    const HyperParams& hp = m_model.hyperParams();
    const int group = hp.nHead / hp.nHeadKv;
    const std::size_t qkvDim = std::size_t(hp.qDim() + 2 * hp.kvDim());
    const float scale = 1.0f / std::sqrt(float(hp.headDim));
    float* scores = m_scores.data() + std::size_t(threadIndex) * std::size_t(m_cache->capacity());
    for (std::int64_t item = begin; item < end; ++item) {
        const int t = int(item / hp.nHead);
        const int h = int(item % hp.nHead);
        const float* q = m_qkv.data() + std::size_t(t) * qkvDim + std::size_t(h) * hp.headDim;
        float* out = m_attn.data() + std::size_t(t) * hp.qDim() + std::size_t(h) * hp.headDim;
        attendCausal(q, *m_cache, m_batchLayer, m_batchStart + t, (h / group) * hp.headDim, hp.headDim, scale, scores,
                     out);
    }
}

void FalconForward::forward(const Token* tokens, int n, int start, float* logits, bool allLogits)
{
    const HyperParams& hp = m_model.hyperParams();
    const FalconWeights& w = m_model.weights();
    cpu::ThreadPool& pool = *m_pool;
    const std::int64_t nEmbd = hp.nEmbd;
    const int half = hp.nRot / 2;
    const std::size_t qkvDim = std::size_t(hp.qDim() + 2 * hp.kvDim());
    const std::size_t kvBytes = sizeof(float) * std::size_t(hp.kvDim());

    m_batchStart = start;
    for (int t = 0; t < n; ++t) {
        cpu::getRow(w.tokenEmbd, tokens[t], m_x.data() + t * nEmbd);
        cpu::ropeTables(start + t, hp.nRot, hp.ropeFreqBase, hp.ropeFreqScale, m_cos.data() + t * half,
                        m_sin.data() + t * half);
    }

    for (int l = 0; l < hp.nLayer; ++l) {
        const FalconLayerWeights& lw = w.layers[std::size_t(l)];
        m_batchLayer = l;

        for (int t = 0; t < n; ++t) {
            const float* x = m_x.data() + t * nEmbd;
            cpu::layerNorm(x, lw.attnNorm, lw.attnNormBias, hp.normEps, nEmbd, m_xn.data() + t * nEmbd);
            if (lw.ffnNorm)
                cpu::layerNorm(x, lw.ffnNorm, lw.ffnNormBias, hp.normEps, nEmbd, m_xn2.data() + t * nEmbd);
        }

        // Attention: fused QKV, rotate Q and K, append K/V to the cache.
        cpu::matmul(pool, lw.wqkv, m_xn.data(), n, m_qkv.data());
        for (int t = 0; t < n; ++t) {
            float* q = m_qkv.data() + std::size_t(t) * qkvDim;
            float* k = q + hp.qDim();
            const float* v = k + hp.kvDim();
            ropeNeox(q, hp.nHead, hp.headDim, hp.nRot, m_cos.data() + t * half, m_sin.data() + t * half);
            ropeNeox(k, hp.nHeadKv, hp.headDim, hp.nRot, m_cos.data() + t * half, m_sin.data() + t * half);
            std::memcpy(m_cache->k(l, start + t), k, kvBytes);
            std::memcpy(m_cache->v(l, start + t), v, kvBytes);
        }
        pool.parallelFor(std::int64_t(n) * hp.nHead, [this](std::int64_t begin, std::int64_t end, int thread) {
            attention(begin, end, thread);
        });
        cpu::matmul(pool, lw.wo, m_attn.data(), n, m_tmp.data());

        // The FFN runs on the same layer input, in parallel to attention (not after it).
        const float* ffnInput = lw.ffnNorm ? m_xn2.data() : m_xn.data();
        if (m_ffnHook)
            m_ffnHook(FfnBatch{l, n, ffnInput, m_x.data(), m_ffnOut.data()});
        else
            m_ffn.run(pool, lw.ffn, ffnInput, n, m_ffnOut.data());

        cpu::add(m_x.data(), m_tmp.data(), n * nEmbd);
        cpu::add(m_x.data(), m_ffnOut.data(), n * nEmbd);
    }

    const int first = allLogits ? 0 : n - 1;
    const int rows = n - first;
    for (int t = 0; t < rows; ++t)
        cpu::layerNorm(m_x.data() + (first + t) * nEmbd, w.outputNorm, w.outputNormBias, hp.normEps, nEmbd,
                       m_xn.data() + t * nEmbd);
    cpu::matmul(pool, w.output, m_xn.data(), rows, logits);
}

} // namespace hearth::model
