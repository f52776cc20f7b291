// SPDX-License-Identifier: MIT
#pragma once

// The hybrid CPU/device FFN of a llama-family session with predictors: opens the device the
// session asks for, plans which neurons are hot (activation statistics beside the model, the
// GPU index cache), places them with re-planning, and then computes each decoded token's FFN
// split between the device and the CPU. Anything that goes wrong leaves the session on the CPU
// with a report that says why; nothing here fails a session.

#include "device/device.h"
#include "device/hybrid_placement.h"
#include "model/llama_forward.h"

#include <hearth/session.h>

#include <memory>
#include <string>
#include <vector>

namespace hearth::model {
class LlamaModel;
}

namespace hearth {

class HybridDecode final : public model::LlamaForward::DecodeFfn {
public:
    // The hybrid FFN for @p model as @p params ask, or null with @p report saying why the
    // session runs on the CPU alone.
    [[nodiscard]] static std::unique_ptr<HybridDecode> create(const model::LlamaModel& model, const SessionParams& params,
                                                              int contextLength, int batchSize, std::string& report);
    ~HybridDecode() override;

    [[nodiscard]] bool run(cpu::ThreadPool& pool, int layer, const float* xn, const std::int32_t* active,
                           std::int64_t count, float* y) override;

    // The placement, plus what went wrong on the device since (it then runs on the CPU).
    [[nodiscard]] std::string report() const;

private:
    HybridDecode() = default;

    // Declared in this order so the layers go before the weights they view and the device last.
    std::unique_ptr<device::Device> m_device;
    std::vector<device::FfnWeights> m_weights;
    device::HybridPlacement m_placement;
    std::string m_report;
    std::string m_failure; // the first device error; the FFN is on the CPU from then on
};

} // namespace hearth
