// SPDX-License-Identifier: MIT
#include "model/opt_forward.h"

#include "cpu/matmul.h"
#include "cpu/ops.h"
#include "cpu/thread_pool.h"
#include "model/decoder_ops.h"
#include "model/opt_model.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <new>

namespace hearth::model {

OptForward::OptForward(const OptModel& model, int maxBatch, int threads)
    : m_model(model)
    , m_maxBatch(maxBatch)
    , m_pool(std::make_unique<cpu::ThreadPool>(threads))
{
}

OptForward::~OptForward() = default;

int OptForward::vocabSize() const
{
    return m_model.hyperParams().nVocab;
}

Result<std::unique_ptr<OptForward>> OptForward::create(const OptModel& model, int contextLength, int maxBatch,
                                                       int threads)
{
    const HyperParams& hp = model.hyperParams();
    const OptWeights& w = model.weights();
    if (contextLength <= 0 || maxBatch <= 0)
        return Status(ErrorCode::InvalidArgument, "context length and batch size must be positive");
    // Learned positions: there is no embedding for a position past the table.
    const std::int64_t positions = w.positionEmbd.rows - w.positionOffset;
    if (contextLength > positions)
        return Status(ErrorCode::InvalidArgument, "context length " + std::to_string(contextLength)
                                                      + " exceeds the model's " + std::to_string(positions)
                                                      + " learned positions");
    std::unique_ptr<OptForward> f(new OptForward(model, std::min(maxBatch, contextLength), threads));
    auto cache = KvCache::create(hp.nLayer, contextLength, hp.kvDim());
    if (!cache)
        return cache.status();
    f->m_cache = std::move(cache).value();
    const auto& layers = model.weights().layers;
    const bool transposedDown
        = std::any_of(layers.begin(), layers.end(), [](const auto& l) { return l.ffn.downTransposed; });
    HEARTH_TRY(f->m_ffn.reserve(f->m_maxBatch, hp.nFf, hp.nEmbd, f->m_pool->size(), transposedDown));

    const std::size_t b = std::size_t(f->m_maxBatch) * std::size_t(hp.nEmbd);
    try {
        for (auto* v : {&f->m_x, &f->m_xn, &f->m_q, &f->m_k, &f->m_v, &f->m_attn, &f->m_tmp})
            v->resize(b);
        f->m_row.resize(std::size_t(hp.nEmbd));
        f->m_scores.resize(std::size_t(f->m_pool->size()) * std::size_t(contextLength));
    } catch (const std::bad_alloc&) {
        return Status(ErrorCode::OutOfMemory, "not enough memory for the session's work buffers");
    }
    return f;
}

void OptForward::attention(std::int64_t begin, std::int64_t end, int threadIndex)
{
    const HyperParams& hp = m_model.hyperParams();
    const float scale = 1.0f / std::sqrt(float(hp.headDim));
    float* scores = m_scores.data() + std::size_t(threadIndex) * std::size_t(m_cache->capacity());
    for (std::int64_t item = begin; item < end; ++item) {
        const int t = int(item / hp.nHead);
        const int h = int(item % hp.nHead);
        const std::size_t offset = std::size_t(t) * std::size_t(hp.nEmbd) + std::size_t(h) * hp.headDim;
        attendCausal(m_q.data() + offset, *m_cache, m_batchLayer, m_batchStart + t, h * hp.headDim, hp.headDim, scale,
                     scores, m_attn.data() + offset);
    }
}

void OptForward::forward(const Token* tokens, int n, int start, float* logits, bool allLogits)
{
    const HyperParams& hp = m_model.hyperParams();
    const OptWeights& w = m_model.weights();
    cpu::ThreadPool& pool = *m_pool;
    const std::int64_t nEmbd = hp.nEmbd;
    const std::size_t rowBytes = sizeof(float) * std::size_t(nEmbd);

    m_batchStart = start;
    for (int t = 0; t < n; ++t) {
        float* x = m_x.data() + t * nEmbd;
        cpu::getRow(w.tokenEmbd, tokens[t], x);
        cpu::getRow(w.positionEmbd, std::int64_t(start + t) + w.positionOffset, m_row.data());
        cpu::add(x, m_row.data(), nEmbd);
    }

    for (int l = 0; l < hp.nLayer; ++l) {
        const OptLayerWeights& lw = w.layers[std::size_t(l)];
        m_batchLayer = l;

        // Attention block.
        for (int t = 0; t < n; ++t)
            cpu::layerNorm(m_x.data() + t * nEmbd, lw.attnNorm, lw.attnNormBias, hp.normEps, nEmbd,
                           m_xn.data() + t * nEmbd);
        {
            const cpu::WeightMatrix ws[3] = {lw.wq, lw.wk, lw.wv};
            float* const ys[3] = {m_q.data(), m_k.data(), m_v.data()};
            cpu::matmulShared(pool, ws, ys, 3, m_xn.data(), n);
        }
        addBias(m_q.data(), lw.bq, n, nEmbd);
        addBias(m_k.data(), lw.bk, n, nEmbd);
        addBias(m_v.data(), lw.bv, n, nEmbd);
        for (int t = 0; t < n; ++t) {
            std::memcpy(m_cache->k(l, start + t), m_k.data() + t * nEmbd, rowBytes);
            std::memcpy(m_cache->v(l, start + t), m_v.data() + t * nEmbd, rowBytes);
        }
        pool.parallelFor(std::int64_t(n) * hp.nHead, [this](std::int64_t begin, std::int64_t end, int thread) {
            attention(begin, end, thread);
        });
        cpu::matmul(pool, lw.wo, m_attn.data(), n, m_tmp.data());
        addBias(m_tmp.data(), lw.bo, n, nEmbd);
        cpu::add(m_x.data(), m_tmp.data(), n * nEmbd);

        // Feed-forward block.
        for (int t = 0; t < n; ++t)
            cpu::layerNorm(m_x.data() + t * nEmbd, lw.ffnNorm, lw.ffnNormBias, hp.normEps, nEmbd,
                           m_xn.data() + t * nEmbd);
        if (m_ffnHook)
            m_ffnHook(FfnBatch{l, n, m_xn.data(), m_x.data(), m_tmp.data()});
        else
            m_ffn.run(pool, lw.ffn, m_xn.data(), n, m_tmp.data());
        cpu::add(m_x.data(), m_tmp.data(), n * nEmbd);
    }

    const int first = allLogits ? 0 : n - 1;
    const int rows = n - first;
    for (int t = 0; t < rows; ++t)
        cpu::layerNorm(m_x.data() + (first + t) * nEmbd, w.outputNorm, w.outputNormBias, hp.normEps, nEmbd,
                       m_xn.data() + t * nEmbd);
    cpu::matmul(pool, w.output, m_xn.data(), rows, logits);
}

} // namespace hearth::model
