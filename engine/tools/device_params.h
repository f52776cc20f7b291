// SPDX-License-Identifier: MIT
#pragma once

// The device options every tool parses (tools::DeviceOptions), applied to a session's parameters
// the same way in each tool.

#include "tool_options.h"

#include <hearth/hearth.h>

namespace hearth::tools {

inline void applyDeviceOptions(const DeviceOptions& device, SessionParams& params)
{
    params.vramBudgetGiB = device.vramBudgetGiB;
    params.resetGpuIndex = device.resetGpuIndex;
    params.disableGpuIndex = device.disableGpuIndex;
    params.expertsByLayer = device.expertsByLayer;
    params.kvCache = kvCacheTypeFromName(device.kvCache).value_or(KvCacheType::F16);
}

} // namespace hearth::tools
