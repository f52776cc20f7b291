// SPDX-License-Identifier: MIT
#pragma once

#include "apiserver.h"

#include <QString>

class QTextStream;

namespace hearth::app {

/// `hearth --serve [--model FILE] [--host H] [--port P] [--api-key K]`: the OpenAI-compatible API
/// without a window, on the same engine thread and worker the window uses. Loads the model,
/// then serves until the process is asked to end (Ctrl+C, SIGTERM), which it does cleanly.
class ServeCommand
{
public:
    ServeCommand(QString modelPath, hearth::openai::ApiServerOptions options, int threads);

    /// Returns the exit code: 1 when the address cannot be used or the model does not load.
    [[nodiscard]] int run(QTextStream& out, QTextStream& err);

private:
    QString m_modelPath;
    hearth::openai::ApiServerOptions m_options;
    int m_threads;
};

} // namespace hearth::app
