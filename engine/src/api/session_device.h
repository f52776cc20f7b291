// SPDX-License-Identifier: MIT
#pragma once

// The device a session's parameters name: the CUDA back end (budget from vramBudgetGiB, or the
// free memory less the margin), or the emulated device of SessionParams::deviceOverride. Also
// what every session part that uses the device shares: the activation it names to the device
// and the wording of its reports.

#include "device/device.h"
#include "device/dense_offload.h"
#include "device/device_attention.h"
#include "device/output_head.h"
#include "model/ffn_activation.h"
#include "model/hyper_params.h"
#include "sparse/predictor.h"

#include <hearth/session.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace hearth {

// The device, or why there is none (no module, no GPU, a bad override). A budget of 0 is the
// caller's to catch: it means "CPU only" and opens nothing.
[[nodiscard]] Result<std::unique_ptr<device::Device>> openSessionDevice(const SessionParams& params);

// Whether @p params leave the GPU out (a budget of exactly 0).
[[nodiscard]] bool zeroVramBudget(const SessionParams& params);

// The shape of a llama-family model's attention, as the device's attention layers take it.
[[nodiscard]] device::AttentionParams attentionParams(const model::HyperParams& hp, int contextLength);

// A model's layers as the device parts of a session take them, whatever its family (llama,
// falcon, opt): the attention's shape and flavour with the FFN's (params), each layer's attention
// and FFN weights (layers: what whole-layer offload uploads; the attention part is what a hybrid
// session's device attention uploads) and predictor (absent in dense files), and the output head.
struct DeviceModelLayers {
    device::DenseModelParams params;
    std::vector<device::DenseLayerWeights> layers;
    std::vector<sparse::PredictorWeights> predictors;
    device::OutputHeadWeights output; // the final norm and the output matrix
    // Why whole-layer offload cannot take these layers (neuron-major FFNs, weight types the
    // device does not compute), or empty.
    std::string wholeLayerProblem;
    // RoPE divisors made for the layers (YaRN's), which their ropeFreqs point into.
    std::vector<std::shared_ptr<const std::vector<float>>> ropeDivisors;
};

// @p model's layers for a session of @p contextLength tokens and batches of @p batchSize, its
// device KV caches in F16 with @p halfCache; Unsupported for other architectures.
[[nodiscard]] Result<DeviceModelLayers> deviceModelLayers(const Model& model, int contextLength, int batchSize,
                                                          bool halfCache);

// Whether a session asking for @p type keeps its device KV caches in F16: unless it asks for F32
// (the device has no Q8_0 cache; a Q8_0 session's host cache becomes F16 with it).
[[nodiscard]] constexpr bool deviceHalfCache(KvCacheType type)
{
    return type != KvCacheType::F32;
}

// The device's name for a model's FFN activation.
[[nodiscard]] device::Activation deviceActivation(model::FfnActivation activation);

// The report of a session part that stays on the CPU: "CPU only: <why>".
[[nodiscard]] std::string cpuOnlyReport(const std::string& why);

// @p report, followed, once the device has failed (@p failure: its first error), by that error
// and @p consequence ("the FFN runs on the CPU").
[[nodiscard]] std::string reportWithFailure(const std::string& report, const std::string& failure,
                                            std::string_view consequence);

} // namespace hearth
