// SPDX-License-Identifier: MIT
#pragma once

// The parts of a Hugging Face config.json that decide how a checkpoint becomes a GGUF file:
// the llama family (LlamaForCausalLM, MistralForCausalLM, Bamboo, Qwen2ForCausalLM,
// Qwen3ForCausalLM, Phi3ForCausalLM, Gemma2ForCausalLM, Gemma3ForCausalLM and the text model of
// Gemma3ForConditionalGeneration), its mixtures of experts (MixtralForCausalLM,
// Qwen2MoeForCausalLM, Qwen3MoeForCausalLM), Falcon (FalconForCausalLM
// and the older RWForCausalLM, multi-query or new_decoder_architecture) and OPT
// (OPTForCausalLM, pre-LayerNorm). Sizes are checked against generous limits before anything is allocated, so a
// hostile config cannot make the converter reserve terabytes.

#include "convert/json_value.h"
#include "model/rope_scaling.h"

#include <hearth/status.h>

#include <cstdint>
#include <string>
#include <vector>

namespace hearth::convert {

struct HfConfig {
    std::string hfArchitecture; // architectures[0], e.g. "LlamaForCausalLM"
    std::string modelType;      // model_type, e.g. "llama"
    std::string ggufArchitecture; // "llama" (Mixtral too), "bamboo", "qwen2", "qwen3", "qwen2moe",
                                  // "qwen3moe", "phi3", "gemma2", "gemma3", "falcon" or "opt"
    std::string ffnActivation;  // hearth.ffn_activation: "swiglu", "reglu", "drelu" or "geglu"; falcon
                                // "gelu" or "relu"; opt "relu"
    std::string name;           // _name_or_path, when present
    int hiddenSize = 0;
    int intermediateSize = 0;
    int layerCount = 0;
    int headCount = 0;
    int kvHeadCount = 0;
    int vocabSize = 0;
    int contextLength = 0;
    float rmsNormEps = 1e-6f;      // llama family
    float layerNormEps = 1e-5f;    // falcon, opt
    bool falconNewDecoder = false; // falcon: two LayerNorms per layer (ln_attn, ln_mlp)
    float ropeTheta = 10000.0f;
    float ropeLinearFactor = 0.0f; // 0: no scaling
    // "rope_type": "llama3" (Llama 3.1 to 3.3); factor 0: none. Written as rope_freqs.weight.
    model::Llama3RopeScaling llama3Rope{0.0f};
    bool tieWordEmbeddings = false;
    int explicitHeadDim = 0; // "head_dim" (Qwen 3); 0: hidden_size / num_attention_heads
    // Phi-3: the rotated share of each head, the sliding window, and LongRoPE's factors (rot / 2
    // each) for sessions up to and past original_max_position_embeddings.
    float partialRotaryFactor = 1.0f;
    int slidingWindow = 0;
    int originalContextLength = 0;
    std::vector<float> longRopeShort;
    std::vector<float> longRopeLong;
    // Gemma: soft-capped attention scores and logits (0: none), the RoPE base of the
    // sliding-window layers (Gemma 3; 0: not given), and the offset of its RMSNorm weights, which
    // scale by 1 + w where GGUF files store the factor itself.
    float attnSoftCap = 0.0f;
    float finalSoftCap = 0.0f;
    float ropeLocalTheta = 0.0f;
    float normOffset = 0.0f;
    // The text model of a multimodal checkpoint (Gemma3ForConditionalGeneration: settings in
    // text_config, its vision tower left out); hf_to_gguf knows where such checkpoints keep it.
    bool multimodal = false;
    // Mixtures of experts: routed experts per layer and per token, their width, and the shared
    // expert's width (Qwen 2 MoE; 0: none). No experts: a dense FFN of intermediateSize.
    int expertCount = 0;
    int expertsUsed = 0;
    int expertWidth = 0;
    int sharedExpertWidth = 0;

    [[nodiscard]] int headDim() const { return explicitHeadDim > 0 ? explicitHeadDim : hiddenSize / headCount; }
    [[nodiscard]] int qDim() const { return headDim() * headCount; }
    [[nodiscard]] int rotaryDims() const { return int(float(headDim()) * partialRotaryFactor) / 2 * 2; }
    // LongRoPE's scale of q and k: sqrt(1 + ln(scale) / ln(original context)) (llama.cpp's).
    [[nodiscard]] float longRopeAttnFactor() const;
    [[nodiscard]] int kvDim() const { return headDim() * kvHeadCount; }
    // falcon and opt: LayerNorm with biases, an up/down FFN without a gate.
    [[nodiscard]] bool upDownFfn() const { return ggufArchitecture == "falcon" || ggufArchitecture == "opt"; }

    // Parses config.json text; Unsupported for architectures or activations Hearth cannot run.
    [[nodiscard]] static Result<HfConfig> parse(std::string_view json);
    // Reads <folder>/config.json.
    [[nodiscard]] static Result<HfConfig> load(const std::string& folder);
};

// config.json's model_type values parse() accepts (architectures[0] may name them instead).
[[nodiscard]] const std::vector<std::string>& convertibleModelTypes();

// Reads a small text file (config, tokenizer files) whole, refusing ones above @p limit bytes.
[[nodiscard]] Result<std::string> readTextFile(const std::string& path, std::uint64_t limit);

} // namespace hearth::convert
