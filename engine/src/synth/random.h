// SPDX-License-Identifier: MIT
#pragma once

// Reproducible pseudo-random numbers for synthetic weights. std::normal_distribution and
// friends are implementation-defined, so a file generated with libstdc++ would differ from one
// generated with libc++ or MSVC; these generators are pure integer arithmetic and give the same
// bits everywhere.

#include <cstdint>

namespace hearth::synth {

// splitmix64: tiny state, good enough statistics for weights, and a fine seed mixer.
class SplitMix64 {
public:
    explicit SplitMix64(std::uint64_t seed)
        : m_state(seed)
    {
    }

    [[nodiscard]] std::uint64_t next()
    {
        std::uint64_t z = (m_state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }

    // Approximately standard normal (mean 0, std 1): the sum of four 16-bit uniforms
    // (Irwin-Hall), rescaled. Tails stop at about 3.5 sigma, which suits weights well: no
    // outliers that would make quantized and float models disagree for reasons unrelated to
    // the kernels under test.
    [[nodiscard]] float nextNormal()
    {
        const std::uint64_t r = next();
        const std::uint32_t sum = static_cast<std::uint32_t>(r & 0xFFFF) + static_cast<std::uint32_t>((r >> 16) & 0xFFFF)
            + static_cast<std::uint32_t>((r >> 32) & 0xFFFF) + static_cast<std::uint32_t>(r >> 48);
        // sum / 65536 has mean 2 and variance 4/12; scale to unit variance.
        constexpr float kScale = 1.7320508f / 65536.0f; // sqrt(3) / 2^16
        return (static_cast<float>(sum) - 2.0f * 65535.0f) * kScale;
    }

private:
    std::uint64_t m_state;
};

// Combines values into one seed, so that every (file seed, tensor, row) has its own stream and
// rows can be generated in any order (or in parallel) with identical results.
[[nodiscard]] inline std::uint64_t mixSeed(std::uint64_t a, std::uint64_t b)
{
    SplitMix64 g(a ^ (b * 0xD1B54A32D192ED03ull));
    return g.next();
}

} // namespace hearth::synth
