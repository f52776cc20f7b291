// SPDX-License-Identifier: MIT
#include "api/session_shape.h"

#include "api/session_device.h"

#include "gguf/gguf_file.h"
#include "model/architecture.h"
#include "model/hyper_params.h"
#include "model/kv_cache.h"
#include "sparse/byte_math.h"
#include "sparse/activation_profile.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <system_error>
#include <vector>

namespace hearth {

namespace {

// Per-neuron frequencies f = min(1, a * x^-0.8) at x = (id + 0.5) / n, with `a` chosen so the
// mean is 1 - sparsity.
std::vector<float> powerLawFrequencies(std::int64_t nFF, double sparsity)
{
    const auto n = static_cast<std::size_t>(nFF);
    const double target = std::clamp(1.0 - sparsity, 0.0, 1.0);
    std::vector<double> x(n);
    for (std::size_t i = 0; i < n; ++i)
        x[i] = std::pow((static_cast<double>(i) + 0.5) / static_cast<double>(n), -0.8);
    auto mean = [&](double a) {
        double sum = 0;
        for (double v : x)
            sum += std::min(1.0, a * v);
        return n > 0 ? sum / static_cast<double>(n) : 0.0;
    };
    double lo = 0.0;
    double hi = 1.0;
    for (int i = 0; i < 60; ++i) {
        const double mid = 0.5 * (lo + hi);
        (mean(mid) < target ? lo : hi) = mid;
    }
    std::vector<float> f(n);
    for (std::size_t i = 0; i < n; ++i)
        f[i] = static_cast<float>(std::min(1.0, hi * x[i]));
    return f;
}

// Why @p stats cannot be planned with on @p shape, or empty.
std::string statsMismatch(const sparse::ActivationStats& stats, const sparse::ModelShape& shape)
{
    if (stats.layerCount() != shape.layers.size())
        return "they cover " + std::to_string(stats.layerCount()) + " layers, the model has "
               + std::to_string(shape.layers.size());
    for (std::size_t l = 0; l < shape.layers.size(); ++l) {
        if (std::int64_t(stats.layer(l).size()) != shape.layers[l].nFF)
            return "layer " + std::to_string(l) + " has another width";
    }
    return {};
}

} // namespace

sparse::ModelShape sessionShape(sparse::ModelShape shape, bool sparse, bool halfCache)
{
    const model::Architecture* family = model::findArchitecture(shape.architecture);
    const bool layerNorm = family && family->block != model::BlockKind::Llama;
    const std::uint64_t deviceKvBytesPerToken
        = 2 * (halfCache ? 2 : sizeof(float)) * std::uint64_t(std::max<std::int64_t>(shape.nEmbdKv, 0));
    const std::uint64_t normFloats = std::uint64_t(std::max<std::int64_t>(shape.nEmbd, 0));
    // A mixture's session runs the attention on the device as a sparse one does, and its experts.
    const bool attentionApart = sparse || shape.mixtureOfExperts();
    for (sparse::LayerShape& layer : shape.layers) {
        layer.kvBytesPerToken = deviceKvBytesPerToken;
        if (attentionApart) {
            layer.normBytes = 0;
            layer.attentionBytes += (layerNorm ? 2 : 1) * 4 * normFloats;
            layer.attentionTensors += layerNorm ? 2 : 1;
        }
    }
    shape.kvType = halfCache ? "F16" : "F32";
    return shape;
}

Result<sparse::ModelShape> fileShape(const gguf::GgufFile& file)
{
    auto shape = sparse::shapeFromGguf(file);
    if (!shape)
        return shape.status();
    // The llama-block families say which layers slide (Gemma's pattern is the family's) and how
    // many of a mixture's experts a token runs (the loader's rule: a layer with a router).
    if (const auto hp = model::HyperParams::fromGguf(file); hp && std::size_t(hp->nLayer) == shape->layers.size()) {
        for (int l = 0; l < hp->nLayer; ++l) {
            sparse::LayerShape& layer = shape->layers[std::size_t(l)];
            layer.slidingWindow = hp->windowOf(l);
            const std::string p = "blk." + std::to_string(l) + ".";
            if (hp->mixtureOfExperts() && file.findTensor(p + "ffn_gate_inp.weight")) {
                layer.activeFF = std::int64_t(hp->nExpertUsed) * hp->nFfExpert
                                 + (file.findTensor(p + "ffn_up_shexp.weight") ? hp->nFfSharedExpert : 0);
            }
        }
    }
    return shape;
}

Result<sparse::ActivationStats> assumedStats(const sparse::ModelShape& shape, double sparsity)
{
    if (!(sparsity >= 0.0 && sparsity < 1.0))
        return Status(ErrorCode::InvalidArgument, "the assumed sparsity must be in [0, 1)");
    std::vector<std::vector<float>> layers;
    layers.reserve(shape.layers.size());
    std::vector<float> shared;
    std::int64_t sharedWidth = -1;
    for (const sparse::LayerShape& layer : shape.layers) {
        if (layer.nFF != sharedWidth) {
            shared = powerLawFrequencies(layer.nFF, sparsity);
            sharedWidth = layer.nFF;
        }
        layers.push_back(shared);
    }
    return sparse::ActivationStats::fromFrequencies(std::move(layers));
}

sparse::ActivationStats measuredStats(const sparse::ModelShape& shape, const std::string& modelPath, std::string& note)
{
    // Earlier versions of hearth-profile and hearth-synth named the file "<model>.gguf.hearth-stats.gguf".
    std::string statsPath = sparse::defaultStatsPath(modelPath);
    std::error_code ec;
    if (!modelPath.empty() && !std::filesystem::exists(statsPath, ec)
        && std::filesystem::exists(modelPath + ".hearth-stats.gguf", ec))
        statsPath = modelPath + ".hearth-stats.gguf";
    if (!modelPath.empty() && std::filesystem::exists(statsPath, ec)) {
        auto loaded = sparse::loadStatsFile(statsPath);
        if (!loaded)
            note = "statistics ignored: " + loaded.message();
        else if (const std::string mismatch = statsMismatch(*loaded, shape); !mismatch.empty())
            note = "statistics ignored: " + mismatch;
        else
            return std::move(loaded).value();
    }
    return {};
}

Result<sparse::ActivationStats> sessionStats(const sparse::ModelShape& shape, const std::string& modelPath,
                                             double assumedSparsity, std::string& note)
{
    sparse::ActivationStats measured = measuredStats(shape, modelPath, note);
    if (!measured.empty())
        return measured;
    if (note.empty())
        note = "no activation statistics: neurons placed in file order";
    return assumedStats(shape, assumedSparsity);
}

sparse::ActivationStats sessionExpertStats(const sparse::ModelShape& shape, const std::string& modelPath,
                                          std::string& note)
{
    const std::string statsPath = sparse::defaultStatsPath(modelPath);
    std::error_code ec;
    if (modelPath.empty() || !std::filesystem::exists(statsPath, ec)) {
        note = "no expert statistics: experts placed layer by layer";
        return {};
    }
    auto loaded = sparse::loadStatsFile(statsPath, sparse::StatsUnit::Experts);
    std::string mismatch = loaded ? std::string() : loaded.message();
    for (std::size_t l = 0; mismatch.empty() && l < shape.layers.size(); ++l) {
        if (l >= loaded->layerCount() || std::int64_t(loaded->layer(l).size()) != shape.layers[l].expertCount)
            mismatch = "they do not match the model's experts (layer " + std::to_string(l) + ")";
    }
    if (mismatch.empty() && loaded->layerCount() != shape.layers.size())
        mismatch = "they cover " + std::to_string(loaded->layerCount()) + " layers";
    if (!mismatch.empty()) {
        note = "expert statistics ignored: " + mismatch;
        return {};
    }
    return std::move(loaded).value();
}

std::uint64_t hostKvCacheBytes(const sparse::ModelShape& shape, KvCacheType type, bool deviceInUse, int contextLength,
                               int batchSize)
{
    using Cache = model::KvCache;
    // With a device the cache takes the device's type (deviceHalfCache()).
    Cache::Type stored = deviceHalfCache(type) ? Cache::Type::F16 : Cache::Type::F32;
    if (!deviceInUse) {
        const std::int64_t qWidth = shape.nEmbdQ > 0 ? shape.nEmbdQ : shape.nEmbd;
        stored = Cache::typeFor(Cache::typeOf(type), shape.nHead > 0 ? int(qWidth / shape.nHead) : 0);
    }
    const std::uint64_t rowBytes = Cache::bytesOf(stored, std::uint64_t(std::max<std::int64_t>(shape.nEmbdKv, 0)));
    std::uint64_t bytes = 0;
    for (sparse::LayerShape layer : shape.layers) {
        layer.kvBytesPerToken = 2 * rowBytes;
        bytes = sparse::satAdd(bytes, layer.kvBytes(contextLength, batchSize));
    }
    return bytes;
}

sparse::PlannerParams sessionPlannerParams(std::uint64_t budgetBytes, int contextLength, int batchSize, bool emulated)
{
    sparse::PlannerParams pp;
    pp.budgetBytes = budgetBytes;
    pp.contextLength = contextLength;
    // The forward passes take at most a context's worth of tokens at once.
    pp.batchSize = std::max(1, std::min(batchSize, contextLength));
    if (emulated) {
        // Host memory: no driver context and no cuBLAS workspace to set aside.
        pp.reserveBytes = 0;
        pp.workspaceBytes = 0;
    }
    return pp;
}

sparse::PlannerParams sessionPlannerParams(const device::DeviceInfo& device, int contextLength, int batchSize)
{
    sparse::PlannerParams pp = sessionPlannerParams(device.budgetBytes, contextLength, batchSize, device.backend == "emulated");
    pp.allocationGranularity = device.granularity;
    return pp;
}

} // namespace hearth
