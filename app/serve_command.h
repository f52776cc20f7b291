// SPDX-License-Identifier: MIT
#pragma once

#include "apiserver.h"

#include <QString>

class QTextStream;

namespace hearth::app {

/// What the window remembers for a model file (AppSettings), which the served model gets too:
/// a context chosen in Chat Settings, the VRAM panel's budget, guessing ahead.
struct ServedModelSettings
{
    int threads = 0;
    double vramBudgetGiB = -1;
    int contextLength = 0;
    QString kvCacheType = QStringLiteral("f16");
    QString speculation;
};

/// `hearth --serve [--model FILE] [--host H] [--port P] [--api-key K]`: the OpenAI-compatible API
/// without a window, on the same engine thread and worker the window uses. Loads the model,
/// then serves until the process is asked to end (Ctrl+C, SIGTERM), which it does cleanly.
class ServeCommand
{
public:
    ServeCommand(QString modelPath, hearth::openai::ApiServerOptions options, ServedModelSettings model);

    /// Returns the exit code: 1 when the address cannot be used or the model does not load.
    [[nodiscard]] int run(QTextStream& out, QTextStream& err);

private:
    QString m_modelPath;
    hearth::openai::ApiServerOptions m_options;
    ServedModelSettings m_model;
};

} // namespace hearth::app
