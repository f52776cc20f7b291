// SPDX-License-Identifier: MIT
#include "api/dense_offload_session.h"

#include "api/session_device.h"
#include "device/byte_format.h"
#include "model/llama_model.h"

#include <algorithm>
#include <new>

namespace hearth {

namespace {

// Why @p model's layers cannot run on the device as they are stored, or empty.
std::string unsupportedLayout(const model::LlamaModel& model)
{
    const model::LlamaWeights& w = model.weights();
    for (std::size_t l = 0; l < w.layers.size(); ++l) {
        const model::LlamaLayerWeights& lw = w.layers[l];
        if (lw.fusedNeurons || lw.downTransposed)
            return "layer " + std::to_string(l) + " stores its FFN neuron-major, which whole-layer offload does not take";
        for (const cpu::WeightMatrix* m : {&lw.wq, &lw.wk, &lw.wv, &lw.wo, &lw.gate, &lw.up, &lw.down}) {
            if (!isComputeType(m->type))
                return "layer " + std::to_string(l) + " holds " + std::string(dtypeName(m->type))
                       + " weights, which the device does not compute";
        }
    }
    return {};
}

} // namespace

DenseOffloadSession::~DenseOffloadSession() = default;

std::unique_ptr<DenseOffloadSession> DenseOffloadSession::create(const model::LlamaModel& model,
                                                                 const SessionParams& params, int contextLength,
                                                                 int batchSize, std::string& report)
{
    if (zeroVramBudget(params)) {
        report = cpuOnlyReport("the VRAM budget is 0");
        return nullptr;
    }
    if (const std::string why = unsupportedLayout(model); !why.empty()) {
        report = cpuOnlyReport(why);
        return nullptr;
    }
    auto opened = openSessionDevice(params);
    if (!opened) {
        report = cpuOnlyReport(opened.message());
        return nullptr;
    }
    return create(model, std::move(opened).value(), contextLength, batchSize, report);
}

std::unique_ptr<DenseOffloadSession> DenseOffloadSession::create(const model::LlamaModel& model,
                                                                 std::unique_ptr<device::Device> device,
                                                                 int contextLength, int batchSize, std::string& report)
{
    if (!device) {
        report = cpuOnlyReport("no device");
        return nullptr;
    }
    if (const std::string why = unsupportedLayout(model); !why.empty()) {
        report = cpuOnlyReport(why);
        return nullptr;
    }
    const model::HyperParams& hp = model.hyperParams();
    const model::LlamaWeights& w = model.weights();
    device::DenseModelParams p;
    static_cast<device::AttentionParams&>(p) = attentionParams(hp, contextLength);
    p.nFF = hp.nFf;
    p.activation = deviceActivation(hp.ffnActivation);
    p.maxBatch = std::max(1, batchSize);

    std::unique_ptr<DenseOffloadSession> s(new DenseOffloadSession());
    s->m_device = std::move(device);
    std::vector<device::DenseLayerWeights> layers;
    try {
        for (const model::LlamaLayerWeights& lw : w.layers)
            layers.push_back({{lw.attnNorm, lw.wq, lw.wk, lw.wv, lw.wo}, lw.ffnNorm, lw.gate, lw.up, lw.down});
        s->m_mirrors.resize(layers.size());
    } catch (const std::bad_alloc&) {
        report = cpuOnlyReport("not enough memory");
        return nullptr;
    }
    const device::DeviceInfo& info = s->m_device->info();
    auto offload = device::DenseOffload::create(*s->m_device, p, layers);
    if (!offload) {
        report = cpuOnlyReport("whole-layer offload failed: " + offload.message());
        return nullptr;
    }
    s->m_offload = std::move(offload).value();
    const int k = s->m_offload->offloadedLayers();
    const std::string budget = device::formatBytes(info.budgetBytes);
    if (k == 0) {
        report = cpuOnlyReport("a budget of " + budget + " on " + info.name + " holds no whole layer ("
                         + s->m_offload->limit() + ")");
        return nullptr;
    }
    std::string text = "GPU " + info.name + ": " + std::to_string(k) + " of " + std::to_string(w.layers.size())
                       + " layers (attention, KV cache and FFN), " + device::formatBytes(s->m_offload->deviceBytes())
                       + " of a budget of " + budget;
    if (!s->m_offload->limit().empty())
        text += "; the rest run on the CPU: " + s->m_offload->limit();
    s->m_report = text;
    report = text;
    return s;
}

int DenseOffloadSession::wholeLayers() const
{
    return m_failure.empty() ? m_offload->offloadedLayers() : 0;
}

bool DenseOffloadSession::runWholeLayers(model::KvCache& cache, float* x, int n, int start)
{
    if (!m_failure.empty())
        return false;
    for (std::size_t l = 0; l < m_mirrors.size() && l < std::size_t(m_offload->offloadedLayers()); ++l)
        m_mirrors[l] = {cache.k(int(l), start), cache.v(int(l), start)};
    const Status st = m_offload->forward(x, n, start, m_mirrors.data());
    if (st.ok())
        return true;
    m_failure = st.message();
    return false;
}

std::string DenseOffloadSession::report() const
{
    return reportWithFailure(m_report, m_failure, "every layer runs on the CPU");
}

} // namespace hearth
