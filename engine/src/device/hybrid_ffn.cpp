// SPDX-License-Identifier: MIT
#include "device/hybrid_ffn.h"

#include "cpu/ops.h"
#include "cpu/thread_pool.h"
#include "device/reference_ops.h"
#include "sparse/sparse_ffn.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <new>
#include <string>

namespace hearth::device {

namespace {

Status checkMatrix(const cpu::WeightMatrix& w, const char* name, std::int64_t rows, std::int64_t cols)
{
    if (!w.data)
        return Status(ErrorCode::Unsupported, std::string("FFN ") + name + ": missing");
    if (!isComputeType(w.type))
        return Status(ErrorCode::Unsupported, std::string("FFN ") + name + ": " + std::string(dtypeName(w.type))
                                                  + " rows, which the device's neuron kernels do not compute");
    if (w.rows != rows || w.cols != cols)
        return Status(ErrorCode::InvalidArgument, std::string("FFN ") + name + ": shape differs from the gate's");
    if (w.cols % computeBlockElements(w.type) != 0)
        return Status(ErrorCode::InvalidArgument, std::string("FFN ") + name + ": rows are not whole blocks of their type");
    return {};
}

// Copies rows @p ids of @p w, @p stride bytes apart, into one contiguous host block (the device
// upload's source).
std::vector<std::uint8_t> gatherRows(const cpu::WeightMatrix& w, std::size_t stride, const std::vector<std::int32_t>& ids)
{
    const std::size_t row = rowBytes(w.type, w.cols);
    std::vector<std::uint8_t> out(row * ids.size());
    const auto* base = static_cast<const std::uint8_t*>(w.data);
    for (std::size_t j = 0; j < ids.size(); ++j)
        std::memcpy(out.data() + j * row, base + std::size_t(ids[j]) * stride, row);
    return out;
}

} // namespace

FfnWeights FfnWeights::fused(const cpu::WeightMatrix& neurons, std::int64_t nEmbd, Activation activation)
{
    FfnWeights w;
    w.activation = activation;
    if (!neurons.data || neurons.cols != 3 * nEmbd)
        return w; // validate() says what is wrong
    const std::size_t row = rowBytes(neurons.type, nEmbd);
    const auto* base = static_cast<const std::uint8_t*>(neurons.data);
    w.gate = {neurons.type, base, neurons.rows, nEmbd};
    w.up = {neurons.type, base + row, neurons.rows, nEmbd};
    w.downT = {neurons.type, base + 2 * row, neurons.rows, nEmbd};
    w.rowStride = 3 * row;
    return w;
}

Status FfnWeights::validate() const
{
    if (gate.rows <= 0 || gate.cols <= 0)
        return Status(ErrorCode::InvalidArgument, "FFN gate: bad shape");
    if (rowStride != 0 && rowStride < rowBytes(gate.type, gate.cols))
        return Status(ErrorCode::InvalidArgument, "FFN: neuron rows overlap");
    HEARTH_TRY(checkMatrix(gate, "gate", gate.rows, gate.cols));
    HEARTH_TRY(checkMatrix(up, "up", gate.rows, gate.cols));
    HEARTH_TRY(checkMatrix(downT, "down_t", gate.rows, gate.cols));
    if (up.type != gate.type || downT.type != gate.type)
        return Status(ErrorCode::Unsupported, "FFN gate, up and down_t must share one weight type");
    if (int(activation) < 0 || int(activation) > 3 || !isGated(activation))
        return Status(ErrorCode::InvalidArgument, "FFN: unknown activation");
    return {};
}

// --- HybridFfnScratch ---

Result<std::unique_ptr<HybridFfnScratch>> HybridFfnScratch::create(Device& device, std::int64_t nEmbd,
                                                                   std::int64_t maxHot, std::int64_t rows)
{
    if (nEmbd <= 0 || maxHot < 0 || rows <= 0)
        return Status(ErrorCode::InvalidArgument, "hybrid FFN scratch: bad sizes");
    std::unique_ptr<HybridFfnScratch> s(new HybridFfnScratch(device));
    s->m_nEmbd = nEmbd;
    s->m_maxHot = maxHot;
    s->m_rows = rows;
    const std::uint64_t hot = std::uint64_t(std::max<std::int64_t>(maxHot, 1));
    const std::uint64_t r = std::uint64_t(rows);
    // On failure the destructor frees what was made.
    HEARTH_TRY(device.allocateEach({{&s->m_x, r * std::uint64_t(nEmbd) * 4, "FFN input"},
                                    {&s->m_slots, hot * 4, "FFN active hot slots"},
                                    {&s->m_mask, r * hot, "FFN hot neurons per prompt token"},
                                    {&s->m_gate, r * hot * 4, "FFN gate activations"},
                                    {&s->m_up, r * hot * 4, "FFN up activations"},
                                    {&s->m_y, r * std::uint64_t(nEmbd) * 4, "FFN device output"},
                                    {&s->m_scale, r * 4, "FFN residual scales"}}));
    return s;
}

HybridFfnScratch::~HybridFfnScratch()
{
    for (DeviceBuffer* b : {&m_x, &m_slots, &m_mask, &m_gate, &m_up, &m_y, &m_scale})
        m_device.free(*b);
}

std::uint64_t HybridFfnScratch::bytes() const
{
    return m_x.charged + m_slots.charged + m_mask.charged + m_gate.charged + m_up.charged + m_y.charged
           + m_scale.charged;
}

// --- HybridFfnLayer ---

HybridFfnLayer::HybridFfnLayer(Device* device, HybridFfnScratch* scratch, const FfnWeights& weights)
    : m_device(device)
    , m_scratch(scratch)
    , m_w(weights)
{
}

namespace {

sparse::NeuronActivation neuronActivation(Activation a)
{
    switch (a) {
    case Activation::SwiGlu:
        return sparse::NeuronActivation::SwiGlu;
    case Activation::ReGlu:
        return sparse::NeuronActivation::ReGlu;
    case Activation::DRelu:
        return sparse::NeuronActivation::DRelu;
    case Activation::Relu2:
        return sparse::NeuronActivation::Relu2;
    case Activation::Relu:
    case Activation::Gelu:
    case Activation::GeGlu:
    case Activation::SwiGluOai:
        break; // no neuron kernels (not gated, or no sparse files): FfnWeights::validate() turns them down
    }
    return sparse::NeuronActivation::ReGlu;
}

} // namespace

HybridFfnLayer::~HybridFfnLayer()
{
    releaseDevice();
}

void HybridFfnLayer::releaseDevice()
{
    if (!m_device)
        return;
    m_device->free(m_gate.data);
    m_device->free(m_up.data);
    m_device->free(m_downT.data);
    m_device->free(m_hotIndex);
}

std::uint64_t HybridFfnLayer::deviceBytes() const
{
    return m_gate.data.charged + m_up.data.charged + m_downT.data.charged + m_hotIndex.charged;
}

Result<std::unique_ptr<HybridFfnLayer>> HybridFfnLayer::create(Device* device, HybridFfnScratch* scratch,
                                                               const FfnWeights& weights,
                                                               std::vector<std::int32_t> hotNeurons)
{
    HEARTH_TRY(weights.validate());
    const std::int64_t nFF = weights.nFF();
    const std::int64_t nEmbd = weights.nEmbd();
    for (std::size_t i = 0; i < hotNeurons.size(); ++i) {
        if (hotNeurons[i] < 0 || hotNeurons[i] >= nFF || (i > 0 && hotNeurons[i] <= hotNeurons[i - 1]))
            return Status(ErrorCode::InvalidArgument, "hot neuron ids must be ascending and below n_ff");
    }
    if (!device)
        hotNeurons.clear();
    if (!hotNeurons.empty()) {
        if (!scratch || scratch->nEmbd() != nEmbd || scratch->maxHot() < std::int64_t(hotNeurons.size()))
            return Status(ErrorCode::InvalidArgument, "hybrid FFN scratch is missing or too small for the hot set");
    }

    std::unique_ptr<HybridFfnLayer> layer(new HybridFfnLayer(hotNeurons.empty() ? nullptr : device, scratch, weights));
    layer->m_neurons = sparse::NeuronWeights::separate(weights.gate, weights.up, weights.downT,
                                                       neuronActivation(weights.activation));
    layer->m_neurons.stride = weights.stride();
    if (!layer->m_neurons.valid())
        return Status(ErrorCode::Unsupported, "the CPU sparse kernels cannot use these FFN weights");
    try {
        layer->m_slot.assign(std::size_t(nFF), -1);
        layer->m_deviceSlots.reserve(hotNeurons.size());
        layer->m_hostNeurons.reserve(std::size_t(nFF));
        layer->m_deviceOut.resize(std::size_t(nEmbd));
    } catch (const std::bad_alloc&) {
        return Status(ErrorCode::OutOfMemory, "not enough memory for the FFN layer's buffers");
    }
    layer->m_hot = std::move(hotNeurons);
    if (layer->m_hot.empty())
        return layer;

    const auto hot = std::int64_t(layer->m_hot.size());
    for (std::size_t j = 0; j < layer->m_hot.size(); ++j)
        layer->m_slot[std::size_t(layer->m_hot[j])] = std::int32_t(j);

    // Uploads are queued; the gathered host copies must live until the device has them.
    std::vector<std::uint8_t> rows[3];
    const cpu::WeightMatrix* sources[3] = {&weights.gate, &weights.up, &weights.downT};
    DeviceMatrix* targets[3] = {&layer->m_gate, &layer->m_up, &layer->m_downT};
    const char* labels[3] = {"hot FFN gate rows", "hot FFN up rows", "hot FFN down rows"};
    for (int i = 0; i < 3; ++i) {
        try {
            rows[i] = gatherRows(*sources[i], weights.stride(), layer->m_hot);
        } catch (const std::bad_alloc&) {
            return Status(ErrorCode::OutOfMemory, "not enough host memory to stage the hot FFN rows");
        }
        auto m = device->uploadMatrix(sources[i]->type, rows[i].data(), hot, nEmbd, labels[i]);
        if (!m)
            return m.status(); // the layer's destructor frees what was uploaded
        *targets[i] = *m;
    }
    auto index = device->allocateAndUpload(layer->m_hot.data(), std::uint64_t(hot) * 4, "hot FFN neuron ids");
    if (!index)
        return index.status();
    layer->m_hotIndex = *index;
    HEARTH_TRY(device->synchronize());
    return layer;
}

Status HybridFfnLayer::computeHost(cpu::ThreadPool& pool, const float* x, int tokens, const std::uint8_t* mask,
                                   float* y)
{
    if (!m_cpu || m_cpuThreads < pool.size() || m_cpuTokens < tokens) {
        auto cpu = sparse::SparseFfn::create(m_w.nEmbd(), tokens, pool.size());
        if (!cpu)
            return cpu.status();
        m_cpu = std::move(*cpu);
        m_cpuThreads = pool.size();
        m_cpuTokens = tokens;
    }
    const sparse::FfnInput in = m_cpu->prepareInput(m_w.gate.type, x, tokens);
    m_cpu->run(pool, m_neurons, in, tokens, m_hostNeurons.data(), std::int64_t(m_hostNeurons.size()), mask, y);
    return {};
}

Status HybridFfnLayer::forward(cpu::ThreadPool& pool, const float* x, const std::int32_t* active, std::int64_t count,
                               float* y)
{
    if (!x || !y || count < 0 || (count > 0 && !active))
        return Status(ErrorCode::InvalidArgument, "hybrid FFN: bad arguments");
    const std::int64_t nFF = m_w.nFF();
    const std::int64_t nEmbd = m_w.nEmbd();
    if (count > nFF)
        return Status(ErrorCode::InvalidArgument, "hybrid FFN: more active neurons than the layer has");

    m_deviceSlots.clear();
    m_hostNeurons.clear();
    for (std::int64_t j = 0; j < count; ++j) {
        const std::int32_t i = active[j];
        if (i < 0 || i >= nFF)
            return Status(ErrorCode::InvalidArgument, "hybrid FFN: active neuron id out of range");
        const std::int32_t slot = m_slot[std::size_t(i)];
        if (slot >= 0)
            m_deviceSlots.push_back(slot);
        else
            m_hostNeurons.push_back(i);
    }
    m_stats.deviceNeurons = std::int64_t(m_deviceSlots.size());
    m_stats.hostNeurons = std::int64_t(m_hostNeurons.size());

    // 1. Queue the device's share; it runs while the host threads work below.
    const auto deviceCount = std::int64_t(m_deviceSlots.size());
    if (deviceCount > 0) {
        Device& d = *m_device;
        HybridFfnScratch& s = *m_scratch;
        Status queued = [&]() -> Status {
            HEARTH_TRY(d.upload(s.m_x, 0, x, std::uint64_t(nEmbd) * 4));
            HEARTH_TRY(d.upload(s.m_slots, 0, m_deviceSlots.data(), std::uint64_t(deviceCount) * 4));
            HEARTH_TRY(d.rowsDot(RowsDotOp{&m_gate, s.m_x, s.m_slots, deviceCount, s.m_gate}));
            HEARTH_TRY(d.rowsDot(RowsDotOp{&m_up, s.m_x, s.m_slots, deviceCount, s.m_up}));
            HEARTH_TRY(d.activate(ActivateOp{m_w.activation, s.m_gate, s.m_up, deviceCount}));
            HEARTH_TRY(d.downAccumulate(DownAccumulateOp{&m_downT, s.m_gate, s.m_slots, deviceCount, s.m_y, false}));
            return d.download(s.m_y, 0, m_deviceOut.data(), std::uint64_t(nEmbd) * 4);
        }();
        if (!queued.ok()) {
            (void)d.synchronize();
            return queued;
        }
    }

    // 2. The cold share on the host threads, at the same time.
    const Status host = computeHost(pool, x, 1, nullptr, y);
    if (!host.ok()) {
        if (deviceCount > 0)
            (void)m_device->synchronize();
        return host;
    }

    // 3. Merge.
    if (deviceCount > 0) {
        HEARTH_TRY(m_device->synchronize());
        cpu::add(y, m_deviceOut.data(), nEmbd);
    }
    return {};
}

Status HybridFfnLayer::forwardBatch(cpu::ThreadPool& pool, const float* x, int tokens, const std::int32_t* active,
                                    std::int64_t count, const std::uint8_t* mask, float* y)
{
    if (!x || !y || tokens <= 0 || count < 0 || (count > 0 && !active))
        return Status(ErrorCode::InvalidArgument, "hybrid FFN: bad arguments");
    const std::int64_t nFF = m_w.nFF();
    const std::int64_t nEmbd = m_w.nEmbd();
    if (count > nFF)
        return Status(ErrorCode::InvalidArgument, "hybrid FFN: more active neurons than the layer has");
    const auto hot = std::int64_t(m_hot.size());
    const std::size_t rows = std::size_t(tokens);

    // The CPU's share: the active cold neurons. The device's: its active hot neurons, as a mask
    // per token unless every token uses every hot neuron.
    m_hostNeurons.clear();
    std::vector<std::uint8_t> activeSlot(std::size_t(hot), 0);
    std::int64_t activeHot = 0;
    for (std::int64_t j = 0; j < count; ++j) {
        const std::int32_t i = active[j];
        if (i < 0 || i >= nFF)
            return Status(ErrorCode::InvalidArgument, "hybrid FFN: active neuron id out of range");
        const std::int32_t slot = m_slot[std::size_t(i)];
        if (slot < 0) {
            m_hostNeurons.push_back(i);
        } else {
            activeSlot[std::size_t(slot)] = 1;
            ++activeHot;
        }
    }
    const bool everyHotNeuron = !mask && activeHot == hot;
    try {
        m_deviceOut.resize(rows * std::size_t(nEmbd));
        if (!everyHotNeuron)
            m_deviceMask.resize(rows * std::size_t(hot));
    } catch (const std::bad_alloc&) {
        return Status(ErrorCode::OutOfMemory, "not enough memory for the FFN layer's buffers");
    }
    if (!everyHotNeuron) {
        for (std::size_t t = 0; t < rows; ++t) {
            const std::uint8_t* tokenMask = mask ? mask + t * std::size_t(nFF) : nullptr;
            std::uint8_t* out = m_deviceMask.data() + t * std::size_t(hot);
            for (std::size_t j = 0; j < std::size_t(hot); ++j)
                out[j] = activeSlot[j] && (!tokenMask || tokenMask[m_hot[j]]) ? 1 : 0;
        }
    }
    m_stats.deviceNeurons = activeHot;
    m_stats.hostNeurons = std::int64_t(m_hostNeurons.size());

    // 1. Queue the device's share for every slice of the batch; it runs while the host threads
    // work below.
    const bool onDevice = activeHot > 0;
    if (onDevice) {
        Device& d = *m_device;
        HybridFfnScratch& s = *m_scratch;
        Status queued = [&]() -> Status {
            for (std::int64_t t0 = 0; t0 < tokens; t0 += s.m_rows) {
                const std::int64_t n = std::min<std::int64_t>(s.m_rows, tokens - t0);
                HEARTH_TRY(d.upload(s.m_x, 0, x + t0 * nEmbd, std::uint64_t(n * nEmbd) * 4));
                HEARTH_TRY(d.matmul(MatmulOp{&m_gate, s.m_x, s.m_gate, n}));
                HEARTH_TRY(d.matmul(MatmulOp{&m_up, s.m_x, s.m_up, n}));
                ActivateOp activate{m_w.activation, s.m_gate, s.m_up, n * hot};
                if (!everyHotNeuron) {
                    HEARTH_TRY(d.upload(s.m_mask, 0, m_deviceMask.data() + t0 * hot, std::uint64_t(n * hot)));
                    activate.mask = s.m_mask;
                }
                HEARTH_TRY(d.activate(activate));
                HEARTH_TRY(d.matmul(MatmulOp{&m_downT, s.m_gate, s.m_y, n, true}));
                HEARTH_TRY(d.download(s.m_y, 0, m_deviceOut.data() + t0 * nEmbd, std::uint64_t(n * nEmbd) * 4));
            }
            return {};
        }();
        if (!queued.ok()) {
            (void)d.synchronize();
            return queued;
        }
    }

    // 2. The cold share on the host threads, at the same time.
    const Status host = computeHost(pool, x, tokens, mask, y);
    if (!host.ok()) {
        if (onDevice)
            (void)m_device->synchronize();
        return host;
    }

    // 3. Merge.
    if (onDevice) {
        HEARTH_TRY(m_device->synchronize());
        cpu::add(y, m_deviceOut.data(), std::int64_t(rows) * nEmbd);
    }
    return {};
}

std::int64_t HybridFfnLayer::coldPairs(int tokens, const std::int32_t* active, std::int64_t count,
                                       const std::uint8_t* mask) const
{
    const std::int64_t nFF = m_w.nFF();
    std::int64_t pairs = 0;
    for (std::int64_t j = 0; j < count; ++j) {
        const std::int32_t i = active[j];
        if (i < 0 || i >= nFF || m_slot[std::size_t(i)] >= 0)
            continue;
        if (!mask) {
            pairs += tokens;
            continue;
        }
        for (int t = 0; t < tokens; ++t)
            pairs += mask[std::size_t(t) * std::size_t(nFF) + std::size_t(i)] ? 1 : 0;
    }
    return pairs;
}

} // namespace hearth::device
