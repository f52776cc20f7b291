// SPDX-License-Identifier: MIT
#pragma once

// The hybrid CPU/device FFN of a session with predictors: opens the device the session asks for,
// plans which neurons are hot (activation statistics beside the model, the GPU index cache),
// places them with re-planning, and then computes each decoded token's FFN split between the
// device and the CPU. Anything that goes wrong leaves the session on the CPU with a report that
// says why; nothing here fails a session.
//
// Three kinds of FFN: the llama family's gated one (gate, up, down_t rows per neuron, placed by
// device::placeHybridFfn), falcon's and opt's up-only one (up and down_t rows, OPT's up bias;
// see UpOnlyFfnLayer in the .cpp), which the device computes with the same operations: the up
// rows' dot products, the bias, ReLU as ReGLU against ones, and the down rows; and a
// magnitude-sparse file's screened one, whose most kept neurons are each layer's first rows
// (device/screened_ffn.h) and whose hot set is planned from the statistics file beside it.

#include "device/device.h"
#include "device/hybrid_placement.h"
#include "device/screened_ffn.h"
#include "model/family_sparse_ffn.h"
#include "model/llama_forward.h"

#include <hearth/session.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace hearth::model {
class LlamaModel;
class FamilyModel;
class FalconModel;
class OptModel;
}

namespace hearth {

class UpOnlyFfnLayer;
class UpOnlyFfnScratch;

class HybridDecode final : public model::LlamaForward::DecodeFfn, public model::FamilyDecodeFfn {
public:
    // The hybrid FFN for @p model as @p params ask, or null with @p report saying why the
    // session runs on the CPU alone.
    [[nodiscard]] static std::unique_ptr<HybridDecode> create(const model::LlamaModel& model, const SessionParams& params,
                                                              int contextLength, int batchSize, std::string& report);
    [[nodiscard]] static std::unique_ptr<HybridDecode> create(const model::FalconModel& model, const SessionParams& params,
                                                              int contextLength, int batchSize, std::string& report);
    [[nodiscard]] static std::unique_ptr<HybridDecode> create(const model::OptModel& model, const SessionParams& params,
                                                              int contextLength, int batchSize, std::string& report);
    ~HybridDecode() override;

    // y = the FFN of layer @p layer over the active neurons (without a down bias, which the
    // caller adds).
    [[nodiscard]] bool run(cpu::ThreadPool& pool, int layer, const float* xn, const std::int32_t* active,
                           std::int64_t count, float* y) override;
    // A prompt's batch of a gated FFN: the layer's hot neurons multiply the whole batch on the
    // device while the CPU computes the cold ones. False (the CPU's own prompt path) for a layer
    // with nothing on the device and for up-only FFNs.
    [[nodiscard]] bool runBatch(cpu::ThreadPool& pool, int layer, const float* xn, int tokens,
                                const std::int32_t* active, std::int64_t count, const std::uint8_t* mask,
                                float* y) override;

    // A magnitude-sparse layer's first neurons on the device (model::LlamaForward::DecodeFfn).
    [[nodiscard]] std::int64_t screenedHot(int layer) const override;
    [[nodiscard]] bool queueScreened(int layer, const float* xn, int tokens, const float* scales) override;
    [[nodiscard]] bool addScreened(int layer, float* y, int tokens) override;

    // The placement, plus what went wrong on the device since (it then runs on the CPU).
    [[nodiscard]] std::string report() const;
    [[nodiscard]] SessionPlacement placement() const;

    // The device and the plan placed on it (sessions put attention and predictors there too).
    [[nodiscard]] device::Device& device() const { return *m_device; }
    [[nodiscard]] const sparse::PlacementPlan& plan() const { return m_placement.plan; }

    // One layer of an up-only FFN: neuron-major up and down_t rows of one type, and the up bias
    // (null without one).
    struct UpOnlyWeights {
        cpu::WeightMatrix up;
        cpu::WeightMatrix downT;
        const float* upBias = nullptr;
        cpu::WeightMatrix neurons; // Hearth's fused rows (up | down), of which up and downT are views
    };

private:
    HybridDecode();

    struct Setup; // what every family's create() shares (hybrid_decode.cpp)
    // A magnitude-sparse llama-block file: its most kept neurons (each layer's first rows) on the
    // device, the CPU screening the rest; null without a statistics file beside it.
    [[nodiscard]] static std::unique_ptr<HybridDecode> createScreened(const model::LlamaModel& model,
                                                                      const SessionParams& params, int contextLength,
                                                                      int batchSize, std::string& report);
    [[nodiscard]] static std::unique_ptr<HybridDecode> createUpOnly(const model::FamilyModel& model, bool sparse,
                                                                    std::vector<UpOnlyWeights> layers,
                                                                    const SessionParams& params, int contextLength,
                                                                    int batchSize, std::string& report);
    // The report once a placement is made; null when nothing went to the device.
    [[nodiscard]] static std::unique_ptr<HybridDecode> finish(std::unique_ptr<HybridDecode> h, Setup& setup,
                                                              const SessionParams& params, std::string& report);

    // Declared in this order so the layers go before the weights they view and the device last.
    std::unique_ptr<device::Device> m_device;
    std::vector<device::FfnWeights> m_weights;
    std::vector<UpOnlyWeights> m_upOnlyWeights;
    device::HybridPlacement m_placement;                  // gated FFNs
    std::unique_ptr<UpOnlyFfnScratch> m_upOnlyScratch;    // up-only FFNs
    std::vector<std::unique_ptr<UpOnlyFfnLayer>> m_upOnly;
    std::vector<device::ScreenedFfnWeights> m_screenedWeights;           // magnitude-sparse FFNs
    std::unique_ptr<device::HybridFfnScratch> m_screenedScratch;
    std::vector<std::unique_ptr<device::ScreenedFfnLayer>> m_screened;
    std::string m_report;
    std::string m_failure; // the first device error; the FFN is on the CPU from then on
};

} // namespace hearth
