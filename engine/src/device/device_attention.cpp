// SPDX-License-Identifier: MIT
#include "device/device_attention.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace hearth::device {

Status AttentionParams::validate() const
{
    if (nEmbd <= 0 || nHead <= 0 || nHeadKv <= 0 || headDim <= 0 || contextLength <= 0 || nHead % nHeadKv != 0
        || nRot < 0 || nRot > headDim || nRot % 2 != 0
        || (rope != RopeStyle::Normal && rope != RopeStyle::Neox && rope != RopeStyle::None)
        || (norm != NormKind::Rms && norm != NormKind::Layer) || slidingWindow < 0 || !(scale >= 0.0f)
        || !(softCap >= 0.0f) || maxBatch <= 0)
        return Status(ErrorCode::InvalidArgument, "device attention: bad model parameters");
    return {};
}

// --- AttentionScratch ---

namespace {

// Floats of each scratch buffer, in the order of the members they fill.
struct ScratchSizes {
    std::int64_t xn, q, k, v, attn, scores;
};

ScratchSizes scratchSizes(const AttentionParams& p, int maxTokens)
{
    const std::int64_t t = maxTokens;
    // Fused: Q | K | V rows in q; k and v stay unused but cost one granule each.
    const std::int64_t kv = p.fusedQkv ? 1 : t * p.kvDim();
    return {t * p.nEmbd, t * p.qRow(), kv, kv, t * p.qDim(), std::int64_t(p.nHead) * p.contextLength};
}

std::uint64_t matrixBytes(const cpu::WeightMatrix& w)
{
    return std::uint64_t(rowBytes(w.type, w.cols)) * std::uint64_t(w.rows);
}

// The vectors a layer uploads besides its matrices: norm weight, then the optional ones.
struct VectorItem {
    const float* src;
    std::int64_t floats;
    const char* label;
};

std::vector<VectorItem> vectorItems(const AttentionParams& p, const AttentionWeights& w)
{
    return {{w.norm, p.nEmbd, "attention norm"}, {w.normBias, p.nEmbd, "attention norm bias"},
            {w.bq, p.qDim(), "attn_q bias"},     {w.bk, p.kvDim(), "attn_k bias"},
            {w.bv, p.kvDim(), "attn_v bias"},     {w.bo, p.nEmbd, "attn_output bias"},
            {w.ropeFreqs, p.nRot / 2, "rope_freqs"}, {w.qNorm, p.headDim, "attn_q_norm"},
            {w.kNorm, p.headDim, "attn_k_norm"}, {w.sinks, p.nHead, "attn_sinks"}};
}

// The matrices a layer uploads for its flavour.
std::vector<const cpu::WeightMatrix*> matrices(const AttentionParams& p, const AttentionWeights& w)
{
    if (p.fusedQkv)
        return {&w.wqkv, &w.wo};
    return {&w.wq, &w.wk, &w.wv, &w.wo};
}

bool shapesMatch(const AttentionParams& p, const AttentionWeights& w)
{
    const auto maps = [&w](const cpu::WeightMatrix& m, std::int64_t inputs, std::int64_t outputs) {
        return mapsWidths(m, inputs, outputs, w.inputMajor);
    };
    if (!w.norm || !maps(w.wo, p.qDim(), p.nEmbd) || !w.qNorm != !w.kNorm)
        return false;
    if (p.fusedQkv)
        return w.wqkv.data && !w.inputMajor && w.wqkv.rows == p.qDim() + 2 * p.kvDim() && w.wqkv.cols == p.nEmbd;
    return maps(w.wq, p.nEmbd, p.qDim()) && maps(w.wk, p.nEmbd, p.kvDim()) && maps(w.wv, p.nEmbd, p.kvDim());
}

} // namespace

AttentionScratch::~AttentionScratch()
{
    for (DeviceBuffer* b : {&m_xn, &m_q, &m_k, &m_v, &m_attn, &m_scores})
        m_device.free(*b);
}

std::uint64_t AttentionScratch::bytesFor(const Device& device, const AttentionParams& params, int maxTokens)
{
    const ScratchSizes s = scratchSizes(params, maxTokens);
    std::uint64_t total = 0;
    for (std::int64_t floats : {s.xn, s.q, s.k, s.v, s.attn, s.scores})
        total += device.chargedBytes(std::uint64_t(floats) * 4);
    return total;
}

Result<std::unique_ptr<AttentionScratch>> AttentionScratch::create(Device& device, const AttentionParams& params,
                                                                   int maxTokens)
{
    HEARTH_TRY(params.validate());
    if (maxTokens <= 0)
        return Status(ErrorCode::InvalidArgument, "device attention: the batch must hold a token");
    std::unique_ptr<AttentionScratch> s(new AttentionScratch(device));
    s->m_maxTokens = maxTokens;
    const ScratchSizes sizes = scratchSizes(params, maxTokens);
    const struct {
        DeviceBuffer* buffer;
        std::int64_t floats;
        const char* label;
    } items[] = {{&s->m_xn, sizes.xn, "attention input"}, {&s->m_q, sizes.q, "q"},
                 {&s->m_k, sizes.k, "k"},                 {&s->m_v, sizes.v, "v"},
                 {&s->m_attn, sizes.attn, "attention output"}, {&s->m_scores, sizes.scores, "attention scores"}};
    for (const auto& item : items) {
        auto b = device.allocate(std::uint64_t(item.floats) * 4, item.label);
        if (!b)
            return b.status(); // the destructor frees what was made
        *item.buffer = *b;
    }
    return s;
}

// --- DeviceAttentionLayer ---

namespace {

// @p p with what the layer of @p w does its own way (its window, its RoPE).
AttentionParams layerParams(AttentionParams p, const AttentionWeights& w)
{
    if (w.window >= 0)
        p.slidingWindow = w.window;
    if (w.freqBase > 0.0f)
        p.freqBase = w.freqBase;
    if (w.freqScale > 0.0f)
        p.freqScale = w.freqScale;
    if (w.attnFactor > 0.0f)
        p.attnFactor = w.attnFactor;
    if (!w.rotate)
        p.rope = RopeStyle::None;
    return p;
}

} // namespace

DeviceAttentionLayer::DeviceAttentionLayer(Device& device, const AttentionParams& params, const AttentionWeights& weights)
    : m_device(device)
    , m_p(layerParams(params, weights))
    , m_inputMajor(weights.inputMajor)
{
}

DeviceAttentionLayer::~DeviceAttentionLayer()
{
    release();
}

std::vector<DeviceBuffer*> DeviceAttentionLayer::buffers()
{
    return {&m_norm, &m_normBias, &m_ropeFreqs, &m_wq.data, &m_wk.data, &m_wv.data, &m_wo.data, &m_wqkv.data,
            &m_bq,   &m_bk,       &m_bv,        &m_bo,      &m_qNorm,   &m_kNorm,   &m_sinks,   &m_kCache,
            &m_vCache};
}

void DeviceAttentionLayer::release()
{
    for (DeviceBuffer* b : buffers())
        m_device.free(*b);
}

std::uint64_t DeviceAttentionLayer::deviceBytes() const
{
    std::uint64_t total = 0;
    for (const DeviceBuffer* b : const_cast<DeviceAttentionLayer*>(this)->buffers())
        total += b->charged;
    return total;
}

std::uint64_t DeviceAttentionLayer::bytesFor(const Device& device, const AttentionParams& p, const AttentionWeights& w)
{
    const std::uint64_t cache = std::uint64_t(p.kvDim()) * std::uint64_t(layerParams(p, w).cacheRows()) * p.cacheElementBytes();
    std::uint64_t total = 2 * device.chargedBytes(cache);
    for (const VectorItem& v : vectorItems(p, w)) {
        if (v.src)
            total += device.chargedBytes(std::uint64_t(v.floats) * 4);
    }
    for (const cpu::WeightMatrix* m : matrices(p, w))
        total += device.chargedBytes(matrixBytes(*m));
    return total;
}

Result<std::unique_ptr<DeviceAttentionLayer>> DeviceAttentionLayer::create(Device& device, const AttentionParams& p,
                                                                           const AttentionWeights& w)
{
    HEARTH_TRY(p.validate());
    if (!shapesMatch(p, w))
        return Status(ErrorCode::InvalidArgument, "device attention: the tensors do not match the model");
    std::unique_ptr<DeviceAttentionLayer> l(new DeviceAttentionLayer(device, p, w));
    DeviceBuffer* vectorTargets[] = {&l->m_norm, &l->m_normBias, &l->m_bq,        &l->m_bk,
                                     &l->m_bv,   &l->m_bo,       &l->m_ropeFreqs, &l->m_qNorm, &l->m_kNorm,
                                     &l->m_sinks};
    const std::vector<VectorItem> vectors = vectorItems(p, w);
    for (std::size_t i = 0; i < vectors.size(); ++i) {
        if (!vectors[i].src)
            continue;
        auto b = device.allocateAndUpload(vectors[i].src, std::uint64_t(vectors[i].floats) * 4, vectors[i].label);
        if (!b)
            return b.status(); // the destructor frees what was made
        *vectorTargets[i] = *b;
    }
    const struct {
        const cpu::WeightMatrix* src;
        DeviceMatrix* dst;
        const char* label;
    } separate[] = {{&w.wq, &l->m_wq, "attn_q"}, {&w.wk, &l->m_wk, "attn_k"}, {&w.wv, &l->m_wv, "attn_v"},
                    {&w.wo, &l->m_wo, "attn_output"}},
      fused[] = {{&w.wqkv, &l->m_wqkv, "attn_qkv"}, {&w.wo, &l->m_wo, "attn_output"}};
    const auto upload = [&](const auto& items) -> Status {
        for (const auto& item : items) {
            auto m = device.uploadMatrix(item.src->type, item.src->data, item.src->rows, item.src->cols, item.label);
            if (!m)
                return m.status();
            *item.dst = *m;
        }
        return {};
    };
    HEARTH_TRY(p.fusedQkv ? upload(fused) : upload(separate));
    const std::uint64_t cacheBytes = std::uint64_t(p.kvDim()) * std::uint64_t(l->m_p.cacheRows()) * p.cacheElementBytes();
    auto cache = device.allocate(cacheBytes, "K cache");
    if (!cache)
        return cache.status();
    l->m_kCache = *cache;
    cache = device.allocate(cacheBytes, "V cache");
    if (!cache)
        return cache.status();
    l->m_vCache = *cache;
    return l;
}

Status DeviceAttentionLayer::enqueue(AttentionScratch& s, const DeviceBuffer& x, const DeviceBuffer& out, int n,
                                     int start, KvMirror mirror)
{
    if (n <= 0 || n > s.m_maxTokens || start < 0 || start + n > m_p.contextLength)
        return Status(ErrorCode::InvalidArgument, "device attention: bad batch or position");
    Device& d = m_device;
    const std::uint64_t qBytes = std::uint64_t(m_p.qDim()) * 4;
    const std::uint64_t qRowBytes = std::uint64_t(m_p.qRow()) * 4;
    const std::uint64_t kvBytes = std::uint64_t(m_p.kvDim()) * 4;
    if (m_p.norm == NormKind::Rms)
        HEARTH_TRY(d.rmsNorm(RmsNormOp{x, m_norm, m_p.normEps, m_p.nEmbd, n, s.m_xn}));
    else
        HEARTH_TRY(d.layerNorm(LayerNormOp{x, m_norm, m_normBias, m_p.normEps, m_p.nEmbd, n, s.m_xn}));
    if (m_p.fusedQkv) {
        HEARTH_TRY(d.matmul(MatmulOp{&m_wqkv, s.m_xn, s.m_q, n}));
    } else {
        HEARTH_TRY(d.matmul(MatmulOp{&m_wq, s.m_xn, s.m_q, n, m_inputMajor}));
        HEARTH_TRY(d.matmul(MatmulOp{&m_wk, s.m_xn, s.m_k, n, m_inputMajor}));
        HEARTH_TRY(d.matmul(MatmulOp{&m_wv, s.m_xn, s.m_v, n, m_inputMajor}));
        if (!m_bq.empty())
            HEARTH_TRY(d.biasAdd(BiasAddOp{s.m_q, m_bq, m_p.qDim(), n}));
        if (!m_bk.empty())
            HEARTH_TRY(d.biasAdd(BiasAddOp{s.m_k, m_bk, m_p.kvDim(), n}));
        if (!m_bv.empty())
            HEARTH_TRY(d.biasAdd(BiasAddOp{s.m_v, m_bv, m_p.kvDim(), n}));
        if (!m_qNorm.empty()) {
            // Every head of every token is one row of headDim.
            HEARTH_TRY(d.rmsNorm(RmsNormOp{s.m_q, m_qNorm, m_p.normEps, m_p.headDim, std::int64_t(n) * m_p.nHead, s.m_q}));
            HEARTH_TRY(d.rmsNorm(RmsNormOp{s.m_k, m_kNorm, m_p.normEps, m_p.headDim, std::int64_t(n) * m_p.nHeadKv, s.m_k}));
        }
    }
    // The attention op takes one token: the batch goes through it in order, each token seeing
    // the rows its predecessors stored (causal, as on the CPU).
    for (int t = 0; t < n; ++t) {
        AttentionOp a;
        const std::uint64_t row = std::uint64_t(t) * qRowBytes;
        a.q = slice(s.m_q, row, qBytes);
        if (m_p.fusedQkv) {
            // Token t's K and V follow its Q in the fused row.
            a.k = slice(s.m_q, row + qBytes, kvBytes);
            a.v = slice(s.m_q, row + qBytes + kvBytes, kvBytes);
        } else {
            a.k = slice(s.m_k, std::uint64_t(t) * kvBytes, kvBytes);
            a.v = slice(s.m_v, std::uint64_t(t) * kvBytes, kvBytes);
        }
        a.kCache = m_kCache;
        a.vCache = m_vCache;
        a.scores = s.m_scores;
        a.out = slice(s.m_attn, std::uint64_t(t) * qBytes, qBytes);
        a.pos = start + t;
        a.capacity = m_p.cacheRows();
        a.nHead = m_p.nHead;
        a.nHeadKv = m_p.nHeadKv;
        a.headDim = m_p.headDim;
        a.nRot = m_p.rope == RopeStyle::None ? 0 : m_p.nRot;
        a.freqBase = m_p.freqBase;
        a.freqScale = m_p.freqScale;
        a.freqFactors = m_ropeFreqs;
        a.attnFactor = m_p.attnFactor;
        a.window = m_p.slidingWindow;
        a.rope = m_p.rope;
        a.scale = m_p.scale;
        a.softCap = m_p.softCap;
        a.halfCache = m_p.halfCache;
        a.sinks = m_sinks;
        HEARTH_TRY(d.attention(a));
    }
    HEARTH_TRY(d.matmul(MatmulOp{&m_wo, s.m_attn, out, n, m_inputMajor}));
    if (!m_bo.empty())
        HEARTH_TRY(d.biasAdd(BiasAddOp{out, m_bo, m_p.nEmbd, n}));
    if (mirror.k && mirror.v) {
        // The batch's rows, in two pieces when a sliding window's rows wrap around.
        const int rows = m_p.cacheRows();
        const int slot = start % rows;
        const int first = std::min(n, rows - slot);
        const std::uint64_t rowBytes = std::uint64_t(m_p.kvDim()) * m_p.cacheElementBytes();
        const struct {
            int slot, count;
            std::uint64_t hostRow;
        } pieces[] = {{slot, first, 0}, {0, n - first, std::uint64_t(first)}};
        for (const auto& piece : pieces) {
            if (piece.count == 0)
                continue;
            const std::uint64_t offset = std::uint64_t(piece.slot) * rowBytes;
            const std::uint64_t bytes = std::uint64_t(piece.count) * rowBytes;
            HEARTH_TRY(d.download(m_kCache, offset, static_cast<std::byte*>(mirror.k) + piece.hostRow * rowBytes, bytes));
            HEARTH_TRY(d.download(m_vCache, offset, static_cast<std::byte*>(mirror.v) + piece.hostRow * rowBytes, bytes));
        }
    }
    return {};
}

} // namespace hearth::device
