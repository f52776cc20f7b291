// SPDX-License-Identifier: MIT
// Llama 3.1's RoPE frequency scaling (rope_freqs.weight): the factors follow the published
// formula, factors of one change nothing, the real ones change the logits, prefill equals decode,
// and the emulated device's attention (the CUDA path's CPU twin) applies them as the CPU does.

#include "model/llama_model.h"
#include "model/rope_scaling.h"
#include "session_test_support.h"
#include "synth_test_support.h"
#include "synth/synthetic_model.h"

#include <hearth/model.h>
#include <hearth/session.h>

#include <QTemporaryDir>
#include <QTest>

using namespace hearth;

namespace {

std::vector<float> lastLogits(const std::shared_ptr<const Model>& model, const SessionParams& params, const std::vector<Token>& prompt)
{
    auto session = Session::create(model, params);
    if (!session || !(*session)->prefill(prompt).ok())
        return {};
    return { (*session)->logits().begin(), (*session)->logits().end() };
}

} // namespace

class TestLlama3Rope : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    synth::SynthOptions m_options;
    const std::vector<Token> m_prompt { 1, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54 };

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_options.shape = *synth::shapeByName("llama3-tiny");
        m_options.type = DType::F32;
    }

    void factorsFollowTheFormula()
    {
        // Llama 3.1 8B: head size 128, base 500000, factor 8 below 1/4 of the 8192 original context.
        const std::vector<float> f = model::llama3RopeFactors(128, 500000.0f, {});
        QCOMPARE(f.size(), std::size_t(64));
        QCOMPARE(f.front(), 1.0f); // the fastest pairs are kept
        QCOMPARE(f.back(), 8.0f);  // the slowest slowed by the factor
        for (std::size_t i = 1; i < f.size(); ++i)
            QVERIFY(f[i] >= f[i - 1]); // the blend in between rises monotonically
        QVERIFY(std::any_of(f.begin(), f.end(), [](float x) { return x > 1.0f && x < 8.0f; }));
    }

    void factorsReachTheLogits()
    {
        const auto scaled = test::writeAndLoad(m_dir, QStringLiteral("scaled.gguf"), m_options);
        const auto* llama = dynamic_cast<const model::LlamaModel*>(scaled.get());
        QVERIFY(llama && llama->weights().ropeFreqs);
        synth::SynthOptions plain = m_options;
        plain.shape.llama3Rope.factor = 0; // the same weights without rope_freqs
        const auto unscaled = test::writeAndLoad(m_dir, QStringLiteral("plain.gguf"), plain);
        QVERIFY(!dynamic_cast<const model::LlamaModel*>(unscaled.get())->weights().ropeFreqs);

        const SessionParams cpu = test::deviceSessionParams({}, 0, 256, 64);
        const std::vector<float> withFactors = lastLogits(scaled, cpu, m_prompt);
        const std::vector<float> without = lastLogits(unscaled, cpu, m_prompt);
        QVERIFY(!withFactors.empty() && withFactors.size() == without.size());
        // Switching the scaling off changes the logits (position 15 rotates the slow pairs).
        QVERIFY2(test::relativeError(withFactors, without) > 1e-4, "rope_freqs changed nothing");
    }

    void prefillEqualsDecode()
    {
        const auto model = test::writeAndLoad(m_dir, QStringLiteral("scaled2.gguf"), m_options);
        const SessionParams cpu = test::deviceSessionParams({}, 0, 256, 64);
        const std::vector<float> batched = lastLogits(model, cpu, m_prompt);
        auto session = Session::create(model, cpu);
        QVERIFY(session.ok());
        for (const Token t : m_prompt)
            QVERIFY((*session)->decode(t).ok());
        QVERIFY(test::relativeError(batched, (*session)->logits()) < 1e-4);
    }

    void theEmulatedDeviceAppliesThem()
    {
        const auto model = test::writeAndLoad(m_dir, QStringLiteral("scaled3.gguf"), m_options);
        const std::vector<float> onCpu = lastLogits(model, test::deviceSessionParams({}, 0, 256, 64), m_prompt);
        // Whole layers (attention with its RoPE) on the emulated device.
        const SessionParams device = test::deviceSessionParams("emulated:268435456", 0.25, 256, 64);
        auto session = Session::create(model, device);
        QVERIFY(session.ok());
        QVERIFY2((*session)->placement().gpuLayers == 2, (*session)->placementReport().c_str());
        QVERIFY((*session)->prefill(m_prompt).ok());
        QVERIFY2(test::relativeError(onCpu, (*session)->logits()) < 1e-4, (*session)->placementReport().c_str());
    }
};

QTEST_GUILESS_MAIN(TestLlama3Rope)
#include "tst_llama3_rope.moc"
