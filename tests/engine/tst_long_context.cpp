// SPDX-License-Identifier: MIT
// The KV cache: F16 by default (half of F32's memory, which the session reports exactly), logits
// close to an F32 cache's but not equal to them (so the halves really are used), the same
// answers for a prompt in one batch and token by token, a device session keeping F32 rows, and
// a 32768-token session that fills its whole context within its memory figure.

#include "session_test_support.h"
#include "synth_test_support.h"
#include "synth/synthetic_model.h"

#include <hearth/model.h>
#include <hearth/session.h>

#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace hearth;

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

    void deviceSessionsKeepFloats()
    {
        // Whole layers on the emulated device copy their F32 rows back into the host cache.
        SessionParams params = cpuParams(256, KvCacheType::F16);
        params.deviceOverride = "emulated:268435456";
        params.vramBudgetGiB = 0.25;
        auto session = Session::create(m_model, params);
        QVERIFY(session.ok());
        QVERIFY2((*session)->placement().gpuLayers > 0, (*session)->placementReport().c_str());
        QCOMPARE((*session)->kvCacheBytes(), expectedCacheBytes(*m_model, 256, 4));
        auto cpu = Session::create(m_model, cpuParams(256, KvCacheType::F32));
        const std::vector<Token> prompt = promptOf(30);
        QVERIFY((*session)->prefill(prompt).ok() && (*cpu)->prefill(prompt).ok());
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
};

QTEST_GUILESS_MAIN(TestLongContext)
#include "tst_long_context.moc"
