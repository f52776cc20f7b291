// SPDX-License-Identifier: MIT
#include "api/dense_offload_session.h"

#include "api/session_device.h"
#include "api/session_shape.h"
#include "device/byte_format.h"
#include "model/architecture_model.h"
#include "sparse/scratch_layout.h"

#include <algorithm>
#include <new>
#include <optional>

namespace hearth {

namespace {

// The model's layers as whole-layer offload takes them, or nothing with @p report saying why
// the session stays on the CPU.
std::optional<DeviceModelLayers> offloadableLayers(const Model& model, int contextLength, int batchSize,
                                                   bool halfCache, std::string& report)
{
    auto described = deviceModelLayers(model, contextLength, batchSize, halfCache);
    if (!described) {
        report = cpuOnlyReport(described.message());
        return std::nullopt;
    }
    if (!described->wholeLayerProblem.empty()) {
        report = cpuOnlyReport(described->wholeLayerProblem);
        return std::nullopt;
    }
    return std::move(described).value();
}

// What the planner gives @p device: as many whole layers as the VRAM panel's plan shows
// (PlacementModel plans with the same shape and costs) and whether the output head follows them;
// layers is -1 when the file cannot be planned (then the budget alone decides). limit says what
// stopped the plan.
struct PlannedOffload {
    int layers = -1;
    bool output = false;
    std::string limit;
};

PlannedOffload plannedOffload(const Model& model, const device::Device& device, int contextLength, int batchSize,
                              bool halfCache)
{
    PlannedOffload planned;
    const model::ArchitectureModel* known = model::ArchitectureModel::of(model);
    if (!known)
        return planned;
    auto shape = fileShape(known->file());
    if (!shape)
        return planned;
    auto planner = sparse::PlacementPlanner::create(sessionShape(std::move(shape).value(), /*sparse=*/false, halfCache), {});
    if (!planner)
        return planned;
    sparse::PlannerParams pp = sessionPlannerParams(device.info(), contextLength, batchSize);
    pp.dense = true;
    auto plan = planner->plan(pp);
    if (!plan)
        return planned;
    planned.layers = int(plan->attentionLayersOnGpu());
    planned.output = plan->outputOnGpu;
    planned.limit = plan->limit;
    return planned;
}

} // namespace

DenseOffloadSession::~DenseOffloadSession() = default;

std::unique_ptr<DenseOffloadSession> DenseOffloadSession::create(const Model& model, const SessionParams& params,
                                                                 int contextLength, int batchSize, std::string& report)
{
    if (zeroVramBudget(params)) {
        report = cpuOnlyReport("the VRAM budget is 0");
        return nullptr;
    }
    // Checked before opening the device, which takes a while for a real GPU.
    const bool halfCache = deviceHalfCache(params.kvCache);
    if (!offloadableLayers(model, contextLength, batchSize, halfCache, report))
        return nullptr;
    auto opened = openSessionDevice(params);
    if (!opened) {
        report = cpuOnlyReport(opened.message());
        return nullptr;
    }
    return create(model, std::move(opened).value(), contextLength, batchSize, halfCache, report);
}

std::unique_ptr<DenseOffloadSession> DenseOffloadSession::create(const Model& model,
                                                                 std::unique_ptr<device::Device> device,
                                                                 int contextLength, int batchSize, bool halfCache,
                                                                 std::string& report)
{
    if (!device) {
        report = cpuOnlyReport("no device");
        return nullptr;
    }
    const auto described = offloadableLayers(model, contextLength, batchSize, halfCache, report);
    if (!described)
        return nullptr;
    const std::vector<device::DenseLayerWeights>& layers = described->layers;
    std::unique_ptr<DenseOffloadSession> s(new DenseOffloadSession());
    s->m_device = std::move(device);
    s->m_halfCache = halfCache;
    try {
        s->m_mirrors.resize(layers.size());
    } catch (const std::bad_alloc&) {
        report = cpuOnlyReport("not enough memory");
        return nullptr;
    }
    const device::DeviceInfo& info = s->m_device->info();
    const PlannedOffload planned = plannedOffload(model, *s->m_device, contextLength, batchSize, halfCache);
    const std::string budget = device::formatBytes(info.budgetBytes);
    const auto noWholeLayer = [&](const std::string& why) {
        report = cpuOnlyReport("a budget of " + budget + " on " + info.name + " holds no whole layer (" + why + ")");
        return nullptr;
    };
    if (planned.layers == 0)
        return noWholeLayer(planned.limit);
    auto offload = device::DenseOffload::create(*s->m_device, described->params, layers, planned.layers);
    if (!offload) {
        report = cpuOnlyReport("whole-layer offload failed: " + offload.message());
        return nullptr;
    }
    s->m_offload = std::move(offload).value();
    const int k = s->m_offload->offloadedLayers();
    if (k == 0)
        return noWholeLayer(s->m_offload->limit());
    // The output head follows the layers where the plan puts it (or, unplanned, when every layer
    // fit); one that does not fit after all stays on the CPU.
    if (planned.output || (planned.layers < 0 && k == int(layers.size()))) {
        auto head = device::OutputHead::create(*s->m_device, described->output, sparse::kOutputHeadRows);
        if (head)
            s->m_output = std::move(head).value();
    }
    std::string text = "GPU " + info.name + ": " + std::to_string(k) + " of " + std::to_string(layers.size())
                       + " layers (attention, KV cache and FFN)" + (s->m_output ? " and the output head" : "")
                       + ", " + device::formatBytes(s->deviceBytes()) + " of a budget of " + budget;
    const std::string& limit = s->m_offload->limit().empty() && k < int(layers.size()) ? planned.limit
                                                                                        : s->m_offload->limit();
    if (!limit.empty())
        text += "; the rest run on the CPU: " + limit;
    s->m_report = text;
    s->m_layers = int(layers.size());
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

bool DenseOffloadSession::runOutput(const float* x, int rows, float* logits)
{
    return m_output && m_output->runUnlessFailed(x, rows, logits, m_failure);
}

std::uint64_t DenseOffloadSession::deviceBytes() const
{
    return m_offload->deviceBytes() + (m_output ? m_output->deviceBytes() : 0);
}

std::string DenseOffloadSession::report() const
{
    return reportWithFailure(m_report, m_failure, "every layer runs on the CPU");
}

SessionPlacement DenseOffloadSession::placement() const
{
    SessionPlacement placement;
    placement.device = m_device->info().name;
    placement.layers = m_layers;
    placement.gpuLayers = wholeLayers();
    placement.budgetBytes = m_device->info().budgetBytes;
    placement.deviceFailure = m_failure;
    return placement;
}

} // namespace hearth
