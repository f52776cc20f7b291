// SPDX-License-Identifier: MIT
#pragma once

// Llama 3.1's RoPE frequency scaling ("rope_type": "llama3" in config.json): low frequencies are
// slowed by `factor`, high ones kept, the band between blended. GGUF files carry the result as
// the tensor rope_freqs.weight (one divisor per rotated pair), which the forward passes apply.

#include <vector>

namespace hearth::model {

struct Llama3RopeScaling {
    float factor = 8.0f;
    float lowFreqFactor = 1.0f;
    float highFreqFactor = 4.0f;
    int originalContextLength = 8192;
};

// The nRot / 2 divisors of the rotation angles for @p scaling at base @p freqBase.
[[nodiscard]] std::vector<float> llama3RopeFactors(int nRot, float freqBase, const Llama3RopeScaling& scaling);

} // namespace hearth::model
