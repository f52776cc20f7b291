// SPDX-License-Identifier: MIT
// The hearth executable: wires the application services in hearth-app-lib to the QML UI.

#include "app_info.h"
#include "chat_controller.h"
#include "command_line.h"
#include "language_manager.h"
#include "logging.h"
#include "self_test.h"

#include <QDir>
#include <QFileInfo>
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

} // namespace

int main(int argc, char** argv)
{
    // Only the window needs a display: --help, --version and --self-test run anywhere.
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

    hearth::app::LanguageManager languages(nullptr);
    languages.setLanguage(hearth::app::LanguageManager::bestLanguage(QLocale::system().uiLanguages()));

    // Parsed again now that translations are installed, so --help speaks the user's language.
    const CommandLineOptions options = hearth::app::parseCommandLine(QCoreApplication::arguments());
    QTextStream out(stdout);
    QTextStream err(stderr);

    const QString dataDir = options.dataDir.isEmpty()
        ? QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)
        : QDir(options.dataDir).absolutePath();
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
    case CommandLineOptions::Action::RunGui:
        break;
    }

    if (!QDir().mkpath(dataDir)) {
        err << QCoreApplication::translate("main", "Cannot create the data folder %1.").arg(dataDir) << "\n";
        return 1;
    }
    qCInfo(lcApp) << "data folder" << dataDir;

    QGuiApplication::setWindowIcon(QIcon(QStringLiteral(":/qt/qml/Hearth/Ui/icons/hearth.svg")));

    hearth::app::ChatController chat(nullptr);
    hearth::app::AppInfo::setInstance(&info);
    hearth::app::ChatController::setInstance(&chat);
    hearth::app::LanguageManager::setInstance(&languages);

    QQmlApplicationEngine engine;
    languages.setQmlEngine(&engine);
    engine.addImportPath(QStringLiteral("qrc:/qt/qml"));
    QObject::connect(
        &engine, &QQmlApplicationEngine::objectCreationFailed, app.get(), [] { QCoreApplication::exit(1); },
        Qt::QueuedConnection);
    engine.load(QUrl(QStringLiteral("qrc:/qt/qml/Hearth/Ui/Main.qml")));
    if (engine.rootObjects().isEmpty())
        return 1;

    if (!options.modelPath.isEmpty())
        chat.loadModel(QFileInfo(options.modelPath).absoluteFilePath());

    return app->exec();
}
