// SPDX-License-Identifier: MIT
// hearth/gpu.h: asking for the GPU never crashes. Without a usable CUDA module, driver or GPU
// the answer is "no CUDA device: <why>"; through the stand-in module tst_device uses, the
// device's name and memory come back with an estimated bandwidth.

#include <hearth/gpu.h>

#include <QTemporaryDir>
#include <QFile>
#include <QTest>

using namespace hearth;

class TestPublicGpu : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void thisMachine()
    {
        // Whatever this machine has, the call returns; without a GPU it says why.
        auto gpu = queryGpu();
        if (gpu.ok()) {
            qInfo("GPU: %s, %.1f GiB, %.1f GiB free, %.0f GB/s", gpu->name.c_str(),
                  double(gpu->totalBytes) / double(1u << 30), double(gpu->freeBytes) / double(1u << 30),
                  gpu->bandwidthGBs);
            QVERIFY(!gpu->name.empty());
            QVERIFY(gpu->totalBytes > 0);
            QVERIFY(gpu->freeBytes <= gpu->totalBytes);
            QVERIFY(gpu->bandwidthGBs > 0);
        } else {
            qInfo("%s", gpu.message().c_str());
            QCOMPARE(gpu.code(), ErrorCode::Unsupported);
            QVERIFY2(gpu.message().rfind("no CUDA device: ", 0) == 0, gpu.message().c_str());
            QVERIFY(gpu.message().size() > std::string("no CUDA device: ").size());
        }
    }

    void missingOrBrokenModule()
    {
        GpuQueryParams params;
        params.modulePath = "/nonexistent/libhearth-cuda.so";
        auto missing = queryGpu(params);
        QVERIFY(!missing.ok());
        QVERIFY2(missing.message().rfind("no CUDA device: ", 0) == 0, missing.message().c_str());
        QVERIFY2(missing.message().find("/nonexistent/libhearth-cuda.so") != std::string::npos,
                 missing.message().c_str());

        // A file that is not a shared library at all.
        QTemporaryDir dir;
        const QString fake = dir.filePath(QStringLiteral("libhearth-cuda.so"));
        QFile f(fake);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("\x7f" "ELF but not really");
        f.close();
        params.modulePath = fake.toStdString();
        params.checkDriver = false;
        auto broken = queryGpu(params);
        QVERIFY(!broken.ok());
        QVERIFY2(broken.message().rfind("no CUDA device: ", 0) == 0, broken.message().c_str());
    }

    void standInModule()
    {
#ifdef HEARTH_TEST_FAKE_MODULE
        GpuQueryParams params;
        params.modulePath = HEARTH_TEST_FAKE_MODULE;
        params.checkDriver = false;
        auto gpu = queryGpu(params);
        QVERIFY2(gpu.ok(), gpu.message().c_str());
        QCOMPARE(gpu->name, std::string("Stand-in GPU"));
        QCOMPARE(gpu->totalBytes, std::uint64_t(1) << 30);
        QCOMPARE(gpu->freeBytes, std::uint64_t(768) << 20);
        QVERIFY(!gpu->bandwidthKnown);
        QCOMPARE(gpu->bandwidthGBs, estimateGpuBandwidthGBs("Stand-in GPU", std::uint64_t(1) << 30));

        params.deviceIndex = 3; // the stand-in has one device
        auto absent = queryGpu(params);
        QVERIFY(!absent.ok());
        QVERIFY2(absent.message().rfind("no CUDA device: ", 0) == 0, absent.message().c_str());
#else
        QSKIP("the stand-in CUDA module is not built here");
#endif
    }

    void bandwidthTable()
    {
        QCOMPARE(knownGpuBandwidthGBs("NVIDIA GeForce RTX 4090"), 1008.0);
        QCOMPARE(knownGpuBandwidthGBs("NVIDIA GeForce RTX 4070 Ti SUPER"), 672.0);
        QCOMPARE(knownGpuBandwidthGBs("NVIDIA GeForce RTX 4070 Ti"), 504.0);
        QCOMPARE(knownGpuBandwidthGBs("NVIDIA GeForce RTX 3060"), 360.0);
        QCOMPARE(knownGpuBandwidthGBs("NVIDIA L4"), 300.0);
        QCOMPARE(knownGpuBandwidthGBs("NVIDIA RTX A4000"), 448.0); // not "l4", not "a40"
        QCOMPARE(knownGpuBandwidthGBs("NVIDIA H200"), 4800.0);
        QCOMPARE(knownGpuBandwidthGBs("Some Future GPU"), 0.0);
        QCOMPARE(knownGpuBandwidthGBs(""), 0.0);
        // Unknown GPUs get a figure that grows with their memory.
        const double small = estimateGpuBandwidthGBs("Unknown", std::uint64_t(4) << 30);
        const double large = estimateGpuBandwidthGBs("Unknown", std::uint64_t(48) << 30);
        QVERIFY(small > 0);
        QVERIFY(large > small);
        QCOMPARE(estimateGpuBandwidthGBs("NVIDIA GeForce RTX 4090", 0), 1008.0);
    }
};

QTEST_GUILESS_MAIN(TestPublicGpu)
#include "tst_public_gpu.moc"

#include <cstdint>
