// SPDX-License-Identifier: MIT
// gpt-oss (gpt-oss-20b, gpt-oss-120b): a mixture of experts in every layer, 4 of 32 (20b) or
// 128 (120b) experts a token, whose router and expert products carry biases, chosen by the
// router's top logits and weighted by a softmax over those alone. The experts' activation is a
// clamped SwiGLU (FfnActivation::SwiGluOai) and their weights are MXFP4 in OpenAI's own files.
// Attention has biased q, k, v and output projections, NeoX RoPE with YaRN scaling (32x over
// 4096 trained tokens), a learned sink score per head, and a window of 128 keys on every other
// layer (the even ones). The FFN's input norm is named post_attention_norm.
#include "gguf/gguf_file.h"
#include "model/families/families.h"
#include "model/hyper_params.h"
#include "model/llama_model.h"

namespace hearth::model::families {

namespace {

// What llama.cpp's graph fixes rather than reads.
void gptOssDefaults(HyperParams& hp, const gguf::GgufFile& file)
{
    hp.slidingWindowPeriod = 2;
    if (!file.find("gpt-oss.expert_gating_func"))
        hp.expertGating = ExpertGating::SoftmaxOfChosen;
}

} // namespace

const Architecture gptOss = {"gpt-oss", "gpt-oss", BlockKind::Llama, loadLlamaModel,
                             {.rope = RopeStyle::Neox,
                              .qkvBias = true,
                              .outputBias = true,
                              .attentionSinks = true,
                              .ffnNorm = "post_attention_norm",
                              .activation = FfnActivation::SwiGluOai,
                              .normalizeExpertWeights = false,
                              .expertBiases = true},
                             gptOssDefaults};

} // namespace hearth::model::families
