// SPDX-License-Identifier: MIT
#pragma once

// The feed-forward block of falcon and opt: out = down . act(up . x + upBias) + downBias, with
// no gate. The forward passes call it through FfnHook-shaped data, so a sparse implementation
// (predictor, then only the active neurons) can take its place per layer without touching the
// rest of the block.

#include "cpu/matmul.h"
#include "sparse/down_projection.h"
#include "sparse/predictor.h"

#include <hearth/status.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>
#include <optional>
#include <vector>

namespace hearth::cpu {
class ThreadPool;
}

namespace hearth::model {

enum class DenseActivation {
    Gelu, // original Falcon (tanh approximation, as llama.cpp computes it)
    Relu, // ReluFalcon, OPT
};

[[nodiscard]] constexpr std::string_view denseActivationName(DenseActivation a)
{
    return a == DenseActivation::Gelu ? "gelu" : "relu";
}

[[nodiscard]] constexpr std::optional<DenseActivation> parseDenseActivation(std::string_view name)
{
    if (name == "gelu")
        return DenseActivation::Gelu;
    if (name == "relu")
        return DenseActivation::Relu;
    return std::nullopt;
}

// One layer's FFN weights. Biases are null when the model has none (falcon).
struct UpDownFfn {
    cpu::WeightMatrix up;           // nEmbd -> nFf
    const float* upBias = nullptr;  // [nFf]
    cpu::WeightMatrix down;         // nFf -> nEmbd; when downTransposed: nFf rows of nEmbd
    const float* downBias = nullptr; // [nEmbd]
    DenseActivation activation = DenseActivation::Relu;
    bool downTransposed = false;     // PowerInfer's ffn_down_t: one row per neuron
    // Hearth's fused sparse layout (ffn_neurons): nFf rows of [up | down] (2 nEmbd elements);
    // up and down are then unbound: the neuron kernels read the rows, the dense products
    // strided views of them (denseView()).
    cpu::WeightMatrix neurons;
    bool fusedNeurons = false;
    sparse::PredictorWeights predictor; // PowerInfer's fc1/fc2, when the file has them

    // The layer as the dense products read it: itself, or for fused neurons their up rows and
    // their (neuron-major) down rows as strided views of the fused tensor.
    [[nodiscard]] UpDownFfn denseView() const
    {
        if (!fusedNeurons)
            return *this;
        UpDownFfn view = *this;
        const std::int64_t nEmbd = neurons.cols / 2;
        const std::size_t stride = rowBytes(neurons.type, neurons.cols);
        view.up = {neurons.type, neurons.data, neurons.rows, nEmbd};
        view.down = {neurons.type, static_cast<const std::uint8_t*>(neurons.data) + rowBytes(neurons.type, nEmbd),
                     neurons.rows, nEmbd};
        view.up.rowStride = view.down.rowStride = stride;
        view.downTransposed = true;
        view.fusedNeurons = false;
        return view;
    }
};

// One FFN call of a forward pass: @p tokens rows of the FFN's (normalized) input, and the rows
// a PowerInfer predictor reads (falcon: the layer input; opt: the residual stream before the
// FFN norm). The FFN writes its output rows to @p out (not added to anything).
struct FfnBatch {
    int layer = 0;
    int tokens = 0;
    const float* input = nullptr;          // [tokens][nEmbd]
    const float* predictorInput = nullptr; // [tokens][nEmbd]
    float* out = nullptr;                  // [tokens][nEmbd]
};

// Replaces the dense FFN of a forward pass (see FamilyForward::setFfnHook).
using FfnHook = std::function<void(const FfnBatch& batch)>;

// Computes UpDownFfn densely for a batch, with its own scratch for the hidden activations.
class DenseFfn {
public:
    // Fails with OutOfMemory instead of throwing. @p transposedDown: some layer stores its
    // down projection neuron-major, which needs sparse::DownProjection's scratch.
    [[nodiscard]] Status reserve(int maxBatch, int nFf, int nEmbd, int threads, bool transposedDown);

    // out = down . act(up . input + upBias) + downBias for @p tokens rows; @p mask (optional,
    // [tokens][nFf]) zeroes the activations of the neurons it leaves out (a sparse prompt).
    void run(cpu::ThreadPool& pool, const UpDownFfn& ffn, const float* input, int tokens, float* out,
             const std::uint8_t* mask = nullptr);
    // The last run()'s activations, [tokens][nFf] (what calibration records).
    [[nodiscard]] const float* activations() const { return m_hidden.data(); }
    // The second half of run() for activations computed elsewhere (a sparse prompt's): out =
    // down . hidden() + downBias for @p tokens rows, @p ffn's down neuron-major when it was
    // reserved with transposedDown.
    [[nodiscard]] float* hidden() { return m_hidden.data(); }
    void project(cpu::ThreadPool& pool, const UpDownFfn& ffn, int tokens, float* out);

private:
    std::vector<float> m_hidden; // [maxBatch][nFf]
    std::unique_ptr<sparse::DownProjection> m_downProjection; // neuron-major down only
    float* m_activationData = nullptr; // read by the parallel activation (captures only `this`)
};

} // namespace hearth::model
