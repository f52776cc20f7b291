// SPDX-License-Identifier: MIT
// Fit badges for fake machines: RAM and VRAM combinations decide between "fully on GPU",
// "hybrid", "CPU only" and "does not fit".

#include "catalogentry.h"
#include "fitbadge.h"
#include "gpuinfo.h"
#include "machineinfo.h"

#include <QTest>

using namespace hearth::models;

namespace {

constexpr quint64 kGiB = quint64(1) << 30;

const CatalogEntry& entry(const char* id)
{
    for (const CatalogEntry& e : builtinCatalog()) {
        if (e.id == QLatin1String(id))
            return e;
    }
    qFatal("no catalog entry %s", id);
}

MachineInfo machineWithRam(quint64 gib)
{
    MachineInfo m;
    m.ramBytes = gib * kGiB;
    m.cores = 8;
    return m;
}

FitBadge fit(const char* id, quint64 ramGiB, quint64 vramGiB, int file = 0)
{
    const CatalogEntry& e = entry(id);
    return estimateFit(e.planningDescription(file), e.assumedSparsity(), machineWithRam(ramGiB),
        FixedGpuInfo(vramGiB * kGiB, QStringLiteral("Test GPU")));
}

} // namespace

class TestFitBadge : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void badges_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("file");
        QTest::addColumn<int>("ramGiB");
        QTest::addColumn<int>("vramGiB");
        QTest::addColumn<QString>("kind");

        QTest::newRow("7B Q4 on a 24 GB GPU") << "relullama-7b" << 0 << 32 << 24 << "fullyOnGpu";
        QTest::newRow("7B Q4 on a 4 GB GPU") << "relullama-7b" << 0 << 16 << 4 << "hybrid";
        QTest::newRow("7B Q4 without GPU") << "relullama-7b" << 0 << 16 << 0 << "cpuOnly";
        QTest::newRow("7B Q4 in 2 GB RAM") << "relullama-7b" << 0 << 2 << 0 << "doesNotFit";
        QTest::newRow("7B F16 on a 12 GB GPU") << "relullama-7b" << 1 << 32 << 12 << "hybrid";
        QTest::newRow("13B Q4 on an 8 GB GPU") << "relullama-13b" << 0 << 16 << 8 << "hybrid";
        QTest::newRow("40B Q4 on a 24 GB GPU, 16 GB RAM") << "relufalcon-40b" << 0 << 16 << 24 << "hybrid";
        QTest::newRow("40B Q4 without GPU, 16 GB RAM") << "relufalcon-40b" << 0 << 16 << 0 << "doesNotFit";
        QTest::newRow("70B Q4 on a 24 GB GPU, 64 GB RAM") << "relullama-70b" << 0 << 64 << 24 << "hybrid";
        QTest::newRow("OPT-1.3B dense on 8 GB") << "opt-1.3b" << 0 << 8 << 8 << "fullyOnGpu";
        QTest::newRow("OPT-66B dense on 24 GB, 64 GB RAM") << "opt-66b" << 0 << 64 << 24 << "doesNotFit";
        QTest::newRow("OPT-66B dense on 24 GB, 256 GB RAM") << "opt-66b" << 0 << 256 << 24 << "hybrid";
        QTest::newRow("Qwen3-30B-A3B on 24 GB, 32 GB RAM") << "qwen3-30b-a3b" << 0 << 32 << 24 << "fullyOnGpu";
        QTest::newRow("Qwen3-30B-A3B on 12 GB, 32 GB RAM") << "qwen3-30b-a3b" << 0 << 32 << 12 << "hybrid";
        QTest::newRow("Qwen3-30B-A3B in 16 GB RAM") << "qwen3-30b-a3b" << 0 << 16 << 0 << "doesNotFit";
        QTest::newRow("gpt-oss-20b on 24 GB, 32 GB RAM") << "gpt-oss-20b" << 0 << 32 << 24 << "fullyOnGpu";
        QTest::newRow("gpt-oss-20b on 8 GB, 32 GB RAM") << "gpt-oss-20b" << 0 << 32 << 8 << "hybrid";
        QTest::newRow("gpt-oss-20b in 8 GB RAM") << "gpt-oss-20b" << 0 << 8 << 0 << "doesNotFit";
    }

    void badges()
    {
        QFETCH(QString, model);
        QFETCH(int, file);
        QFETCH(int, ramGiB);
        QFETCH(int, vramGiB);
        QFETCH(QString, kind);
        const FitBadge badge = fit(model.toLatin1().constData(), quint64(ramGiB), quint64(vramGiB), file);
        QVERIFY2(badge.kindName() == kind,
            qPrintable(
                badge.kindName() + QStringLiteral(": ") + badge.text + QStringLiteral(" / ") + badge.reason));
        QVERIFY(!badge.text.isEmpty());
        QVERIFY(!badge.reason.isEmpty());
        if (badge.kind == FitBadge::Hybrid || badge.kind == FitBadge::CpuOnly)
            QVERIFY2(badge.text.contains(QStringLiteral("tokens/s")), qPrintable(badge.text));
    }

    void moreVramIsFaster()
    {
        double previous = 0;
        for (quint64 vram : { 0, 4, 6, 8, 24 }) {
            const FitBadge badge = fit("relullama-13b", 32, vram);
            QVERIFY(badge.tokensPerSecond >= previous);
            previous = badge.tokensPerSecond;
        }
    }

    void tinyGpuMeansCpuOnly()
    {
        // Its auto budget (free memory less 256 MiB) is below the fixed costs: context reserve,
        // cuBLAS workspace and scratch buffers.
        const CatalogEntry& e = entry("relullama-7b");
        const FitBadge badge = estimateFit(e.planningDescription(0), e.assumedSparsity(), machineWithRam(16),
            FixedGpuInfo(quint64(512) << 20));
        QCOMPARE(badge.kind, FitBadge::CpuOnly);
        QVERIFY(badge.reason.contains(QStringLiteral("too small")));
    }

    void mixtureSaysWhereItsExpertsRun_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("vramGiB");
        QTest::addColumn<QString>("experts");
        QTest::newRow("Qwen3-30B-A3B on 12 GB") << "qwen3-30b-a3b" << 12 << "of 6144 experts on the GPU";
        // gpt-oss's attention sinks, YaRN and biased, clamped experts run on the GPU too.
        QTest::newRow("gpt-oss-20b on 8 GB") << "gpt-oss-20b" << 8 << "of 768 experts on the GPU";
    }
    void mixtureSaysWhereItsExpertsRun()
    {
        QFETCH(QString, model);
        QFETCH(int, vramGiB);
        QFETCH(QString, experts);
        const FitBadge badge = fit(qPrintable(model), 32, quint64(vramGiB));
        QCOMPARE(badge.kind, FitBadge::Hybrid);
        QVERIFY2(badge.reason.contains(experts), qPrintable(badge.reason));
    }

    void unknownRamDoesNotRuleOut()
    {
        const CatalogEntry& e = entry("relullama-70b");
        const FitBadge badge
            = estimateFit(e.planningDescription(0), e.assumedSparsity(), MachineInfo {}, FixedGpuInfo(0));
        QCOMPARE(badge.kind, FitBadge::CpuOnly);
    }

    void readsMeminfo()
    {
        const MachineInfo m = MachineInfo::fromMeminfo("MemTotal:       16318432 kB\nMemFree:  100 kB\n"
                                                       "MemAvailable:    8000000 kB\ngarbage line\n");
        QCOMPARE(m.ramBytes, quint64(16318432) * 1024);
        QCOMPARE(m.availableRamBytes, quint64(8000000) * 1024);
        QCOMPARE(MachineInfo::fromMeminfo("MemTotal: lots kB").ramBytes, quint64(0));
        const MachineInfo here = MachineInfo::detect();
        QVERIFY(here.cores >= 1);
    }

    void autoBudgetKeepsAMargin()
    {
        QCOMPARE(autoBudgetBytes(FixedGpuInfo(0)), quint64(0));
        QCOMPARE(autoBudgetBytes(FixedGpuInfo(8 * kGiB)), 8 * kGiB - (quint64(256) << 20));
        QCOMPARE(autoBudgetBytes(FixedGpuInfo(8 * kGiB, {}, 400, 2 * kGiB)), 2 * kGiB - (quint64(256) << 20));
        QCOMPARE(autoBudgetBytes(FixedGpuInfo(100 << 20)), quint64(0));
    }
};

QTEST_GUILESS_MAIN(TestFitBadge)
#include "tst_fit_badge.moc"
