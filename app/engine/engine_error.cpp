// SPDX-License-Identifier: MIT
#include "engine_error.h"

#include <QCoreApplication>

namespace hearth::app {

namespace {

QString summaryOf(hearth::ErrorCode code)
{
    switch (code) {
    case hearth::ErrorCode::Ok:
        return {};
    case hearth::ErrorCode::InvalidArgument:
        return QCoreApplication::translate("EngineError", "A setting or request is out of range.");
    case hearth::ErrorCode::IoError:
        return QCoreApplication::translate("EngineError", "The system refused to read or write a file (is the disk full, or was the file moved?).");
    case hearth::ErrorCode::InvalidFile:
        return QCoreApplication::translate("EngineError", "The file is damaged or incomplete.");
    case hearth::ErrorCode::Unsupported:
        return QCoreApplication::translate("EngineError", "The file uses something Hearth cannot run yet.");
    case hearth::ErrorCode::OutOfMemory:
        return QCoreApplication::translate("EngineError", "There is not enough memory.");
    case hearth::ErrorCode::Cancelled:
        return QCoreApplication::translate("EngineError", "It was cancelled.");
    case hearth::ErrorCode::ContextFull:
        return QCoreApplication::translate("EngineError", "The conversation does not fit the model's context.");
    case hearth::ErrorCode::LimitExceeded:
        return QCoreApplication::translate("EngineError", "The input asks for more work or memory than Hearth allows.");
    case hearth::ErrorCode::QualityTooLow:
        return QCoreApplication::translate("EngineError", "The result is not as good as asked for.");
    case hearth::ErrorCode::Internal:
        return QCoreApplication::translate("EngineError", "Hearth met an internal error; please report it with these details.");
    }
    return {};
}

} // namespace

QString engineErrorText(const hearth::Status& status)
{
    if (status.ok())
        return {};
    const QString engine = QString::fromStdString(status.message());
    return QCoreApplication::translate("EngineError", "%1 (Engine: %2)", "a sentence, then the engine's English words")
        .arg(summaryOf(status.code()), engine);
}

} // namespace hearth::app
