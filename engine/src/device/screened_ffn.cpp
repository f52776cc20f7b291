// SPDX-License-Identifier: MIT
#include "device/screened_ffn.h"

#include "cpu/ops.h"

#include <algorithm>
#include <new>

namespace hearth::device {

Result<std::unique_ptr<ScreenedFfnLayer>> ScreenedFfnLayer::create(Device& device, HybridFfnScratch& scratch,
                                                                   const ScreenedFfnWeights& w, std::int64_t hot)
{
    const std::int64_t nFf = w.gate.rows;
    if (!w.gate.data || !w.up.data || !w.downT.data || !w.gateFloor || !w.activationFloor || w.up.rows != nFf
        || w.downT.rows != nFf || w.up.cols != w.gate.cols || w.downT.cols != w.gate.cols || hot < 0 || hot > nFf)
        return Status(ErrorCode::InvalidArgument, "screened FFN: bad weights or hot count");
    if (hot > scratch.maxHot() || w.gate.cols != scratch.nEmbd())
        return Status(ErrorCode::InvalidArgument, "screened FFN scratch is too small for the layer");
    std::unique_ptr<ScreenedFfnLayer> layer(new ScreenedFfnLayer(device, scratch));
    layer->m_activation = w.activation;
    if (hot == 0)
        return layer;
    // The first rows of each matrix, as the file stores them.
    const cpu::WeightMatrix* sources[3] = {&w.gate, &w.up, &w.downT};
    DeviceMatrix* targets[3] = {&layer->m_gate, &layer->m_up, &layer->m_downT};
    const char* labels[3] = {"hot FFN gate rows", "hot FFN up rows", "hot FFN down rows"};
    for (int i = 0; i < 3; ++i) {
        auto m = device.uploadMatrix(sources[i]->type, sources[i]->data, hot, sources[i]->cols, labels[i]);
        if (!m)
            return m.status(); // the layer's destructor frees what was uploaded
        *targets[i] = *m;
    }
    layer->m_hot = hot;
    auto gateFloor = device.allocateAndUpload(w.gateFloor, std::uint64_t(hot) * 4, "hot FFN gate floors");
    if (!gateFloor)
        return gateFloor.status();
    layer->m_gateFloor = *gateFloor;
    auto activationFloor = device.allocateAndUpload(w.activationFloor, std::uint64_t(hot) * 4, "hot FFN activation floors");
    if (!activationFloor)
        return activationFloor.status();
    layer->m_activationFloor = *activationFloor;
    HEARTH_TRY(device.synchronize());
    return layer;
}

ScreenedFfnLayer::~ScreenedFfnLayer()
{
    for (DeviceBuffer* b : {&m_gate.data, &m_up.data, &m_downT.data, &m_gateFloor, &m_activationFloor})
        m_device.free(*b);
}

Status ScreenedFfnLayer::queue(const float* x, int tokens, const float* scales)
{
    if (m_hot == 0 || tokens <= 0)
        return Status(ErrorCode::InvalidArgument, "screened FFN: nothing on the device, or no tokens");
    Device& d = m_device;
    HybridFfnScratch& s = m_scratch;
    const std::int64_t nEmbd = s.m_nEmbd;
    try {
        m_out.resize(std::size_t(tokens) * std::size_t(nEmbd));
    } catch (const std::bad_alloc&) {
        return Status(ErrorCode::OutOfMemory, "not enough memory for the FFN layer's output");
    }
    // A slice of the scratch's rows at a time; each runs while the host works on the rest.
    const Status queued = [&]() -> Status {
        for (std::int64_t t0 = 0; t0 < tokens; t0 += s.m_rows) {
            const std::int64_t n = std::min<std::int64_t>(s.m_rows, tokens - t0);
            HEARTH_TRY(d.upload(s.m_x, 0, x + t0 * nEmbd, std::uint64_t(n * nEmbd) * 4));
            HEARTH_TRY(d.upload(s.m_scale, 0, scales + t0, std::uint64_t(n) * 4));
            HEARTH_TRY(d.matmul(MatmulOp{&m_gate, s.m_x, s.m_gate, n}));
            HEARTH_TRY(d.matmul(MatmulOp{&m_up, s.m_x, s.m_up, n}));
            ActivateOp activate{m_activation, s.m_gate, s.m_up, n * m_hot};
            activate.gateFloor = m_gateFloor;
            activate.activationFloor = m_activationFloor;
            activate.floorScale = s.m_scale;
            activate.floorWidth = m_hot;
            HEARTH_TRY(d.activate(activate));
            HEARTH_TRY(d.matmul(MatmulOp{&m_downT, s.m_gate, s.m_y, n, true}));
            HEARTH_TRY(d.download(s.m_y, 0, m_out.data() + t0 * nEmbd, std::uint64_t(n * nEmbd) * 4));
        }
        return {};
    }();
    if (!queued.ok())
        (void)d.synchronize();
    return queued;
}

Status ScreenedFfnLayer::addTo(float* y, int tokens)
{
    HEARTH_TRY(m_device.synchronize());
    if (std::size_t(tokens) * std::size_t(m_scratch.m_nEmbd) != m_out.size())
        return Status(ErrorCode::InvalidArgument, "screened FFN: not the tokens queued");
    cpu::add(y, m_out.data(), std::int64_t(m_out.size()));
    return {};
}

} // namespace hearth::device
