// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// GpuInfo: what the panel and the fit badges need to know about the GPU, behind an interface so
/// that tests (and the "plan for a GPU of N GB" preview) can stand in for real hardware.

#include <hearth/gpu.h>

#include <QString>
#include <QtGlobal>

#include <memory>

namespace hearth::models {

class GpuInfo
{
public:
    virtual ~GpuInfo() = default;
    /// False when no usable GPU was found; the other values are then 0.
    [[nodiscard]] virtual bool present() const = 0;
    [[nodiscard]] virtual QString name() const = 0;
    [[nodiscard]] virtual quint64 totalBytes() const = 0;
    /// Free right now (other programs hold the rest); at most totalBytes().
    [[nodiscard]] virtual quint64 freeBytes() const = 0;
    /// Memory bandwidth in GB/s, for the speed estimate.
    [[nodiscard]] virtual double bandwidthGBs() const = 0;
    /// Why there is no GPU, in the engine's words ("no CUDA device: ..."); empty when present()
    /// or when nobody looked (a fixed size).
    [[nodiscard]] virtual QString unavailableReason() const { return {}; }
    /// Sessions use the engine's emulated device for it (HEARTH_FAKE_GPU_GB): plans then count
    /// that device's fixed costs rather than a CUDA context's.
    [[nodiscard]] virtual bool emulated() const { return false; }
};

/// A GPU of fixed size: tests, and planning for hardware the user does not have (yet).
class FixedGpuInfo final : public GpuInfo
{
public:
    /// @p bytes 0 means "no GPU".
    explicit FixedGpuInfo(quint64 bytes, QString name = {}, double bandwidthGBs = 400.0, quint64 freeBytes = 0,
        bool emulated = false);

    [[nodiscard]] bool present() const override { return m_total > 0; }
    [[nodiscard]] QString name() const override { return m_name; }
    [[nodiscard]] quint64 totalBytes() const override { return m_total; }
    [[nodiscard]] quint64 freeBytes() const override { return m_free; }
    [[nodiscard]] double bandwidthGBs() const override { return m_bandwidth; }
    [[nodiscard]] bool emulated() const override { return m_emulated; }

private:
    bool m_emulated = false;
    quint64 m_total = 0;
    quint64 m_free = 0;
    QString m_name;
    double m_bandwidth = 400.0;
};

/// What the engine's GPU query (hearth::queryGpu) found, as a GpuInfo: the GPU, or none with the
/// engine's reason.
[[nodiscard]] std::unique_ptr<GpuInfo> gpuFromQuery(const Result<GpuDescription>& query);

/// The GPU of this machine, asked through the CUDA back-end module the engine loads at run time.
/// The engine is asked once per process (opening a CUDA context takes a moment), so the free
/// memory is that of the first call. HEARTH_FAKE_GPU_GB=N (a number) stands in a GPU of N GiB
/// instead, for demonstrations and UI work on machines without one.
[[nodiscard]] std::unique_ptr<GpuInfo> detectGpu();

/// Starts asking the engine for the GPU on a worker thread, so that detectGpu() later finds the
/// answer ready; main() calls it first thing.
void startGpuDetection();

/// PowerInfer's default budget: the free memory minus 256 MiB for other programs.
[[nodiscard]] quint64 autoBudgetBytes(const GpuInfo& gpu);

} // namespace hearth::models
