// SPDX-License-Identifier: MIT
#pragma once

#include <QFile>
#include <QString>

#include <string>

namespace hearth::app {

/// @p path as the engine takes file names: UTF-8 on Windows, the file system's encoding (what
/// QFile::encodeName gives) elsewhere.
[[nodiscard]] inline std::string enginePath(const QString& path)
{
#ifdef Q_OS_WIN
    return path.toStdString();
#else
    return QFile::encodeName(path).toStdString();
#endif
}

} // namespace hearth::app
