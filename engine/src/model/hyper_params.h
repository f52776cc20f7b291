// SPDX-License-Identifier: MIT
#pragma once

// Hyper-parameters of a llama-family model, read from GGUF metadata and checked for sanity.

#include "core/sliding_window.h"
#include "model/architecture.h"
#include "model/expert_gating.h"
#include "model/ffn_activation.h"

#include <hearth/status.h>

#include <string>

namespace hearth::gguf {
class GgufFile;
}

namespace hearth::model {

struct HyperParams {
    std::string architecture; // general.architecture: a registered llama-block family
    LlamaBlockFlavour flavour; // that family's variations of the block
    int nEmbd = 0;
    int nLayer = 0;
    int nFf = 0;
    int nHead = 0;
    int nHeadKv = 0;
    int headDim = 0; // <arch>.attention.key_length, by default nEmbd / nHead
    int nRot = 0;    // rotated dimensions per head (<= headDim)
    int nVocab = 0;
    int nCtxTrain = 0;
    float normEps = 1e-5f;
    float ropeFreqBase = 10000.0f;
    float ropeFreqScale = 1.0f; // 1 / linear scaling factor
    // The RoPE of the sliding-window layers where it is their own (Gemma 3: base 10000 and no
    // scaling on its local layers, 1M and 8x linear on its global ones); 0: the values above.
    float ropeFreqBaseSwa = 0.0f;
    float ropeFreqScaleSwa = 0.0f;
    // LongRoPE (Phi-3): the magnitude correction of q and k (rope.scaling.attn_factor), and
    // the context the short factors serve (rope.scaling.original_context_length); sessions
    // longer than it take the long factors.
    float ropeAttnFactor = 1.0f;
    int ropeOriginalContext = 0;
    // YaRN (rope.scaling.type "yarn": gpt-oss, long-context Qwen files): ropeFreqScale
    // interpolates only the slow dimensions, those that turn fewer than yarnBetaSlow times over
    // ropeOriginalContext tokens, and the fast ones above yarnBetaFast keep their angles
    // (cpu::YarnRamp, llama.cpp's defaults).
    bool ropeYarn = false;
    float yarnBetaFast = 32.0f;
    float yarnBetaSlow = 1.0f;
    int slidingWindow = 0; // <arch>.attention.sliding_window: keys a query sees; 0: all
    // With a sliding window: 0, every layer uses it (Phi-3); p, every layer but each p-th
    // (layer l slides unless (l + 1) % p == 0; Gemma 2 alternates with p = 2, Gemma 3 has five
    // local layers to one global with p = 6).
    int slidingWindowPeriod = 0;
    bool slidingWindowGlobalFirst = false; // the period's full layer comes first (layerWindow)
    // Layers that skip RoPE: each noRopePeriod-th from layer 0 (SmallThinker's full-attention
    // layers); 0: every layer rotates.
    int noRopePeriod = 0;
    float attentionScale = 0.0f; // of q . k; 0: 1 / sqrt(headDim)
    // Soft-capping (Gemma 2): x -> cap * tanh(x / cap) of the attention scores and of the
    // output logits; 0: none.
    float attnSoftCap = 0.0f;
    float finalSoftCap = 0.0f;
    FfnActivation ffnActivation = FfnActivation::SwiGlu;
    // Mixture of experts (<arch>.expert_count and friends); 0 experts: a dense FFN. Each layer
    // with a router (ffn_gate_inp) sends a token to nExpertUsed of its nExpert experts, FFNs of
    // nFfExpert neurons; the shared expert (Qwen 2 MoE) has nFfSharedExpert and sees every token.
    int nExpert = 0;
    int nExpertUsed = 0;
    int nFfExpert = 0;
    int nFfSharedExpert = 0;
    ExpertGating expertGating = ExpertGating::Softmax; // <arch>.expert_gating_func

    [[nodiscard]] bool mixtureOfExperts() const { return nExpert > 0; }
    [[nodiscard]] int qDim() const { return nHead * headDim; }
    // The sliding window of layer @p l, or 0 when it sees every key.
    [[nodiscard]] int windowOf(int l) const
    {
        return layerWindow(slidingWindow, slidingWindowPeriod, l, slidingWindowGlobalFirst);
    }
    // Whether layer @p l rotates q and k.
    [[nodiscard]] bool rotates(int l) const { return noRopePeriod <= 0 || l % noRopePeriod != 0; }
    [[nodiscard]] int kvDim() const { return nHeadKv * headDim; }

    struct Rope {
        float freqBase;
        float freqScale;
        [[nodiscard]] bool operator==(const Rope&) const = default;
    };
    // The RoPE base and scale of layer @p l.
    [[nodiscard]] Rope ropeOf(int l) const
    {
        if (windowOf(l) > 0 && ropeFreqBaseSwa > 0)
            return {ropeFreqBaseSwa, ropeFreqScaleSwa > 0 ? ropeFreqScaleSwa : 1.0f};
        return {ropeFreqBase, ropeFreqScale};
    }
    // True when some layers rotate with other frequencies than the rest.
    [[nodiscard]] bool hasLocalRope() const { return slidingWindow > 0 && ropeFreqBaseSwa > 0; }

    // Reads and validates the hyper-parameters of @p file. The vocabulary size comes from the
    // tokenizer's token list (tokenizer.ggml.tokens); tensor shapes are checked by the loader.
    static Result<HyperParams> fromGguf(const gguf::GgufFile& file);
};

} // namespace hearth::model
