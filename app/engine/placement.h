// SPDX-License-Identifier: MIT
#pragma once

#include <hearth/session.h>

#include <QMetaType>
#include <QString>

namespace hearth::app {

/// Where the loaded model runs: the engine's facts (hearth::SessionPlacement) and its English
/// report, put into the user's language here rather than parsed from the report.
struct Placement
{
    hearth::SessionPlacement facts;
    QString report; ///< the engine's own words, for logs and the details

    [[nodiscard]] bool usesGpu() const { return facts.usesGpu(); }
    /// One short line in the interface language: "GPU <name>: 30 of 32 layers", "CPU only", ...
    [[nodiscard]] QString summary() const;
    /// The summary, the budget and the engine's details, for a tooltip.
    [[nodiscard]] QString details() const;
};

} // namespace hearth::app

Q_DECLARE_METATYPE(hearth::app::Placement)
