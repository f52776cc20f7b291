// SPDX-License-Identifier: MIT
#include "command_line.h"

#include <QCommandLineParser>
#include <QCoreApplication>

namespace hearth::app {

CommandLineOptions parseCommandLine(const QStringList& arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QCoreApplication::translate("CommandLine", "Chat with large language models on your own computer."));
    const QCommandLineOption helpOption = parser.addHelpOption();
    // Our own --version: it prints build options too, not just the version number.
    const QCommandLineOption versionOption({ QStringLiteral("v"), QStringLiteral("version") },
        QCoreApplication::translate("CommandLine", "Print the version and build options, then exit."));
    const QCommandLineOption modelOption({ QStringLiteral("m"), QStringLiteral("model") },
        QCoreApplication::translate("CommandLine", "Load the model in <file> at start."),
        QCoreApplication::translate("CommandLine", "file"));
    const QCommandLineOption dataDirOption(QStringLiteral("data-dir"),
        QCoreApplication::translate("CommandLine", "Keep chats and settings in <dir>."),
        QCoreApplication::translate("CommandLine", "dir"));
    const QCommandLineOption selfTestOption(QStringLiteral("self-test"),
        QCoreApplication::translate("CommandLine",
            "Load the model given with --model, answer one short prompt, print the speed and exit."));
    const QCommandLineOption serveOption(QStringLiteral("serve"),
        QCoreApplication::translate("CommandLine",
            "Serve the model over an OpenAI-compatible HTTP API without opening a window (with --model, "
            "else the last model used)."));
    const QCommandLineOption hostOption(QStringLiteral("host"),
        QCoreApplication::translate("CommandLine", "With --serve: listen on <address> (default 127.0.0.1, this computer only)."),
        QCoreApplication::translate("CommandLine", "address"), QStringLiteral("127.0.0.1"));
    const QCommandLineOption portOption(QStringLiteral("port"),
        QCoreApplication::translate("CommandLine", "With --serve: listen on <port> (default 8080)."),
        QCoreApplication::translate("CommandLine", "port"), QStringLiteral("8080"));
    const QCommandLineOption apiKeyOption(QStringLiteral("api-key"),
        QCoreApplication::translate("CommandLine",
            "With --serve: require <key> from every client (or set HEARTH_API_KEY)."),
        QCoreApplication::translate("CommandLine", "key"));
    const QCommandLineOption maxQueueOption(QStringLiteral("max-queue"),
        QCoreApplication::translate("CommandLine",
            "With --serve: at most <n> requests running or waiting (default 8); more are refused with 503."),
        QCoreApplication::translate("CommandLine", "n"), QStringLiteral("8"));
    parser.addOption(versionOption);
    parser.addOption(modelOption);
    parser.addOption(dataDirOption);
    parser.addOption(selfTestOption);
    for (const QCommandLineOption& option : { serveOption, hostOption, portOption, apiKeyOption, maxQueueOption })
        parser.addOption(option);

    CommandLineOptions options;
    options.helpText = parser.helpText();
    if (!parser.parse(arguments)) {
        options.action = CommandLineOptions::Action::Error;
        options.errorText = parser.errorText();
        return options;
    }
    options.modelPath = parser.value(modelOption);
    options.dataDir = parser.value(dataDirOption);

    if (parser.isSet(helpOption)) {
        options.action = CommandLineOptions::Action::ShowHelp;
    } else if (parser.isSet(versionOption)) {
        options.action = CommandLineOptions::Action::ShowVersion;
    } else if (parser.isSet(selfTestOption)) {
        options.action = CommandLineOptions::Action::SelfTest;
        if (options.modelPath.isEmpty()) {
            options.action = CommandLineOptions::Action::Error;
            options.errorText = QCoreApplication::translate(
                "CommandLine", "--self-test needs a model: add --model <file>.");
        }
    } else if (parser.isSet(serveOption)) {
        options.action = CommandLineOptions::Action::Serve;
        bool portOk = false;
        bool queueOk = false;
        options.host = parser.value(hostOption);
        options.port = parser.value(portOption).toInt(&portOk);
        options.maxQueue = parser.value(maxQueueOption).toInt(&queueOk);
        options.apiKey = parser.isSet(apiKeyOption) ? parser.value(apiKeyOption) : qEnvironmentVariable("HEARTH_API_KEY");
        if (!portOk || options.port < 0 || options.port > 65535) {
            options.action = CommandLineOptions::Action::Error;
            options.errorText = QCoreApplication::translate("CommandLine", "--port needs a number from 0 to 65535.");
        } else if (!queueOk || options.maxQueue < 1 || options.maxQueue > 1024) {
            options.action = CommandLineOptions::Action::Error;
            options.errorText = QCoreApplication::translate("CommandLine", "--max-queue needs a number from 1 to 1024.");
        }
    } else if (!parser.positionalArguments().isEmpty()) {
        options.action = CommandLineOptions::Action::Error;
        options.errorText = QCoreApplication::translate("CommandLine", "Unexpected argument: %1")
                                .arg(parser.positionalArguments().constFirst());
    }
    return options;
}

} // namespace hearth::app
