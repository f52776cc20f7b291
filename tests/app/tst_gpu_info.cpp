// SPDX-License-Identifier: MIT
// GpuInfo from the engine's GPU query: a found GPU keeps its name, sizes and bandwidth; none
// keeps the engine's reason; HEARTH_FAKE_GPU_GB still stands in a GPU; and on this machine
// detectGpu() answers without crashing whatever it finds.

#include "gpuinfo.h"

#include <QTest>

using namespace hearth;
using namespace hearth::models;

class TestGpuInfo : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void fromAnAnswer()
    {
        GpuDescription d;
        d.name = "NVIDIA GeForce RTX 4090";
        d.totalBytes = std::uint64_t(24) << 30;
        d.freeBytes = std::uint64_t(20) << 30;
        d.bandwidthGBs = 1008;
        d.bandwidthKnown = true;
        const auto gpu = gpuFromQuery(d);
        QVERIFY(gpu->present());
        QCOMPARE(gpu->name(), QStringLiteral("NVIDIA GeForce RTX 4090"));
        QCOMPARE(gpu->totalBytes(), quint64(24) << 30);
        QCOMPARE(gpu->freeBytes(), quint64(20) << 30);
        QCOMPARE(gpu->bandwidthGBs(), 1008.0);
        QVERIFY(gpu->unavailableReason().isEmpty());
        QCOMPARE(autoBudgetBytes(*gpu), (quint64(20) << 30) - (quint64(256) << 20));

        // A GPU with nothing free stays a GPU with nothing free (FixedGpuInfo reads 0 as "all").
        d.freeBytes = 0;
        QVERIFY(gpuFromQuery(d)->freeBytes() < (quint64(1) << 20));
    }

    void fromAnError()
    {
        const Result<GpuDescription> none = Status(ErrorCode::Unsupported, "no CUDA device: no NVIDIA driver found (libcuda.so.1)");
        const auto gpu = gpuFromQuery(none);
        QVERIFY(!gpu->present());
        QCOMPARE(gpu->totalBytes(), quint64(0));
        QCOMPARE(autoBudgetBytes(*gpu), quint64(0));
        QCOMPARE(gpu->unavailableReason(), QStringLiteral("no CUDA device: no NVIDIA driver found (libcuda.so.1)"));
    }

    void fromTheStandInModule()
    {
#ifdef HEARTH_TEST_FAKE_MODULE
        GpuQueryParams params;
        params.modulePath = HEARTH_TEST_FAKE_MODULE;
        params.checkDriver = false;
        const auto gpu = gpuFromQuery(queryGpu(params));
        QVERIFY2(gpu->present(), qPrintable(gpu->unavailableReason()));
        QCOMPARE(gpu->name(), QStringLiteral("Stand-in GPU"));
        QCOMPARE(gpu->totalBytes(), quint64(1) << 30);
        QCOMPARE(gpu->freeBytes(), quint64(768) << 20);
        QVERIFY(gpu->bandwidthGBs() > 0);
#else
        QSKIP("the stand-in CUDA module is not built here");
#endif
    }

    void thisMachine()
    {
        qunsetenv("HEARTH_FAKE_GPU_GB");
        const auto gpu = detectGpu();
        if (gpu->present()) {
            qInfo() << "GPU:" << gpu->name() << gpu->totalBytes() << gpu->bandwidthGBs();
            QVERIFY(gpu->totalBytes() > 0);
            QVERIFY(gpu->freeBytes() <= gpu->totalBytes());
        } else {
            qInfo() << gpu->unavailableReason();
            QVERIFY(gpu->unavailableReason().startsWith(QStringLiteral("no CUDA device: ")));
        }
        qputenv("HEARTH_FAKE_GPU_GB", "12");
        const auto fake = detectGpu();
        QVERIFY(fake->present());
        QCOMPARE(fake->totalBytes(), quint64(12) << 30);
        qunsetenv("HEARTH_FAKE_GPU_GB");
    }
};

QTEST_GUILESS_MAIN(TestGpuInfo)
#include "tst_gpu_info.moc"

#include <cstdint>
