// SPDX-License-Identifier: MIT
#pragma once

// Making an activation predictor for a ReLU model that ships none, from calibration samples.
//
// In a ReLU-gated FFN (reglu, drelu, relu2) neuron i can fire only when its gate
// pre-activation g_i = gate_i · RMSNorm(x) is positive. RMSNorm divides by a positive number and
// multiplies by the norm's weights, so the sign of g_i is that of (gate_i ⊙ norm) · x: a linear
// function of the residual x, which is what PowerInfer's predictor reads. The fit finds the
// rank-r linear map P closest to G = gate ⊙ norm *on the calibration inputs* (least squares over
// the samples, not over all of space: the directions the residual actually takes count, the
// others do not): P = U U^T G for the top r eigenvectors U of G C G^T, C the inputs' covariance
// (found by subspace iteration, so a 7B layer takes seconds, not the minutes of a full
// eigendecomposition). P = U (U^T G) is written as fc1 = U^T G and fc2 = U, a linear
// predictor (sparse/predictor.h: no ReLU between them, hidden = r). PowerInfer's form
// fc2 · ReLU(fc1 · x) would hold the same map only with the hidden units in pairs (a, -a), so
// that ReLU(a·x) - ReLU(-a·x) = a·x: twice the bytes for every token.
//
// Falcon and OPT (sparse/predictor.h) read a LayerNorm's output xn, and a neuron's pre-activation
// gate_i · xn + b_i has an offset: those predictors are affine. The map is fitted to the
// centered inputs and the bias restores each neuron's mean pre-activation, b + G m - P m for
// the inputs' mean m.
//
// Each neuron's score is scaled to unit spread, then one threshold per layer is chosen so that
// the requested share (the recall) of the neurons that fired on the calibration text score
// above it; the scores are scaled once more so that this threshold is kFittedThreshold for every
// layer, the file's single powerinfer.sparse_threshold. Deterministic: the same samples give the
// same bytes. One call uses one thread; layers may be fitted side by side.
//
//   sparse::LayerSamples samples(nEmbd, nFf);
//   samples.add(residual, acts, tokens);           // while the dense model runs
//   auto fit = sparse::fitPredictor(gateTimesNorm, samples, {.rank = 256, .recall = 0.99});
//   sparse::PredictorQuality q = sparse::measurePredictor(*fit, heldOut);

#include <hearth/status.h>

#include <atomic>
#include <cstdint>
#include <span>
#include <vector>

namespace hearth::sparse {

// A fitted predictor's neuron i is predicted active when its logit is >= this.
inline constexpr float kFittedThreshold = -1.0f;

// What one layer's FFN saw on calibration text: the predictor's input and which neurons fired.
class LayerSamples {
public:
    LayerSamples(std::int64_t nEmbd, std::int64_t nFf);

    // @p n tokens: @p residual (n x nEmbd) and their activations @p acts (n x nFf, non-zero: fired).
    void add(const float* residual, const float* acts, int n);

    [[nodiscard]] std::int64_t tokens() const { return m_tokens; }
    [[nodiscard]] std::int64_t nEmbd() const { return m_nEmbd; }
    [[nodiscard]] std::int64_t nFf() const { return m_nFf; }
    [[nodiscard]] const float* input(std::int64_t token) const { return m_inputs.data() + token * m_nEmbd; }
    [[nodiscard]] bool fired(std::int64_t token, std::int64_t neuron) const
    {
        const std::uint64_t word = m_fired[std::size_t(token * m_words + neuron / 64)];
        return (word >> (neuron % 64)) & 1u;
    }
    // Tokens on which each neuron fired.
    [[nodiscard]] std::vector<std::uint64_t> firingCounts() const;

private:
    std::int64_t m_nEmbd;
    std::int64_t m_nFf;
    std::int64_t m_words;
    std::int64_t m_tokens = 0;
    std::vector<float> m_inputs;
    std::vector<std::uint64_t> m_fired; // tokens x m_words
};

struct PredictorFitOptions {
    int rank = 0;         // of the linear map: the predictor's hidden size
    double recall = 0.99; // share of the calibration firings the threshold keeps, in (0, 1]
    const std::atomic<bool>* cancel = nullptr; // optional: set, the fit stops (Cancelled) within seconds
    bool affine = false;                   // fit a bias too (inputs from a LayerNorm)
    std::span<const float> bias;           // affine: the pre-activations' own bias (nFf); empty: none
};

struct FittedPredictor {
    std::int64_t nEmbd = 0;
    std::int64_t nFf = 0;
    std::int64_t hidden = 0;
    std::vector<float> fc1; // hidden x nEmbd, row-major
    std::vector<float> fc2; // nFf x hidden, row-major; logits = fc2 · (fc1 · x) + bias, no ReLU
    std::vector<float> bias; // nFf; empty unless affine
};

// How well a predictor's choices match the neurons that fired.
struct PredictorQuality {
    double recall = 0;          // fired neurons predicted active / fired neurons
    double precision = 0;       // fired neurons predicted active / neurons predicted active
    double predictedShare = 0;  // neurons predicted active / (tokens x nFf)
    double firedShare = 0;      // neurons that fired / (tokens x nFf)
};

// @p gate: nFf rows of nEmbd floats, gate row i times the FFN norm's weights elementwise (or,
// affine, the rows that multiply the normalized input).
// InvalidArgument for shapes that do not match or too few samples (fewer than two tokens).
[[nodiscard]] Result<FittedPredictor> fitPredictor(const std::vector<float>& gate, const LayerSamples& samples,
                                                   const PredictorFitOptions& options);

// Runs @p predictor (threshold kFittedThreshold) over @p samples.
[[nodiscard]] PredictorQuality measurePredictor(const FittedPredictor& predictor, const LayerSamples& samples);

} // namespace hearth::sparse
