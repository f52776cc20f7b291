// SPDX-License-Identifier: MIT
#pragma once

// Hyper-parameters of the llama-block shapes the synthetic model generator knows.

#include "model/rope_scaling.h"

#include <hearth/status.h>

#include <string>
#include <string_view>
#include <vector>

namespace hearth::synth {

struct ModelShape {
    std::string name;          // "tiny", "tinyllama-1.1b", "llama2-7b"
    int embeddingSize = 0;     // n_embd
    int feedForwardSize = 0;   // n_ff
    int layerCount = 0;
    int headCount = 0;
    int kvHeadCount = 0;
    int vocabSize = 0;
    int contextLength = 0;
    float rmsNormEpsilon = 1e-5f;
    float ropeFreqBase = 10000.0f;
    // Llama 3.1's frequency scaling, written as rope_freqs.weight; factor 0: none.
    model::Llama3RopeScaling llama3Rope{0.0f};
    // Head size when it is not embeddingSize / headCount (Qwen 3); 0: that quotient.
    int keyLength = 0;
    int slidingWindow = 0;      // <arch>.attention.sliding_window; 0: none written
    // LongRoPE (Phi-3): rope_factors_short/long.weight and the context the short ones serve; 0: none.
    int longRopeOriginalContext = 0;
    bool tiedOutput = false;    // no output.weight: the embedding serves (Gemma, Phi-4-mini)
    float attnSoftCap = 0.0f;   // <arch>.attn_logit_softcapping; 0: none written
    float finalSoftCap = 0.0f;  // <arch>.final_logit_softcapping
    float ropeLinearFactor = 0.0f; // rope.scaling.type linear with this factor; 0: none written
    // rope.scaling.type yarn with this factor over yarnOriginalContext tokens (gpt-oss); 0: none.
    float ropeYarnFactor = 0.0f;
    int yarnOriginalContext = 0;
    // A mixture of experts in every layer (Mixtral, Qwen MoE); 0 experts: a dense FFN.
    int expertCount = 0;
    int expertUsedCount = 0;
    int expertFeedForwardSize = 0;       // <arch>.expert_feed_forward_length; 0: feedForwardSize (Mixtral)
    int sharedExpertFeedForwardSize = 0; // the shared expert's width (Qwen 2 MoE); 0: none
    int expertGating = 0;                // <arch>.expert_gating_func (1 softmax, 2 sigmoid); 0: none written

    [[nodiscard]] int expertWidth() const { return expertFeedForwardSize > 0 ? expertFeedForwardSize : feedForwardSize; }

    [[nodiscard]] int headDim() const
    {
        return keyLength > 0 ? keyLength : headCount > 0 ? embeddingSize / headCount : 0;
    }
    [[nodiscard]] int qEmbeddingSize() const { return headDim() * headCount; }
    [[nodiscard]] int kvEmbeddingSize() const { return headDim() * kvHeadCount; }
    // Ok when the shape is consistent, otherwise the reason it is not.
    [[nodiscard]] Status validate() const;
};

// A known shape by name; InvalidArgument listing the known names otherwise.
[[nodiscard]] Result<ModelShape> shapeByName(std::string_view name);
[[nodiscard]] std::vector<std::string> knownShapeNames();

} // namespace hearth::synth
