// SPDX-License-Identifier: MIT
#pragma once

// Making a SwiGLU model sparse without training (hearth/convert.h, SparsifyMethod::Magnitude).
//
// A SwiGLU neuron outputs silu(gate . x) * (up . x); when that is small against the residual
// stream the neuron adds little (the observation behind CATS and TEAL). So:
//
// 1. The dense model runs over the calibration text, and every layer's neuron scores
//    |silu(gate) * up| * ||down column|| / rms(residual) go into a histogram (MagnitudeHistogram),
//    training and held-out windows apart; with input sparsity, so do the scores of the inputs of
//    q/k/v, of the attention's output projection and of gate/up (sparse/input_sparsity.h).
// 2. Each layer's threshold is the value below which params.targetSparsity of its training
//    scores fall; each input's, params.inputSparsity of theirs. Without input sparsity a second
//    pass sets a screen on the gate alone that keeps params.recall of the neurons that pass.
// 3. The output is the input with each ffn_down replaced by ffn_down_t (row i: neuron i's n_embd
//    output weights, so a skipped neuron skips its bytes; exact for F32 and F16, re-quantized
//    for block types), the input-sparse projections stored input-major likewise, and the
//    thresholds (model_loader.cpp). A decoded token then reads the gate densely and up rows for
//    the neurons the screen lets through, or, with input sparsity, the rows of the inputs it
//    keeps; and down rows for the activations it keeps. With the gate screen each layer's
//    neurons are written most often kept first, and how often each was kept goes into the
//    statistics file beside the model (as a fitted ReLU model's frequencies do).
// 4. calibration_run.h checks it: it loads and answers, and reads the held-out text within the
//    perplexity bound.

#include <hearth/convert.h>
#include <hearth/model.h>

#include <array>
#include <bit>
#include <cstdint>
#include <memory>
#include <string>

namespace hearth::convert {

// Counts of non-negative floats by their 8 exponent bits and 5 leading mantissa bits: 32 bins
// per octave, so a quantile read back is within 1/32 of an octave (about 2%) of the exact one,
// in 64 KiB however many values went in.
class MagnitudeHistogram {
public:
    void add(float magnitude)
    {
        ++m_counts[(std::bit_cast<std::uint32_t>(magnitude) & 0x7fffffffu) >> kShift];
        ++m_total;
    }
    [[nodiscard]] std::uint64_t total() const { return m_total; }
    // The value below which @p share of the values lie (interpolated within its bin); 0 for 0.
    [[nodiscard]] float quantile(double share) const;
    // The share of the values below @p value (interpolated within its bin).
    [[nodiscard]] double shareBelow(float value) const;

private:
    static constexpr int kShift = 18; // 23 mantissa bits, 5 kept
    static constexpr std::size_t kBins = std::size_t(1) << (31 - kShift);
    std::array<std::uint64_t, kBins> m_counts{};
    std::uint64_t m_total = 0;
};

// The whole of SparsifyMethod::Magnitude for an input already loaded and checked
// (checkSparsifiable); writes @p partial (and, with the gate screen, the neurons' frequencies to
// @p partialStats), which take params.output's names only when it passes.
[[nodiscard]] Result<SparsifyReport> sparsifyByMagnitude(const SparsifyParams& params,
                                                         std::shared_ptr<const Model> loaded,
                                                         const std::string& partial,
                                                         const std::string& partialStats);

} // namespace hearth::convert
