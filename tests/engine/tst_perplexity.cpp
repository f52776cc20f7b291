// SPDX-License-Identifier: MIT
// Perplexity through the library, against llama.cpp's figure for stories260K.

#include "api/perplexity.h"
#include "test_support.h"

#include <hearth/model.h>
#include <hearth/session.h>

#include <QFile>
#include <QTest>

#include <cmath>

using namespace hearth;

class TestPerplexity : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void storiesMatchesLlamaCpp()
    {
        HEARTH_REQUIRE_SHARED(modelPath, "models/stories260K.gguf");
        HEARTH_REQUIRE_SHARED(textPath, "models/stories260K.ppl-text.txt");
        QFile file(textPath);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray text = file.readAll();

        auto model = Model::load(modelPath.toStdString());
        QVERIFY2(model.ok(), model.message().c_str());
        SessionParams params;
        params.contextLength = 128;
        params.threads = 2;
        auto session = Session::create(*model, params);
        QVERIFY2(session.ok(), session.message().c_str());

        const std::vector<Token> tokens = (*model)->tokenizer().encode(text.toStdString(), true, false);
        int progressCalls = 0;
        auto result = computePerplexity(**session, tokens, 0, [&progressCalls](int done, int total, double ppl) {
            ++progressCalls;
            return done <= total && std::isfinite(ppl);
        });
        QVERIFY2(result.ok(), result.message().c_str());
        QCOMPARE(result->chunks, 47);
        QCOMPARE(progressCalls, 47);
        QCOMPARE(result->scoredTokens, 47 * 63);
        QVERIFY2(std::abs(result->perplexity - 3.0117) < 0.01, qPrintable(QString::number(result->perplexity)));
        QCOMPARE((*session)->position(), 0);
    }

    void cancellationAndShortText()
    {
        HEARTH_REQUIRE_SHARED(modelPath, "models/stories260K.gguf");
        auto model = Model::load(modelPath.toStdString());
        QVERIFY(model.ok());
        SessionParams params;
        params.contextLength = 64;
        auto session = Session::create(*model, params);
        QVERIFY(session.ok());

        const std::vector<Token> tokens =
            (*model)->tokenizer().encode("Once upon a time there was a cat. The cat liked to sleep in the sun.", true, false);
        QVERIFY(tokens.size() < 128);
        QCOMPARE(computePerplexity(**session, tokens).code(), ErrorCode::InvalidArgument);

        std::vector<Token> longer;
        for (int i = 0; i < 8; ++i)
            longer.insert(longer.end(), tokens.begin() + (i ? 1 : 0), tokens.end());
        auto cancelled = computePerplexity(**session, longer, 0, [](int done, int, double) { return done < 1; });
        QCOMPARE(cancelled.code(), ErrorCode::Cancelled);
        auto limited = computePerplexity(**session, longer, 1);
        QVERIFY(limited.ok());
        QCOMPARE(limited->chunks, 1);
        QVERIFY(limited->perplexity > 1.0 && std::isfinite(limited->perplexity));
    }
};

QTEST_GUILESS_MAIN(TestPerplexity)
#include "tst_perplexity.moc"
