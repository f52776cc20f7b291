// SPDX-License-Identifier: MIT
#pragma once

#include <QString>
#include <QStringList>

namespace hearth::app {

/// What the user asked for on the command line.
struct CommandLineOptions
{
    enum class Action {
        RunGui, ///< open the window
        ShowHelp, ///< print usage, exit 0
        ShowVersion,
        SelfTest, ///< load --model, generate a few tokens, exit
        Serve, ///< serve the OpenAI-compatible API without a window until stopped
        Error, ///< bad arguments: print errorText and the usage, exit 1
    };

    Action action = Action::RunGui;
    QString modelPath; ///< empty: no model given
    QString dataDir; ///< empty: the platform's application data folder
    // --serve
    QString host = QStringLiteral("127.0.0.1");
    int port = 8080;
    QString apiKey; ///< --api-key, else the HEARTH_API_KEY environment variable (kept out of `ps`)
    int maxQueue = 8;

    QString errorText;
    QString helpText;
};

/// Parses @p arguments (argv, program name first). Never exits the process: main() decides.
[[nodiscard]] CommandLineOptions parseCommandLine(const QStringList& arguments);

} // namespace hearth::app
