// SPDX-License-Identifier: MIT
#include <hearth/sampling.h>

#include <QTest>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

using hearth::Sampler;
using hearth::SamplingParams;
using hearth::Token;

namespace {

// Deterministic pseudo-random logits in [-8, 8): a fixed LCG, not the standard distributions.
std::vector<float> randomLogits(std::size_t n, std::uint64_t seed)
{
    std::vector<float> logits(n);
    std::uint64_t state = seed;
    for (auto& v : logits) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        v = static_cast<float>((state >> 40) % 16000) / 1000.0f - 8.0f;
    }
    return logits;
}

Token argmax(const std::vector<float>& logits)
{
    Token best = 0;
    for (std::size_t i = 1; i < logits.size(); ++i) {
        if (logits[i] > logits[static_cast<std::size_t>(best)])
            best = static_cast<Token>(i);
    }
    return best;
}

SamplingParams untruncated(std::uint64_t seed = 1)
{
    SamplingParams p;
    p.temperature = 1.0f;
    p.topK = 0;
    p.topP = 1.0f;
    p.minP = 0.0f;
    p.repeatPenalty = 1.0f;
    p.seed = seed;
    return p;
}

std::vector<Token> draw(Sampler& sampler, const std::vector<float>& logits, int count)
{
    std::vector<Token> tokens;
    for (int i = 0; i < count; ++i)
        tokens.push_back(sampler.sample(logits));
    return tokens;
}

} // namespace

class TestSampler : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void greedyIsArgmax()
    {
        for (std::uint64_t seed = 1; seed <= 5; ++seed) {
            const auto logits = randomLogits(32000, seed);
            Sampler sampler(SamplingParams::greedy());
            QCOMPARE(sampler.sample(logits), argmax(logits));
        }
    }

    void greedyTiesPickLowestId()
    {
        const std::vector<float> logits{1.0f, 3.0f, 2.0f, 3.0f};
        Sampler sampler(SamplingParams::greedy());
        QCOMPARE(sampler.sample(logits), Token(1));
    }

    void topKOneIsGreedy()
    {
        const auto logits = randomLogits(50000, 7);
        SamplingParams p = untruncated(99);
        p.topK = 1;
        p.temperature = 1.5f;
        Sampler sampler(p);
        for (int i = 0; i < 20; ++i)
            QCOMPARE(sampler.sample(logits), argmax(logits));
    }

    void sameSeedReproduces()
    {
        const auto logits = randomLogits(32000, 3);
        SamplingParams p; // defaults: top-k, top-p, min-p, repeat penalty
        p.temperature = 1.2f;
        p.minP = 0.0f;
        Sampler a(p);
        Sampler b(p);
        const auto first = draw(a, logits, 200);
        QCOMPARE(draw(b, logits, 200), first);

        p.seed += 1;
        Sampler c(p);
        QVERIFY(draw(c, logits, 200) != first);
    }

    void fixedSeedGivesFixedTokens()
    {
        // The draw is defined bit for bit (mt19937_64 + own uniform), so these hold on every platform.
        const std::vector<float> logits{0.0f, 0.0f, 0.0f, 0.0f};
        Sampler sampler(untruncated(42));
        std::mt19937_64 reference(42);
        for (int i = 0; i < 50; ++i) {
            const double u = static_cast<double>(reference() >> 11) * 0x1.0p-53;
            QCOMPARE(sampler.sample(logits), static_cast<Token>(u * 4));
        }
    }

    void distributionMatchesSoftmax()
    {
        const std::vector<float> logits{1.0f, 2.0f, 0.5f, -1.0f, 3.0f, 0.0f};
        double total = 0;
        std::vector<double> expected;
        for (float l : logits) {
            expected.push_back(std::exp(l));
            total += expected.back();
        }
        Sampler sampler(untruncated(2024));
        constexpr int draws = 20000;
        std::vector<int> counts(logits.size(), 0);
        for (int i = 0; i < draws; ++i) {
            const Token t = sampler.sample(logits);
            QVERIFY(t >= 0 && t < Token(logits.size()));
            ++counts[static_cast<std::size_t>(t)];
        }
        for (std::size_t i = 0; i < logits.size(); ++i) {
            const double p = expected[i] / total;
            const double observed = double(counts[i]) / draws;
            // ~5 standard deviations of a binomial proportion, plus a little slack.
            const double bound = 5 * std::sqrt(p * (1 - p) / draws) + 0.002;
            QVERIFY2(std::abs(observed - p) < bound,
                     qPrintable(QStringLiteral("token %1: observed %2, softmax %3").arg(i).arg(observed).arg(p)));
        }
    }

    void temperatureSharpens()
    {
        const std::vector<float> logits{1.0f, 2.0f};
        SamplingParams p = untruncated(5);
        p.temperature = 0.1f; // p(1) = 1 / (1 + e^-10)
        Sampler sampler(p);
        int ones = 0;
        for (int i = 0; i < 2000; ++i)
            ones += sampler.sample(logits) == 1;
        QVERIFY(ones > 1990);
    }

    void minPExcludes()
    {
        // Probabilities relative to the best: 1, e^-1 (0.37), e^-3 (0.05), e^-5 (0.007).
        const std::vector<float> logits{5.0f, 4.0f, 2.0f, 0.0f};
        SamplingParams p = untruncated(11);
        p.minP = 0.1f;
        Sampler sampler(p);
        std::vector<int> counts(4, 0);
        for (int i = 0; i < 4000; ++i)
            ++counts[static_cast<std::size_t>(sampler.sample(logits))];
        QVERIFY(counts[0] > 0);
        QVERIFY(counts[1] > 0);
        QCOMPARE(counts[2], 0);
        QCOMPARE(counts[3], 0);
    }

    void topPExcludes()
    {
        // Softmax of {ln 6, ln 3, ln 1} = {0.6, 0.3, 0.1}: top-p 0.85 keeps the first two only.
        const std::vector<float> logits{std::log(3.0f), std::log(1.0f), std::log(6.0f)};
        SamplingParams p = untruncated(12);
        p.topP = 0.85f;
        Sampler sampler(p);
        std::vector<int> counts(3, 0);
        for (int i = 0; i < 4000; ++i)
            ++counts[static_cast<std::size_t>(sampler.sample(logits))];
        QVERIFY(counts[2] > counts[0]);
        QVERIFY(counts[0] > 0);
        QCOMPARE(counts[1], 0);
    }

    void topPOnLargeVocabularyKeepsTheHead()
    {
        // One dominant token and a long flat tail: top-p 0.5 must always pick the dominant one,
        // exercising the incremental partial sort over a big vocabulary.
        std::vector<float> logits(128000, 0.0f);
        logits[77777] = 20.0f;
        SamplingParams p = untruncated(13);
        p.topP = 0.5f;
        Sampler sampler(p);
        for (int i = 0; i < 20; ++i)
            QCOMPARE(sampler.sample(logits), Token(77777));
    }

    void topKRestricts()
    {
        const auto logits = randomLogits(32000, 21);
        std::vector<Token> order(logits.size());
        for (std::size_t i = 0; i < order.size(); ++i)
            order[i] = static_cast<Token>(i);
        std::sort(order.begin(), order.end(), [&](Token a, Token b) {
            return logits[std::size_t(a)] > logits[std::size_t(b)];
        });
        const std::vector<Token> top(order.begin(), order.begin() + 5);
        SamplingParams p = untruncated(22);
        p.topK = 5;
        p.temperature = 5.0f; // flatten so that all five show up
        Sampler sampler(p);
        for (int i = 0; i < 500; ++i)
            QVERIFY(std::find(top.begin(), top.end(), sampler.sample(logits)) != top.end());
    }

    void repeatPenaltyChangesChoice()
    {
        const std::vector<float> logits{2.0f, 1.9f, -1.0f, -1.05f};
        SamplingParams p = SamplingParams::greedy();
        p.repeatPenalty = 1.5f;
        Sampler sampler(p);
        QCOMPARE(sampler.sample(logits), Token(0));
        sampler.accept(0); // 2.0 / 1.5 = 1.33 < 1.9
        QCOMPARE(sampler.sample(logits), Token(1));
        sampler.accept(1); // 1.9 / 1.5 = 1.27 < 1.33
        QCOMPARE(sampler.sample(logits), Token(0));

        // Negative logits are multiplied (pushed further down), never divided towards zero.
        const std::vector<float> negative{-1.0f, -1.2f};
        Sampler second(p);
        second.accept(0); // -1.0 * 1.5 = -1.5 < -1.2
        QCOMPARE(second.sample(negative), Token(1));
    }

    void repeatPenaltyWindow()
    {
        const std::vector<float> logits{2.0f, 1.9f, 0.0f};
        SamplingParams p = SamplingParams::greedy();
        p.repeatPenalty = 1.5f;
        p.repeatLastN = 2;
        Sampler sampler(p);
        sampler.accept(0);
        QCOMPARE(sampler.sample(logits), Token(1));
        sampler.accept(2);
        sampler.accept(2); // token 0 has left the window of the last two
        QCOMPARE(sampler.sample(logits), Token(0));
    }

    void presenceAndFrequencyPenalties()
    {
        const std::vector<float> logits{3.0f, 2.5f, 2.4f};
        SamplingParams p = SamplingParams::greedy();
        p.presencePenalty = 0.6f;
        Sampler presence(p);
        presence.accept(0);
        presence.accept(0);
        presence.accept(0); // presence is paid once: 3.0 - 0.6 = 2.4 < 2.5
        QCOMPARE(presence.sample(logits), Token(1));

        p = SamplingParams::greedy();
        p.frequencyPenalty = 0.2f;
        Sampler frequency(p);
        frequency.accept(0);
        frequency.accept(0); // 3.0 - 2 * 0.2 = 2.6 > 2.5
        QCOMPARE(frequency.sample(logits), Token(0));
        frequency.accept(0); // 3.0 - 3 * 0.2 = 2.4 < 2.5
        QCOMPARE(frequency.sample(logits), Token(1));
    }

    void resetClearsHistory()
    {
        const std::vector<float> logits{2.0f, 1.9f};
        SamplingParams p = SamplingParams::greedy();
        p.repeatPenalty = 2.0f;
        Sampler sampler(p);
        sampler.accept(0);
        QCOMPARE(sampler.sample(logits), Token(1));
        sampler.reset();
        QCOMPARE(sampler.sample(logits), Token(0));

        // reset() also restarts the random stream: same tokens as a fresh sampler.
        const auto random = randomLogits(1000, 4);
        Sampler drawing(untruncated(77));
        const auto first = draw(drawing, random, 50);
        drawing.reset();
        QCOMPARE(draw(drawing, random, 50), first);
    }

    void nanAndInfinityDoNotCrash()
    {
        const float nan = std::numeric_limits<float>::quiet_NaN();
        const float inf = std::numeric_limits<float>::infinity();
        Sampler greedy(SamplingParams::greedy());
        QCOMPARE(greedy.sample(std::vector<float>{nan, 1.0f, nan}), Token(1));
        QCOMPARE(greedy.sample(std::vector<float>{nan, nan}), Token(0));

        Sampler sampler(SamplingParams{});
        QCOMPARE(sampler.sample(std::vector<float>{nan, -inf, 0.5f, nan}), Token(2));
        QCOMPARE(sampler.sample(std::vector<float>{1.0f, inf, 2.0f}), Token(1));
        const Token t = sampler.sample(std::vector<float>{nan, nan, nan});
        QVERIFY(t >= 0 && t < 3);
        QCOMPARE(sampler.sample(std::vector<float>{}), hearth::InvalidToken);

        // Nonsense parameters are no reason to crash either.
        SamplingParams odd;
        odd.temperature = std::numeric_limits<float>::infinity();
        odd.topP = nan;
        odd.minP = nan;
        Sampler oddSampler(odd);
        QVERIFY(oddSampler.sample(std::vector<float>{-inf, 1.0f, 2.0f}) >= 1);
        odd.temperature = nan;
        Sampler nanTemperature(odd);
        QCOMPARE(nanTemperature.sample(std::vector<float>{0.0f, 1.0f}), Token(1));

        // Out-of-range history (a token from another vocabulary) is ignored.
        sampler.accept(1000000);
        sampler.accept(-5);
        QCOMPARE(greedy.sample(std::vector<float>{0.0f, 1.0f}), Token(1));
        QVERIFY(sampler.sample(std::vector<float>{0.0f, 1.0f}) >= 0);
    }

    void largeVocabularyIsFast()
    {
        // Not a timing assertion: prints the cost per call for the report and the log.
        const auto logits = randomLogits(128000, 9);
        SamplingParams p; // default pipeline, top-k 40
        Sampler sampler(p);
        for (Token t = 0; t < 64; ++t)
            sampler.accept(t * 7);
        constexpr int calls = 200;
        const auto start = std::chrono::steady_clock::now();
        for (int i = 0; i < calls; ++i)
            QVERIFY(sampler.sample(logits) >= 0);
        const auto usDefault =
            std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() / calls;

        p.topK = 0;
        p.minP = 0.0f;
        Sampler topPOnly(p);
        const auto start2 = std::chrono::steady_clock::now();
        for (int i = 0; i < calls; ++i)
            QVERIFY(topPOnly.sample(logits) >= 0);
        const auto usTopP =
            std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start2).count() / calls;
        qInfo("vocab 128000: %.0f us per sample (defaults), %.0f us (top-p 0.95 only)", usDefault, usTopP);
    }
};

QTEST_GUILESS_MAIN(TestSampler)
#include "tst_sampler.moc"
