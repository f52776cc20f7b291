// SPDX-License-Identifier: MIT
#pragma once

// Activation statistics on disk, and counting them while a model runs.
//
// Hearth's statistics file (written by hearth-profile and hearth-synth, read by the placement
// planner) is a GGUF file:
//   general.architecture      = "hearth.activation_stats"
//   hearth.stats.layer_count  = u32, number of layers
//   hearth.stats.tokens       = u64, tokens the frequencies were measured on (0: unknown)
//   blk.N.ffn_freq            = F32 [n_ff]: fraction of tokens for which neuron i of layer N
//                               had a non-zero activation, in the model file's neuron order;
//   or, for a mixture of experts,
//   blk.N.ffn_expert_freq     = F32 [n_expert]: fraction of tokens the router sent to expert i,
//   and, where the experts are ReLU-gated (reglu, drelu, relu2: their neurons output exact zeros),
//   blk.N.ffn_expert_neuron_freq = F32 [n_expert * n_ff_exp]: at e * n_ff_exp + i, the fraction
//                               of the tokens routed to expert e on which its neuron i fired.
// The default name is "<model>.hearth-stats.gguf", without the model's ".gguf". PowerInfer's activation/activation_<n>.pt
// files (per-neuron counts) load through loadPowerInferActivations().

#include "sparse/activation_stats.h"

#include <hearth/status.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace hearth::sparse {

// What a statistics file counts: FFN neurons, the experts of a mixture, or the neurons inside
// them.
enum class StatsUnit { Neurons, Experts, ExpertNeurons };

// Per-layer, per-neuron (or per-expert) counts of tokens with a non-zero activation.
class ActivationCounter {
public:
    ActivationCounter(int layers, std::int64_t nFf);

    // @p acts: @p tokens rows of nFf activations of layer @p layer.
    void add(int layer, int tokens, const float* acts);
    // @p tokens tokens of layer @p layer that went to the listed @p units (experts), each once.
    void addUnits(int layer, int tokens, std::span<const std::int32_t> units);
    // One token's activations of the units from @p first on (an expert's neurons), without
    // counting a token.
    void addSlice(int layer, std::int64_t first, std::span<const float> acts);
    // Tokens seen (counted once per token, on layer 0).
    [[nodiscard]] std::uint64_t tokens() const { return m_tokens; }
    [[nodiscard]] const std::vector<std::vector<std::uint64_t>>& counts() const { return m_counts; }
    [[nodiscard]] std::vector<std::vector<float>> frequencies() const;

private:
    std::vector<std::vector<std::uint64_t>> m_counts;
    std::uint64_t m_tokens = 0;
};

[[nodiscard]] std::string defaultStatsPath(const std::string& modelPath);

[[nodiscard]] Status writeStatsFile(const std::string& path, const std::vector<std::vector<float>>& frequencies,
                                    std::uint64_t tokens, StatsUnit unit = StatsUnit::Neurons);
// The frequencies of the neurons inside the experts (@p expertNeurons counted by addSlice,
// nExpert * nFfExpert units a layer), each over the tokens the router sent to its expert (0 for an
// expert it never chose); empty when the counters' shapes do not match.
[[nodiscard]] std::vector<std::vector<float>> expertNeuronFrequencies(const ActivationCounter& experts,
                                                                      const ActivationCounter& expertNeurons);
// A mixture's file: its experts' frequencies and @p neuronFrequencies (expertNeuronFrequencies).
[[nodiscard]] Status writeExpertStatsFile(const std::string& path, const ActivationCounter& experts,
                                          const std::vector<std::vector<float>>& neuronFrequencies);
// Reads and checks a statistics file: every layer present once, F32 1-D tensors of equal
// length, values finite and within [0, 1]. Anything else fails with a message naming the file.
[[nodiscard]] Result<ActivationStats> loadStatsFile(const std::string& path, StatsUnit unit = StatsUnit::Neurons);

// PowerInfer's activation folder: activation_<layer>.pt, one 1-D tensor of counts per layer.
// @p tokens as in ActivationStats::fromCounts (0: divide by the largest count).
[[nodiscard]] Result<ActivationStats> loadPowerInferActivations(const std::string& folder, double tokens = 0);

} // namespace hearth::sparse
