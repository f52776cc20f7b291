// SPDX-License-Identifier: MIT
#pragma once

// Finds and opens the CUDA back end at run time. The module is searched, in order, at
// $HEARTH_CUDA_MODULE, next to the executable, in ../lib/hearth/ relative to it (the install
// layout, also used by the build tree) and in the install prefix's lib/hearth/. Any failure
// (no module, a broken one, no driver, no GPU) is an error value with a message that says why,
// and the caller runs CPU-only.

#include "device/device.h"

#include <hearth/status.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace hearth::device {

struct DeviceLoadOptions {
    std::string modulePath;        // only this file when set (no search)
    int deviceIndex = 0;
    std::uint64_t budgetBytes = 0; // 0: free memory less 256 MiB
    // Look for the NVIDIA driver library before opening the module's context. Only tests with a
    // stand-in module (which needs no driver) turn this off.
    bool checkDriver = true;
};

class DeviceLoader {
public:
    // The module file name on this platform ("libhearth-cuda.so", "hearth-cuda.dll").
    [[nodiscard]] static std::string moduleFileName();
    // Where the module is looked for, in order (existing or not).
    [[nodiscard]] static std::vector<std::string> searchPaths();
    // The first search path holding the module, or an empty string.
    [[nodiscard]] static std::string findModule();

    // Opens the CUDA device. Errors: Unsupported with messages such as
    // "CUDA back end not installed (libhearth-cuda.so not found in ...)",
    // "... is not a Hearth CUDA module (no hearth_cuda_backend_v1)",
    // "no CUDA device: no NVIDIA driver found (libcuda.so.1)", "no CUDA device found".
    [[nodiscard]] static Result<std::unique_ptr<Device>> openCuda(const DeviceLoadOptions& options = {});
};

} // namespace hearth::device
