// SPDX-License-Identifier: MIT
#include "api/hybrid_decode.h"

#include "api/session_device.h"
#include "api/session_shape.h"
#include "device/byte_format.h"
#include "cpu/ops.h"
#include "cpu/thread_pool.h"
#include "model/falcon_model.h"
#include "model/llama_model.h"
#include "model/opt_model.h"
#include "sparse/gpu_index.h"
#include "sparse/model_shape.h"
#include "sparse/neuron_selection.h"
#include "sparse/scratch_layout.h"
#include "sparse/sparse_ffn.h"

#include <hearth/placement.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <new>
#include <optional>

namespace hearth {

// --- Up-only FFNs (falcon, opt) ---

// Per-token device buffers shared by every up-only layer.
class UpOnlyFfnScratch {
public:
    [[nodiscard]] static Result<std::unique_ptr<UpOnlyFfnScratch>> create(device::Device& device, std::int64_t nEmbd,
                                                                         std::int64_t maxHot)
    {
        std::unique_ptr<UpOnlyFfnScratch> s(new UpOnlyFfnScratch(device));
        s->m_nEmbd = nEmbd;
        s->m_maxHot = maxHot;
        const std::uint64_t hot = std::uint64_t(std::max<std::int64_t>(maxHot, 1)) * 4;
        // On failure the destructor frees what was made.
        HEARTH_TRY(device.allocateEach({{&s->x, std::uint64_t(nEmbd) * 4, "FFN input"},
                                        {&s->slots, hot, "FFN active hot slots"},
                                        {&s->act, hot, "FFN up activations"},
                                        {&s->bias, hot, "FFN up biases"},
                                        {&s->ones, hot, "FFN ReLU multipliers"},
                                        {&s->y, std::uint64_t(nEmbd) * 4, "FFN device output"}}));
        // ReLU(u) = ReGLU(u, 1): the device's gated activation with an up operand of ones.
        std::vector<float> ones(std::size_t(std::max<std::int64_t>(maxHot, 1)), 1.0f);
        HEARTH_TRY(device.upload(s->ones, 0, ones.data(), hot));
        HEARTH_TRY(device.synchronize());
        return s;
    }
    ~UpOnlyFfnScratch()
    {
        for (device::DeviceBuffer* b : {&x, &slots, &act, &bias, &ones, &y})
            m_device.free(*b);
    }

    [[nodiscard]] std::int64_t nEmbd() const { return m_nEmbd; }
    [[nodiscard]] std::int64_t maxHot() const { return m_maxHot; }

    device::DeviceBuffer x;     // [nEmbd] the layer input
    device::DeviceBuffer slots; // [maxHot] I32 active hot slots of the token
    device::DeviceBuffer act;   // [maxHot] up dot products, then activations
    device::DeviceBuffer bias;  // [maxHot] the active hot neurons' up biases
    device::DeviceBuffer ones;  // [maxHot] 1.0
    device::DeviceBuffer y;     // [nEmbd] the device's partial output

private:
    explicit UpOnlyFfnScratch(device::Device& device)
        : m_device(device)
    {
    }
    device::Device& m_device;
    std::int64_t m_nEmbd = 0;
    std::int64_t m_maxHot = 0;
};

// One up-only layer split between the device (hot neurons) and the CPU (cold ones), as
// device::HybridFfnLayer does for gated FFNs:
//   y = sum over active i of ReLU(up_i . x + upBias_i) * down_t_i
// The CPU part is sparse::SparseFfn over the active cold neurons, the CPU-only path itself.
class UpOnlyFfnLayer {
public:
    [[nodiscard]] static Result<std::unique_ptr<UpOnlyFfnLayer>> create(device::Device* device, UpOnlyFfnScratch* scratch,
                                                                       const HybridDecode::UpOnlyWeights& w,
                                                                       std::vector<std::int32_t> hot)
    {
        const std::int64_t nFf = w.up.rows;
        const std::int64_t nEmbd = w.up.cols;
        std::unique_ptr<UpOnlyFfnLayer> layer(new UpOnlyFfnLayer());
        layer->m_w = w;
        layer->m_neurons = w.neurons.data
                               ? sparse::NeuronWeights::fused(w.neurons, nEmbd, sparse::NeuronActivation::Relu)
                               : sparse::NeuronWeights::separate(cpu::WeightMatrix{}, w.up, w.downT,
                                                                 sparse::NeuronActivation::Relu);
        layer->m_neurons.upBias = w.upBias;
        if (!layer->m_neurons.valid())
            return Status(ErrorCode::Unsupported, "the CPU sparse kernels cannot use these FFN weights");
        if (!device)
            hot.clear();
        if (!hot.empty() && (!scratch || scratch->nEmbd() != nEmbd || scratch->maxHot() < std::int64_t(hot.size())))
            return Status(ErrorCode::InvalidArgument, "hybrid FFN scratch is missing or too small for the hot set");
        try {
            layer->m_slot.assign(std::size_t(nFf), -1);
            layer->m_deviceSlots.reserve(hot.size());
            layer->m_deviceBias.reserve(hot.size());
            layer->m_hostNeurons.reserve(std::size_t(nFf));
            layer->m_deviceOut.resize(std::size_t(nEmbd));
        } catch (const std::bad_alloc&) {
            return Status(ErrorCode::OutOfMemory, "not enough memory for the FFN layer's buffers");
        }
        for (std::size_t j = 0; j < hot.size(); ++j) {
            if (hot[j] < 0 || hot[j] >= nFf || (j > 0 && hot[j] <= hot[j - 1]))
                return Status(ErrorCode::InvalidArgument, "hot neuron ids must be ascending and below n_ff");
            layer->m_slot[std::size_t(hot[j])] = std::int32_t(j);
        }
        layer->m_hot = std::move(hot);
        if (layer->m_hot.empty())
            return layer;
        layer->m_device = device;
        layer->m_scratch = scratch;
        const std::size_t row = rowBytes(w.up.type, nEmbd);
        const cpu::WeightMatrix* sources[2] = {&w.up, &w.downT};
        device::DeviceMatrix* targets[2] = {&layer->m_up, &layer->m_downT};
        const char* labels[2] = {"hot FFN up rows", "hot FFN down rows"};
        for (int i = 0; i < 2; ++i) {
            std::vector<std::uint8_t> rows;
            try {
                rows.resize(row * layer->m_hot.size());
            } catch (const std::bad_alloc&) {
                return Status(ErrorCode::OutOfMemory, "not enough host memory to stage the hot FFN rows");
            }
            const auto* base = static_cast<const std::uint8_t*>(sources[i]->data);
            const std::size_t stride = cpu::rowStrideOf(*sources[i]); // fused rows: up and down interleaved
            for (std::size_t j = 0; j < layer->m_hot.size(); ++j)
                std::memcpy(rows.data() + j * row, base + std::size_t(layer->m_hot[j]) * stride, row);
            auto m = device->uploadMatrix(sources[i]->type, rows.data(), std::int64_t(layer->m_hot.size()), nEmbd,
                                          labels[i]);
            if (!m)
                return m.status(); // the destructor frees what was uploaded
            *targets[i] = *m;
        }
        return layer;
    }

    ~UpOnlyFfnLayer()
    {
        if (!m_device)
            return;
        m_device->free(m_up.data);
        m_device->free(m_downT.data);
    }

    [[nodiscard]] Status forward(cpu::ThreadPool& pool, const float* x, const std::int32_t* active, std::int64_t count,
                                 float* y)
    {
        const std::int64_t nFf = m_w.up.rows;
        const std::int64_t nEmbd = m_w.up.cols;
        if (!x || !y || count < 0 || count > nFf || (count > 0 && !active))
            return Status(ErrorCode::InvalidArgument, "hybrid FFN: bad arguments");
        m_deviceSlots.clear();
        m_deviceBias.clear();
        m_hostNeurons.clear();
        for (std::int64_t j = 0; j < count; ++j) {
            const std::int32_t i = active[j];
            if (i < 0 || i >= nFf)
                return Status(ErrorCode::InvalidArgument, "hybrid FFN: active neuron id out of range");
            const std::int32_t slot = m_slot[std::size_t(i)];
            if (slot >= 0) {
                m_deviceSlots.push_back(slot);
                m_deviceBias.push_back(m_w.upBias ? m_w.upBias[i] : 0.0f);
            } else {
                m_hostNeurons.push_back(i);
            }
        }

        // 1. Queue the device's share; it runs while the host threads work below.
        const auto deviceCount = std::int64_t(m_deviceSlots.size());
        if (deviceCount > 0) {
            device::Device& d = *m_device;
            UpOnlyFfnScratch& s = *m_scratch;
            const Status queued = [&]() -> Status {
                HEARTH_TRY(d.upload(s.x, 0, x, std::uint64_t(nEmbd) * 4));
                HEARTH_TRY(d.upload(s.slots, 0, m_deviceSlots.data(), std::uint64_t(deviceCount) * 4));
                HEARTH_TRY(d.rowsDot(device::RowsDotOp{&m_up, s.x, s.slots, deviceCount, s.act}));
                if (m_w.upBias) {
                    HEARTH_TRY(d.upload(s.bias, 0, m_deviceBias.data(), std::uint64_t(deviceCount) * 4));
                    HEARTH_TRY(d.add(device::AddOp{s.act, s.bias, deviceCount}));
                }
                HEARTH_TRY(d.activate(device::ActivateOp{device::Activation::ReGlu, s.act, s.ones, deviceCount}));
                HEARTH_TRY(d.downAccumulate(
                    device::DownAccumulateOp{&m_downT, s.act, s.slots, deviceCount, s.y, false}));
                return d.download(s.y, 0, m_deviceOut.data(), std::uint64_t(nEmbd) * 4);
            }();
            if (!queued.ok()) {
                (void)d.synchronize();
                return queued;
            }
        }

        // 2. The cold share on the host threads, at the same time.
        if (!m_cpu || m_cpuThreads < pool.size()) {
            auto cpu = sparse::SparseFfn::create(nEmbd, 1, pool.size());
            if (!cpu) {
                if (deviceCount > 0)
                    (void)m_device->synchronize();
                return cpu.status();
            }
            m_cpu = std::move(*cpu);
            m_cpuThreads = pool.size();
        }
        const sparse::FfnInput in = m_cpu->prepareInput(m_neurons.type, x, 1);
        m_cpu->run(pool, m_neurons, in, 1, m_hostNeurons.data(), std::int64_t(m_hostNeurons.size()), nullptr, y);

        // 3. Merge.
        if (deviceCount > 0) {
            HEARTH_TRY(m_device->synchronize());
            cpu::add(y, m_deviceOut.data(), nEmbd);
        }
        return {};
    }

private:
    UpOnlyFfnLayer() = default;

    device::Device* m_device = nullptr; // null: every neuron on the CPU
    UpOnlyFfnScratch* m_scratch = nullptr;
    HybridDecode::UpOnlyWeights m_w;
    sparse::NeuronWeights m_neurons;
    std::unique_ptr<sparse::SparseFfn> m_cpu; // made for the first pool that calls forward()
    int m_cpuThreads = 0;
    std::vector<std::int32_t> m_hot;  // ascending neuron ids on the device
    std::vector<std::int32_t> m_slot; // [nFf] neuron -> row on the device, or -1
    device::DeviceMatrix m_up;        // hot rows, in m_hot order
    device::DeviceMatrix m_downT;
    std::vector<std::int32_t> m_deviceSlots;
    std::vector<float> m_deviceBias;
    std::vector<std::int32_t> m_hostNeurons;
    std::vector<float> m_deviceOut; // [nEmbd]
};

namespace {

// Up-only layers for @p plan; OutOfMemory from the device comes back as is.
Status placeUpOnlyOnce(device::Device* device, const sparse::PlacementPlan& plan,
                       const std::vector<HybridDecode::UpOnlyWeights>& layers,
                       std::unique_ptr<UpOnlyFfnScratch>& scratch, std::vector<std::unique_ptr<UpOnlyFfnLayer>>& out)
{
    std::int64_t maxHot = 0;
    for (const sparse::LayerPlacement& lp : plan.layers)
        maxHot = std::max(maxHot, lp.hotCount);
    const bool useDevice = device && maxHot > 0;
    if (useDevice) {
        auto made = UpOnlyFfnScratch::create(*device, layers.front().up.cols, maxHot);
        if (!made)
            return made.status();
        scratch = std::move(*made);
    }
    for (std::size_t l = 0; l < layers.size(); ++l) {
        auto layer = UpOnlyFfnLayer::create(useDevice ? device : nullptr, scratch.get(), layers[l],
                                            useDevice ? plan.layers[l].hotNeurons() : std::vector<std::int32_t>());
        if (!layer)
            return layer.status();
        out.push_back(std::move(*layer));
    }
    return {};
}

// device::placeHybridFfn for up-only layers: the same re-planning after a failed allocation.
Status placeUpOnly(device::Device* device, sparse::PlacementPlanner& planner, sparse::PlannerParams params,
                   const std::vector<HybridDecode::UpOnlyWeights>& layers, device::HybridPlacement& result,
                   std::unique_ptr<UpOnlyFfnScratch>& scratch, std::vector<std::unique_ptr<UpOnlyFfnLayer>>& placed)
{
    if (layers.size() != planner.shape().layers.size())
        return Status(ErrorCode::InvalidArgument, "the planner's model has a different number of layers");
    for (std::size_t l = 0; l < layers.size(); ++l) {
        if (layers[l].up.rows != planner.shape().layers[l].nFF)
            return Status(ErrorCode::InvalidArgument, "layer " + std::to_string(l) + "'s FFN differs from the planned shape");
    }
    return device::placeWithReplanning(
        planner, params, {}, result,
        [&](const sparse::PlacementPlan& plan) { return placeUpOnlyOnce(device, plan, layers, scratch, placed); },
        [&] {
            placed.clear(); // layers first: they use the scratch
            scratch.reset();
        });
}

} // namespace

// --- HybridDecode ---

struct HybridDecode::Setup {
    std::string modelPath;
    std::optional<sparse::PlacementPlanner> planner;
    sparse::PlannerParams params;
    std::string notes; // statistics and GPU index notes, each starting with "; "
};

namespace {

// What every family's create() does first: the session's checks and the device. False (with
// @p report) when the session stays on the CPU.
bool openFor(bool sparseModel, const SessionParams& params, std::unique_ptr<device::Device>& deviceOut,
             std::string& report)
{
    if (params.denseFfn) {
        report = cpuOnlyReport("the dense FFN mode was asked for");
        return false;
    }
    if (zeroVramBudget(params)) {
        report = cpuOnlyReport("the VRAM budget is 0");
        return false;
    }
    if (!sparseModel) {
        report = cpuOnlyReport("the model has no predictors");
        return false;
    }
    auto opened = openSessionDevice(params);
    if (!opened) {
        report = cpuOnlyReport(opened.message());
        return false;
    }
    deviceOut = std::move(opened).value();
    return true;
}

// An up-only layer's FFN as the device path takes it: PowerInfer's up and ffn_down_t, or views
// of Hearth's fused rows. A plain ffn_down comes without up rows, which createUpOnly() turns down.
HybridDecode::UpOnlyWeights upOnlyWeights(const model::UpDownFfn& ffn)
{
    if (ffn.fusedNeurons) {
        const model::UpDownFfn view = ffn.denseView();
        return {view.up, view.down, ffn.upBias, ffn.neurons};
    }
    return {ffn.downTransposed ? ffn.up : cpu::WeightMatrix{}, ffn.down, ffn.upBias, {}};
}

// Then, once the family has checked its layers: the planner and its parameters, and the GPU
// index cache. False (with @p report) when the session stays on the CPU. The shape, statistics
// and costs are the ones PlacementModel plans with (session_shape.h), so the VRAM panel's plan is
// this placement.
// @p measuredOnly: without a statistics file beside the model the session does not place
// neurons (a magnitude-sparse file then goes to the device by whole layers).
bool prepare(const gguf::GgufFile& file, const std::string& modelPath, const device::DeviceInfo& info,
             const SessionParams& params, int contextLength, int batchSize,
             std::optional<sparse::PlacementPlanner>& plannerOut, sparse::PlannerParams& pp, std::string& notes,
             std::string& report, bool measuredOnly = false)
{
    auto shape = fileShape(file);
    if (!shape) {
        report = cpuOnlyReport("cannot size the model: " + shape.message());
        return false;
    }
    *shape = sessionShape(std::move(shape).value(), /*sparse=*/true, deviceHalfCache(params.kvCache));
    std::string statsNote;
    auto stats = measuredOnly ? Result<sparse::ActivationStats>(measuredStats(*shape, modelPath, statsNote))
                              : sessionStats(*shape, modelPath, kDefaultAssumedSparsity, statsNote);
    if (!stats || stats->empty()) {
        report = cpuOnlyReport(!stats             ? stats.message()
                               : statsNote.empty() ? std::string("no activation statistics beside the model")
                                                   : statsNote);
        return false;
    }
    auto planner = sparse::PlacementPlanner::create(*shape, *stats);
    if (!planner) {
        report = cpuOnlyReport("cannot plan the placement: " + planner.message());
        return false;
    }
    plannerOut.emplace(std::move(planner).value());

    pp = sessionPlannerParams(info, contextLength, batchSize);
    pp.ffnOnGpu = !params.disableGpuIndex;

    // The cache beside the model: read, rewritten (reset) or left alone (disabled). The plan is
    // deterministic for a key, so the placement below matches what the cache holds; a cache that
    // cannot be written (read-only folder) is only a note.
    std::string cacheNote;
    const sparse::GpuIndexMode mode = params.disableGpuIndex ? sparse::GpuIndexMode::Disable
                                      : params.resetGpuIndex ? sparse::GpuIndexMode::Reset
                                                             : sparse::GpuIndexMode::Use;
    if (auto cached = sparse::planWithGpuIndex(*plannerOut, pp, modelPath, mode); !cached)
        cacheNote = "GPU index: " + cached.message();
    else if (!cached->note.empty())
        cacheNote = "GPU index: " + cached->note;
    for (const std::string& note : {statsNote, cacheNote})
        if (!note.empty())
            notes += "; " + note;
    return true;
}

} // namespace

HybridDecode::HybridDecode() = default;
HybridDecode::~HybridDecode() = default;

std::unique_ptr<HybridDecode> HybridDecode::create(const model::LlamaModel& model, const SessionParams& params,
                                                   int contextLength, int batchSize, std::string& report)
{
    const model::LlamaWeights& w = model.weights();
    if (w.magnitudeSparse)
        return createScreened(model, params, contextLength, batchSize, report);
    std::unique_ptr<HybridDecode> h(new HybridDecode());
    Setup setup;
    setup.modelPath = model.info().path;
    if (!openFor(w.sparse, params, h->m_device, report))
        return nullptr;
    try {
        for (std::size_t l = 0; l < w.layers.size(); ++l) {
            const model::LlamaLayerWeights& lw = w.layers[l];
            const device::Activation activation = deviceActivation(model.hyperParams().ffnActivation);
            device::FfnWeights f;
            if (lw.fusedNeurons) {
                f = device::FfnWeights::fused(lw.neurons, model.hyperParams().nEmbd, activation);
            } else if (lw.downTransposed) {
                f.gate = lw.gate;
                f.up = lw.up;
                f.downT = lw.down;
                f.activation = activation;
            } else {
                report = cpuOnlyReport("layer " + std::to_string(l)
                                 + " has neither the gate/up/down_t nor the fused neuron layout the device path needs");
                return nullptr;
            }
            if (const Status valid = f.validate(); !valid.ok()) {
                report = cpuOnlyReport("layer " + std::to_string(l) + ": " + valid.message());
                return nullptr;
            }
            h->m_weights.push_back(f);
        }
    } catch (const std::bad_alloc&) {
        report = cpuOnlyReport("not enough memory");
        return nullptr;
    }
    if (!prepare(model.file(), setup.modelPath, h->m_device->info(), params, contextLength, batchSize, setup.planner,
                 setup.params, setup.notes, report))
        return nullptr;
    auto placed = device::placeHybridFfn(h->m_device.get(), *setup.planner, setup.params, h->m_weights);
    if (!placed) {
        report = cpuOnlyReport("placing the hot neurons failed: " + placed.message());
        return nullptr;
    }
    h->m_placement = std::move(placed).value();
    return finish(std::move(h), setup, params, report);
}

std::unique_ptr<HybridDecode> HybridDecode::create(const model::FalconModel& model, const SessionParams& params,
                                                   int contextLength, int batchSize, std::string& report)
{
    std::vector<UpOnlyWeights> layers;
    for (const model::FalconLayerWeights& l : model.weights().layers)
        layers.push_back(upOnlyWeights(l.ffn));
    return createUpOnly(model, model.weights().sparse, std::move(layers), params, contextLength, batchSize, report);
}

std::unique_ptr<HybridDecode> HybridDecode::create(const model::OptModel& model, const SessionParams& params,
                                                   int contextLength, int batchSize, std::string& report)
{
    std::vector<UpOnlyWeights> layers;
    for (const model::OptLayerWeights& l : model.weights().layers)
        layers.push_back(upOnlyWeights(l.ffn));
    return createUpOnly(model, model.weights().sparse, std::move(layers), params, contextLength, batchSize, report);
}

std::unique_ptr<HybridDecode> HybridDecode::createUpOnly(const model::FamilyModel& model, bool sparseModel,
                                                         std::vector<UpOnlyWeights> layers, const SessionParams& params,
                                                         int contextLength, int batchSize, std::string& report)
{
    std::unique_ptr<HybridDecode> h(new HybridDecode());
    Setup setup;
    setup.modelPath = model.info().path;
    if (!openFor(sparseModel, params, h->m_device, report))
        return nullptr;
    for (std::size_t l = 0; l < layers.size(); ++l) {
        // A plain ffn_down comes without up rows here (see upOnlyWeights()).
        const UpOnlyWeights& w = layers[l];
        const bool same = w.up.data && w.downT.data && w.up.type == w.downT.type && w.up.rows == w.downT.rows
                          && w.up.cols == w.downT.cols && w.up.cols == layers.front().up.cols;
        if (!same) {
            report = cpuOnlyReport("layer " + std::to_string(l) + " does not use the up/down_t layout the device path needs");
            return nullptr;
        }
    }
    if (!prepare(model.file(), setup.modelPath, h->m_device->info(), params, contextLength, batchSize, setup.planner,
                 setup.params, setup.notes, report))
        return nullptr;
    h->m_upOnlyWeights = std::move(layers);
    const Status placed = placeUpOnly(h->m_device.get(), *setup.planner, setup.params, h->m_upOnlyWeights,
                                      h->m_placement, h->m_upOnlyScratch, h->m_upOnly);
    if (!placed.ok()) {
        report = cpuOnlyReport("placing the hot neurons failed: " + placed.message());
        return nullptr;
    }
    return finish(std::move(h), setup, params, report);
}

namespace {

// The layers of @p plan on @p device: each layer's hot neurons must be the first of its rows
// (hearth-sparsify writes them most kept first; a cached placement of other ids keeps only its
// leading run), in whole groups of 16 so the CPU's packed gate starts on a group.
Status placeScreenedOnce(device::Device& device, const sparse::PlacementPlan& plan, std::int64_t batchSize,
                         const std::vector<device::ScreenedFfnWeights>& layers,
                         std::unique_ptr<device::HybridFfnScratch>& scratch,
                         std::vector<std::unique_ptr<device::ScreenedFfnLayer>>& out)
{
    std::vector<std::int64_t> hot(layers.size(), 0);
    for (std::size_t l = 0; l < layers.size(); ++l) {
        const std::vector<std::int32_t> ids = plan.layers[l].hotNeurons();
        std::int64_t prefix = 0;
        while (prefix < std::int64_t(ids.size()) && ids[std::size_t(prefix)] == prefix)
            ++prefix;
        hot[l] = prefix / cpu::kQ4x16Rows * cpu::kQ4x16Rows;
    }
    const std::int64_t maxHot = *std::max_element(hot.begin(), hot.end());
    if (maxHot == 0)
        return {};
    const std::int64_t rows = std::clamp<std::int64_t>(batchSize, 1, sparse::kHybridFfnRows);
    auto made = device::HybridFfnScratch::create(device, layers.front().gate.cols, maxHot, rows);
    if (!made)
        return made.status();
    scratch = std::move(*made);
    for (std::size_t l = 0; l < layers.size(); ++l) {
        auto layer = device::ScreenedFfnLayer::create(device, *scratch, layers[l], hot[l]);
        if (!layer)
            return layer.status();
        out.push_back(std::move(*layer));
    }
    return {};
}

} // namespace

std::unique_ptr<HybridDecode> HybridDecode::createScreened(const model::LlamaModel& model, const SessionParams& params,
                                                           int contextLength, int batchSize, std::string& report)
{
    const model::LlamaWeights& w = model.weights();
    const bool screened = std::all_of(w.layers.begin(), w.layers.end(), [](const model::LlamaLayerWeights& lw) {
        return lw.gateThresholds && lw.activationThresholds && !lw.gateUpInputMajor && lw.downTransposed;
    });
    std::unique_ptr<HybridDecode> h(new HybridDecode());
    Setup setup;
    setup.modelPath = model.info().path;
    if (!screened) {
        report = cpuOnlyReport("the model's inputs are thresholded, not its neurons");
        return nullptr;
    }
    if (!openFor(true, params, h->m_device, report))
        return nullptr;
    const device::Activation activation = deviceActivation(model.hyperParams().ffnActivation);
    try {
        for (const model::LlamaLayerWeights& lw : w.layers)
            h->m_screenedWeights.push_back({lw.gate, lw.up, lw.down, lw.gateThresholds, lw.activationThresholds, activation});
    } catch (const std::bad_alloc&) {
        report = cpuOnlyReport("not enough memory");
        return nullptr;
    }
    if (!prepare(model.file(), setup.modelPath, h->m_device->info(), params, contextLength, batchSize, setup.planner,
                 setup.params, setup.notes, report, /*measuredOnly=*/true))
        return nullptr;
    device::Device& device = *h->m_device;
    const Status placed = device::placeWithReplanning(
        *setup.planner, setup.params, {}, h->m_placement,
        [&](const sparse::PlacementPlan& plan) {
            return placeScreenedOnce(device, plan, setup.params.batchSize, h->m_screenedWeights, h->m_screenedScratch,
                                     h->m_screened);
        },
        [&] {
            h->m_screened.clear(); // layers first: they use the scratch
            h->m_screenedScratch.reset();
        });
    if (!placed.ok()) {
        report = cpuOnlyReport("placing the hot neurons failed: " + placed.message());
        return nullptr;
    }
    return finish(std::move(h), setup, params, report);
}

std::int64_t HybridDecode::screenedHot(int layer) const
{
    if (!m_failure.empty() || layer < 0 || std::size_t(layer) >= m_screened.size())
        return 0;
    return m_screened[std::size_t(layer)]->hot();
}

bool HybridDecode::queueScreened(int layer, const float* xn, int tokens, const float* scales)
{
    if (screenedHot(layer) == 0)
        return false;
    const Status st = m_screened[std::size_t(layer)]->queue(xn, tokens, scales);
    if (!st.ok())
        m_failure = st.message();
    return st.ok();
}

bool HybridDecode::addScreened(int layer, float* y, int tokens)
{
    const Status st = m_screened[std::size_t(layer)]->addTo(y, tokens);
    if (!st.ok())
        m_failure = st.message();
    return st.ok();
}

std::unique_ptr<HybridDecode> HybridDecode::finish(std::unique_ptr<HybridDecode> h, Setup& setup,
                                                   const SessionParams& params, std::string& report)
{
    const device::DeviceInfo& info = h->m_device->info();
    const sparse::PlacementPlan& plan = h->m_placement.plan;
    std::string notes = setup.notes;
    for (const std::string& note : h->m_placement.notes)
        notes += "; " + note;

    const bool cpuOnlyPlacement = !h->m_upOnly.empty()       ? !h->m_upOnlyScratch
                                  : !h->m_screenedWeights.empty() ? !h->m_screenedScratch
                                                                  : h->m_placement.cpuOnly();
    if (cpuOnlyPlacement) {
        std::string why;
        if (params.disableGpuIndex)
            why = "the GPU index is disabled, so the FFN stays on the CPU";
        else
            why = "a budget of " + device::formatBytes(h->m_placement.budgetBytes) + " on " + info.name
                  + " holds no FFN neurons" + (plan.limit.empty() ? std::string() : " (" + plan.limit + ")");
        report = cpuOnlyReport(why) + notes;
        return nullptr;
    }
    // Sessions report their attention and predictors on the device themselves (HybridDeviceLayers).
    std::string text = "GPU " + info.name + ": " + std::to_string(plan.hotNeuronCount()) + " of "
                       + std::to_string(plan.neuronCount())
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
    if (!m_failure.empty() || layer < 0)
        return false;
    Status st;
    if (!m_upOnly.empty()) {
        if (std::size_t(layer) >= m_upOnly.size())
            return false;
        st = m_upOnly[std::size_t(layer)]->forward(pool, xn, active, count, y);
    } else {
        if (std::size_t(layer) >= m_placement.layers.size())
            return false;
        st = m_placement.layers[std::size_t(layer)]->forward(pool, xn, active, count, y);
    }
    if (st.ok())
        return true;
    m_failure = st.message();
    return false;
}

bool HybridDecode::runBatch(cpu::ThreadPool& pool, int layer, const float* xn, int tokens, const std::int32_t* active,
                            std::int64_t count, const std::uint8_t* mask, float* y)
{
    if (!m_failure.empty() || layer < 0 || !m_upOnly.empty() || std::size_t(layer) >= m_placement.layers.size())
        return false;
    device::HybridFfnLayer& l = *m_placement.layers[std::size_t(layer)];
    // With no hot neurons, or cold ones enough that the CPU's dense products over the whole
    // layer cost less than its per-neuron path over them, the CPU's own prompt path is faster.
    if (l.hotCount() == 0
        || sparse::NeuronSelection::denseIsCheaper(l.coldPairs(tokens, active, count, mask), tokens, l.nFF()))
        return false;
    const Status st = l.forwardBatch(pool, xn, tokens, active, count, mask, y);
    if (st.ok())
        return true;
    m_failure = st.message();
    return false;
}

std::string HybridDecode::report() const
{
    return reportWithFailure(m_report, m_failure, "the FFN runs on the CPU");
}

SessionPlacement HybridDecode::placement() const
{
    SessionPlacement placement;
    placement.device = m_device->info().name;
    placement.layers = int(m_placement.plan.layers.size());
    placement.neurons = m_placement.plan.neuronCount();
    placement.hotNeurons = m_placement.plan.hotNeuronCount();
    placement.budgetBytes = m_placement.budgetBytes;
    placement.deviceFailure = m_failure;
    return placement;
}

} // namespace hearth
