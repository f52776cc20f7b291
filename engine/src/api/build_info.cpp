// SPDX-License-Identifier: MIT
#include "cpu/isa.h"

#include <hearth/model.h>

#ifndef HEARTH_VERSION
#define HEARTH_VERSION "unknown"
#endif

namespace hearth {

BuildInfo buildInfo()
{
    BuildInfo info;
    info.version = HEARTH_VERSION;
    info.cpuFeatures = cpu::cpuFeatureString();
    info.cpuKernels = cpu::isaName(cpu::activeIsa());
#ifdef HEARTH_CUDA_BUILT
    info.cudaBuilt = true;
#endif
    return info;
}

} // namespace hearth
