// SPDX-License-Identifier: MIT
// Whole-layer offload of plain dense files in sessions, with the emulated device standing in for
// a GPU: the first layers that fit run on the device (prompt and decoded tokens), and the
// logits equal the CPU-only ones whatever the budget; the KV cache stays consistent across
// truncation and a full context; the report says how many layers went where, or why none did.

#include "api/dense_offload_session.h"
#include "session_test_support.h"
#include "device/emulated_device.h"
#include "model/llama_forward.h"
#include "model/llama_model.h"
#include "synth/model_shape.h"
#include "synth/synthetic_model.h"

#include <hearth/model.h>
#include <hearth/session.h>

#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

using namespace hearth;
using hearth::test::relativeError;

namespace {

constexpr int kLayers = 4;
constexpr int kPromptTokens = 11; // more than one batch of params().batchSize

} // namespace

class TestSessionOffload : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::shared_ptr<const Model> m_f16;
    std::vector<std::vector<float>> m_reference; // CPU only

    std::shared_ptr<const Model> writeModel(DType type)
    {
        synth::SynthOptions o;
        o.shape = *synth::shapeByName(weightBlockElements(type) == 256 ? "tiny-256" : "tiny");
        o.shape.layerCount = kLayers;
        o.shape.vocabSize = 300;
        o.type = type;
        o.seed = 11;
        const std::string path =
            m_dir.filePath(QStringLiteral("dense-%1.gguf").arg(QString::fromLatin1(dtypeName(type)))).toStdString();
        const Status st = synth::writeSyntheticModel(o, path);
        if (!st.ok()) {
            qWarning("%s", st.message().c_str());
            return nullptr;
        }
        auto model = Model::load(path);
        if (!model) {
            qWarning("%s", model.message().c_str());
            return nullptr;
        }
        return *model;
    }

    static SessionParams params(const std::string& device, double budgetGiB = -1)
    {
        return test::deviceSessionParams(device, budgetGiB, 40, 4);
    }

    // Runs the conversation and checks it against @p reference; returns the placement report.
    static std::string check(const std::shared_ptr<const Model>& model, const SessionParams& p,
                             const std::vector<std::vector<float>>& reference, double tolerance = 1e-4)
    {
        auto session = Session::create(model, p);
        if (!session) {
            qWarning("%s", session.message().c_str());
            return {};
        }
        const std::string report = (*session)->placementReport();
        qInfo("%s", report.c_str());
        const auto run = test::converse(**session, kPromptTokens);
        if (run.size() != reference.size()) {
            qWarning("the conversation stopped after %zu of %zu steps", run.size(), reference.size());
            return {};
        }
        double worst = 0;
        for (std::size_t i = 0; i < run.size(); ++i) {
            const double err = relativeError(reference[i], run[i]);
            worst = std::max(worst, err);
            if (err > tolerance) {
                qWarning("logits of step %zu differ by %g (relative)", i, err);
                return {};
            }
        }
        qInfo("largest relative difference from the CPU: %g", worst);
        return report;
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_f16 = writeModel(DType::F16);
        QVERIFY(m_f16);
        auto cpu = Session::create(m_f16, params("", 0));
        QVERIFY(cpu.ok());
        m_reference = test::converse(**cpu, kPromptTokens);
        QCOMPARE(int(m_reference.size()), 14);
    }

    void zeroBudgetRunsOnTheCpu()
    {
        const std::string report = check(m_f16, params("emulated:1073741824", 0), m_reference);
        QVERIFY2(report.starts_with("CPU only: ") && report.find("budget is 0") != std::string::npos, report.c_str());
    }

    void everyLayerFits()
    {
        const std::string report = check(m_f16, params("emulated:1073741824"), m_reference);
        QVERIFY2(report.starts_with("GPU Hearth emulated device: "), report.c_str());
        QCOMPARE(test::offloadedLayers(report), kLayers);
        QVERIFY2(report.find("rest run on the CPU") == std::string::npos, report.c_str());
        // Then the output head: the logits the reference compares came from the device.
        QVERIFY2(report.find("and the output head") != std::string::npos, report.c_str());
    }

    void someLayersFit()
    {
        // Budgets growing by a quarter from 64 KiB: each count of layers shows up at some point.
        std::vector<bool> seen(kLayers + 1, false);
        for (std::uint64_t bytes = 64 * 1024; bytes < (std::uint64_t(1) << 28); bytes += bytes / 4) {
            auto session = Session::create(m_f16, params("emulated:" + std::to_string(bytes)));
            QVERIFY(session.ok());
            const std::string report = (*session)->placementReport();
            const int k = std::max(0, test::offloadedLayers(report));
            if (seen[std::size_t(k)])
                continue;
            seen[std::size_t(k)] = true;
            if (k == 0) {
                QVERIFY2(report.starts_with("CPU only: ") && report.find("holds no whole layer") != std::string::npos,
                         report.c_str());
            } else if (k < kLayers) {
                QVERIFY2(report.find("the rest run on the CPU: layer " + std::to_string(k) + " does not fit")
                             != std::string::npos,
                         report.c_str());
                // The planner places the output head after every layer only.
                QVERIFY2(report.find("output head") == std::string::npos, report.c_str());
            }
            const std::string checked = check(m_f16, params("emulated:" + std::to_string(bytes)), m_reference);
            QVERIFY2(checked == report, qPrintable(QStringLiteral("budget %1 bytes").arg(bytes)));
        }
        QVERIFY(std::all_of(seen.begin(), seen.end(), [](bool s) { return s; }));
    }

    void budgetBelowOneLayer()
    {
        const std::string report = check(m_f16, params("emulated:65536"), m_reference);
        QVERIFY2(report.starts_with("CPU only: a budget of 64.00 KiB") && report.find("holds no whole layer") != std::string::npos,
                 report.c_str());
    }

    void deviceWithLessMemoryThanPromised()
    {
        // The budget claims 1 GiB; allocations past 300 KiB fail as on a GPU that lied about its
        // free memory. The layers that were placed stay; the rest run on the CPU.
        const std::string report = check(m_f16, params("emulated:1073741824:307200"), m_reference);
        const int k = test::offloadedLayers(report);
        QVERIFY2(k > 0 && k < kLayers, report.c_str());
        QVERIFY2(report.find("out of memory") != std::string::npos, report.c_str());
    }

    void quantizedLayers_data()
    {
        QTest::addColumn<int>("type");
        QTest::newRow("Q4_0") << int(DType::Q4_0);
        QTest::newRow("Q4_K") << int(DType::Q4_K); // the device reads K-quant rows too
        QTest::newRow("Q6_K") << int(DType::Q6_K);
        // Q3_K_M's and IQ4_XS's main types, a legacy one and BF16: every CPU type goes to the device.
        QTest::newRow("Q3_K") << int(DType::Q3_K);
        QTest::newRow("IQ4_XS") << int(DType::IQ4_XS);
        QTest::newRow("Q5_0") << int(DType::Q5_0);
        QTest::newRow("BF16") << int(DType::BF16);
    }

    void quantizedLayers()
    {
        QFETCH(int, type);
        auto model = writeModel(DType(type));
        QVERIFY(model);
        auto cpu = Session::create(model, params("", 0));
        QVERIFY(cpu.ok());
        const auto reference = test::converse(**cpu, kPromptTokens);
        // The CPU multiplies Q4_0, K-quant and IQ4_XS weights from interleaved copies
        // (cpu/weight_pack.h), the device from the file's rows: sums differ in the last bit, and
        // the activations' Q8 rounding can turn that into a visible step now and then (IQ4_XS's
        // wide levels the most: 0.023 here). Hence hearth-gpu-check's bound for quantized types.
        const std::string report = check(model, params("emulated:1073741824"), reference, 3e-2);
        QCOMPARE(test::offloadedLayers(report), kLayers);
    }

    void deviceFailureHandsLayersBack()
    {
        // A device that fails in the middle of a conversation: the failed batch and everything
        // after run on the CPU from the mirrored KV rows, and no logit changes beyond the order
        // of sums: the CPU decodes F16 rows by integer widening (cpu/f16_widen.h) and scores a
        // prompt's queries together (attendHead), the device converts halves and attends token
        // by token. A lost or stale K/V row would move the logits by far more than 1e-5.
        const auto* llama = dynamic_cast<const model::LlamaModel*>(m_f16.get());
        QVERIFY(llama);
        auto cpu = model::LlamaForward::create(*llama, 40, 4, 2);
        auto mixed = model::LlamaForward::create(*llama, 40, 4, 2);
        QVERIFY(cpu && mixed);
        auto owned = std::make_unique<device::EmulatedDevice>();
        device::EmulatedDevice* dev = owned.get();
        std::string report;
        auto offload = DenseOffloadSession::create(*llama, std::move(owned), 40, 4, false, report);
        QVERIFY2(offload, report.c_str());
        QCOMPARE(offload->wholeLayers(), kLayers);
        (*mixed)->setLayerOffload(offload.get());

        std::vector<float> want(300), got(300);
        const auto step = [&](const std::vector<Token>& tokens, int start) {
            (*cpu)->forward(tokens.data(), int(tokens.size()), start, want.data(), false);
            (*mixed)->forward(tokens.data(), int(tokens.size()), start, got.data(), false);
            return relativeError(want, got);
        };
        constexpr double kSumOrder = 1e-5;
        QVERIFY(step({5, 6, 7, 8}, 0) < kSumOrder);
        QVERIFY(step({9}, 4) < kSumOrder);
        dev->injectOperationFailures(3);
        QVERIFY(step({10, 11}, 5) < kSumOrder);
        QCOMPARE(offload->wholeLayers(), 0);
        QVERIFY2(offload->report().find("the device failed") != std::string::npos, offload->report().c_str());
        QVERIFY(step({12}, 7) < kSumOrder);
        QVERIFY(step({13, 14, 15}, 3) < kSumOrder); // rewind over positions the device computed
    }

    void noDeviceModule()
    {
        // Automatic budget with no GPU here: the session says why it runs on the CPU.
        SessionParams p = params("");
        auto session = Session::create(m_f16, p);
        QVERIFY(session.ok());
        const std::string report = (*session)->placementReport();
        QVERIFY2(report.starts_with("CPU only: ") || report.starts_with("GPU "), report.c_str());
    }
};

QTEST_GUILESS_MAIN(TestSessionOffload)
#include "tst_session_offload.moc"
