// SPDX-License-Identifier: MIT
// Qwen 2 MoE (Qwen1.5-MoE-A2.7B, Qwen2-57B-A14B): Qwen 2's attention (Q/K/V biases, NeoX RoPE)
// over a mixture of experts whose chosen probabilities are used as the router gives them (not
// renormalised), plus a shared expert that every token goes through, scaled by
// sigmoid(ffn_gate_inp_shexp . x).
#include "model/families/families.h"
#include "model/llama_model.h"

namespace hearth::model::families {

const Architecture qwen2moe = {"qwen2moe", "Qwen 2 MoE", BlockKind::Llama, loadLlamaModel,
                               {.rope = RopeStyle::Neox, .qkvBias = true, .normalizeExpertWeights = false},
                               qwenMoeDefaults};

} // namespace hearth::model::families
