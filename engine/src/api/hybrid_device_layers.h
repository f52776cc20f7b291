// SPDX-License-Identifier: MIT
#pragma once

// The parts of a sparse session's layers (llama, falcon or opt) that go to the device besides
// the hot FFN neurons: the attention block with its KV cache (for the layers whose attention the
// placement plan puts on the GPU; the block's flavour is the family's, see device_attention.h),
// the predictor (for the layers whose FFN has hot neurons there, so the GPU half of the FFN
// does not wait for the CPU to predict) and the output head, where the plan puts it. The FFN split itself stays with
// HybridDecode; both share one device and its budget.
//
// A layer that does not fit (the plan was too hopeful, the device lied about its memory) stays
// on the CPU with a note. A device failure later hands every layer back to the CPU: the KV rows
// are mirrored into the session's cache, so nothing is lost.

#include "device/device.h"
#include "device/device_attention.h"
#include "device/output_head.h"
#include "model/layer_offload.h"
#include "sparse/placement_plan.h"
#include "sparse/predictor.h"

#include <hearth/model.h>
#include <hearth/status.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace hearth {

class HybridDeviceLayers final : public model::LayerOffload {
public:
    // What to place, per layer.
    struct Choice {
        std::vector<bool> attention;
        std::vector<bool> predictor;
        bool output = false; // the output head
        bool halfCache = false; // the attention's KV caches in F16 (deviceHalfCache())
    };
    // The plan's choice: attention where attentionOnGpu, predictors where the layer has hot
    // neurons (or predictorOnGpu) and a predictor, the output head where outputOnGpu; the KV
    // caches in F16 with @p halfCache.
    [[nodiscard]] static Choice fromPlan(const sparse::PlacementPlan& plan, bool halfCache);

    // Places @p choice on @p device, which must outlive the result. @p batchSize: the forward
    // pass's largest batch. Null (with @p notes) when nothing could be placed.
    [[nodiscard]] static std::unique_ptr<HybridDeviceLayers> create(device::Device& device, const Model& model,
                                                                    const Choice& choice, int contextLength,
                                                                    int batchSize, std::vector<std::string>& notes);
    ~HybridDeviceLayers() override;

    [[nodiscard]] model::KvCache::Type cacheType() const override
    {
        return m_halfCache ? model::KvCache::Type::F16 : model::KvCache::Type::F32;
    }
    [[nodiscard]] bool hasAttention(int layer) const override;
    [[nodiscard]] bool runAttention(model::KvCache& cache, int layer, const float* x, int n, int start,
                                    float* out) override;
    [[nodiscard]] std::int64_t predict(int layer, const float* x, float threshold, std::int32_t* active) override;
    [[nodiscard]] bool runOutput(const float* x, int rows, float* logits) override;

    [[nodiscard]] int attentionLayers() const;
    /// The first device error (the CPU does everything since), or empty.
    [[nodiscard]] const std::string& failure() const { return m_failure; }
    [[nodiscard]] int predictorLayers() const;
    [[nodiscard]] bool hasOutputHead() const { return bool(m_output); }
    [[nodiscard]] std::uint64_t deviceBytes() const;
    // "attention of A/N layers and predictors of P/N layers [and the output head] on the GPU",
    // plus a device failure.
    [[nodiscard]] std::string summary() const;

private:
    struct Predictor {
        device::DeviceMatrix fc1, fc2;
        device::DeviceBuffer bias; // empty: none
        bool relu = true; // sparse::PredictorWeights::relu
    };
    // Uploads @p w into @p out; on failure nothing stays on the device.
    [[nodiscard]] Status uploadPredictor(const sparse::PredictorWeights& w, Predictor& out);
    void freePredictor(Predictor& p);
    explicit HybridDeviceLayers(device::Device& device)
        : m_device(device)
    {
    }
    void freeAll();

    device::Device& m_device;
    int m_nLayer = 0;
    bool m_halfCache = false;
    std::int64_t m_nEmbd = 0;
    std::int64_t m_nFf = 0;
    std::vector<std::unique_ptr<device::DeviceAttentionLayer>> m_attention; // per layer, null on the CPU
    std::vector<Predictor> m_predictors;                                      // per layer, empty on the CPU
    std::unique_ptr<device::AttentionScratch> m_attnScratch;
    std::unique_ptr<device::OutputHead> m_output; // null: the CPU computes the logits
    std::uint64_t m_scratchBytes = 0;
    device::DeviceBuffer m_x;      // [T][nEmbd] attention input, then the predictor's input
    device::DeviceBuffer m_out;    // [T][nEmbd] attention block output
    device::DeviceBuffer m_hidden; // [largest predictor hidden size]
    device::DeviceBuffer m_logits; // [nFf]
    device::DeviceBuffer m_active; // [nFf] I32
    device::DeviceBuffer m_count;  // one I32
    std::int32_t m_activeCount = 0;
    std::string m_failure; // the first device error; the CPU does everything from then on
};

} // namespace hearth
