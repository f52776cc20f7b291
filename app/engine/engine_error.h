// SPDX-License-Identifier: MIT
#pragma once

#include <hearth/status.h>

#include <QString>

namespace hearth::app {

/// Why the engine refused, in the interface language: a sentence chosen by the error's code (a
/// damaged file, something Hearth cannot run, too little memory, ...), then the engine's own
/// English words, which name the tensor, type or size, marked as the engine's as the placement
/// details are ("Engine: ...").
[[nodiscard]] QString engineErrorText(const hearth::Status& status);

} // namespace hearth::app
