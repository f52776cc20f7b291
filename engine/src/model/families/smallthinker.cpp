// SPDX-License-Identifier: MIT
// SmallThinker (SmallThinker-4B-A0.6B, SmallThinker-21B-A3B, from PowerInfer's team): a mixture
// of ReGLU experts in every layer whose router reads the layer's input before the attention
// block, so that a token's experts are known, and can be fetched, while attention runs. The
// chosen weights are renormalised after the file's gating (expert_gating_func: softmax or
// sigmoid). Files with a sliding window attend through a window of 4096 keys on three layers of
// four; the fourth (layers 0, 4, 8, ...) sees every key and uses no RoPE. llama.cpp fixes that
// window whatever the file says, and so does Hearth, so that both read a file alike.
#include "gguf/gguf_file.h"
#include "model/families/families.h"
#include "model/hyper_params.h"
#include "model/llama_model.h"

namespace hearth::model::families {

namespace {

void smallThinkerDefaults(HyperParams& hp, const gguf::GgufFile&)
{
    if (hp.slidingWindow <= 0)
        return;
    hp.slidingWindow = 4096;
    hp.slidingWindowPeriod = 4;
    hp.slidingWindowGlobalFirst = true;
    hp.noRopePeriod = 4;
}

} // namespace

const Architecture smallthinker = {"smallthinker", "SmallThinker", BlockKind::Llama, loadLlamaModel,
                                   {.rope = RopeStyle::Neox, .activation = FfnActivation::ReGlu,
                                    .routerBeforeAttention = true},
                                   smallThinkerDefaults};

} // namespace hearth::model::families
