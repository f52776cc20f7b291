// SPDX-License-Identifier: MIT
// The public GPU query: opens the CUDA back end through device::DeviceLoader, reads the device's
// name and memory, and closes it again.

#include <hearth/gpu.h>

#include "device/device_loader.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <string>

namespace hearth {

namespace {

constexpr std::string_view kNoDevice = "no CUDA device: ";
constexpr std::uint64_t kGiB = std::uint64_t(1) << 30;

struct KnownGpu {
    std::string_view pattern; // lower case; the first entry whose pattern the name contains wins
    double bandwidthGBs;
};

// Makers' figures. More specific names come before the names they contain ("4070 ti super"
// before "4070 ti" before "4070").
constexpr std::array kKnownGpus{
    KnownGpu{"rtx 5090", 1792},          KnownGpu{"rtx 5080", 960},
    KnownGpu{"rtx 5070 ti", 896},        KnownGpu{"rtx 5070", 672},
    KnownGpu{"rtx 5060 ti", 448},        KnownGpu{"rtx 4090", 1008},
    KnownGpu{"rtx 4080 super", 736},     KnownGpu{"rtx 4080", 717},
    KnownGpu{"rtx 4070 ti super", 672},  KnownGpu{"rtx 4070 ti", 504},
    KnownGpu{"rtx 4070 super", 504},     KnownGpu{"rtx 4070", 504},
    KnownGpu{"rtx 4060 ti", 288},        KnownGpu{"rtx 4060", 272},
    KnownGpu{"rtx 3090 ti", 1008},       KnownGpu{"rtx 3090", 936},
    KnownGpu{"rtx 3080 ti", 912},        KnownGpu{"rtx 3080", 760},
    KnownGpu{"rtx 3070 ti", 608},        KnownGpu{"rtx 3070", 448},
    KnownGpu{"rtx 3060 ti", 448},        KnownGpu{"rtx 3060", 360},
    KnownGpu{"rtx 3050", 224},           KnownGpu{"rtx 2080 ti", 616},
    KnownGpu{"rtx 2080 super", 496},     KnownGpu{"rtx 2080", 448},
    KnownGpu{"rtx 2070", 448},           KnownGpu{"rtx 2060", 336},
    KnownGpu{"titan rtx", 672},          KnownGpu{"rtx 6000 ada", 960},
    KnownGpu{"rtx a6000", 768},          KnownGpu{"rtx a5000", 768},
    KnownGpu{"rtx a4000", 448},          KnownGpu{"h200", 4800},
    KnownGpu{"h100 pcie", 2000},         KnownGpu{"h100", 3350},
    KnownGpu{"a100-sxm4-80gb", 2039},    KnownGpu{"a100 80gb", 1935},
    KnownGpu{"a100", 1555},              KnownGpu{"l40s", 864},
    KnownGpu{"l40", 864},                KnownGpu{"l4", 300},
    KnownGpu{"a10g", 600},               KnownGpu{"a10", 600},
    KnownGpu{"v100", 900},               KnownGpu{"t4", 320},
};

std::string lower(std::string_view text)
{
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    return out;
}

// Whether @p pattern occurs in @p name as whole words: "l4" must not match "rtx a4000" or "l40".
bool containsWord(const std::string& name, std::string_view pattern)
{
    for (std::size_t at = name.find(pattern); at != std::string::npos; at = name.find(pattern, at + 1)) {
        const std::size_t end = at + pattern.size();
        const bool startOk = at == 0 || !std::isalnum(static_cast<unsigned char>(name[at - 1]));
        const bool endOk = end == name.size() || !std::isalnum(static_cast<unsigned char>(name[end]));
        if (startOk && endOk) {
            return true;
        }
    }
    return false;
}

} // namespace

double knownGpuBandwidthGBs(std::string_view name)
{
    const std::string n = lower(name);
    for (const KnownGpu& gpu : kKnownGpus) {
        if (containsWord(n, gpu.pattern)) {
            return gpu.bandwidthGBs;
        }
    }
    return 0;
}

double estimateGpuBandwidthGBs(std::string_view name, std::uint64_t totalBytes)
{
    if (const double known = knownGpuBandwidthGBs(name); known > 0) {
        return known;
    }
    // Consumer cards of a memory size have roughly these buses; the low end of each class, so
    // speed estimates err on the slow side.
    if (totalBytes >= 40 * kGiB)
        return 1500;
    if (totalBytes >= 20 * kGiB)
        return 900;
    if (totalBytes >= 12 * kGiB)
        return 500;
    if (totalBytes >= 8 * kGiB)
        return 300;
    return 200;
}

Result<GpuDescription> queryGpu(const GpuQueryParams& params)
{
    device::DeviceLoadOptions options;
    options.modulePath = params.modulePath;
    options.deviceIndex = params.deviceIndex;
    options.checkDriver = params.checkDriver;
    auto device = device::DeviceLoader::openCuda(options);
    if (!device) {
        std::string message = device.message();
        if (message.rfind(kNoDevice, 0) != 0) {
            message = std::string(kNoDevice) + message;
        }
        return Status(ErrorCode::Unsupported, std::move(message));
    }
    const device::DeviceInfo& info = (*device)->info();
    GpuDescription gpu;
    gpu.name = info.name;
    gpu.totalBytes = info.totalBytes;
    gpu.freeBytes = std::min(info.freeBytes, info.totalBytes);
    gpu.bandwidthGBs = estimateGpuBandwidthGBs(gpu.name, gpu.totalBytes);
    gpu.bandwidthKnown = knownGpuBandwidthGBs(gpu.name) > 0;
    return gpu;
}

} // namespace hearth
