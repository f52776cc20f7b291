// SPDX-License-Identifier: MIT
#pragma once

// Synthetic ReLU models with activation predictors, for testing and measuring sparse
// inference. Per-neuron activation frequencies follow a power law whose mean is 1 - sparsity;
// the predictor is built so that it fires with those frequencies on typical inputs:
//
//   fc1 holds hidden units in (+w_k, -w_k) pairs, so ReLU gives relu(w_k·x) and relu(-w_k·x):
//   their difference is w_k·x (zero-mean over inputs), their sum |w_k·x| (nearly constant).
//   fc2 row i adds r_i·(w·x) (noise) and b_i · mean_k |w_k·x| (offset), so neuron i fires when
//   b_i >= -r_i·(w·x) / mean|w·x| =: q_i(x). q_i is calibrated on sampled inputs (mean and
//   spread), and b_i is its quantile at the target frequency. The logit is homogeneous in x, so
//   the input's scale does not matter, only its direction.
//
// Two layouts: PowerInfer's (PWRI magic, ffn_gate/ffn_up/ffn_down_t, neurons in random order)
// and Hearth's fused one (ffn_neurons, neurons ordered by frequency). The same options give the
// same neurons in both, so the two files compute the same function. The statistics (the target
// frequencies, in the file's neuron order) go to a Hearth statistics file.

#include "synth/synthetic_model.h"

#include <cstdint>
#include <string>
#include <vector>

namespace hearth::synth {

enum class SparseLayout { PowerInfer, Hearth };

struct SparseSynthOptions {
    double sparsity = 0.9;         // mean share of neurons predicted inactive, in [0, 1)
    SparseLayout layout = SparseLayout::PowerInfer;
    int predictorHidden = 0;       // 0: 512 for n_embd <= 2048, else 1024 (layer 0 gets twice);
                                   // stored in the model's weight type
    double powerLawExponent = 1.0; // frequency of the neuron of rank r ~ (r + 1)^-exponent
    int calibrationSamples = 256;
    std::string statsPath;         // empty: sparse::defaultStatsPath(model path)
};

[[nodiscard]] Result<SparseLayout> parseSparseLayout(const std::string& name);

// Target per-neuron frequencies by rank (descending) for @p nFf neurons.
[[nodiscard]] std::vector<float> powerLawFrequencies(std::int64_t nFf, double sparsity, double exponent);

// Per-neuron offsets of one layer's pre-activations, in units of their spread, for which neuron i
// fires with the power-law frequency f_i of powerLawFrequencies (Phi^-1(f_i)), shuffled by
// @p seed so that hot neurons are scattered through the matrix, as in trained models. OPT's
// synthetic up biases are these.
[[nodiscard]] std::vector<float> activationLocalityOffsets(std::int64_t nFf, double sparsity, std::uint64_t seed);

// The row means of one layer's ffn_gate (n_ff rows of n_embd) in a dense model with activation
// locality (SynthOptions::activationSparsity): the embeddings are 1 + N(0, 1), so a normalized
// FFN input x sums to about n_embd / sqrt(2), and a gate row of mean a and spread 1/sqrt(n_embd)
// gives a pre-activation of a n_embd / sqrt(2) + N(0, 1), positive with probability
// Phi(a n_embd / sqrt(2)): a = activationLocalityOffsets * sqrt(2) / n_embd.
[[nodiscard]] std::vector<float> activationLocalityGateMeans(std::int64_t nEmbd, std::int64_t nFf, double sparsity,
                                                             std::uint64_t seed);

// Writes the model (ReLU FFN: options.ffnActivation must be reglu, drelu or relu2) and its
// statistics file.
[[nodiscard]] Status writeSparseSyntheticModel(const SynthOptions& options, const SparseSynthOptions& sparse,
                                               const std::string& path, const SynthProgress& progress = {});

} // namespace hearth::synth
