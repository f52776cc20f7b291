// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// Fit badges ("fully on GPU", "hybrid, ~N tokens/s", "CPU only, ~N tokens/s", "does not fit")
/// from the placement planner, this machine's RAM and a GPU.

#include <hearth/placement.h>

#include <QCoreApplication>
#include <QString>
#include <QtGlobal>

namespace hearth::models {

class GpuInfo;
struct MachineInfo;

struct FitBadge
{
    Q_DECLARE_TR_FUNCTIONS(FitBadge)

public:
    enum Kind {
        FullyOnGpu,
        Hybrid,
        CpuOnly,
        DoesNotFit,
        Unknown, ///< the model could not be planned (reason says why)
    };
    Kind kind = Unknown;
    double tokensPerSecond = 0;
    quint64 ramBytes = 0; ///< RAM the placement needs
    quint64 gpuBytes = 0; ///< GPU memory the placement uses
    QString text; ///< translated badge text
    QString reason; ///< translated detail for a tooltip

    /// "fullyOnGpu", "hybrid", "cpuOnly", "doesNotFit", "unknown" (stable names for QML styling).
    [[nodiscard]] QString kindName() const;
};

/// Plans @p model for the auto budget of @p gpu (none: CPU only) against @p machine's RAM.
[[nodiscard]] FitBadge estimateFit(
    PlacementModel& model, const MachineInfo& machine, const GpuInfo& gpu, int contextLength = 4096);
/// The same from catalog numbers.
[[nodiscard]] FitBadge estimateFit(const ModelDescription& description, double assumedSparsity,
    const MachineInfo& machine, const GpuInfo& gpu, int contextLength = 4096);

/// "~12 tokens/s" with a sensible number of digits.
[[nodiscard]] QString formatTokensPerSecond(double tokensPerSecond);

} // namespace hearth::models
