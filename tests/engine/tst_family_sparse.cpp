// SPDX-License-Identifier: MIT
// Sparse falcon and opt: synthetic sparse files in both layouts, the sparse FFN against the dense
// one with every neuron predicted active, the sparse FFN of a layer against a plain masked
// reference (predictor from the layer input for falcon, OPT's biases), hybrid decoding on the
// emulated device against the CPU, and the placement planner on both families' files.

#include "family_test_support.h"
#include "session_test_support.h"
#include "gguf/gguf_file.h"
#include "model/falcon_forward.h"
#include "model/falcon_model.h"
#include "model/family_sparse_ffn.h"
#include "model/opt_forward.h"
#include "model/opt_model.h"
#include "sparse/activation_profile.h"
#include "sparse/sparse_ffn.h"
#include "synth/synthetic_families.h"
#include "synth/synthetic_sparse.h"

#include <hearth/model.h>
#include <hearth/placement.h>
#include <hearth/session.h>

#include <QFileInfo>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <vector>

using namespace hearth;
using namespace hearth::test;

namespace {

constexpr int kPromptTokens = 5;
constexpr int kDecodeTokens = 6;

synth::SynthOptions familyOptions(const std::string& arch, DType type)
{
    synth::SynthOptions o;
    o.architecture = arch;
    o.shape = *synth::shapeByName(arch, arch + "-tiny");
    o.type = type;
    o.ffnActivation = "relu";
    o.seed = 11;
    return o;
}

synth::SparseLayout layoutOf(const QString& name)
{
    return name == QLatin1String("hearth") ? synth::SparseLayout::Hearth : synth::SparseLayout::PowerInfer;
}

using Run = SessionRun;

// The fixed prompt, then kDecodeTokens fixed tokens, through the public Session API.
Run decode(const std::shared_ptr<const Model>& model, const SessionParams& params)
{
    std::vector<Token> prompt;
    for (int i = 0; i < kPromptTokens; ++i)
        prompt.push_back(Token(5 + 23 * i));
    return runSession(model, params, prompt, kDecodeTokens,
                      [](int i, std::span<const float>) { return Token(7 + 31 * i); });
}

SessionParams sessionParams(const std::string& device, double budgetGiB = -1)
{
    return deviceSessionParams(device, budgetGiB, 64, 8);
}

// The layers of a falcon or opt model, whichever it is.
template <typename Fn>
void withLayers(const Model& model, Fn&& fn)
{
    if (const auto* f = dynamic_cast<const model::FalconModel*>(&model))
        fn(f->weights().layers, f->hyperParams());
    else if (const auto* o = dynamic_cast<const model::OptModel*>(&model))
        fn(o->weights().layers, o->hyperParams());
}

} // namespace

class TestFamilySparse : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    int m_files = 0;

    std::string writeSparse(const synth::SynthOptions& o, synth::SparseLayout layout, double sparsity = 0.7)
    {
        synth::SparseSynthOptions s;
        s.sparsity = sparsity;
        s.layout = layout;
        s.predictorHidden = 32;
        const std::string path = m_dir.filePath(QStringLiteral("m%1.gguf").arg(++m_files)).toStdString();
        const Status st = synth::writeSparseSyntheticModel(o, s, path);
        if (!st.ok()) {
            qWarning("%s", st.message().c_str());
            return {};
        }
        return path;
    }

    static void addFamilyLayoutRows()
    {
        QTest::addColumn<QString>("arch");
        QTest::addColumn<QString>("layout");
        for (const char* arch : {"falcon", "opt"})
            for (const char* layout : {"powerinfer", "hearth"})
                QTest::newRow((std::string(arch) + "-" + layout).c_str()) << QString::fromLatin1(arch)
                                                                          << QString::fromLatin1(layout);
    }

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void synthWritesSparseFiles_data() { addFamilyLayoutRows(); }

    // Predictors, the layout's FFN tensors and a statistics file with the chosen mean sparsity.
    void synthWritesSparseFiles()
    {
        QFETCH(QString, arch);
        QFETCH(QString, layout);
        const auto o = familyOptions(arch.toStdString(), DType::Q8_0);
        const std::string path = writeSparse(o, layoutOf(layout), 0.9);
        QVERIFY(!path.empty());
        auto file = gguf::GgufFile::open(path);
        QVERIFY2(file.ok(), file.message().c_str());
        const bool hearth = layout == QLatin1String("hearth");
        QCOMPARE((*file)->magic() == gguf::Magic::PowerInfer, !hearth);
        for (int l = 0; l < o.shape.layerCount; ++l) {
            const std::string p = "blk." + std::to_string(l) + ".";
            QVERIFY((*file)->findTensor(p + "fc1.weight"));
            QVERIFY((*file)->findTensor(p + "fc2.weight"));
            QCOMPARE((*file)->findTensor(p + "ffn_neurons.weight") != nullptr, hearth);
            QCOMPARE((*file)->findTensor(p + "ffn_down_t.weight") != nullptr, !hearth);
            QVERIFY(!(*file)->findTensor(p + "ffn_down.weight"));
            QCOMPARE((*file)->findTensor(p + "ffn_up.bias") != nullptr, arch == QLatin1String("opt"));
        }
        auto stats = sparse::loadStatsFile(sparse::defaultStatsPath(path));
        QVERIFY2(stats.ok(), stats.message().c_str());
        QCOMPARE(int(stats->layerCount()), o.shape.layerCount);

        auto model = Model::load(path);
        QVERIFY2(model.ok(), model.message().c_str());
        QVERIFY((*model)->info().sparse);
        QCOMPARE((*model)->info().architecture, arch.toStdString());
        QCOMPARE((*model)->info().ffnActivation, std::string("relu"));
    }

    void sparseEqualsDenseWhenAllActive_data()
    {
        QTest::addColumn<QString>("arch");
        QTest::addColumn<QString>("layout");
        QTest::addColumn<int>("type");
        for (const char* arch : {"falcon", "opt"}) {
            for (const char* layout : {"powerinfer", "hearth"}) {
                for (DType t : {DType::F32, DType::F16, DType::Q8_0, DType::Q4_0})
                    QTest::newRow((std::string(arch) + "-" + layout + "-" + std::string(dtypeName(t))).c_str())
                        << QString::fromLatin1(arch) << QString::fromLatin1(layout) << int(t);
            }
        }
    }

    // With a threshold of -infinity every neuron is predicted active: the sparse FFN computes
    // what the dense one does (the dense products of the PowerInfer file, for both layouts, so
    // the Hearth layout's reordered neurons are checked too), prompt and decode alike.
    void sparseEqualsDenseWhenAllActive()
    {
        QFETCH(QString, arch);
        QFETCH(QString, layout);
        QFETCH(int, type);
        const auto o = familyOptions(arch.toStdString(), DType(type));
        const std::string densePath = writeSparse(o, synth::SparseLayout::PowerInfer);
        const std::string path = layoutOf(layout) == synth::SparseLayout::Hearth ? writeSparse(o, synth::SparseLayout::Hearth)
                                                                                 : densePath;
        QVERIFY(!path.empty() && !densePath.empty());
        auto denseModel = Model::load(densePath);
        auto model = Model::load(path);
        QVERIFY2(denseModel.ok() && model.ok(), "loading failed");

        const int ctx = 32;
        std::vector<Token> tokens;
        for (int i = 0; i < 12; ++i)
            tokens.push_back(Token(3 + 19 * i));
        auto run = [&](const Model& m, bool dense, std::vector<float>& logits) -> bool {
            std::unique_ptr<model::FamilyForward> f;
            if (const auto* falcon = dynamic_cast<const model::FalconModel*>(&m)) {
                auto made = model::FalconForward::create(*falcon, ctx, 8, 2);
                if (made)
                    f = std::move(made).value();
            } else if (const auto* opt = dynamic_cast<const model::OptModel*>(&m)) {
                auto made = model::OptForward::create(*opt, ctx, 8, 2);
                if (made)
                    f = std::move(made).value();
            }
            if (!f || !f->sparseCapable())
                return false;
            if (dense)
                f->setFfnMode(model::FamilyForward::FfnMode::Dense);
            else
                f->setSparseThreshold(-std::numeric_limits<float>::infinity());
            const std::size_t vocab = std::size_t(f->vocabSize());
            logits.assign(tokens.size() * vocab, 0.0f);
            // A prompt batch of 8 (every row's logits), then one token at a time.
            f->forward(tokens.data(), 8, 0, logits.data(), true);
            for (std::size_t t = 8; t < tokens.size(); ++t)
                f->forward(&tokens[t], 1, int(t), logits.data() + t * vocab, false);
            return true;
        };
        std::vector<float> dense, sparse;
        QVERIFY(run(**denseModel, true, dense));
        QVERIFY(run(**model, false, sparse));
        const std::size_t vocab = std::size_t(o.shape.vocabSize);
        // Quantized types quantize the activations for the integer dots in both paths, but the
        // dense products and the neuron kernels round differently.
        const double tolerance = DType(type) == DType::F32 ? 1e-4 : DType(type) == DType::F16 ? 1e-3 : 0.03;
        for (std::size_t t = 0; t < tokens.size(); ++t) {
            const double err = relativeError(std::span<const float>(dense).subspan(t * vocab, vocab),
                                             std::span<const float>(sparse).subspan(t * vocab, vocab));
            QVERIFY2(err < tolerance, qPrintable(QStringLiteral("token %1: %2").arg(t).arg(err)));
        }
    }

    void maskedReference_data() { addFamilyLayoutRows(); }

    // One layer's sparse FFN for a given input: the neurons whose predictor logit (from the
    // predictor input, not the FFN input) is >= 0, and nothing else, plus OPT's biases.
    void maskedReference()
    {
        QFETCH(QString, arch);
        QFETCH(QString, layout);
        const auto o = familyOptions(arch.toStdString(), DType::F32);
        const std::string path = writeSparse(o, layoutOf(layout), 0.8);
        QVERIFY(!path.empty());
        auto loaded = Model::load(path);
        QVERIFY2(loaded.ok(), loaded.message().c_str());
        auto file = gguf::GgufFile::open(path);
        QVERIFY(file.ok());
        const bool hearth = layoutOf(layout) == synth::SparseLayout::Hearth;

        const int nEmbd = o.shape.embeddingSize;
        const int nFf = o.shape.feedForwardSize;
        std::mt19937 rng(7);
        std::normal_distribution<float> normal(0.0f, 1.0f);
        std::vector<float> x(std::size_t(2 * nEmbd)), p(std::size_t(2 * nEmbd));
        for (float& v : x)
            v = normal(rng);
        for (float& v : p)
            v = normal(rng);

        bool ran = false;
        withLayers(**loaded, [&](const auto& layers, const model::HyperParams& hp) {
            auto sparseFfn = model::FamilySparseFfn::create(layers, hp, 2, 2, true, 0.0f);
            QVERIFY2(sparseFfn.ok(), sparseFfn.message().c_str());
            model::DenseFfn dense;
            QVERIFY(dense.reserve(2, nFf, nEmbd, 2, true).ok());
            cpu::ThreadPool pool(2);
            // A threshold that leaves each token 5 % of the neurons takes the neuron kernels; the
            // median logit of the two tokens, about half each, the dense products.
            for (const bool wide : {false, true}) {
                for (int l = 0; l < o.shape.layerCount; ++l) {
                    const std::string pre = "blk." + std::to_string(l) + ".";
                    const RefMatrix fc1 = readTensor(**file, pre + "fc1.weight");
                    const RefMatrix fc2 = readTensor(**file, pre + "fc2.weight");
                    const RefMatrix neurons = readTensor(**file, pre + (hearth ? "ffn_neurons.weight" : "ffn_up.weight"));
                    const RefMatrix downT = hearth ? RefMatrix() : readTensor(**file, pre + "ffn_down_t.weight");
                    const RefMatrix upBias = readTensor(**file, pre + "ffn_up.bias");
                    const RefMatrix downBias = readTensor(**file, pre + "ffn_down.bias");
                    std::vector<std::vector<double>> logits;
                    for (int t = 0; t < 2; ++t) {
                        std::vector<double> h = matVec(fc1, std::vector<double>(p.begin() + t * nEmbd, p.begin() + (t + 1) * nEmbd));
                        for (double& v : h)
                            v = std::max(v, 0.0);
                        logits.push_back(matVec(fc2, h));
                    }
                    std::vector<double> all = logits[0];
                    all.insert(all.end(), logits[1].begin(), logits[1].end());
                    // Halfway between two logits, so float rounding cannot move a neuron across.
                    std::sort(all.begin(), all.end());
                    const std::size_t k = wide ? all.size() / 2 : all.size() * 95 / 100;
                    const double threshold = (all[k] + all[k + 1]) / 2.0;
                    (*sparseFfn)->setThreshold(float(threshold));
                    std::vector<float> out(std::size_t(2 * nEmbd));
                    const model::FfnBatch batch{l, 2, x.data(), p.data(), out.data()};
                    const std::uint64_t kernelCalls = sparse::ffnTraffic().calls;
                    QVERIFY((*sparseFfn)->run(pool, layers[std::size_t(l)].ffn, batch, dense));
                    int active = 0;
                    for (int t = 0; t < 2; ++t) {
                        std::vector<double> xt(x.begin() + t * nEmbd, x.begin() + (t + 1) * nEmbd);
                        std::vector<double> want(std::size_t(nEmbd), 0.0);
                        for (int i = 0; i < nFf; ++i) {
                            if (!(logits[std::size_t(t)][std::size_t(i)] >= threshold))
                                continue;
                            ++active;
                            const double* up = neurons.row(i);
                            const double* down = hearth ? neurons.row(i) + nEmbd : downT.row(i);
                            double a = upBias.w.empty() ? 0.0 : upBias.w[std::size_t(i)];
                            for (int c = 0; c < nEmbd; ++c)
                                a += up[c] * xt[std::size_t(c)];
                            if (a <= 0)
                                continue;
                            for (int c = 0; c < nEmbd; ++c)
                                want[std::size_t(c)] += a * down[c];
                        }
                        if (!downBias.w.empty()) {
                            for (int c = 0; c < nEmbd; ++c)
                                want[std::size_t(c)] += downBias.w[std::size_t(c)];
                        }
                        const double diff = maxAbsDiff(std::span<const float>(out).subspan(std::size_t(t * nEmbd), std::size_t(nEmbd)), want);
                        QVERIFY2(diff < 1e-4, qPrintable(QStringLiteral("layer %1 token %2%3: %4").arg(l).arg(t).arg(wide ? " (wide)" : "").arg(diff)));
                    }
                    // A real mask: neither nothing nor everything; wide ones through the dense products.
                    QVERIFY2(active > 0 && active < 2 * nFf, qPrintable(QString::number(active)));
                    QCOMPARE(sparse::ffnTraffic().calls == kernelCalls, wide);
                }
            }
            ran = true;
        });
        QVERIFY(ran);
    }

    void hybridEqualsCpu_data()
    {
        QTest::addColumn<QString>("arch");
        QTest::addColumn<int>("type");
        QTest::addColumn<int>("layout");
        for (const char* arch : {"falcon", "opt"})
            for (DType t : {DType::F16, DType::Q4_0})
                QTest::newRow((std::string(arch) + "-" + std::string(dtypeName(t))).c_str())
                    << QString::fromLatin1(arch) << int(t) << int(synth::SparseLayout::PowerInfer);
        // Hearth's fused rows (up | down per neuron): the device gathers its hot rows from them.
        for (const char* arch : {"falcon", "opt"})
            QTest::newRow((std::string(arch) + "-q4_0-fused").c_str())
                << QString::fromLatin1(arch) << int(DType::Q4_0) << int(synth::SparseLayout::Hearth);
    }

    // Budgets of 0, part of the FFN and all of it give the CPU-only logits.
    void hybridEqualsCpu()
    {
        QFETCH(QString, arch);
        QFETCH(int, type);
        QFETCH(int, layout);
        const auto o = familyOptions(arch.toStdString(), DType(type));
        const std::string path = writeSparse(o, synth::SparseLayout(layout));
        QVERIFY(!path.empty());
        auto loaded = Model::load(path);
        QVERIFY2(loaded.ok(), loaded.message().c_str());
        const std::shared_ptr<const Model> model = *loaded;

        const Run reference = decode(model, sessionParams("", 0));
        QCOMPARE(int(reference.logits.size()), kDecodeTokens + 1);
        QVERIFY2(reference.report.starts_with("CPU only: "), reference.report.c_str());
        auto compare = [&](const Run& run) {
            QCOMPARE(run.logits.size(), reference.logits.size());
            for (std::size_t i = 0; i < run.logits.size(); ++i) {
                const double err = relativeError(reference.logits[i], run.logits[i]);
                QVERIFY2(err < 1e-4, qPrintable(QStringLiteral("step %1: %2").arg(i).arg(err)));
            }
        };

        const Run zero = decode(model, sessionParams("emulated:1073741824", 0));
        QVERIFY2(zero.report.find("budget is 0") != std::string::npos, zero.report.c_str());
        compare(zero);

        const Run all = decode(model, sessionParams("emulated:1073741824"));
        const auto [hotAll, totalAll] = hotCounts(all.report);
        QVERIFY2(totalAll > 0 && hotAll == totalAll, all.report.c_str());
        compare(all);

        bool found = false;
        for (std::uint64_t bytes = 16 * 1024; bytes <= (std::uint64_t(1) << 30) && !found; bytes += bytes / 4) {
            auto session = Session::create(model, sessionParams("emulated:" + std::to_string(bytes)));
            QVERIFY(session.ok());
            const auto [hot, total] = hotCounts((*session)->placementReport());
            if (hot > 0 && hot < total) {
                found = true;
                const Run partial = decode(model, sessionParams("emulated:" + std::to_string(bytes)));
                QVERIFY2(partial.report.starts_with("GPU "), partial.report.c_str());
                compare(partial);
            }
        }
        QVERIFY2(found, "no budget places part of the FFN");

        // A device that holds less than it claims: re-planned, still the same logits.
        const Run replanned = decode(model, sessionParams("emulated:400000:20000"));
        QVERIFY2(replanned.report.find("re-planned") != std::string::npos || replanned.report.starts_with("CPU only: "),
                 replanned.report.c_str());
        compare(replanned);
    }

    void brokenSparseFiles_data()
    {
        QTest::addColumn<QString>("edit");
        QTest::addColumn<QString>("message");
        QTest::newRow("fused-without-predictors") << QStringLiteral("drop-predictors") << QStringLiteral("needs a predictor");
        QTest::newRow("fc2-shape") << QStringLiteral("fc2-shape") << QStringLiteral("fc2");
        QTest::newRow("nan-threshold") << QStringLiteral("nan-threshold") << QStringLiteral("sparse_threshold");
        QTest::newRow("gelu-fused") << QStringLiteral("gelu") << QStringLiteral("ReLU");
    }

    // Broken sparse files fail to load with a message, never a crash.
    void brokenSparseFiles()
    {
        QFETCH(QString, edit);
        QFETCH(QString, message);
        const auto o = familyOptions("falcon", DType::F32);
        const std::string from = writeSparse(o, synth::SparseLayout::Hearth);
        QVERIFY(!from.empty());
        const std::string to = m_dir.filePath(QStringLiteral("broken%1.gguf").arg(++m_files)).toStdString();
        const Status st = rewriteGguf(
            from, to,
            [&](const std::string& key) {
                return !(edit == QLatin1String("nan-threshold") && key == "powerinfer.sparse_threshold")
                       && !(edit == QLatin1String("gelu") && key == "hearth.ffn_activation");
            },
            [&](gguf::GgufWriter& w) {
                if (edit == QLatin1String("nan-threshold"))
                    w.setFloat32("powerinfer.sparse_threshold", std::numeric_limits<float>::quiet_NaN());
                if (edit == QLatin1String("gelu"))
                    w.setString("hearth.ffn_activation", "gelu");
            },
            [&](const gguf::TensorInfo& t, TensorReplacement& r) {
                const bool predictor = t.name.ends_with(".fc1.weight") || t.name.ends_with(".fc2.weight");
                if (edit == QLatin1String("drop-predictors") && predictor)
                    return false;
                if (edit == QLatin1String("fc2-shape") && t.name == "blk.1.fc2.weight") {
                    r.replace = true;
                    r.type = DType::F32;
                    r.shape = {t.shape[0], t.shape[1] / 2};
                    r.bytes.assign(std::size_t(r.shape[0] * r.shape[1]) * sizeof(float), std::byte{0});
                }
                return true;
            });
        QVERIFY2(st.ok(), st.message().c_str());
        auto model = Model::load(to);
        QVERIFY(!model.ok());
        QVERIFY2(QString::fromStdString(model.message()).contains(message), model.message().c_str());
    }

    // GELU never gives exact zeros: a falcon file with GELU and predictors runs densely, on a
    // device as whole layers (its neuron-major ffn_down_t multiplied transposed), computing what
    // the CPU does.
    void geluIgnoresPredictors()
    {
        const auto o = familyOptions("falcon", DType::F32);
        const std::string from = writeSparse(o, synth::SparseLayout::PowerInfer);
        const std::string to = m_dir.filePath(QStringLiteral("gelu%1.gguf").arg(++m_files)).toStdString();
        const Status st = rewriteGguf(
            from, to, [](const std::string& key) { return key != "hearth.ffn_activation"; },
            [](gguf::GgufWriter& w) { w.setString("hearth.ffn_activation", "gelu"); }, {});
        QVERIFY2(st.ok(), st.message().c_str());
        auto model = Model::load(to);
        QVERIFY2(model.ok(), model.message().c_str());
        QVERIFY(!(*model)->info().sparse);
        QCOMPARE((*model)->info().ffnActivation, std::string("gelu"));
        const Run run = decode(*model, sessionParams("emulated:1073741824"));
        QCOMPARE(int(run.logits.size()), kDecodeTokens + 1);
        QVERIFY2(run.report.find("2 of 2 layers (attention, KV cache and FFN)") != std::string::npos, run.report.c_str());
        const Run cpu = decode(*model, sessionParams("", 0));
        QVERIFY2(cpu.report.starts_with("CPU only: "), cpu.report.c_str());
        QCOMPARE(cpu.logits.size(), run.logits.size());
        for (std::size_t i = 0; i < cpu.logits.size(); ++i)
            QVERIFY(relativeError(cpu.logits[i], run.logits[i]) < 1e-4);
    }

    void planner_data()
    {
        QTest::addColumn<QString>("arch");
        QTest::newRow("falcon") << QStringLiteral("falcon");
        QTest::newRow("opt") << QStringLiteral("opt");
    }

    // The planner reads both families' files: two matrices per neuron (no gate), monotone in the
    // budget, never above it, and everything on the GPU when it fits.
    void planner()
    {
        QFETCH(QString, arch);
        const auto o = familyOptions(arch.toStdString(), DType::Q8_0);
        const std::string path = writeSparse(o, synth::SparseLayout::PowerInfer);
        auto pm = PlacementModel::fromFile(path);
        QVERIFY2(pm.ok(), pm.message().c_str());
        QVERIFY(pm->sparseCapable());
        QCOMPARE(pm->architecture(), arch.toStdString());
        std::int64_t previous = -1;
        for (std::uint64_t budget : {std::uint64_t(0), std::uint64_t(200) << 10, std::uint64_t(400) << 10,
                                     std::uint64_t(800) << 10, std::uint64_t(1) << 30}) {
            PlacementRequest r;
            r.budgetBytes = budget;
            r.contextLength = 64;
            r.batchSize = 8;
            auto plan = pm->plan(r);
            QVERIFY2(plan.ok(), plan.message().c_str());
            QVERIFY(plan->gpu.total() <= budget);
            QVERIFY(plan->hotNeuronCount() >= previous);
            previous = plan->hotNeuronCount();
            if (budget == std::uint64_t(1) << 30)
                QCOMPARE(plan->hotNeuronCount(), plan->neuronCount());
        }

        // The catalog path: a falcon/opt description has no gate, so its FFN is 2/3 of a gated one.
        ModelDescription d;
        d.architecture = arch.toStdString();
        d.layerCount = 4;
        d.embeddingSize = 1024;
        d.headCount = 16;
        d.feedForwardSize = 4096;
        d.vocabSize = 1000;
        d.predictorHidden = 0;
        d.sparse = false;
        ModelDescription gated = d;
        gated.architecture = "llama";
        auto family = PlacementModel::fromDescription(d);
        auto llama = PlacementModel::fromDescription(gated);
        QVERIFY(family.ok() && llama.ok());
        PlacementRequest none;
        auto familyPlan = family->plan(none);
        auto llamaPlan = llama->plan(none);
        QVERIFY(familyPlan.ok() && llamaPlan.ok());
        const std::uint64_t gateBytes = rowBytes(DType::Q4_0, 1024) * 4096ull * 4;
        QCOMPARE(llamaPlan->modelBytes - familyPlan->modelBytes, gateBytes);
    }

    // Catalog descriptions name the types of today's files: K-quants and their presets, IQ4,
    // BF16; each counts with its own bytes per block, and unknown names are refused.
    void descriptionsTakeEveryWeightType()
    {
        ModelDescription d;
        d.architecture = "llama";
        d.layerCount = 4;
        d.embeddingSize = 1024;
        d.headCount = 16;
        d.feedForwardSize = 4096;
        d.vocabSize = 1000;
        d.sparse = false;
        std::uint64_t previous = 0;
        // Ever more bits per weight: the plans grow with them.
        for (const char* name : {"Q2_K", "Q3_K_M", "IQ4_XS", "Q4_K_M", "Q5_K_S", "Q6_K", "Q8_0", "BF16", "F32"}) {
            d.quantization = name;
            auto model = PlacementModel::fromDescription(d);
            QVERIFY2(model.ok(), name);
            auto plan = model->plan(PlacementRequest{});
            QVERIFY2(plan.ok(), name);
            QVERIFY2(plan->modelBytes > previous, name);
            previous = plan->modelBytes;
        }
        d.quantization = "Q4_K_M";
        const auto q4km = PlacementModel::fromDescription(d)->plan(PlacementRequest{})->modelBytes;
        d.quantization = "Q4_K";
        QCOMPARE(PlacementModel::fromDescription(d)->plan(PlacementRequest{})->modelBytes, q4km);
        for (const char* bad : {"Q4_X", "IQ2_XXS", "Q8_1", ""}) {
            d.quantization = bad;
            QVERIFY2(!PlacementModel::fromDescription(d).ok(), bad);
        }
    }
};

QTEST_GUILESS_MAIN(TestFamilySparse)
#include "tst_family_sparse.moc"
