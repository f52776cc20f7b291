// SPDX-License-Identifier: MIT
#include "device/dense_offload.h"

#include "sparse/scratch_layout.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace hearth::device {

DenseOffload::~DenseOffload()
{
    for (Layer& l : m_layers)
        freeLayer(l);
    freeScratch();
}

void DenseOffload::freeScratch()
{
    m_attnScratch.reset();
    for (DeviceBuffer* b : {&m_x, &m_xn, &m_tmp, &m_ffnOut, &m_gate, &m_up})
        m_device.free(*b);
}

void DenseOffload::freeLayer(Layer& l)
{
    l.attention.reset();
    for (DeviceBuffer* b : Layer::buffers(l))
        m_device.free(*b);
}

std::uint64_t DenseOffload::deviceBytes() const
{
    if (!m_attnScratch)
        return 0;
    std::uint64_t total = AttentionScratch::bytesFor(m_device, m_p, m_batch);
    for (const DeviceBuffer* b : {&m_x, &m_xn, &m_tmp, &m_ffnOut, &m_gate, &m_up})
        total += b->charged;
    for (const Layer& l : m_layers) {
        total += l.attention->deviceBytes();
        for (const DeviceBuffer* b : Layer::buffers(l))
            total += b->charged;
    }
    return total;
}

Status DenseOffload::uploadLayer(const DenseLayerWeights& w, Layer& l)
{
    auto attention = DeviceAttentionLayer::create(m_device, m_p, w);
    if (!attention)
        return attention.status();
    l.attention = std::move(attention).value();
    const struct {
        const float* src;
        std::int64_t floats;
        DeviceBuffer* dst;
        const char* label;
    } vectors[] = {{w.ffnNorm, m_p.nEmbd, &l.ffnNorm, "FFN norm"},
                   {w.ffnNormBias, m_p.nEmbd, &l.ffnNormBias, "FFN norm bias"},
                   {w.upBias, m_p.nFF, &l.upBias, "ffn_up bias"},
                   {w.downBias, m_p.nEmbd, &l.downBias, "ffn_down bias"},
                   {w.attnPostNorm, m_p.nEmbd, &l.attnPostNorm, "post-attention norm"},
                   {w.ffnPostNorm, m_p.nEmbd, &l.ffnPostNorm, "post-FFN norm"}};
    for (const auto& v : vectors) {
        if (!v.src)
            continue;
        auto b = m_device.allocateAndUpload(v.src, std::uint64_t(v.floats) * 4, v.label);
        if (!b)
            return b.status();
        *v.dst = *b;
    }
    const struct {
        const cpu::WeightMatrix* src;
        DeviceMatrix* dst;
        const char* label;
    } items[] = {{&w.gate, &l.gate, "ffn_gate"}, {&w.up, &l.up, "ffn_up"}, {&w.down, &l.down, "ffn_down"}};
    for (const auto& item : items) {
        if (!item.src->data)
            continue; // no gate in an up-only FFN
        auto m = m_device.uploadMatrix(item.src->type, item.src->data, item.src->rows, item.src->cols, item.label);
        if (!m)
            return m.status();
        *item.dst = *m;
    }
    l.gateUpInputMajor = w.gateUpInputMajor;
    l.downNeuronMajor = w.downNeuronMajor;
    return m_device.synchronize(); // the host weights may be unmapped after this
}

Result<std::unique_ptr<DenseOffload>> DenseOffload::create(Device& device, const DenseModelParams& p,
                                                           const std::vector<DenseLayerWeights>& layers, int maxLayers)
{
    if (!p.validate().ok() || p.nFF <= 0 || p.maxBatch <= 0 || int(p.activation) < 0
        || int(p.activation) > int(kLastActivation))
        return Status(ErrorCode::InvalidArgument, "dense offload: bad model parameters");
    const bool gated = isGated(p.activation);
    for (const DenseLayerWeights& w : layers) {
        // The attention's own shapes are checked when it is made; the FFN's here.
        if (!w.norm || !w.ffnNorm || (gated && (!w.gate.data || !mapsWidths(w.gate, p.nEmbd, p.nFF, w.gateUpInputMajor)))
            || !mapsWidths(w.up, p.nEmbd, p.nFF, w.gateUpInputMajor) || !mapsWidths(w.down, p.nFF, p.nEmbd, w.downNeuronMajor))
            return Status(ErrorCode::InvalidArgument, "dense offload: a layer's tensors do not match the model");
    }
    std::unique_ptr<DenseOffload> d(new DenseOffload(device));
    d->m_p = p;
    // The scratch grows with the batch while a layer's weights do not (the planner counts the
    // same rows: sparse::scratchLayout).
    d->m_batch = std::min(p.maxBatch, int(sparse::kDenseOffloadRows));
    const std::size_t wanted = maxLayers < 0 ? layers.size() : std::min(layers.size(), std::size_t(maxLayers));
    if (wanted == 0)
        return d;

    const std::uint64_t rows = std::uint64_t(d->m_batch);
    auto scratch = AttentionScratch::create(device, p, d->m_batch);
    Status failed = scratch ? Status() : scratch.status();
    if (scratch)
        d->m_attnScratch = std::move(scratch).value();
    const struct {
        DeviceBuffer* buffer;
        std::int64_t floats;
        const char* label;
    } items[] = {{&d->m_x, p.nEmbd, "residual"},
                 {&d->m_xn, p.nEmbd, "FFN input"},
                 {&d->m_tmp, p.nEmbd, "block output"},
                 {&d->m_ffnOut, p.parallelBlock ? p.nEmbd : 0, "FFN output"},
                 {&d->m_gate, gated ? p.nFF : 0, "FFN gate"},
                 {&d->m_up, p.nFF, "FFN up"}};
    for (const auto& item : items) {
        if (!failed.ok())
            break;
        if (item.floats == 0)
            continue; // not used by this block
        auto b = device.allocate(rows * std::uint64_t(item.floats) * 4, item.label);
        if (!b)
            failed = b.status();
        else
            *item.buffer = *b;
    }
    if (!failed.ok()) {
        d->freeScratch();
        if (failed.code() != ErrorCode::OutOfMemory)
            return failed;
        d->m_limit = "the device cannot hold the work buffers: " + failed.message();
        return d;
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
        d->m_layers.push_back(std::move(l));
    }
    if (d->m_layers.empty())
        d->freeScratch(); // nothing to run: give the budget back
    return d;
}

Status DenseOffload::forward(float* x, std::int32_t pos)
{
    return forward(x, 1, pos, nullptr);
}

Status DenseOffload::enqueueNorm(const Layer& l, const DeviceBuffer& x, const DeviceBuffer& out, int count)
{
    if (m_p.norm == NormKind::Rms)
        return m_device.rmsNorm(RmsNormOp{x, l.ffnNorm, m_p.normEps, m_p.nEmbd, count, out});
    return m_device.layerNorm(LayerNormOp{x, l.ffnNorm, l.ffnNormBias, m_p.normEps, m_p.nEmbd, count, out});
}

Status DenseOffload::enqueuePostNorm(const DeviceBuffer& weight, const DeviceBuffer& x, int count)
{
    if (weight.empty())
        return {};
    return m_device.rmsNorm(RmsNormOp{x, weight, m_p.normEps, m_p.nEmbd, count, x});
}

Status DenseOffload::enqueueFfn(Layer& l, const DeviceBuffer& in, const DeviceBuffer& out, int count)
{
    Device& d = m_device;
    const std::int64_t hidden = std::int64_t(count) * m_p.nFF;
    if (isGated(m_p.activation)) {
        HEARTH_TRY(d.matmul(MatmulOp{&l.gate, in, m_gate, count, l.gateUpInputMajor}));
        HEARTH_TRY(d.matmul(MatmulOp{&l.up, in, m_up, count, l.gateUpInputMajor}));
        HEARTH_TRY(d.activate(ActivateOp{m_p.activation, m_gate, m_up, hidden}));
        HEARTH_TRY(d.matmul(MatmulOp{&l.down, m_gate, out, count, l.downNeuronMajor}));
    } else {
        // down . act(up . x + upBias) + downBias, as model::DenseFfn.
        HEARTH_TRY(d.matmul(MatmulOp{&l.up, in, m_up, count, l.gateUpInputMajor}));
        if (!l.upBias.empty())
            HEARTH_TRY(d.biasAdd(BiasAddOp{m_up, l.upBias, m_p.nFF, count}));
        HEARTH_TRY(d.activate(ActivateOp{m_p.activation, m_up, {}, hidden}));
        HEARTH_TRY(d.matmul(MatmulOp{&l.down, m_up, out, count, l.downNeuronMajor}));
    }
    if (!l.downBias.empty())
        HEARTH_TRY(d.biasAdd(BiasAddOp{out, l.downBias, m_p.nEmbd, count}));
    return {};
}

Status DenseOffload::forward(float* x, int n, int start, const KvMirror* mirrors)
{
    if (m_layers.empty())
        return {};
    if (!x || n <= 0 || start < 0 || start + n > m_p.contextLength)
        return Status(ErrorCode::InvalidArgument, "dense offload: bad input or position");
    const Status queued = enqueueForward(x, n, start, mirrors);
    // Also after a failure: queued copies may still write to x and the mirrors.
    const Status ran = m_device.synchronize();
    return queued.ok() ? ran : queued;
}

Status DenseOffload::enqueueForward(float* x, int n, int start, const KvMirror* mirrors)
{
    Device& d = m_device;
    const std::int64_t nEmbd = m_p.nEmbd;
    const std::size_t kvDim = std::size_t(m_p.nHeadKv) * std::size_t(m_p.headDim);
    for (int done = 0; done < n; done += m_batch) {
        const int count = std::min(m_batch, n - done);
        float* rows = x + std::size_t(done) * std::size_t(nEmbd);
        const std::uint64_t bytes = std::uint64_t(count) * std::uint64_t(nEmbd) * 4;
        HEARTH_TRY(d.upload(m_x, 0, rows, bytes));
        for (std::size_t i = 0; i < m_layers.size(); ++i) {
            Layer& l = m_layers[i];
            KvMirror mirror;
            if (mirrors && mirrors[i].k && mirrors[i].v) {
                const std::size_t skip = std::size_t(done) * kvDim * m_p.cacheElementBytes();
                mirror = {static_cast<std::byte*>(mirrors[i].k) + skip, static_cast<std::byte*>(mirrors[i].v) + skip};
            }
            if (m_p.parallelBlock) {
                // Both halves read the layer input; the sums go in the CPU's order.
                HEARTH_TRY(enqueueNorm(l, m_x, m_xn, count));
                HEARTH_TRY(l.attention->enqueue(*m_attnScratch, m_x, m_tmp, count, start + done, mirror));
                HEARTH_TRY(enqueueFfn(l, m_xn, m_ffnOut, count));
                HEARTH_TRY(d.add(AddOp{m_x, m_tmp, count * nEmbd}));
                HEARTH_TRY(d.add(AddOp{m_x, m_ffnOut, count * nEmbd}));
            } else {
                HEARTH_TRY(l.attention->enqueue(*m_attnScratch, m_x, m_tmp, count, start + done, mirror));
                HEARTH_TRY(enqueuePostNorm(l.attnPostNorm, m_tmp, count));
                HEARTH_TRY(d.add(AddOp{m_x, m_tmp, count * nEmbd}));
                HEARTH_TRY(enqueueNorm(l, m_x, m_xn, count));
                HEARTH_TRY(enqueueFfn(l, m_xn, m_tmp, count));
                HEARTH_TRY(enqueuePostNorm(l.ffnPostNorm, m_tmp, count));
                HEARTH_TRY(d.add(AddOp{m_x, m_tmp, count * nEmbd}));
            }
        }
        HEARTH_TRY(d.download(m_x, 0, rows, bytes));
    }
    return {};
}

} // namespace hearth::device
