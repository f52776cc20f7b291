// SPDX-License-Identifier: MIT
#pragma once

// Per-layer, per-neuron activation frequencies: the fraction of tokens for which a neuron fired
// on a calibration corpus. The planner ranks neurons by them and estimates bytes per token.

#include <hearth/status.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace hearth::sparse {

class ActivationStats {
public:
    ActivationStats() = default;

    // Frequencies in [0, 1], one vector of n_ff values per layer.
    [[nodiscard]] static Result<ActivationStats> fromFrequencies(std::vector<std::vector<float>> perLayer);
    // Counts as PowerInfer's activation_<layer>.pt files hold them. @p tokens is the number of
    // calibration tokens; those files do not record it, so 0 divides by the largest count of the
    // model instead (the hottest neuron then reads as always active: an upper bound on traffic).
    [[nodiscard]] static Result<ActivationStats> fromCounts(const std::vector<std::vector<double>>& counts, double tokens = 0);

    [[nodiscard]] bool empty() const { return m_layers.empty(); }
    [[nodiscard]] std::size_t layerCount() const { return m_layers.size(); }
    [[nodiscard]] std::span<const float> layer(std::size_t index) const { return m_layers[index]; }
    // A 64-bit fingerprint of the values, so a cached placement notices new statistics.
    [[nodiscard]] std::uint64_t fingerprint() const;

    // PowerInfer ships one "activation_<layer>.pt" per layer in a folder. Given the folder's file
    // names (or paths), returns those files ordered by layer number (a string sort would put
    // activation_10 before activation_2); other files are ignored. Fails when a layer is missing
    // or appears twice, or when there are none.
    [[nodiscard]] static Result<std::vector<std::string>> orderActivationFiles(const std::vector<std::string>& names);

private:
    std::vector<std::vector<float>> m_layers;
};

} // namespace hearth::sparse
