// SPDX-License-Identifier: MIT
// Making a SwiGLU model sparse by magnitude (hearth/convert.h: SparsifyMethod::Magnitude): the
// file keeps the gate and up projections, stores the down projection neuron-major and holds two
// thresholds per neuron; with input sparsity the attention's projections and gate/up are stored
// input-major instead, with a threshold per input. Checked here: at sparsity 0 it computes the
// dense model's logits (and an input-major file in dense mode does), a prompt and a decode
// agree, a decoded token reads only the rows it keeps (about the share the report promised), the
// real stories260K keeps its perplexity within 5% at 40% sparsity, a result over the bound is
// refused, the run is deterministic and a cancelled run leaves nothing, a file with hostile
// thresholds is refused at load, and whole layers run on the (emulated) device.

#include "logits_test_support.h"
#include "session_test_support.h"
#include "synth/synthetic_model.h"
#include "test_support.h"

#include "api/perplexity.h"
#include "gguf/gguf_file.h"
#include "sparse/activation_profile.h"
#include "sparse/sparse_ffn.h"

#include <hearth/convert.h>
#include <hearth/model.h>
#include <hearth/placement.h>
#include <hearth/session.h>

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <cstdint>
#include <cstring>
#include <limits>

using namespace hearth;

namespace {

synth::SynthOptions swigluModel(DType type)
{
    synth::SynthOptions o;
    o.shape = *synth::shapeByName("tiny-256");
    o.shape.layerCount = 3;
    o.type = type;
    o.ffnActivation = "swiglu";
    return o;
}

// The perplexity of @p text under @p path in chunks of @p context tokens.
double perplexityOf(const std::string& path, const std::string& text, int context)
{
    auto model = Model::load(path);
    if (!model)
        return std::numeric_limits<double>::infinity();
    SessionParams params;
    params.contextLength = context;
    params.batchSize = context;
    params.threads = 2;
    params.vramBudgetGiB = 0;
    auto session = Session::create(*model, params);
    if (!session)
        return std::numeric_limits<double>::infinity();
    const std::vector<Token> tokens = (*model)->tokenizer().encode(text, true, false);
    auto result = computePerplexity(**session, tokens, 0, {});
    return result ? result->perplexity : std::numeric_limits<double>::infinity();
}

} // namespace

class TestMagnitudeSparsity : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::string m_dense;

    std::string path(const char* name) const { return m_dir.filePath(QString::fromLatin1(name)).toStdString(); }

    // The gate screen alone (inputSparsity 0), or input-major projections as well.
    SparsifyParams params(const char* output, double sparsity = 0.4, double inputSparsity = 0.0) const
    {
        SparsifyParams p;
        p.input = m_dense;
        p.output = path(output);
        p.threads = 2;
        p.targetSparsity = sparsity;
        p.inputSparsity = inputSparsity;
        p.perplexityBound = 1.0; // a random model's perplexity says little
        return p;
    }

    // Weight bytes a decoded token of @p report's file should read through the sparse kernels,
    // by the shares the report measured on held-out text (tiny-256: input-major everywhere).
    static double expectedBytesPerToken(const std::string& file, const SparsifyReport& report)
    {
        auto f = gguf::GgufFile::open(file);
        if (!f)
            return 0;
        double bytes = 0;
        for (std::size_t l = 0; l < report.layers.size(); ++l) {
            const SparsifyLayerReport& r = report.layers[l];
            const auto size = [&](const char* name) {
                const gguf::TensorInfo* t = (*f)->findTensor("blk." + std::to_string(l) + "." + name);
                return t ? double(t->byteSize) : 0.0;
            };
            bytes += (size("attn_q_t.weight") + size("attn_k_t.weight") + size("attn_v_t.weight")) * r.attentionInputShare
                     + size("attn_output_t.weight") * r.attentionOutputShare
                     + (size("ffn_gate_t.weight") + size("ffn_up_t.weight")) * r.ffnInputShare
                     + size("ffn_down_t.weight") * r.firedShare;
        }
        return bytes;
    }

    QStringList files() const { return QDir(m_dir.path()).entryList(QDir::Files, QDir::Name); }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_dense = path("dense.gguf");
        const Status s = synth::writeSyntheticModel(swigluModel(DType::F32), m_dense);
        QVERIFY2(s.ok(), s.message().c_str());
    }

    void writesThresholdsAndNeuronMajorDown()
    {
        QVERIFY(checkSparsifiable(m_dense).ok());
        auto report = sparsifyModel(params("sparse.gguf"));
        QVERIFY2(report.ok(), report.message().c_str());
        QCOMPARE(report->method, SparsifyMethod::Magnitude);
        QCOMPARE(report->layers.size(), std::size_t(3));
        for (const SparsifyLayerReport& l : report->layers) {
            // About 60% of the activations kept on held-out text, fewer down rows than up rows,
            // and the gate screen lets through about the default 95% of what passes.
            QVERIFY2(l.firedShare > 0.45 && l.firedShare < 0.7, qPrintable(QString::number(l.firedShare)));
            QVERIFY(l.predictedShare >= l.firedShare && l.predictedShare < 1.0);
            QVERIFY2(l.recall > 0.9, qPrintable(QString::number(l.recall)));
            QVERIFY(l.scoreThreshold > 0.0f);
        }
        QVERIFY(report->expectedSpeedup > 1.05);
        QFile out(QString::fromStdString(report->output));
        QVERIFY(out.exists());

        auto file = gguf::GgufFile::open(report->output);
        QVERIFY2(file.ok(), file.message().c_str());
        QCOMPARE((*file)->getString("hearth.sparse.layout").value_or(""), std::string("magnitude"));
        for (int l = 0; l < 3; ++l) {
            const std::string p = "blk." + std::to_string(l) + ".";
            QVERIFY((*file)->findTensor(p + "ffn_down_t.weight"));
            QVERIFY(!(*file)->findTensor(p + "ffn_down.weight"));
            QVERIFY((*file)->findTensor(p + "ffn_gate_threshold"));
            QVERIFY((*file)->findTensor(p + "ffn_act_threshold"));
        }
        // Sparse already: not again.
        QCOMPARE(checkSparsifiable(report->output).code(), ErrorCode::InvalidArgument);

        // Beside it, how often each neuron's activation was kept; the neurons are in the file
        // most kept first, so the hot ones are its first rows.
        QCOMPARE(report->statisticsOutput, sparse::defaultStatsPath(report->output));
        auto stats = sparse::loadStatsFile(report->statisticsOutput);
        QVERIFY2(stats.ok(), stats.message().c_str());
        QCOMPARE(stats->layerCount(), std::size_t(3));
        for (std::size_t l = 0; l < 3; ++l) {
            const std::span<const float> f = stats->layer(l);
            QCOMPARE(f.size(), std::size_t(swigluModel(DType::F32).shape.feedForwardSize));
            QVERIFY(std::is_sorted(f.begin(), f.end(), std::greater<float>()));
            QVERIFY(f.front() > f.back());
            // Their mean is the share of activations kept (the file's calibration text, all of it).
            const double mean = std::accumulate(f.begin(), f.end(), 0.0) / double(f.size());
            QVERIFY2(std::abs(mean - report->layers[l].firedShare / report->layers[l].recall) < 0.1,
                     qPrintable(QStringLiteral("%1 %2").arg(mean).arg(report->layers[l].firedShare)));
        }
        // Reordered, the neurons compute what they did: all of them (the dense mode) give the
        // dense file's logits.
        const std::vector<Token> prompt = test::calibrationPrompt(m_dense, 24);
        const std::vector<float> dense = test::promptLogits(m_dense, prompt, 64);
        const double all = test::relativeRms(test::promptLogits(report->output, prompt, 64, 0, true), dense);
        QVERIFY2(!dense.empty() && all < 1e-5, qPrintable(QString::number(all)));
    }

    // No threshold: the same logits as the dense file, prompt and decode, up to float rounding
    // (the down projection is summed by neuron instead of by output).
    void zeroSparsityGivesTheDenseLogits()
    {
        auto report = sparsifyModel(params("zero.gguf", 0.0));
        QVERIFY2(report.ok(), report.message().c_str());
        const std::vector<Token> prompt = test::calibrationPrompt(m_dense, 24);
        QCOMPARE(prompt.size(), std::size_t(24));
        const std::vector<float> dense = test::promptLogits(m_dense, prompt, 64);
        QVERIFY(!dense.empty());
        const double prefill = test::relativeRms(test::promptLogits(report->output, prompt, 64), dense);
        const double decode = test::relativeRms(test::decodedLogits(report->output, prompt), dense);
        QVERIFY2(prefill < 1e-5 && decode < 1e-5, qPrintable(QStringLiteral("%1 %2").arg(prefill).arg(decode)));
    }

    // The prompt path zeroes what the decode path skips: both give the same logits, in float and
    // in the quantized types (where they differ by the activations' quantization and, in the
    // prompt's down projection, the 8-bit copy of its rows; sparse::DownProjection).
    // A prompt and the same tokens decoded one by one, at each of 96 positions: their logits
    // agree, and both are as far from the file's dense logits (its dense mode, decoded) as
    // each other: decodes are no worse an approximation than the prompts that measure a file's
    // perplexity.
    void promptEqualsDecode_data()
    {
        QTest::addColumn<int>("type");
        QTest::addColumn<double>("tolerance");
        QTest::addColumn<double>("inputSparsity");
        QTest::newRow("f32") << int(DType::F32) << 1e-4 << 0.0;
        QTest::newRow("q8_0") << int(DType::Q8_0) << 4e-2 << 0.0;
        QTest::newRow("q4_0") << int(DType::Q4_0) << 4e-2 << 0.0;
        QTest::newRow("q4_k") << int(DType::Q4_K) << 4e-2 << 0.0;
        QTest::newRow("q6_k") << int(DType::Q6_K) << 4e-2 << 0.0;
        // Input-major products: a prompt and a decode drop the same inputs in float. Quantized,
        // each rounds its products about as Q8_0 rounds a dense product's activations (the
        // prompt's columns, the decode's row factors), which moves a few inputs across their
        // thresholds, each moving the logits as much as thousands of roundings: 0.07-0.13 here,
        // under half of what the sparsity changes (0.30). With 16-bit columns and two bytes of
        // factors it was 0.05-0.08, and the decodes were no closer to the dense logits.
        QTest::newRow("inputs f32") << int(DType::F32) << 1e-3 << 0.4;
        QTest::newRow("inputs q8_0") << int(DType::Q8_0) << 0.2 << 0.4;
        QTest::newRow("inputs q4_0") << int(DType::Q4_0) << 0.2 << 0.4;
        QTest::newRow("inputs q4_k") << int(DType::Q4_K) << 0.2 << 0.4;
    }

    void promptEqualsDecode()
    {
        QFETCH(int, type);
        QFETCH(double, tolerance);
        QFETCH(double, inputSparsity);
        SparsifyParams p = params("typed.gguf", 0.5, inputSparsity);
        p.overwrite = true;
        if (DType(type) != DType::F32) {
            p.input = path("typed-dense.gguf");
            QVERIFY(synth::writeSyntheticModel(swigluModel(DType(type)), p.input).ok());
        }
        auto report = sparsifyModel(p);
        QVERIFY2(report.ok(), report.message().c_str());
        const std::vector<Token> prompt = test::calibrationPrompt(m_dense, 100);
        auto model = Model::load(report->output);
        QVERIFY(model.ok());
        SessionParams params;
        params.kvCache = KvCacheType::F32;
        params.contextLength = 128;
        params.threads = 1;
        params.vramBudgetGiB = 0;
        std::vector<float> prefilled;
        auto prefill = Session::create(*model, params);
        QVERIFY(prefill.ok() && (*prefill)->evaluateAll(prompt, prefilled).ok());
        auto decode = Session::create(*model, params);
        params.denseFfn = true;
        auto dense = Session::create(*model, params);
        QVERIFY(decode.ok() && dense.ok());
        const std::size_t vocab = prefilled.size() / prompt.size();
        double error = 0, decodeChange = 0, promptChange = 0;
        int positions = 0;
        for (std::size_t i = 0; i < prompt.size(); ++i) {
            for (Session* s : {decode->get(), dense->get()})
                QVERIFY(i == 0 ? s->prefill(std::span<const Token>(prompt.data(), 1)).ok() : s->decode(prompt[i]).ok());
            if (i < 4)
                continue; // the first tokens, whose logits barely depend on the rest
            const std::vector<float> decoded((*decode)->logits().begin(), (*decode)->logits().end());
            const std::vector<float> reference((*dense)->logits().begin(), (*dense)->logits().end());
            const std::vector<float> prompted(prefilled.begin() + std::ptrdiff_t(i * vocab),
                                              prefilled.begin() + std::ptrdiff_t((i + 1) * vocab));
            error += test::relativeRms(decoded, prompted);
            decodeChange += test::relativeRms(decoded, reference);
            promptChange += test::relativeRms(prompted, reference);
            ++positions;
        }
        error /= positions;
        decodeChange /= positions;
        promptChange /= positions;
        const QString numbers = QStringLiteral("prompt against decode %1, dense against decode %2, against prompt %3")
                                    .arg(error).arg(decodeChange).arg(promptChange);
        QVERIFY2(error < tolerance, qPrintable(numbers));
        QVERIFY2(std::fabs(decodeChange - promptChange) < 0.05 * promptChange, qPrintable(numbers));
        // And sparsity changed something: the dense mode differs more.
        QVERIFY2(decodeChange > 2 * error, qPrintable(numbers));
    }

    // A decoded token reads the up rows of the neurons its gate lets through and the down rows of
    // the activations it keeps: about the shares the report measured on held-out text.
    void decodeReadsOnlyWhatItKeeps()
    {
        auto report = sparsifyModel(params("traffic.gguf", 0.5));
        QVERIFY2(report.ok(), report.message().c_str());
        double up = 0, down = 0;
        for (const SparsifyLayerReport& l : report->layers) {
            up += l.predictedShare / 3.0;
            down += l.firedShare / 3.0;
        }
        const std::vector<Token> prompt = test::calibrationPrompt(m_dense, 64);
        sparse::resetFfnTraffic();
        QVERIFY(!test::decodedLogits(report->output, prompt).empty());
        const sparse::FfnTraffic t = sparse::ffnTraffic();
        const double calls = double(t.calls);
        QCOMPARE(t.calls, std::uint64_t(3 * 64)); // every layer of every token, the first included
        const double nFf = 768; // tiny-256
        const double readUp = double(t.neurons) / (calls * nFf);
        const double readDown = double(t.downRows) / (calls * nFf);
        QVERIFY2(std::fabs(readUp - up) < 0.1 && std::fabs(readDown - down) < 0.1,
                 qPrintable(QStringLiteral("up %1 (report %2), down %3 (report %4)").arg(readUp).arg(up).arg(readDown).arg(down)));
        QVERIFY(readDown < readUp);
    }

    // Input sparsity: q/k/v, the attention's output and gate/up are stored input-major with a
    // threshold per input, in place of the row-major tensors and of the gate screen.
    void inputSparsityWritesInputMajorProjections()
    {
        auto screened = sparsifyModel(params("screened.gguf", 0.4));
        QVERIFY2(screened.ok(), screened.message().c_str());
        auto report = sparsifyModel(params("inputs.gguf", 0.4, 0.4));
        QVERIFY2(report.ok(), report.message().c_str());
        QCOMPARE(report->inputSparsity, 0.4);
        QCOMPARE(screened->inputSparsity, 0.0);
        for (const SparsifyLayerReport& l : report->layers) {
            for (const double share : {l.attentionInputShare, l.attentionOutputShare, l.ffnInputShare})
                QVERIFY2(share > 0.5 && share < 0.7, qPrintable(QString::number(share)));
            QCOMPARE(l.predictedShare, 1.0); // no screen: every neuron of the kept inputs
            QVERIFY2(l.firedShare > 0.5 && l.firedShare < 0.7, qPrintable(QString::number(l.firedShare)));
        }
        QVERIFY2(report->expectedSpeedup > screened->expectedSpeedup + 0.2,
                 qPrintable(QStringLiteral("%1 against %2").arg(report->expectedSpeedup).arg(screened->expectedSpeedup)));
        auto file = gguf::GgufFile::open(report->output);
        QVERIFY2(file.ok(), file.message().c_str());
        for (int l = 0; l < 3; ++l) {
            const std::string p = "blk." + std::to_string(l) + ".";
            for (const char* name : {"attn_q_t.weight", "attn_k_t.weight", "attn_v_t.weight", "attn_output_t.weight",
                                     "ffn_gate_t.weight", "ffn_up_t.weight", "ffn_down_t.weight", "attn_input_threshold",
                                     "attn_output_threshold", "ffn_input_threshold", "ffn_act_threshold"})
                QVERIFY2((*file)->findTensor(p + name), name);
            for (const char* name : {"attn_q.weight", "attn_output.weight", "ffn_gate.weight", "ffn_up.weight",
                                     "ffn_gate_threshold"})
                QVERIFY2(!(*file)->findTensor(p + name), name);
        }
        auto model = Model::load(report->output);
        QVERIFY2(model.ok(), model.message().c_str());
        QVERIFY((*model)->info().magnitudeSparse);
    }

    // Its dense mode computes every input through the input-major products: the dense logits.
    void inputMajorDenseModeGivesTheDenseLogits()
    {
        auto report = sparsifyModel(params("inputs-dense.gguf", 0.4, 0.4));
        QVERIFY2(report.ok(), report.message().c_str());
        const std::vector<Token> prompt = test::calibrationPrompt(m_dense, 24);
        const std::vector<float> dense = test::decodedLogits(m_dense, prompt);
        const double decode = test::relativeRms(test::decodedLogits(report->output, prompt, 128, true), dense);
        QVERIFY2(decode < 1e-5, qPrintable(QString::number(decode)));
        // Sparse, it drops inputs: the logits move.
        const double sparse = test::relativeRms(test::decodedLogits(report->output, prompt), dense);
        QVERIFY2(sparse > 1e-3, qPrintable(QString::number(sparse)));
    }

    // Without neurons to place by (input sparsity, or a gate-screen file without its statistics)
    // whole layers go to the device under a VRAM budget, as for a dense file: it multiplies the
    // neuron-major and input-major matrices transposed and computes every neuron and input. With
    // every layer there a conversation's logits are those of the file's dense mode on the CPU;
    // with some there, the device's layers are dense and the CPU's sparse, and a prompt still
    // computes what its decoded tokens would.
    void deviceLayersComputeEveryNeuron_data()
    {
        QTest::addColumn<double>("inputSparsity");
        QTest::newRow("gate screen, no statistics") << 0.0;
        QTest::newRow("input-major") << 0.4;
    }

    void deviceLayersComputeEveryNeuron()
    {
        QFETCH(double, inputSparsity);
        SparsifyParams p = params("device.gguf", 0.5, inputSparsity);
        p.overwrite = true;
        auto report = sparsifyModel(p);
        QVERIFY2(report.ok(), report.message().c_str());
        if (!report->statisticsOutput.empty())
            QVERIFY(QFile::remove(QString::fromStdString(report->statisticsOutput)));
        auto placement = PlacementModel::fromFile(report->output);
        QVERIFY2(placement.ok(), placement.message().c_str());
        QVERIFY(placement->magnitudeSparse() && !placement->sparseCapable());
        auto model = Model::load(report->output);
        QVERIFY2(model.ok(), model.message().c_str());
        const auto sessionParams = [](const std::string& device, bool denseFfn = false) {
            SessionParams sp = test::deviceSessionParams(device, device.empty() ? 0 : -1, 40, 4);
            sp.denseFfn = denseFfn;
            return sp;
        };
        auto cpu = Session::create(*model, sessionParams({}, true));
        QVERIFY(cpu.ok());
        const auto expected = test::converse(**cpu, 11);
        QCOMPARE(expected.size(), std::size_t(14));

        auto all = Session::create(*model, sessionParams("emulated:1073741824"));
        QVERIFY(all.ok());
        QVERIFY2(test::offloadedLayers((*all)->placementReport()) == 3, (*all)->placementReport().c_str());
        const auto run = test::converse(**all, 11);
        QCOMPARE(run.size(), expected.size());
        for (std::size_t i = 0; i < run.size(); ++i) {
            const double error = test::relativeError(expected[i], run[i]);
            QVERIFY2(error < 1e-4, qPrintable(QStringLiteral("step %1: %2").arg(i).arg(error)));
        }

        // Budgets growing by a quarter until one holds some layers but not all.
        std::string device;
        for (std::uint64_t bytes = 64 * 1024; bytes < (std::uint64_t(1) << 28) && device.empty(); bytes += bytes / 4) {
            auto session = Session::create(*model, sessionParams("emulated:" + std::to_string(bytes)));
            QVERIFY(session.ok());
            const int k = test::offloadedLayers((*session)->placementReport());
            if (k > 0 && k < 3)
                device = "emulated:" + std::to_string(bytes);
        }
        QVERIFY(!device.empty());
        const std::vector<Token> prompt = test::conversationPrompt(11, 1);
        const std::vector<float> prefilled = test::promptLogits(*model, sessionParams(device), prompt);
        auto decoding = Session::create(*model, sessionParams(device));
        QVERIFY(decoding.ok() && (*decoding)->prefill(std::span<const Token>(prompt.data(), 1)).ok());
        for (std::size_t i = 1; i < prompt.size(); ++i)
            QVERIFY((*decoding)->decode(prompt[i]).ok());
        const double error = test::relativeError(prefilled, (*decoding)->logits());
        QVERIFY2(error < 1e-4, qPrintable(QString::number(error)));
        // Both parts count: the logits are neither the CPU's sparse ones nor the dense ones.
        const std::vector<float> sparse = test::promptLogits(*model, sessionParams({}), prompt);
        const std::vector<float> dense = test::promptLogits(*model, sessionParams({}, true), prompt);
        QVERIFY(test::relativeError(sparse, prefilled) > 1e-3);
        QVERIFY(test::relativeError(dense, prefilled) > 1e-3);
    }

    // With the statistics beside it, a gate-screen file goes to the device by neuron: each
    // layer's most kept neurons (its first rows) with their floors, while the CPU screens the
    // rest. Whatever the budget, a conversation's logits are the CPU's: exactly in floats; in the
    // block types the device's products (whole matrices, rows added in float) round otherwise
    // than the CPU's per-neuron kernels and columns, and a neuron within that rounding of its
    // floor may go either way (4e-2, as promptEqualsDecode allows the CPU's own prompt and
    // decode paths, which differ in the same way).
    void hotNeuronsOnTheDeviceGiveTheCpuLogits_data()
    {
        QTest::addColumn<int>("type");
        for (const DType t : {DType::F32, DType::Q4_0, DType::Q4_K})
            QTest::newRow(dtypeName(t).data()) << int(t);
    }

    void hotNeuronsOnTheDeviceGiveTheCpuLogits()
    {
        QFETCH(int, type);
        SparsifyParams p = params("hot.gguf", 0.5);
        p.overwrite = true;
        if (DType(type) != DType::F32) {
            p.input = path("hot-dense.gguf");
            QVERIFY(synth::writeSyntheticModel(swigluModel(DType(type)), p.input).ok());
        }
        auto report = sparsifyModel(p);
        QVERIFY2(report.ok(), report.message().c_str());
        QVERIFY(!report->statisticsOutput.empty());
        // The VRAM panel plans it by neuron too.
        auto placement = PlacementModel::fromFile(report->output);
        QVERIFY2(placement.ok(), placement.message().c_str());
        QVERIFY(placement->magnitudeSparse() && placement->sparseCapable());
        PlacementRequest request;
        request.emulatedDevice = true;
        request.contextLength = 40;
        request.batchSize = 4;
        bool plannedSome = false;
        for (request.budgetBytes = 64 * 1024; request.budgetBytes < (std::uint64_t(1) << 30) && !plannedSome;
             request.budgetBytes += request.budgetBytes / 2) {
            auto planned = placement->plan(request);
            QVERIFY2(planned.ok(), planned.message().c_str());
            plannedSome = planned->hotNeuronCount() > 0 && planned->hotNeuronCount() < planned->neuronCount();
        }
        QVERIFY(plannedSome);

        auto model = Model::load(report->output);
        QVERIFY2(model.ok(), model.message().c_str());
        const auto sessionParams = [](const std::string& device) {
            return test::deviceSessionParams(device, device.empty() ? 0 : -1, 40, 4);
        };
        auto cpu = Session::create(*model, sessionParams({}));
        QVERIFY(cpu.ok());
        const auto expected = test::converse(**cpu, 11);
        QCOMPARE(expected.size(), std::size_t(14));

        // Budgets growing by a half, from nothing on the device to every neuron there.
        int partial = 0;
        bool everyNeuron = false;
        for (std::uint64_t bytes = 64 * 1024; bytes < (std::uint64_t(1) << 30) && !everyNeuron; bytes += bytes / 2) {
            auto session = Session::create(*model, sessionParams("emulated:" + std::to_string(bytes)));
            QVERIFY(session.ok());
            const SessionPlacement placed = (*session)->placement();
            if (placed.hotNeurons == 0)
                continue;
            QVERIFY2(test::offloadedLayers((*session)->placementReport()) < 1, (*session)->placementReport().c_str());
            everyNeuron = placed.hotNeurons == placed.neurons;
            partial += everyNeuron ? 0 : 1;
            const auto run = test::converse(**session, 11);
            QCOMPARE(run.size(), expected.size());
            const double tolerance = DType(type) == DType::F32 ? 1e-4 : 4e-2;
            for (std::size_t i = 0; i < run.size(); ++i) {
                const double error = test::relativeError(expected[i], run[i]);
                QVERIFY2(error < tolerance, qPrintable(QStringLiteral("%1 hot, step %2: %3").arg(placed.hotNeurons).arg(i).arg(error)));
            }
        }
        QVERIFY(partial > 0);
        QVERIFY(everyNeuron);
    }

    // A decoded token reads the rows of the inputs it keeps: about the bytes the report promised.
    void inputSparseDecodeReadsOnlyWhatItKeeps()
    {
        auto report = sparsifyModel(params("inputs-traffic.gguf", 0.5, 0.5));
        QVERIFY2(report.ok(), report.message().c_str());
        const std::vector<Token> prompt = test::calibrationPrompt(m_dense, 64);
        sparse::resetFfnTraffic();
        QVERIFY(!test::decodedLogits(report->output, prompt).empty());
        const double read = double(sparse::ffnTraffic().bytes) / 64.0;
        const double expected = expectedBytesPerToken(report->output, *report);
        QVERIFY(expected > 0);
        QVERIFY2(std::fabs(read / expected - 1.0) < 0.15, qPrintable(QStringLiteral("%1 against %2").arg(read).arg(expected)));
        // Dense mode reads them all.
        auto file = gguf::GgufFile::open(report->output);
        QVERIFY(file.ok());
        sparse::resetFfnTraffic();
        QVERIFY(!test::decodedLogits(report->output, prompt, 128, true).empty());
        QVERIFY(double(sparse::ffnTraffic().bytes) / 64.0 > 1.6 * read);
    }

    void deterministicForAnyThreadCount()
    {
        SparsifyParams one = params("one.gguf");
        one.threads = 1;
        SparsifyParams two = params("two.gguf");
        QVERIFY(sparsifyModel(one).ok());
        QVERIFY(sparsifyModel(two).ok());
        QCOMPARE(test::fileSha256(one.output), test::fileSha256(two.output));
        one.inputSparsity = two.inputSparsity = 0.4;
        one.overwrite = two.overwrite = true;
        QVERIFY(sparsifyModel(one).ok());
        QVERIFY(sparsifyModel(two).ok());
        QCOMPARE(test::fileSha256(one.output), test::fileSha256(two.output));
    }

    void cancelledLeavesNothing_data()
    {
        QTest::addColumn<float>("at");
        QTest::addColumn<double>("inputSparsity");
        QTest::newRow("recording") << 0.1f << 0.0;
        QTest::newRow("second pass") << 0.4f << 0.0;
        QTest::newRow("writing") << 0.7f << 0.0;
        QTest::newRow("checking") << 0.9f << 0.0;
        QTest::newRow("inputs: recording") << 0.3f << 0.4;
        QTest::newRow("inputs: writing") << 0.7f << 0.4;
    }

    void cancelledLeavesNothing()
    {
        QFETCH(float, at);
        QFETCH(double, inputSparsity);
        const QStringList before = files();
        SparsifyParams p = params("cancelled.gguf", 0.4, inputSparsity);
        p.progress = [at](float f) { return f < at; };
        auto report = sparsifyModel(p);
        QCOMPARE(report.code(), ErrorCode::Cancelled);
        QCOMPARE(files(), before);
    }

    void refusesBadTargets()
    {
        SparsifyParams p = params("bad.gguf", 1.0);
        QCOMPARE(sparsifyModel(p).code(), ErrorCode::InvalidArgument);
        p.targetSparsity = -0.1;
        QCOMPARE(sparsifyModel(p).code(), ErrorCode::InvalidArgument);
        // GeGLU (Gemma) is neither ReLU nor SwiGLU.
        synth::SynthOptions o;
        o.architecture = "gemma2";
        o.shape = *synth::shapeByName("gemma2-tiny");
        o.type = DType::F32;
        o.ffnActivation = "geglu";
        const std::string gemma = path("gemma.gguf");
        QVERIFY(synth::writeSyntheticModel(o, gemma).ok());
        const Status refused = checkSparsifiable(gemma);
        QCOMPARE(refused.code(), ErrorCode::Unsupported);
        QVERIFY2(refused.message().find("geglu") != std::string::npos, refused.message().c_str());
        // IQ4_XS up rows: the neuron kernels do not read them.
        const std::string unread = path("iq4xs.gguf");
        QVERIFY(synth::writeSyntheticModel(swigluModel(DType::IQ4_XS), unread).ok());
        QCOMPARE(checkSparsifiable(unread).code(), ErrorCode::Unsupported);
        QFile::remove(QString::fromStdString(gemma));
        QFile::remove(QString::fromStdString(unread));
    }

    // Thresholds that are negative or NaN would skip or keep at random: the file is refused.
    void hostileThresholdsAreRefused_data()
    {
        QTest::addColumn<QString>("tensor");
        QTest::addColumn<double>("inputSparsity");
        QTest::newRow("activation") << QStringLiteral("ffn_act_threshold") << 0.0;
        QTest::newRow("attention input") << QStringLiteral("attn_input_threshold") << 0.4;
        QTest::newRow("attention output") << QStringLiteral("attn_output_threshold") << 0.4;
        QTest::newRow("ffn input") << QStringLiteral("ffn_input_threshold") << 0.4;
    }

    void hostileThresholdsAreRefused()
    {
        QFETCH(QString, tensor);
        QFETCH(double, inputSparsity);
        SparsifyParams source = params("hostile-source.gguf", 0.4, inputSparsity);
        source.overwrite = true;
        auto report = sparsifyModel(source);
        QVERIFY2(report.ok(), report.message().c_str());
        const std::string name = tensor.toStdString();
        for (const float bad : {-1.0f, std::numeric_limits<float>::quiet_NaN()}) {
            const std::string hostile = path("hostile.gguf");
            QFile::remove(QString::fromStdString(hostile));
            QVERIFY(QFile::copy(QString::fromStdString(report->output), QString::fromStdString(hostile)));
            std::size_t offset = 0;
            {
                auto file = gguf::GgufFile::open(hostile);
                QVERIFY(file.ok());
                const gguf::TensorInfo* t = (*file)->findTensor("blk.1." + name);
                QVERIFY(t);
                offset = std::size_t(t->data - (*file)->bytes().data()) + 12;
            }
            QFile f(QString::fromStdString(hostile));
            QVERIFY(f.open(QIODevice::ReadWrite));
            QVERIFY(f.seek(qint64(offset)));
            f.write(reinterpret_cast<const char*>(&bad), sizeof bad);
            f.close();
            auto model = Model::load(hostile);
            QCOMPARE(model.code(), ErrorCode::InvalidFile);
            QVERIFY2(model.message().find(name) != std::string::npos, model.message().c_str());
        }
    }

    // Without input sparsity the table shows the gate screen's recall and the up rows; with it,
    // the inputs kept.
    void toolPrintsTheReport_data()
    {
        QTest::addColumn<QStringList>("extra");
        QTest::addColumn<QString>("header");
        QTest::newRow("screen") << QStringList{} << QStringLiteral("layer  threshold  recall  up rows  down rows");
        QTest::newRow("inputs") << QStringList{QStringLiteral("--input-sparsity"), QStringLiteral("0.2")}
                                << QStringLiteral("layer  threshold  q/k/v inputs  output inputs  gate/up inputs  down rows");
    }

    void toolPrintsTheReport()
    {
        QFETCH(QStringList, extra);
        QFETCH(QString, header);
        QProcess run;
        run.start(QStringLiteral(HEARTH_SPARSIFY_TOOL),
                  QStringList{QStringLiteral("-m"), QString::fromStdString(m_dense), QStringLiteral("-o"),
                              QString::fromStdString(path("tool.gguf")), QStringLiteral("-q"), QStringLiteral("--overwrite"),
                              QStringLiteral("--target-sparsity"), QStringLiteral("0.3"),
                              QStringLiteral("--max-perplexity-increase"), QStringLiteral("100")}
                      + extra);
        QVERIFY(run.waitForFinished(120000));
        const QString out = QString::fromUtf8(run.readAllStandardOutput());
        QVERIFY2(run.exitCode() == 0, qPrintable(QString::fromUtf8(run.readAllStandardError())));
        QVERIFY2(out.contains(header), qPrintable(out));
        QVERIFY2(out.contains(QStringLiteral("held-out perplexity")), qPrintable(out));
        QVERIFY(QFile::exists(QString::fromStdString(path("tool.gguf"))));
    }

    // The real stories260K (SwiGLU, trained): calibrated on the built-in text, 40% of its
    // activations dropped cost at most 5% perplexity on its own perplexity text, and at 0% its
    // logits are the reference ones.
    void realModelKeepsItsPerplexity()
    {
        HEARTH_REQUIRE_SHARED(model, "models/stories260K.gguf");
        HEARTH_REQUIRE_SHARED(textPath, "models/stories260K.ppl-text.txt");
        QFile textFile(textPath);
        QVERIFY(textFile.open(QIODevice::ReadOnly));
        const std::string text = textFile.readAll().toStdString();

        SparsifyParams p;
        p.input = model.toStdString();
        p.output = path("stories-40.gguf");
        p.threads = 2;
        p.targetSparsity = 0.4;
        p.inputSparsity = 0.0; // the FFN's activations alone, counted by the sparse FFN below
        auto report = sparsifyModel(p);
        QVERIFY2(report.ok(), report.message().c_str());
        const double dense = perplexityOf(p.input, text, 256);
        const double sparse = perplexityOf(p.output, text, 256);
        QVERIFY2(sparse <= 1.05 * dense, qPrintable(QStringLiteral("%1 against %2").arg(sparse).arg(dense)));
        QVERIFY(sparse > dense); // something was dropped

        // The sparsity holds on that text too: decoding it drops about 40% of the activations.
        auto loaded = Model::load(p.output);
        QVERIFY(loaded.ok());
        std::vector<Token> tokens = (*loaded)->tokenizer().encode(text, true, false);
        tokens.resize(200);
        sparse::resetFfnTraffic();
        QVERIFY(!test::decodedLogits(p.output, tokens, 256).empty());
        const sparse::FfnTraffic t = sparse::ffnTraffic();
        const double kept = double(t.downRows) / (double(t.calls) * 172.0);
        QVERIFY2(kept > 0.5 && kept < 0.7, qPrintable(QString::number(kept)));

        // With 20 % of the inputs dropped as well it stays within the bound, reading less.
        p.output = path("stories-inputs.gguf");
        p.inputSparsity = 0.2;
        auto inputs = sparsifyModel(p);
        QVERIFY2(inputs.ok(), inputs.message().c_str());
        QCOMPARE(inputs->inputSparsity, 0.2);
        QVERIFY(inputs->expectedSpeedup > report->expectedSpeedup);
        const double withInputs = perplexityOf(p.output, text, 256);
        QVERIFY2(withInputs <= 1.05 * dense, qPrintable(QStringLiteral("%1 against %2").arg(withInputs).arg(dense)));

        p.output = path("stories-0.gguf");
        p.targetSparsity = 0.0;
        p.inputSparsity = 0.0;
        QVERIFY(sparsifyModel(p).ok());
        const std::vector<Token> prompt(tokens.begin(), tokens.begin() + 64);
        const double error = test::relativeRms(test::promptLogits(p.output, prompt, 128), test::promptLogits(p.input, prompt, 128));
        QVERIFY2(error < 1e-5, qPrintable(QString::number(error)));
    }

    // A result worse than the bound is refused with the numbers, and nothing is kept.
    void refusesAResultWorseThanTheBound()
    {
        HEARTH_REQUIRE_SHARED(model, "models/stories260K.gguf");
        const QStringList before = files();
        SparsifyParams p;
        p.input = model.toStdString();
        p.output = path("worse.gguf");
        p.targetSparsity = 0.9;
        p.perplexityBound = 0.0;
        auto report = sparsifyModel(p);
        QCOMPARE(report.code(), ErrorCode::QualityTooLow);
        QVERIFY2(report.message().find("perplexity") != std::string::npos, report.message().c_str());
        QVERIFY2(report.message().find("lower target sparsity") != std::string::npos, report.message().c_str());
        QCOMPARE(files(), before);
    }
};

QTEST_GUILESS_MAIN(TestMagnitudeSparsity)
#include "tst_magnitude_sparsity.moc"
