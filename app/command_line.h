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
        Error, ///< bad arguments: print errorText and the usage, exit 1
    };

    Action action = Action::RunGui;
    QString modelPath; ///< empty: no model given
    QString dataDir; ///< empty: the platform's application data folder
    QString errorText;
    QString helpText;
};

/// Parses @p arguments (argv, program name first). Never exits the process: main() decides.
[[nodiscard]] CommandLineOptions parseCommandLine(const QStringList& arguments);

} // namespace hearth::app
