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
    parser.addOption(versionOption);
    parser.addOption(modelOption);
    parser.addOption(dataDirOption);
    parser.addOption(selfTestOption);

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
    } else if (!parser.positionalArguments().isEmpty()) {
        options.action = CommandLineOptions::Action::Error;
        options.errorText = QCoreApplication::translate("CommandLine", "Unexpected argument: %1")
                                .arg(parser.positionalArguments().constFirst());
    }
    return options;
}

} // namespace hearth::app
