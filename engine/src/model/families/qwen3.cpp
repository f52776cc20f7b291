// SPDX-License-Identifier: MIT
// Qwen 3 (dense): the llama block without biases but with an RMSNorm over each head's q and k
// (attn_q_norm, attn_k_norm, one weight of the head size each) before NeoX RoPE. Its head size
// is its own key (qwen3.attention.key_length): Qwen3-0.6B has 16 heads of 128 in a 1024-wide
// model.
#include "model/families/families.h"
#include "model/llama_model.h"

namespace hearth::model::families {

const Architecture qwen3 = {"qwen3", "Qwen 3", BlockKind::Llama, loadLlamaModel,
                            {.rope = RopeStyle::Neox, .qkNorm = true}};

} // namespace hearth::model::families
