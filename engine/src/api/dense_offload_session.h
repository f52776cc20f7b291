// SPDX-License-Identifier: MIT
#pragma once

// Whole-layer offload for the sessions of plain dense files (no predictors) of every family
// (llama, falcon, opt): the "dense fallback" users of other apps know. Under
// SessionParams::vramBudgetGiB the first k layers that fit the device run there whole (attention
// with its KV cache, and the FFN), for prompts as for decoded tokens, and the output head after
// them when the budget holds it too; the rest and the embeddings (opt's learned positions
// included) run on the CPU. The device's KV rows
// are mirrored into the session's cache, so a device failure hands the layers back to the CPU
// without losing the conversation. Nothing here fails a session: when the device cannot help,
// create() returns null with the reason in its report.

#include "device/dense_offload.h"
#include "device/device.h"
#include "device/output_head.h"
#include "model/layer_offload.h"

#include <hearth/model.h>
#include <hearth/session.h>

#include <memory>
#include <string>
#include <vector>

namespace hearth {

class DenseOffloadSession final : public model::LayerOffload {
public:
    // The offload @p params ask for on @p model, or null with @p report saying why the session
    // runs on the CPU alone. @p batchSize is the forward pass's largest batch.
    [[nodiscard]] static std::unique_ptr<DenseOffloadSession> create(const Model& model, const SessionParams& params,
                                                                     int contextLength, int batchSize,
                                                                     std::string& report);
    // As above on a device the caller opened (tests, tools), its KV caches in F16 with @p halfCache.
    [[nodiscard]] static std::unique_ptr<DenseOffloadSession> create(const Model& model,
                                                                     std::unique_ptr<device::Device> device,
                                                                     int contextLength, int batchSize, bool halfCache,
                                                                     std::string& report);
    ~DenseOffloadSession() override;

    [[nodiscard]] model::KvCache::Type cacheType() const override
    {
        return m_halfCache ? model::KvCache::Type::F16 : model::KvCache::Type::F32;
    }
    [[nodiscard]] int wholeLayers() const override;
    [[nodiscard]] bool runWholeLayers(model::KvCache& cache, float* x, int n, int start) override;
    [[nodiscard]] bool runOutput(const float* x, int rows, float* logits) override;

    // Device bytes of the layers, their scratch and the output head.
    [[nodiscard]] std::uint64_t deviceBytes() const;
    // The placement, plus what went wrong on the device since (the CPU then runs every layer).
    [[nodiscard]] std::string report() const;
    [[nodiscard]] SessionPlacement placement() const;

private:
    DenseOffloadSession() = default;

    // Declared in this order so the offload goes before the device that holds its memory.
    std::unique_ptr<device::Device> m_device;
    std::unique_ptr<device::DenseOffload> m_offload;
    std::unique_ptr<device::OutputHead> m_output; // null: the CPU computes the logits
    std::vector<device::KvMirror> m_mirrors; // per offloaded layer, refreshed per call
    std::string m_report;
    std::string m_failure; // the first device error
    int m_layers = 0;
    bool m_halfCache = false;
};

} // namespace hearth
