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
//   blk.N.ffn_expert_freq     = F32 [n_expert]: fraction of tokens the router sent to expert i.
// The default name is "<model>.hearth-stats.gguf", without the model's ".gguf". PowerInfer's activation/activation_<n>.pt
// files (per-neuron counts) load through loadPowerInferActivations().

#include "sparse/activation_stats.h"

#include <hearth/status.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace hearth::sparse {

// What a statistics file counts: FFN neurons, or the experts of a mixture.
enum class StatsUnit { Neurons, Experts };

// Per-layer, per-neuron (or per-expert) counts of tokens with a non-zero activation.
class ActivationCounter {
public:
    ActivationCounter(int layers, std::int64_t nFf);

    // @p acts: @p tokens rows of nFf activations of layer @p layer.
    void add(int layer, int tokens, const float* acts);
    // @p tokens tokens of layer @p layer that went to the listed @p units (experts), each once.
    void addUnits(int layer, int tokens, std::span<const std::int32_t> units);
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
// Reads and checks a statistics file: every layer present once, F32 1-D tensors of equal
// length, values finite and within [0, 1]. Anything else fails with a message naming the file.
[[nodiscard]] Result<ActivationStats> loadStatsFile(const std::string& path, StatsUnit unit = StatsUnit::Neurons);

// PowerInfer's activation folder: activation_<layer>.pt, one 1-D tensor of counts per layer.
// @p tokens as in ActivationStats::fromCounts (0: divide by the largest count).
[[nodiscard]] Result<ActivationStats> loadPowerInferActivations(const std::string& folder, double tokens = 0);

} // namespace hearth::sparse
