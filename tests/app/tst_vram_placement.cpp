// SPDX-License-Identifier: MIT
// The public placement API (<hearth/placement.h>) the app plans through: catalog numbers and GGUF
// files in, per-layer placement, memory breakdown, speed and fit out; errors as values.

#include <hearth/placement.h>

#include "gguf/gguf_writer.h"

#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <cstdint>
#include <vector>

using namespace hearth;

namespace {

constexpr std::uint64_t kGiB = std::uint64_t(1) << 30;

ModelDescription llama7b(bool sparse = true)
{
    ModelDescription d; // the defaults are Llama 2 7B in Q4_0
    d.sparse = sparse;
    return d;
}

PlacementSummary planOrFail(PlacementModel& model, std::uint64_t budget, std::uint64_t ram = 0)
{
    PlacementRequest r;
    r.budgetBytes = budget;
    r.hostMemoryBytes = ram;
    auto s = model.plan(r);
    if (!s)
        qFatal("plan failed: %s", s.message().c_str());
    return s.value();
}

} // namespace

class TestPlacementApi : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void describesCatalogModels()
    {
        auto model = PlacementModel::fromDescription(llama7b());
        QVERIFY2(model.ok(), model.message().c_str());
        QCOMPARE(model->layerCount(), 32);
        QVERIFY(model->sparseCapable());
        QCOMPARE(model->weightType(), std::string("Q4_0"));
        // Llama 2 7B in Q4_0 weighs about 3.8 GB, and its F16 predictors about 1 GB more.
        QVERIFY(model->weightBytes() > 4'300'000'000ull && model->weightBytes() < 5'000'000'000ull);

        auto dense = PlacementModel::fromDescription(llama7b(false));
        QVERIFY(dense.ok());
        QVERIFY(!dense->sparseCapable());
    }

    void rejectsBadDescriptions()
    {
        ModelDescription d = llama7b();
        d.quantization = "IQ2_XXS"; // known by size, not computed
        QCOMPARE(PlacementModel::fromDescription(d).code(), ErrorCode::Unsupported);
        d = llama7b();
        d.layerCount = 0;
        QCOMPARE(PlacementModel::fromDescription(d).code(), ErrorCode::InvalidArgument);
        d = llama7b();
        d.headCount = 7; // 4096 is not a multiple of 7
        QCOMPARE(PlacementModel::fromDescription(d).code(), ErrorCode::InvalidArgument);
        QCOMPARE(PlacementModel::fromDescription(llama7b(), 1.5).code(), ErrorCode::InvalidArgument);
        QCOMPARE(PlacementModel::fromFile("/nonexistent/model.gguf").ok(), false);

        auto model = PlacementModel::fromDescription(llama7b());
        PlacementRequest r;
        r.contextLength = 0;
        QCOMPARE(model->plan(r).code(), ErrorCode::InvalidArgument);
        r.contextLength = 4096;
        r.cpuBandwidthGBs = -1;
        QCOMPARE(model->plan(r).code(), ErrorCode::InvalidArgument);
    }

    void breakdownAndSpeed()
    {
        auto model = PlacementModel::fromDescription(llama7b());
        const PlacementSummary none = planOrFail(*model, 0);
        QVERIFY(none.cpuOnly());
        QCOMPARE(none.hotNeuronCount(), 0);
        QVERIFY(none.tokensPerSecond > 0);
        QVERIFY(!none.reason.empty());

        // Attention and a 4096-token KV cache (F16 on the device) take about 3.2 GiB, the
        // predictors 1 GiB: 5 GiB leaves room for part of the FFN.
        const PlacementSummary some = planOrFail(*model, 5 * kGiB);
        QVERIFY(some.sparse);
        QVERIFY(some.gpu.total() <= 5 * kGiB);
        QVERIFY(some.gpu.weights > 0 && some.gpu.kvCache > 0 && some.gpu.scratch > 0 && some.gpu.reserve > 0);
        QCOMPARE(some.attentionLayersOnGpu(), 32);
        QVERIFY(some.hotNeuronCount() > 0 && some.hotNeuronCount() < some.neuronCount());
        QVERIFY(some.outputOnGpu); // every token reads it: before any FFN neuron
        QVERIFY(some.tokensPerSecond > none.tokensPerSecond);
        // Hot neurons are the frequent ones: the GPU's share of activations beats its share of neurons.
        const auto& layer = some.layers.front();
        QVERIFY(layer.gpuActivationShare > double(layer.hotNeurons) / double(layer.feedForwardSize));

        const PlacementSummary all = planOrFail(*model, 24 * kGiB);
        QVERIFY(all.fullyOnGpu());
        QVERIFY(all.outputOnGpu);
        QVERIFY(all.reason.empty());
        QVERIFY(all.tokensPerSecond > some.tokensPerSecond);
    }

    void moreBudgetNeverFewerHotNeurons()
    {
        auto model = PlacementModel::fromDescription(llama7b());
        std::vector<std::int64_t> previous(32, 0);
        for (std::uint64_t budget = 0; budget <= 8 * kGiB; budget += kGiB / 4) {
            const PlacementSummary s = planOrFail(*model, budget);
            for (std::size_t l = 0; l < s.layers.size(); ++l) {
                QVERIFY(s.layers[l].hotNeurons >= previous[l]);
                previous[l] = s.layers[l].hotNeurons;
            }
        }
    }

    void reportsReplanTime()
    {
        // No timing assertion (shared CI machines): the number goes to the log, to check the
        // "re-plan on every slider step" promise by eye.
        ModelDescription d = llama7b();
        d.layerCount = 80;
        d.embeddingSize = 8192;
        d.headCount = 64;
        d.kvHeadCount = 8;
        d.feedForwardSize = 28672;
        QElapsedTimer timer;
        timer.start();
        auto model = PlacementModel::fromDescription(d);
        QVERIFY(model.ok());
        const double createMs = double(timer.nsecsElapsed()) / 1e6;
        timer.restart();
        planOrFail(*model, 12 * kGiB); // the first plan builds the neuron group order
        const double firstMs = double(timer.nsecsElapsed()) / 1e6;
        timer.restart();
        constexpr int kRuns = 50;
        for (int i = 0; i < kRuns; ++i)
            planOrFail(*model, (8 + std::uint64_t(i % 16)) * kGiB);
        qInfo("70B shape: %.1f ms to describe, %.1f ms first plan, %.3f ms per re-plan", createMs, firstMs,
            double(timer.nsecsElapsed()) / 1e6 / kRuns);
    }

    void ramDecidesFit()
    {
        auto model = PlacementModel::fromDescription(llama7b());
        const PlacementSummary small = planOrFail(*model, 0, 2 * kGiB);
        QVERIFY(!small.fitsInRam);
        QVERIFY(!small.fits);
        QVERIFY(small.reason.find("RAM") != std::string::npos);
        const PlacementSummary enough = planOrFail(*model, 0, 16 * kGiB);
        QVERIFY(enough.fits);
        // The GPU's share needs no RAM.
        const PlacementSummary hybrid = planOrFail(*model, 3 * kGiB, 16 * kGiB);
        QVERIFY(hybrid.hostBytes < enough.hostBytes);
    }

    void sparsityShapesTheSpeed()
    {
        auto relu = PlacementModel::fromDescription(llama7b(), 0.7);
        auto prosparse = PlacementModel::fromDescription(llama7b(), 0.9);
        QVERIFY(planOrFail(*prosparse, 0).tokensPerSecond > planOrFail(*relu, 0).tokensPerSecond);
    }

    void measuredStatistics()
    {
        ModelDescription d = llama7b();
        d.layerCount = 2;
        d.feedForwardSize = 256;
        d.embeddingSize = 256;
        d.headCount = 4;
        d.vocabSize = 1000;
        d.predictorHidden = 32;
        auto model = PlacementModel::fromDescription(d);
        QVERIFY(model.ok());
        QCOMPARE(model->setActivationFrequencies({ std::vector<float>(256, 0.5f) }).code(),
            ErrorCode::InvalidArgument);
        QCOMPARE(
            model->setActivationFrequencies({ std::vector<float>(256, 2.0f), std::vector<float>(256, 0.5f) })
                .code(),
            ErrorCode::InvalidArgument);
        std::vector<float> hot(256, 0.01f);
        for (int i = 0; i < 32; ++i)
            hot[static_cast<std::size_t>(i)] = 1.0f;
        QVERIFY(model->setActivationFrequencies({ hot, hot }).ok());
        QVERIFY(planOrFail(*model, kGiB).sparse);
    }

    void plansFromGgufFile()
    {
        // A PowerInfer-style file: two layers with predictors and a transposed down projection.
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("tiny.powerinfer.gguf")).toStdString();
        const std::int64_t embd = 64;
        const std::int64_t ff = 128;
        gguf::GgufWriter writer(gguf::Magic::PowerInfer);
        writer.setString("general.architecture", "llama");
        writer.setUInt32("llama.block_count", 2);
        writer.setUInt32("llama.attention.head_count", 4);
        std::vector<std::pair<std::string, std::vector<std::int64_t>>> tensors
            = { { "token_embd.weight", { embd, 100 } }, { "output_norm.weight", { embd } },
                  { "output.weight", { embd, 100 } } };
        for (int l = 0; l < 2; ++l) {
            const std::string b = "blk." + std::to_string(l) + ".";
            for (const char* name :
                { "attn_q.weight", "attn_k.weight", "attn_v.weight", "attn_output.weight" })
                tensors.push_back({ b + name, { embd, embd } });
            tensors.push_back({ b + "attn_norm.weight", { embd } });
            tensors.push_back({ b + "ffn_norm.weight", { embd } });
            tensors.push_back({ b + "ffn_gate.weight", { embd, ff } });
            tensors.push_back({ b + "ffn_up.weight", { embd, ff } });
            tensors.push_back({ b + "ffn_down_t.weight", { embd, ff } });
            tensors.push_back({ b + "fc1.weight", { embd, 16 } });
            tensors.push_back({ b + "fc2.weight", { 16, ff } });
        }
        for (const auto& [name, shape] : tensors)
            writer.addTensor(name, DType::F32, shape);
        QVERIFY(writer.begin(path).ok());
        for (const auto& [name, shape] : tensors) {
            std::vector<std::byte> bytes(writer.tensorSize(name));
            QVERIFY(writer.writeTensorData(bytes).ok());
        }
        QVERIFY(writer.finish().ok());

        auto model = PlacementModel::fromFile(path);
        QVERIFY2(model.ok(), model.message().c_str());
        QCOMPARE(model->layerCount(), 2);
        QVERIFY(model->sparseCapable());
        const PlacementSummary s = planOrFail(*model, kGiB);
        QCOMPARE(s.layers.size(), std::size_t(2));
        QCOMPARE(s.layers[0].feedForwardSize, ff);
        QVERIFY(s.fullyOnGpu());

        // Garbage is an error, not a crash.
        QFile junk(dir.filePath(QStringLiteral("junk.gguf")));
        QVERIFY(junk.open(QIODevice::WriteOnly));
        junk.write("GGUF not really");
        junk.close();
        QVERIFY(!PlacementModel::fromFile(junk.fileName().toStdString()).ok());
    }
};

QTEST_GUILESS_MAIN(TestPlacementApi)
#include "tst_vram_placement.moc"
