// SPDX-License-Identifier: MIT
#pragma once

// The registry's entries, one per file in this folder (architecture.cpp lists them).

#include "model/architecture.h"

namespace hearth::model::families {

extern const Architecture llama;
extern const Architecture bamboo;
extern const Architecture qwen2;
extern const Architecture qwen3;
extern const Architecture qwen2moe;
extern const Architecture qwen3moe;
extern const Architecture smallthinker;
extern const Architecture gptOss;
extern const Architecture phi3;
extern const Architecture gemma2;
extern const Architecture gemma3;
extern const Architecture falcon;
extern const Architecture opt;

// The expert width of Qwen MoE files that do not write expert_feed_forward_length.
void qwenMoeDefaults(HyperParams& hp, const gguf::GgufFile& file);

} // namespace hearth::model::families
