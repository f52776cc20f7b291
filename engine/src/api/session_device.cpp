// SPDX-License-Identifier: MIT
#include "api/session_device.h"

#include "device/device_loader.h"
#include "device/emulated_device.h"
#include "sparse/vram_budget.h"

#include <algorithm>
#include <charconv>
#include <string_view>
#include <system_error>

namespace hearth {

namespace {

constexpr std::string_view kEmulatedPrefix = "emulated:";

// A positive byte count, the whole of @p text.
bool parseBytes(std::string_view text, std::uint64_t& bytes)
{
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), bytes);
    return ec == std::errc() && end == text.data() + text.size() && bytes > 0;
}

} // namespace

device::AttentionParams attentionParams(const model::HyperParams& hp, int contextLength)
{
    device::AttentionParams a;
    a.nEmbd = hp.nEmbd;
    a.nHead = hp.nHead;
    a.nHeadKv = hp.nHeadKv;
    a.headDim = hp.headDim;
    a.nRot = hp.nRot;
    a.normEps = hp.normEps;
    a.freqBase = hp.ropeFreqBase;
    a.freqScale = hp.ropeFreqScale;
    a.contextLength = contextLength;
    return a;
}

device::Activation deviceActivation(model::FfnActivation activation)
{
    switch (activation) {
    case model::FfnActivation::SwiGlu:
        return device::Activation::SwiGlu;
    case model::FfnActivation::ReGlu:
        return device::Activation::ReGlu;
    case model::FfnActivation::DRelu:
        return device::Activation::DRelu;
    case model::FfnActivation::Relu2:
        return device::Activation::Relu2;
    }
    return device::Activation::SwiGlu;
}

std::string cpuOnlyReport(const std::string& why)
{
    return "CPU only: " + why;
}

std::string reportWithFailure(const std::string& report, const std::string& failure, std::string_view consequence)
{
    if (failure.empty())
        return report;
    return report + "; the device failed (" + failure + "): " + std::string(consequence);
}

bool zeroVramBudget(const SessionParams& params)
{
    return !(params.vramBudgetGiB < 0) && !(params.vramBudgetGiB > 0);
}

Result<std::unique_ptr<device::Device>> openSessionDevice(const SessionParams& params)
{
    std::uint64_t requested = 0; // 0: the device's own figure (free memory less the margin)
    if (params.vramBudgetGiB > 0) {
        auto bytes = sparse::gibToBytes(params.vramBudgetGiB);
        if (!bytes)
            return bytes.status();
        requested = *bytes;
    }
    const std::string_view name = params.deviceOverride;
    if (name.starts_with(kEmulatedPrefix)) {
        const std::string_view rest = name.substr(kEmulatedPrefix.size());
        const std::size_t colon = rest.find(':');
        std::uint64_t bytes = 0;
        std::uint64_t physical = 0;
        if (!parseBytes(rest.substr(0, colon), bytes)
            || (colon != std::string_view::npos && !parseBytes(rest.substr(colon + 1), physical)))
            return Status(ErrorCode::InvalidArgument, "bad device override '" + params.deviceOverride
                                                          + "' (expected emulated:<bytes>[:<physical bytes>])");
        device::EmulatedDeviceOptions options;
        options.budgetBytes = requested > 0 ? std::min(requested, bytes) : bytes;
        options.physicalBytes = physical;
        return std::unique_ptr<device::Device>(std::make_unique<device::EmulatedDevice>(options));
    }
    if (!name.empty())
        return Status(ErrorCode::InvalidArgument, "unknown device '" + params.deviceOverride + "'");
    device::DeviceLoadOptions options;
    options.budgetBytes = requested;
    return device::DeviceLoader::openCuda(options);
}

} // namespace hearth
