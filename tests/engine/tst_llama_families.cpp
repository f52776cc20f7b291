// SPDX-License-Identifier: MIT
// The families on the llama block (model/architecture.h), each on its synthetic model:
// * it loads as its family, with its extra tensors bound;
// * prefill equals decode, and a prompt in small batches equals one batch;
// * each special operation matters: switching it off in the loaded model changes the logits
//   (Qwen 2: the Q/K/V biases and NeoX RoPE; Qwen 3: the per-head q/k norms and NeoX RoPE;
//   Phi-3: NeoX RoPE, the sliding window, the LongRoPE factors and their attention factor;
//   Gemma 2: post-norms, embedding scale, both soft-caps, GeGLU and the alternating window;
//   Gemma 3: post-norms, q/k norms, the five-to-one window, the local layers' RoPE base and the
//   global layers' linear scaling);
// * whole layers on the emulated device (the CUDA path's CPU twin) equal the CPU;
// * the greedy ids equal llama.cpp's on the same file, for the files listed in
//   data/llama_cpp_greedy.json (which says how they were made).

#include "model/llama_model.h"
#include "session_test_support.h"
#include "test_support.h"
#include "synth_test_support.h"
#include "synth/synthetic_families.h"
#include "synth/synthetic_model.h"

#include <hearth/model.h>
#include <hearth/session.h>

#include <QCryptographicHash>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <functional>

using namespace hearth;

namespace {

const std::vector<Token> kPrompt { 1, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54 };

std::shared_ptr<const Model> writeAndLoad(const QTemporaryDir& dir, const synth::SynthOptions& options,
                                          std::string* writtenPath = nullptr)
{
    static int counter = 0;
    return test::writeAndLoad(dir, QStringLiteral("model-%1.gguf").arg(++counter), options, writtenPath);
}

const SessionParams kCpu = test::deviceSessionParams({}, 0, 256, 64);

std::vector<float> lastLogits(const std::shared_ptr<const Model>& model, const SessionParams& params = kCpu)
{
    return test::promptLogits(model, params, kPrompt);
}

// The loaded model's insides, for switching one of its operations off. The objects were not
// created const, so writing through the cast is well defined.
model::LlamaWeights& weightsOf(const std::shared_ptr<const Model>& model)
{
    const auto& llama = dynamic_cast<const model::LlamaModel&>(*model);
    return const_cast<model::LlamaWeights&>(llama.weights());
}

model::HyperParams& hyperParamsOf(const std::shared_ptr<const Model>& model)
{
    const auto& llama = dynamic_cast<const model::LlamaModel&>(*model);
    return const_cast<model::HyperParams&>(llama.hyperParams());
}


} // namespace

class TestLlamaFamilies : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;

    static constexpr const char* kFamilies[] = {"qwen2", "qwen3", "phi3", "gemma2", "gemma3"};

    // Each family's tiny shape; with @p yarnColumn a "yarn" column of 0 (no YaRN scaling).
    static void addFamilies(bool yarnColumn = false)
    {
        QTest::addColumn<QString>("architecture");
        QTest::addColumn<QString>("shape");
        if (yarnColumn)
            QTest::addColumn<float>("yarn");
        for (const char* family : kFamilies) {
            QTestData& row = QTest::newRow(family) << QString::fromLatin1(family) << QStringLiteral("%1-tiny").arg(QLatin1String(family));
            if (yarnColumn)
                row << 0.0f;
        }
    }

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void registryKnowsTheFamilies()
    {
        std::vector<std::string> names;
        for (const ArchitectureName& a : supportedArchitectures())
            names.push_back(a.name);
        for (const char* name : { "llama", "bamboo", "qwen2", "qwen3", "phi3", "gemma2", "gemma3", "falcon", "opt" })
            QVERIFY2(std::find(names.begin(), names.end(), name) != names.end(), name);
    }

    void loadsAsItsFamily_data() { addFamilies(); }
    void loadsAsItsFamily()
    {
        QFETCH(QString, architecture);
        QFETCH(QString, shape);
        const auto model = writeAndLoad(m_dir, test::familyOptions(architecture, shape));
        QCOMPARE(QString::fromStdString(model->info().architecture), architecture);
        const model::LlamaLayerWeights& layer = weightsOf(model).layers.front();
        const model::HyperParams& hp = hyperParamsOf(model);
        QCOMPARE(layer.bq != nullptr, architecture == QLatin1String("qwen2"));
        QCOMPARE(layer.qNorm != nullptr, architecture == QLatin1String("qwen3") || architecture == QLatin1String("gemma3"));
        QCOMPARE(hp.flavour.rope, model::RopeStyle::Neox);
        if (architecture == QLatin1String("qwen3")) // heads of 32 in a 64-wide model: q is 128 wide
            QCOMPARE(hp.qDim(), 128);
        if (architecture == QLatin1String("phi3")) {
            // The fused products are views of one tensor each: K right after Q, up after gate.
            const auto rowBytesOf = [](const cpu::WeightMatrix& m) { return rowBytes(m.type, m.cols); };
            QCOMPARE(static_cast<const std::byte*>(layer.wk.data),
                     static_cast<const std::byte*>(layer.wq.data) + hp.qDim() * rowBytesOf(layer.wq));
            QCOMPARE(static_cast<const std::byte*>(layer.up.data),
                     static_cast<const std::byte*>(layer.gate.data) + hp.nFf * rowBytesOf(layer.gate));
            QCOMPARE(hp.slidingWindow, 8);
            QCOMPARE(hp.ropeOriginalContext, 256);
            QVERIFY(hp.ropeAttnFactor > 1.0f);
            const model::LlamaWeights& w = weightsOf(model);
            QVERIFY(w.ropeFactorsShort && w.ropeFactorsLong);
            QCOMPARE(w.ropeFactors(hp, 256), w.ropeFactorsShort);
            QCOMPARE(w.ropeFactors(hp, 257), w.ropeFactorsLong);
        }
        if (architecture == QLatin1String("gemma3")) {
            // Layers 0-4 and 6-10 are local (window 8, base 10000, unscaled), 5 and 11 global
            // (base 1M, 8x linear).
            for (int l = 0; l < hp.nLayer; ++l) {
                const bool global = (l + 1) % 6 == 0;
                QCOMPARE(hp.windowOf(l), global ? 0 : 8);
                QCOMPARE(hp.ropeOf(l).freqBase, global ? 1000000.0f : 10000.0f);
                QCOMPARE(hp.ropeOf(l).freqScale, global ? 0.125f : 1.0f);
            }
            QVERIFY(layer.attnPostNorm && layer.ffnPostNorm);
            QCOMPARE(hp.ffnActivation, model::FfnActivation::GeGlu);
        }
    }

    void refusesAFileWithoutItsTensors()
    {
        // A qwen2 file needs its biases: the llama file of the same shape relabelled is refused,
        // naming the tensor.
        synth::SynthOptions options = test::familyOptions(QStringLiteral("llama"), QStringLiteral("tiny"));
        const std::string path = m_dir.filePath(QStringLiteral("relabelled.gguf")).toStdString();
        QVERIFY(synth::writeSyntheticModel(options, path).ok());
        QFile file(QString::fromStdString(path));
        QVERIFY(file.open(QIODevice::ReadWrite));
        QByteArray bytes = file.readAll();
        // "llama" -> "qwen2" in general.architecture and in every key prefix: same length.
        bytes.replace("llama.", "qwen2.");
        const QByteArray arch = QByteArrayLiteral("general.architecture");
        const qsizetype at = bytes.indexOf(arch);
        QVERIFY(at > 0);
        const qsizetype value = bytes.indexOf("llama", at);
        bytes.replace(value, 5, "qwen2");
        QVERIFY(file.seek(0) && file.write(bytes) == bytes.size());
        file.close();
        const auto model = Model::load(path);
        QVERIFY(!model);
        QVERIFY2(model.message().find("blk.0.attn_q.bias") != std::string::npos, model.message().c_str());
    }

    void mistralWindowFromTheFile()
    {
        // A llama file that names a sliding window (Mistral 7B v0.1) gets it, on every layer, on
        // the CPU and on the emulated device alike.
        const auto model = writeAndLoad(m_dir, test::familyOptions(QStringLiteral("llama"), QStringLiteral("mistral-tiny")));
        model::HyperParams& hp = hyperParamsOf(model);
        QCOMPARE(hp.slidingWindow, 8);
        QCOMPARE(hp.windowOf(0), 8);
        QCOMPARE(hp.windowOf(1), 8);
        const std::vector<float> windowed = lastLogits(model);
        auto device = Session::create(model, test::deviceSessionParams("emulated:268435456", 0.25, 256, 64));
        QVERIFY(device.ok() && (*device)->placement().gpuLayers == 2);
        QVERIFY((*device)->prefill(kPrompt).ok());
        QVERIFY(test::relativeError(windowed, (*device)->logits()) < 1e-4);
        hp.slidingWindow = 0;
        QVERIFY2(test::relativeError(windowed, lastLogits(model)) > 1e-3, "the window changed nothing");
    }

    void prefillEqualsDecode_data()
    {
        addFamilies();
        // llama files of today's models: Mistral's sliding window, Llama 3's RoPE frequency factors.
        QTest::newRow("mistral") << QStringLiteral("llama") << QStringLiteral("mistral-tiny");
        QTest::newRow("llama3") << QStringLiteral("llama") << QStringLiteral("llama3-tiny");
    }
    void prefillEqualsDecode()
    {
        QFETCH(QString, architecture);
        QFETCH(QString, shape);
        const auto model = writeAndLoad(m_dir, test::familyOptions(architecture, shape));
        const std::vector<float> batched = lastLogits(model);
        QVERIFY(!batched.empty());
        auto session = Session::create(model, kCpu);
        QVERIFY(session.ok());
        for (const Token t : kPrompt)
            QVERIFY((*session)->decode(t).ok());
        QVERIFY(test::relativeError(batched, (*session)->logits()) < 1e-4);
        // Batches of 5 (the prompt then spans four of them, the last one short).
        const std::vector<float> small = lastLogits(model, test::deviceSessionParams({}, 0, 256, 5));
        QVERIFY(test::relativeError(batched, small) < 1e-4);
    }

    void specialOperationsMatter_data()
    {
        addFamilies();
    }
    void specialOperationsMatter()
    {
        QFETCH(QString, architecture);
        QFETCH(QString, shape);
        const auto model = writeAndLoad(m_dir, test::familyOptions(architecture, shape));
        const std::vector<float> reference = lastLogits(model);

        // NeoX RoPE: llama's pairs instead rotate other dimensions together.
        hyperParamsOf(model).flavour.rope = model::RopeStyle::Normal;
        QVERIFY2(test::relativeError(reference, lastLogits(model)) > 1e-3, "the RoPE style changed nothing");
        hyperParamsOf(model).flavour.rope = model::RopeStyle::Neox;
        QVERIFY(test::relativeError(reference, lastLogits(model)) < 1e-6);

        // Each of the family's own pieces, switched off in turn.
        model::HyperParams& hp = hyperParamsOf(model);
        model::LlamaWeights& w = weightsOf(model);
        const model::HyperParams savedHp = hp;
        const auto savedLayers = w.layers;
        const float* savedShort = w.ropeFactorsShort;
        std::vector<std::pair<const char*, std::function<void()>>> switches;
        if (architecture == QLatin1String("qwen2"))
            switches.emplace_back("the Q/K/V biases", [&w] {
                for (model::LlamaLayerWeights& l : w.layers)
                    l.bq = l.bk = l.bv = nullptr;
            });
        if (architecture == QLatin1String("qwen3"))
            switches.emplace_back("the q/k norms", [&w] {
                for (model::LlamaLayerWeights& l : w.layers)
                    l.qNorm = l.kNorm = nullptr;
            });
        if (architecture == QLatin1String("gemma2")) {
            switches.emplace_back("the post-norms", [&w] {
                for (model::LlamaLayerWeights& l : w.layers)
                    l.attnPostNorm = l.ffnPostNorm = nullptr;
            });
            switches.emplace_back("the embedding scale", [&hp] { hp.flavour.scaleEmbedding = false; });
            switches.emplace_back("the attention soft-cap", [&hp] { hp.attnSoftCap = 0.0f; });
            switches.emplace_back("the final soft-cap", [&hp] { hp.finalSoftCap = 0.0f; });
            switches.emplace_back("GeGLU", [&hp] { hp.ffnActivation = model::FfnActivation::SwiGlu; });
            switches.emplace_back("the alternating window", [&hp] { hp.slidingWindowPeriod = 0; });
        }
        if (architecture == QLatin1String("gemma3")) {
            switches.emplace_back("the post-norms", [&w] {
                for (model::LlamaLayerWeights& l : w.layers)
                    l.attnPostNorm = l.ffnPostNorm = nullptr;
            });
            switches.emplace_back("the q/k norms", [&w] {
                for (model::LlamaLayerWeights& l : w.layers)
                    l.qNorm = l.kNorm = nullptr;
            });
            switches.emplace_back("the five-to-one window", [&hp] { hp.slidingWindowPeriod = 2; });
            switches.emplace_back("the local RoPE base", [&hp] { hp.ropeFreqBaseSwa = 0.0f; });
            switches.emplace_back("the global linear scaling", [&hp] { hp.ropeFreqScale = 1.0f; });
        }
        if (architecture == QLatin1String("phi3")) {
            switches.emplace_back("the sliding window", [&hp] { hp.slidingWindow = 0; });
            switches.emplace_back("the LongRoPE factors", [&w] { w.ropeFactorsShort = nullptr; });
            switches.emplace_back("the LongRoPE attention factor", [&hp] { hp.ropeAttnFactor = 1.0f; });
        }
        for (const auto& [what, switchOff] : switches) {
            switchOff();
            QVERIFY2(test::relativeError(reference, lastLogits(model)) > 1e-3, qPrintable(QStringLiteral("%1 changed nothing").arg(QLatin1String(what))));
            hp = savedHp;
            w.layers = savedLayers;
            w.ropeFactorsShort = savedShort;
        }
        QVERIFY(test::relativeError(reference, lastLogits(model)) < 1e-6);
    }

    void theEmulatedDeviceRunsThem_data()
    {
        addFamilies(/*yarnColumn=*/true);
        // A long-context Qwen 3 file (rope.scaling.type yarn): the device folds YaRN's angles
        // into its RoPE divisors.
        QTest::newRow("qwen3 with YaRN") << QStringLiteral("qwen3") << QStringLiteral("qwen3-tiny") << 4.0f;
    }
    void theEmulatedDeviceRunsThem()
    {
        QFETCH(QString, architecture);
        QFETCH(QString, shape);
        QFETCH(float, yarn);
        synth::SynthOptions options = test::familyOptions(architecture, shape);
        if (yarn > 0.0f) {
            options.shape.ropeYarnFactor = yarn;
            options.shape.yarnOriginalContext = 64;
        }
        const auto model = writeAndLoad(m_dir, options);
        QCOMPARE(hyperParamsOf(model).ropeYarn, yarn > 0.0f);
        const std::vector<float> onCpu = lastLogits(model);
        const SessionParams device = test::deviceSessionParams("emulated:268435456", 0.25, 256, 64);
        auto session = Session::create(model, device);
        QVERIFY(session.ok());
        QVERIFY2((*session)->placement().gpuLayers == hyperParamsOf(model).nLayer, (*session)->placementReport().c_str());
        QVERIFY((*session)->prefill(kPrompt).ok());
        QVERIFY2(test::relativeError(onCpu, (*session)->logits()) < 1e-4, (*session)->placementReport().c_str());
        // Decoded tokens too (the device's one-token path).
        for (const Token t : { 60, 61, 62 })
            QVERIFY((*session)->decode(t).ok());
        auto cpu = Session::create(model, kCpu);
        QVERIFY(cpu.ok() && (*cpu)->prefill(kPrompt).ok());
        for (const Token t : { 60, 61, 62 })
            QVERIFY((*cpu)->decode(t).ok());
        QVERIFY(test::relativeError((*cpu)->logits(), (*session)->logits()) < 1e-4);
    }

    void greedyIdsEqualLlamaCpp_data()
    {
        test::addReferenceRows(QStringLiteral(HEARTH_TEST_DATA_DIR "/llama_cpp_greedy.json"), {"architecture", "shape", "type"});
    }
    void greedyIdsEqualLlamaCpp()
    {
        QFETCH(QJsonObject, reference);
        const auto type = synth::parseWeightType(reference.value(QLatin1String("type")).toString().toStdString());
        QVERIFY(type.ok());
        const synth::SynthOptions options = test::familyOptions(reference.value(QLatin1String("architecture")).toString(),
                                                          reference.value(QLatin1String("shape")).toString(), *type);
        std::string path;
        const auto model = writeAndLoad(m_dir, options, &path);
        // The reference holds for these bytes only: a generator change must come with new ids.
        QCOMPARE(QString::fromLatin1(test::fileSha256(path).toHex()), reference.value(QLatin1String("sha256")).toString());

        const std::vector<Token> prompt = test::referenceTokens(reference, "prompt");
        const std::vector<Token> expected = test::referenceTokens(reference, "ids");
        // The same ids, but where the two engines' roundings break a near tie apart (Q8_0
        // smallthinker with sigmoid gating: 0.02 between its two best at one step).
        int ties = 0;
        const QString parted = test::followsGreedyIds(model, prompt, expected, 0.01, &ties);
        QVERIFY2(parted.isEmpty(), qPrintable(parted));
        QVERIFY2(ties <= 1, qPrintable(QStringLiteral("%1 near ties").arg(ties)));

        // The first logits after the prompt: those of F32 files each within 2e-3 x (1 + |logit|)
        // (llama.cpp's KV cache is F16); those of quantized files within 3% of the largest, as
        // llama.cpp rounds activations and cache rows along the way, which 26 layers
        // (gemma2-tiny) make visible.
        auto session = Session::create(model, test::deviceSessionParams({}, 0, 512, 64));
        QVERIFY((*session)->prefill(prompt).ok());
        const auto logits = (*session)->logits();
        const QJsonArray firstLogits = reference.value(QLatin1String("logits")).toArray();
        QVERIFY(!firstLogits.isEmpty());
        std::vector<float> ours;
        std::vector<float> theirs;
        for (qsizetype i = 0; i < firstLogits.size(); ++i) {
            ours.push_back(logits[std::size_t(i)]);
            theirs.push_back(float(firstLogits.at(i).toDouble()));
            if (*type == DType::F32)
                QVERIFY2(std::abs(ours.back() - theirs.back()) <= 2e-3 * (1.0 + std::abs(theirs.back())),
                         qPrintable(QStringLiteral("logit %1: %2, llama.cpp %3").arg(i).arg(ours.back()).arg(theirs.back())));
        }
        double largest = 0;
        for (std::size_t i = 0; i < ours.size(); ++i)
            largest = std::max(largest, double(std::abs(ours[i] - theirs[i])));
        qInfo("largest difference of the first %zu logits from llama.cpp's: %.2g", ours.size(), largest);
        QVERIFY2(test::relativeError(ours, theirs) < 3e-2, qPrintable(QString::number(test::relativeError(ours, theirs))));
    }
};

QTEST_GUILESS_MAIN(TestLlamaFamilies)
#include "tst_llama_families.moc"
