// SPDX-License-Identifier: MIT
#pragma once

// The one place that knows every architecture Hearth runs, the way llama.cpp's llama-arch
// does: its GGUF name (general.architecture), the name users read, how its files load and,
// for the families built on the llama block, the flavour of that block.
//
//     const model::Architecture* arch = model::findArchitecture("qwen3");
//     if (arch && arch->block == model::BlockKind::Llama && arch->llama.qkNorm) ...
//
// Adding a family is one file under families/ (its Architecture, and a comment saying what is
// special about it) plus one entry in architecture.cpp's registry. A family with a block of its
// own (falcon, opt) also brings its loader and forward pass.

#include "model/ffn_activation.h"

#include <hearth/model.h>
#include <hearth/status.h>

#include <memory>
#include <span>
#include <string>
#include <string_view>

namespace hearth::gguf {
class GgufFile;
}

namespace hearth::model {

// Which decoder block, and so which weights and forward pass, a family uses.
enum class BlockKind {
    Llama,  // RMSNorm, Q/K/V/O, gated FFN (llama.cpp's llama, qwen2, qwen3, ...)
    Falcon, // parallel attention and FFN, fused QKV, LayerNorm
    Opt,    // LayerNorm with biases, learned positions
};

// How q and k are rotated: llama's adjacent pairs (its converters permute Q and K for it) or
// GPT-NeoX's halves (x[i], x[i + nRot/2]), which the files of most other families expect.
enum class RopeStyle { Normal, Neox };

// What the families on the llama block change in it.
struct LlamaBlockFlavour {
    RopeStyle rope = RopeStyle::Normal;
    bool qkvBias = false; // blk.N.attn_{q,k,v}.bias are required
    bool outputBias = false; // blk.N.attn_output.bias is required (gpt-oss)
    bool attentionSinks = false; // blk.N.attn_sinks.weight: a sink score per head (gpt-oss)
    // The FFN's input norm: ffn_norm, or post_attention_norm where a family names it so (gpt-oss).
    std::string_view ffnNorm = "ffn_norm";
    bool qkNorm = false;  // blk.N.attn_{q,k}_norm.weight: RMSNorm of each head's q and k before RoPE
    // The gated FFN's activation when the file has no hearth.ffn_activation key (a PowerInfer
    // PWRI file of a SwiGLU family is a ReLU-gated model and gets ReGLU instead).
    FfnActivation activation = FfnActivation::SwiGlu;
    bool fusedGateUp = false; // blk.N.ffn_up.weight holds the gate rows, then the up rows (Phi-3)
    bool postNorms = false;   // blk.N.post_attention_norm / post_ffw_norm: RMSNorm of each block's output (Gemma)
    bool scaleEmbedding = false; // token embeddings times sqrt(n_embd) (Gemma)
    // Mixtures of experts: the chosen experts' router probabilities are divided by their sum
    // (Mixtral, Qwen 3 MoE) or used as they are (Qwen 2 MoE).
    bool normalizeExpertWeights = true;
    // blk.N.ffn_gate_inp.bias and ffn_{gate,up,down}_exps.bias are required: biases of the
    // router and of every expert's products (gpt-oss).
    bool expertBiases = false;
    // The router reads the layer's input before the attention block (SmallThinker, whose
    // experts can then be fetched while attention runs) instead of the FFN's normalized input.
    bool routerBeforeAttention = false;
};

struct HyperParams;

// Fills in what a family's older files leave out, after the generic keys are read.
using HyperParamsDefaults = void (*)(HyperParams& hp, const gguf::GgufFile& file);

// Loads a file of the architecture whose header has been parsed.
using ArchitectureLoader = Result<std::shared_ptr<const Model>> (*)(std::unique_ptr<gguf::GgufFile> file,
                                                                    const std::string& path,
                                                                    const LoadParams& params);

struct Architecture {
    std::string_view name;        // general.architecture, and the prefix of its hyper-parameter keys
    std::string_view displayName; // for people: "Qwen 3"
    BlockKind block = BlockKind::Llama;
    ArchitectureLoader load = nullptr;
    LlamaBlockFlavour llama; // BlockKind::Llama only
    HyperParamsDefaults defaults = nullptr; // BlockKind::Llama only; null: none

    // True when the FFN has a gate projection beside up and down.
    [[nodiscard]] bool gatedFfn() const { return block == BlockKind::Llama; }
};

// The registered architecture called @p name, or null.
[[nodiscard]] const Architecture* findArchitecture(std::string_view name);

// Every registered architecture, in registry order.
[[nodiscard]] std::span<const Architecture* const> architectures();

} // namespace hearth::model
