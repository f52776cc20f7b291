// SPDX-License-Identifier: MIT
// The public placement API: a thin layer over sparse::PlacementPlanner that keeps the planner's
// private types out of front ends.

#include <hearth/placement.h>

#include "core/dtype.h"
#include "core/sliding_window.h"
#include "gguf/gguf_file.h"
#include "model/architecture.h"
#include "model/hyper_params.h"
#include "sparse/activation_stats.h"
#include "sparse/byte_math.h"
#include "sparse/model_shape.h"
#include "sparse/placement_planner.h"

#include <algorithm>
#include <cmath>
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

// Per-neuron frequencies that follow a power law over the neuron's rank, f = min(1, a * x^-0.8)
// at x = (rank + 0.5) / n, with `a` chosen so the mean is 1 - sparsity. Measured ReLU activations
// look like this: a small hot core firing for almost every token and a long, rarely firing tail.
std::vector<float> syntheticFrequencies(std::int64_t nFF, double sparsity)
{
    const auto n = static_cast<std::size_t>(nFF);
    const double target = std::clamp(1.0 - sparsity, 0.0, 1.0);
    std::vector<double> x(n);
    for (std::size_t i = 0; i < n; ++i) {
        x[i] = std::pow((static_cast<double>(i) + 0.5) / static_cast<double>(n), -0.8);
    }
    auto mean = [&](double a) {
        double sum = 0;
        for (double v : x) {
            sum += std::min(1.0, a * v);
        }
        return n > 0 ? sum / static_cast<double>(n) : 0.0;
    };
    double lo = 0.0;
    double hi = 1.0;
    for (int i = 0; i < 60; ++i) {
        const double mid = 0.5 * (lo + hi);
        (mean(mid) < target ? lo : hi) = mid;
    }
    std::vector<float> f(n);
    for (std::size_t i = 0; i < n; ++i) {
        f[i] = static_cast<float>(std::min(1.0, hi * x[i]));
    }
    return f;
}

Result<sparse::ActivationStats> syntheticStats(const sparse::ModelShape& shape, double sparsity)
{
    if (!(sparsity >= 0.0 && sparsity < 1.0)) {
        return Status(ErrorCode::InvalidArgument, "the assumed sparsity must be in [0, 1)");
    }
    std::vector<std::vector<float>> layers;
    layers.reserve(shape.layers.size());
    std::vector<float> shared;
    std::int64_t sharedWidth = -1;
    for (const sparse::LayerShape& layer : shape.layers) {
        if (layer.nFF != sharedWidth) {
            shared = syntheticFrequencies(layer.nFF, sparsity);
            sharedWidth = layer.nFF;
        }
        layers.push_back(shared);
    }
    return sparse::ActivationStats::fromFrequencies(std::move(layers));
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

bool PlacementSummary::fullyOnGpu() const
{
    return !layers.empty() && outputOnGpu && std::all_of(layers.begin(), layers.end(), [](const auto& l) {
        return l.attentionOnGpu && l.hotNeurons == l.feedForwardSize;
    });
}

struct PlacementModel::Impl
{
    // Synthetic statistics for a shape with predictors (see fromDescription), none otherwise.
    [[nodiscard]] static Result<std::unique_ptr<Impl>> create(
        sparse::ModelShape shape, double assumedSparsity);

    std::optional<sparse::PlacementPlanner> planner;
    sparse::ModelShape shape; // kept to rebuild the planner when statistics arrive
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
    auto shape = sparse::shapeFromGguf(**file);
    if (!shape) {
        return shape.status();
    }
    // The llama-block families say which layers slide (Gemma's pattern is the family's).
    if (const auto hp = model::HyperParams::fromGguf(**file); hp && std::size_t(hp->nLayer) == shape->layers.size()) {
        for (int l = 0; l < hp->nLayer; ++l)
            shape->layers[std::size_t(l)].slidingWindow = hp->windowOf(l);
    }
    auto impl = Impl::create(std::move(shape.value()), assumedSparsity);
    if (!impl) {
        return impl.status();
    }
    return PlacementModel(std::move(impl.value()));
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
    auto impl = Impl::create(std::move(shape.value()), assumedSparsity);
    if (!impl) {
        return impl.status();
    }
    return PlacementModel(std::move(impl.value()));
}

Result<std::unique_ptr<PlacementModel::Impl>> PlacementModel::Impl::create(
    sparse::ModelShape shape, double assumedSparsity)
{
    sparse::ActivationStats stats;
    if (shape.hasPredictors()) {
        auto synthetic = syntheticStats(shape, assumedSparsity);
        if (!synthetic) {
            return synthetic.status();
        }
        stats = std::move(synthetic.value());
    }
    auto planner = sparse::PlacementPlanner::create(shape, stats);
    if (!planner) {
        return planner.status();
    }
    auto impl = std::make_unique<PlacementModel::Impl>();
    impl->shape = std::move(shape);
    impl->planner.emplace(std::move(planner.value()));
    return impl;
}

Status PlacementModel::setActivationFrequencies(std::vector<std::vector<float>> perLayer)
{
    auto stats = sparse::ActivationStats::fromFrequencies(std::move(perLayer));
    if (!stats) {
        return stats.status();
    }
    auto planner = sparse::PlacementPlanner::create(m_impl->shape, stats.value());
    if (!planner) {
        return planner.status();
    }
    m_impl->planner.emplace(std::move(planner.value()));
    return {};
}

Result<PlacementSummary> PlacementModel::plan(const PlacementRequest& r)
{
    if (r.contextLength < 1 || r.contextLength > kMaxContext || r.batchSize < 1 || r.batchSize > kMaxBatch) {
        return Status(ErrorCode::InvalidArgument, "context length or batch size out of range");
    }
    sparse::PlannerParams params;
    params.budgetBytes = r.budgetBytes;
    params.contextLength = r.contextLength;
    params.batchSize = r.batchSize;
    params.cpuBandwidthGBs = r.cpuBandwidthGBs;
    params.gpuBandwidthGBs = r.gpuBandwidthGBs;
    params.dense = r.dense;
    auto planned = m_impl->planner->plan(params);
    if (!planned) {
        return planned.status();
    }
    const sparse::PlacementPlan& plan = planned.value();
    const sparse::ModelShape& shape = m_impl->shape;

    PlacementSummary s;
    s.sparse = plan.sparse;
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
    std::uint64_t cpuKv = 0;
    for (std::size_t l = 0; l < plan.layers.size(); ++l) {
        const sparse::LayerPlacement& lp = plan.layers[l];
        s.layers.push_back({ lp.attentionOnGpu, lp.hotCount, lp.nFF, lp.gpuActivationShare });
        if (!lp.attentionOnGpu) {
            cpuKv = sparse::satAdd(cpuKv, shape.layers[l].kvBytes(r.contextLength, r.batchSize));
        }
    }
    // Weights the GPU holds need no RAM once uploaded (the mapping's pages are dropped); the
    // neuron index counted in the GPU's FFN bytes has no host counterpart, hence the clamp.
    const std::uint64_t onGpu
        = plan.gpu.attention + plan.gpu.predictors + plan.gpu.norms + plan.gpu.output + plan.gpu.ffn;
    s.hostBytes = sparse::satAdd(
        sparse::satAdd(s.modelBytes - std::min(s.modelBytes, onGpu), cpuKv), r.hostReserveBytes);
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
    return m_impl->planner->sparseCapable();
}

std::uint64_t PlacementModel::weightBytes() const
{
    return m_impl->shape.totalWeightBytes();
}

} // namespace hearth
