// SPDX-License-Identifier: MIT
// Gemma 2: the llama block with token embeddings scaled by sqrt(n_embd), an RMSNorm of each
// block's output before the residual add (post_attention_norm, post_ffw_norm), a GeGLU FFN (GELU in
// the tanh approximation), NeoX RoPE, soft-capped attention scores and output logits
// (cap * tanh(x / cap): gemma2.attn_logit_softcapping, default 50, and
// gemma2.final_logit_softcapping, default 30), and a sliding window of 4096 keys on every other
// layer (the even ones). Its norm weights are stored with Gemma's +1 already added, and its
// output is tied to the embedding.
#include "gguf/gguf_file.h"
#include "model/families/families.h"
#include "model/hyper_params.h"
#include "model/llama_model.h"

#include <cmath>

namespace hearth::model::families {

namespace {

// What llama.cpp assumes for the keys a file leaves out.
void gemma2Defaults(HyperParams& hp, const gguf::GgufFile& file)
{
    if (!file.find("gemma2.attention.sliding_window"))
        hp.slidingWindow = 4096;
    hp.slidingWindowPeriod = 2;
    if (!file.find("gemma2.attn_logit_softcapping"))
        hp.attnSoftCap = 50.0f;
    if (!file.find("gemma2.final_logit_softcapping"))
        hp.finalSoftCap = 30.0f;
    // Queries are scaled by 1 / sqrt(query_pre_attn_scalar), which the files do not carry: the
    // head size for 2B and 9B, n_embd / n_head for 27B (46 layers).
    if (hp.nLayer == 46)
        hp.attentionScale = 1.0f / std::sqrt(float(hp.nEmbd) / float(hp.nHead));
}

} // namespace

const Architecture gemma2 = {"gemma2", "Gemma 2", BlockKind::Llama, loadLlamaModel,
                             {.rope = RopeStyle::Neox,
                              .activation = FfnActivation::GeGlu,
                              .postNorms = true,
                              .scaleEmbedding = true},
                             gemma2Defaults};

} // namespace hearth::model::families
