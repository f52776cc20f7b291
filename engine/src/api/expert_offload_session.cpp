// SPDX-License-Identifier: MIT
#include "api/expert_offload_session.h"

#include "api/session_device.h"
#include "api/session_shape.h"
#include "device/byte_format.h"
#include "model/llama_model.h"
#include "sparse/scratch_layout.h"

#include <algorithm>
#include <optional>

namespace hearth {

namespace {

const model::LlamaModel* mixtureModel(const Model& model)
{
    const model::ArchitectureModel* known = model::ArchitectureModel::of(model);
    if (!known || known->architecture().block != model::BlockKind::Llama)
        return nullptr;
    const auto* llama = static_cast<const model::LlamaModel*>(known);
    return llama->hyperParams().mixtureOfExperts() ? llama : nullptr;
}

device::ExpertWeights expertWeights(const model::GatedFfnWeights& w)
{
    return {w.gate, w.up, w.down, w.gateBias, w.upBias, w.downBias};
}

// Why the device cannot compute @p model's experts, or empty.
std::string expertProblem(const model::LlamaModel& model)
{
    for (const model::LlamaLayerWeights& lw : model.weights().layers) {
        for (const model::GatedFfnWeights* w : {lw.moe.experts.empty() ? nullptr : &lw.moe.experts.front(), &lw.moe.shared}) {
            if (!w || !w->present())
                continue;
            for (const cpu::WeightMatrix* m : {&w->gate, &w->up, &w->down}) {
                if (!isDeviceType(m->type))
                    return "the experts hold " + std::string(dtypeName(m->type))
                           + " weights, which the device does not compute";
            }
        }
    }
    return {};
}

// The plan for @p model on @p device, as the VRAM panel shows it; @p note says which
// statistics ordered the experts.
std::optional<sparse::PlacementPlan> expertPlan(const model::LlamaModel& model, const std::string& path,
                                                const device::Device& device, const SessionParams& params,
                                                int contextLength, int batchSize, std::string& note)
{
    auto shape = fileShape(model.file());
    if (!shape) {
        note = shape.message();
        return std::nullopt;
    }
    const sparse::ActivationStats stats = sessionExpertStats(*shape, path, note);
    auto planner = sparse::PlacementPlanner::create(
        sessionShape(std::move(shape).value(), /*sparse=*/false, deviceHalfCache(params.kvCache)), stats);
    if (!planner) {
        note = planner.message();
        return std::nullopt;
    }
    sparse::PlannerParams pp = sessionPlannerParams(device.info(), contextLength, batchSize);
    pp.ffnOnGpu = !params.disableGpuIndex;
    pp.expertsByLayer = params.expertsByLayer;
    if (params.expertsByLayer)
        note = "experts placed layer by layer, as asked";
    auto plan = planner->plan(pp);
    if (!plan) {
        note = plan.message();
        return std::nullopt;
    }
    return std::move(plan).value();
}

} // namespace

ExpertOffloadSession::~ExpertOffloadSession() = default;

std::unique_ptr<ExpertOffloadSession> ExpertOffloadSession::create(const Model& model, const SessionParams& params,
                                                                   int contextLength, int batchSize, std::string& report)
{
    const model::LlamaModel* llama = mixtureModel(model);
    if (!llama)
        return nullptr;
    if (zeroVramBudget(params)) {
        report = cpuOnlyReport("the VRAM budget is 0");
        return nullptr;
    }
    // Checked before opening the device, which takes a while for a real GPU.
    if (const std::string problem = expertProblem(*llama); !problem.empty()) {
        report = cpuOnlyReport(problem);
        return nullptr;
    }
    auto opened = openSessionDevice(params);
    if (!opened) {
        report = cpuOnlyReport(opened.message());
        return nullptr;
    }
    return create(model, std::move(opened).value(), params, contextLength, batchSize, report);
}

std::unique_ptr<ExpertOffloadSession> ExpertOffloadSession::create(const Model& model,
                                                                   std::unique_ptr<device::Device> device,
                                                                   const SessionParams& params, int contextLength,
                                                                   int batchSize, std::string& report)
{
    const model::LlamaModel* llama = mixtureModel(model);
    if (!llama || !device)
        return nullptr;
    if (const std::string problem = expertProblem(*llama); !problem.empty()) {
        report = cpuOnlyReport(problem);
        return nullptr;
    }
    std::unique_ptr<ExpertOffloadSession> s(new ExpertOffloadSession());
    s->m_device = std::move(device);
    s->m_cacheType = deviceHalfCache(params.kvCache) ? model::KvCache::Type::F16 : model::KvCache::Type::F32;
    const device::DeviceInfo& info = s->m_device->info();
    const std::string budget = device::formatBytes(info.budgetBytes);
    std::string statsNote;
    const auto plan = expertPlan(*llama, model.info().path, *s->m_device, params, contextLength, batchSize, statsNote);
    if (!plan) {
        report = cpuOnlyReport("the placement could not be planned: " + statsNote);
        return nullptr;
    }
    if (!plan->usesGpu()) {
        report = cpuOnlyReport("a budget of " + budget + " on " + info.name + " holds nothing (" + plan->limit + ")");
        return nullptr;
    }

    std::vector<std::string> notes;
    s->m_layers = HybridDeviceLayers::create(*s->m_device, model,
                                             HybridDeviceLayers::fromPlan(*plan, deviceHalfCache(params.kvCache)),
                                             contextLength, batchSize, notes);

    const model::HyperParams& hp = llama->hyperParams();
    const auto& layers = llama->weights().layers;
    s->m_nLayer = hp.nLayer;
    const bool anyExperts = std::any_of(plan->layers.begin(), plan->layers.end(), [](const sparse::LayerPlacement& l) {
        return l.hotExperts > 0 || l.sharedExpertOnGpu;
    });
    if (anyExperts) {
        std::int64_t widest = hp.nFfExpert;
        for (const model::LlamaLayerWeights& lw : layers) {
            if (lw.moe.shared.present())
                widest = std::max(widest, lw.moe.shared.gate.rows);
        }
        const device::ExpertShape shape{hp.nLayer,
                                        hp.nExpert,
                                        hp.nEmbd,
                                        widest,
                                        int(std::min<std::int64_t>(std::int64_t(batchSize) * hp.nExpertUsed,
                                                                   sparse::kExpertRows)),
                                        deviceActivation(hp.ffnActivation)};
        auto experts = device::DeviceExperts::create(*s->m_device, shape);
        if (experts)
            s->m_experts = std::move(experts).value();
        else
            notes.push_back("the experts stay on the CPU: " + experts.message());
    }
    for (const model::LlamaLayerWeights& lw : layers)
        s->m_expertCount += lw.moe.present() ? hp.nExpert : 0;
    for (std::size_t l = 0; s->m_experts && l < layers.size() && l < plan->layers.size(); ++l) {
        const model::MoeWeights& moe = layers[l].moe;
        if (!moe.present())
            continue;
        const sparse::LayerPlacement& lp = plan->layers[l];
        Status placed;
        if (lp.sharedExpertOnGpu && moe.shared.present())
            placed = s->m_experts->place(int(l), hp.nExpert, expertWeights(moe.shared));
        for (std::int32_t e : lp.gpuExperts()) {
            if (placed.ok())
                placed = s->m_experts->place(int(l), e, expertWeights(moe.experts[std::size_t(e)]));
        }
        if (!placed.ok()) {
            // The plan was too hopeful (the device's own buffers, rounding): the rest stays here.
            notes.push_back("experts from layer " + std::to_string(l) + " on stay on the CPU: " + placed.message());
            break;
        }
    }
    if (!s->m_layers && !s->m_experts) {
        report = cpuOnlyReport(notes.empty() ? plan->limit : notes.front());
        return nullptr;
    }

    int onDevice = 0;
    int shared = 0;
    for (int l = 0; s->m_experts && l < hp.nLayer; ++l) {
        onDevice += s->m_experts->routedExpertsOn(l);
        shared += s->m_experts->sharedExpertOn(l) ? 1 : 0;
    }
    const std::uint64_t bytes = (s->m_layers ? s->m_layers->deviceBytes() : 0)
                                + (s->m_experts ? s->m_experts->deviceBytes() : 0);
    std::string text = "GPU " + info.name + ": attention of "
                       + std::to_string(s->m_layers ? s->m_layers->attentionLayers() : 0) + " of "
                       + std::to_string(hp.nLayer) + " layers, " + std::to_string(onDevice) + " of "
                       + std::to_string(s->m_expertCount) + " experts";
    if (shared > 0)
        text += ", the shared experts of " + std::to_string(shared) + " layers";
    if (s->m_layers && s->m_layers->hasOutputHead())
        text += " and the output head";
    text += ", " + device::formatBytes(bytes) + " of a budget of " + budget + " (" + statsNote + ")";
    const std::string& limit = notes.empty() ? plan->limit : notes.front();
    if (!limit.empty())
        text += "; the rest run on the CPU: " + limit;
    s->m_report = text;
    report = text;
    return s;
}

const std::string& ExpertOffloadSession::failure() const
{
    return !m_failure.empty() || !m_layers ? m_failure : m_layers->failure();
}

bool ExpertOffloadSession::hasAttention(int layer) const
{
    return m_layers && m_failure.empty() && m_layers->hasAttention(layer);
}

bool ExpertOffloadSession::runAttention(model::KvCache& cache, int layer, const float* x, int n, int start, float* out)
{
    return hasAttention(layer) && m_layers->runAttention(cache, layer, x, n, start, out);
}

bool ExpertOffloadSession::runOutput(const float* x, int rows, float* logits)
{
    return m_layers && m_failure.empty() && m_layers->runOutput(x, rows, logits);
}

std::span<const std::uint8_t> ExpertOffloadSession::deviceExperts(int layer) const
{
    if (!m_experts || !failure().empty())
        return {};
    return m_experts->flags(layer);
}

bool ExpertOffloadSession::startExperts(int layer, const model::ExpertBatch& batch)
{
    if (deviceExperts(layer).empty())
        return false;
    const Status queued = m_experts->enqueue(
        layer, {batch.gathered, batch.first, batch.out, batch.input, batch.tokens, batch.sharedOut});
    if (queued.ok())
        return true;
    // Copies already queued may still write to the batch's rows: let them finish first.
    (void)m_device->synchronize();
    m_failure = queued.message();
    return false;
}

bool ExpertOffloadSession::finishExperts()
{
    const Status ran = m_device->synchronize();
    if (ran.ok())
        return true;
    m_failure = ran.message();
    return false;
}

std::string ExpertOffloadSession::report() const
{
    return reportWithFailure(m_report, failure(), "everything runs on the CPU");
}

SessionPlacement ExpertOffloadSession::placement() const
{
    SessionPlacement placement;
    placement.device = m_device->info().name;
    placement.layers = m_nLayer;
    placement.gpuLayers = m_layers ? m_layers->attentionLayers() : 0;
    placement.experts = m_expertCount;
    for (int l = 0; m_experts && l < m_nLayer; ++l)
        placement.gpuExperts += m_experts->routedExpertsOn(l);
    placement.budgetBytes = m_device->info().budgetBytes;
    placement.deviceFailure = failure();
    return placement;
}

} // namespace hearth
