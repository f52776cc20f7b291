// SPDX-License-Identifier: MIT
// Speculative decoding: with any drafter (the model itself, another model of the same
// vocabulary, the conversation's own text) the session samples the tokens it would sample
// without one, keeps exactly them in its cache, and stops where it would.

#include "session_test_support.h"
#include "synth/synthetic_model.h"
#include "synth/synthetic_sparse.h"
#include "synth_test_support.h"

#include <hearth/model.h>
#include <hearth/session.h>
#include <hearth/speculative.h>

#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <vector>

using namespace hearth;
using test::maxAbsDiff;

namespace {

const std::vector<Token> kPrompt{1, 40, 77, 114, 151, 188, 225, 262};

struct Generated {
    std::vector<Token> tokens;
    GenerationStats stats;
};

} // namespace

class TestSpeculative : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::shared_ptr<const Model> m_model;   // tiny, F32
    std::shared_ptr<const Model> m_other;   // the same shape, other weights
    std::shared_ptr<const Model> m_quantized; // the same weights in Q8_0: a close guesser

    std::unique_ptr<Session> session(const std::shared_ptr<const Model>& model, int contextLength = 0)
    {
        SessionParams params;
        params.threads = 2;
        params.contextLength = contextLength;
        auto made = Session::create(model, params);
        if (!made)
            qFatal("%s", made.message().c_str());
        return std::move(made).value();
    }

    static SamplingParams sampling(bool greedy)
    {
        if (greedy)
            return SamplingParams::greedy();
        SamplingParams p;
        p.temperature = 0.9f;
        p.seed = 7;
        return p;
    }

    // Generates from kPrompt; @p stopAfter > 0 stops after that many tokens through the callback.
    static Generated generate(Session& s, bool greedy, int maxTokens, Drafter* drafter, int stopAfter = 0)
    {
        Sampler sampler(sampling(greedy));
        Generated out;
        auto stats = s.generate(kPrompt, sampler, maxTokens, [&](Token token, const std::string&) {
            out.tokens.push_back(token);
            return stopAfter == 0 || int(out.tokens.size()) < stopAfter;
        }, drafter);
        if (!stats)
            qFatal("%s", stats.message().c_str());
        out.stats = *stats;
        return out;
    }

    // The random models are never sure of a token (their largest probabilities are a few per
    // cent), so their guesses are taken at any probability unless @p minProbability says otherwise.
    std::unique_ptr<DraftModel> draftModel(const std::shared_ptr<const Model>& draft, int maxDraft = 4,
                                           float minProbability = 0.0f)
    {
        SessionParams params;
        params.threads = 2;
        auto made = DraftModel::create(draft, *m_model, params, maxDraft, minProbability);
        if (!made)
            qFatal("%s", made.message().c_str());
        return std::move(made).value();
    }

    // The session's cache holds exactly its history: the next token's logits equal a fresh
    // session's over the same tokens.
    void checkCacheHoldsItsHistory(Session& s)
    {
        std::vector<Token> all(s.history().begin(), s.history().end());
        all.push_back(Token(99));
        QVERIFY(s.decode(99).ok());
        auto fresh = session(m_model, s.contextLength());
        QVERIFY(fresh->prefill(all).ok());
        QVERIFY2(maxAbsDiff(s.logits(), fresh->logits()) < 1e-4f, qPrintable(QString::number(maxAbsDiff(s.logits(), fresh->logits()))));
    }

    // Greedy generation of @p tokens in two sessions of @p model made with @p params, one with
    // @p guesser guessing up to @p maxDraft tokens (at any probability): the same tokens, and the
    // caches then hold the same (the next token's logits agree; on a device too, whose sessions
    // must use it). The guessing run's statistics.
    GenerationStats checkGuessesKeepTheAnswer(const std::shared_ptr<const Model>& model, const SessionParams& params,
                                              const std::shared_ptr<const Model>& guesser, int maxDraft, int tokens)
    {
        auto plain = Session::create(model, params);
        auto s = Session::create(model, params);
        if (!plain || !s) {
            QTest::qFail((plain ? s.message() : plain.message()).c_str(), __FILE__, __LINE__);
            return {};
        }
        if (!params.deviceOverride.empty() && !(*s)->placement().usesGpu())
            QTest::qFail((*s)->placementReport().c_str(), __FILE__, __LINE__);
        SessionParams draftParams;
        draftParams.threads = 2;
        auto drafter = DraftModel::create(guesser, *model, draftParams, maxDraft, 0.0f);
        if (!drafter) {
            QTest::qFail(drafter.message().c_str(), __FILE__, __LINE__);
            return {};
        }
        const Generated expected = generate(**plain, true, tokens, nullptr);
        const Generated got = generate(**s, true, tokens, drafter->get());
        if (got.tokens != expected.tokens)
            QTest::qFail("the guesses changed the answer", __FILE__, __LINE__);
        if (!(*s)->decode(99).ok() || !(*plain)->decode(99).ok()
            || maxAbsDiff((*s)->logits(), (*plain)->logits()) >= 1e-3f)
            QTest::qFail("the caches hold different rows after the guesses", __FILE__, __LINE__);
        return got.stats;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        synth::SynthOptions options;
        options.shape = *synth::shapeByName("tiny");
        options.type = DType::F32;
        m_model = test::writeAndLoad(m_dir, QStringLiteral("tiny.gguf"), options);
        options.type = DType::Q8_0;
        m_quantized = test::writeAndLoad(m_dir, QStringLiteral("tiny-q8.gguf"), options);
        options.type = DType::F32;
        options.seed = 7;
        m_other = test::writeAndLoad(m_dir, QStringLiteral("other.gguf"), options);
    }

    void guessesLeaveTheAnswerUnchanged_data()
    {
        QTest::addColumn<QString>("drafter");
        QTest::addColumn<bool>("greedy");
        for (const char* drafter : {"itself", "quantized", "other", "lookup"}) {
            QTest::addRow("%s greedy", drafter) << QString::fromLatin1(drafter) << true;
            QTest::addRow("%s sampled", drafter) << QString::fromLatin1(drafter) << false;
        }
    }

    void guessesLeaveTheAnswerUnchanged()
    {
        QFETCH(QString, drafter);
        QFETCH(bool, greedy);
        constexpr int tokens = 48;
        auto plain = session(m_model);
        const Generated expected = generate(*plain, greedy, tokens, nullptr);
        QCOMPARE(int(expected.tokens.size()), tokens);

        PromptLookup lookup;
        std::unique_ptr<DraftModel> model;
        if (drafter != QLatin1String("lookup"))
            model = draftModel(drafter == QLatin1String("itself") ? m_model
                               : drafter == QLatin1String("quantized") ? m_quantized
                                                                       : m_other);
        Drafter* guesser = model ? static_cast<Drafter*>(model.get()) : &lookup;
        auto s = session(m_model);
        const Generated got = generate(*s, greedy, tokens, guesser);
        QCOMPARE(got.tokens, expected.tokens);
        QCOMPARE(got.stats.generatedTokens, tokens);
        QCOMPARE(got.stats.stopReason, StopReason::MaxTokens);
        std::vector<Token> history(kPrompt);
        history.insert(history.end(), got.tokens.begin(), got.tokens.end());
        QVERIFY(std::equal(history.begin(), history.end(), s->history().begin(), s->history().end()));
        qInfo("%s: %d of %d guesses taken", qPrintable(drafter), got.stats.acceptedTokens, got.stats.draftedTokens);
        QVERIFY(got.stats.acceptedTokens <= got.stats.draftedTokens);
        if (model) {
            QVERIFY(got.stats.draftedTokens > 0);
            // The model guessing for itself greedily is right but for rounding; a random other
            // model is right about as often as chance.
            if (drafter == QLatin1String("itself") && greedy)
                QVERIFY2(got.stats.acceptedTokens * 10 >= got.stats.draftedTokens * 9,
                         qPrintable(QStringLiteral("%1 of %2").arg(got.stats.acceptedTokens).arg(got.stats.draftedTokens)));
            if (drafter == QLatin1String("other"))
                QVERIFY(got.stats.acceptedTokens * 4 < got.stats.draftedTokens);
        }
        checkCacheHoldsItsHistory(*s);
    }

    void guessesOnTheDevice_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<double>("budgetGiB");
        QTest::addRow("dense, every layer") << QStringLiteral("dense") << 1.0;
        QTest::addRow("sparse, hot neurons") << QStringLiteral("sparse") << 0.0005;
        QTest::addRow("mixture, some experts") << QStringLiteral("moe") << 0.0005;
    }

    void guessesOnTheDevice()
    {
        // Sessions with work on the (emulated) device check guesses in the same batched passes
        // and truncate their device caches as the CPU's.
        QFETCH(QString, kind);
        QFETCH(double, budgetGiB);
        std::shared_ptr<const Model> model;
        if (kind == QLatin1String("dense")) {
            model = m_model;
        } else if (kind == QLatin1String("sparse")) {
            synth::SynthOptions o;
            o.shape = *synth::shapeByName("tiny");
            o.type = DType::F32;
            o.ffnActivation = "reglu";
            synth::SparseSynthOptions sparse;
            sparse.sparsity = 0.7;
            sparse.predictorHidden = 32;
            const std::string path = m_dir.filePath(QStringLiteral("sparse.gguf")).toStdString();
            QVERIFY(synth::writeSparseSyntheticModel(o, sparse, path).ok());
            auto loaded = Model::load(path);
            QVERIFY2(loaded.ok(), loaded.message().c_str());
            model = *loaded;
        } else {
            model = test::writeAndLoad(m_dir, QStringLiteral("moe.gguf"), test::familyOptions(QStringLiteral("qwen3moe"), QStringLiteral("qwen3moe-tiny")));
        }
        const GenerationStats stats =
            checkGuessesKeepTheAnswer(model, test::deviceSessionParams("emulated:1073741824", budgetGiB, 96, 8), model, 4, 40);
        QVERIFY(stats.acceptedTokens > 0);
    }

    void slidingWindowModels_data()
    {
        QTest::addColumn<QString>("architecture");
        QTest::addColumn<QString>("shape");
        QTest::addColumn<int>("maxDraft");
        QTest::addColumn<int>("batchSize");
        QTest::addRow("mistral") << QStringLiteral("llama") << QStringLiteral("mistral-tiny") << 6 << 4;
        QTest::addRow("gemma 3") << QStringLiteral("gemma3") << QStringLiteral("gemma3-tiny") << 6 << 4;
        // Passes longer than the window and its batch, guesses from a Q8_0 copy (right but now and
        // then): a pass cut back by more than two tokens has dropped the keys, computed again.
        QTest::addRow("mistral, passes past the window") << QStringLiteral("llama") << QStringLiteral("mistral-tiny") << 12 << 2;
    }

    void slidingWindowModels()
    {
        // Windows of 8 tokens: a pass cut back after a wrong guess must still find the keys its
        // window sees (or compute them again), so that the answer stays the plain one.
        QFETCH(QString, architecture);
        QFETCH(QString, shape);
        QFETCH(int, maxDraft);
        QFETCH(int, batchSize);
        const auto model = test::writeAndLoad(m_dir, shape + QStringLiteral(".gguf"), test::familyOptions(architecture, shape));
        SessionParams params;
        params.threads = 2;
        params.contextLength = 96;
        params.batchSize = batchSize;
        const auto guesser = maxDraft > 6 ? test::writeAndLoad(m_dir, shape + QStringLiteral("-q8.gguf"),
                                                               test::familyOptions(architecture, shape, DType::Q8_0))
                                          : model;
        QVERIFY(checkGuessesKeepTheAnswer(model, params, guesser, maxDraft, 60).draftedTokens > 0);
    }

    void draftSessionFollowsItsModel()
    {
        // Onto the device's memory the model left when the model is there under an automatic
        // budget; on the CPU under a budget of the user's or with the model on the CPU.
        const SessionParams onDevice = test::deviceSessionParams("emulated:1073741824", -1, 96, 8);
        auto target = Session::create(m_model, onDevice);
        QVERIFY(target.ok() && (*target)->placement().usesGpu());
        SessionParams draft = DraftModel::sessionParamsFor(**target, onDevice);
        QCOMPARE(draft.vramBudgetGiB, -1.0);
        QCOMPARE(draft.deviceOverride, onDevice.deviceOverride);
        QCOMPARE(draft.contextLength, 96);
        QCOMPARE(draft.threads, 2);
        QCOMPARE(draft.kvCache, onDevice.kvCache);
        const SessionParams budgeted = test::deviceSessionParams("emulated:1073741824", 1.0, 96, 8);
        target = Session::create(m_model, budgeted);
        QVERIFY(target.ok() && (*target)->placement().usesGpu());
        QCOMPARE(DraftModel::sessionParamsFor(**target, budgeted).vramBudgetGiB, 0.0);
        auto cpu = session(m_model, 64);
        QCOMPARE(DraftModel::sessionParamsFor(*cpu, SessionParams{}).vramBudgetGiB, 0.0);
    }

    void unsureGuessesAreNotChecked()
    {
        auto drafter = draftModel(m_model, 4, 0.75f);
        auto plain = session(m_model);
        auto s = session(m_model);
        const Generated got = generate(*s, true, 24, drafter.get());
        QCOMPARE(got.tokens, generate(*plain, true, 24, nullptr).tokens);
        QCOMPARE(got.stats.draftedTokens, 0);
    }

    void limitsEndItWhereTheyWould()
    {
        auto drafter = draftModel(m_model, 4);
        // The token limit inside a batch of guesses.
        for (int limit : {1, 2, 5, 6}) {
            auto s = session(m_model);
            const Generated got = generate(*s, true, limit, drafter.get());
            QCOMPARE(int(got.tokens.size()), limit);
            QCOMPARE(s->position(), int(kPrompt.size()) + limit);
            QCOMPARE(got.stats.stopReason, StopReason::MaxTokens);
        }
        // A full context: the same tokens as without guesses, up to the last position.
        auto plain = session(m_model, 32);
        const Generated expected = generate(*plain, true, 100, nullptr);
        auto s = session(m_model, 32);
        const Generated got = generate(*s, true, 100, drafter.get());
        QCOMPARE(got.stats.stopReason, StopReason::ContextFull);
        QCOMPARE(s->position(), 32);
        QCOMPARE(got.tokens, expected.tokens);
        // Stopped by the caller: every token it saw is in the cache, and nothing else.
        for (int stopAfter : {1, 3, 7}) {
            auto stopped = session(m_model);
            const Generated cut = generate(*stopped, true, 100, drafter.get(), stopAfter);
            QCOMPARE(cut.stats.stopReason, StopReason::Cancelled);
            QCOMPARE(int(cut.tokens.size()), stopAfter);
            QCOMPARE(stopped->position(), int(kPrompt.size()) + stopAfter);
            checkCacheHoldsItsHistory(*stopped);
        }
    }

    void conversationGoesOnAfterGuesses()
    {
        // A second turn in the same sessions (the draft session follows the new history).
        auto drafter = draftModel(m_quantized);
        auto plain = session(m_model);
        auto s = session(m_model);
        const Generated first = generate(*s, true, 20, drafter.get());
        QCOMPARE(first.tokens, generate(*plain, true, 20, nullptr).tokens);
        // Regenerate from the prompt: the caller truncates, the drafter follows.
        s->truncate(int(kPrompt.size()) - 1);
        plain->truncate(int(kPrompt.size()) - 1);
        const std::vector<Token> last{kPrompt.back()};
        Sampler a(sampling(true));
        Sampler b(sampling(true));
        std::vector<Token> withGuesses;
        std::vector<Token> without;
        QVERIFY(s->generate(last, a, 16, [&](Token t, const std::string&) { withGuesses.push_back(t); return true; },
                            drafter.get()).ok());
        QVERIFY(plain->generate(last, b, 16, [&](Token t, const std::string&) { without.push_back(t); return true; }).ok());
        QCOMPARE(withGuesses, without);
        checkCacheHoldsItsHistory(*s);
    }

    void draftVocabularyMustMatch()
    {
        synth::SynthOptions options;
        options.shape = *synth::shapeByName("tiny");
        options.shape.vocabSize = 600;
        options.type = DType::F32;
        std::string widerPath;
        const auto wider = test::writeAndLoad(m_dir, QStringLiteral("wider.gguf"), options, &widerPath);
        // The fingerprint the app filters its draft models by says the same without loading them.
        const auto fingerprint = [](const QString& path) { return vocabularyFingerprint(path.toStdString()).value(); };
        QCOMPARE(fingerprint(m_dir.filePath(QStringLiteral("tiny.gguf"))), fingerprint(m_dir.filePath(QStringLiteral("other.gguf"))));
        QCOMPARE(fingerprint(m_dir.filePath(QStringLiteral("tiny.gguf"))), fingerprint(m_dir.filePath(QStringLiteral("tiny-q8.gguf"))));
        QVERIFY(fingerprint(m_dir.filePath(QStringLiteral("tiny.gguf"))) != vocabularyFingerprint(widerPath).value());
        QCOMPARE(vocabularyFingerprint(m_dir.filePath(QStringLiteral("missing.gguf")).toStdString()).code(), ErrorCode::IoError);
        const auto refused = DraftModel::create(wider, *m_model);
        QCOMPARE(refused.code(), ErrorCode::Unsupported);
        QVERIFY2(QString::fromStdString(refused.message()).contains(QStringLiteral("vocabulary")), refused.message().c_str());
        QVERIFY(checkDraftVocabulary(*m_other, *m_model).ok());
        QCOMPARE(DraftModel::create(m_model, *m_model, {}, 0).code(), ErrorCode::InvalidArgument);
    }

    void promptLookupGuessesWhatFollowedBefore()
    {
        PromptLookup lookup(8, 2, 4);
        std::vector<Token> out;
        // "5 6 7" was followed by "8 9 5 6 7 ..." (the guess may run into the repeat itself).
        const std::vector<Token> history{5, 6, 7, 8, 9, 5, 6};
        QVERIFY(lookup.draft(history, 7, 4, out).ok());
        QCOMPARE(out, (std::vector<Token>{8, 9, 5, 6}));
        // The latest occurrence wins; the count bounds the guess.
        QVERIFY(lookup.draft(std::vector<Token>{1, 2, 3, 1, 2, 4, 9, 1}, 2, 2, out).ok());
        QCOMPARE(out, (std::vector<Token>{4, 9}));
        // Nothing repeats: no guess.
        QVERIFY(lookup.draft(std::vector<Token>{1, 2, 3, 4}, 5, 4, out).ok());
        QVERIFY(out.empty());
        QVERIFY(lookup.draft({}, 5, 4, out).ok());
        QVERIFY(out.empty());
    }
};

QTEST_GUILESS_MAIN(TestSpeculative)
#include "tst_speculative.moc"
