// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// A quick look at a file's first bytes to tell whether it can be a model: GGUF ("GGUF") or
/// PowerInfer ("PWRI") magic and a known version. The engine parses the rest when it loads.

#include <QString>

namespace hearth {

struct GgufProbe {
    bool ok = false;
    QString magic;      ///< "GGUF" or "PWRI" when recognised
    quint32 version = 0;
    QString errorText;  ///< translated, for people; empty when ok
};

[[nodiscard]] GgufProbe probeGgufFile(const QString& path);

} // namespace hearth
