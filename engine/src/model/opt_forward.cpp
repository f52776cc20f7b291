// SPDX-License-Identifier: MIT
#include "model/opt_forward.h"

#include "cpu/matmul.h"
#include "cpu/ops.h"
#include "cpu/thread_pool.h"
#include "model/decoder_ops.h"
#include "model/opt_model.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

namespace hearth::model {

OptForward::OptForward(const OptModel& model, int maxBatch, int threads)
    : FamilyForward(model.hyperParams(), maxBatch, threads)
    , m_model(model)
{
}

OptForward::~OptForward() = default;

Result<std::unique_ptr<OptForward>> OptForward::create(const OptModel& model, int contextLength, int maxBatch,
                                                       int threads, KvCache::Type cache)
{
    const HyperParams& hp = model.hyperParams();
    const OptWeights& w = model.weights();
    HEARTH_TRY(checkSizes(contextLength, maxBatch));
    // Learned positions: there is no embedding for a position past the table.
    const std::int64_t positions = w.positionEmbd.rows - w.positionOffset;
    if (contextLength > positions)
        return Status(ErrorCode::InvalidArgument, "context length " + std::to_string(contextLength)
                                                      + " exceeds the model's " + std::to_string(positions)
                                                      + " learned positions");
    std::unique_ptr<OptForward> f(new OptForward(model, std::min(maxBatch, contextLength), threads));
    HEARTH_TRY(f->reserveShared(contextLength, cache, anyDownTransposed(w.layers)));
    HEARTH_TRY(f->reserveSparse(w));

    const std::size_t b = std::size_t(f->m_maxBatch) * std::size_t(hp.nEmbd);
    HEARTH_TRY(allocate([&] {
        for (auto* v : {&f->m_q, &f->m_k, &f->m_v})
            v->resize(b);
        f->m_row.resize(std::size_t(hp.nEmbd));
    }));
    return f;
}

void OptForward::forward(const Token* tokens, int n, int start, float* logits, bool allLogits)
{
    const HyperParams& hp = m_hp;
    const OptWeights& w = m_model.weights();
    cpu::ThreadPool& pool = *m_pool;
    const std::int64_t nEmbd = hp.nEmbd;

    // Learned positions are added here, with the token embedding: the layers (on the CPU or a
    // device) see no positions of their own.
    const auto embed = [&] {
        for (int t = 0; t < n; ++t) {
            float* x = m_x.data() + t * nEmbd;
            cpu::getRow(w.tokenEmbd, tokens[t], x);
            cpu::getRow(w.positionEmbd, std::int64_t(start + t) + w.positionOffset, m_row.data());
            cpu::add(x, m_row.data(), nEmbd);
        }
    };
    embed();

    for (int l = offloadWholeLayers(n, start, embed); l < hp.nLayer; ++l) {
        const OptLayerWeights& lw = w.layers[std::size_t(l)];

        // Attention block (on a device when the offload takes it).
        if (!offloadAttention(l, n, start, m_tmp.data())) {
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
            for (int t = 0; t < n; ++t)
                m_cache->store(l, start + t, m_k.data() + t * nEmbd, m_v.data() + t * nEmbd);
            attendAll(l, start, n, m_q.data(), std::size_t(nEmbd));
            cpu::matmul(pool, lw.wo, m_attn.data(), n, m_tmp.data());
            addBias(m_tmp.data(), lw.bo, n, nEmbd);
        }
        cpu::add(m_x.data(), m_tmp.data(), n * nEmbd);

        // Feed-forward block.
        for (int t = 0; t < n; ++t)
            cpu::layerNorm(m_x.data() + t * nEmbd, lw.ffnNorm, lw.ffnNormBias, hp.normEps, nEmbd,
                           m_xn.data() + t * nEmbd);
        runFfn(l, lw.ffn, m_xn.data(), n, m_tmp.data());
        cpu::add(m_x.data(), m_tmp.data(), n * nEmbd);
    }

    outputLogits(w.outputNorm, w.outputNormBias, w.output, n, logits, allLogits);
}

} // namespace hearth::model
