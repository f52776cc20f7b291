// SPDX-License-Identifier: MIT
// The KV cache: F16 by default (half of F32's memory, which the session reports exactly), logits
// close to an F32 cache's but not equal to them (so the halves really are used), the same
// answers for a prompt in one batch and token by token, a device session keeping F32 rows, a
// 32768-token session that fills its whole context within its memory figure, and sliding-window
// layers (Gemma 3) that keep only their window: less memory, the same logits as a cache that
// keeps everything, and a session that starts over when it is sent back past a window.

#include "session_test_support.h"
#include "synth_test_support.h"
#include "synth/synthetic_model.h"

#include <hearth/model.h>
#include <hearth/placement.h>
#include <hearth/session.h>

#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <cstdint>

using namespace hearth;

Q_DECLARE_METATYPE(hearth::KvCacheType)

namespace {

SessionParams cpuParams(int contextLength, KvCacheType cache)
{
    SessionParams params = test::deviceSessionParams({}, 0, contextLength, 256);
    params.kvCache = cache;
    return params;
}

// Bytes of a cache of @p contextLength positions in @p bytesPerElement for @p model.
std::uint64_t expectedCacheBytes(const Model& model, int contextLength, int bytesPerElement)
{
    const ModelInfo& m = model.info();
    const std::uint64_t kvWidth = std::uint64_t(m.kvHeadCount) * std::uint64_t(m.embeddingSize / m.headCount);
    return std::uint64_t(m.layerCount) * std::uint64_t(contextLength) * 2 * kvWidth * std::uint64_t(bytesPerElement);
}

std::vector<Token> promptOf(int n)
{
    std::vector<Token> tokens { 1 };
    for (int i = 1; i < n; ++i)
        tokens.push_back(Token(3 + (i * 37) % 300));
    return tokens;
}

} // namespace

class TestLongContext : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::shared_ptr<const Model> m_model;

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        synth::SynthOptions options;
        options.shape = *synth::shapeByName("tiny");
        options.shape.contextLength = 32768; // a long-context model at the tiny size
        options.type = DType::Q8_0;
        m_model = test::writeAndLoad(m_dir, QStringLiteral("long.gguf"), options);
    }

    void halfTheMemoryOfF32()
    {
        auto half = Session::create(m_model, cpuParams(1024, KvCacheType::F16));
        auto full = Session::create(m_model, cpuParams(1024, KvCacheType::F32));
        QVERIFY(half.ok() && full.ok());
        QCOMPARE((*half)->kvCacheBytes(), expectedCacheBytes(*m_model, 1024, 2));
        QCOMPARE((*full)->kvCacheBytes(), expectedCacheBytes(*m_model, 1024, 4));
        // The default is F16.
        SessionParams defaults;
        defaults.contextLength = 1024;
        auto session = Session::create(m_model, defaults);
        QVERIFY(session.ok());
        QCOMPARE((*session)->kvCacheBytes(), expectedCacheBytes(*m_model, 1024, 2));
    }

    void halvesStayCloseToFloats()
    {
        const std::vector<Token> prompt = promptOf(200);
        auto half = Session::create(m_model, cpuParams(1024, KvCacheType::F16));
        auto full = Session::create(m_model, cpuParams(1024, KvCacheType::F32));
        QVERIFY((*half)->prefill(prompt).ok() && (*full)->prefill(prompt).ok());
        const double error = test::relativeError((*half)->logits(), (*full)->logits());
        QVERIFY2(error > 0, "the F16 cache gave the F32 cache's logits bit for bit");
        QVERIFY2(error < 1e-2, qPrintable(QString::number(error)));
        // Decoded tokens read the halves through the one-query kernel.
        for (const Token t : { 5, 6, 7 })
            QVERIFY((*half)->decode(t).ok() && (*full)->decode(t).ok());
        QVERIFY(test::relativeError((*half)->logits(), (*full)->logits()) < 1e-2);
    }

    void q8_0CacheTakesLessAgain()
    {
        // The tiny model's heads are 16 wide, which Q8_0's blocks of 32 do not suit: F16 instead.
        auto narrow = Session::create(m_model, cpuParams(256, KvCacheType::Q8_0));
        QVERIFY(narrow.ok());
        QCOMPARE((*narrow)->kvCacheBytes(), expectedCacheBytes(*m_model, 256, 2));

        // qwen3-tiny: heads of 32.
        synth::SynthOptions options;
        options.architecture = "qwen3";
        options.shape = *synth::shapeByName("qwen3-tiny");
        const auto model = test::writeAndLoad(m_dir, QStringLiteral("qwen3.gguf"), options);
        auto q8 = Session::create(model, cpuParams(512, KvCacheType::Q8_0));
        auto full = Session::create(model, cpuParams(512, KvCacheType::F32));
        QVERIFY(q8.ok() && full.ok());
        // 2 layers x 512 positions x K and V x 2 heads of 32: 34 bytes per 32 elements.
        QCOMPARE((*q8)->kvCacheBytes(), std::uint64_t(2 * 512 * 2 * 64 / 32 * 34));
        const std::vector<Token> prompt = promptOf(150);
        QVERIFY((*q8)->prefill(prompt).ok() && (*full)->prefill(prompt).ok());
        const double error = test::relativeError((*q8)->logits(), (*full)->logits());
        qInfo("relative error of the logits with a Q8_0 cache against F32: %.2e", error);
        QVERIFY2(error > 0 && error < 1e-2, qPrintable(QString::number(error)));
        // Decoding reads the same blocks through the one-query kernels: as a prompt would.
        auto single = Session::create(model, cpuParams(512, KvCacheType::Q8_0));
        for (const Token t : prompt)
            QVERIFY((*single)->decode(t).ok());
        QVERIFY(test::relativeError((*single)->logits(), (*q8)->logits()) < 1e-4);
    }

    void prefillEqualsDecodeWithHalves()
    {
        const std::vector<Token> prompt = promptOf(40);
        auto batched = Session::create(m_model, cpuParams(256, KvCacheType::F16));
        auto single = Session::create(m_model, cpuParams(256, KvCacheType::F16));
        QVERIFY((*batched)->prefill(prompt).ok());
        for (const Token t : prompt)
            QVERIFY((*single)->decode(t).ok());
        QVERIFY(test::relativeError((*batched)->logits(), (*single)->logits()) < 1e-4);
    }

    void deviceSessionsKeepTheirCacheType_data()
    {
        QTest::addColumn<KvCacheType>("asked");
        QTest::addColumn<KvCacheType>("kept");
        QTest::newRow("f16") << KvCacheType::F16 << KvCacheType::F16;
        QTest::newRow("f32") << KvCacheType::F32 << KvCacheType::F32;
        // The device keeps no Q8_0 cache: the session's becomes F16 with it.
        QTest::newRow("q8_0") << KvCacheType::Q8_0 << KvCacheType::F16;
    }

    void deviceSessionsKeepTheirCacheType()
    {
        // Whole layers on the emulated device keep their caches in the session's type (F16
        // unless F32 is asked for) and copy their rows back into the host cache, which has that
        // type too: the logits are the CPU's with the same cache, prompts and decoded tokens, and
        // the VRAM plan counts the device's rows at that size.
        QFETCH(KvCacheType, asked);
        QFETCH(KvCacheType, kept);
        SessionParams params = cpuParams(256, asked);
        params.deviceOverride = "emulated:268435456";
        params.vramBudgetGiB = 0.25;
        auto session = Session::create(m_model, params);
        QVERIFY(session.ok());
        QVERIFY2((*session)->placement().gpuLayers > 0, (*session)->placementReport().c_str());
        QCOMPARE((*session)->kvCacheType(), kept);
        const int element = kept == KvCacheType::F32 ? 4 : 2;
        QCOMPARE((*session)->kvCacheBytes(), expectedCacheBytes(*m_model, 256, element));
        auto cpu = Session::create(m_model, cpuParams(256, kept));
        const std::vector<Token> prompt = promptOf(30);
        QVERIFY((*session)->prefill(prompt).ok() && (*cpu)->prefill(prompt).ok());
        QVERIFY(test::relativeError((*session)->logits(), (*cpu)->logits()) < 1e-4);
        for (const Token t : {5, 6, 7}) {
            QVERIFY((*session)->decode(t).ok() && (*cpu)->decode(t).ok());
            QVERIFY(test::relativeError((*session)->logits(), (*cpu)->logits()) < 1e-4);
        }
        // Back three tokens and on: the host rows the device mirrored carry the conversation.
        (*session)->truncate((*session)->position() - 3);
        (*cpu)->truncate((*cpu)->position() - 3);
        QVERIFY((*session)->decode(9).ok() && (*cpu)->decode(9).ok());
        QVERIFY(test::relativeError((*session)->logits(), (*cpu)->logits()) < 1e-4);
    }

    void a32kTokenSessionFillsItsContext()
    {
        constexpr int kContext = 32768;
        auto session = Session::create(m_model, cpuParams(kContext, KvCacheType::F16));
        QVERIFY2(session.ok(), session.message().c_str());
        QCOMPARE((*session)->contextLength(), kContext);
        // The memory figure: 2 layers x 32768 positions x K and V x 32 halves = 8 MiB.
        QCOMPARE((*session)->kvCacheBytes(), std::uint64_t(8) << 20);
        const std::vector<Token> prompt = promptOf(kContext - 1);
        QVERIFY((*session)->prefill(prompt).ok());
        QVERIFY((*session)->decode(9).ok());
        QCOMPARE((*session)->position(), kContext);
        for (const float l : (*session)->logits())
            QVERIFY(std::isfinite(l));
        QCOMPARE((*session)->decode(10).code(), ErrorCode::ContextFull);
        QCOMPARE((*session)->position(), kContext);
    }

    void slidingWindowLayersKeepTheirWindow()
    {
        // gemma3-tiny: 12 layers of 2 KV heads of 32, ten of them with a window of 8 keys.
        synth::SynthOptions options;
        options.architecture = "gemma3";
        options.shape = *synth::shapeByName("gemma3-tiny");
        options.ffnActivation = "geglu";
        const auto model = test::writeAndLoad(m_dir, QStringLiteral("gemma3.gguf"), options);
        constexpr int kContext = 2048;
        constexpr int kBatch = 16;
        SessionParams windowed = test::deviceSessionParams({}, 0, kContext, kBatch);
        // A batch as long as the context leaves the windowed layers room for every position.
        SessionParams everything = test::deviceSessionParams({}, 0, kContext, kContext);
        auto small = Session::create(model, windowed);
        auto full = Session::create(model, everything);
        QVERIFY(small.ok() && full.ok());
        // Rows: 2 global layers x 2048, 10 local ones x (7 older keys + 16 for a batch); 128
        // floats of K and V a row.
        const std::uint64_t rowBytes = 2 * 64 * 4;
        QCOMPARE((*full)->kvCacheBytes(), 12 * kContext * rowBytes);
        QCOMPARE((*small)->kvCacheBytes(), (2 * kContext + 10 * (7 + 16)) * rowBytes);
        QCOMPARE((*small)->kvCacheBytesAt(4096), (2 * 4096 + 10 * (7 + 16)) * rowBytes);

        // A long prompt moves the windows' rows many times; every logit stays what the full
        // cache gives, in prefill (batched, compared one by one below) and in decoding.
        const std::vector<Token> prompt = promptOf(300);
        QVERIFY((*small)->prefill(prompt).ok() && (*full)->prefill(prompt).ok());
        QVERIFY2(test::relativeError((*small)->logits(), (*full)->logits()) < 1e-4, "prefill");
        for (const Token t : { 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21 })
            QVERIFY((*small)->decode(t).ok() && (*full)->decode(t).ok());
        QVERIFY2(test::relativeError((*small)->logits(), (*full)->logits()) < 1e-4, "decode");

        // Whole layers on the emulated device keep as few rows there (positions take them in
        // turn) and mirror them into the host's window: the same logits, decoding past the rows.
        SessionParams onDevice = windowed;
        onDevice.deviceOverride = "emulated:268435456";
        onDevice.vramBudgetGiB = 0.25;
        auto device = Session::create(model, onDevice);
        QVERIFY(device.ok());
        QCOMPARE((*device)->placement().gpuLayers, 12);
        QVERIFY((*device)->prefill(prompt).ok());
        for (const Token t : { 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21 })
            QVERIFY((*device)->decode(t).ok());
        QVERIFY2(test::relativeError((*device)->logits(), (*full)->logits()) < 1e-4, "on the device");

        // The planner counts the same rows for the GPU: with everything placed, its KV cache is
        // the rows (the device's, F16 as the request's cache) of 2 global layers x 2048 and 10
        // local ones x (7 + 16).
        const QString path = m_dir.filePath(QStringLiteral("gemma3.gguf"));
        auto planner = PlacementModel::fromFile(path.toStdString());
        QVERIFY2(planner.ok(), planner.message().c_str());
        PlacementRequest request;
        request.budgetBytes = std::uint64_t(1) << 30;
        request.contextLength = kContext;
        request.batchSize = kBatch;
        auto plan = planner->plan(request);
        QVERIFY2(plan.ok(), plan.message().c_str());
        QCOMPARE(plan->gpu.kvCache, (2 * kContext + 10 * (7 + 16)) * rowBytes / 2);

        // Back by less than a window: the keys are still there and the session keeps its place.
        const int at = (*small)->position();
        (*small)->truncate(at - 3);
        QCOMPARE((*small)->position(), at - 3);
        // Back by more: the local layers let go of those keys, so the session starts over, and
        // prefilling again gives the full cache's logits.
        (*small)->truncate(100);
        QCOMPARE((*small)->position(), 0);
        (*full)->truncate(100);
        QCOMPARE((*full)->position(), 100);
        const std::vector<Token> again = promptOf(120);
        QVERIFY((*small)->prefill(again).ok());
        QVERIFY((*full)->prefill(std::span<const Token>(again).subspan(100)).ok());
        QVERIFY2(test::relativeError((*small)->logits(), (*full)->logits()) < 1e-4, "after starting over");
    }
};

QTEST_GUILESS_MAIN(TestLongContext)
#include "tst_long_context.moc"
