// SPDX-License-Identifier: MIT
// OPT (the family of PowerInfer's sparse OPT files): LayerNorm with biases, biases on every
// projection, learned position embeddings instead of RoPE, a ReLU up/down FFN. Its loader and
// forward pass are opt_model.cpp and opt_forward.cpp.
#include "model/families/families.h"
#include "model/opt_model.h"

namespace hearth::model::families {

const Architecture opt = {"opt", "OPT", BlockKind::Opt, loadOptModel, {}};

} // namespace hearth::model::families
