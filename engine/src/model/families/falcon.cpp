// SPDX-License-Identifier: MIT
// Falcon (llama.cpp's "falcon" layout): parallel attention and FFN, one fused QKV product,
// LayerNorm, NeoX RoPE, an up/down FFN with GELU. Its loader and forward pass are
// falcon_model.cpp and falcon_forward.cpp.
#include "model/families/families.h"
#include "model/falcon_model.h"

namespace hearth::model::families {

const Architecture falcon = {"falcon", "Falcon", BlockKind::Falcon, loadFalconModel, {}};

} // namespace hearth::model::families
