// SPDX-License-Identifier: MIT
#pragma once

// Experts of mixture-of-experts layers on the device. A router sends each token to a few of a
// layer's experts, and some experts are chosen far more often than others (PowerInfer's hot and
// cold neurons, one level up): the placement planner puts the hottest experts of every layer
// here, and the CPU computes the others at the same time.
//
//   auto experts = DeviceExperts::create(device, shape);
//   HEARTH_TRY((*experts)->place(layer, e, weights));  // while the budget holds them
//   ...
//   HEARTH_TRY(experts->enqueue(layer, rows));  // queues the layer's device experts, returns
//   ... the CPU computes the other experts ...
//   HEARTH_TRY(device.synchronize());           // their outputs are in rows.out
//
// An expert is a gated FFN (gate, up, down of the layer's activation, with biases where the
// family has them), the same operations a whole-layer FFN uses on the device. The rows of a batch go through in slices of the scratch.

#include "cpu/matmul.h"
#include "device/device.h"

#include <hearth/status.h>

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace hearth::device {

struct ExpertShape {
    int nLayer = 0;
    int nExpert = 0;              // routed experts per layer; index nExpert is the shared expert
    std::int64_t nEmbd = 0;
    std::int64_t maxFf = 0;       // the widest expert (routed or shared)
    int maxRows = 1;              // rows of a batch the scratch holds at once
    Activation activation = Activation::SwiGlu; // a gated one
};

// One expert's matrices, as the CPU holds them (views of the stacked ffn_*_exps tensors).
struct ExpertWeights {
    cpu::WeightMatrix gate; // nEmbd -> nFf
    cpu::WeightMatrix up;   // nEmbd -> nFf
    cpu::WeightMatrix down; // nFf -> nEmbd
    // Added to each product's outputs where the family has them (gpt-oss); null elsewhere.
    const float* gateBias = nullptr; // [nFf]
    const float* upBias = nullptr;   // [nFf]
    const float* downBias = nullptr; // [nEmbd]
};

// One layer's batch as the CPU's MoE FFN lays it out (model::ExpertBatch).
struct ExpertRows {
    const float* gathered = nullptr;     // [pairs][nEmbd], grouped by expert
    const std::int32_t* first = nullptr; // [nExpert + 1]: where each expert's rows start
    float* out = nullptr;                // [pairs][nEmbd]
    const float* input = nullptr;        // [tokens][nEmbd], the shared expert's input
    int tokens = 0;
    float* sharedOut = nullptr;          // [tokens][nEmbd]; null: the shared expert is not asked for
};

class DeviceExperts {
public:
    // The scratch buffers for @p shape; OutOfMemory when the budget cannot hold them.
    [[nodiscard]] static Result<std::unique_ptr<DeviceExperts>> create(Device& device, const ExpertShape& shape);
    // What create() allocates for @p shape, as the device charges it.
    [[nodiscard]] static std::uint64_t scratchBytes(const Device& device, const ExpertShape& shape);
    ~DeviceExperts();
    DeviceExperts(const DeviceExperts&) = delete;
    DeviceExperts& operator=(const DeviceExperts&) = delete;

    // Uploads expert @p expert of @p layer (nExpert: the shared expert). Fails (nothing kept)
    // when the budget cannot hold it or the device does not compute its weight type.
    [[nodiscard]] Status place(int layer, int expert, const ExpertWeights& w);

    // nExpert + 1 flags of @p layer's experts on the device (the last: the shared expert); empty
    // when the layer has none there.
    [[nodiscard]] std::span<const std::uint8_t> flags(int layer) const;
    [[nodiscard]] int routedExpertsOn(int layer) const;
    [[nodiscard]] bool sharedExpertOn(int layer) const;

    // Queues @p layer's device experts over their rows of @p rows, outputs downloaded into
    // rows.out (and rows.sharedOut); the device's synchronize() waits for them.
    [[nodiscard]] Status enqueue(int layer, const ExpertRows& rows);

    // Weights and scratch, as charged.
    [[nodiscard]] std::uint64_t deviceBytes() const;

private:
    struct Expert {
        DeviceMatrix gate, up, down;
        DeviceBuffer gateBias, upBias, downBias; // empty without biases

        // Every buffer the expert holds.
        [[nodiscard]] std::array<DeviceBuffer*, 6> buffers()
        {
            return {&gate.data, &up.data, &down.data, &gateBias, &upBias, &downBias};
        }
        [[nodiscard]] std::array<const DeviceBuffer*, 6> buffers() const
        {
            return {&gate.data, &up.data, &down.data, &gateBias, &upBias, &downBias};
        }
    };
    DeviceExperts(Device& device, const ExpertShape& shape)
        : m_device(device)
        , m_shape(shape)
    {
    }
    void freeAll();
    // Queues @p expert over @p count rows of @p x (already on the device at m_in when
    // @p uploaded, else uploaded slice by slice), outputs into @p y.
    [[nodiscard]] Status enqueueExpert(const Expert& expert, const float* x, std::int64_t count, bool uploaded,
                                       float* y);

    Device& m_device;
    ExpertShape m_shape;
    std::vector<std::vector<Expert>> m_experts;      // [layer][expert], empty matrices off the device
    std::vector<std::vector<std::uint8_t>> m_flags;  // [layer][nExpert + 1], empty: none there
    DeviceBuffer m_in;   // [maxRows][nEmbd]
    DeviceBuffer m_gate; // [maxRows][maxFf], then the activation
    DeviceBuffer m_up;   // [maxRows][maxFf]
    DeviceBuffer m_out;  // [maxRows][nEmbd]
};

} // namespace hearth::device
