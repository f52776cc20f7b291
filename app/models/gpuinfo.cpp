// SPDX-License-Identifier: MIT
#include "gpuinfo.h"

#include <QCoreApplication>

#include <algorithm>
#include <cmath>
#include <future>

namespace hearth::models {

namespace {
constexpr quint64 kGiB = quint64(1) << 30;
constexpr quint64 kAutoMargin = quint64(256) << 20;

// The engine's answer, asked once per process on a thread of its own: with a driver it loads the
// CUDA module and opens a context, which should not hold up the GUI thread while it starts.
const std::shared_future<Result<GpuDescription>>& gpuQuery()
{
    static const std::shared_future<Result<GpuDescription>> query
        = std::async(std::launch::async, [] { return queryGpu(); }).share();
    return query;
}

// No GPU, and why.
class AbsentGpuInfo final : public GpuInfo
{
public:
    explicit AbsentGpuInfo(QString reason)
        : m_reason(std::move(reason))
    {
    }
    [[nodiscard]] bool present() const override { return false; }
    [[nodiscard]] QString name() const override { return {}; }
    [[nodiscard]] quint64 totalBytes() const override { return 0; }
    [[nodiscard]] quint64 freeBytes() const override { return 0; }
    [[nodiscard]] double bandwidthGBs() const override { return 0; }
    [[nodiscard]] QString unavailableReason() const override { return m_reason; }

private:
    QString m_reason;
};
} // namespace

FixedGpuInfo::FixedGpuInfo(quint64 bytes, QString name, double bandwidthGBs, quint64 freeBytes, bool emulated)
    : m_emulated(emulated)
    , m_total(bytes)
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
        // main() gives the sessions an emulated device of this size (fakeGpuDevice()).
        return std::make_unique<FixedGpuInfo>(bytes,
            QCoreApplication::translate("hearth::models::GpuInfo", "Simulated GPU (%1 GB)").arg(gib), 400.0, 0,
            /*emulated=*/true);
    }
    return gpuFromQuery(gpuQuery().get());
}

std::unique_ptr<GpuInfo> gpuFromQuery(const Result<GpuDescription>& query)
{
    if (!query.ok() || query->totalBytes == 0)
        return std::make_unique<AbsentGpuInfo>(QString::fromStdString(query.message()));
    // FixedGpuInfo reads a free size of 0 as "all free"; a GPU that reports none free keeps a byte.
    const quint64 free = std::max<quint64>(query->freeBytes, 1);
    return std::make_unique<FixedGpuInfo>(
        query->totalBytes, QString::fromStdString(query->name), query->bandwidthGBs, free);
}

void startGpuDetection()
{
    (void)gpuQuery();
}

quint64 autoBudgetBytes(const GpuInfo& gpu)
{
    const quint64 free = gpu.present() ? gpu.freeBytes() : 0;
    return free > kAutoMargin ? free - kAutoMargin : 0;
}

} // namespace hearth::models
