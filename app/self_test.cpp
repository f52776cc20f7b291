// SPDX-License-Identifier: MIT
#include "self_test.h"

#include "engine_thread.h"

#include <QEventLoop>
#include <QTextStream>
#include <QTimer>

namespace hearth::app {

SelfTest::SelfTest(QString modelPath, int maxTokens)
    : m_modelPath(std::move(modelPath))
    , m_maxTokens(maxTokens)
{
}

int SelfTest::run(QTextStream& out, QTextStream& err)
{
    // The same worker and thread the window uses, so the check covers the real path.
    EngineThread engine;
    EngineWorker* worker = engine.worker();

    QEventLoop loop;
    int exitCode = 1;
    QString failure;
    QObject context;

    QObject::connect(
        worker, &EngineWorker::modelLoaded, &context,
        [&](const QString& name, const QString& description, int, const Placement& placement) {
            out << "Model: " << name << " (" << description << ")\n";
            if (!placement.report.isEmpty())
                out << "Placement: " << placement.report << "\n";
            out << "Prompt: Once upon a time\nAnswer: ";
            out.flush();
            // Plain continuation, not a chat turn: tiny story models have no chat template.
            SamplingSettings sampling;
            sampling.maxTokens = m_maxTokens;
            engine.post([sampling](EngineWorker& worker) { worker.complete(0, QStringLiteral("Once upon a time"), sampling); });
        });
    QObject::connect(worker, &EngineWorker::modelLoadFailed, &context, [&](const QString& message) {
        failure = message;
        loop.quit();
    });
    QObject::connect(worker, &EngineWorker::tokenGenerated, &context, [&](quint64, const QString& text) {
        out << text;
        out.flush();
    });
    QObject::connect(
        worker, &EngineWorker::answerFinished, &context, [&](quint64, const AnswerStats& stats) {
            out << "\n";
            out << QStringLiteral("Prompt: %1 tokens in %2 s\n")
                       .arg(stats.promptTokens)
                       .arg(stats.promptSeconds, 0, 'f', 3);
            out << QStringLiteral("Generated: %1 tokens in %2 s (%3 tokens/s)\n")
                       .arg(stats.generatedTokens)
                       .arg(stats.generateSeconds, 0, 'f', 3)
                       .arg(stats.tokensPerSecond(), 0, 'f', 1);
            if (stats.generatedTokens > 0) {
                exitCode = 0;
                out << "Self-test passed\n";
            } else {
                failure = QStringLiteral("the model produced no tokens");
            }
            loop.quit();
        });
    QObject::connect(worker, &EngineWorker::answerFailed, &context, [&](quint64, const QString& message) {
        out << "\n";
        failure = message;
        loop.quit();
    });

    engine.post([path = m_modelPath](EngineWorker& worker) { worker.loadModel(path); });
    loop.exec();

    if (exitCode != 0)
        err << "Self-test failed: " << failure << "\n";
    out.flush();
    err.flush();
    return exitCode;
}

} // namespace hearth::app
