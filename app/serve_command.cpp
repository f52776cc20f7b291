// SPDX-License-Identifier: MIT
#include "serve_command.h"

#include "engine_thread.h"

#include <QCoreApplication>
#include <QEventLoop>
#include <QFileInfo>
#include <QTextStream>

#ifdef Q_OS_UNIX
#include <QSocketNotifier>

#include <csignal>
#include <unistd.h>
#endif

namespace hearth::app {

namespace {
#ifdef Q_OS_UNIX
int s_signalPipe[2] = { -1, -1 };

void onTerminationSignal(int)
{
    const char byte = 1;
    [[maybe_unused]] const auto written = ::write(s_signalPipe[1], &byte, 1); // async-signal-safe
}
#endif
} // namespace

ServeCommand::ServeCommand(QString modelPath, hearth::openai::ApiServerOptions options, ServedModelSettings model)
    : m_modelPath(std::move(modelPath))
    , m_options(std::move(options))
    , m_model(std::move(model))
{
}

int ServeCommand::run(QTextStream& out, QTextStream& err)
{
    EngineThread engine;
    hearth::openai::ApiServer server(engine);
    if (!server.start(m_options)) {
        err << server.errorString() << "\n";
        return 1;
    }
    QEventLoop loop;
    int exitCode = 0;
    QObject context;
    QObject::connect(engine.worker(), &EngineWorker::modelLoaded, &context,
        [&](const QString& name, const QString& description, int contextLength, const Placement& placement) {
            out << QCoreApplication::translate("ServeCommand", "Model: %1 (%2), context of %3 tokens").arg(name, description).arg(contextLength)
                << "\n";
            if (!placement.report.isEmpty())
                out << QCoreApplication::translate("ServeCommand", "Placement: %1").arg(placement.summary()) << "\n";
            out << QCoreApplication::translate("ServeCommand", "Serving the OpenAI-compatible API at %1").arg(server.baseUrl()) << Qt::endl;
        });
    QObject::connect(engine.worker(), &EngineWorker::speculationApplied, &context, [&](const QString& errorText) {
        if (!errorText.isEmpty()) {
            err << errorText << Qt::endl;
        } else if (m_model.speculation == QLatin1String("lookup")) {
            out << QCoreApplication::translate("ServeCommand", "Guessing ahead from the conversation's own text") << "\n";
        } else if (!m_model.speculation.isEmpty()) {
            out << QCoreApplication::translate("ServeCommand", "Guessing ahead with %1").arg(QFileInfo(m_model.speculation).fileName())
                << "\n";
        }
    });
    QObject::connect(engine.worker(), &EngineWorker::modelLoadFailed, &context, [&](const QString& message) {
        err << message << Qt::endl;
        exitCode = 1;
        loop.quit();
    });
    if (m_modelPath.isEmpty()) {
        out << QCoreApplication::translate("ServeCommand",
                   "No model given (--model FILE) and none used before: serving at %1 without one; requests get 503.")
                   .arg(server.baseUrl())
            << Qt::endl;
    }

#ifdef Q_OS_UNIX
    std::unique_ptr<QSocketNotifier> termination;
    if (::pipe(s_signalPipe) == 0) {
        termination = std::make_unique<QSocketNotifier>(s_signalPipe[0], QSocketNotifier::Read);
        QObject::connect(termination.get(), &QSocketNotifier::activated, &loop, &QEventLoop::quit);
        std::signal(SIGINT, onTerminationSignal);
        std::signal(SIGTERM, onTerminationSignal);
    }
#endif
    engine.post([model = m_model, path = m_modelPath](EngineWorker& worker) {
        worker.setThreads(model.threads);
        worker.setVramBudget(model.vramBudgetGiB);
        worker.setContextLength(model.contextLength);
        worker.setKvCacheType(model.kvCacheType);
        worker.setSpeculation(model.speculation);
        if (!path.isEmpty())
            worker.loadModel(path);
    });
    loop.exec();
#ifdef Q_OS_UNIX
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
#endif
    if (exitCode == 0)
        out << QCoreApplication::translate("ServeCommand", "Stopping the server.") << Qt::endl;
    server.stop();
    return exitCode;
}

} // namespace hearth::app
