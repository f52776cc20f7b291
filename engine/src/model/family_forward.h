// SPDX-License-Identifier: MIT
#pragma once

// What the falcon and opt forward passes share: the thread pool, the KV cache, the dense FFN,
// the sparse FFN of files with predictors (family_sparse_ffn.h) and the hook that replaces
// both, the buffers both blocks use, causal attention over all heads of a batch, and the output
// head. Each family's forward pass derives from it and keeps only its block's own projections
// and buffers.

#include "cpu/kernels.h"
#include "cpu/matmul.h"
#include "cpu/ops.h"
#include "cpu/thread_pool.h"
#include "model/architecture_forward.h"
#include "model/decoder_ops.h"
#include "model/dense_ffn.h"
#include "model/family_sparse_ffn.h"
#include "model/hyper_params.h"
#include "model/kv_cache.h"
#include "model/layer_offload.h"

#include <hearth/status.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <utility>
#include <vector>

namespace hearth::model {

class FamilyForward : public ArchitectureForward {
public:
    ~FamilyForward() override = default;

    [[nodiscard]] int contextLength() const override { return m_cache->capacity(); }
    [[nodiscard]] int maxBatch() const override { return m_maxBatch; }
    [[nodiscard]] int vocabSize() const override { return m_hp.nVocab; }
    [[nodiscard]] const KvCache& kvCache() const override { return *m_cache; }

    // Replaces the FFN of every layer (dense or sparse). What the hook sees as FFN and
    // predictor input is the family's (see its setFfnHook note). An empty hook restores the
    // model's own FFN.
    void setFfnHook(FfnHook hook) { m_ffnHook = std::move(hook); }

    [[nodiscard]] cpu::ThreadPool& threadPool() { return *m_pool; }

    // How the FFN runs in a model with predictors (FamilySparseFfn::Mode); sparse by default
    // for such files, SessionParams::denseFfn selects Dense. Without predictors: always dense.
    using FfnMode = FamilySparseFfn::Mode;
    [[nodiscard]] bool sparseCapable() const { return m_sparse != nullptr && m_sparseFile; }
    void setFfnMode(FfnMode mode)
    {
        if (m_sparse)
            m_sparse->setMode(m_sparseFile ? mode : FfnMode::Dense);
    }
    [[nodiscard]] FfnMode ffnMode() const { return m_sparse ? m_sparse->mode() : FfnMode::Dense; }
    // Overrides the file's powerinfer.sparse_threshold (-infinity: every neuron active).
    void setSparseThreshold(float threshold)
    {
        if (m_sparse)
            m_sparse->setThreshold(threshold);
    }
    // The hybrid CPU/device FFN of decoded tokens; null switches it off. Must outlive every
    // later forward().
    void setDecodeFfn(FamilyDecodeFfn* ffn)
    {
        if (m_sparse)
            m_sparse->setDecodeFfn(ffn);
    }
    // Leading whole layers, chosen layers' attention and predictors on a device (see
    // model/layer_offload.h); null switches it off. Must outlive every later forward(). Device
    // layers copy their K/V rows back, so the cache takes the device's type; when that memory
    // cannot be had, the offload stays off and the CPU computes every layer.
    void setLayerOffload(LayerOffload* offload)
    {
        if (offload && !m_cache->useType(offload->cacheType()).ok())
            offload = nullptr;
        m_offload = offload;
        if (m_sparse)
            m_sparse->setLayerOffload(offload);
    }

protected:
    // @p threads <= 0: one per physical core.
    FamilyForward(const HyperParams& hp, int maxBatch, int threads)
        : m_hp(hp)
        , m_maxBatch(maxBatch)
        , m_pool(std::make_unique<cpu::ThreadPool>(threads))
    {
    }

    // The checks every family's create() makes before anything is allocated.
    [[nodiscard]] static Status checkSizes(int contextLength, int maxBatch)
    {
        if (contextLength <= 0 || maxBatch <= 0)
            return Status(ErrorCode::InvalidArgument, "context length and batch size must be positive");
        return {};
    }

    // True when some layer stores its down projection neuron-major, fused layers included (see
    // DenseFfn::reserve).
    template <typename Layers>
    [[nodiscard]] static bool anyDownTransposed(const Layers& layers)
    {
        return std::any_of(layers.begin(), layers.end(),
                           [](const auto& l) { return l.ffn.downTransposed || l.ffn.fusedNeurons; });
    }

    // Allocates the cache, the dense FFN's scratch and the shared buffers; the family then
    // sizes its own with allocate().
    [[nodiscard]] Status reserveShared(int contextLength, KvCache::Type cacheType, bool transposedDown)
    {
        auto cache = KvCache::create(m_hp.nLayer, contextLength, m_hp.kvDim(), KvCache::typeFor(cacheType, m_hp.headDim));
        if (!cache)
            return cache.status();
        m_cache = std::move(cache).value();
        HEARTH_TRY(m_ffn.reserve(m_maxBatch, m_hp.nFf, m_hp.nEmbd, m_pool->size(), transposedDown));
        const std::size_t b = std::size_t(m_maxBatch);
        return allocate([&] {
            m_x.resize(b * m_hp.nEmbd);
            m_xn.resize(b * m_hp.nEmbd);
            m_attn.resize(b * m_hp.qDim());
            m_tmp.resize(b * m_hp.nEmbd);
            m_scores.resize(std::size_t(m_pool->size()) * cpu::attendHeadScratchFloats(contextLength, m_hp.headDim));
        });
    }

    // The sparse FFN, for models whose layers carry predictors or fused neurons (@p weights
    // is the family's FamilyWeights, @p layers its layers).
    template <typename Weights>
    [[nodiscard]] Status reserveSparse(const Weights& weights)
    {
        const auto& layers = weights.layers;
        const bool fused = std::any_of(layers.begin(), layers.end(), [](const auto& l) { return l.ffn.fusedNeurons; });
        m_sparseFile = weights.sparse;
        if (!weights.sparse && !fused)
            return {};
        auto sparse = FamilySparseFfn::create(layers, m_hp, m_maxBatch, m_pool->size(), weights.sparse,
                                              weights.sparseThreshold);
        if (!sparse)
            return sparse.status();
        m_sparse = std::move(sparse).value();
        return {};
    }

    // Runs @p resize, turning a failed allocation into OutOfMemory instead of a throw.
    template <typename Resize>
    [[nodiscard]] static Status allocate(Resize&& resize)
    {
        try {
            resize();
        } catch (const std::bad_alloc&) {
            return Status(ErrorCode::OutOfMemory, "not enough memory for the session's work buffers");
        }
        return {};
    }

    // Runs the leading layers through the offload when it takes whole layers and returns the first
    // layer left to the CPU. The residual stream is undefined after a failure, so @p embed makes
    // it again and the CPU runs every layer.
    template <typename Embed>
    [[nodiscard]] int offloadWholeLayers(int n, int start, Embed&& embed)
    {
        if (!m_offload || m_offload->wholeLayers() <= 0)
            return 0;
        if (m_offload->runWholeLayers(*m_cache, m_x.data(), n, start))
            return std::min(m_offload->wholeLayers(), m_hp.nLayer);
        embed();
        return 0;
    }

    // @p out = the attention block of @p layer (before the residual add) for the batch in m_x,
    // computed by the offload; false when the CPU has to.
    [[nodiscard]] bool offloadAttention(int layer, int n, int start, float* out)
    {
        return m_offload && m_offload->hasAttention(layer)
               && m_offload->runAttention(*m_cache, layer, m_x.data(), n, start, out);
    }

    // m_attn = causal attention of every head of @p n tokens of layer @p layer, the batch
    // starting at position @p start. Token t's query heads are packed at
    // queries + t * queryStride; query head h reads KV head h / (nHead / nHeadKv).
    void attendAll(int layer, int start, int n, const float* queries, std::size_t queryStride)
    {
        m_batchLayer = layer;
        m_batchStart = start;
        m_batchTokens = n;
        m_queries = queries;
        m_queryStride = queryStride;
        m_pool->parallelFor(m_hp.nHead, [this](std::int64_t begin, std::int64_t end, int thread) {
            attention(begin, end, thread);
        });
    }

    // @p out = the FFN of layer @p layer on @p n rows of @p input: the hook when one is set,
    // else the sparse FFN when it takes the batch, else the dense FFN. The predictor input is
    // the residual stream m_x (the layer input for falcon, the stream after attention for opt).
    void runFfn(int layer, const UpDownFfn& ffn, const float* input, int n, float* out)
    {
        const FfnBatch batch{layer, n, input, m_x.data(), out};
        if (m_ffnHook) {
            m_ffnHook(batch);
            return;
        }
        if (m_sparse && m_sparse->run(*m_pool, ffn, batch, m_ffn))
            return;
        m_ffn.run(*m_pool, ffn.denseView(), input, n, out);
    }

    // The final LayerNorm and output projection of the last row, or of all @p n rows.
    void outputLogits(const float* norm, const float* normBias, const cpu::WeightMatrix& output, int n, float* logits,
                      bool allLogits)
    {
        const std::int64_t nEmbd = m_hp.nEmbd;
        const int first = allLogits ? 0 : n - 1;
        const int rows = n - first;
        if (m_offload && m_offload->runOutput(m_x.data() + first * nEmbd, rows, logits))
            return;
        for (int t = 0; t < rows; ++t)
            cpu::layerNorm(m_x.data() + (first + t) * nEmbd, norm, normBias, m_hp.normEps, nEmbd,
                           m_xn.data() + t * nEmbd);
        cpu::matmul(*m_pool, output, m_xn.data(), rows, logits);
    }

    const HyperParams& m_hp;
    int m_maxBatch;
    std::unique_ptr<cpu::ThreadPool> m_pool;
    std::unique_ptr<KvCache> m_cache;
    DenseFfn m_ffn;
    std::unique_ptr<FamilySparseFfn> m_sparse; // null for dense files
    bool m_sparseFile = false;                 // every layer has a predictor
    FfnHook m_ffnHook;
    LayerOffload* m_offload = nullptr;

    // Scratch, B = maxBatch rows each.
    std::vector<float> m_x;      // [B][nEmbd] residual stream
    std::vector<float> m_xn;     // [B][nEmbd] normalized block input
    std::vector<float> m_attn;   // [B][qDim] attention output, heads concatenated
    std::vector<float> m_tmp;    // [B][nEmbd] block output before the residual add
    std::vector<float> m_scores; // per thread: a token's scores, or a prompt head's keys and scores

private:
    // One item per head, all the batch's tokens together.
    void attention(std::int64_t begin, std::int64_t end, int threadIndex)
    {
        const int group = m_hp.nHead / m_hp.nHeadKv;
        const int hd = m_hp.headDim;
        const float scale = 1.0f / std::sqrt(float(hd));
        float* scratch = m_scores.data()
                         + std::size_t(threadIndex) * cpu::attendHeadScratchFloats(m_cache->capacity(), hd);
        for (std::int64_t h = begin; h < end; ++h) {
            const int kvOffset = (int(h) / group) * hd;
            const float* q = m_queries + std::size_t(h) * hd;
            float* out = m_attn.data() + std::size_t(h) * hd;
            attendCausal(q, m_queryStride, m_batchTokens, m_batchStart, *m_cache, m_batchLayer, kvOffset, hd, scale,
                         scratch, out, std::size_t(m_hp.qDim()));
        }
    }

    // The batch in flight, read by the parallel section (which captures only `this`).
    int m_batchStart = 0;
    int m_batchTokens = 0;
    int m_batchLayer = 0;
    const float* m_queries = nullptr;
    std::size_t m_queryStride = 0;
};

} // namespace hearth::model
