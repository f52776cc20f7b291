// SPDX-License-Identifier: MIT
#pragma once

// The device part of a mixture-of-experts session (Qwen 3 MoE, Mixtral, SmallThinker, ...). A
// token runs a few of each layer's experts, and some experts are picked far more often than the
// rest, so the GPU holds, as the placement planner orders them under the VRAM budget: the
// attention of layer 0, 1, ... with its KV cache, the output head, the shared experts, then the
// most used experts across all layers (hearth-profile's statistics beside the model), or, without
// statistics, layer by layer as llama.cpp's --n-cpu-moe does. The router's choices that are on
// the device run there while the CPU computes the others (model::MoeFfn).
//
// Nothing here fails a session: when the device cannot help, create() returns null with the
// reason in its report; a device failure later hands everything back to the CPU (the KV rows are
// mirrored into the session's cache), losing nothing.

#include "api/hybrid_device_layers.h"
#include "device/device.h"
#include "device/device_experts.h"
#include "model/layer_offload.h"

#include <hearth/model.h>
#include <hearth/session.h>

#include <memory>
#include <string>

namespace hearth {

class ExpertOffloadSession final : public model::LayerOffload {
public:
    // The offload @p params ask for on @p model, or null with @p report saying why the session
    // runs on the CPU alone (also when @p model is no mixture of experts). @p batchSize: the
    // forward pass's largest batch.
    [[nodiscard]] static std::unique_ptr<ExpertOffloadSession> create(const Model& model, const SessionParams& params,
                                                                      int contextLength, int batchSize,
                                                                      std::string& report);
    // As above on a device the caller opened (tests, tools); @p params' device choice is ignored.
    [[nodiscard]] static std::unique_ptr<ExpertOffloadSession> create(const Model& model,
                                                                      std::unique_ptr<device::Device> device,
                                                                      const SessionParams& params,
                                                                      int contextLength, int batchSize,
                                                                      std::string& report);
    ~ExpertOffloadSession() override;

    [[nodiscard]] model::KvCache::Type cacheType() const override { return m_cacheType; }
    [[nodiscard]] bool hasAttention(int layer) const override;
    [[nodiscard]] bool runAttention(model::KvCache& cache, int layer, const float* x, int n, int start,
                                    float* out) override;
    [[nodiscard]] bool runOutput(const float* x, int rows, float* logits) override;
    [[nodiscard]] std::span<const std::uint8_t> deviceExperts(int layer) const override;
    [[nodiscard]] bool startExperts(int layer, const model::ExpertBatch& batch) override;
    [[nodiscard]] bool finishExperts() override;

    // The placement, plus what went wrong on the device since.
    [[nodiscard]] std::string report() const;
    [[nodiscard]] SessionPlacement placement() const;

private:
    ExpertOffloadSession() = default;
    // The first device error of the experts or of the attention and output head; empty while
    // the device works. A reference: deviceExperts() asks for every layer of every token.
    [[nodiscard]] const std::string& failure() const;

    // Declared in this order so the parts go before the device that holds their memory.
    std::unique_ptr<device::Device> m_device;
    std::unique_ptr<HybridDeviceLayers> m_layers;  // attention and the output head; may be null
    std::unique_ptr<device::DeviceExperts> m_experts; // null: every expert on the CPU
    std::string m_report;
    std::string m_failure; // the experts' first device error
    model::KvCache::Type m_cacheType = model::KvCache::Type::F16; // the device attention's
    int m_nLayer = 0;
    int m_expertCount = 0; // routed experts of the model
};

} // namespace hearth
