// SPDX-License-Identifier: MIT
// Attention (with its KV cache) and predictors of a sparse llama model on the emulated device,
// through the forward pass's LayerOffload hook: the logits equal the CPU-only ones for every
// choice of layers and budget, alone and together with the hybrid FFN split; the device
// predictor picks exactly the CPU predictor's neurons.

#include "api/hybrid_decode.h"
#include "api/hybrid_device_layers.h"
#include "cpu/thread_pool.h"
#include "device/emulated_device.h"
#include "model/llama_forward.h"
#include "model/llama_model.h"
#include "session_test_support.h"
#include "sparse/predictor.h"
#include "synth/model_shape.h"
#include "synth/synthetic_sparse.h"

#include <hearth/model.h>

#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

using namespace hearth;
using hearth::test::relativeError;

namespace {

constexpr int kLayers = 4;
constexpr int kContext = 32;
constexpr int kBatch = 4;

// Logits of a prompt in batches, decoded tokens, a rewind (positions overwritten) and more.
std::vector<std::vector<float>> converse(model::LlamaForward& f, int vocab)
{
    std::vector<std::vector<float>> out;
    std::vector<float> logits(static_cast<std::size_t>(vocab));
    std::vector<Token> prompt;
    for (int i = 0; i < 9; ++i)
        prompt.push_back(Token(3 + 23 * i % 280));
    int pos = 0;
    for (int done = 0; done < int(prompt.size()); done += kBatch) {
        const int n = std::min(kBatch, int(prompt.size()) - done);
        f.forward(prompt.data() + done, n, pos, logits.data(), false);
        pos += n;
    }
    out.push_back(logits);
    for (int i = 0; i < 5; ++i) {
        const Token t = Token(10 + 31 * i % 280);
        f.forward(&t, 1, pos++, logits.data(), false);
        out.push_back(logits);
    }
    pos -= 3; // regenerate from three tokens back
    const Token again[3] = {7, 70, 170};
    f.forward(again, 3, pos, logits.data(), false);
    pos += 3;
    out.push_back(logits);
    for (int i = 0; i < 3; ++i) {
        const Token t = Token(50 + 13 * i);
        f.forward(&t, 1, pos++, logits.data(), false);
        out.push_back(logits);
    }
    return out;
}

} // namespace

class TestDeviceLayers : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::shared_ptr<const Model> m_model;
    const model::LlamaModel* m_llama = nullptr;
    std::vector<std::vector<float>> m_reference;

    std::unique_ptr<model::LlamaForward> forward()
    {
        auto f = model::LlamaForward::create(*m_llama, kContext, kBatch, 2);
        return f ? std::move(f).value() : nullptr;
    }

    static HybridDeviceLayers::Choice choice(std::vector<bool> attention, std::vector<bool> predictor,
                                             bool output = false)
    {
        return {std::move(attention), std::move(predictor), output};
    }

    void compare(const std::vector<std::vector<float>>& run)
    {
        QCOMPARE(run.size(), m_reference.size());
        for (std::size_t i = 0; i < run.size(); ++i) {
            const double err = relativeError(m_reference[i], run[i]);
            if (err > 1e-4)
                QFAIL(qPrintable(QStringLiteral("logits of step %1 differ by %2 (relative)").arg(i).arg(err)));
        }
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        synth::SynthOptions o;
        o.shape = *synth::shapeByName("tiny");
        o.shape.layerCount = kLayers;
        o.shape.vocabSize = 300;
        o.type = DType::F16;
        o.ffnActivation = "reglu";
        o.seed = 7;
        synth::SparseSynthOptions s;
        s.sparsity = 0.7;
        s.predictorHidden = 32;
        const std::string path = m_dir.filePath(QStringLiteral("sparse.gguf")).toStdString();
        const Status st = synth::writeSparseSyntheticModel(o, s, path);
        QVERIFY2(st.ok(), st.message().c_str());
        auto model = Model::load(path);
        QVERIFY2(model.ok(), model.message().c_str());
        m_model = *model;
        m_llama = dynamic_cast<const model::LlamaModel*>(m_model.get());
        QVERIFY(m_llama && m_llama->weights().sparse);
        QCOMPARE(m_llama->hyperParams().nLayer, kLayers);
        auto f = forward();
        QVERIFY(f);
        m_reference = converse(*f, 300);
    }

    void layerChoices_data()
    {
        QTest::addColumn<QList<bool>>("attention");
        QTest::addColumn<QList<bool>>("predictor");
        QTest::addColumn<bool>("output");
        QTest::newRow("everything") << QList<bool>{true, true, true, true} << QList<bool>{true, true, true, true}
                                    << true;
        QTest::newRow("attention only") << QList<bool>{true, true, true, true} << QList<bool>{} << false;
        QTest::newRow("predictors only") << QList<bool>{} << QList<bool>{true, true, true, true} << false;
        QTest::newRow("output head only") << QList<bool>{} << QList<bool>{} << true;
        QTest::newRow("some layers") << QList<bool>{false, true, false, true} << QList<bool>{true, false, true, false}
                                     << false;
    }

    void layerChoices()
    {
        QFETCH(QList<bool>, attention);
        QFETCH(QList<bool>, predictor);
        QFETCH(bool, output);
        device::EmulatedDevice dev;
        std::vector<std::string> notes;
        const std::vector<bool> onAttention(attention.begin(), attention.end());
        const std::vector<bool> onPredictor(predictor.begin(), predictor.end());
        auto layers = HybridDeviceLayers::create(dev, *m_llama, choice(onAttention, onPredictor, output), kContext,
                                                 kBatch, notes);
        QVERIFY(layers);
        QVERIFY(notes.empty());
        QCOMPARE(layers->summary().find("the output head") != std::string::npos, output);
        QCOMPARE(layers->attentionLayers(), int(std::count(attention.begin(), attention.end(), true)));
        QCOMPARE(layers->predictorLayers(), int(std::count(predictor.begin(), predictor.end(), true)));
        QCOMPARE(dev.usedBytes(), layers->deviceBytes());
        auto f = forward();
        f->setLayerOffload(layers.get());
        compare(converse(*f, 300));
        QVERIFY2(layers->summary().find("failed") == std::string::npos, layers->summary().c_str());
    }

    void nothingChosen()
    {
        device::EmulatedDevice dev;
        std::vector<std::string> notes;
        QVERIFY(!HybridDeviceLayers::create(dev, *m_llama, choice({}, {}), kContext, kBatch, notes));
        QCOMPARE(dev.usedBytes(), std::uint64_t(0));
    }

    void budgetHoldsSomeLayers()
    {
        // Find budgets where some but not all attention layers fit: the rest stay on the CPU
        // with a note, and the logits do not change.
        bool partial = false;
        bool none = false;
        for (std::uint64_t budget = 16 * 1024; budget < (std::uint64_t(1) << 24); budget += budget / 4) {
            device::EmulatedDeviceOptions o;
            o.budgetBytes = budget;
            device::EmulatedDevice dev(o);
            std::vector<std::string> notes;
            auto layers = HybridDeviceLayers::create(dev, *m_llama, choice({true, true, true, true}, {}), kContext,
                                                     kBatch, notes);
            if (!layers) {
                QVERIFY(!notes.empty());
                none = true;
                continue;
            }
            QVERIFY(dev.usedBytes() <= budget);
            const int placed = layers->attentionLayers();
            if (placed == kLayers || partial)
                continue;
            QCOMPARE(int(notes.size()), kLayers - placed);
            auto f = forward();
            f->setLayerOffload(layers.get());
            compare(converse(*f, 300));
            partial = true;
        }
        QVERIFY(none && partial);
    }

    void withTheHybridFfn_data()
    {
        QTest::addColumn<QString>("device");
        QTest::newRow("all fits") << QStringLiteral("emulated:1073741824");
        QTest::newRow("partial") << QStringLiteral("emulated:400000");
    }

    void withTheHybridFfn()
    {
        // The FFN split of HybridDecode (its own device) with attention and predictors on another
        // device: every device path of a hybrid session at once.
        QFETCH(QString, device);
        SessionParams p;
        p.deviceOverride = device.toStdString();
        std::string report;
        auto ffn = HybridDecode::create(*m_llama, p, kContext, kBatch, report);
        QVERIFY2(ffn, report.c_str());
        device::EmulatedDevice dev;
        std::vector<std::string> notes;
        auto layers = HybridDeviceLayers::create(dev, *m_llama, choice({true, false, true, true}, {true, true, false, true}),
                                                 kContext, kBatch, notes);
        QVERIFY(layers);
        auto f = forward();
        f->setDecodeFfn(ffn.get());
        f->setLayerOffload(layers.get());
        compare(converse(*f, 300));
    }

    void deviceFailureHandsLayersBack()
    {
        device::EmulatedDevice dev;
        std::vector<std::string> notes;
        auto layers = HybridDeviceLayers::create(dev, *m_llama, choice({true, true, true, true}, {true, true, true, true}),
                                                 kContext, kBatch, notes);
        QVERIFY(layers);
        auto cpu = forward();
        auto mixed = forward();
        mixed->setLayerOffload(layers.get());
        std::vector<float> want(300), got(300);
        const auto step = [&](const std::vector<Token>& tokens, int start) {
            cpu->forward(tokens.data(), int(tokens.size()), start, want.data(), false);
            mixed->forward(tokens.data(), int(tokens.size()), start, got.data(), false);
            return relativeError(want, got);
        };
        QVERIFY(step({5, 6, 7}, 0) <= 1e-4);
        QVERIFY(step({8}, 3) <= 1e-4);
        dev.injectOperationFailures(2);
        QVERIFY(step({9}, 4) <= 1e-4);
        QVERIFY(!layers->hasAttention(0));
        QVERIFY2(layers->summary().find("the device failed") != std::string::npos, layers->summary().c_str());
        QVERIFY(step({10, 11}, 5) <= 1e-4);
        QVERIFY(step({12, 13}, 2) <= 1e-4); // rewind over positions the device computed
    }

    void predictorMatchesTheCpu()
    {
        device::EmulatedDevice dev;
        std::vector<std::string> notes;
        auto layers = HybridDeviceLayers::create(dev, *m_llama, choice({}, {true, true, true, true}), kContext, kBatch,
                                                 notes);
        QVERIFY(layers);
        const model::HyperParams& hp = m_llama->hyperParams();
        cpu::ThreadPool pool(2);
        std::mt19937 rng(3);
        std::normal_distribution<float> normal;
        std::vector<float> x(std::size_t(hp.nEmbd));
        std::vector<float> hidden(1024), logits(std::size_t(hp.nFf));
        std::vector<std::int32_t> want(std::size_t(hp.nFf)), got(std::size_t(hp.nFf));
        for (int trial = 0; trial < 50; ++trial) {
            for (float& v : x)
                v = normal(rng);
            const int layer = trial % kLayers;
            const float threshold = trial % 3 == 0 ? 0.0f : 0.5f * float(trial % 5) - 1.0f;
            const sparse::PredictorWeights& pw = m_llama->weights().layers[std::size_t(layer)].predictor;
            sparse::predict(pool, pw, x.data(), 1, hidden.data(), logits.data());
            const std::int64_t wantCount = sparse::selectActive(logits.data(), hp.nFf, threshold, want.data());
            const std::int64_t gotCount = layers->predict(layer, x.data(), threshold, got.data());
            QCOMPARE(gotCount, wantCount);
            QVERIFY(std::equal(want.begin(), want.begin() + wantCount, got.begin()));
        }
    }
};

QTEST_GUILESS_MAIN(TestDeviceLayers)
#include "tst_device_layers.moc"
