// SPDX-License-Identifier: MIT
// Bamboo (PowerInfer's sparse Mistral): the llama block with a dReLU FFN, ReLU on both the
// gate and the up projection.
#include "model/families/families.h"
#include "model/llama_model.h"

namespace hearth::model::families {

const Architecture bamboo = {"bamboo", "Bamboo", BlockKind::Llama, loadLlamaModel,
                             {.activation = FfnActivation::DRelu}};

} // namespace hearth::model::families
