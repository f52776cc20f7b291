// SPDX-License-Identifier: MIT
#include "gpuinfo.h"

#include <QCoreApplication>

#include <algorithm>
#include <cmath>

namespace hearth::models {

namespace {
constexpr quint64 kGiB = quint64(1) << 30;
constexpr quint64 kAutoMargin = quint64(256) << 20;
} // namespace

FixedGpuInfo::FixedGpuInfo(quint64 bytes, QString name, double bandwidthGBs, quint64 freeBytes)
    : m_total(bytes)
    , m_free(freeBytes == 0 ? bytes : std::min(freeBytes, bytes))
    , m_name(std::move(name))
    , m_bandwidth(bandwidthGBs > 0 ? bandwidthGBs : 400.0)
{
}

std::unique_ptr<GpuInfo> detectGpu()
{
    bool ok = false;
    const double gib = qEnvironmentVariable("HEARTH_FAKE_GPU_GB").toDouble(&ok);
    if (ok && std::isfinite(gib) && gib > 0 && gib <= 4096) {
        const auto bytes = static_cast<quint64>(gib * static_cast<double>(kGiB));
        return std::make_unique<FixedGpuInfo>(
            bytes, QCoreApplication::translate("hearth::models::GpuInfo", "Simulated GPU (%1 GB)").arg(gib));
    }
    return std::make_unique<FixedGpuInfo>(0);
}

quint64 autoBudgetBytes(const GpuInfo& gpu)
{
    const quint64 free = gpu.present() ? gpu.freeBytes() : 0;
    return free > kAutoMargin ? free - kAutoMargin : 0;
}

} // namespace hearth::models
