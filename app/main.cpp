// SPDX-License-Identifier: MIT
// The hearth executable: wires the application services in hearth-app-lib to the QML UI.

#include "app_info.h"
#include "app_settings.h"
#include "chat_controller.h"
#include "model_session.h"
#include "chatstore.h"
#include "command_line.h"
#include "dialog_tour.h"
#include "language_manager.h"
#include "logging.h"
#include "gpuinfo.h"
#include "modelmanager.h"
#include "self_test.h"
#include "serve_command.h"
#include "server_controller.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QQuickWindow>
#include <QTimer>
#include <QGuiApplication>
#include <QIcon>
#include <QLocale>
#include <QQmlApplicationEngine>
#include <QQmlExtensionPlugin>
#include <QQuickStyle>
#include <QStandardPaths>
#include <QTextStream>

#include <cstdio>
#include <memory>

#ifdef Q_OS_WIN
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <windows.h>
#endif

Q_IMPORT_QML_PLUGIN(Hearth_AppPlugin)
Q_IMPORT_QML_PLUGIN(Hearth_UiPlugin)

using hearth::app::CommandLineOptions;

namespace {

void setApplicationNames()
{
    QCoreApplication::setOrganizationName(QStringLiteral("Hearth"));
    QCoreApplication::setOrganizationDomain(QStringLiteral("hearth.invalid"));
    QCoreApplication::setApplicationName(QStringLiteral("Hearth"));
    QCoreApplication::setApplicationVersion(QStringLiteral(HEARTH_APP_VERSION));
    QGuiApplication::setDesktopFileName(QStringLiteral("io.hearth.Hearth"));
}

QStringList argumentList(int argc, char** argv)
{
    QStringList arguments;
    for (int i = 0; i < argc; ++i)
        arguments.append(QString::fromLocal8Bit(argv[i]));
    return arguments;
}

/// Hidden hooks for tests, screenshots and measurements; none of them is for users. All are
/// environment variables so the command line users see stays small:
///   HEARTH_TEST_SEND=text            send text once the model is loaded, streaming the answer to stdout
///   HEARTH_TEST_QUIT_AFTER_ANSWER=1  quit when that answer is finished
///   HEARTH_SCREENSHOT=file.png       save the window to file.png once it is settled, then quit
///   HEARTH_SCREENSHOT_DEMO=code      stream a canned Markdown answer with code through the real
///                                    message and block models (no model needed)
///   HEARTH_SCREENSHOT_THEME, HEARTH_SCREENSHOT_LANGUAGE  theme and language for the picture
///   HEARTH_TEST_FILL_MESSAGES=N      add a chat with N messages to the store and open it
///   HEARTH_MEASURE=1                 print start-up, time to first token, longest frame and RSS
///   HEARTH_SCREENSHOT_PAGE=section   open the Models page at "catalog", "search", "downloads", "convert",
///                                    "installed" or "vram" ("vram:<catalog id>" plans that model)
///   HEARTH_TEST_DEVICE=emulated:N    sessions use the emulated device of N bytes; HEARTH_FAKE_GPU_GB
///                                    alone implies an emulated device of that size
///   HEARTH_SCREENSHOT_DIALOG=name    open the dialog with that objectName before the picture
///                                    (name:end: scrolled to its end)
///   HEARTH_TEST_OPEN_DIALOGS=1       open every dialog of the window in turn, print which opened,
///                                    exit 0 when all did (the package check runs it)
struct TestHooks
{
    QString send = QString::fromLocal8Bit(qgetenv("HEARTH_TEST_SEND"));
    bool quitAfterAnswer = qEnvironmentVariableIntValue("HEARTH_TEST_QUIT_AFTER_ANSWER") != 0;
    QString screenshot = QString::fromLocal8Bit(qgetenv("HEARTH_SCREENSHOT"));
    QString demo = QString::fromLocal8Bit(qgetenv("HEARTH_SCREENSHOT_DEMO"));
    QString theme = QString::fromLocal8Bit(qgetenv("HEARTH_SCREENSHOT_THEME"));
    QString language = QString::fromLocal8Bit(qgetenv("HEARTH_SCREENSHOT_LANGUAGE"));
    int fillMessages = qEnvironmentVariableIntValue("HEARTH_TEST_FILL_MESSAGES");
    bool measure = qEnvironmentVariableIntValue("HEARTH_MEASURE") != 0;
    QString page = QString::fromLocal8Bit(qgetenv("HEARTH_SCREENSHOT_PAGE"));
    QString device = QString::fromLocal8Bit(qgetenv("HEARTH_TEST_DEVICE"));
    bool openDialogs = qEnvironmentVariableIntValue("HEARTH_TEST_OPEN_DIALOGS") != 0;
    QString dialog = QString::fromLocal8Bit(qgetenv("HEARTH_SCREENSHOT_DIALOG"));
};

/// The emulated device standing in for the GPU that HEARTH_FAKE_GPU_GB pretends, so that a
/// demonstration's placement matches the panel's; empty when no GPU is faked.
QString fakeGpuDevice()
{
    bool ok = false;
    const double gib = qEnvironmentVariable("HEARTH_FAKE_GPU_GB").toDouble(&ok);
    if (!ok || !(gib > 0) || gib > 4096)
        return {};
    return QStringLiteral("emulated:%1").arg(quint64(gib * double(quint64(1) << 30)));
}

QString cannedCodeAnswer()
{
    return QStringLiteral(
        "Here is a small Python function that counts the words in a file, with the most common first:\n\n"
        "```python\n"
        "from collections import Counter\n"
        "from pathlib import Path\n\n"
        "def word_counts(path: str, top: int = 10) -> list[tuple[str, int]]:\n"
        "    \"\"\"Return the `top` most common words in the file at `path`.\"\"\"\n"
        "    text = Path(path).read_text(encoding=\"utf-8\")\n"
        "    words = (w.strip(\".,;:!?\\\"'\").lower() for w in text.split())\n"
        "    return Counter(w for w in words if w).most_common(top)\n\n"
        "if __name__ == \"__main__\":\n"
        "    for word, count in word_counts(\"README.md\"):\n"
        "        print(f\"{count:6d}  {word}\")\n"
        "```\n\n"
        "It reads the file **once**, lower-cases every word and strips punctuation, so *Hello* and "
        "*hello,* count as the same word. For very large files, read it line by line instead.\n");
}

long residentKiB()
{
    QFile status(QStringLiteral("/proc/self/status"));
    if (!status.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray& line : status.readAll().split('\n')) {
        if (line.startsWith("VmRSS:"))
            return line.mid(6).trimmed().split(' ').constFirst().toLong();
    }
    return -1;
}

} // namespace

int main(int argc, char** argv)
{
    QElapsedTimer sinceStart;
    sinceStart.start();
    // Only the window needs a display: --help, --version, --self-test and --serve run anywhere.
    const bool wantsGui = hearth::app::parseCommandLine(argumentList(argc, argv)).action
        == CommandLineOptions::Action::RunGui;
#ifdef Q_OS_WIN
    // hearth.exe is a GUI program; print --help, --version and --self-test to the console it was
    // started from, if any.
    if (!wantsGui && AttachConsole(ATTACH_PARENT_PROCESS)) {
        FILE* stream = nullptr;
        freopen_s(&stream, "CONOUT$", "w", stdout);
        freopen_s(&stream, "CONOUT$", "w", stderr);
    }
#endif
    std::unique_ptr<QCoreApplication> app;
    if (wantsGui) {
        if (qEnvironmentVariableIsEmpty("QT_QUICK_CONTROLS_STYLE"))
            QQuickStyle::setStyle(QStringLiteral("Fusion")); // follows the system palette, light or dark
        app = std::make_unique<QGuiApplication>(argc, argv);
    } else {
        app = std::make_unique<QCoreApplication>(argc, argv);
    }
    setApplicationNames();

    CommandLineOptions options = hearth::app::parseCommandLine(QCoreApplication::arguments());
    // With --data-dir the settings live there too, so a test or a portable copy is self-contained.
    hearth::app::AppSettings settings(
        options.dataDir.isEmpty() ? QString() : QDir(options.dataDir).absoluteFilePath(QStringLiteral("settings.ini")));

    hearth::app::LanguageManager languages(nullptr);
    if (settings.language().isEmpty() || !languages.setLanguage(settings.language()))
        languages.setLanguage(hearth::app::LanguageManager::bestLanguage(QLocale::system().uiLanguages()));

    // Parsed again now that translations are installed, so --help speaks the user's language.
    options = hearth::app::parseCommandLine(QCoreApplication::arguments());
    QTextStream out(stdout);
    QTextStream err(stderr);

    QString dataDir = QDir(options.dataDir).absolutePath();
    if (options.dataDir.isEmpty()) {
        dataDir = settings.dataDir().isEmpty() ? QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)
                                               : settings.dataDir();
    }
    hearth::app::AppInfo info(dataDir);

    switch (options.action) {
    case CommandLineOptions::Action::Error:
        err << options.errorText << "\n\n" << options.helpText;
        return 1;
    case CommandLineOptions::Action::ShowHelp:
        out << options.helpText;
        return 0;
    case CommandLineOptions::Action::ShowVersion:
        out << info.versionReport();
        return 0;
    case CommandLineOptions::Action::SelfTest:
        return hearth::app::SelfTest(options.modelPath).run(out, err);
    case CommandLineOptions::Action::Serve: {
        hearth::openai::ApiServerOptions server;
        server.host = options.host;
        server.port = options.port;
        server.apiKey = options.apiKey;
        server.maxRequests = options.maxQueue;
        server.defaults = settings.defaultSampling();
        QString model = options.modelPath;
        if (model.isEmpty() && !settings.recentModels().isEmpty())
            model = settings.recentModels().constFirst();
        if (!model.isEmpty())
            model = QFileInfo(model).absoluteFilePath();
        hearth::app::ServedModelSettings served;
        served.threads = settings.threads();
        served.vramBudgetGiB = settings.vramBudgetGiB(model);
        served.contextLength = settings.contextLength(model);
        served.kvCacheType = settings.kvCacheType();
        served.speculation = settings.speculation(model);
        return hearth::app::ServeCommand(model, server, served).run(out, err);
    }
    case CommandLineOptions::Action::RunGui:
        break;
    }
    // The catalog and the VRAM panel ask for the GPU; the answer comes while the store opens.
    hearth::models::startGpuDetection();

    if (!QDir().mkpath(dataDir)) {
        err << QCoreApplication::translate("main", "Cannot create the data folder %1.").arg(dataDir) << "\n";
        return 1;
    }
    qCInfo(lcApp) << "data folder" << dataDir;

    QGuiApplication::setWindowIcon(QIcon(QStringLiteral(":/qt/qml/Hearth/Ui/icons/hearth.svg")));

    const TestHooks hooks;
    if (!hooks.theme.isEmpty())
        settings.setTheme(hooks.theme);
    if (!hooks.language.isEmpty())
        languages.setLanguage(hooks.language);
    settings.applyAppearance();
    QObject::connect(&languages, &hearth::app::LanguageManager::languageChanged, &settings,
        [&] { settings.setLanguage(languages.language()); });

    // The model, then the conversation that asks it (declared after it: destroyed first).
    hearth::app::ModelSession session(nullptr);
    session.setSettings(&settings);
    if (const QString device = hooks.device.isEmpty() ? fakeGpuDevice() : hooks.device; !device.isEmpty())
        session.setDeviceOverride(device);
    hearth::app::ChatController chat(&session, nullptr);
    chat.setSettings(&settings);
    if (!chat.openStore(QDir(dataDir).absoluteFilePath(QStringLiteral("chats.sqlite"))))
        err << chat.errorText() << "\n"; // the window still opens and shows why nothing is saved
    hearth::app::AppInfo::setInstance(&info);
    hearth::app::ModelSession::setInstance(&session);
    hearth::app::ChatController::setInstance(&chat);
    hearth::app::LanguageManager::setInstance(&languages);
    hearth::app::AppSettings::setInstance(&settings);
    // The API server of Settings shares the window's engine thread, and with it the model.
    hearth::app::ServerController server(nullptr);
    server.attach(session.engine(), &settings);
    hearth::app::ServerController::setInstance(&server);

    // The Models page: the download queue beside the chats, budgets in the app's settings.
    hearth::models::ModelManager models(nullptr);
    models.setSettingsFile(settings.iniPath());
    models.setEndpoint(settings.hfEndpoint());
    models.setToken(settings.hfToken());
    QObject::connect(&settings, &hearth::app::AppSettings::hubChanged, &models, [&] {
        models.setEndpoint(settings.hfEndpoint());
        models.setToken(settings.hfToken());
    });
    if (!models.open(dataDir))
        err << models.lastError() << "\n"; // downloads then last for this session only
    hearth::models::ModelManager::setInstance(&models);

    if (hooks.fillMessages > 0) {
        hearth::ChatStore* store = chat.store();
        if (auto id = store->createConversation(QStringLiteral("Long chat (%1 messages)").arg(hooks.fillMessages))) {
            qint64 parent = 0;
            for (int i = 0; i < hooks.fillMessages; ++i) {
                const bool user = i % 2 == 0;
                const QString text = user ? QStringLiteral("Question %1: how does the cache keep the prefix?").arg(i)
                                          : QStringLiteral("Answer %1. The cached tokens that the new prompt starts with "
                                                           "are kept, so only the **new** turn is evaluated.\n\n"
                                                           "```cpp\nkeep = commonPrefix(cached, prompt);\n```")
                                                .arg(i);
                parent = store->addMessage(*id, parent, user ? QStringLiteral("user") : QStringLiteral("assistant"), text)
                             .value_or(parent);
            }
            chat.openConversation(*id);
        }
    }
    QQmlApplicationEngine engine;
    languages.setQmlEngine(&engine);
    engine.addImportPath(QStringLiteral("qrc:/qt/qml"));
    QObject::connect(
        &engine, &QQmlApplicationEngine::objectCreationFailed, app.get(), [] { QCoreApplication::exit(1); },
        Qt::QueuedConnection);
    engine.load(QUrl(QStringLiteral("qrc:/qt/qml/Hearth/Ui/Main.qml")));
    if (engine.rootObjects().isEmpty())
        return 1;

    auto* window = qobject_cast<QQuickWindow*>(engine.rootObjects().constFirst());
    std::unique_ptr<hearth::app::DialogTour> dialogTour;
    if (window && hooks.openDialogs) {
        dialogTour = std::make_unique<hearth::app::DialogTour>(window);
        QObject::connect(dialogTour.get(), &hearth::app::DialogTour::finished, app.get(), [&](bool allOpened) {
            for (const QString& line : dialogTour->report())
                out << line << "\n";
            out << (allOpened ? "All dialogs opened." : "Some dialogs did not open.") << Qt::endl;
            QCoreApplication::exit(allOpened ? 0 : 1);
        });
        QTimer::singleShot(500, dialogTour.get(), &hearth::app::DialogTour::start);
    }
    if (window && !hooks.dialog.isEmpty()) {
        // "name:end" shows the end of a dialog that scrolls.
        const QString name = hooks.dialog.section(QLatin1Char(':'), 0, 0);
        const bool atEnd = hooks.dialog.section(QLatin1Char(':'), 1) == QLatin1String("end");
        if (QObject* dialog = window->findChild<QObject*>(name)) {
            QTimer::singleShot(300, dialog, [dialog, atEnd] {
                QMetaObject::invokeMethod(dialog, "open");
                if (atEnd)
                    QTimer::singleShot(300, dialog, [dialog] { QMetaObject::invokeMethod(dialog, "scrollToEnd"); });
            });
        } else {
            err << "No dialog named " << name << "\n";
        }
    }
    if (window && !hooks.page.isEmpty()) {
        const QString section = hooks.page.section(QLatin1Char(':'), 0, 0);
        const QString catalogId = hooks.page.section(QLatin1Char(':'), 1);
        QMetaObject::invokeMethod(window, "showModelsSection", Q_ARG(QVariant, section), Q_ARG(QVariant, catalogId));
    }

    // Measurements (HEARTH_MEASURE): start-up to the first frame on screen, and the longest
    // GUI-thread frame (animation, sync and render of the basic loop) while an answer streams.
    qint64 longestFrameNs = 0;
    qint64 longestTokenNs = 0;
    qint64 totalTokenNs = 0;
    int tokenUpdates = 0;
    bool demoStreaming = false;
    if (window && hooks.measure) {
        auto frameStart = std::make_shared<QElapsedTimer>();
        QObject::connect(window, &QQuickWindow::beforeSynchronizing, window, [frameStart] { frameStart->start(); },
            Qt::DirectConnection);
        QObject::connect(window, &QQuickWindow::frameSwapped, window, [&, frameStart] {
            static bool first = true;
            if (first) {
                first = false;
                out << "MEASURE startup_ms " << sinceStart.elapsed() << Qt::endl;
            }
            const bool streaming = demoStreaming || session.state() == hearth::app::ModelSession::State::Generating;
            if (streaming && frameStart->isValid())
                longestFrameNs = qMax(longestFrameNs, frameStart->nsecsElapsed());
        });
    }

    if (!hooks.send.isEmpty()) {
        QObject::connect(&session, &hearth::app::ModelSession::modelReady, &chat, [&] {
            static bool sent = false;
            if (sent)
                return;
            sent = true;
            out << "ANSWER-BEGIN" << Qt::endl;
            chat.send(hooks.send);
        });
        QObject::connect(&chat, &hearth::app::ChatController::answerToken, &chat, [&](const QString& text) {
            out << text;
            out.flush();
        });
    }
    QObject::connect(&chat, &hearth::app::ChatController::answerCompleted, &chat, [&](const QString&) {
        if (hooks.send.isEmpty())
            return;
        out << "\nANSWER-END" << Qt::endl;
        if (hooks.measure) {
            const auto* messages = chat.messages();
            if (messages->rowCount() > 0) {
                out << "MEASURE ttft_ms " << messages->at(messages->rowCount() - 1).timeToFirstTokenMs << Qt::endl;
                out << "MEASURE tokens_per_s " << messages->at(messages->rowCount() - 1).tokensPerSecond << Qt::endl;
            }
        }
        if (hooks.quitAfterAnswer && hooks.screenshot.isEmpty())
            QTimer::singleShot(0, app.get(), &QCoreApplication::quit);
    });
    if (!hooks.send.isEmpty() && !hooks.screenshot.isEmpty()) {
        QObject::connect(&chat, &hearth::app::ChatController::answerCompleted, &chat, [&](const QString&) {
            QTimer::singleShot(500, app.get(), [&] {
                if (window && !window->grabWindow().save(hooks.screenshot))
                    err << "Could not save " << hooks.screenshot << "\n";
                QCoreApplication::quit();
            });
        });
    }

    if (hooks.demo == QLatin1String("code")) {
        // A canned answer streamed in small pieces through the real models: a tiny random model
        // never writes code, and this is what the screenshot and the frame-time measurement need.
        const QString answer = cannedCodeAnswer();
        auto* messages = chat.messages();
        hearth::ChatStore* store = chat.store();
        for (const QString& title : { QStringLiteral("Trip ideas for a rainy weekend"), QStringLiteral("Explain the KV cache"),
                 QStringLiteral("Counting words in Python") }) {
            if (auto id = store->createConversation(title)) {
                (void)store->addMessage(*id, 0, QStringLiteral("user"), title);
                chat.openConversation(*id);
            }
        }
        messages->clear();
        messages->append(QStringLiteral("user"), QStringLiteral("Write a Python function that counts the words in a file."));
        const int row = messages->append(QStringLiteral("assistant"), QString(), true);
        auto* timer = new QTimer(app.get());
        auto position = std::make_shared<qsizetype>(0);
        timer->setInterval(hooks.measure ? 5 : 1);
        QObject::connect(timer, &QTimer::timeout, timer, [&, timer, position, messages, row, answer] {
            if (*position >= answer.size()) {
                timer->stop();
                demoStreaming = false;
                messages->finish(row, 41.3, 187, 95.0);
                if (hooks.measure) {
                    out << "MEASURE longest_token_update_ms " << double(longestTokenNs) / 1e6 << Qt::endl;
                    out << "MEASURE mean_token_update_ms " << double(totalTokenNs) / 1e6 / qMax(1, tokenUpdates)
                        << " over " << tokenUpdates << " pieces" << Qt::endl;
                    out << "MEASURE longest_frame_ms " << double(longestFrameNs) / 1e6 << Qt::endl;
                }
                if (!hooks.screenshot.isEmpty()) {
                    QTimer::singleShot(1500, app.get(), [&] {
                        if (window && !window->grabWindow().save(hooks.screenshot))
                            err << "Could not save " << hooks.screenshot << "\n";
                        QCoreApplication::quit();
                    });
                } else {
                    QCoreApplication::quit();
                }
                return;
            }
            const QString piece = answer.mid(*position, 4); // about a token
            *position += piece.size();
            QElapsedTimer update;
            update.start();
            messages->appendToContent(row, piece);
            longestTokenNs = qMax(longestTokenNs, update.nsecsElapsed());
            totalTokenNs += update.nsecsElapsed();
            ++tokenUpdates;
            demoStreaming = true;
            if (window)
                window->requestUpdate();
        });
        QTimer::singleShot(200, timer, qOverload<>(&QTimer::start));
    } else if (!hooks.screenshot.isEmpty() && hooks.send.isEmpty()) {
        QTimer::singleShot(1500, app.get(), [&] {
            if (hooks.fillMessages > 0 && hooks.measure)
                out << "MEASURE rss_kib " << residentKiB() << Qt::endl;
            if (window && !window->grabWindow().save(hooks.screenshot))
                err << "Could not save " << hooks.screenshot << "\n";
            QCoreApplication::quit();
        });
    } else if (hooks.fillMessages > 0 && hooks.measure) {
        QTimer::singleShot(1500, app.get(), [&] {
            out << "MEASURE rss_kib " << residentKiB() << Qt::endl;
            QCoreApplication::quit();
        });
    }

    if (!options.modelPath.isEmpty())
        session.loadModel(QFileInfo(options.modelPath).absoluteFilePath());

    const int code = app->exec();
    if (hooks.measure && hooks.fillMessages == 0)
        out << "MEASURE rss_kib " << residentKiB() << Qt::endl;
    return code;
}
