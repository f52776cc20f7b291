// SPDX-License-Identifier: MIT
#include "fitbadge.h"
#include "engine_error.h"

#include "catalogentry.h"
#include "gpuinfo.h"
#include "machineinfo.h"

#include <QCoreApplication>
#include <QLocale>

namespace hearth::models {

QString FitBadge::kindName() const
{
    switch (kind) {
    case FullyOnGpu:
        return QStringLiteral("fullyOnGpu");
    case Hybrid:
        return QStringLiteral("hybrid");
    case CpuOnly:
        return QStringLiteral("cpuOnly");
    case DoesNotFit:
        return QStringLiteral("doesNotFit");
    case Unknown:
        break;
    }
    return QStringLiteral("unknown");
}

QString formatTokensPerSecond(double tokensPerSecond)
{
    const int digits = tokensPerSecond < 10 ? 1 : 0;
    return FitBadge::tr("~%1 tokens/s").arg(QLocale().toString(tokensPerSecond, 'f', digits));
}

FitBadge estimateFit(PlacementModel& model, const MachineInfo& machine, const GpuInfo& gpu, int contextLength)
{
    PlacementRequest request;
    request.budgetBytes = autoBudgetBytes(gpu);
    request.contextLength = contextLength;
    request.hostMemoryBytes = machine.ramBytes;
    request.cpuBandwidthGBs = machine.cpuBandwidthGBs;
    request.gpuBandwidthGBs = gpu.present() ? gpu.bandwidthGBs() : 400.0;
    request.emulatedDevice = gpu.emulated();

    FitBadge badge;
    auto planned = model.plan(request);
    if (!planned) {
        badge.kind = FitBadge::Unknown;
        badge.text = FitBadge::tr("Unknown fit");
        badge.reason = app::engineErrorText(planned.status());
        return badge;
    }
    const PlacementSummary& s = planned.value();
    badge.tokensPerSecond = s.tokensPerSecond;
    badge.ramBytes = s.hostBytes;
    badge.gpuBytes = s.gpu.total();
    if (!s.fitsInRam) {
        badge.kind = FitBadge::DoesNotFit;
        badge.text = FitBadge::tr("Does not fit", "fit badge");
        badge.reason = FitBadge::tr("Needs about %1 of RAM; this computer has %2.")
                           .arg(formatSize(s.hostBytes), formatSize(machine.ramBytes));
    } else if (s.fullyOnGpu()) {
        badge.kind = FitBadge::FullyOnGpu;
        badge.text = FitBadge::tr("Fully on GPU", "fit badge");
        badge.reason = FitBadge::tr("Everything fits in GPU memory (%1 used), %2.")
                           .arg(formatSize(s.gpu.total()), formatTokensPerSecond(s.tokensPerSecond));
    } else if (s.cpuOnly()) {
        badge.kind = FitBadge::CpuOnly;
        badge.text = FitBadge::tr("CPU only, %1", "fit badge").arg(formatTokensPerSecond(s.tokensPerSecond));
        if (!gpu.present())
            badge.reason = FitBadge::tr("No GPU found: the model runs on the processor.");
        else
            badge.reason = FitBadge::tr("The GPU's free memory is too small for any part of this model.");
    } else {
        badge.kind = FitBadge::Hybrid;
        badge.text = FitBadge::tr("Hybrid, %1", "fit badge").arg(formatTokensPerSecond(s.tokensPerSecond));
        if (s.mixtureOfExperts)
            badge.reason = FitBadge::tr("%1 of %2 attention layers and %3 of %4 experts on the GPU.")
                               .arg(s.attentionLayersOnGpu())
                               .arg(s.layers.size())
                               .arg(s.gpuExpertCount())
                               .arg(s.expertCount());
        else
            badge.reason = FitBadge::tr("%1 of %2 attention layers and %3% of the FFN neurons on the GPU.")
                               .arg(s.attentionLayersOnGpu())
                               .arg(s.layers.size())
                               .arg(s.neuronCount() > 0 ? 100 * s.hotNeuronCount() / s.neuronCount() : 0);
    }
    return badge;
}

FitBadge estimateFit(const ModelDescription& description, double assumedSparsity, const MachineInfo& machine,
    const GpuInfo& gpu, int contextLength)
{
    auto model = PlacementModel::fromDescription(description, assumedSparsity);
    if (!model) {
        FitBadge badge;
        badge.text = FitBadge::tr("Unknown fit");
        badge.reason = app::engineErrorText(model.status());
        return badge;
    }
    return estimateFit(model.value(), machine, gpu, contextLength);
}

} // namespace hearth::models
