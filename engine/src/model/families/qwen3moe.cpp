// SPDX-License-Identifier: MIT
// Qwen 3 MoE (Qwen3-30B-A3B, Qwen3-235B-A22B, Qwen3-Coder-30B-A3B): Qwen 3's attention (q/k
// head norms, NeoX RoPE, heads of their own size) over a mixture of experts in every layer. A
// router (ffn_gate_inp) picks expert_used_count of expert_count SwiGLU experts per token, whose
// probabilities are renormalised over the chosen ones. The experts are stacked in
// ffn_{gate,up,down}_exps, expert_feed_forward_length neurons each.
#include "gguf/gguf_file.h"
#include "model/families/families.h"
#include "model/hyper_params.h"
#include "model/llama_model.h"

namespace hearth::model::families {

void qwenMoeDefaults(HyperParams& hp, const gguf::GgufFile& file)
{
    // llama.cpp's rule for files without the key: the dense width shared out among the chosen.
    if (hp.nExpertUsed > 0 && !file.find(hp.architecture + ".expert_feed_forward_length"))
        hp.nFfExpert = hp.nFf / hp.nExpertUsed;
}

const Architecture qwen3moe = {"qwen3moe", "Qwen 3 MoE", BlockKind::Llama, loadLlamaModel,
                               {.rope = RopeStyle::Neox, .qkNorm = true}, qwenMoeDefaults};

} // namespace hearth::model::families
