// SPDX-License-Identifier: MIT
// Gemma 3 (text): Gemma 2's block (embeddings scaled by sqrt(n_embd), post-attention and
// post-FFN RMSNorms, GeGLU, NeoX RoPE) with an RMSNorm of each q and k head as in Qwen 3 and no
// soft-capping. Five local layers to one global: layer l sees a sliding window
// (gemma3.attention.sliding_window: 512 keys for 1B, 1024 for the larger ones) unless
// (l + 1) % 6 == 0. Local layers rotate with base 10000 and no scaling, global ones with the
// file's rope.freq_base (1M) and its linear scaling (8x for 4B and up), which is what lets a
// 128k context keep only a few layers' keys in full.
#include "gguf/gguf_file.h"
#include "model/families/families.h"
#include "model/hyper_params.h"
#include "model/llama_model.h"

#include <cmath>

namespace hearth::model::families {

namespace {

// What llama.cpp assumes, as Google's reference implementation has it.
void gemma3Defaults(HyperParams& hp, const gguf::GgufFile& file)
{
    if (!file.find("gemma3.attention.sliding_window"))
        hp.slidingWindow = 1024; // llama.cpp requires the key; this is 4B's window and up
    hp.slidingWindowPeriod = 6;
    if (!file.find("gemma3.rope.freq_base_swa")) {
        hp.ropeFreqBaseSwa = 10000.0f;
        hp.ropeFreqScaleSwa = 1.0f;
    }
    // query_pre_attn_scalar, which the files do not carry: the head size, except for 27B
    // (62 layers), whose queries are scaled by n_embd / n_head.
    if (hp.nLayer == 62)
        hp.attentionScale = 1.0f / std::sqrt(float(hp.nEmbd / hp.nHead));
}

} // namespace

const Architecture gemma3 = {"gemma3", "Gemma 3", BlockKind::Llama, loadLlamaModel,
                             {.rope = RopeStyle::Neox,
                              .qkNorm = true,
                              .activation = FfnActivation::GeGlu,
                              .postNorms = true,
                              .scaleEmbedding = true},
                             gemma3Defaults};

} // namespace hearth::model::families
