// SPDX-License-Identifier: MIT
#include "sparse/placement_planner.h"

#include "sparse/byte_math.h"
#include "sparse/scratch_layout.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <span>
#include <string>

namespace hearth::sparse {

namespace {

// Bytes of the index of hot neuron ids (I32) the GPU kernels read per hot neuron.
constexpr std::uint64_t kIndexBytesPerNeuron = 4;
// An expert on the GPU is three matrices: gate, up and down (device::DeviceExperts).
constexpr std::uint64_t kExpertAllocations = 3;

std::string mib(std::uint64_t bytes)
{
    if (bytes < kMiB) {
        return std::to_string((bytes + 512) / 1024) + " KiB";
    }
    return std::to_string((bytes + kMiB / 2) / kMiB) + " MiB";
}

// Takes items off the budget in priority order until the first one that does not fit.
struct BudgetWalk {
    std::uint64_t left = 0;
    bool stopped = false;
    std::string limit;

    template <typename Describe>
    bool take(std::uint64_t cost, Describe describe)
    {
        if (stopped) {
            return false;
        }
        // A saturated cost is an overflow, never a fit, even against a saturated budget.
        if (cost > left || cost == kSaturated) {
            stopped = true;
            limit = describe() + " does not fit (needs " + mib(cost) + ", " + mib(left) + " left)";
            return false;
        }
        left -= cost;
        return true;
    }
};

// Neuron ids by frequency descending, ties by ascending id. An LSD radix sort over the float
// bits (a non-negative float's bits order like the float): linear time, and stable, so ids that
// tie keep their order. About ten times faster than std::sort on a 28672-neuron layer.
void rankByFrequency(std::span<const float> freq, std::vector<std::int32_t>& ids)
{
    const std::size_t n = freq.size();
    std::vector<std::uint32_t> keys(n);
    std::vector<std::uint32_t> keysTmp(n);
    std::vector<std::int32_t> idsTmp(n);
    ids.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        std::uint32_t bits = 0;
        std::memcpy(&bits, &freq[i], sizeof bits);
        keys[i] = ~bits;
        ids[i] = static_cast<std::int32_t>(i);
    }
    for (int shift = 0; shift < 32; shift += 8) {
        std::size_t offsets[257] = {};
        for (std::uint32_t k : keys) {
            ++offsets[((k >> shift) & 0xff) + 1];
        }
        if (offsets[((keys.empty() ? 0 : keys[0]) >> shift & 0xff) + 1] == n) {
            continue; // every key has the same byte here
        }
        for (int b = 0; b < 256; ++b) {
            offsets[b + 1] += offsets[b];
        }
        for (std::size_t i = 0; i < n; ++i) {
            const std::size_t slot = offsets[(keys[i] >> shift) & 0xff]++;
            keysTmp[slot] = keys[i];
            idsTmp[slot] = ids[i];
        }
        keys.swap(keysTmp);
        ids.swap(idsTmp);
    }
}

} // namespace

struct PlacementPlanner::Walk {
    // Places the items every token touches (list items 1-4, or whole layers for a dense plan).
    static void placeFixed(const ModelShape& shape, const PlannerParams& p, PlacementPlan& plan, BudgetWalk& walk)
    {
        const std::uint64_t g = p.allocationGranularity;
        const std::size_t n = shape.layers.size();
        // A dense plan takes whole layers; a mixture's FFN is placed by experts afterwards.
        const bool wholeLayers = !plan.sparse && !shape.mixtureOfExperts();
        for (std::size_t l = 0; l < n; ++l) {
            const LayerShape& s = shape.layers[l];
            LayerPlacement& lp = plan.layers[l];
            const std::uint64_t kv = s.kvBytes(p.contextLength, p.batchSize);
            std::uint64_t raw = satAdd(s.attentionBytes, kv);
            std::uint64_t cost = satAdd(withPadding(s.attentionBytes, s.attentionTensors, g), withPadding(kv, 2, g));
            std::uint64_t ffn = 0;
            if (wholeLayers) {
                raw = satAdd(raw, s.normBytes);
                cost = satAdd(cost, withPadding(s.normBytes, 2, g));
                if (p.ffnOnGpu) {
                    ffn = satMul(s.neuronBytes, static_cast<std::uint64_t>(s.nFF));
                    raw = satAdd(raw, ffn);
                    cost = satAdd(cost, withPadding(ffn, s.ffnTensors, g));
                }
            }
            if (!walk.take(cost, [&] { return (wholeLayers ? "layer " : "attention of layer ") + std::to_string(l); })) {
                break;
            }
            lp.attentionOnGpu = true;
            lp.bytes.attention = s.attentionBytes;
            lp.bytes.kvCache = kv;
            lp.bytes.padding += cost - raw;
            if (wholeLayers) {
                lp.normsOnGpu = true;
                lp.bytes.norms = s.normBytes;
                if (p.ffnOnGpu) {
                    lp.hotCount = s.nFF;
                    lp.bytes.ffn = ffn;
                }
            }
        }
        if (plan.sparse) {
            for (std::size_t l = 0; l < n; ++l) {
                const std::uint64_t bytes = shape.layers[l].predictorBytes;
                const std::uint64_t cost = withPadding(bytes, 2, g);
                if (!walk.take(cost, [&] { return "predictor of layer " + std::to_string(l); })) {
                    break;
                }
                plan.layers[l].predictorOnGpu = true;
                plan.layers[l].bytes.predictors = bytes;
                plan.layers[l].bytes.padding += cost - bytes;
            }
            for (std::size_t l = 0; l < n; ++l) {
                const std::uint64_t bytes = shape.layers[l].normBytes;
                const std::uint64_t cost = withPadding(bytes, 2, g);
                if (!walk.take(cost, [&] { return "norms of layer " + std::to_string(l); })) {
                    break;
                }
                plan.layers[l].normsOnGpu = true;
                plan.layers[l].bytes.norms = bytes;
                plan.layers[l].bytes.padding += cost - bytes;
            }
        }
        placeOutput(shape, p, plan, walk);
    }

    // A mixture's experts after the fixed items: the shared experts of every layer (every token
    // runs them), then the routed ones in the planner's expert order. Sets each layer's neuron
    // count and activation share on the GPU.
    static void placeExperts(PlacementPlanner& planner, const PlannerParams& p, PlacementPlan& plan, BudgetWalk& walk)
    {
        const ModelShape& shape = planner.m_shape;
        const std::uint64_t g = p.allocationGranularity;
        const auto expertBytes = [&](const LayerShape& s, std::int64_t neurons) {
            return satMul(s.neuronBytes, static_cast<std::uint64_t>(neurons));
        };
        if (p.ffnOnGpu) {
            for (std::size_t l = 0; l < shape.layers.size(); ++l) {
                const LayerShape& s = shape.layers[l];
                const std::uint64_t raw = expertBytes(s, s.sharedFF);
                if (raw == 0)
                    continue;
                const std::uint64_t cost = withPadding(raw, kExpertAllocations, g);
                if (!walk.take(cost, [&] { return "the shared expert of layer " + std::to_string(l); }))
                    break;
                LayerPlacement& lp = plan.layers[l];
                lp.sharedExpertOnGpu = true;
                lp.bytes.ffn += raw;
                lp.bytes.padding += cost - raw;
            }
            if (planner.m_expertOrder.empty() || planner.m_expertOrderByLayer != p.expertsByLayer)
                planner.buildExpertOrder(p.expertsByLayer);
            for (const auto& [layer, position] : planner.m_expertOrder) {
                LayerPlacement& lp = plan.layers[layer];
                const LayerShape& s = shape.layers[layer];
                const std::uint64_t raw = expertBytes(s, s.expertFF());
                const std::uint64_t cost = withPadding(raw, kExpertAllocations, g);
                // The order keeps each layer's experts in ranking order, so this is the next one.
                if (!walk.take(cost, [&] { return "expert " + std::to_string((*lp.expertRanking)[position]) + " of layer "
                                                  + std::to_string(layer); }))
                    break;
                lp.hotExperts = std::int64_t(position) + 1;
                lp.bytes.ffn += raw;
                lp.bytes.padding += cost - raw;
            }
        }
        for (std::size_t l = 0; l < shape.layers.size(); ++l) {
            const LayerShape& s = shape.layers[l];
            LayerPlacement& lp = plan.layers[l];
            if (s.expertCount == 0)
                continue;
            const std::int64_t shared = lp.sharedExpertOnGpu ? s.sharedFF : 0;
            lp.hotCount = lp.hotExperts * s.expertFF() + shared;
            // Expected neurons a token runs on the GPU over those it runs at all.
            const double onGpu = planner.frequencySum(l, lp.hotExperts) * double(s.expertFF()) + double(shared);
            lp.gpuActivationShare = s.activeFF > 0 ? std::min(1.0, onGpu / double(s.activeFF)) : 0.0;
        }
    }

    // The output head (matrix, norm, and its input and logits buffers): every token reads all of
    // it, so it comes right after the items every token touches, before any FFN neuron (which
    // fires for some tokens only).
    static void placeOutput(const ModelShape& shape, const PlannerParams& p, PlacementPlan& plan, BudgetWalk& walk)
    {
        const std::uint64_t g = p.allocationGranularity;
        const std::uint64_t scratch = outputHeadScratchBytes(shape);
        const std::uint64_t cost = satAdd(withPadding(shape.outputBytes, 3, g), withPadding(scratch, 2, g));
        if (!p.outputOnGpu || shape.outputBytes == 0
            || !walk.take(cost, [] { return std::string("the output head"); })) {
            return;
        }
        plan.outputOnGpu = true;
        plan.gpu.output = shape.outputBytes;
        plan.gpu.scratch = satAdd(plan.gpu.scratch, scratch);
        plan.gpu.padding = satAdd(plan.gpu.padding, cost - shape.outputBytes - scratch);
    }
};

Result<PlacementPlanner> PlacementPlanner::create(ModelShape shape, const ActivationStats& stats)
{
    HEARTH_TRY(shape.validate());
    if (!stats.empty()) {
        if (stats.layerCount() != shape.layers.size()) {
            return Status(ErrorCode::InvalidArgument,
                          "activation statistics cover " + std::to_string(stats.layerCount()) + " layers, the model has "
                              + std::to_string(shape.layers.size()));
        }
        for (std::size_t l = 0; l < shape.layers.size(); ++l) {
            const LayerShape& s = shape.layers[l];
            const std::int64_t units = s.expertCount > 0 ? s.expertCount : s.nFF;
            if (static_cast<std::int64_t>(stats.layer(l).size()) != units) {
                return Status(ErrorCode::InvalidArgument,
                              "activation statistics of layer " + std::to_string(l) + " have "
                                  + std::to_string(stats.layer(l).size()) + (s.expertCount > 0 ? " experts" : " neurons")
                                  + ", the model " + std::to_string(units));
            }
        }
    }

    PlacementPlanner planner;
    planner.m_sparseCapable = !stats.empty() && shape.selectsNeurons();
    planner.m_statsFingerprint = stats.empty() ? 0 : stats.fingerprint();
    const std::size_t n = shape.layers.size();
    planner.m_rankings.resize(n);
    planner.m_prefixFrequency.resize(n);
    planner.m_frequencies.resize(n);
    for (std::size_t l = 0; l < n; ++l) {
        // A mixture's layer ranks its experts, any other layer its neurons.
        const LayerShape& s = shape.layers[l];
        const auto nFF = static_cast<std::size_t>(s.expertCount > 0 ? s.expertCount : s.nFF);
        auto ranking = std::make_shared<std::vector<std::int32_t>>(nFF);
        std::vector<double>& prefix = planner.m_prefixFrequency[l];
        prefix.assign(nFF + 1, 0.0);
        if (stats.empty()) {
            // Without statistics every neuron counts as always active, and every expert as
            // picked as often as the others, in id order.
            const double each = s.expertCount > 0 ? double(s.expertsUsed()) / double(s.expertCount) : 1.0;
            std::iota(ranking->begin(), ranking->end(), 0);
            for (std::size_t i = 0; i < nFF; ++i) {
                prefix[i + 1] = static_cast<double>(i + 1) * each;
            }
        } else {
            const std::span<const float> freq = stats.layer(l);
            planner.m_frequencies[l] = std::make_shared<const std::vector<float>>(freq.begin(), freq.end());
            rankByFrequency(freq, *ranking);
            for (std::size_t i = 0; i < nFF; ++i) {
                prefix[i + 1] = prefix[i] + freq[static_cast<std::size_t>((*ranking)[i])];
            }
        }
        planner.m_rankings[l] = std::move(ranking);
    }
    planner.m_shape = std::move(shape);
    return planner;
}

Status PlacementPlanner::checkParams(const PlannerParams& p) const
{
    if (p.contextLength < 1 || p.contextLength > (std::int64_t(1) << 24)) {
        return Status(ErrorCode::InvalidArgument, "context length must be 1 to 16M tokens");
    }
    if (p.batchSize < 1 || p.batchSize > (std::int64_t(1) << 20)) {
        return Status(ErrorCode::InvalidArgument, "batch size must be 1 to 1M tokens");
    }
    if (p.groupSize < 1 || p.groupSize > (std::int64_t(1) << 20)) {
        return Status(ErrorCode::InvalidArgument, "neuron group size must be 1 to 1M");
    }
    if (p.allocationGranularity > (std::uint64_t(1) << 30)) {
        return Status(ErrorCode::InvalidArgument, "allocation granularity is out of range");
    }
    for (double v : {p.cpuBandwidthGBs, p.gpuBandwidthGBs}) {
        if (!(v > 0) || !std::isfinite(v)) {
            return Status(ErrorCode::InvalidArgument, "memory bandwidths must be positive");
        }
    }
    if (!(p.syncMicroseconds >= 0) || !std::isfinite(p.syncMicroseconds)) {
        return Status(ErrorCode::InvalidArgument, "synchronisation latency must be non-negative");
    }
    return {};
}

void PlacementPlanner::buildGroupOrder(std::int64_t groupSize)
{
    // Per layer, group priorities (frequency per byte) along the ranking never increase, so the
    // global order is a merge of the per-layer lists: O(groups log layers), no full sort.
    const std::size_t n = m_shape.layers.size();
    std::vector<std::vector<double>> priorities(n);
    std::size_t groupCount = 0;
    for (std::size_t l = 0; l < n; ++l) {
        const LayerShape& s = m_shape.layers[l];
        const std::vector<double>& prefix = m_prefixFrequency[l];
        const double bytesPerNeuron = static_cast<double>(s.neuronBytes + kIndexBytesPerNeuron);
        // A screened neuron's gate row is read for every token: that share of it counts as
        // always active.
        const double screenShare = s.neuronBytes > 0 ? double(s.screenBytes) / double(s.neuronBytes) : 0.0;
        double previous = std::numeric_limits<double>::infinity();
        for (std::int64_t start = 0; start < s.nFF; start += groupSize) {
            const std::int64_t end = std::min(start + groupSize, s.nFF);
            const double count = static_cast<double>(end - start);
            const double sum = prefix[static_cast<std::size_t>(end)] - prefix[static_cast<std::size_t>(start)];
            const double read = sum * (1.0 - screenShare) + count * screenShare;
            // Rounding in the prefix sums must not let a later group of a layer overtake an
            // earlier one: the hot set of a layer has to stay a prefix of its ranking.
            const double priority = std::min(previous, read / (count * bytesPerNeuron));
            previous = priority;
            priorities[l].push_back(priority);
        }
        groupCount += priorities[l].size();
    }

    struct Head {
        double priority;
        std::uint32_t layer;
        std::uint32_t index;
    };
    // Heap order: the best head on top; ties go to the lower layer, so the result does not
    // depend on the heap's internals.
    auto worse = [](const Head& a, const Head& b) {
        return a.priority != b.priority ? a.priority < b.priority : a.layer > b.layer;
    };
    std::vector<Head> heap;
    for (std::size_t l = 0; l < n; ++l) {
        if (!priorities[l].empty()) {
            heap.push_back({priorities[l][0], static_cast<std::uint32_t>(l), 0});
        }
    }
    std::make_heap(heap.begin(), heap.end(), worse);
    m_groups.clear();
    m_groups.reserve(groupCount);
    while (!heap.empty()) {
        std::pop_heap(heap.begin(), heap.end(), worse);
        Head& top = heap.back();
        const std::int64_t nFF = m_shape.layers[top.layer].nFF;
        const std::int64_t end = std::min<std::int64_t>((std::int64_t(top.index) + 1) * groupSize, nFF);
        m_groups.push_back({top.layer, static_cast<std::uint32_t>(end)});
        if (++top.index < priorities[top.layer].size()) {
            top.priority = priorities[top.layer][top.index];
            std::push_heap(heap.begin(), heap.end(), worse);
        } else {
            heap.pop_back();
        }
    }
    m_groupSize = groupSize;
}

PlacementPlan PlacementPlanner::begin(const PlannerParams& p, bool sparse) const
{
    PlacementPlan plan;
    plan.sparse = sparse;
    plan.budgetBytes = p.budgetBytes;
    plan.cpuBandwidthGBs = p.cpuBandwidthGBs;
    plan.gpuBandwidthGBs = p.gpuBandwidthGBs;
    plan.layers.resize(m_shape.layers.size());
    for (std::size_t l = 0; l < plan.layers.size(); ++l) {
        LayerPlacement& lp = plan.layers[l];
        lp.nFF = m_shape.layers[l].nFF;
        lp.expertCount = m_shape.layers[l].expertCount;
        (lp.expertCount > 0 ? lp.expertRanking : lp.ranking) = m_rankings[l];
    }
    return plan;
}

void PlacementPlanner::buildExpertOrder(bool byLayer)
{
    // Within a layer every expert has the same bytes, so its ranking (use, descending) is its
    // priority order and a layer's experts on the GPU stay a prefix of it; across layers the
    // order is by use per byte, ties to the lower layer.
    struct Item {
        double priority;
        std::uint32_t layer, position;
    };
    std::vector<Item> items;
    for (std::size_t l = 0; l < m_shape.layers.size(); ++l) {
        const LayerShape& s = m_shape.layers[l];
        const double bytes = double(std::max<std::uint64_t>(s.neuronBytes * std::uint64_t(s.expertFF()), 1));
        for (std::int64_t i = 0; i < s.expertCount; ++i) {
            const double use = frequencySum(l, i + 1) - frequencySum(l, i);
            items.push_back({byLayer ? 0.0 : use / bytes, std::uint32_t(l), std::uint32_t(i)});
        }
    }
    std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.priority > b.priority; });
    // Rounding may not let a later expert of a layer overtake an earlier one of equal use: keep
    // each layer's positions in order by handing them out again in sequence.
    std::vector<std::uint32_t> next(m_shape.layers.size(), 0);
    m_expertOrder.clear();
    m_expertOrder.reserve(items.size());
    for (const Item& item : items)
        m_expertOrder.emplace_back(item.layer, next[item.layer]++);
    m_expertOrderByLayer = byLayer;
}

double PlacementPlanner::frequencySum(std::size_t layer, std::int64_t hotCount) const
{
    return m_prefixFrequency[layer][static_cast<std::size_t>(hotCount)];
}

Result<PlacementPlan> PlacementPlanner::plan(const PlannerParams& p)
{
    HEARTH_TRY(checkParams(p));
    const bool sparse = m_sparseCapable && !p.dense;
    PlacementPlan plan = begin(p, sparse);

    const std::uint64_t fixed = satAdd(satAdd(p.reserveBytes, p.workspaceBytes), scratchLayout(m_shape, p.contextLength, p.batchSize, sparse, p.allocationGranularity).total());
    BudgetWalk walk;
    if (p.budgetBytes < fixed) {
        walk.stopped = true;
        walk.limit = "the budget (" + mib(p.budgetBytes) + ") is below the fixed GPU costs (" + mib(fixed)
            + ": CUDA context reserve, cuBLAS workspace, scratch buffers)";
    } else {
        walk.left = p.budgetBytes - fixed;
    }
    Walk::placeFixed(m_shape, p, plan, walk);
    if (!sparse && m_shape.mixtureOfExperts())
        Walk::placeExperts(*this, p, plan, walk);

    if (sparse && p.ffnOnGpu && !walk.stopped) {
        if (m_groupSize != p.groupSize) {
            buildGroupOrder(p.groupSize);
        }
        const std::uint64_t g = p.allocationGranularity;
        for (const Group& group : m_groups) {
            LayerPlacement& lp = plan.layers[group.layer];
            const LayerShape& s = m_shape.layers[group.layer];
            const auto count = static_cast<std::uint64_t>(group.endCount - lp.hotCount);
            const std::uint64_t raw = satMul(count, s.neuronBytes + kIndexBytesPerNeuron);
            // The first group of a layer opens its buffers: gate/up/down rows and the id index.
            const std::uint64_t padding = lp.hotCount == 0 ? satMul(s.ffnTensors + 1, g) : 0;
            if (!walk.take(satAdd(raw, padding), [&] { return "FFN neurons of layer " + std::to_string(group.layer); })) {
                break;
            }
            lp.hotCount = group.endCount;
            lp.bytes.ffn += raw;
            lp.bytes.padding += padding;
        }
    }
    if (!p.ffnOnGpu && walk.limit.empty()) {
        walk.limit = "FFN placement on the GPU is disabled";
    }
    for (std::size_t l = 0; l < plan.layers.size(); ++l) {
        LayerPlacement& lp = plan.layers[l];
        if (lp.expertCount > 0)
            continue; // placeExperts() has set it
        const double total = sparse ? frequencySum(l, lp.nFF) : 0.0;
        lp.gpuActivationShare = total > 0 ? frequencySum(l, lp.hotCount) / total
                                           : (lp.nFF > 0 ? static_cast<double>(lp.hotCount) / static_cast<double>(lp.nFF) : 0.0);
    }
    plan.limit = walk.limit;
    finish(plan, p);
    return plan;
}

Result<PlacementPlan> PlacementPlanner::planWithHotSets(const PlannerParams& p,
                                                       const std::vector<std::vector<std::int32_t>>& hotSets) const
{
    HEARTH_TRY(checkParams(p));
    if (!m_sparseCapable || p.dense) {
        return Status(ErrorCode::InvalidArgument, "a neuron placement needs a model with predictors and statistics");
    }
    if (hotSets.size() != m_shape.layers.size()) {
        return Status(ErrorCode::InvalidArgument,
                      "the neuron placement covers " + std::to_string(hotSets.size()) + " layers, the model has "
                          + std::to_string(m_shape.layers.size()));
    }
    for (std::size_t l = 0; l < hotSets.size(); ++l) {
        const auto& set = hotSets[l];
        for (std::size_t i = 0; i < set.size(); ++i) {
            if (set[i] < 0 || set[i] >= m_shape.layers[l].nFF || (i > 0 && set[i] <= set[i - 1])) {
                return Status(ErrorCode::InvalidArgument,
                              "the neuron placement of layer " + std::to_string(l) + " is not an ascending list of neuron ids");
            }
        }
    }
    PlacementPlan plan = begin(p, true);
    const std::uint64_t fixed = satAdd(satAdd(p.reserveBytes, p.workspaceBytes), scratchLayout(m_shape, p.contextLength, p.batchSize, true, p.allocationGranularity).total());
    BudgetWalk walk;
    walk.left = p.budgetBytes > fixed ? p.budgetBytes - fixed : 0;
    Walk::placeFixed(m_shape, p, plan, walk);
    plan.limit = walk.limit;
    if (p.ffnOnGpu) {
        for (std::size_t l = 0; l < hotSets.size(); ++l) {
            const auto& set = hotSets[l];
            LayerPlacement& lp = plan.layers[l];
            const LayerShape& s = m_shape.layers[l];
            lp.ranking = std::make_shared<const std::vector<std::int32_t>>(set);
            lp.hotCount = static_cast<std::int64_t>(set.size());
            if (set.empty()) {
                continue;
            }
            lp.bytes.ffn = satMul(set.size(), s.neuronBytes + kIndexBytesPerNeuron);
            lp.bytes.padding += satMul(s.ffnTensors + 1, p.allocationGranularity);
            double hot = 0;
            for (std::int32_t id : set) {
                hot += (*m_frequencies[l])[static_cast<std::size_t>(id)];
            }
            const double total = frequencySum(l, lp.nFF);
            lp.gpuActivationShare = total > 0 ? hot / total : static_cast<double>(set.size()) / static_cast<double>(lp.nFF);
        }
    }
    finish(plan, p);
    if (!plan.fits) {
        plan.limit = "the cached neuron placement needs " + mib(plan.gpu.total()) + ", more than the budget of "
            + mib(p.budgetBytes);
    }
    return plan;
}

void PlacementPlanner::finish(PlacementPlan& plan, const PlannerParams& p) const
{
    GpuBytes& gpu = plan.gpu;
    for (const LayerPlacement& lp : plan.layers) {
        gpu.attention = satAdd(gpu.attention, lp.bytes.attention);
        gpu.kvCache = satAdd(gpu.kvCache, lp.bytes.kvCache);
        gpu.predictors = satAdd(gpu.predictors, lp.bytes.predictors);
        gpu.norms = satAdd(gpu.norms, lp.bytes.norms);
        gpu.ffn = satAdd(gpu.ffn, lp.bytes.ffn);
        gpu.padding = satAdd(gpu.padding, lp.bytes.padding);
    }
    if (gpu.weights() > 0 || gpu.kvCache > 0) {
        // Added to the output head's buffers, which placeFixed() counted with it.
        gpu.scratch = satAdd(gpu.scratch,
                             scratchLayout(m_shape, p.contextLength, p.batchSize, plan.sparse, p.allocationGranularity).total());
        gpu.workspace = p.workspaceBytes;
        gpu.reserve = p.reserveBytes;
    } else if (plan.limit.empty()) {
        plan.limit = "nothing was placed on the GPU";
    }
    plan.fits = gpu.total() <= p.budgetBytes;

    // Decode speed: bytes each device reads per token over its bandwidth (see the header).
    const double cpuBw = p.cpuBandwidthGBs * 1e9;
    const double gpuBw = p.gpuBandwidthGBs * 1e9;
    const double kvTokens = static_cast<double>(p.contextLength) / 2.0;
    double seconds = 0;
    double cpuBytes = 0;
    double gpuBytes = 0;
    for (std::size_t l = 0; l < plan.layers.size(); ++l) {
        const LayerPlacement& lp = plan.layers[l];
        const LayerShape& s = m_shape.layers[l];
        double layerCpu = 0;
        double layerGpu = 0;
        const double attention = static_cast<double>(s.attentionBytes)
                                 + static_cast<double>(s.kvBytes(std::int64_t(kvTokens), p.batchSize));
        (lp.attentionOnGpu ? layerGpu : layerCpu) += attention;
        (lp.normsOnGpu ? layerGpu : layerCpu) += static_cast<double>(s.normBytes);
        if (plan.sparse) {
            (lp.predictorOnGpu ? layerGpu : layerCpu) += static_cast<double>(s.predictorBytes);
        }
        double sequential = layerCpu / cpuBw + layerGpu / gpuBw;
        // A dense FFN computes every neuron; a sparse one the expected number of active ones.
        // A mixture of experts its chosen experts' (and its shared expert's).
        const double activeNeurons = plan.sparse ? frequencySum(l, lp.nFF)
                                                 : static_cast<double>(s.activeFF > 0 ? s.activeFF : lp.nFF);
        // A screened layer's CPU reads every cold neuron's gate row, the rest of an active
        // one's bytes only; its device computes every hot neuron (device/screened_ffn.h).
        const double screen = plan.sparse ? static_cast<double>(s.screenBytes) : 0.0;
        const double perActive = static_cast<double>(s.neuronBytes) - screen;
        const double hot = static_cast<double>(lp.hotCount);
        const double ffnGpu = screen > 0 ? hot * static_cast<double>(s.neuronBytes)
                                         : lp.gpuActivationShare * activeNeurons * perActive;
        const double ffnCpu =
            (1.0 - lp.gpuActivationShare) * activeNeurons * perActive + (static_cast<double>(lp.nFF) - hot) * screen;
        sequential += std::max(ffnCpu / cpuBw, ffnGpu / gpuBw);
        layerCpu += ffnCpu;
        layerGpu += ffnGpu;
        if (layerCpu > 0 && layerGpu > 0) {
            sequential += p.syncMicroseconds * 1e-6;
        }
        seconds += sequential;
        cpuBytes += layerCpu;
        gpuBytes += layerGpu;
    }
    const auto output = static_cast<double>(m_shape.outputBytes);
    if (plan.outputOnGpu) {
        seconds += output / gpuBw;
        gpuBytes += output;
    } else {
        seconds += output / cpuBw;
        cpuBytes += output;
    }
    plan.cpuBytesPerToken = cpuBytes;
    plan.gpuBytesPerToken = gpuBytes;
    plan.tokensPerSecond = seconds > 0 ? 1.0 / seconds : 0.0;
}

Result<PlacementPlan> planPlacement(const ModelShape& shape, const ActivationStats& stats, const PlannerParams& params)
{
    auto planner = PlacementPlanner::create(shape, stats);
    if (!planner) {
        return planner.status();
    }
    return planner->plan(params);
}

} // namespace hearth::sparse
