// SPDX-License-Identifier: MIT
#include "device/dense_offload.h"

namespace hearth::device {

DenseOffload::~DenseOffload()
{
    for (Layer& l : m_layers)
        freeLayer(l);
    for (DeviceBuffer* b : {&m_x, &m_xn, &m_q, &m_k, &m_v, &m_attn, &m_tmp, &m_gate, &m_up, &m_scores})
        m_device.free(*b);
}

void DenseOffload::freeLayer(Layer& l)
{
    for (DeviceBuffer* b : {&l.attnNorm, &l.ffnNorm, &l.wq.data, &l.wk.data, &l.wv.data, &l.wo.data, &l.gate.data,
                            &l.up.data, &l.down.data, &l.kCache, &l.vCache})
        m_device.free(*b);
}

Status DenseOffload::uploadLayer(const DenseLayerWeights& w, Layer& l)
{
    const std::uint64_t normBytes = std::uint64_t(m_p.nEmbd) * 4;
    const std::uint64_t cacheBytes = std::uint64_t(m_p.nHeadKv) * std::uint64_t(m_p.headDim) * 4
                                     * std::uint64_t(m_p.contextLength);
    auto norm = m_device.allocateAndUpload(w.attnNorm, normBytes, "attention norm");
    if (!norm)
        return norm.status();
    l.attnNorm = *norm;
    norm = m_device.allocateAndUpload(w.ffnNorm, normBytes, "FFN norm");
    if (!norm)
        return norm.status();
    l.ffnNorm = *norm;
    struct Item {
        const cpu::WeightMatrix* src;
        DeviceMatrix* dst;
        const char* label;
    } items[] = {{&w.wq, &l.wq, "attn_q"},   {&w.wk, &l.wk, "attn_k"}, {&w.wv, &l.wv, "attn_v"},
                 {&w.wo, &l.wo, "attn_output"}, {&w.gate, &l.gate, "ffn_gate"}, {&w.up, &l.up, "ffn_up"},
                 {&w.down, &l.down, "ffn_down"}};
    for (const Item& item : items) {
        auto m = m_device.uploadMatrix(item.src->type, item.src->data, item.src->rows, item.src->cols, item.label);
        if (!m)
            return m.status();
        *item.dst = *m;
    }
    auto cache = m_device.allocate(cacheBytes, "K cache");
    if (!cache)
        return cache.status();
    l.kCache = *cache;
    cache = m_device.allocate(cacheBytes, "V cache");
    if (!cache)
        return cache.status();
    l.vCache = *cache;
    return m_device.synchronize(); // the host weights may be unmapped after this
}

Result<std::unique_ptr<DenseOffload>> DenseOffload::create(Device& device, const DenseModelParams& p,
                                                           const std::vector<DenseLayerWeights>& layers, int maxLayers)
{
    if (p.nEmbd <= 0 || p.nHead <= 0 || p.nHeadKv <= 0 || p.headDim <= 0 || p.nFF <= 0 || p.contextLength <= 0
        || p.nHead % p.nHeadKv != 0 || p.nRot < 0 || p.nRot > p.headDim)
        return Status(ErrorCode::InvalidArgument, "dense offload: bad model parameters");
    const std::int64_t qDim = std::int64_t(p.nHead) * p.headDim;
    const std::int64_t kvDim = std::int64_t(p.nHeadKv) * p.headDim;
    for (const DenseLayerWeights& w : layers) {
        if (!w.attnNorm || !w.ffnNorm || w.wq.rows != qDim || w.wq.cols != p.nEmbd || w.wk.rows != kvDim
            || w.wv.rows != kvDim || w.wo.rows != p.nEmbd || w.wo.cols != qDim || w.gate.rows != p.nFF
            || w.up.rows != p.nFF || w.down.rows != p.nEmbd || w.down.cols != p.nFF)
            return Status(ErrorCode::InvalidArgument, "dense offload: a layer's tensors do not match the model");
    }
    std::unique_ptr<DenseOffload> d(new DenseOffload(device));
    d->m_p = p;
    const std::size_t wanted = maxLayers < 0 ? layers.size() : std::min(layers.size(), std::size_t(maxLayers));
    if (wanted == 0)
        return d;

    struct Scratch {
        DeviceBuffer* buffer;
        std::int64_t floats;
        const char* label;
    } scratch[] = {{&d->m_x, p.nEmbd, "residual"},          {&d->m_xn, p.nEmbd, "norm output"},
                   {&d->m_q, qDim, "q"},                      {&d->m_k, kvDim, "k"},
                   {&d->m_v, kvDim, "v"},                     {&d->m_attn, qDim, "attention output"},
                   {&d->m_tmp, p.nEmbd, "block output"},      {&d->m_gate, p.nFF, "FFN gate"},
                   {&d->m_up, p.nFF, "FFN up"},
                   {&d->m_scores, std::int64_t(p.nHead) * p.contextLength, "attention scores"}};
    for (const Scratch& s : scratch) {
        auto b = device.allocate(std::uint64_t(s.floats) * 4, s.label);
        if (!b) {
            if (b.code() != ErrorCode::OutOfMemory)
                return b.status();
            d->m_limit = "the device cannot hold the work buffers: " + b.message();
            for (const Scratch& t : scratch)
                device.free(*t.buffer);
            return d;
        }
        *s.buffer = *b;
    }
    for (std::size_t i = 0; i < wanted; ++i) {
        Layer l;
        const Status s = d->uploadLayer(layers[i], l);
        if (!s.ok()) {
            d->freeLayer(l);
            if (s.code() != ErrorCode::OutOfMemory)
                return s;
            d->m_limit = "layer " + std::to_string(i) + " does not fit: " + s.message();
            break;
        }
        d->m_layers.push_back(l);
    }
    return d;
}

Status DenseOffload::forward(float* x, std::int32_t pos)
{
    if (m_layers.empty())
        return {};
    if (!x || pos < 0 || pos >= m_p.contextLength)
        return Status(ErrorCode::InvalidArgument, "dense offload: bad input or position");
    Device& d = m_device;
    const std::int64_t n = m_p.nEmbd;
    HEARTH_TRY(d.upload(m_x, 0, x, std::uint64_t(n) * 4));
    for (Layer& l : m_layers) {
        HEARTH_TRY(d.rmsNorm(RmsNormOp{m_x, l.attnNorm, m_p.normEps, n, 1, m_xn}));
        HEARTH_TRY(d.matmul(MatmulOp{&l.wq, m_xn, m_q, 1}));
        HEARTH_TRY(d.matmul(MatmulOp{&l.wk, m_xn, m_k, 1}));
        HEARTH_TRY(d.matmul(MatmulOp{&l.wv, m_xn, m_v, 1}));
        AttentionOp a;
        a.q = m_q;
        a.k = m_k;
        a.v = m_v;
        a.kCache = l.kCache;
        a.vCache = l.vCache;
        a.scores = m_scores;
        a.out = m_attn;
        a.pos = pos;
        a.capacity = m_p.contextLength;
        a.nHead = m_p.nHead;
        a.nHeadKv = m_p.nHeadKv;
        a.headDim = m_p.headDim;
        a.nRot = m_p.nRot;
        a.freqBase = m_p.freqBase;
        a.freqScale = m_p.freqScale;
        HEARTH_TRY(d.attention(a));
        HEARTH_TRY(d.matmul(MatmulOp{&l.wo, m_attn, m_tmp, 1}));
        HEARTH_TRY(d.add(AddOp{m_x, m_tmp, n}));
        HEARTH_TRY(d.rmsNorm(RmsNormOp{m_x, l.ffnNorm, m_p.normEps, n, 1, m_xn}));
        HEARTH_TRY(d.matmul(MatmulOp{&l.gate, m_xn, m_gate, 1}));
        HEARTH_TRY(d.matmul(MatmulOp{&l.up, m_xn, m_up, 1}));
        HEARTH_TRY(d.activate(ActivateOp{m_p.activation, m_gate, m_up, m_p.nFF}));
        HEARTH_TRY(d.matmul(MatmulOp{&l.down, m_gate, m_tmp, 1}));
        HEARTH_TRY(d.add(AddOp{m_x, m_tmp, n}));
    }
    HEARTH_TRY(d.download(m_x, 0, x, std::uint64_t(n) * 4));
    return d.synchronize();
}

} // namespace hearth::device
