// SPDX-License-Identifier: MIT
// Sessions: batched prefill against token-by-token decode, truncation, the context window,
// generation, and the real stories260K model against llama.cpp's reference logits.

#include "session_test_support.h"
#include "synth/synthetic_model.h"
#include "test_support.h"

#include <hearth/model.h>
#include <hearth/session.h>

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

using namespace hearth;
using test::maxAbsDiff;

namespace {

double meanAbsDiff(std::span<const float> a, std::span<const float> b)
{
    double sum = 0;
    for (std::size_t i = 0; i < a.size(); ++i)
        sum += std::abs(double(a[i]) - double(b[i]));
    return a.empty() ? 0.0 : sum / double(a.size());
}


Token argmax(std::span<const float> logits)
{
    return Token(std::max_element(logits.begin(), logits.end()) - logits.begin());
}

const std::vector<Token> kStoriesPrompt{1, 403, 407, 261, 378};
const std::vector<Token> kStoriesGenerated{
    432, 383, 286, 261, 376, 298, 315, 421, 395, 317, 426, 338, 401, 396, 267, 337, 410, 408, 419, 292, 411, 322,
    265, 282, 295, 433, 426, 385, 328, 432, 358, 394, 261, 370, 432, 352, 266, 268, 388, 426, 338, 391, 266, 267,
    337, 335, 312, 432, 398, 312, 286, 267, 414, 270, 333, 415, 426, 13,  438, 310, 439, 419, 357, 336};

// The reference logits come from llama.cpp, whose attention runs on an F16 KV cache (and
// F16-rounded queries and probabilities); Hearth's is F32 throughout. Its forward pass matches
// a double-precision plain-loop reference to ~1e-5 (tst_model), and against llama.cpp the
// error is F16 rounding noise: 2e-3 on average (logits span about +-20). The same pass with
// F16 attention matches the reference to < 2e-4 for the first 11 steps and then drifts to
// 4.9e-3, and that pass run with float32 instead of float64 products moves by 6.5e-3 on its own
// (scripts/dev/reference-logits.py): F16 rounding is discontinuous, so the last bit of a sum
// flips roundings the model amplifies. No other summation order can hold 1e-3 at every step.
// So the mean error is held to 3e-3, the largest single logit to 0.03, and every greedy
// token must agree.
constexpr double kReferenceMeanTolerance = 3e-3;
constexpr float kReferenceTolerance = 0.03f;

} // namespace

class TestSession : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::shared_ptr<const Model> m_tiny;

    std::unique_ptr<Session> tinySession(int contextLength = 0, int batchSize = 256)
    {
        SessionParams params;
        params.contextLength = contextLength;
        params.batchSize = batchSize;
        params.threads = 2;
        auto session = Session::create(m_tiny, params);
        if (!session) {
            qWarning("%s", session.message().c_str());
            return nullptr;
        }
        return std::move(session).value();
    }

    static std::vector<Token> someTokens(int n)
    {
        std::vector<Token> tokens{1};
        for (int i = 1; i < n; ++i)
            tokens.push_back(Token(3 + (i * 37) % 300));
        return tokens;
    }

    // Reference logits of stories260K: step k follows the prompt and k generated tokens.
    static std::vector<float> readReferenceLogits(const QString& path, int& vocab, int& steps)
    {
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly))
            return {};
        const QByteArray bytes = f.readAll();
        std::int32_t header[2];
        std::memcpy(header, bytes.constData(), sizeof header);
        vocab = header[0];
        steps = header[1];
        std::vector<float> logits(std::size_t(vocab) * std::size_t(steps));
        if (bytes.size() != qsizetype(sizeof header + logits.size() * sizeof(float)))
            return {};
        std::memcpy(logits.data(), bytes.constData() + sizeof header, logits.size() * sizeof(float));
        return logits;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        auto shape = synth::shapeByName("tiny");
        QVERIFY(shape.ok());
        synth::SynthOptions options;
        options.shape = *shape;
        options.type = DType::F32;
        const std::string path = m_dir.filePath(QStringLiteral("tiny.gguf")).toStdString();
        const Status written = synth::writeSyntheticModel(options, path);
        QVERIFY2(written.ok(), written.message().c_str());
        auto model = Model::load(path);
        QVERIFY2(model.ok(), model.message().c_str());
        m_tiny = *model;
    }

    void rejectsBadParameters()
    {
        SessionParams params;
        params.contextLength = 5000;
        QCOMPARE(Session::create(m_tiny, params).code(), ErrorCode::InvalidArgument);
        params.contextLength = -1;
        QCOMPARE(Session::create(m_tiny, params).code(), ErrorCode::InvalidArgument);
        params = {};
        params.batchSize = 0;
        QCOMPARE(Session::create(m_tiny, params).code(), ErrorCode::InvalidArgument);
        QCOMPARE(Session::create(nullptr).code(), ErrorCode::InvalidArgument);

        auto session = tinySession();
        QVERIFY(session);
        QCOMPARE(session->contextLength(), m_tiny->info().trainedContextLength);
        QCOMPARE(session->prefill({}).code(), ErrorCode::InvalidArgument);
        QCOMPARE(session->decode(m_tiny->info().vocabSize).code(), ErrorCode::InvalidArgument);
        QCOMPARE(session->decode(-1).code(), ErrorCode::InvalidArgument);
        QCOMPARE(session->position(), 0);
        QVERIFY(session->logits().empty());
    }

    // The batched path (several batch sizes) and single-token decode must agree at every step.
    void prefillEqualsDecodes_data()
    {
        QTest::addColumn<int>("batchSize");
        QTest::newRow("one batch") << 256;
        QTest::newRow("batches of 5") << 5;
    }

    void prefillEqualsDecodes()
    {
        QFETCH(int, batchSize);
        const std::vector<Token> tokens = someTokens(23);
        const std::size_t vocab = std::size_t(m_tiny->info().vocabSize);

        auto batched = tinySession(0, batchSize);
        QVERIFY(batched);
        std::vector<float> all;
        QVERIFY(batched->evaluateAll(tokens, all).ok());
        QCOMPARE(batched->position(), int(tokens.size()));
        QVERIFY(std::equal(tokens.begin(), tokens.end(), batched->history().begin(), batched->history().end()));
        QVERIFY(maxAbsDiff(batched->logits(), std::span<const float>(all).last(vocab)) == 0.0f);

        auto prefilled = tinySession(0, batchSize);
        QVERIFY(prefilled->prefill(tokens).ok());
        QVERIFY(maxAbsDiff(prefilled->logits(), batched->logits()) < 1e-4f);

        auto single = tinySession();
        for (std::size_t t = 0; t < tokens.size(); ++t) {
            QVERIFY(single->decode(tokens[t]).ok());
            const float diff = maxAbsDiff(single->logits(), std::span<const float>(all).subspan(t * vocab, vocab));
            QVERIFY2(diff < 1e-4f, qPrintable(QStringLiteral("step %1: %2").arg(t).arg(diff)));
        }
    }

    void truncateAndRedecode()
    {
        const std::vector<Token> tokens = someTokens(12);
        const std::size_t vocab = std::size_t(m_tiny->info().vocabSize);
        auto session = tinySession();
        std::vector<float> all;
        QVERIFY(session->evaluateAll(tokens, all).ok());

        session->truncate(7);
        QCOMPARE(session->position(), 7);
        QCOMPARE(session->history().size(), std::size_t(7));
        QVERIFY(session->logits().empty()); // they belonged to a dropped token
        for (std::size_t t = 7; t < tokens.size(); ++t) {
            QVERIFY(session->decode(tokens[t]).ok());
            QVERIFY(maxAbsDiff(session->logits(), std::span<const float>(all).subspan(t * vocab, vocab)) < 1e-4f);
        }
        // A different continuation after truncation must not see the dropped tokens.
        session->truncate(3);
        QVERIFY(session->decode(tokens[3]).ok());
        QVERIFY(maxAbsDiff(session->logits(), std::span<const float>(all).subspan(3 * vocab, vocab)) < 1e-4f);

        session->truncate(100); // beyond the end: nothing to drop
        QCOMPARE(session->position(), 4);
        session->reset();
        QCOMPARE(session->position(), 0);
        QVERIFY(session->decode(tokens[0]).ok());
        QVERIFY(maxAbsDiff(session->logits(), std::span<const float>(all).first(vocab)) < 1e-4f);
    }

    void contextFullLeavesSessionUnchanged()
    {
        auto session = tinySession(16, 4);
        QVERIFY(session);
        QCOMPARE(session->contextLength(), 16);
        const std::vector<Token> tokens = someTokens(16);
        QVERIFY(session->prefill(std::span<const Token>(tokens).first(10)).ok());
        const std::vector<float> before(session->logits().begin(), session->logits().end());

        const Status full = session->prefill(std::span<const Token>(tokens).first(7));
        QCOMPARE(full.code(), ErrorCode::ContextFull);
        QCOMPARE(session->position(), 10);
        QVERIFY(maxAbsDiff(session->logits(), before) == 0.0f);
        std::vector<float> all;
        QCOMPARE(session->evaluateAll(std::span<const Token>(tokens).first(7), all).code(), ErrorCode::ContextFull);
        QCOMPARE(session->position(), 10);

        QVERIFY(session->prefill(std::span<const Token>(tokens).subspan(10, 6)).ok());
        QCOMPARE(session->position(), 16);
        QCOMPARE(session->decode(5).code(), ErrorCode::ContextFull);
        QCOMPARE(session->position(), 16);

        // Generation stops cleanly at the window's end.
        session->truncate(13);
        Sampler sampler(SamplingParams::greedy());
        int calls = 0;
        auto stats = session->generate({}, sampler, 100, [&calls](Token, const std::string&) { return ++calls > 0; });
        QVERIFY2(stats.ok(), stats.message().c_str());
        QCOMPARE(stats->stopReason, StopReason::ContextFull);
        QCOMPARE(stats->generatedTokens, 3);
        QCOMPARE(session->position(), 16);
    }

    void generateStopsAndStreams()
    {
        auto session = tinySession();
        const std::vector<Token> prompt = someTokens(6);
        Sampler sampler(SamplingParams::greedy());
        std::vector<Token> seen;
        auto stats = session->generate(prompt, sampler, 5, [&seen](Token t, const std::string&) {
            seen.push_back(t);
            return true;
        });
        QVERIFY2(stats.ok(), stats.message().c_str());
        QCOMPARE(stats->promptTokens, 6);
        QVERIFY(stats->stopReason == StopReason::MaxTokens || stats->stopReason == StopReason::EndOfGeneration);
        QCOMPARE(int(seen.size()), stats->generatedTokens);
        QCOMPARE(session->position(), 6 + stats->generatedTokens);
        QVERIFY(stats->promptSeconds >= 0 && stats->generateSeconds >= 0);

        // Greedy generation is a function of the context: the same prompt gives the same tokens.
        auto again = tinySession();
        Sampler sampler2(SamplingParams::greedy());
        int calls = 0;
        std::vector<Token> seen2;
        auto cancelled = again->generate(prompt, sampler2, 50, [&](Token t, const std::string&) {
            seen2.push_back(t);
            return ++calls < 2;
        });
        QVERIFY(cancelled.ok());
        if (stats->generatedTokens >= 2) {
            QCOMPARE(cancelled->stopReason, StopReason::Cancelled);
            QCOMPARE(cancelled->generatedTokens, 2);
            QCOMPARE(seen2[0], seen[0]);
            QCOMPARE(seen2[1], seen[1]);
            QCOMPARE(again->position(), 8); // every token shown is in the cache
        }
    }

    void buildInfoIsFilled()
    {
        const BuildInfo info = buildInfo();
        QVERIFY(!info.version.empty());
        QVERIFY(info.cpuKernels == "scalar" || info.cpuKernels == "avx2" || info.cpuKernels == "avx512");
    }

    // ---- the real model ----

    void storiesTokenByToken()
    {
        HEARTH_REQUIRE_SHARED(modelPath, "models/stories260K.gguf");
        HEARTH_REQUIRE_SHARED(logitsPath, "models/stories260K.once-upon-a-time.logits.f32");
        int vocab = 0, steps = 0;
        const std::vector<float> reference = readReferenceLogits(logitsPath, vocab, steps);
        QVERIFY(!reference.empty());
        QCOMPARE(vocab, 512);
        QCOMPARE(steps, 64);

        auto model = Model::load(modelPath.toStdString());
        QVERIFY2(model.ok(), model.message().c_str());
        QCOMPARE((*model)->info().vocabSize, 512);
        const std::vector<Token> prompt = (*model)->tokenizer().encode("Once upon a time", true, false);
        QCOMPARE(prompt, kStoriesPrompt);

        SessionParams params;
        params.kvCache = KvCacheType::F32; // compared with a float reference
        params.contextLength = 512; // the metadata says 128; the model was trained on 512
        params.threads = 2;
        auto session = Session::create(*model, params);
        QVERIFY2(session.ok(), session.message().c_str());
        QVERIFY((*session)->prefill(prompt).ok());
        float worst = 0;
        double mean = 0;
        for (int k = 0; k < steps; ++k) {
            const auto logits = (*session)->logits();
            const auto expected = std::span<const float>(reference).subspan(std::size_t(k) * 512, 512);
            worst = std::max(worst, maxAbsDiff(logits, expected));
            mean += meanAbsDiff(logits, expected) / steps;
            QCOMPARE(argmax(logits), kStoriesGenerated[std::size_t(k)]);
            QVERIFY((*session)->decode(kStoriesGenerated[std::size_t(k)]).ok());
        }
        qDebug("|logit - reference| over %d steps: mean %g, max %g", steps, mean, double(worst));
        QVERIFY2(mean < kReferenceMeanTolerance, qPrintable(QString::number(mean)));
        QVERIFY2(worst < kReferenceTolerance, qPrintable(QString::number(worst)));
    }

    void storiesWholeSequenceAtOnce()
    {
        HEARTH_REQUIRE_SHARED(modelPath, "models/stories260K.gguf");
        HEARTH_REQUIRE_SHARED(logitsPath, "models/stories260K.once-upon-a-time.logits.f32");
        int vocab = 0, steps = 0;
        const std::vector<float> reference = readReferenceLogits(logitsPath, vocab, steps);
        QVERIFY(!reference.empty());
        auto model = Model::load(modelPath.toStdString());
        QVERIFY(model.ok());
        SessionParams params;
        params.kvCache = KvCacheType::F32; // compared with a float reference
        params.contextLength = 512;
        params.threads = 2;
        auto session = Session::create(*model, params);
        QVERIFY(session.ok());

        std::vector<Token> sequence = kStoriesPrompt;
        sequence.insert(sequence.end(), kStoriesGenerated.begin(), kStoriesGenerated.end() - 1);
        std::vector<float> all;
        QVERIFY((*session)->evaluateAll(sequence, all).ok());
        float worst = 0;
        double mean = 0;
        for (int k = 0; k < steps; ++k) {
            const std::size_t row = kStoriesPrompt.size() - 1 + std::size_t(k);
            const auto actual = std::span<const float>(all).subspan(row * 512, 512);
            const auto expected = std::span<const float>(reference).subspan(std::size_t(k) * 512, 512);
            worst = std::max(worst, maxAbsDiff(actual, expected));
            mean += meanAbsDiff(actual, expected) / steps;
        }
        qDebug("|logit - reference| over %d steps: mean %g, max %g", steps, mean, double(worst));
        QVERIFY2(mean < kReferenceMeanTolerance, qPrintable(QString::number(mean)));
        QVERIFY2(worst < kReferenceTolerance, qPrintable(QString::number(worst)));
    }

    void storiesGenerateGreedy()
    {
        HEARTH_REQUIRE_SHARED(modelPath, "models/stories260K.gguf");
        auto model = Model::load(modelPath.toStdString());
        QVERIFY(model.ok());
        SessionParams params;
        params.contextLength = 512;
        params.threads = 2;
        auto session = Session::create(*model, params);
        QVERIFY(session.ok());
        Sampler sampler(SamplingParams::greedy());
        std::vector<Token> tokens;
        std::string text;
        auto stats = (*session)->generate(kStoriesPrompt, sampler, 64, [&](Token t, const std::string& piece) {
            tokens.push_back(t);
            text += piece;
            return true;
        });
        QVERIFY2(stats.ok(), stats.message().c_str());
        QCOMPARE(stats->stopReason, StopReason::MaxTokens);
        QCOMPARE(stats->generatedTokens, 64);
        QCOMPARE(stats->promptTokens, 5);
        QCOMPARE(tokens, kStoriesGenerated);
        QVERIFY2(text.starts_with(", there was a little girl named Lily. She loved to play outside in the park."),
                 text.c_str());
        QVERIFY(text.ends_with("Lily's mom said"));
    }
};

QTEST_GUILESS_MAIN(TestSession)
#include "tst_session.moc"
