// SPDX-License-Identifier: MIT
// Llama 1 to 3.3, and the checkpoints converted as "llama": Mistral 7B and Ministral, TinyLlama,
// ReluLLaMA and ProSparse (ReLU-gated, usually PowerInfer PWRI files), and Mixtral: a llama
// file with llama.expert_count has a router and stacked experts of feed_forward_length neurons
// in every layer, the chosen ones' probabilities renormalised. Llama 3.1's long-context
// frequency scaling is the optional rope_freqs.weight tensor (rope_scaling.h).
#include "model/families/families.h"
#include "model/llama_model.h"

namespace hearth::model::families {

const Architecture llama = {"llama", "Llama", BlockKind::Llama, loadLlamaModel, {}};

} // namespace hearth::model::families
