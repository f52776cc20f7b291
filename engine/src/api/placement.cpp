// SPDX-License-Identifier: MIT
// The public placement API: a thin layer over sparse::PlacementPlanner that keeps the planner's
// private types out of front ends.

#include <hearth/placement.h>

#include "core/dtype.h"
#include "core/sliding_window.h"
#include "gguf/gguf_file.h"
#include "model/architecture.h"
#include "model/hyper_params.h"
#include "api/session_device.h"
#include "api/session_shape.h"
#include "sparse/activation_stats.h"
#include "sparse/byte_math.h"
#include "sparse/gpu_index.h"
#include "sparse/model_shape.h"
#include "sparse/placement_planner.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string_view>

namespace hearth {

namespace {

constexpr int kMaxContext = 1 << 24;
constexpr int kMaxBatch = 1 << 20;

// A weight type ("Q6_K") or llama-quantize preset ("Q4_K_M": its base type, Q4_K). A description
// cannot say which matrices a preset stores with more bits; planned from the file itself
// (shapeFromGguf), every tensor counts with its own type.
std::optional<DType> weightTypeFromName(std::string_view name)
{
    for (std::string_view suffix : {"_S", "_M", "_L"}) {
        if (name.size() > 4 && name.substr(name.size() - 2) == suffix && name.substr(name.size() - 4, 2) == "_K") {
            name.remove_suffix(2);
            break;
        }
    }
    for (std::uint32_t id = 0; id < 64; ++id) {
        const auto type = static_cast<DType>(id);
        if (dtypeTraits(id) && isCpuWeightType(type) && dtypeName(type) == name) {
            return type;
        }
    }
    return std::nullopt;
}

bool isGatedArchitecture(std::string_view architecture)
{
    // falcon and opt have up and down only; the llama-block families add a gate. An unknown name
    // is planned as the most common shape.
    const model::Architecture* a = model::findArchitecture(architecture);
    return !a || a->gatedFfn();
}

std::string gib(std::uint64_t bytes)
{
    const double value = static_cast<double>(bytes) / static_cast<double>(sparse::kGiB);
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.1f GiB", value);
    return buffer;
}

} // namespace

int PlacementSummary::attentionLayersOnGpu() const
{
    return static_cast<int>(
        std::count_if(layers.begin(), layers.end(), [](const auto& l) { return l.attentionOnGpu; }));
}

std::int64_t PlacementSummary::hotNeuronCount() const
{
    std::int64_t n = 0;
    for (const LayerPlacementSummary& l : layers) {
        n += l.hotNeurons;
    }
    return n;
}

std::int64_t PlacementSummary::neuronCount() const
{
    std::int64_t n = 0;
    for (const LayerPlacementSummary& l : layers) {
        n += l.feedForwardSize;
    }
    return n;
}

int PlacementSummary::gpuExpertCount() const
{
    int n = 0;
    for (const LayerPlacementSummary& l : layers)
        n += l.gpuExperts;
    return n;
}

int PlacementSummary::expertCount() const
{
    int n = 0;
    for (const LayerPlacementSummary& l : layers)
        n += l.expertCount;
    return n;
}

bool PlacementSummary::fullyOnGpu() const
{
    return !layers.empty() && outputOnGpu && std::all_of(layers.begin(), layers.end(), [](const auto& l) {
        return l.attentionOnGpu && l.hotNeurons == l.feedForwardSize;
    });
}

struct PlacementModel::Impl
{
    // Planners for the shape as sessions place it: whole layers (a mixture: by experts, with
    // @p stats), and (for a file with predictors) single neurons with @p stats.
    [[nodiscard]] static Result<std::unique_ptr<Impl>> create(
        sparse::ModelShape shape, sparse::ActivationStats stats);
    [[nodiscard]] Status setStats(sparse::ActivationStats stats);
    // The planner of a @p sparse (or dense) session whose device caches are F16 with @p halfCache,
    // made on first use.
    [[nodiscard]] Result<sparse::PlacementPlanner*> planner(bool sparse, bool halfCache);
    // A new one, with @p withStats for the plans that use statistics (neurons, or a mixture's experts).
    [[nodiscard]] Result<sparse::PlacementPlanner> make(bool sparse, bool halfCache,
                                                        const sparse::ActivationStats& withStats) const;

    sparse::ModelShape shape; // the file's or the description's own
    sparse::ActivationStats stats;
    bool sparseCapable = false; // predictors and statistics
    std::optional<sparse::PlacementPlanner> planners[2][2]; // [sparse][halfCache]
};

PlacementModel::PlacementModel(std::unique_ptr<Impl> impl)
    : m_impl(std::move(impl))
{
}

PlacementModel::PlacementModel(PlacementModel&&) noexcept = default;
PlacementModel& PlacementModel::operator=(PlacementModel&&) noexcept = default;
PlacementModel::~PlacementModel() = default;

Result<PlacementModel> PlacementModel::fromFile(const std::string& path, double assumedSparsity)
{
    auto file = gguf::GgufFile::open(path);
    if (!file) {
        return file.status();
    }
    auto shape = fileShape(**file);
    if (!shape) {
        return shape.status();
    }
    // The statistics the session will use: measured ones beside the model, or assumed.
    sparse::ActivationStats stats;
    if (shape->mixtureOfExperts()) {
        std::string note;
        stats = sessionExpertStats(*shape, path, note);
    } else if (shape->hasPredictors()) {
        std::string note;
        auto found = sessionStats(*shape, path, assumedSparsity, note);
        if (!found) {
            return found.status();
        }
        stats = std::move(found).value();
    } else if (shape->screensNeurons()) {
        std::string note;
        stats = measuredStats(*shape, path, note); // none: whole layers, as a dense file's
    }
    auto impl = Impl::create(std::move(shape).value(), stats);
    if (!impl) {
        return impl.status();
    }
    return PlacementModel(std::move(impl).value());
}

Result<PlacementModel> PlacementModel::fromDescription(const ModelDescription& d, double assumedSparsity)
{
    const auto type = weightTypeFromName(d.quantization);
    if (!type) {
        return Status(ErrorCode::Unsupported,
            "unknown weight type \"" + d.quantization + "\" (F32, F16, BF16, Q8_0, Q6_K, Q5_K_M, Q4_K_M, Q4_0, IQ4_XS, ...)");
    }
    if (d.architecture.empty()) {
        return Status(ErrorCode::InvalidArgument, "the model has no architecture");
    }
    sparse::UniformShapeParams p;
    p.architecture = d.architecture;
    p.nLayer = d.layerCount;
    p.nEmbd = d.embeddingSize;
    p.nHead = d.headCount;
    p.nHeadKv = d.kvHeadCount > 0 ? d.kvHeadCount : d.headCount;
    p.headDim = d.headDim;
    p.nFF = d.feedForwardSize;
    p.expertCount = d.expertCount;
    p.expertsUsed = d.expertsUsed;
    p.expertFF = d.expertFeedForwardSize;
    p.nVocab = d.vocabSize;
    p.predictorHidden = d.sparse ? d.predictorHidden : 0;
    p.gatedFfn = isGatedArchitecture(d.architecture);
    p.weightType = *type;
    if (d.sparse && d.predictorHidden <= 0) {
        return Status(ErrorCode::InvalidArgument, "a sparse model needs a predictor width");
    }
    auto shape = sparse::uniformShape(p);
    if (!shape) {
        return shape.status();
    }
    for (std::size_t l = 0; l < shape->layers.size(); ++l)
        shape->layers[l].slidingWindow = layerWindow(std::max(0, d.slidingWindow), std::max(0, d.slidingWindowPeriod), int(l));
    sparse::ActivationStats stats;
    if (shape->hasPredictors()) {
        auto assumed = assumedStats(*shape, assumedSparsity);
        if (!assumed) {
            return assumed.status();
        }
        stats = std::move(assumed).value();
    }
    auto impl = Impl::create(std::move(shape).value(), stats);
    if (!impl) {
        return impl.status();
    }
    return PlacementModel(std::move(impl).value());
}

Result<std::unique_ptr<PlacementModel::Impl>> PlacementModel::Impl::create(
    sparse::ModelShape shape, sparse::ActivationStats stats)
{
    auto impl = std::make_unique<PlacementModel::Impl>();
    impl->shape = std::move(shape);
    if (impl->shape.hasPredictors() || impl->shape.mixtureOfExperts() || !stats.empty()) {
        HEARTH_TRY(impl->setStats(std::move(stats)));
        return impl;
    }
    auto dense = impl->planner(false, true);
    if (!dense)
        return dense.status();
    return impl;
}

Status PlacementModel::Impl::setStats(sparse::ActivationStats newStats)
{
    // Checked by making the planner the default request uses; the others follow on demand.
    const bool sparse = shape.selectsNeurons() && !shape.mixtureOfExperts() && !newStats.empty();
    auto planner = make(sparse, true, newStats);
    if (!planner)
        return planner.status();
    for (auto& row : planners)
        for (auto& p : row)
            p.reset();
    stats = std::move(newStats);
    sparseCapable = sparse;
    planners[sparse][1].emplace(std::move(planner).value());
    return {};
}

Result<sparse::PlacementPlanner*> PlacementModel::Impl::planner(bool sparse, bool halfCache)
{
    std::optional<sparse::PlacementPlanner>& slot = planners[sparse][halfCache];
    if (!slot) {
        auto made = make(sparse, halfCache, stats);
        if (!made)
            return made.status();
        slot.emplace(std::move(made).value());
    }
    return &*slot;
}

Result<sparse::PlacementPlanner> PlacementModel::Impl::make(bool sparse, bool halfCache,
                                                            const sparse::ActivationStats& withStats) const
{
    // A mixture places its experts by their statistics; a dense file has none to use.
    const bool used = sparse || shape.mixtureOfExperts();
    return sparse::PlacementPlanner::create(sessionShape(shape, sparse, halfCache),
                                            used ? withStats : sparse::ActivationStats());
}

Status PlacementModel::setActivationFrequencies(std::vector<std::vector<float>> perLayer)
{
    auto stats = sparse::ActivationStats::fromFrequencies(std::move(perLayer));
    if (!stats) {
        return stats.status();
    }
    return m_impl->setStats(std::move(stats).value());
}

Result<PlacementSummary> PlacementModel::plan(const PlacementRequest& r)
{
    if (r.contextLength < 1 || r.contextLength > kMaxContext || r.batchSize < 1 || r.batchSize > kMaxBatch) {
        return Status(ErrorCode::InvalidArgument, "context length or batch size out of range");
    }
    sparse::PlannerParams params = sessionPlannerParams(r.budgetBytes, r.contextLength, r.batchSize, r.emulatedDevice);
    params.cpuBandwidthGBs = r.cpuBandwidthGBs;
    params.gpuBandwidthGBs = r.gpuBandwidthGBs;
    params.dense = r.dense;
    params.expertsByLayer = r.expertsByLayer;
    auto planner = m_impl->planner(m_impl->sparseCapable && !r.dense, deviceHalfCache(r.kvCacheType));
    if (!planner)
        return planner.status();
    auto planned = (*planner)->plan(params);
    if (!planned) {
        return planned.status();
    }
    const sparse::PlacementPlan& plan = planned.value();
    const sparse::ModelShape& shape = m_impl->shape;

    PlacementSummary s;
    s.sparse = plan.sparse;
    s.mixtureOfExperts = shape.mixtureOfExperts();
    s.expertsByLayer = r.expertsByLayer;
    s.outputOnGpu = plan.outputOnGpu;
    s.budgetBytes = plan.budgetBytes;
    s.tokensPerSecond = plan.tokensPerSecond;
    s.modelBytes = shape.totalWeightBytes();
    s.gpu.weights = plan.gpu.weights();
    s.gpu.kvCache = plan.gpu.kvCache;
    s.gpu.scratch = plan.gpu.scratch;
    s.gpu.workspace = plan.gpu.workspace;
    s.gpu.reserve = plan.gpu.reserve;
    s.layers.reserve(plan.layers.size());
    for (const sparse::LayerPlacement& lp : plan.layers) {
        s.layers.push_back({lp.attentionOnGpu, lp.hotCount, lp.nFF, lp.gpuActivationShare, int(lp.expertCount),
                            int(lp.hotExperts), lp.sharedExpertOnGpu});
    }
    // The host cache holds every layer: device layers mirror their rows there (as F32). A sparse
    // session uses the device once it holds hot neurons, a dense one (or a mixture's) once it
    // holds a layer's attention.
    const bool deviceInUse = !s.cpuOnly() && (s.sparse ? s.hotNeuronCount() > 0 : s.attentionLayersOnGpu() > 0);
    s.hostKvCache = hostKvCacheBytes(shape, r.kvCacheType, deviceInUse, params.contextLength, params.batchSize);
    // Weights the GPU holds need no RAM once uploaded (the mapping's pages are dropped); the
    // neuron index counted in the GPU's FFN bytes has no host counterpart, hence the clamp.
    const std::uint64_t onGpu
        = plan.gpu.attention + plan.gpu.predictors + plan.gpu.norms + plan.gpu.output + plan.gpu.ffn;
    const std::uint64_t onCpu = s.modelBytes - std::min(s.modelBytes, onGpu);
    // The CPU's interleaved layouts hold its share of the weights in a few percent more bytes.
    const auto layouts = s.modelBytes == 0 ? std::uint64_t(0)
                                           : static_cast<std::uint64_t>(double(shape.hostLayoutBytes) * double(onCpu)
                                                                        / double(s.modelBytes));
    s.hostBytes = sparse::satAdd(sparse::satAdd(sparse::satAdd(onCpu, layouts), s.hostKvCache), r.hostReserveBytes);
    s.fitsInRam = r.hostMemoryBytes == 0 || s.hostBytes <= r.hostMemoryBytes;
    s.fits = plan.fits && s.fitsInRam;
    if (!s.fitsInRam) {
        s.reason = "needs " + gib(s.hostBytes) + " of RAM besides the GPU's share, " + gib(r.hostMemoryBytes)
            + " available";
    } else if (!s.fullyOnGpu()) {
        s.reason = plan.limit;
    }
    return s;
}

const std::string& PlacementModel::architecture() const
{
    return m_impl->shape.architecture;
}

const std::string& PlacementModel::weightType() const
{
    return m_impl->shape.weightType;
}

int PlacementModel::layerCount() const
{
    return static_cast<int>(m_impl->shape.layers.size());
}

bool PlacementModel::sparseCapable() const
{
    return m_impl->sparseCapable;
}

bool PlacementModel::magnitudeSparse() const
{
    return m_impl->shape.magnitudeSparse;
}

std::uint64_t PlacementModel::weightBytes() const
{
    return m_impl->shape.totalWeightBytes();
}

std::string placementCachePath(const std::string& modelPath)
{
    return sparse::gpuIndexPath(modelPath);
}

} // namespace hearth
