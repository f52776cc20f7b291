// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// What the GPU of this machine offers, asked through the same CUDA back-end module
/// (libhearth-cuda.so / hearth-cuda.dll) sessions load at run time. Without the module, without
/// an NVIDIA driver or without a GPU, the answer is an error value that says which, never a
/// crash: front ends then plan for the CPU (or for a GPU the user names).
///
/// A query opens a CUDA context and closes it again (a fraction of a second on a real GPU):
/// front ends ask once at start-up rather than on every repaint.

#include <hearth/status.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace hearth {

struct GpuQueryParams {
    /// The back-end module to use; empty: the usual search ($HEARTH_CUDA_MODULE, beside the
    /// executable, ../lib/hearth/, the install prefix).
    std::string modulePath;
    int deviceIndex = 0;
    /// Look for the NVIDIA driver library before opening a context. Only stand-in modules used
    /// by tests, which need no driver, turn this off.
    bool checkDriver = true;
};

struct GpuDescription {
    std::string name;             ///< as the driver reports it, e.g. "NVIDIA GeForce RTX 4090"
    std::uint64_t totalBytes = 0; ///< the GPU's memory
    std::uint64_t freeBytes = 0;  ///< free when asked (other programs hold the rest)
    /// Memory bandwidth in GB/s: the maker's figure for a known GPU, else a guess from the size.
    double bandwidthGBs = 0;
    bool bandwidthKnown = false;  ///< bandwidthGBs comes from the table of known GPUs
};

/// Describes GPU @p params.deviceIndex. On failure the status is Unsupported and its message
/// starts with "no CUDA device: ", followed by why (module not installed, no driver, no GPU...).
[[nodiscard]] Result<GpuDescription> queryGpu(const GpuQueryParams& params = {});

/// The memory bandwidth of a GPU called @p name in GB/s, or 0 when it is not a known model.
[[nodiscard]] double knownGpuBandwidthGBs(std::string_view name);

/// knownGpuBandwidthGBs(), or for unknown GPUs a conservative figure for their memory size.
[[nodiscard]] double estimateGpuBandwidthGBs(std::string_view name, std::uint64_t totalBytes);

} // namespace hearth
