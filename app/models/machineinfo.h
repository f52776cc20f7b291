// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// The host facts the fit badges weigh: RAM, cores and memory bandwidth.

#include <QtGlobal>

namespace hearth::models {

struct MachineInfo
{
    quint64 ramBytes = 0; ///< physical memory
    quint64 availableRamBytes = 0; ///< MemAvailable at detection time (0: unknown)
    int cores = 1;
    /// Decode on the CPU is memory-bound; without a measurement, a typical dual-channel desktop.
    double cpuBandwidthGBs = 20.0;

    /// Reads /proc/meminfo (Linux) and std::thread::hardware_concurrency(); elsewhere the RAM is
    /// unknown (0) and the badges then do not rule a model out for RAM.
    [[nodiscard]] static MachineInfo detect();
    /// Parses the text of /proc/meminfo (kB values); missing fields stay 0.
    [[nodiscard]] static MachineInfo fromMeminfo(const QByteArray& text);
};

} // namespace hearth::models
