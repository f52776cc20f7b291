// SPDX-License-Identifier: MIT
// EngineWorker on its own thread, as the window uses it: streamed tokens arrive in order and
// add up to the answer, Stop ends an answer early, a corrupt model is an error (not a crash),
// and a second model replaces the first.

#include "app_test_support.h"
#include "engine_thread.h"

#include <QJsonObject>
#include <QSemaphore>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTranslator>

#include <memory>

using hearth::app::AnswerStats;
using hearth::app::ChatTurn;
using hearth::app::EngineThread;
using hearth::app::EngineWorker;
using hearth::app::SamplingSettings;

class TestEngineWorker : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_model;
    hearth::app::Placement m_placement;
    std::unique_ptr<EngineThread> m_engine;
    EngineWorker* m_worker = nullptr;

    bool load(const QString& path)
    {
        QSignalSpy loaded(m_worker, &EngineWorker::modelLoaded);
        QSignalSpy failed(m_worker, &EngineWorker::modelLoadFailed);
        m_engine->post([path](EngineWorker& worker) { worker.loadModel(path); });
        if (!QTest::qWaitFor([&] { return loaded.size() + failed.size() > 0; }, 60000) || loaded.size() != 1)
            return false;
        // The status bar shows where the model runs; the engine always says (GPU or why not).
        m_placement = loaded.first().at(3).value<hearth::app::Placement>();
        return !m_placement.report.isEmpty();
    }

    void generate(quint64 id, int maxTokens, SamplingSettings sampling = {})
    {
        sampling.maxTokens = maxTokens;
        sampling.seed = 7;
        const QList<ChatTurn> turns { { QStringLiteral("system"), QStringLiteral("Be brief.") },
            { QStringLiteral("user"), QStringLiteral("Tell me a story.") } };
        m_engine->post([id, turns, sampling](EngineWorker& worker) { worker.generate(id, turns, sampling); });
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_model = hearth::test::makeTinyModel(m_dir.path());
        if (m_model.isEmpty())
            QSKIP("no test model: hearth-synth is not built and ../shared is absent");
        m_engine = std::make_unique<EngineThread>();
        m_worker = m_engine->worker();
    }

    void cleanupTestCase() { m_engine.reset(); }

    void loadReportsProgressAndCancels()
    {
        // Cancel from the worker thread at the first progress report, as the GUI's Cancel
        // button does from its own thread: the load must stop with a message, not a model.
        QSignalSpy progress(m_worker, &EngineWorker::loadProgress);
        QSignalSpy loaded(m_worker, &EngineWorker::modelLoaded);
        QSignalSpy failed(m_worker, &EngineWorker::modelLoadFailed);
        const auto cancelOnce = connect(
            m_worker, &EngineWorker::loadProgress, m_worker, [this] { m_worker->cancelLoad(); },
            Qt::DirectConnection);
        m_engine->post([path = m_model](EngineWorker& worker) { worker.loadModel(path); });
        QTRY_VERIFY_WITH_TIMEOUT(loaded.size() + failed.size() > 0, 60000);
        disconnect(cancelOnce);
        QVERIFY(progress.size() >= 1);
        QCOMPARE(loaded.size(), 0);
        QCOMPARE(failed.size(), 1);
        QVERIFY2(failed.first().at(0).toString().contains(QStringLiteral("cancelled")),
                 qPrintable(failed.first().at(0).toString()));

        // The next load starts afresh and reports progress up to completion.
        progress.clear();
        QVERIFY(load(m_model));
        QVERIFY(progress.size() >= 1);
        QCOMPARE(progress.last().at(0).toDouble(), 1.0);
    }

    void cancelBeforeTheLoadStarts()
    {
        // Cancel pressed while the load still waits behind other work on the worker thread.
        QSemaphore busy;
        m_engine->post([&busy](EngineWorker&) { busy.acquire(); });
        QSignalSpy loaded(m_worker, &EngineWorker::modelLoaded);
        QSignalSpy failed(m_worker, &EngineWorker::modelLoadFailed);
        m_engine->post([path = m_model, ticket = m_worker->nextLoadTicket()](EngineWorker& worker) {
            worker.loadModel(path, ticket);
        });
        m_worker->cancelLoad();
        busy.release();
        QTRY_VERIFY_WITH_TIMEOUT(loaded.size() + failed.size() > 0, 60000);
        QCOMPARE(loaded.size(), 0);
        QVERIFY2(failed.first().at(0).toString().contains(QStringLiteral("cancelled")),
                 qPrintable(failed.first().at(0).toString()));
        // A load numbered after the Cancel runs.
        QVERIFY(load(m_model));
    }

    void corruptModelIsAnError()
    {
        const QString corrupt = m_dir.filePath(QStringLiteral("corrupt.gguf"));
        QFile file(corrupt);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("GGUF\x03\x00\x00\x00 this is not a model at all", 36);
        file.close();
        QSignalSpy failed(m_worker, &EngineWorker::modelLoadFailed);
        QVERIFY(!load(corrupt));
        QCOMPARE(failed.size(), 1);
        const QString message = failed.at(0).at(0).toString();
        QVERIFY(message.contains(QStringLiteral("corrupt.gguf")));
        // Why, in the interface language, with the engine's own words marked as its own.
        QVERIFY2(message.contains(QStringLiteral("The file is damaged or incomplete. (Engine: ")), qPrintable(message));
        QTranslator indonesian;
        QVERIFY(indonesian.load(QStringLiteral(":/i18n/hearth_id.qm")));
        QCoreApplication::installTranslator(&indonesian);
        QVERIFY(!load(corrupt));
        QCoreApplication::removeTranslator(&indonesian);
        QCOMPARE(failed.size(), 2);
        QVERIFY2(failed.at(1).at(0).toString().contains(QStringLiteral("Berkas rusak atau tidak lengkap. (Mesin: ")),
                 qPrintable(failed.at(1).at(0).toString()));

        // Asking for an answer without a model fails with a message too.
        QSignalSpy answerFailed(m_worker, &EngineWorker::answerFailed);
        generate(1, 4);
        QTRY_COMPARE(answerFailed.size(), 1);
        QCOMPARE(answerFailed.at(0).at(0).toULongLong(), 1u);
    }

    void tokensArriveInOrder()
    {
        QVERIFY(load(m_model));
        QSignalSpy tokens(m_worker, &EngineWorker::tokenGenerated);
        QSignalSpy finished(m_worker, &EngineWorker::answerFinished);
        generate(2, 24);
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 60000);
        QString streamed;
        for (const QList<QVariant>& token : tokens) {
            QCOMPARE(token.at(0).toULongLong(), 2u);
            streamed += token.at(1).toString();
        }
        QCOMPARE(finished.at(0).at(0).toULongLong(), 2u);
        QVERIFY(!streamed.isEmpty());
        const auto stats = finished.at(0).at(1).value<AnswerStats>();
        QVERIFY(stats.generatedTokens > 0);
        QVERIFY(stats.generatedTokens <= 24);
        QVERIFY(stats.timeToFirstTokenMs > 0);
        QVERIFY(stats.contextUsed >= stats.promptTokens);
    }

    // Every penalty the chat settings hold reaches the sampler: greedy answers change with each.
    void everyPenaltyReachesTheSampler()
    {
        QVERIFY(load(m_model));
        auto answer = [&](quint64 id, const SamplingSettings& sampling) {
            QSignalSpy tokens(m_worker, &EngineWorker::tokenGenerated);
            QSignalSpy finished(m_worker, &EngineWorker::answerFinished);
            generate(id, 48, sampling);
            if (!QTest::qWaitFor([&] { return finished.size() == 1; }, 60000))
                return QString();
            QString text;
            for (const QList<QVariant>& token : std::as_const(tokens))
                text += token.at(1).toString();
            return text;
        };
        SamplingSettings greedy;
        greedy.temperature = 0;
        greedy.repeatPenalty = 1;
        const QString plain = answer(10, greedy);
        QVERIFY(!plain.isEmpty());
        QCOMPARE(answer(11, greedy), plain); // deterministic
        SamplingSettings presence = greedy;
        presence.presencePenalty = 2.0;
        SamplingSettings frequency = greedy;
        frequency.frequencyPenalty = 2.0;
        SamplingSettings window = greedy;
        window.repeatPenalty = 2.0;
        window.repeatLastN = 0; // the penalties look at no token: the plain answer
        QVERIFY(answer(12, presence) != plain);
        QVERIFY(answer(13, frequency) != plain);
        QCOMPARE(answer(14, window), plain);

        const SamplingSettings read = SamplingSettings::fromJson(
            QJsonObject{ { QStringLiteral("presence_penalty"), 0.5 }, { QStringLiteral("frequency_penalty"), 9.0 },
                { QStringLiteral("repeat_last_n"), 128 } });
        QCOMPARE(read.presencePenalty, 0.5);
        QCOMPARE(read.frequencyPenalty, 2.0); // clamped
        QCOMPARE(read.repeatLastN, 128);
        QCOMPARE(SamplingSettings::fromJson(read.toJson()).toJson(), read.toJson());
    }

    void stopEndsTheAnswer()
    {
        QSignalSpy tokens(m_worker, &EngineWorker::tokenGenerated);
        QSignalSpy finished(m_worker, &EngineWorker::answerFinished);
        // Stop as soon as the first token arrives; the answer must end long before its limit.
        connect(m_worker, &EngineWorker::tokenGenerated, this, [this] { m_worker->stop(3); });
        generate(3, 2000);
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 60000);
        disconnect(m_worker, &EngineWorker::tokenGenerated, this, nullptr);
        const auto stats = finished.at(0).at(1).value<AnswerStats>();
        // Stopped, unless the model ended its turn before the stop arrived.
        QVERIFY2(stats.stopped || !stats.reachedMaxTokens, qPrintable(QString::number(stats.generatedTokens)));
        QVERIFY(stats.generatedTokens < 2000);
    }

    void placementIsFactsInTheUsersLanguage()
    {
        // No GPU here: the facts say so, with the engine's reason; the app words the line itself
        // (a marking translator shows that it is translated, not the engine's English).
        QVERIFY(m_placement.facts.device.empty());
        QVERIFY(!m_placement.usesGpu());
        QVERIFY(!m_placement.facts.cpuOnlyReason.empty());
        QVERIFY(m_placement.report.startsWith(QLatin1String("CPU only: ")));
        QCOMPARE(m_placement.summary(), QStringLiteral("CPU only"));
        hearth::test::MarkingTranslator marking;
        QCoreApplication::installTranslator(&marking);
        QCOMPARE(m_placement.summary(), QStringLiteral("[zz] CPU only"));
        QVERIFY(m_placement.details().contains(QString::fromStdString(m_placement.facts.cpuOnlyReason)));
        QCoreApplication::removeTranslator(&marking);

        hearth::app::Placement gpu;
        gpu.facts.device = "Emulated";
        gpu.facts.layers = 32;
        gpu.facts.gpuLayers = 30;
        gpu.facts.budgetBytes = quint64(6) << 30;
        QVERIFY(gpu.usesGpu());
        // "layer(s)" until the English translation gives the plural its forms.
        QVERIFY2(gpu.summary().startsWith(QLatin1String("GPU Emulated: 30 of 32 layer")), qPrintable(gpu.summary()));
        QVERIFY2(gpu.details().contains(QLocale().formattedDataSize(qint64(6) << 30, 1, QLocale::DataSizeTraditionalFormat)), qPrintable(gpu.details()));
        gpu.facts.neurons = 90000;
        gpu.facts.hotNeurons = 12345;
        QCOMPARE(gpu.summary(), QStringLiteral("GPU Emulated: %1 of %2 FFN neurons hot").arg(QLocale().toString(12345), QLocale().toString(90000)));
        gpu.facts.deviceFailure = "out of memory";
        QVERIFY(!gpu.usesGpu());
        QVERIFY(gpu.summary().startsWith(QLatin1String("CPU only")));
    }

    void stopsOnlyTheRequestItNames()
    {
        // Two callers share the worker (the window and the API server): a stop for one request
        // leaves the running one alone, and a request stopped while it waits never starts.
        QSignalSpy finished(m_worker, &EngineWorker::answerFinished);
        QSignalSpy context(m_worker, &EngineWorker::contextUsed);
        m_worker->stop(11);
        generate(10, 6);
        generate(11, 2000);
        generate(12, 4);
        m_worker->stop(99); // nobody's
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 3, 60000);
        const auto first = finished.at(0).at(1).value<AnswerStats>();
        QCOMPARE(finished.at(0).at(0).toULongLong(), 10u);
        QVERIFY(!first.stopped);
        QVERIFY(first.reachedMaxTokens);
        QCOMPARE(first.generatedTokens, 6);
        QCOMPARE(finished.at(1).at(0).toULongLong(), 11u);
        QVERIFY(finished.at(1).at(1).value<AnswerStats>().stopped);
        QCOMPARE(finished.at(1).at(1).value<AnswerStats>().generatedTokens, 0);
        QCOMPARE(finished.at(2).at(0).toULongLong(), 12u);
        QCOMPARE(finished.at(2).at(1).value<AnswerStats>().generatedTokens, 4);
        // The same prompt again: the cache held all of it but the last token.
        const auto third = finished.at(2).at(1).value<AnswerStats>();
        QVERIFY(third.cachedPromptTokens > 0);
        int promptLength = 0;
        for (const QList<QVariant>& call : context) {
            QVERIFY(call.at(0).toULongLong() != 11u); // the stopped request never reached the engine
            if (call.at(0).toULongLong() == 12u && promptLength == 0)
                promptLength = call.at(1).toInt(); // the first report is the prompt's length
        }
        QCOMPARE(third.cachedPromptTokens + third.promptTokens, promptLength);
    }

    void switchesModels()
    {
        const QString second = m_dir.filePath(QStringLiteral("second.gguf"));
        QVERIFY(QFile::copy(m_model, second));
        QSignalSpy loaded(m_worker, &EngineWorker::modelLoaded);
        QVERIFY(load(second));
        QVERIFY(loaded.at(0).at(2).toInt() > 0); // context length
        QSignalSpy finished(m_worker, &EngineWorker::answerFinished);
        generate(4, 8);
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 60000);
        QCOMPARE(finished.at(0).at(0).toULongLong(), 4u);
    }

    void runawayTemplateFallsBackToABuiltIn()
    {
        // A model file whose template would run for hours: the first answer reports it once and
        // comes in the built-in format; later answers and measurements do not report it again.
        const QString model = hearth::test::makeTinyModelWithTemplate(m_dir.path(), QStringLiteral("runaway"),
            hearth::test::runawayChatTemplate);
        if (model.isEmpty())
            QSKIP("hearth-synth is not built");
        QSignalSpy replaced(m_worker, &EngineWorker::chatTemplateReplaced);
        QVERIFY(load(model));
        QCOMPARE(replaced.size(), 0); // it parses; only rendering it runs away
        QSignalSpy finished(m_worker, &EngineWorker::answerFinished);
        QSignalSpy failed(m_worker, &EngineWorker::answerFailed);
        generate(5, 4);
        QTRY_COMPARE_WITH_TIMEOUT(finished.size() + failed.size(), 1, 60000);
        QCOMPARE(failed.size(), 0);
        QCOMPARE(replaced.size(), 1);
        QVERIFY2(replaced.at(0).at(0).toString().contains(QStringLiteral("too much work")), qPrintable(replaced.at(0).at(0).toString()));
        QCOMPARE(replaced.at(0).at(1).toString(), QStringLiteral("llama2")); // the synthetic vocabulary's <s>
        generate(6, 4);
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 2, 60000);
        QCOMPARE(replaced.size(), 1);
    }

    void reasoningReachesTheTemplate()
    {
        // A template that reads enable_thinking, as Qwen 3's does: the worker says so at load,
        // and a chat's reasoning "off" puts the empty thinking block the template writes for it
        // into the prompt; the default leaves it to the template.
        const QString model = hearth::test::makeTinyModelWithTemplate(m_dir.path(), QStringLiteral("thinking"),
            "{% for m in messages %}<|{{ m.role }}|>{{ m.content }}{% endfor %}{% if add_generation_prompt %}<|assistant|>"
            "{% if enable_thinking is defined and not enable_thinking %}<think>\n\n</think>\n\n{% endif %}{% endif %}");
        if (model.isEmpty())
            QSKIP("hearth-synth is not built");
        QVERIFY(load(model));
        QVERIFY(m_worker->loadedModel().readsReasoning);
        QSignalSpy finished(m_worker, &EngineWorker::answerFinished);
        generate(8, 2);
        SamplingSettings off;
        off.reasoning = QStringLiteral("off");
        generate(9, 2, off);
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 2, 60000);
        const auto promptOf = [&](int i) {
            const auto stats = finished.at(i).at(1).value<AnswerStats>();
            return stats.promptTokens + stats.cachedPromptTokens;
        };
        QVERIFY2(promptOf(1) > promptOf(0), qPrintable(QStringLiteral("%1 and %2").arg(promptOf(0)).arg(promptOf(1))));
        QVERIFY(load(m_model));
        QVERIFY(!m_worker->loadedModel().readsReasoning);
    }

    void unparsableTemplateIsReportedAtLoad()
    {
        const QString model = hearth::test::makeTinyModelWithTemplate(m_dir.path(), QStringLiteral("broken"), "{% for m in %}");
        if (model.isEmpty())
            QSKIP("hearth-synth is not built");
        QSignalSpy replaced(m_worker, &EngineWorker::chatTemplateReplaced);
        QVERIFY(load(model));
        QTRY_COMPARE(replaced.size(), 1);
        QVERIFY2(replaced.at(0).at(0).toString().contains(QStringLiteral("line 1")), qPrintable(replaced.at(0).at(0).toString()));
        QSignalSpy finished(m_worker, &EngineWorker::answerFinished);
        generate(7, 4);
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 60000);
        QCOMPARE(replaced.size(), 1);
    }

    void sparseModelsKeepPromptCopiesWhenAsked()
    {
        // Settings' "Faster prompts": the next load of a sparse model keeps its FFN laid out for
        // prompts too, and the status line says what that costs; without it nothing is kept.
        const QString sparse = hearth::test::makeTinyModel(m_dir.path(), QStringLiteral("tiny"),
            { QStringLiteral("--ffn"), QStringLiteral("reglu"), QStringLiteral("--sparsity"), QStringLiteral("0.5") });
        if (sparse.isEmpty())
            QSKIP("hearth-synth is not built");
        const QString cost = QStringLiteral("more memory for faster prompts");
        for (const bool copies : { true, false }) {
            m_engine->post([copies](EngineWorker& worker) { worker.setSparsePromptCopies(copies); });
            QSignalSpy loaded(m_worker, &EngineWorker::modelLoaded);
            QVERIFY(load(sparse));
            const QString description = loaded.at(0).at(1).toString();
            QVERIFY2(description.contains(cost) == copies, qPrintable(description));
        }
        QSignalSpy finished(m_worker, &EngineWorker::answerFinished);
        generate(8, 4);
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 60000);
    }
};

QTEST_GUILESS_MAIN(TestEngineWorker)
#include "tst_engine_worker.moc"
