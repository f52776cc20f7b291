// SPDX-License-Identifier: MIT
// Apply in the VRAM panel, end to end below the QML: ChatController places the running model
// again for a new budget on the engine thread (the emulated device stands in for a GPU), the
// placement report changes, the conversation and its history stay and the chat continues; the
// budget the panel remembered for a model is used whenever that model is loaded.

#include "app_settings.h"
#include "chat_with_session.h"
#include "chatstore.h"
#include "placementpreview.h"

#include "gpuinfo.h"
#include "synth/model_shape.h"
#include "synth/synthetic_model.h"
#include "synth/synthetic_sparse.h"

#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using hearth::app::AppSettings;
using hearth::app::ChatController;
using hearth::app::ModelSession;
using hearth::models::PlacementPreview;

namespace {
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
// The emulated device: 1 GiB, far more than the tiny model needs.
const QString kDevice = QStringLiteral("emulated:1073741824");
// Just above the emulated device's fixed costs (3 MiB); the tiny model's hot neurons still fit.
constexpr double kSmallBudget = 3460300; // about 3.3 MiB

/// Where the neurons went: the report's first part, without the notes that follow it (such as the
/// cached GPU index being recomputed after a budget change).
QString placement(const QString& report)
{
    return report.section(QStringLiteral("; "), 0, 0);
}
} // namespace

class TestReplaceBudget : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_model;
    std::unique_ptr<AppSettings> m_settings;
    std::unique_ptr<ChatController> m_chat;

    QString iniPath() const { return m_dir.filePath(QStringLiteral("settings.ini")); }

    std::unique_ptr<ChatController> newController()
    {
        auto chat = std::make_unique<hearth::test::ChatWithSession>();
        chat->session()->setSettings(m_settings.get());
        chat->setSettings(m_settings.get());
        chat->session()->setDeviceOverride(kDevice);
        return chat;
    }

    static bool waitReady(ChatController* chat)
    {
        return QTest::qWaitFor([chat] { return chat->session()->state() == ModelSession::State::Ready; }, 60000);
    }

    static bool answer(ChatController* chat, const QString& text)
    {
        QSignalSpy completed(chat, &ChatController::answerCompleted);
        chat->send(text);
        return chat->session()->state() == ModelSession::State::Generating && completed.wait(60000) && waitReady(chat);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        hearth::synth::SynthOptions o;
        o.shape = *hearth::synth::shapeByName("tiny");
        o.shape.vocabSize = 300;
        o.type = hearth::DType::F16;
        o.ffnActivation = "reglu";
        o.seed = 5;
        hearth::synth::SparseSynthOptions s;
        s.sparsity = 0.7;
        s.predictorHidden = 32;
        m_model = m_dir.filePath(QStringLiteral("sparse.gguf"));
        const hearth::Status written = hearth::synth::writeSparseSyntheticModel(o, s, m_model.toStdString());
        QVERIFY2(written.ok(), written.message().c_str());

        m_settings = std::make_unique<AppSettings>(iniPath());
        m_settings->setMaxTokens(8);
        m_chat = newController();
        QVERIFY(m_chat->openStore(m_dir.filePath(QStringLiteral("chats.sqlite"))));
        QVariantMap sampling = m_chat->sampling();
        sampling.insert(QStringLiteral("seed"), 1);
        m_chat->setSampling(sampling);
    }

    void cleanupTestCase() { m_chat.reset(); }

    void gpuThatStopsWorkingIsShown()
    {
        // A device that fails every operation after the n-th: the smallest n that loads the
        // model on it fails while answering. The answer still comes (from the CPU), and the
        // status line and the chat say what happened.
        auto chat = newController();
        QVERIFY(chat->openStore(m_dir.filePath(QStringLiteral("failing.sqlite"))));
        bool shown = false;
        for (int n = 8; n < 100000 && !shown; n += n / 2) {
            chat->session()->setDeviceOverride(kDevice + QStringLiteral(":0:%1").arg(n));
            chat->session()->loadModel(m_model);
            QVERIFY(waitReady(chat.get()));
            if (!chat->session()->usesGpu())
                continue; // it failed while loading: the load already says so
            QSignalSpy placementChanged(chat->session(), &ModelSession::placementChanged);
            QVERIFY(answer(chat.get(), QStringLiteral("Tell me about the fire.")));
            if (chat->session()->usesGpu())
                continue;
            shown = true;
            QVERIFY(!placementChanged.isEmpty());
            QVERIFY2(chat->session()->placementSummary().contains(QLatin1String("failed")),
                qPrintable(chat->session()->placementSummary()));
            QVERIFY2(chat->errorText().contains(QLatin1String("GPU stopped working")), qPrintable(chat->errorText()));
            const auto answered = chat->store()->activePath(chat->conversationId());
            QVERIFY(!answered.last().content.isEmpty());
            // The next answer says nothing more.
            chat->send(QStringLiteral("And then?"));
            QVERIFY(chat->errorText().isEmpty());
            QVERIFY(waitReady(chat.get()));
            QVERIFY(chat->errorText().isEmpty());
        }
        QVERIFY2(shown, "no device failure while answering");
    }

    void applyPlacesTheRunningModelAgain()
    {
        m_chat->session()->loadModel(m_model);
        QVERIFY(waitReady(m_chat.get()));
        const QString automatic = m_chat->session()->placementReport();
        QVERIFY2(automatic.startsWith(QLatin1String("GPU")), qPrintable(automatic));
        QVERIFY(m_chat->session()->vramBudgetGiB() < 0);
        // The status bar's line comes from the engine's facts, not from this report.
        QVERIFY(m_chat->session()->usesGpu());
        QVERIFY2(m_chat->session()->placementSummary().startsWith(QLatin1String("GPU ")), qPrintable(m_chat->session()->placementSummary()));
        QVERIFY(m_chat->session()->placementDetails().contains(m_chat->session()->placementSummary()));

        QVERIFY(answer(m_chat.get(), QStringLiteral("Tell me about the fire.")));
        const qint64 conversation = m_chat->conversationId();
        QVERIFY(conversation != 0);
        QCOMPARE(m_chat->messages()->rowCount(), 2);
        const QString firstAnswer = m_chat->messages()->at(1).content;

        // Apply a small budget: the engine thread builds a new session; the GUI thread only
        // sees the loading state and then the new report.
        QSignalSpy placed(m_chat->session(), &ModelSession::placementChanged);
        QSignalSpy states(m_chat->session(), &ModelSession::stateChanged);
        m_chat->session()->applyVramBudget(kSmallBudget, false);
        QCOMPARE(m_chat->session()->state(), ModelSession::State::Loading);
        QVERIFY(m_chat->session()->replacing());
        QVERIFY(placed.wait(60000));
        QCOMPARE(m_chat->session()->state(), ModelSession::State::Ready);
        QVERIFY(!m_chat->session()->replacing());
        QVERIFY2(m_chat->errorText().isEmpty(), qPrintable(m_chat->errorText()));
        const QString small = m_chat->session()->placementReport();
        QVERIFY2(placement(small) != placement(automatic), qPrintable(small));
        QVERIFY(small.startsWith(QLatin1String("GPU")) || small.startsWith(QLatin1String("CPU")));
        QVERIFY(qAbs(m_chat->session()->vramBudgetGiB() - kSmallBudget / kGiB) < 1e-9);

        // The conversation and its history stay, and the chat goes on.
        QCOMPARE(m_chat->conversationId(), conversation);
        QCOMPARE(m_chat->messages()->rowCount(), 2);
        QCOMPARE(m_chat->messages()->at(1).content, firstAnswer);
        QVERIFY(answer(m_chat.get(), QStringLiteral("And then?")));
        QCOMPARE(m_chat->messages()->rowCount(), 4);
        QCOMPARE(m_chat->conversationId(), conversation);
        QVERIFY(!m_chat->messages()->at(3).content.isEmpty() || m_chat->messages()->at(3).tokenCount >= 0);
        QVERIFY2(m_chat->errorText().isEmpty(), qPrintable(m_chat->errorText()));

        // No budget at all: the processor does everything.
        m_chat->session()->applyVramBudget(0, false);
        QVERIFY(placed.wait(60000));
        QVERIFY2(m_chat->session()->placementReport().startsWith(QLatin1String("CPU only")), qPrintable(m_chat->session()->placementReport()));
        QVERIFY(!m_chat->session()->usesGpu());
        QCOMPARE(m_chat->session()->placementSummary(), QStringLiteral("CPU only"));

        // Back to Auto: the first placement again.
        m_chat->session()->applyVramBudget(0, true);
        QVERIFY(placed.wait(60000));
        QCOMPARE(placement(m_chat->session()->placementReport()), placement(automatic));
        QVERIFY(answer(m_chat.get(), QStringLiteral("One more line.")));
        QCOMPARE(m_chat->messages()->rowCount(), 6);
    }

    void applyWhileAnsweringWaitsForTheAnswer()
    {
        QCOMPARE(m_chat->session()->state(), ModelSession::State::Ready);
        const QString before = m_chat->session()->placementReport();
        QSignalSpy placed(m_chat->session(), &ModelSession::placementChanged);
        QSignalSpy completed(m_chat.get(), &ChatController::answerCompleted);
        m_chat->send(QStringLiteral("Keep going."));
        QCOMPARE(m_chat->session()->state(), ModelSession::State::Generating);
        m_chat->session()->applyVramBudget(kSmallBudget, false);
        QCOMPARE(m_chat->session()->state(), ModelSession::State::Generating); // the answer is not cut
        QVERIFY(placed.wait(60000));
        QCOMPARE(completed.count(), 1);
        QVERIFY(placement(m_chat->session()->placementReport()) != placement(before));
        QVERIFY(waitReady(m_chat.get()));
    }

    void rememberedBudgetIsUsedAtLoad()
    {
        // What Apply in the VRAM panel stores for this model.
        {
            QSettings settings(iniPath(), QSettings::IniFormat);
            PlacementPreview::remember(settings, m_model, { quint64(kSmallBudget), false });
        }
        QCOMPARE(m_settings->vramBudgetGiB(m_model), kSmallBudget / kGiB);
        const QString expected = m_chat->session()->placementReport(); // the small budget's, from above

        auto chat = newController();
        chat->session()->loadModel(m_model);
        QVERIFY(waitReady(chat.get()));
        QCOMPARE(placement(chat->session()->placementReport()), placement(expected));
        QVERIFY(qAbs(chat->session()->vramBudgetGiB() - kSmallBudget / kGiB) < 1e-9);

        // Auto remembered: the automatic placement.
        {
            QSettings settings(iniPath(), QSettings::IniFormat);
            PlacementPreview::remember(settings, m_model, { 0, true });
        }
        QVERIFY(m_settings->vramBudgetGiB(m_model) < 0);
        chat->session()->loadModel(m_model);
        QVERIFY(waitReady(chat.get()));
        QVERIFY(placement(chat->session()->placementReport()) != placement(expected));
    }

    void applyWithoutModelDoesNothing()
    {
        auto chat = newController();
        QSignalSpy states(chat->session(), &ModelSession::stateChanged);
        chat->session()->applyVramBudget(kSmallBudget, false);
        QCOMPARE(chat->session()->state(), ModelSession::State::NoModel);
        QCOMPARE(states.count(), 0);
    }

    // The panel's plan at a slider position is what Apply then gets: whole layers of a dense
    // file (a 2-layer one, as in the report of "0 of 2 layers" planned and 1 placed), hot
    // neurons of a sparse one.
    void panelPlanIsThePlacementAfterApply_data()
    {
        QTest::addColumn<bool>("sparse");
        QTest::newRow("dense, 2 layers") << false;
        QTest::newRow("sparse") << true;
    }

    void panelPlanIsThePlacementAfterApply()
    {
        QFETCH(bool, sparse);
        QString path = m_model;
        if (!sparse) {
            hearth::synth::SynthOptions o;
            o.shape = *hearth::synth::shapeByName("tiny");
            o.shape.vocabSize = 300;
            o.type = hearth::DType::F16;
            o.seed = 5;
            path = m_dir.filePath(QStringLiteral("dense.gguf"));
            const hearth::Status written = hearth::synth::writeSyntheticModel(o, path.toStdString());
            QVERIFY2(written.ok(), written.message().c_str());
        }
        auto chat = newController();
        chat->session()->loadModel(path);
        QVERIFY(waitReady(chat.get()));

        PlacementPreview preview;
        preview.setSettingsFile(m_dir.filePath(QStringLiteral("panel.ini")));
        preview.setGpu(std::make_unique<hearth::models::FixedGpuInfo>(
            quint64(1) << 30, QStringLiteral("Emulated"), 400.0, 0, /*emulated=*/true));
        preview.setModelPath(path);
        preview.setContextLength(chat->session()->contextLength());
        preview.setAutoBudget(false);
        preview.setBudgetBytes(double(quint64(1) << 30));
        preview.replanNow();
        QVERIFY(preview.modelReady());
        const double everything = preview.totalBytes();
        QVERIFY(everything > 0);

        QSet<int> seen;
        // The fixed costs (scratch buffers) come first, so most steps are near the top.
        for (int step = 0; step <= 24; ++step) {
            const double budget = std::floor(everything * (step == 0 ? 0 : 0.5 + step / 48.0) / 256) * 256;
            preview.setBudgetBytes(budget);
            preview.replanNow();
            QSignalSpy placed(chat->session(), &ModelSession::placementChanged);
            chat->session()->applyVramBudget(budget, false);
            QVERIFY(placed.wait(60000));
            const hearth::SessionPlacement& facts = chat->session()->placement().facts;
            const QByteArray where = QByteArray::number(budget, 'f', 0) + ": " + preview.summaryText().toUtf8()
                                     + " / " + chat->session()->placementReport().toUtf8();
            if (sparse) {
                QVERIFY2(facts.hotNeurons == preview.hotNeurons(), where.constData());
                seen.insert(preview.hotNeurons());
            } else {
                QVERIFY2(facts.gpuLayers == preview.attentionLayersOnGpu(), where.constData());
                seen.insert(preview.attentionLayersOnGpu());
            }
        }
        QVERIFY2(seen.size() >= 3, QByteArray::number(seen.size()).constData()); // nothing, part and all
    }
};

QTEST_GUILESS_MAIN(TestReplaceBudget)
#include "tst_replace_budget.moc"
