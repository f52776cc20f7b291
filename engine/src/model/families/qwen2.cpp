// SPDX-License-Identifier: MIT
// Qwen 2 and Qwen 2.5: the llama block with biases on the Q, K and V projections and NeoX RoPE
// (their files are not permuted for llama's pairs). Small ones tie the output to the embedding.
#include "model/families/families.h"
#include "model/llama_model.h"

namespace hearth::model::families {

const Architecture qwen2 = {"qwen2", "Qwen 2", BlockKind::Llama, loadLlamaModel,
                            {.rope = RopeStyle::Neox, .qkvBias = true}};

} // namespace hearth::model::families
