// SPDX-License-Identifier: MIT
#include "sparse/placement_plan.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <numeric>

namespace hearth::sparse {

namespace {

std::string formatBytes(std::uint64_t bytes)
{
    char buffer[32];
    if (bytes >= (std::uint64_t(1) << 30)) {
        std::snprintf(buffer, sizeof buffer, "%.2f GiB", static_cast<double>(bytes) / double(1 << 30));
    } else {
        std::snprintf(buffer, sizeof buffer, "%.1f MiB", static_cast<double>(bytes) / double(1 << 20));
    }
    return buffer;
}

} // namespace

std::vector<std::int32_t> LayerPlacement::hotNeurons() const
{
    std::vector<std::int32_t> ids;
    if (hotCount <= 0 || !ranking) {
        return ids;
    }
    const auto count = static_cast<std::size_t>(std::min<std::int64_t>(hotCount, static_cast<std::int64_t>(ranking->size())));
    if (count == ranking->size() && static_cast<std::int64_t>(count) == nFF) {
        ids.resize(count);
        std::iota(ids.begin(), ids.end(), 0);
        return ids;
    }
    ids.assign(ranking->begin(), ranking->begin() + static_cast<std::ptrdiff_t>(count));
    std::sort(ids.begin(), ids.end());
    return ids;
}

std::vector<std::int32_t> LayerPlacement::gpuFlags() const
{
    std::vector<std::int32_t> flags(static_cast<std::size_t>(std::max<std::int64_t>(nFF, 0)), 0);
    if (!ranking) {
        return flags;
    }
    const auto count = static_cast<std::size_t>(std::clamp<std::int64_t>(hotCount, 0, static_cast<std::int64_t>(ranking->size())));
    for (std::size_t i = 0; i < count; ++i) {
        const auto id = static_cast<std::size_t>((*ranking)[i]);
        if (id < flags.size()) {
            flags[id] = 1;
        }
    }
    return flags;
}

std::vector<std::int32_t> LayerPlacement::gpuExperts() const
{
    std::vector<std::int32_t> ids;
    if (expertRanking && hotExperts > 0)
        ids.assign(expertRanking->begin(),
                   expertRanking->begin()
                       + static_cast<std::ptrdiff_t>(std::min<std::size_t>(std::size_t(hotExperts), expertRanking->size())));
    std::sort(ids.begin(), ids.end());
    return ids;
}

std::int64_t PlacementPlan::attentionLayersOnGpu() const
{
    return std::count_if(layers.begin(), layers.end(), [](const LayerPlacement& l) { return l.attentionOnGpu; });
}

std::int64_t PlacementPlan::hotNeuronCount() const
{
    std::int64_t n = 0;
    for (const LayerPlacement& l : layers) {
        n += l.hotCount;
    }
    return n;
}

std::int64_t PlacementPlan::hotExpertCount() const
{
    std::int64_t n = 0;
    for (const LayerPlacement& l : layers)
        n += l.hotExperts;
    return n;
}

std::int64_t PlacementPlan::neuronCount() const
{
    std::int64_t n = 0;
    for (const LayerPlacement& l : layers) {
        n += l.nFF;
    }
    return n;
}

std::string PlacementPlan::summary() const
{
    std::string out;
    char line[256];
    std::snprintf(line, sizeof line, "%s placement, budget %s: GPU holds %s%s\n", sparse ? "Sparse" : "Dense",
                  formatBytes(budgetBytes).c_str(), formatBytes(gpu.total()).c_str(), fits ? "" : " (OVER BUDGET)");
    out += line;
    if (usesGpu()) {
        out += "  weights " + formatBytes(gpu.weights()) + " (attention " + formatBytes(gpu.attention) + ", FFN "
            + formatBytes(gpu.ffn) + ", predictors " + formatBytes(gpu.predictors) + ", output " + formatBytes(gpu.output)
            + ", norms " + formatBytes(gpu.norms) + ", padding " + formatBytes(gpu.padding) + ")\n";
        out += "  KV cache " + formatBytes(gpu.kvCache) + ", scratch " + formatBytes(gpu.scratch) + ", cuBLAS workspace "
            + formatBytes(gpu.workspace) + ", CUDA reserve " + formatBytes(gpu.reserve) + "\n";
    }
    double activationsOnGpu = 0;
    for (const LayerPlacement& l : layers) {
        activationsOnGpu += l.gpuActivationShare;
    }
    const std::int64_t neurons = neuronCount();
    std::snprintf(line, sizeof line,
                  "  attention on GPU: %lld of %zu layers; FFN neurons on GPU: %lld of %lld (%.1f%%, %.1f%% of activations); "
                  "output matrix on %s\n",
                  static_cast<long long>(attentionLayersOnGpu()), layers.size(), static_cast<long long>(hotNeuronCount()),
                  static_cast<long long>(neurons), neurons > 0 ? 100.0 * static_cast<double>(hotNeuronCount()) / static_cast<double>(neurons) : 0.0,
                  layers.empty() ? 0.0 : 100.0 * activationsOnGpu / static_cast<double>(layers.size()), outputOnGpu ? "GPU" : "CPU");
    out += line;
    std::int64_t experts = 0;
    std::int64_t sharedOnGpu = 0;
    for (const LayerPlacement& l : layers) {
        experts += l.expertCount;
        sharedOnGpu += l.sharedExpertOnGpu ? 1 : 0;
    }
    if (experts > 0) {
        std::snprintf(line, sizeof line, "  experts on GPU: %lld of %lld, shared experts of %lld layers\n",
                      static_cast<long long>(hotExpertCount()), static_cast<long long>(experts),
                      static_cast<long long>(sharedOnGpu));
        out += line;
    }
    std::snprintf(line, sizeof line, "  expected %.1f tokens/s (reads %.0f MiB/token on the CPU at %.0f GB/s, %.0f MiB/token on the GPU at %.0f GB/s)\n",
                  tokensPerSecond, cpuBytesPerToken / double(1 << 20), cpuBandwidthGBs, gpuBytesPerToken / double(1 << 20),
                  gpuBandwidthGBs);
    out += line;
    if (!limit.empty()) {
        out += "  limited by: " + limit + "\n";
    }
    return out;
}

} // namespace hearth::sparse
