// SPDX-License-Identifier: MIT
#pragma once

// The most kept neurons of a magnitude-sparse layer on a device. Such a layer screens every
// neuron on the CPU: its gate is computed for all of them and only the neurons over the floors
// read their up and down rows (model/llama_weights.h). hearth-sparsify writes each layer's
// neurons most often kept first, so the hot ones are its first rows: the device holds rows
// [0, hot) of gate, up and down_t with their floors and computes them all for a decoded token,
// floored as the CPU would, while the CPU screens rows [hot, n_ff); the outputs are summed.
//
// A prompt's tokens go the same way, each with its own residual scale.
//
//   layer->queue(xn, tokens, residualRms);   // the device starts
//   ... the CPU's share into y ...
//   layer->addTo(y, tokens);                 // waits and adds the device's share

#include "cpu/matmul.h"
#include "device/device.h"
#include "device/hybrid_ffn.h"

#include <hearth/status.h>

#include <cstdint>
#include <memory>
#include <vector>

namespace hearth::device {

// One layer as its file stores it: gate and up rows per neuron, down_t (a row per neuron), one
// type for the three, and the neurons' floors in units of the residual's root mean square.
struct ScreenedFfnWeights {
    cpu::WeightMatrix gate;
    cpu::WeightMatrix up;
    cpu::WeightMatrix downT;
    const float* gateFloor = nullptr;       // [n_ff]
    const float* activationFloor = nullptr; // [n_ff]
    Activation activation = Activation::SwiGlu;
};

class ScreenedFfnLayer {
public:
    // Uploads the first @p hot neurons of @p w (0: none, the layer stays on the CPU); a prompt
    // goes through @p scratch's rows a slice at a time. The weights must outlive the layer;
    // OutOfMemory frees what this call made.
    [[nodiscard]] static Result<std::unique_ptr<ScreenedFfnLayer>> create(Device& device, HybridFfnScratch& scratch,
                                                                         const ScreenedFfnWeights& w, std::int64_t hot);
    ~ScreenedFfnLayer();
    ScreenedFfnLayer(const ScreenedFfnLayer&) = delete;
    ScreenedFfnLayer& operator=(const ScreenedFfnLayer&) = delete;

    [[nodiscard]] std::int64_t hot() const { return m_hot; }

    // Queues the hot neurons' output for the normalized inputs @p x (@p tokens rows of n_embd
    // floats) of tokens whose residuals have root mean squares @p scales. @p x and @p scales must
    // stay as they are until addTo().
    [[nodiscard]] Status queue(const float* x, int tokens, const float* scales);
    // Waits for what queue() started and adds it to @p y (the same rows).
    [[nodiscard]] Status addTo(float* y, int tokens);

private:
    ScreenedFfnLayer(Device& device, HybridFfnScratch& scratch)
        : m_device(device)
        , m_scratch(scratch)
    {
    }

    Device& m_device;
    HybridFfnScratch& m_scratch;
    Activation m_activation = Activation::SwiGlu;
    std::int64_t m_hot = 0;
    DeviceMatrix m_gate; // rows [0, hot)
    DeviceMatrix m_up;
    DeviceMatrix m_downT;
    DeviceBuffer m_gateFloor;       // [hot]
    DeviceBuffer m_activationFloor; // [hot]
    std::vector<float> m_out;       // [tokens][nEmbd] the device's share, once downloaded
};

} // namespace hearth::device
