// SPDX-License-Identifier: MIT
#include "device/device_attention.h"

#include <string>

namespace hearth::device {

Status AttentionParams::validate() const
{
    if (nEmbd <= 0 || nHead <= 0 || nHeadKv <= 0 || headDim <= 0 || contextLength <= 0 || nHead % nHeadKv != 0
        || nRot < 0 || nRot > headDim || nRot % 2 != 0)
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
    return {t * p.nEmbd, t * p.qDim(), t * p.kvDim(), t * p.kvDim(), t * p.qDim(),
            std::int64_t(p.nHead) * p.contextLength};
}

std::uint64_t matrixBytes(const cpu::WeightMatrix& w)
{
    return std::uint64_t(rowBytes(w.type, w.cols)) * std::uint64_t(w.rows);
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

DeviceAttentionLayer::~DeviceAttentionLayer()
{
    release();
}

void DeviceAttentionLayer::release()
{
    for (DeviceBuffer* b : {&m_norm, &m_wq.data, &m_wk.data, &m_wv.data, &m_wo.data, &m_kCache, &m_vCache})
        m_device.free(*b);
}

std::uint64_t DeviceAttentionLayer::deviceBytes() const
{
    std::uint64_t total = 0;
    for (const DeviceBuffer* b : {&m_norm, &m_wq.data, &m_wk.data, &m_wv.data, &m_wo.data, &m_kCache, &m_vCache})
        total += b->charged;
    return total;
}

std::uint64_t DeviceAttentionLayer::bytesFor(const Device& device, const AttentionParams& p, const AttentionWeights& w)
{
    const std::uint64_t cache = std::uint64_t(p.kvDim()) * std::uint64_t(p.contextLength) * 4;
    return device.chargedBytes(std::uint64_t(p.nEmbd) * 4) + device.chargedBytes(matrixBytes(w.wq))
           + device.chargedBytes(matrixBytes(w.wk)) + device.chargedBytes(matrixBytes(w.wv))
           + device.chargedBytes(matrixBytes(w.wo)) + 2 * device.chargedBytes(cache);
}

Result<std::unique_ptr<DeviceAttentionLayer>> DeviceAttentionLayer::create(Device& device, const AttentionParams& p,
                                                                           const AttentionWeights& w)
{
    HEARTH_TRY(p.validate());
    if (!w.norm || w.wq.rows != p.qDim() || w.wq.cols != p.nEmbd || w.wk.rows != p.kvDim() || w.wk.cols != p.nEmbd
        || w.wv.rows != p.kvDim() || w.wv.cols != p.nEmbd || w.wo.rows != p.nEmbd || w.wo.cols != p.qDim())
        return Status(ErrorCode::InvalidArgument, "device attention: the tensors do not match the model");
    std::unique_ptr<DeviceAttentionLayer> l(new DeviceAttentionLayer(device, p));
    auto norm = device.allocateAndUpload(w.norm, std::uint64_t(p.nEmbd) * 4, "attention norm");
    if (!norm)
        return norm.status();
    l->m_norm = *norm;
    const struct {
        const cpu::WeightMatrix* src;
        DeviceMatrix* dst;
        const char* label;
    } items[] = {{&w.wq, &l->m_wq, "attn_q"}, {&w.wk, &l->m_wk, "attn_k"}, {&w.wv, &l->m_wv, "attn_v"},
                 {&w.wo, &l->m_wo, "attn_output"}};
    for (const auto& item : items) {
        auto m = device.uploadMatrix(item.src->type, item.src->data, item.src->rows, item.src->cols, item.label);
        if (!m)
            return m.status();
        *item.dst = *m;
    }
    const std::uint64_t cacheBytes = std::uint64_t(p.kvDim()) * std::uint64_t(p.contextLength) * 4;
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
    const std::uint64_t kvBytes = std::uint64_t(m_p.kvDim()) * 4;
    HEARTH_TRY(d.rmsNorm(RmsNormOp{x, m_norm, m_p.normEps, m_p.nEmbd, n, s.m_xn}));
    HEARTH_TRY(d.matmul(MatmulOp{&m_wq, s.m_xn, s.m_q, n}));
    HEARTH_TRY(d.matmul(MatmulOp{&m_wk, s.m_xn, s.m_k, n}));
    HEARTH_TRY(d.matmul(MatmulOp{&m_wv, s.m_xn, s.m_v, n}));
    // The attention op takes one token: the batch goes through it in order, each token seeing
    // the rows its predecessors stored (causal, as on the CPU).
    for (int t = 0; t < n; ++t) {
        AttentionOp a;
        a.q = slice(s.m_q, std::uint64_t(t) * qBytes, qBytes);
        a.k = slice(s.m_k, std::uint64_t(t) * kvBytes, kvBytes);
        a.v = slice(s.m_v, std::uint64_t(t) * kvBytes, kvBytes);
        a.kCache = m_kCache;
        a.vCache = m_vCache;
        a.scores = s.m_scores;
        a.out = slice(s.m_attn, std::uint64_t(t) * qBytes, qBytes);
        a.pos = start + t;
        a.capacity = m_p.contextLength;
        a.nHead = m_p.nHead;
        a.nHeadKv = m_p.nHeadKv;
        a.headDim = m_p.headDim;
        a.nRot = m_p.nRot;
        a.freqBase = m_p.freqBase;
        a.freqScale = m_p.freqScale;
        HEARTH_TRY(d.attention(a));
    }
    HEARTH_TRY(d.matmul(MatmulOp{&m_wo, s.m_attn, out, n}));
    if (mirror.k && mirror.v) {
        const std::uint64_t offset = std::uint64_t(start) * kvBytes;
        HEARTH_TRY(d.download(m_kCache, offset, mirror.k, std::uint64_t(n) * kvBytes));
        HEARTH_TRY(d.download(m_vCache, offset, mirror.v, std::uint64_t(n) * kvBytes));
    }
    return {};
}

} // namespace hearth::device
