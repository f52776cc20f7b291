// SPDX-License-Identifier: MIT
// PlacementPreview, the state behind the VRAM panel: per-layer rows and the breakdown follow the
// budget (monotone: more budget never fewer hot neurons), Auto, the no-GPU preview, the debounce,
// and the budget remembered per model. With HEARTH_SCREENSHOT=file.png it also renders the panel
// offscreen and saves it (docs/screenshots/vram-panel.png comes from here).

#include "app_test_support.h"
#include "gpuinfo.h"
#include "placementpreview.h"

#include <QQmlComponent>
#include <QQmlEngine>
#include <QQmlEngineExtensionPlugin>
#include <QQuickItem>
#include <QQuickWindow>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <vector>

using namespace hearth::models;

Q_IMPORT_QML_PLUGIN(Hearth_ModelsPlugin)

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

MachineInfo bigMachine()
{
    MachineInfo m;
    m.ramBytes = 64ull << 30;
    return m;
}

} // namespace

class TestPlacementPreview : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;

    void prepare(
        PlacementPreview& preview, double gpuGiB, const QString& catalogId = QStringLiteral("relullama-7b"))
    {
        preview.setSettingsFile(m_dir.filePath(QStringLiteral("settings.ini")));
        preview.setMachine(bigMachine());
        preview.setDebounceMs(0);
        preview.setDetectedGpuBytes(gpuGiB * kGiB);
        preview.setCatalogId(catalogId);
        preview.replanNow();
    }

private Q_SLOTS:
    void init() { QFile::remove(m_dir.filePath(QStringLiteral("settings.ini"))); }

    void rowsAndBreakdownFollowTheBudget()
    {
        PlacementPreview preview;
        prepare(preview, 8);
        QVERIFY(preview.modelReady());
        QVERIFY(preview.hasGpu());
        QCOMPARE(preview.gpuBytes(), 8 * kGiB);
        QCOMPARE(preview.rowCount(), 32);
        QVERIFY(preview.autoBudget()); // nothing remembered yet
        QCOMPARE(preview.effectiveBudgetBytes(), 8 * kGiB - 256.0 * 1024 * 1024);

        preview.setBudgetBytes(1.5 * kGiB);
        QVERIFY(!preview.autoBudget());
        QSignalSpy rowsChanged(&preview, &QAbstractItemModel::dataChanged);
        QSignalSpy resets(&preview, &QAbstractItemModel::modelReset);
        preview.replanNow();
        const QString smallBreakdown = preview.breakdownText();
        const double smallTotal = preview.totalBytes();
        const double smallSpeed = preview.tokensPerSecond();
        QVERIFY(smallTotal <= 1.5 * kGiB);
        QVERIFY(preview.hotNeurons() < preview.totalNeurons());

        preview.setBudgetBytes(7 * kGiB); // attention, F32 KV cache and predictors take ~6.2 GiB
        preview.replanNow();
        QVERIFY(rowsChanged.count() >= 1); // rows updated in place, not reset
        QCOMPARE(resets.count(), 0);
        QVERIFY(preview.breakdownText() != smallBreakdown);
        QVERIFY(preview.totalBytes() > smallTotal);
        QVERIFY(preview.tokensPerSecond() > smallSpeed);
        QVERIFY(preview.breakdownText().contains(QStringLiteral("KV cache")));
        QVERIFY(preview.speedText().contains(QStringLiteral("tokens/s")));

        const QModelIndex first = preview.index(0);
        QCOMPARE(first.data(PlacementPreview::AttentionOnGpuRole).toBool(), true);
        QCOMPARE(first.data(PlacementPreview::FeedForwardRole).toDouble(), 11008.0);
        const double fraction = first.data(PlacementPreview::HotFractionRole).toDouble();
        QVERIFY(fraction > 0 && fraction <= 1);
        QCOMPARE(preview.roleNames().value(PlacementPreview::HotFractionRole), QByteArray("hotFraction"));
    }

    // The RAM the plan needs counts keys and values as the session will keep them: in the chosen
    // type on the CPU alone, in F32 (the device's mirror) once the GPU is used.
    void ramFollowsTheCacheType()
    {
        PlacementPreview preview;
        prepare(preview, 0); // no GPU: everything on the CPU
        QVERIFY(preview.modelReady());
        QCOMPARE(preview.kvCacheType(), QStringLiteral("f16"));
        const double f16 = preview.ramBytes();
        preview.setKvCacheType(QStringLiteral("q8_0"));
        preview.replanNow();
        QCOMPARE(preview.kvCacheType(), QStringLiteral("q8_0"));
        // ReluLLaMA-7B at 4096 tokens: 32 layers of K and V, 4096 wide; 2 bytes against 34/32.
        const double rows = 32.0 * 4096 * 2;
        QCOMPARE(f16 - preview.ramBytes(), rows * (4096 * 2 - 4096 / 32 * 34));
        preview.setKvCacheType(QStringLiteral("f32"));
        preview.replanNow();
        QCOMPARE(preview.ramBytes() - f16, rows * 4096 * 2);

        PlacementPreview withGpu;
        prepare(withGpu, 12);
        const double mirrored = withGpu.ramBytes();
        withGpu.setKvCacheType(QStringLiteral("q8_0"));
        withGpu.replanNow();
        QCOMPARE(withGpu.ramBytes(), mirrored);
    }

    void detailsFollowTheLanguage()
    {
        // The breakdown, speed and budget texts are read anew after a language switch.
        PlacementPreview preview;
        prepare(preview, 8);
        preview.replanNow();
        QSignalSpy plan(&preview, &PlacementPreview::planChanged);
        QSignalSpy budget(&preview, &PlacementPreview::budgetChanged);
        hearth::test::MarkingTranslator translator;
        QCoreApplication::installTranslator(&translator);
        QVERIFY(budget.count() >= 1);
        QTRY_VERIFY(plan.count() >= 1);
        QVERIFY(preview.breakdownText().startsWith(QStringLiteral("[zz] ")));
        QVERIFY(preview.speedText().startsWith(QStringLiteral("[zz] ")));
        QCoreApplication::removeTranslator(&translator);
        QTRY_VERIFY(!preview.breakdownText().startsWith(QStringLiteral("[zz] ")));
    }

    void moreBudgetNeverFewerHotNeurons()
    {
        PlacementPreview preview;
        prepare(preview, 24, QStringLiteral("relullama-13b"));
        std::vector<double> previous(static_cast<std::size_t>(preview.rowCount()), 0.0);
        bool previousAttention = false;
        for (double budget = 0; budget <= 24 * kGiB; budget += 0.25 * kGiB) {
            preview.setBudgetBytes(budget);
            preview.replanNow();
            for (int row = 0; row < preview.rowCount(); ++row) {
                const double hot = preview.index(row).data(PlacementPreview::HotNeuronsRole).toDouble();
                QVERIFY2(hot >= previous[std::size_t(row)],
                    qPrintable(QStringLiteral("layer %1 at %2").arg(row).arg(budget)));
                previous[std::size_t(row)] = hot;
            }
            const bool attention
                = preview.index(preview.rowCount() - 1).data(PlacementPreview::AttentionOnGpuRole).toBool();
            QVERIFY(attention || !previousAttention);
            previousAttention = attention;
        }
        QCOMPARE(preview.hotNeurons(), preview.totalNeurons());
    }

    void debouncesSliderMoves()
    {
        PlacementPreview preview;
        prepare(preview, 8);
        preview.setDebounceMs(30);
        QSignalSpy planned(&preview, &PlacementPreview::planChanged);
        for (int i = 1; i <= 20; ++i)
            preview.setBudgetBytes(i * 0.25 * kGiB);
        QCOMPARE(planned.count(), 0);
        QTRY_COMPARE(planned.count(), 1);
        QVERIFY(preview.totalBytes() <= 5 * kGiB);
    }

    void autoFollowsFreeMemory()
    {
        PlacementPreview preview;
        prepare(preview, 8);
        preview.setGpu(std::make_unique<FixedGpuInfo>(
            quint64(8) << 30, QStringLiteral("Test"), 400.0, quint64(6) << 30));
        preview.setBudgetBytes(2 * kGiB);
        preview.setAutoBudget(true);
        preview.replanNow();
        QCOMPARE(preview.effectiveBudgetBytes(), 6 * kGiB - 256.0 * 1024 * 1024);
        QVERIFY(preview.budgetText().startsWith(QStringLiteral("Auto")));
        preview.setAutoBudget(false); // the slider stays where Auto put it
        QCOMPARE(preview.budgetBytes(), 6 * kGiB - 256.0 * 1024 * 1024);
    }

    void withoutGpuOffersAPreview()
    {
        PlacementPreview preview;
        prepare(preview, 0);
        QVERIFY(!preview.hasGpu());
        QCOMPARE(preview.gpuBytes(), 0.0);
        QCOMPARE(preview.totalBytes(), 0.0);
        QCOMPARE(preview.hotNeurons(), 0);
        QVERIFY(preview.tokensPerSecond() > 0); // CPU-only speed
        QCOMPARE(preview.previewSizesGiB(), QVariantList({ 8, 12, 16, 24 }));

        preview.setPreviewGpuGiB(12);
        preview.replanNow();
        QCOMPARE(preview.gpuBytes(), 12 * kGiB);
        QVERIFY(preview.gpuName().contains(QStringLiteral("12")));
        QVERIFY(preview.hotNeurons() > 0);
        preview.setBudgetBytes(100 * kGiB); // clamped to the GPU
        QCOMPARE(preview.budgetBytes(), 12 * kGiB);
    }

    void mixtureOfExpertsShowsItsExperts()
    {
        PlacementPreview preview;
        prepare(preview, 12, QStringLiteral("qwen3-30b-a3b"));
        QVERIFY(preview.hasGpu());
        QCOMPARE(preview.attentionLayersOnGpu(), 48);
        QVERIFY2(preview.reason().contains(QStringLiteral("of 6,144 experts on the GPU")), qPrintable(preview.reason()));
        QVERIFY2(preview.summaryText().startsWith(QStringLiteral("Experts on the GPU: ")), qPrintable(preview.summaryText()));
        // Each layer's row says how many of its experts are there.
        const QModelIndex first = preview.index(0);
        QCOMPARE(preview.data(first, PlacementPreview::ExpertsRole).toInt(), 128);
        int onGpu = 0;
        for (int l = 0; l < preview.rowCount(); ++l)
            onGpu += preview.data(preview.index(l), PlacementPreview::GpuExpertsRole).toInt();
        QVERIFY(onGpu > 0 && onGpu < 48 * 128);
        QVERIFY(preview.tokensPerSecond() > 0);
    }

    void gptOssPlacesItsExpertsByLayer()
    {
        // gpt-oss-20b on an 8 GB GPU: every layer's attention there, part of its 768 experts,
        // the rest on the CPU.
        PlacementPreview preview;
        prepare(preview, 8, QStringLiteral("gpt-oss-20b"));
        QCOMPARE(preview.rowCount(), 24);
        QCOMPARE(preview.attentionLayersOnGpu(), 24);
        int onGpu = 0;
        for (int l = 0; l < preview.rowCount(); ++l)
            onGpu += preview.data(preview.index(l), PlacementPreview::GpuExpertsRole).toInt();
        QVERIFY2(onGpu > 0 && onGpu < 24 * 32, qPrintable(QString::number(onGpu)));
        QVERIFY2(preview.reason().contains(QStringLiteral("experts on the GPU")), qPrintable(preview.reason()));
    }

    void remembersTheBudgetPerModel()
    {
        {
            PlacementPreview preview;
            prepare(preview, 8);
            preview.setBudgetBytes(3 * kGiB);
            QSignalSpy applied(&preview, &PlacementPreview::applied);
            preview.apply();
            QCOMPARE(applied.count(), 1);
            QCOMPARE(applied.at(0).at(0).toString(), QStringLiteral("catalog:relullama-7b"));
            QCOMPARE(applied.at(0).at(1).toDouble(), 3 * kGiB);
            QCOMPARE(applied.at(0).at(2).toBool(), false);

            // Another model has its own choice (none yet: Auto).
            preview.setCatalogId(QStringLiteral("bamboo-7b-dpo"));
            QVERIFY(preview.autoBudget());
            preview.setBudgetBytes(5 * kGiB);
            preview.apply();
        }
        PlacementPreview again;
        prepare(again, 8);
        QVERIFY(!again.autoBudget());
        QCOMPARE(again.budgetBytes(), 3 * kGiB);
        again.setCatalogId(QStringLiteral("bamboo-7b-dpo"));
        QCOMPARE(again.budgetBytes(), 5 * kGiB);

        QSettings settings(m_dir.filePath(QStringLiteral("settings.ini")), QSettings::IniFormat);
        const auto remembered = PlacementPreview::remembered(settings, QStringLiteral("/models/a/b.gguf"));
        QVERIFY(!remembered);
        PlacementPreview::remember(settings, QStringLiteral("/models/a/b.gguf"), { quint64(7) << 30, false });
        QCOMPARE(PlacementPreview::remembered(settings, QStringLiteral("/models/a/b.gguf"))->budgetBytes,
            quint64(7) << 30);
    }

    void badModelsAreErrorsNotCrashes()
    {
        PlacementPreview preview;
        prepare(preview, 8, QStringLiteral("no-such-model"));
        QVERIFY(!preview.modelReady());
        QCOMPARE(preview.rowCount(), 0);
        QVERIFY(!preview.errorText().isEmpty());
        preview.setModelPath(m_dir.filePath(QStringLiteral("missing.gguf")));
        QVERIFY(!preview.modelReady());
        QVERIFY(preview.errorText().contains(QStringLiteral("Cannot plan")));
        preview.apply(); // nothing to remember; must not crash
    }

    void screenshot()
    {
        const QString target = qEnvironmentVariable("HEARTH_SCREENSHOT");
        if (target.isEmpty())
            QSKIP("set HEARTH_SCREENSHOT=file.png to render the panel");
        PlacementPreview preview;
        // A 12 GB card with an 11 GiB budget: every layer's attention on the GPU, part of the FFN.
        prepare(preview, 12, QStringLiteral("relullama-13b"));
        preview.setBudgetBytes(11 * kGiB);
        preview.replanNow();

        QQmlEngine engine;
        engine.addImportPath(QStringLiteral("qrc:/qt/qml"));
        QQmlComponent component(&engine);
        component.setData(R"(
            import QtQuick
            import QtQuick.Controls
            import Hearth.Models
            ApplicationWindow {
                id: win
                required property PlacementPreview preview
                width: 640; height: 720; visible: true
                VramPanel { anchors.fill: parent; preview: win.preview }
            })",
            QUrl());
        QVariantMap properties { { QStringLiteral("preview"), QVariant::fromValue(&preview) } };
        std::unique_ptr<QObject> root(component.createWithInitialProperties(properties));
        QVERIFY2(root, qPrintable(component.errorString()));
        auto* window = qobject_cast<QQuickWindow*>(root.get());
        QVERIFY(window);
        QVERIFY(QTest::qWaitForWindowExposed(window));
        QTest::qWait(200);
        const QImage image = window->grabWindow();
        QVERIFY(!image.isNull());
        QVERIFY(image.save(target));
    }
};

QTEST_MAIN(TestPlacementPreview)
#include "tst_vram_preview.moc"
