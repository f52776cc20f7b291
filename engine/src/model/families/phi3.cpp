// SPDX-License-Identifier: MIT
// Phi-3, Phi-3.5 and Phi-4 (llama.cpp's "phi3"): the llama block with NeoX RoPE, one fused QKV
// product (blk.N.attn_qkv.weight, rows Q | K | V; split into views when loading) and one fused
// gate/up product (blk.N.ffn_up.weight: the gate rows, then the up rows). The 128k-context
// models use LongRoPE: rope_factors_short.weight divides the angles of sessions up to
// rope.scaling.original_context_length, rope_factors_long.weight those of longer ones, and
// rope.scaling.attn_factor scales q and k. Phi-4-mini rotates 96 of its 128 head dimensions and
// ties its output to the embedding. Most Phi-3 models attend through a sliding window.
#include "gguf/gguf_file.h"
#include "model/families/families.h"
#include "model/hyper_params.h"
#include "model/llama_model.h"

namespace hearth::model::families {

namespace {

// Files converted before the key existed: llama.cpp's windows for them, by layer count and
// trained context.
void phi3Defaults(HyperParams& hp, const gguf::GgufFile& file)
{
    if (file.find("phi3.attention.sliding_window"))
        return;
    if ((hp.nLayer == 32 || hp.nLayer == 40) && hp.nCtxTrain == 4096)
        hp.slidingWindow = 2047; // Phi-3 mini and medium, 4k
    else if (hp.nLayer == 32 && hp.nHeadKv == 32 && hp.nCtxTrain == 131072)
        hp.slidingWindow = 262144; // Phi-3 mini 128k: wider than the context, so none in effect
    else if (hp.nLayer == 40 && hp.nCtxTrain == 131072)
        hp.slidingWindow = 131072; // Phi-3 medium 128k
}

} // namespace

const Architecture phi3 = {"phi3", "Phi-3", BlockKind::Llama, loadLlamaModel,
                           {.rope = RopeStyle::Neox, .fusedGateUp = true}, phi3Defaults};

} // namespace hearth::model::families
