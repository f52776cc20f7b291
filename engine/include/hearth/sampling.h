// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// Choosing the next token from logits.

#include <hearth/tokenizer.h>

#include <cstdint>
#include <deque>
#include <random>
#include <span>
#include <vector>

namespace hearth {

struct SamplingParams {
    float temperature = 0.8f;      ///< <= 0: greedy (argmax)
    int topK = 40;                 ///< <= 0: off
    float topP = 0.95f;            ///< >= 1: off
    float minP = 0.05f;            ///< <= 0: off; relative to the most likely token
    float repeatPenalty = 1.1f;    ///< 1: off
    int repeatLastN = 64;          ///< how many recent tokens the penalties look at
    float presencePenalty = 0.0f;  ///< 0: off
    float frequencyPenalty = 0.0f; ///< 0: off
    std::uint64_t seed = 0xC0FFEE; ///< same seed, logits and params: same tokens

    static SamplingParams greedy()
    {
        SamplingParams p;
        p.temperature = 0;
        p.repeatPenalty = 1;
        return p;
    }
};

/// Order of the pipeline: penalties, top-k, temperature, softmax, top-p, min-p, draw.
class Sampler {
public:
    explicit Sampler(const SamplingParams& params = {});

    /// The next token for @p logits (one per vocabulary entry; NaN counts as -inf). InvalidToken if empty.
    [[nodiscard]] Token sample(std::span<const float> logits);
    /// Records a token of the context so penalties see it (prompt and generated tokens).
    void accept(Token token);
    /// Forgets the history and restarts the random stream from params().seed.
    void reset();
    [[nodiscard]] const SamplingParams& params() const { return m_params; }

private:
    SamplingParams m_params;
    std::mt19937_64 m_rng;
    std::deque<Token> m_recent;
    std::vector<std::pair<float, Token>> m_candidates; // scratch, reused per call
    std::vector<std::pair<float, Token>> m_scratch;    // top-p selection without a full sort
};

} // namespace hearth
