// SPDX-License-Identifier: MIT
#include "sparse/activation_stats.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <map>
#include <string_view>
#include <cstring>
#include <string>

namespace hearth::sparse {

Result<ActivationStats> ActivationStats::fromFrequencies(std::vector<std::vector<float>> perLayer)
{
    for (std::size_t l = 0; l < perLayer.size(); ++l) {
        for (std::size_t i = 0; i < perLayer[l].size(); ++i) {
            float& f = perLayer[l][i];
            if (f == 0.0f) {
                f = 0.0f; // -0 would rank above every positive frequency by its bits
            }
            if (!(f >= 0.0f && f <= 1.0f)) { // also rejects NaN
                return Status(ErrorCode::InvalidArgument,
                              "activation frequency of layer " + std::to_string(l) + " neuron " + std::to_string(i)
                                  + " is " + std::to_string(f) + ", outside [0, 1]");
            }
        }
    }
    ActivationStats stats;
    stats.m_layers = std::move(perLayer);
    return stats;
}

Result<ActivationStats> ActivationStats::fromCounts(const std::vector<std::vector<double>>& counts, double tokens)
{
    double largest = 0;
    for (std::size_t l = 0; l < counts.size(); ++l) {
        for (double c : counts[l]) {
            if (!(c >= 0.0) || !std::isfinite(c)) {
                return Status(ErrorCode::InvalidArgument,
                              "activation count of layer " + std::to_string(l) + " is negative or not a number");
            }
            largest = std::max(largest, c);
        }
    }
    if (!(tokens >= 0.0) || !std::isfinite(tokens)) {
        return Status(ErrorCode::InvalidArgument, "the calibration token count must be a non-negative number");
    }
    const double denominator = tokens > 0 ? tokens : largest;
    std::vector<std::vector<float>> frequencies(counts.size());
    for (std::size_t l = 0; l < counts.size(); ++l) {
        frequencies[l].resize(counts[l].size());
        for (std::size_t i = 0; i < counts[l].size(); ++i) {
            // A count above the token total is a miscount; clamp rather than refuse the file.
            frequencies[l][i] = denominator > 0 ? static_cast<float>(std::min(1.0, counts[l][i] / denominator)) : 0.0f;
        }
    }
    return fromFrequencies(std::move(frequencies));
}

Result<std::vector<std::string>> ActivationStats::orderActivationFiles(const std::vector<std::string>& names)
{
    constexpr std::string_view prefix = "activation_";
    constexpr std::string_view suffix = ".pt";
    std::map<long long, std::string> byLayer;
    for (const std::string& name : names) {
        std::string_view base = name;
        if (const auto slash = base.find_last_of("/\\"); slash != std::string_view::npos) {
            base.remove_prefix(slash + 1);
        }
        if (!base.starts_with(prefix) || !base.ends_with(suffix) || base.size() <= prefix.size() + suffix.size()) {
            continue;
        }
        const std::string_view digits = base.substr(prefix.size(), base.size() - prefix.size() - suffix.size());
        long long layer = -1;
        const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), layer);
        if (ec != std::errc() || ptr != digits.data() + digits.size() || layer < 0) {
            continue; // activation_x.pt, activation_-1.pt: not a layer file
        }
        if (!byLayer.emplace(layer, name).second) {
            return Status(ErrorCode::InvalidArgument, "two activation files for layer " + std::to_string(layer));
        }
    }
    if (byLayer.empty()) {
        return Status(ErrorCode::InvalidArgument, "no activation_<layer>.pt files");
    }
    std::vector<std::string> ordered;
    for (const auto& [layer, name] : byLayer) {
        if (layer != static_cast<long long>(ordered.size())) {
            return Status(ErrorCode::InvalidArgument,
                          "the activation file of layer " + std::to_string(ordered.size()) + " is missing");
        }
        ordered.push_back(name);
    }
    return ordered;
}

std::uint64_t ActivationStats::fingerprint() const
{
    // FNV-1a-like, a word at a time (millions of values: bytewise would be slow), with a final
    // avalanche so nearby inputs differ in every bit.
    std::uint64_t h = 14695981039346656037ull;
    auto mix = [&h](std::uint64_t v) {
        h ^= v;
        h *= 1099511628211ull;
        h ^= h >> 29;
    };
    mix(m_layers.size());
    for (const auto& layer : m_layers) {
        mix(layer.size());
        for (float f : layer) {
            std::uint32_t bits = 0;
            std::memcpy(&bits, &f, sizeof bits);
            mix(bits);
        }
    }
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
}

} // namespace hearth::sparse
