// SPDX-License-Identifier: MIT
#include "api/hybrid_decode.h"

#include "device/byte_format.h"
#include "device/device_loader.h"
#include "device/emulated_device.h"
#include "model/llama_model.h"
#include "sparse/activation_profile.h"
#include "sparse/gpu_index.h"
#include "sparse/model_shape.h"
#include "sparse/vram_budget.h"

#include <charconv>
#include <filesystem>
#include <new>
#include <system_error>

namespace hearth {

namespace {

constexpr std::string_view kEmulatedPrefix = "emulated:";

device::Activation deviceActivation(model::FfnActivation a)
{
    switch (a) {
    case model::FfnActivation::SwiGlu:
        return device::Activation::SwiGlu;
    case model::FfnActivation::ReGlu:
        return device::Activation::ReGlu;
    case model::FfnActivation::DRelu:
        return device::Activation::DRelu;
    case model::FfnActivation::Relu2:
        return device::Activation::Relu2;
    }
    return device::Activation::ReGlu;
}

// A positive byte count, the whole of @p text.
bool parseBytes(std::string_view text, std::uint64_t& bytes)
{
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), bytes);
    return ec == std::errc() && end == text.data() + text.size() && bytes > 0;
}

// The device @p params name, or why there is none.
Result<std::unique_ptr<device::Device>> openDevice(const SessionParams& params)
{
    std::uint64_t requested = 0; // 0: the device's own figure (free memory less the margin)
    if (params.vramBudgetGiB > 0) {
        auto bytes = sparse::gibToBytes(params.vramBudgetGiB);
        if (!bytes)
            return bytes.status();
        requested = *bytes;
    }
    const std::string_view name = params.deviceOverride;
    if (name.starts_with(kEmulatedPrefix)) {
        const std::string_view rest = name.substr(kEmulatedPrefix.size());
        const std::size_t colon = rest.find(':');
        std::uint64_t bytes = 0;
        std::uint64_t physical = 0;
        if (!parseBytes(rest.substr(0, colon), bytes)
            || (colon != std::string_view::npos && !parseBytes(rest.substr(colon + 1), physical)))
            return Status(ErrorCode::InvalidArgument, "bad device override '" + params.deviceOverride
                                                          + "' (expected emulated:<bytes>[:<physical bytes>])");
        device::EmulatedDeviceOptions options;
        options.budgetBytes = requested > 0 ? std::min(requested, bytes) : bytes;
        options.physicalBytes = physical;
        return std::unique_ptr<device::Device>(std::make_unique<device::EmulatedDevice>(options));
    }
    if (!name.empty())
        return Status(ErrorCode::InvalidArgument, "unknown device '" + params.deviceOverride + "'");
    device::DeviceLoadOptions options;
    options.budgetBytes = requested;
    return device::DeviceLoader::openCuda(options);
}

std::string cpuOnly(const std::string& why)
{
    return "CPU only: " + why;
}

} // namespace

HybridDecode::~HybridDecode() = default;

std::unique_ptr<HybridDecode> HybridDecode::create(const model::LlamaModel& model, const SessionParams& params,
                                                   int contextLength, int batchSize, std::string& report)
{
    if (params.denseFfn) {
        report = cpuOnly("the dense FFN mode was asked for");
        return nullptr;
    }
    if (!(params.vramBudgetGiB < 0) && !(params.vramBudgetGiB > 0)) {
        report = cpuOnly("the VRAM budget is 0");
        return nullptr;
    }
    const model::LlamaWeights& w = model.weights();
    if (!w.sparse) {
        report = cpuOnly("the model has no predictors (dense layers are not offloaded yet)");
        return nullptr;
    }
    auto opened = openDevice(params);
    if (!opened) {
        report = cpuOnly(opened.message());
        return nullptr;
    }

    std::unique_ptr<HybridDecode> h(new HybridDecode());
    h->m_device = std::move(opened).value();
    const device::DeviceInfo& info = h->m_device->info();
    const bool emulated = info.backend == "emulated";
    try {
        for (std::size_t l = 0; l < w.layers.size(); ++l) {
            const model::LlamaLayerWeights& lw = w.layers[l];
            if (lw.fusedNeurons || !lw.downTransposed) {
                report = cpuOnly("layer " + std::to_string(l)
                                 + " does not use the gate/up/down_t layout the device path needs");
                return nullptr;
            }
            device::FfnWeights f;
            f.gate = lw.gate;
            f.up = lw.up;
            f.downT = lw.down;
            f.activation = deviceActivation(model.hyperParams().ffnActivation);
            if (const Status valid = f.validate(); !valid.ok()) {
                report = cpuOnly("layer " + std::to_string(l) + ": " + valid.message());
                return nullptr;
            }
            h->m_weights.push_back(f);
        }
    } catch (const std::bad_alloc&) {
        report = cpuOnly("not enough memory");
        return nullptr;
    }

    auto shape = sparse::shapeFromGguf(model.file());
    if (!shape) {
        report = cpuOnly("cannot size the model: " + shape.message());
        return nullptr;
    }
    // Only the FFN neurons (and the per-token scratch) go to the device in this version:
    // attention, its KV cache, norms and the output matrix run on the CPU, so they must not take
    // budget from the neurons. Predictors keep their bytes: they mark the model as sparse.
    for (sparse::LayerShape& layer : shape->layers) {
        layer.attentionBytes = 0;
        layer.kvBytesPerToken = 0;
        layer.normBytes = 0;
    }
    shape->outputBytes = 0;

    // Measured statistics when the model has them; otherwise every neuron alike, so the planner
    // still places neurons (in id order) rather than whole layers.
    std::string statsNote;
    const std::string modelPath = model.info().path;
    sparse::ActivationStats stats;
    const std::string statsPath = sparse::defaultStatsPath(modelPath);
    std::error_code ec;
    if (std::filesystem::exists(statsPath, ec)) {
        auto loaded = sparse::loadStatsFile(statsPath);
        if (loaded)
            stats = std::move(loaded).value();
        else
            statsNote = "statistics ignored: " + loaded.message();
    }
    if (stats.layerCount() == 0) {
        std::vector<std::vector<float>> uniform;
        for (const sparse::LayerShape& layer : shape->layers)
            uniform.emplace_back(std::size_t(layer.nFF), 0.5f);
        auto synthetic = sparse::ActivationStats::fromFrequencies(std::move(uniform));
        if (!synthetic) {
            report = cpuOnly(synthetic.message());
            return nullptr;
        }
        stats = std::move(synthetic).value();
        if (statsNote.empty())
            statsNote = "no activation statistics: neurons placed in file order";
    }
    auto planner = sparse::PlacementPlanner::create(*shape, stats);
    if (!planner) {
        report = cpuOnly("cannot plan the placement: " + planner.message());
        return nullptr;
    }

    sparse::PlannerParams pp;
    pp.budgetBytes = info.budgetBytes;
    pp.contextLength = contextLength;
    pp.batchSize = batchSize;
    pp.allocationGranularity = info.granularity;
    pp.ffnOnGpu = !params.disableGpuIndex;
    if (emulated) {
        // Host memory: no driver context and no cuBLAS workspace to set aside.
        pp.reserveBytes = 0;
        pp.workspaceBytes = 0;
    }

    // The cache beside the model: read, rewritten (reset) or left alone (disabled). The plan is
    // deterministic for a key, so the placement below matches what the cache holds; a cache that
    // cannot be written (read-only folder) is only a note.
    std::string cacheNote;
    const sparse::GpuIndexMode mode = params.disableGpuIndex ? sparse::GpuIndexMode::Disable
                                      : params.resetGpuIndex ? sparse::GpuIndexMode::Reset
                                                             : sparse::GpuIndexMode::Use;
    if (auto cached = sparse::planWithGpuIndex(*planner, pp, modelPath, mode); !cached)
        cacheNote = "GPU index: " + cached.message();
    else if (!cached->note.empty())
        cacheNote = "GPU index: " + cached->note;

    auto placed = device::placeHybridFfn(h->m_device.get(), *planner, pp, h->m_weights);
    if (!placed) {
        report = cpuOnly("placing the hot neurons failed: " + placed.message());
        return nullptr;
    }
    h->m_placement = std::move(placed).value();
    const sparse::PlacementPlan& plan = h->m_placement.plan;
    std::string notes;
    for (const std::string& note : {statsNote, cacheNote})
        if (!note.empty())
            notes += "; " + note;
    for (const std::string& note : h->m_placement.notes)
        notes += "; " + note;

    if (h->m_placement.cpuOnly()) {
        std::string why;
        if (params.disableGpuIndex)
            why = "the GPU index is disabled, so the FFN stays on the CPU";
        else
            why = "a budget of " + device::formatBytes(h->m_placement.budgetBytes) + " on " + info.name
                  + " holds no FFN neurons" + (plan.limit.empty() ? std::string() : " (" + plan.limit + ")");
        report = cpuOnly(why) + notes;
        return nullptr;
    }
    // Attention and its KV cache stay on the CPU in this version (see above).
    std::string text = "GPU " + info.name + ": attention of 0/" + std::to_string(plan.layers.size()) + " layers, "
                       + std::to_string(plan.hotNeuronCount()) + " of " + std::to_string(plan.neuronCount())
                       + " FFN neurons hot, budget " + device::formatBytes(h->m_placement.budgetBytes);
    if (h->m_placement.budgetBytes != info.budgetBytes)
        text += " (re-planned from " + device::formatBytes(info.budgetBytes) + " after an allocation failure)";
    h->m_report = text + notes;
    report = h->m_report;
    return h;
}

bool HybridDecode::run(cpu::ThreadPool& pool, int layer, const float* xn, const std::int32_t* active,
                       std::int64_t count, float* y)
{
    if (!m_failure.empty() || layer < 0 || std::size_t(layer) >= m_placement.layers.size())
        return false;
    const Status st = m_placement.layers[std::size_t(layer)]->forward(pool, xn, active, count, y);
    if (st.ok())
        return true;
    m_failure = st.message();
    return false;
}

std::string HybridDecode::report() const
{
    if (m_failure.empty())
        return m_report;
    return m_report + "; the device failed (" + m_failure + "): the FFN runs on the CPU";
}

} // namespace hearth
