// SPDX-License-Identifier: MIT
#pragma once

// PowerInfer's activation predictor of one layer: logits = fc2 · ReLU(fc1 · x), no biases, x
// the residual stream after attention (before the FFN norm) for llama/bamboo/opt and the layer
// input for falcon. Neuron i is predicted active when logits[i] >= threshold. The hidden size
// may differ per layer. Hearth's fitted predictors are linear maps of low rank, logits =
// fc2 · (fc1 · x) without the ReLU (the file says so: kPredictorActivationKey = "identity"):
// written in PowerInfer's form they would need each hidden unit twice (a and -a).
//
// Falcon and OPT normalize the FFN input with a LayerNorm (which subtracts the mean and adds a
// bias) and OPT's up projection has a bias too: a neuron's pre-activation is then an affine
// function of the *normalized* input, not a linear one of the residual. Hearth's predictors
// fitted to them read the FFN's normalized input (kPredictorInputKey = "ffn_input") and add a
// bias to the logits (blk.N.fc2.bias, F32): logits = fc2 · (fc1 · xn) + bias.

#include "cpu/matmul.h"

#include <cstdint>

namespace hearth::cpu {
class ThreadPool;
}

namespace hearth::sparse {

// The file key that names the activation between fc1 and fc2: "relu" (the default) or
// "identity".
inline constexpr const char* kPredictorActivationKey = "hearth.sparse.predictor_activation";
// The file key that names what the predictors read: "residual" (the default: the family's
// PowerInfer input) or "ffn_input" (the FFN's normalized input).
inline constexpr const char* kPredictorInputKey = "hearth.sparse.predictor_input";

struct PredictorWeights {
    cpu::WeightMatrix fc1; // nEmbd -> hidden
    cpu::WeightMatrix fc2; // hidden -> nFf
    bool relu = true;      // ReLU between them (PowerInfer's); false: a linear map
    const float* bias = nullptr; // [nFf] added to the logits; null: none
    bool readsFfnInput = false;  // reads the FFN's normalized input instead of the residual

    [[nodiscard]] bool present() const { return fc1.data && fc2.data; }
    [[nodiscard]] std::int64_t hidden() const { return fc1.rows; }
    [[nodiscard]] std::int64_t neurons() const { return fc2.rows; }
    // The predictor's input of a layer: @p ffnInput or @p residual, as the file says.
    [[nodiscard]] const float* input(const float* residual, const float* ffnInput) const
    {
        return readsFfnInput ? ffnInput : residual;
    }
    // Weight bytes one token reads.
    [[nodiscard]] std::uint64_t bytes() const;
};

// logits (tokens x nFf) for x (tokens x nEmbd); hidden is scratch of tokens x hidden floats.
void predict(cpu::ThreadPool& pool, const PredictorWeights& p, const float* x, int tokens, float* hidden, float* logits);

// Writes the indices (ascending) of neurons whose logit >= threshold to @p ids; returns how many.
std::int64_t selectActive(const float* logits, std::int64_t nFf, float threshold, std::int32_t* ids);

// For a batch: mask[t * nFf + i] = logits[t][i] >= threshold, and the ascending union of the
// active neurons of all tokens in @p ids; returns its size. @p pairs (optional) receives the
// number of flags set, the (token, neuron) pairs the batch computes.
std::int64_t selectActiveBatch(const float* logits, int tokens, std::int64_t nFf, float threshold, std::uint8_t* mask,
                               std::int32_t* ids, std::int64_t* pairs = nullptr);

} // namespace hearth::sparse
