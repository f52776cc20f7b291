// SPDX-License-Identifier: MIT
#include "model/falcon_forward.h"

#include "cpu/matmul.h"
#include "cpu/ops.h"
#include "cpu/thread_pool.h"
#include "model/decoder_ops.h"
#include "model/falcon_model.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace hearth::model {

FalconForward::FalconForward(const FalconModel& model, int maxBatch, int threads)
    : FamilyForward(model.hyperParams(), maxBatch, threads)
    , m_model(model)
{
}

FalconForward::~FalconForward() = default;

Result<std::unique_ptr<FalconForward>> FalconForward::create(const FalconModel& model, int contextLength, int maxBatch,
                                                             int threads, KvCache::Type cache)
{
    const HyperParams& hp = model.hyperParams();
    HEARTH_TRY(checkSizes(contextLength, maxBatch));
    std::unique_ptr<FalconForward> f(new FalconForward(model, std::min(maxBatch, contextLength), threads));
    const auto& layers = model.weights().layers;
    HEARTH_TRY(f->reserveShared(contextLength, cache, anyDownTransposed(layers)));
    HEARTH_TRY(f->reserveSparse(model.weights()));

    const std::size_t b = std::size_t(f->m_maxBatch);
    const bool separateFfnNorm = !layers.empty() && layers[0].ffnNorm;
    HEARTH_TRY(allocate([&] {
        if (separateFfnNorm)
            f->m_xn2.resize(b * hp.nEmbd);
        f->m_qkv.resize(b * std::size_t(hp.qDim() + 2 * hp.kvDim()));
        f->m_ffnOut.resize(b * hp.nEmbd);
        f->m_cos.resize(b * std::size_t(hp.nRot / 2));
        f->m_sin.resize(b * std::size_t(hp.nRot / 2));
    }));
    return f;
}

void FalconForward::forward(const Token* tokens, int n, int start, float* logits, bool allLogits)
{
    const HyperParams& hp = m_hp;
    const FalconWeights& w = m_model.weights();
    cpu::ThreadPool& pool = *m_pool;
    const std::int64_t nEmbd = hp.nEmbd;
    const int half = hp.nRot / 2;
    const std::size_t qkvDim = std::size_t(hp.qDim() + 2 * hp.kvDim());

    const auto embed = [&] {
        for (int t = 0; t < n; ++t)
            cpu::getRow(w.tokenEmbd, tokens[t], m_x.data() + t * nEmbd);
    };
    embed();
    for (int t = 0; t < n; ++t)
        cpu::ropeTables(start + t, hp.nRot, hp.ropeFreqBase, hp.ropeFreqScale, m_cos.data() + t * half,
                        m_sin.data() + t * half);

    for (int l = offloadWholeLayers(n, start, embed); l < hp.nLayer; ++l) {
        const FalconLayerWeights& lw = w.layers[std::size_t(l)];

        for (int t = 0; t < n; ++t) {
            const float* x = m_x.data() + t * nEmbd;
            cpu::layerNorm(x, lw.attnNorm, lw.attnNormBias, hp.normEps, nEmbd, m_xn.data() + t * nEmbd);
            if (lw.ffnNorm)
                cpu::layerNorm(x, lw.ffnNorm, lw.ffnNormBias, hp.normEps, nEmbd, m_xn2.data() + t * nEmbd);
        }

        // Attention: fused QKV, rotate Q and K, append K/V to the cache (or all of it on a device).
        if (!offloadAttention(l, n, start, m_tmp.data())) {
            cpu::matmul(pool, lw.wqkv, m_xn.data(), n, m_qkv.data());
            for (int t = 0; t < n; ++t) {
                float* q = m_qkv.data() + std::size_t(t) * qkvDim;
                float* k = q + hp.qDim();
                const float* v = k + hp.kvDim();
                cpu::ropeNeox(q, hp.nHead, hp.headDim, hp.nRot, m_cos.data() + t * half, m_sin.data() + t * half);
                cpu::ropeNeox(k, hp.nHeadKv, hp.headDim, hp.nRot, m_cos.data() + t * half, m_sin.data() + t * half);
                m_cache->store(l, start + t, k, v);
            }
            attendAll(l, start, n, m_qkv.data(), qkvDim);
            cpu::matmul(pool, lw.wo, m_attn.data(), n, m_tmp.data());
        }

        // The FFN runs on the same layer input, in parallel to attention (not after it).
        runFfn(l, lw.ffn, lw.ffnNorm ? m_xn2.data() : m_xn.data(), n, m_ffnOut.data());

        cpu::add(m_x.data(), m_tmp.data(), n * nEmbd);
        cpu::add(m_x.data(), m_ffnOut.data(), n * nEmbd);
    }

    outputLogits(w.outputNorm, w.outputNormBias, w.output, n, logits, allLogits);
}

} // namespace hearth::model
