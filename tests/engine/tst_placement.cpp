// SPDX-License-Identifier: MIT
// Placement planner: budget accounting, monotonicity, dense fallback, the gpuidx cache file.

#include "test_support.h"

#include "gguf/gguf_file.h"
#include "gguf/gguf_writer.h"
#include "sparse/activation_stats.h"
#include "sparse/gpu_index.h"
#include "sparse/model_shape.h"
#include "sparse/placement_planner.h"
#include "sparse/scratch_layout.h"
#include "sparse/vram_budget.h"

#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <optional>
#include <random>

using namespace hearth;
using namespace hearth::sparse;

namespace {

ModelShape smallShape(std::int64_t layers = 6, std::int64_t nFF = 1000, std::int64_t predictorHidden = 64)
{
    UniformShapeParams p;
    p.nLayer = layers;
    p.nEmbd = 256;
    p.nHead = 4;
    p.nHeadKv = 2;
    p.nFF = nFF;
    p.nVocab = 1000;
    p.predictorHidden = predictorHidden;
    auto shape = uniformShape(p);
    Q_ASSERT(shape.ok());
    return shape.value();
}

enum class Distribution { Random, PowerLaw };

ActivationStats makeStats(const ModelShape& shape, Distribution distribution, unsigned seed)
{
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
    std::vector<std::vector<float>> layers;
    for (const LayerShape& l : shape.layers) {
        std::vector<float> f(static_cast<std::size_t>(l.nFF));
        for (std::size_t i = 0; i < f.size(); ++i) {
            // Power law: a few neurons fire for most tokens, a long tail almost never.
            f[i] = distribution == Distribution::Random ? uniform(rng) : static_cast<float>(1.0 / std::pow(double(i + 1), 0.8));
        }
        if (distribution == Distribution::PowerLaw) {
            std::shuffle(f.begin(), f.end(), rng);
        }
        layers.push_back(std::move(f));
    }
    auto stats = ActivationStats::fromFrequencies(std::move(layers));
    Q_ASSERT(stats.ok());
    return stats.value();
}

// Small fixed costs so the weights dominate the budget range under test.
PlannerParams smallParams()
{
    PlannerParams p;
    p.contextLength = 256;
    p.batchSize = 8;
    p.reserveBytes = 1 * kMiB;
    p.workspaceBytes = 256 * 1024;
    return p;
}

std::uint64_t fixedCost(const ModelShape& shape, const PlannerParams& p, bool sparse = true)
{
    return p.reserveBytes + p.workspaceBytes + scratchLayout(shape, p.contextLength, p.batchSize, sparse, p.allocationGranularity).total();
}

// Budget that holds everything with room to spare.
std::uint64_t generousBudget(const ModelShape& shape, const PlannerParams& p)
{
    std::uint64_t kv = 0;
    for (const LayerShape& l : shape.layers) {
        kv += l.kvBytesPerToken * static_cast<std::uint64_t>(p.contextLength);
    }
    return fixedCost(shape, p) + shape.totalWeightBytes() + kv + 64 * kMiB;
}

// Fixed costs plus @p fraction of what everything else needs.
std::uint64_t partialBudget(const ModelShape& shape, const PlannerParams& p, double fraction)
{
    const std::uint64_t fixed = fixedCost(shape, p);
    const std::uint64_t rest = generousBudget(shape, p) - 64 * kMiB - fixed;
    return fixed + static_cast<std::uint64_t>(static_cast<double>(rest) * fraction);
}

// Re-derives the GPU bytes of a plan from its placement, independently of the planner's sums.
std::uint64_t recount(const ModelShape& shape, const PlacementPlan& plan, const PlannerParams& p)
{
    std::uint64_t total = 0;
    for (std::size_t l = 0; l < plan.layers.size(); ++l) {
        const LayerShape& s = shape.layers[l];
        const LayerPlacement& lp = plan.layers[l];
        if (lp.attentionOnGpu) {
            total += s.attentionBytes + s.kvBytesPerToken * static_cast<std::uint64_t>(p.contextLength);
        }
        total += lp.predictorOnGpu ? s.predictorBytes : 0;
        total += lp.normsOnGpu ? s.normBytes : 0;
        total += static_cast<std::uint64_t>(lp.hotCount) * (s.neuronBytes + (plan.sparse ? 4 : 0));
    }
    // The output head: its matrix, and rows of input and logits.
    total += plan.outputOnGpu ? shape.outputBytes + outputHeadScratchBytes(shape) : 0;
    if (total > 0) {
        total += fixedCost(shape, p, plan.sparse);
    }
    return total;
}

} // namespace

class TestPlacement : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void budgetNeverExceeded_data();
    void budgetNeverExceeded();
    void monotoneInBudget_data();
    void monotoneInBudget();
    void zeroBudget();
    void budgetBelowFixedCosts();
    void partialAttention();
    void everythingFits();
    void denseFallback();
    void disabledFfnKeepsAttention();
    void groupSizeEffects();
    void kvCacheAndScratchCounted();
    void speedEstimate();
    void rejectsBadInput();
    void activationFileOrder();
    void vramBudgetSetting();
    void shapeFromGgufFile();
    void shapeCountsCpuLayouts();
    void shapeOfRealModel();
    void gpuIndexRoundTrip();
    void gpuIndexLayout();
    void gpuIndexRejectsInconsistentFiles();
    void staleCacheDetection();
    void largeModelPlanningTime();
    void expertsByUse();
};

void TestPlacement::budgetNeverExceeded_data()
{
    QTest::addColumn<int>("distribution");
    QTest::addColumn<int>("groupSize");
    QTest::newRow("random/32") << int(Distribution::Random) << 32;
    QTest::newRow("power-law/32") << int(Distribution::PowerLaw) << 32;
    QTest::newRow("power-law/1") << int(Distribution::PowerLaw) << 1;
    QTest::newRow("random/256") << int(Distribution::Random) << 256;
}

void TestPlacement::budgetNeverExceeded()
{
    QFETCH(int, distribution);
    QFETCH(int, groupSize);
    const ModelShape shape = smallShape();
    auto planner = PlacementPlanner::create(shape, makeStats(shape, Distribution(distribution), 7));
    QVERIFY2(planner.ok(), planner.message().c_str());
    QVERIFY(planner->sparseCapable());
    PlannerParams p = smallParams();
    p.groupSize = groupSize;
    const std::uint64_t top = generousBudget(shape, p);
    std::mt19937_64 rng(3);
    for (int i = 0; i < 300; ++i) {
        p.budgetBytes = i < 150 ? top * static_cast<std::uint64_t>(i) / 150 : rng() % top;
        auto plan = planner->plan(p);
        QVERIFY2(plan.ok(), plan.message().c_str());
        QVERIFY2(plan->gpu.total() <= p.budgetBytes, plan->summary().c_str());
        QVERIFY(plan->fits);
        // The totals are the placement's bytes plus padding, nothing forgotten.
        QCOMPARE(plan->gpu.total() - plan->gpu.padding, recount(shape, *plan, p));
        for (const LayerPlacement& l : plan->layers) {
            QVERIFY(l.hotCount % groupSize == 0 || l.hotCount == l.nFF);
        }
    }
}

void TestPlacement::monotoneInBudget_data()
{
    budgetNeverExceeded_data();
}

void TestPlacement::monotoneInBudget()
{
    QFETCH(int, distribution);
    QFETCH(int, groupSize);
    const ModelShape shape = smallShape();
    auto planner = PlacementPlanner::create(shape, makeStats(shape, Distribution(distribution), 11));
    QVERIFY(planner.ok());
    PlannerParams p = smallParams();
    p.groupSize = groupSize;
    const std::uint64_t top = generousBudget(shape, p);
    std::optional<PlacementPlan> previous;
    std::vector<std::vector<std::int32_t>> previousFlags;
    // Steps of uneven size, from nothing to everything.
    for (std::uint64_t budget = 0; budget <= top; budget += top / 211 + (budget % 7) * 1013) {
        p.budgetBytes = budget;
        auto plan = planner->plan(p);
        QVERIFY(plan.ok());
        std::vector<std::vector<std::int32_t>> flags;
        for (const LayerPlacement& l : plan->layers) {
            flags.push_back(l.gpuFlags());
        }
        if (previous) {
            QVERIFY(plan->gpu.total() >= previous->gpu.total());
            QVERIFY(plan->outputOnGpu || !previous->outputOnGpu);
            for (std::size_t l = 0; l < flags.size(); ++l) {
                const LayerPlacement& now = plan->layers[l];
                const LayerPlacement& before = previous->layers[l];
                QVERIFY(now.attentionOnGpu || !before.attentionOnGpu);
                QVERIFY(now.predictorOnGpu || !before.predictorOnGpu);
                QVERIFY(now.normsOnGpu || !before.normsOnGpu);
                for (std::size_t i = 0; i < flags[l].size(); ++i) {
                    if (previousFlags[l][i] && !flags[l][i]) {
                        QFAIL(qPrintable(QStringLiteral("neuron %1 of layer %2 left the GPU when the budget grew to %3")
                                             .arg(i)
                                             .arg(l)
                                             .arg(budget)));
                    }
                }
            }
        }
        previous = std::move(plan).value();
        previousFlags = std::move(flags);
    }
}

void TestPlacement::zeroBudget()
{
    const ModelShape shape = smallShape();
    auto plan = planPlacement(shape, makeStats(shape, Distribution::PowerLaw, 1), smallParams());
    QVERIFY(plan.ok());
    QVERIFY(!plan->usesGpu());
    QCOMPARE(plan->gpu.total(), 0u);
    QCOMPARE(plan->attentionLayersOnGpu(), 0);
    QCOMPARE(plan->hotNeuronCount(), 0);
    QVERIFY(plan->fits);
    QVERIFY(!plan->limit.empty());
    QVERIFY(plan->tokensPerSecond > 0);
    QVERIFY(plan->layers[0].hotNeurons().empty());
}

void TestPlacement::budgetBelowFixedCosts()
{
    const ModelShape shape = smallShape();
    PlannerParams p = smallParams();
    p.budgetBytes = fixedCost(shape, p) - 1;
    auto plan = planPlacement(shape, makeStats(shape, Distribution::Random, 1), p);
    QVERIFY(plan.ok());
    QVERIFY(!plan->usesGpu());
    QVERIFY2(plan->limit.find("fixed GPU costs") != std::string::npos, plan->limit.c_str());
    // Exactly the fixed costs: still nothing useful fits, so nothing is allocated.
    p.budgetBytes = fixedCost(shape, p);
    plan = planPlacement(shape, makeStats(shape, Distribution::Random, 1), p);
    QVERIFY(plan.ok());
    QVERIFY(!plan->usesGpu());
}

void TestPlacement::partialAttention()
{
    const ModelShape shape = smallShape();
    PlannerParams p = smallParams();
    const LayerShape& l = shape.layers[0];
    const std::uint64_t kv = l.kvBytesPerToken * static_cast<std::uint64_t>(p.contextLength);
    const std::uint64_t perLayer = l.attentionBytes + kv + (l.attentionTensors + 2) * p.allocationGranularity;
    p.budgetBytes = fixedCost(shape, p) + perLayer * 5 / 2; // two and a half layers
    auto plan = planPlacement(shape, makeStats(shape, Distribution::Random, 1), p);
    QVERIFY(plan.ok());
    QCOMPARE(plan->attentionLayersOnGpu(), 2);
    QVERIFY(plan->layers[0].attentionOnGpu && plan->layers[1].attentionOnGpu && !plan->layers[2].attentionOnGpu);
    QCOMPARE(plan->hotNeuronCount(), 0);
    QVERIFY(!plan->outputOnGpu);
    QCOMPARE(plan->gpu.kvCache, 2 * kv);
    QCOMPARE(plan->gpu.scratch, scratchLayout(shape, p.contextLength, p.batchSize, true, p.allocationGranularity).total());
    QVERIFY2(plan->limit.find("attention of layer 2") != std::string::npos, plan->limit.c_str());

    // Above the fixed costs but below one layer's attention: nothing is worth a CUDA context.
    p.budgetBytes = fixedCost(shape, p) + perLayer / 2;
    plan = planPlacement(shape, makeStats(shape, Distribution::Random, 1), p);
    QVERIFY(plan.ok());
    QVERIFY(!plan->usesGpu());
    QCOMPARE(plan->gpu.reserve, 0u);
    QVERIFY2(plan->limit.find("attention of layer 0") != std::string::npos, plan->limit.c_str());
}

void TestPlacement::everythingFits()
{
    const ModelShape shape = smallShape();
    PlannerParams p = smallParams();
    p.budgetBytes = generousBudget(shape, p);
    auto plan = planPlacement(shape, makeStats(shape, Distribution::PowerLaw, 5), p);
    QVERIFY(plan.ok());
    QVERIFY(plan->sparse);
    QVERIFY2(plan->limit.empty(), plan->limit.c_str());
    QVERIFY(plan->outputOnGpu);
    QCOMPARE(plan->attentionLayersOnGpu(), std::int64_t(shape.layers.size()));
    QCOMPARE(plan->hotNeuronCount(), plan->neuronCount());
    for (const LayerPlacement& l : plan->layers) {
        QVERIFY(l.predictorOnGpu && l.normsOnGpu);
        std::vector<std::int32_t> all(static_cast<std::size_t>(l.nFF));
        std::iota(all.begin(), all.end(), 0);
        QCOMPARE(l.hotNeurons(), all);
        QCOMPARE(l.gpuActivationShare, 1.0);
    }
    QCOMPARE(plan->cpuBytesPerToken, 0.0);
}

void TestPlacement::denseFallback()
{
    // A model without predictors, and one with predictors but no statistics: whole layers.
    const ModelShape noPredictors = smallShape(6, 1000, 0);
    const ModelShape withPredictors = smallShape();
    for (const ModelShape* shape : {&noPredictors, &withPredictors}) {
        auto planner = PlacementPlanner::create(*shape, ActivationStats());
        QVERIFY(planner.ok());
        QVERIFY(!planner->sparseCapable());
        PlannerParams p = smallParams();
        const LayerShape& l = shape->layers[0];
        const std::uint64_t kv = l.kvBytesPerToken * static_cast<std::uint64_t>(p.contextLength);
        const std::uint64_t ffn = l.neuronBytes * static_cast<std::uint64_t>(l.nFF);
        const std::uint64_t perLayer = l.attentionBytes + kv + l.normBytes + ffn
            + (l.attentionTensors + 2 + 2 + l.ffnTensors) * p.allocationGranularity;
        p.budgetBytes = fixedCost(*shape, p, false) + perLayer * 3 + perLayer / 2;
        auto plan = planner->plan(p);
        QVERIFY(plan.ok());
        QVERIFY(!plan->sparse);
        QCOMPARE(plan->attentionLayersOnGpu(), 3);
        for (std::size_t i = 0; i < plan->layers.size(); ++i) {
            QCOMPARE(plan->layers[i].hotCount, i < 3 ? l.nFF : 0);
            QCOMPARE(plan->layers[i].normsOnGpu, i < 3);
            QVERIFY(!plan->layers[i].predictorOnGpu);
        }
        QCOMPARE(plan->gpu.ffn, 3 * ffn);
        QCOMPARE(plan->gpu.kvCache, 3 * kv);
        QVERIFY(plan->gpu.total() <= p.budgetBytes);
        QCOMPARE(plan->gpu.total() - plan->gpu.padding, recount(*shape, *plan, p));
    }
    // The dense flag forces the same on a sparse-capable model.
    const ModelShape shape = smallShape();
    PlannerParams p = smallParams();
    p.dense = true;
    p.budgetBytes = generousBudget(shape, p);
    auto plan = planPlacement(shape, makeStats(shape, Distribution::Random, 2), p);
    QVERIFY(plan.ok());
    QVERIFY(!plan->sparse);
    QCOMPARE(plan->hotNeuronCount(), plan->neuronCount());
    QCOMPARE(plan->gpu.predictors, 0u);
}

void TestPlacement::disabledFfnKeepsAttention()
{
    const ModelShape shape = smallShape();
    PlannerParams p = smallParams();
    p.budgetBytes = generousBudget(shape, p);
    p.ffnOnGpu = false;
    auto plan = planPlacement(shape, makeStats(shape, Distribution::Random, 2), p);
    QVERIFY(plan.ok());
    QCOMPARE(plan->attentionLayersOnGpu(), std::int64_t(shape.layers.size()));
    QCOMPARE(plan->hotNeuronCount(), 0);
    QCOMPARE(plan->gpu.ffn, 0u);
    QVERIFY(!plan->limit.empty());
}

void TestPlacement::groupSizeEffects()
{
    const ModelShape shape = smallShape(6, 1000);
    const ActivationStats stats = makeStats(shape, Distribution::PowerLaw, 9);
    auto planner = PlacementPlanner::create(shape, stats);
    QVERIFY(planner.ok());
    PlannerParams p = smallParams();
    // Room for the fixed items and about a third of the neurons.
    p.budgetBytes = generousBudget(shape, p) - 64 * kMiB - shape.layers[0].neuronBytes * 4000;
    const std::uint64_t neuronCost = shape.layers[0].neuronBytes + 4;
    std::int64_t placedWithOne = 0;
    for (std::int64_t groupSize : {1, 32, 256}) {
        p.groupSize = groupSize;
        auto plan = planner->plan(p);
        QVERIFY(plan.ok());
        QVERIFY(plan->hotNeuronCount() > 0 && plan->hotNeuronCount() < plan->neuronCount());
        for (const LayerPlacement& l : plan->layers) {
            QVERIFY(l.hotCount % groupSize == 0 || l.hotCount == l.nFF);
        }
        // Stopping at the first group that does not fit leaves less than one group (and the
        // buffers it would open) unused.
        const std::uint64_t unused = p.budgetBytes - plan->gpu.total();
        QVERIFY2(unused < static_cast<std::uint64_t>(groupSize) * neuronCost + 4 * p.allocationGranularity,
                 qPrintable(QString::number(unused)));
        if (groupSize == 1) {
            placedWithOne = plan->hotNeuronCount();
        } else {
            // Coarser groups cannot place more neurons than single-neuron groups, up to the padding
            // of buffers opened in more layers.
            QVERIFY(plan->hotNeuronCount() <= placedWithOne + 6);
        }
    }
    // The hottest neurons of each layer go first: with group size 1, a placed neuron is at least
    // as frequent as any unplaced one of the same layer.
    p.groupSize = 1;
    auto plan = planner->plan(p);
    QVERIFY(plan.ok());
    for (std::size_t l = 0; l < plan->layers.size(); ++l) {
        const auto flags = plan->layers[l].gpuFlags();
        float coldest = 2;
        float hottestLeft = -1;
        for (std::size_t i = 0; i < flags.size(); ++i) {
            const float f = stats.layer(l)[i];
            if (flags[i]) {
                coldest = std::min(coldest, f);
            } else {
                hottestLeft = std::max(hottestLeft, f);
            }
        }
        QVERIFY(hottestLeft <= coldest);
    }
}

void TestPlacement::kvCacheAndScratchCounted()
{
    const ModelShape shape = smallShape();
    const ActivationStats stats = makeStats(shape, Distribution::Random, 4);
    auto planner = PlacementPlanner::create(shape, stats);
    QVERIFY(planner.ok());
    PlannerParams p = smallParams();
    p.contextLength = 1024;
    p.batchSize = 16;
    const ScratchLayout scratch = scratchLayout(shape, p.contextLength, p.batchSize, true, p.allocationGranularity);
    QVERIFY(scratch.attentionScores == 16ull * 4 * shape.nHead * 1024);
    QVERIFY(scratch.logits == 16ull * 4 * shape.nVocab);
    // Enough for every weight and the KV cache, but not also the scratch buffers: not everything
    // may be placed.
    const std::uint64_t everything = generousBudget(shape, p) - 64 * kMiB;
    p.budgetBytes = everything - scratch.total();
    auto plan = planner->plan(p);
    QVERIFY(plan.ok());
    QVERIFY(plan->hotNeuronCount() < plan->neuronCount());
    // The output head comes before the neurons, with its own input and logits rows.
    QVERIFY(plan->outputOnGpu);
    QCOMPARE(plan->gpu.scratch, scratch.total() + outputHeadScratchBytes(shape));
    QVERIFY(plan->gpu.total() <= p.budgetBytes);
    // A longer context takes KV cache from the neurons at the same budget.
    const std::int64_t hotShort = plan->hotNeuronCount();
    QVERIFY(hotShort > 0);
    p.contextLength = 2048;
    plan = planner->plan(p);
    QVERIFY(plan.ok());
    QVERIFY(plan->hotNeuronCount() < hotShort);
    QCOMPARE(plan->gpu.kvCache, std::uint64_t(plan->attentionLayersOnGpu()) * shape.layers[0].kvBytesPerToken * 2048);
    // So does a larger batch (scratch).
    p.contextLength = 1024;
    p.batchSize = 256;
    plan = planner->plan(p);
    QVERIFY(plan.ok());
    QVERIFY(plan->hotNeuronCount() < hotShort);
    QVERIFY(plan->gpu.total() <= p.budgetBytes);
}

void TestPlacement::speedEstimate()
{
    const ModelShape shape = smallShape(4, 1000, 0); // dense: every byte is read per token
    PlannerParams p = smallParams();
    p.cpuBandwidthGBs = 10;
    p.gpuBandwidthGBs = 100;
    auto cpuOnly = planPlacement(shape, ActivationStats(), p);
    QVERIFY(cpuOnly.ok());
    double bytes = static_cast<double>(shape.outputBytes);
    for (const LayerShape& l : shape.layers) {
        bytes += static_cast<double>(l.attentionBytes + l.normBytes + l.neuronBytes * static_cast<std::uint64_t>(l.nFF))
            + static_cast<double>(l.kvBytesPerToken) * static_cast<double>(p.contextLength) / 2;
    }
    QVERIFY(std::abs(cpuOnly->cpuBytesPerToken - bytes) < 1);
    QVERIFY(std::abs(cpuOnly->tokensPerSecond - 10e9 / bytes) < 1e-6 * cpuOnly->tokensPerSecond);
    p.budgetBytes = generousBudget(shape, p);
    auto gpuOnly = planPlacement(shape, ActivationStats(), p);
    QVERIFY(gpuOnly.ok());
    QVERIFY(std::abs(gpuOnly->tokensPerSecond - 100e9 / bytes) < 1e-6 * gpuOnly->tokensPerSecond);

    // Sparse: bytes scale with the activation frequencies; hot neurons speed decoding up.
    const ModelShape sparseShape = smallShape();
    const ActivationStats stats = makeStats(sparseShape, Distribution::PowerLaw, 3);
    auto planner = PlacementPlanner::create(sparseShape, stats);
    QVERIFY(planner.ok());
    PlannerParams sp = smallParams();
    auto none = planner->plan(sp);
    sp.budgetBytes = generousBudget(sparseShape, sp);
    auto all = planner->plan(sp);
    QVERIFY(none.ok() && all.ok());
    QVERIFY(all->tokensPerSecond > 5 * none->tokensPerSecond);
    QVERIFY(!all->summary().empty() && !none->summary().empty());
}

void TestPlacement::rejectsBadInput()
{
    const ModelShape shape = smallShape();
    // Statistics for the wrong model.
    QVERIFY(!PlacementPlanner::create(shape, makeStats(smallShape(5), Distribution::Random, 1)).ok());
    QVERIFY(!PlacementPlanner::create(shape, makeStats(smallShape(6, 999), Distribution::Random, 1)).ok());
    QVERIFY(!ActivationStats::fromFrequencies({{0.5f, 1.5f}}).ok());
    QVERIFY(!ActivationStats::fromFrequencies({{0.5f, std::nanf("")}}).ok());
    QVERIFY(!ActivationStats::fromCounts({{1.0, -2.0}}).ok());
    auto negativeZero = ActivationStats::fromFrequencies({{0.5f, -0.0f, 0.1f}});
    QVERIFY(negativeZero.ok());
    QVERIFY(!std::signbit(negativeZero->layer(0)[1]));
    auto counts = ActivationStats::fromCounts({{10.0, 5.0, 0.0}});
    QVERIFY(counts.ok());
    QCOMPARE(counts->layer(0)[1], 0.5f);

    auto planner = PlacementPlanner::create(shape, makeStats(shape, Distribution::Random, 1));
    QVERIFY(planner.ok());
    PlannerParams p = smallParams();
    p.groupSize = 0;
    QCOMPARE(planner->plan(p).code(), ErrorCode::InvalidArgument);
    p = smallParams();
    p.contextLength = 0;
    QVERIFY(!planner->plan(p).ok());
    p = smallParams();
    p.gpuBandwidthGBs = std::nan("");
    QVERIFY(!planner->plan(p).ok());

    // Absurd sizes are refused, not wrapped around.
    ModelShape hostile = shape;
    hostile.layers[1].kvBytesPerToken = std::uint64_t(1) << 62;
    QVERIFY(!PlacementPlanner::create(hostile, ActivationStats()).ok());
    hostile = shape;
    hostile.layers.clear();
    QVERIFY(!PlacementPlanner::create(hostile, ActivationStats()).ok());
    // Near-limit sizes saturate: nothing is placed, nothing overflows.
    hostile = shape;
    for (LayerShape& l : hostile.layers) {
        l.kvBytesPerToken = std::uint64_t(1) << 49;
    }
    p = smallParams();
    p.budgetBytes = std::numeric_limits<std::uint64_t>::max();
    p.contextLength = std::int64_t(1) << 24;
    auto plan = planPlacement(hostile, ActivationStats(), p);
    QVERIFY(plan.ok());
    QVERIFY(plan->gpu.total() <= p.budgetBytes);

    // Cached hot sets must be ascending ids of the right layers.
    QVERIFY(!planner->planWithHotSets(smallParams(), {{1, 2}}).ok());
    std::vector<std::vector<std::int32_t>> sets(shape.layers.size());
    sets[0] = {5, 3};
    QVERIFY(!planner->planWithHotSets(smallParams(), sets).ok());
    sets[0] = {3, 5000};
    QVERIFY(!planner->planWithHotSets(smallParams(), sets).ok());
}

void TestPlacement::activationFileOrder()
{
    std::vector<std::string> names;
    for (int l = 11; l >= 0; --l) {
        names.push_back("/m/activation/activation_" + std::to_string(l) + ".pt");
    }
    names.push_back("/m/activation/readme.txt");
    names.push_back("/m/activation/activation_x.pt");
    std::sort(names.begin(), names.end()); // string order: 0, 1, 10, 11, 2, ...
    auto ordered = ActivationStats::orderActivationFiles(names);
    QVERIFY2(ordered.ok(), ordered.message().c_str());
    QCOMPARE(ordered->size(), 12u);
    for (std::size_t l = 0; l < ordered->size(); ++l) {
        QCOMPARE((*ordered)[l], "/m/activation/activation_" + std::to_string(l) + ".pt");
    }
    QVERIFY(!ActivationStats::orderActivationFiles({"activation_0.pt", "activation_2.pt"}).ok()); // gap
    QVERIFY(!ActivationStats::orderActivationFiles({"activation_0.pt", "a/activation_0.pt"}).ok()); // twice
    QVERIFY(!ActivationStats::orderActivationFiles({"model_0.pt"}).ok());
}

void TestPlacement::vramBudgetSetting()
{
    const std::uint64_t free = 8 * kGiB;
    QCOMPARE(parseVramBudget("auto", free).value(), free - 256 * kMiB);
    QCOMPARE(parseVramBudget(" AUTO ", free).value(), free - 256 * kMiB);
    QCOMPARE(parseVramBudget("", free).value(), free - 256 * kMiB);
    QCOMPARE(parseVramBudget("auto", 100 * kMiB).value(), 0u);
    QCOMPARE(parseVramBudget("6.5", free).value(), 6 * kGiB + kGiB / 2);
    QCOMPARE(parseVramBudget("0", free).value(), 0u);
    QCOMPARE(parseVramBudget("12", free).value(), 12 * kGiB);
    for (const char* bad : {"-1", "abc", "6GB", "nan", "inf", "1e300", "5.5.5"}) {
        QVERIFY2(!parseVramBudget(bad, free).ok(), bad);
    }
    QCOMPARE(gibToBytes(1.0).value(), kGiB);
    QVERIFY(!gibToBytes(-0.5).ok());
}

// The CPU keeps Q4_K and Q5_K matrices interleaved with their scales unpacked (64 bytes more per
// 16 rows and super-block column); the host's memory estimate must count them.
void TestPlacement::shapeCountsCpuLayouts()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = dir.filePath(QStringLiteral("layouts.gguf")).toStdString();
    gguf::GgufWriter writer(gguf::Magic::Gguf);
    writer.setString("general.architecture", "llama");
    writer.setUInt32("llama.block_count", 1);
    writer.setUInt32("llama.attention.head_count", 4);
    const struct {
        const char* name;
        DType type;
        std::int64_t cols, rows;
    } tensors[] = {
        {"token_embd.weight", DType::Q4_K, 512, 32}, // read by row: not packed
        {"blk.0.attn_q.weight", DType::Q5_K, 512, 16},  // one group, two columns: 128 bytes
        {"blk.0.ffn_gate.weight", DType::Q4_K, 512, 40}, // two whole groups: 256 bytes
        {"blk.0.ffn_up.weight", DType::Q6_K, 512, 32},   // packed at its own size
        {"blk.0.ffn_down.weight", DType::Q4_0, 32, 512},  // likewise
    };
    for (const auto& t : tensors)
        writer.addTensor(t.name, t.type, {t.cols, t.rows});
    QVERIFY(writer.begin(path).ok());
    for (const auto& t : tensors) {
        std::vector<std::byte> zeros(writer.tensorSize(t.name));
        QVERIFY(writer.writeTensorData(zeros).ok());
    }
    QVERIFY(writer.finish().ok());
    auto file = gguf::GgufFile::open(path);
    QVERIFY2(file.ok(), file.message().c_str());
    auto shape = shapeFromGguf(**file);
    QVERIFY2(shape.ok(), shape.message().c_str());
    QCOMPARE(shape->hostLayoutBytes, std::uint64_t(128 + 256));
}

void TestPlacement::shapeFromGgufFile()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = dir.filePath(QStringLiteral("tiny.gguf")).toStdString();
    const std::int64_t embd = 64, ff = 128, kvWidth = 32, hidden = 16, vocab = 50;
    gguf::GgufWriter writer(gguf::Magic::PowerInfer);
    writer.setString("general.architecture", "llama");
    writer.setUInt32("llama.block_count", 2);
    writer.setUInt32("llama.attention.head_count", 4);
    writer.addTensor("token_embd.weight", DType::F32, {embd, vocab});
    writer.addTensor("output_norm.weight", DType::F32, {embd});
    writer.addTensor("output.weight", DType::F16, {embd, vocab});
    for (int l = 0; l < 2; ++l) {
        const std::string b = "blk." + std::to_string(l) + ".";
        writer.addTensor(b + "attn_norm.weight", DType::F32, {embd});
        writer.addTensor(b + "attn_q.weight", DType::F16, {embd, embd});
        writer.addTensor(b + "attn_k.weight", DType::F16, {embd, kvWidth});
        writer.addTensor(b + "attn_v.weight", DType::F16, {embd, kvWidth});
        writer.addTensor(b + "attn_output.weight", DType::F16, {embd, embd});
        writer.addTensor(b + "ffn_norm.weight", DType::F32, {embd});
        writer.addTensor(b + "fc1.weight", DType::F16, {embd, hidden});
        writer.addTensor(b + "fc2.weight", DType::F16, {hidden, ff});
        writer.addTensor(b + "ffn_gate.weight", DType::Q4_0, {embd, ff});
        writer.addTensor(b + "ffn_up.weight", DType::Q4_0, {embd, ff});
        writer.addTensor(b + "ffn_down_t.weight", DType::Q4_0, {embd, ff});
    }
    QVERIFY(writer.begin(path).ok());
    for (const char* name : {"token_embd.weight", "output_norm.weight", "output.weight"}) {
        std::vector<std::byte> zeros(writer.tensorSize(name));
        QVERIFY(writer.writeTensorData(zeros).ok());
    }
    for (int l = 0; l < 2; ++l) {
        for (const char* t : {"attn_norm", "attn_q", "attn_k", "attn_v", "attn_output", "ffn_norm", "fc1", "fc2", "ffn_gate",
                              "ffn_up", "ffn_down_t"}) {
            std::vector<std::byte> zeros(writer.tensorSize("blk." + std::to_string(l) + "." + t + ".weight"));
            QVERIFY(writer.writeTensorData(zeros).ok());
        }
    }
    QVERIFY(writer.finish().ok());

    auto file = gguf::GgufFile::open(path);
    QVERIFY2(file.ok(), file.message().c_str());
    auto shape = shapeFromGguf(**file);
    QVERIFY2(shape.ok(), shape.message().c_str());
    QCOMPARE(shape->layers.size(), 2u);
    QCOMPARE(shape->nEmbd, embd);
    QCOMPARE(shape->nVocab, vocab);
    QCOMPARE(shape->nEmbdKv, kvWidth);
    QCOMPARE(shape->nHead, 4);
    QCOMPARE(shape->weightType, std::string("Q4_0"));
    const LayerShape& l = shape->layers[1];
    QCOMPARE(l.nFF, ff);
    QCOMPARE(l.neuronBytes, 3u * 2 * 18); // three Q4_0 rows of 64 elements
    QCOMPARE(l.attentionBytes, std::uint64_t(2 * (2 * embd * embd + 2 * embd * kvWidth)));
    QCOMPARE(l.attentionTensors, 4u);
    QCOMPARE(l.normBytes, std::uint64_t(2 * 4 * embd));
    QCOMPARE(l.predictorBytes, std::uint64_t(2 * (embd * hidden + hidden * ff)));
    QCOMPARE(l.predictorHidden, hidden);
    QCOMPARE(l.kvBytesPerToken, std::uint64_t(2 * 2 * kvWidth));
    QCOMPARE(shape->embeddingBytes, std::uint64_t(4 * embd * vocab));
    QCOMPARE(shape->outputBytes, std::uint64_t(2 * embd * vocab + 4 * embd));
    QVERIFY(shape->hasPredictors());
}

void TestPlacement::shapeOfRealModel()
{
    HEARTH_REQUIRE_SHARED(path, "models/stories260K.gguf");
    auto file = gguf::GgufFile::open(path.toStdString());
    QVERIFY2(file.ok(), file.message().c_str());
    auto shape = shapeFromGguf(**file);
    QVERIFY2(shape.ok(), shape.message().c_str());
    QCOMPARE(std::int64_t(shape->layers.size()), (*file)->getInt("llama.block_count").value_or(-1));
    QCOMPARE(shape->nEmbd, (*file)->getInt("llama.embedding_length").value_or(-1));
    QCOMPARE(shape->layers[0].nFF, (*file)->getInt("llama.feed_forward_length").value_or(-1));
    QVERIFY(!shape->hasPredictors());
    // Every tensor byte is accounted for once (a tied output matrix is counted twice: the GPU
    // needs its own copy).
    std::uint64_t tensorBytes = 0;
    for (const gguf::TensorInfo& t : (*file)->tensors()) {
        tensorBytes += t.byteSize;
    }
    const std::uint64_t tied = (*file)->findTensor("output.weight") ? 0 : shape->embeddingBytes;
    QCOMPARE(shape->totalWeightBytes(), tensorBytes + tied);
    // A dense plan with room for everything puts every layer on the GPU.
    PlannerParams p = smallParams();
    p.budgetBytes = generousBudget(*shape, p);
    auto plan = planPlacement(*shape, ActivationStats(), p);
    QVERIFY(plan.ok());
    QVERIFY(!plan->sparse);
    QCOMPARE(plan->attentionLayersOnGpu(), std::int64_t(shape->layers.size()));
    QCOMPARE(plan->hotNeuronCount(), plan->neuronCount());
}

void TestPlacement::gpuIndexRoundTrip()
{
    QTemporaryDir dir;
    const ModelShape shape = smallShape();
    auto planner = PlacementPlanner::create(shape, makeStats(shape, Distribution::PowerLaw, 21));
    QVERIFY(planner.ok());
    PlannerParams p = smallParams();
    p.budgetBytes = partialBudget(shape, p, 0.8);
    auto plan = planner->plan(p);
    QVERIFY(plan.ok());
    QVERIFY(plan->hotNeuronCount() > 0 && plan->hotNeuronCount() < plan->neuronCount());

    GpuIndexKey key;
    key.modelSize = 12345;
    key.modelMtime = 0xfedcba9876543210ull;
    key.budgetBytes = p.budgetBytes;
    key.contextLength = 256;
    key.batchSize = 8;
    key.groupSize = 32;
    key.statsFingerprint = planner->statsFingerprint();
    const GpuIndex written = gpuIndexFromPlan(*plan, key);
    const std::string path = dir.filePath(QStringLiteral("m.gguf.generated.gpuidx")).toStdString();
    const Status status = writeGpuIndex(path, written);
    QVERIFY2(status.ok(), status.message().c_str());
    QVERIFY(!QFile::exists(QString::fromStdString(path + ".tmp")));

    auto read = readGpuIndex(path);
    QVERIFY2(read.ok(), read.message().c_str());
    QCOMPARE(read->nFF, written.nFF);
    QCOMPARE(read->hotNeurons, written.hotNeurons);
    QCOMPARE(read->vramCapacity, plan->gpu.ffn);
    QVERIFY(read->key.has_value());
    QVERIFY(*read->key == key);

    // The cached sets reproduce the plan's accounting.
    auto again = planner->planWithHotSets(p, read->hotNeurons);
    QVERIFY2(again.ok(), again.message().c_str());
    QVERIFY(again->fits);
    QCOMPARE(again->gpu.total(), plan->gpu.total());
    QCOMPARE(again->hotNeuronCount(), plan->hotNeuronCount());
    QCOMPARE(again->tokensPerSecond, plan->tokensPerSecond);
    // ... and do not fit a smaller budget.
    p.budgetBytes /= 2;
    again = planner->planWithHotSets(p, read->hotNeurons);
    QVERIFY(again.ok());
    QVERIFY(!again->fits);
}

void TestPlacement::gpuIndexLayout()
{
    QTemporaryDir dir;
    // A PowerInfer-style file written by hand: PWRI magic, no Hearth keys, a layer with nothing
    // on the GPU.
    const std::string path = dir.filePath(QStringLiteral("pi.gpuidx")).toStdString();
    {
        gguf::GgufWriter writer(gguf::Magic::PowerInfer);
        writer.setString("general.architecture", "generic.gpu_index");
        writer.setUInt32("generic.gpu_index.block_count", 2);
        writer.setUInt64("split.vram_capacity", 4096);
        writer.addTensor("blk.0.gpu_idx", DType::I32, {6});
        writer.addTensor("blk.0.gpu_bucket", DType::I32, {3});
        writer.addTensor("blk.1.gpu_idx", DType::I32, {6});
        writer.addTensor("blk.1.gpu_bucket", DType::I32, {0});
        QVERIFY(writer.begin(path).ok());
        const std::vector<std::int32_t> flags0 = {0, 1, 0, 1, 1, 0}, bucket0 = {1, 3, 4}, flags1(6, 0), bucket1;
        for (const auto* v : {&flags0, &bucket0, &flags1, &bucket1}) {
            QVERIFY(writer.writeTensorData(std::as_bytes(std::span(*v))).ok());
        }
        QVERIFY(writer.finish().ok());
    }
    auto read = readGpuIndex(path);
    QVERIFY2(read.ok(), read.message().c_str());
    QVERIFY(!read->key);
    QCOMPARE(read->vramCapacity, 4096u);
    QCOMPARE(read->nFF, (std::vector<std::int64_t>{6, 6}));
    QCOMPARE(read->hotNeurons[0], (std::vector<std::int32_t>{1, 3, 4}));
    QVERIFY(read->hotNeurons[1].empty());

    // What Hearth writes has the documented layout.
    const std::string ours = dir.filePath(QStringLiteral("ours.gpuidx")).toStdString();
    GpuIndex index;
    index.vramCapacity = 777;
    index.nFF = {5, 4};
    index.hotNeurons = {{0, 2}, {}};
    QVERIFY(writeGpuIndex(ours, index).ok());
    auto file = gguf::GgufFile::open(ours);
    QVERIFY(file.ok());
    const gguf::GgufFile& f = **file;
    QCOMPARE(f.getString("general.architecture").value_or(""), std::string("generic.gpu_index"));
    QVERIFY(f.find("generic.gpu_index.block_count"));
    QCOMPARE(f.find("generic.gpu_index.block_count")->type, gguf::ValueType::UInt32);
    QCOMPARE(f.getInt("generic.gpu_index.block_count").value_or(0), 2);
    QCOMPARE(f.find("split.vram_capacity")->type, gguf::ValueType::UInt64);
    QCOMPARE(f.getInt("split.vram_capacity").value_or(0), 777);
    QCOMPARE(f.tensors().size(), 4u);
    const gguf::TensorInfo* idx = f.findTensor("blk.0.gpu_idx");
    const gguf::TensorInfo* bucket = f.findTensor("blk.0.gpu_bucket");
    QVERIFY(idx && bucket && f.findTensor("blk.1.gpu_idx") && f.findTensor("blk.1.gpu_bucket"));
    QCOMPARE(idx->type, DType::I32);
    QCOMPARE(idx->shape, (std::vector<std::int64_t>{5}));
    QCOMPARE(bucket->shape, (std::vector<std::int64_t>{2}));
    std::vector<std::int32_t> flags(5);
    std::memcpy(flags.data(), idx->data, 5 * sizeof(std::int32_t));
    QCOMPARE(flags, (std::vector<std::int32_t>{1, 0, 1, 0, 0}));
    QCOMPARE(f.findTensor("blk.1.gpu_bucket")->shape, (std::vector<std::int64_t>{0}));
}

void TestPlacement::gpuIndexRejectsInconsistentFiles()
{
    QTemporaryDir dir;
    auto writeRaw = [&](const QString& name, const std::vector<std::int32_t>& flags, const std::vector<std::int32_t>& bucket,
                        const char* arch = "generic.gpu_index") {
        const std::string path = dir.filePath(name).toStdString();
        gguf::GgufWriter writer;
        writer.setString("general.architecture", arch);
        writer.setUInt32("generic.gpu_index.block_count", 1);
        writer.addTensor("blk.0.gpu_idx", DType::I32, {std::int64_t(flags.size())});
        writer.addTensor("blk.0.gpu_bucket", DType::I32, {std::int64_t(bucket.size())});
        const bool written = writer.begin(path).ok() && writer.writeTensorData(std::as_bytes(std::span(flags))).ok()
            && writer.writeTensorData(std::as_bytes(std::span(bucket))).ok() && writer.finish().ok();
        return written ? path : std::string();
    };
    QCOMPARE(readGpuIndex(writeRaw("a", {1, 0, 1}, {0, 1})).code(), ErrorCode::InvalidFile);   // bucket disagrees
    QCOMPARE(readGpuIndex(writeRaw("b", {1, 0, 1}, {2, 0})).code(), ErrorCode::InvalidFile);   // not ascending
    QCOMPARE(readGpuIndex(writeRaw("c", {1, 0, 2}, {0, 2})).code(), ErrorCode::InvalidFile);   // flag not 0/1
    QCOMPARE(readGpuIndex(writeRaw("d", {1, 0, 1}, {0, 7})).code(), ErrorCode::InvalidFile);   // out of range
    QCOMPARE(readGpuIndex(writeRaw("e", {1}, {0}, "llama")).code(), ErrorCode::InvalidFile);   // not an index
    QVERIFY(readGpuIndex(writeRaw("f", {1, 0, 1}, {0, 2})).ok());

    QFile garbage(dir.filePath(QStringLiteral("garbage")));
    QVERIFY(garbage.open(QIODevice::WriteOnly));
    garbage.write("GGUF\x03\0\0\0 this is not a gpu index");
    garbage.close();
    QVERIFY(!readGpuIndex(garbage.fileName().toStdString()).ok());
    QVERIFY(!readGpuIndex(dir.filePath(QStringLiteral("missing")).toStdString()).ok());

    GpuIndex bad;
    bad.nFF = {4};
    bad.hotNeurons = {{2, 1}};
    QCOMPARE(writeGpuIndex(dir.filePath(QStringLiteral("w")).toStdString(), bad).code(), ErrorCode::InvalidArgument);
}

void TestPlacement::staleCacheDetection()
{
    QTemporaryDir dir;
    const std::string model = dir.filePath(QStringLiteral("model.gguf")).toStdString();
    {
        QFile f(QString::fromStdString(model));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray(1000, 'x'));
    }
    const std::string cache = gpuIndexPath(model);
    QCOMPARE(QString::fromStdString(cache), dir.filePath(QStringLiteral("model.gguf.generated.gpuidx")));

    const ModelShape shape = smallShape();
    auto planner = PlacementPlanner::create(shape, makeStats(shape, Distribution::PowerLaw, 8));
    QVERIFY(planner.ok());
    PlannerParams p = smallParams();
    p.budgetBytes = partialBudget(shape, p, 0.8);

    auto first = planWithGpuIndex(*planner, p, model, GpuIndexMode::Use);
    QVERIFY2(first.ok(), first.message().c_str());
    QVERIFY(!first->fromCache);
    QVERIFY2(first->cacheWritten, first->note.c_str());
    QVERIFY(QFile::exists(QString::fromStdString(cache)));

    auto second = planWithGpuIndex(*planner, p, model, GpuIndexMode::Use);
    QVERIFY(second.ok());
    QVERIFY(second->fromCache);
    QCOMPARE(second->plan.hotNeuronCount(), first->plan.hotNeuronCount());
    QCOMPARE(second->plan.layers[2].hotNeurons(), first->plan.layers[2].hotNeurons());

    // A new budget, context or batch makes the cache stale.
    for (int change = 0; change < 3; ++change) {
        PlannerParams q = p;
        if (change == 0) {
            q.budgetBytes += 1;
        } else if (change == 1) {
            q.contextLength += 1;
        } else {
            q.batchSize += 1;
        }
        auto stale = planWithGpuIndex(*planner, q, model, GpuIndexMode::Use);
        QVERIFY(stale.ok());
        QVERIFY(!stale->fromCache);
        QVERIFY2(stale->note.find("stale") != std::string::npos, stale->note.c_str());
        QVERIFY(stale->cacheWritten);
        QVERIFY(planWithGpuIndex(*planner, q, model, GpuIndexMode::Use)->fromCache);
    }
    QVERIFY(!planWithGpuIndex(*planner, p, model, GpuIndexMode::Use)->fromCache);
    QVERIFY(planWithGpuIndex(*planner, p, model, GpuIndexMode::Use)->fromCache);

    // A changed model file.
    {
        QFile f(QString::fromStdString(model));
        QVERIFY(f.open(QIODevice::Append));
        f.write("more");
    }
    auto changed = planWithGpuIndex(*planner, p, model, GpuIndexMode::Use);
    QVERIFY(changed.ok());
    QVERIFY(!changed->fromCache);
    QVERIFY(planWithGpuIndex(*planner, p, model, GpuIndexMode::Use)->fromCache);

    // New statistics.
    auto otherStats = PlacementPlanner::create(shape, makeStats(shape, Distribution::PowerLaw, 9));
    QVERIFY(otherStats.ok());
    QVERIFY(!planWithGpuIndex(*otherStats, p, model, GpuIndexMode::Use)->fromCache);

    // --reset-gpu-index recomputes a valid cache; --disable-gpu-index keeps FFNs off the GPU and
    // leaves the file alone.
    QVERIFY(planWithGpuIndex(*planner, p, model, GpuIndexMode::Use).ok());
    auto reset = planWithGpuIndex(*planner, p, model, GpuIndexMode::Reset);
    QVERIFY(reset.ok());
    QVERIFY(!reset->fromCache && reset->cacheWritten);
    const QByteArray before = [&] {
        QFile f(QString::fromStdString(cache));
        return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
    }();
    auto disabled = planWithGpuIndex(*planner, p, model, GpuIndexMode::Disable);
    QVERIFY(disabled.ok());
    QCOMPARE(disabled->plan.hotNeuronCount(), 0);
    QVERIFY(disabled->plan.attentionLayersOnGpu() > 0);
    QVERIFY(!disabled->cacheWritten);
    QFile after(QString::fromStdString(cache));
    QVERIFY(after.open(QIODevice::ReadOnly));
    QCOMPARE(after.readAll(), before);
    after.close();

    // A file PowerInfer wrote (no Hearth key) is replaced.
    GpuIndex foreign = gpuIndexFromPlan(first->plan, std::nullopt);
    QVERIFY(writeGpuIndex(cache, foreign).ok());
    auto replaced = planWithGpuIndex(*planner, p, model, GpuIndexMode::Use);
    QVERIFY(replaced.ok());
    QVERIFY(!replaced->fromCache);
    QVERIFY2(replaced->note.find("not written by Hearth") != std::string::npos, replaced->note.c_str());
    QVERIFY(planWithGpuIndex(*planner, p, model, GpuIndexMode::Use)->fromCache);

    // A missing model file: the plan still comes, uncached.
    auto missing = planWithGpuIndex(*planner, p, model + ".absent", GpuIndexMode::Use);
    QVERIFY(missing.ok());
    QVERIFY(!missing->cacheWritten);
    QVERIFY(!missing->note.empty());
}

void TestPlacement::largeModelPlanningTime()
{
    // A 70B-like shape: 80 layers, n_ff 28672, Q4_0, with power-law statistics. Times are
    // printed for the record, not asserted.
    UniformShapeParams sp;
    sp.nLayer = 80;
    sp.nEmbd = 8192;
    sp.nHead = 64;
    sp.nHeadKv = 8;
    sp.nFF = 28672;
    sp.nVocab = 32000;
    sp.predictorHidden = 1024;
    auto shape = uniformShape(sp);
    QVERIFY(shape.ok());
    const ActivationStats stats = makeStats(*shape, Distribution::PowerLaw, 1);

    QElapsedTimer timer;
    timer.start();
    auto planner = PlacementPlanner::create(*shape, stats);
    QVERIFY(planner.ok());
    const qint64 createNs = timer.nsecsElapsed();

    PlannerParams p;
    p.budgetBytes = 24 * kGiB;
    p.cpuBandwidthGBs = 40;
    p.gpuBandwidthGBs = 1000;
    timer.restart();
    auto first = planner->plan(p);
    QVERIFY(first.ok());
    const qint64 firstNs = timer.nsecsElapsed();

    constexpr int kSteps = 50;
    timer.restart();
    for (int i = 0; i < kSteps; ++i) {
        p.budgetBytes = (8 + std::uint64_t(i)) * kGiB; // a slider sweep from 8 to 57 GiB
        auto plan = planner->plan(p);
        QVERIFY(plan.ok());
        QVERIFY(plan->gpu.total() <= p.budgetBytes);
    }
    const qint64 stepNs = timer.nsecsElapsed() / kSteps;
    qInfo("80 layers x 28672 neurons: create %.1f ms, first plan %.1f ms, each further plan %.3f ms", createNs / 1e6,
          firstNs / 1e6, stepNs / 1e6);
    qInfo("%s", first->summary().c_str());
}

void TestPlacement::expertsByUse()
{
    // A mixture: attention first, then the experts the router picks most, across layers, never
    // more than the budget; layer by layer when asked. A larger budget keeps what a smaller one
    // placed.
    UniformShapeParams sp;
    sp.nLayer = 4;
    sp.nEmbd = 256;
    sp.nHead = 4;
    sp.nHeadKv = 2;
    sp.nVocab = 1000;
    sp.predictorHidden = 0;
    sp.expertCount = 8;
    sp.expertsUsed = 2;
    sp.expertFF = 128;
    auto shape = uniformShape(sp);
    QVERIFY(shape.ok());
    // Layer l's expert (3 l) mod 8 takes 0.5 + 0.15 l of the tokens, the others share the rest.
    std::vector<std::vector<float>> freq;
    for (int l = 0; l < sp.nLayer; ++l) {
        const float hot = 0.5f + 0.15f * float(l);
        std::vector<float> f(8, (2.0f - hot) / 7.0f);
        f[std::size_t((3 * l) % 8)] = hot;
        freq.push_back(f);
    }
    auto stats = ActivationStats::fromFrequencies(freq);
    QVERIFY(stats.ok());
    auto planner = PlacementPlanner::create(*shape, *stats);
    QVERIFY2(planner.ok(), planner.message().c_str());
    QVERIFY(!planner->sparseCapable());
    PlannerParams p = smallParams();
    const std::uint64_t top = generousBudget(*shape, p);
    std::optional<PlacementPlan> previous;
    bool sawPartial = false;
    for (std::uint64_t budget = 0; budget <= top; budget += top / 97) {
        p.budgetBytes = budget;
        p.expertsByLayer = false;
        auto plan = planner->plan(p);
        QVERIFY(plan.ok());
        QVERIFY(!plan->sparse);
        QVERIFY(plan->gpu.total() <= budget);
        double coldestOn = 2.0;
        double hottestOff = 0.0;
        std::uint64_t expertBytes = 0;
        for (std::size_t l = 0; l < plan->layers.size(); ++l) {
            const LayerPlacement& lp = plan->layers[l];
            QCOMPARE(lp.expertCount, std::int64_t(8));
            QCOMPARE(lp.hotCount, lp.hotExperts * 128);
            if (lp.hotExperts > 0)
                QVERIFY(lp.attentionOnGpu);
            const std::vector<std::int32_t> on = lp.gpuExperts();
            QCOMPARE(std::int64_t(on.size()), lp.hotExperts);
            for (int e = 0; e < 8; ++e) {
                const double f = freq[l][std::size_t(e)];
                if (std::find(on.begin(), on.end(), e) != on.end())
                    coldestOn = std::min(coldestOn, f);
                else
                    hottestOff = std::max(hottestOff, f);
            }
            expertBytes += std::uint64_t(lp.hotExperts) * 128 * shape->layers[l].neuronBytes;
            if (previous) {
                const std::vector<std::int32_t> before = previous->layers[l].gpuExperts();
                QVERIFY(std::includes(on.begin(), on.end(), before.begin(), before.end()));
            }
        }
        QCOMPARE(plan->gpu.ffn, expertBytes);
        // The experts on the GPU are the most used ones, whatever their layer.
        if (coldestOn <= 1.0 && hottestOff > 0.0) {
            QVERIFY2(coldestOn >= hottestOff, qPrintable(QStringLiteral("%1 placed, %2 not").arg(coldestOn).arg(hottestOff)));
            sawPartial = true;
        }
        // Layer by layer: a layer's experts only once every earlier layer's are there.
        p.expertsByLayer = true;
        auto byLayer = planner->plan(p);
        QVERIFY(byLayer.ok());
        for (std::size_t l = 1; l < byLayer->layers.size(); ++l) {
            if (byLayer->layers[l].hotExperts > 0)
                QCOMPARE(byLayer->layers[l - 1].hotExperts, std::int64_t(8));
        }
        QCOMPARE(byLayer->hotExpertCount(), plan->hotExpertCount());
        previous = std::move(plan).value();
    }
    QVERIFY(sawPartial);
    QCOMPARE(previous->hotExpertCount(), std::int64_t(32));
}

QTEST_GUILESS_MAIN(TestPlacement)
#include "tst_placement.moc"
