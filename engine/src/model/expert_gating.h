// SPDX-License-Identifier: MIT
#pragma once

// How a mixture-of-experts router turns its logits into the weights of the chosen experts
// (<arch>.expert_gating_func, llama.cpp's numbering).

#include <cstdint>
#include <optional>

namespace hearth::model {

enum class ExpertGating {
    Softmax = 1,         // softmax over every expert, then the top k (Mixtral, Qwen MoE)
    Sigmoid = 2,         // each expert's sigmoid, then the top k
    SoftmaxOfChosen = 3, // the top k logits, then a softmax over those alone
};

[[nodiscard]] constexpr std::optional<ExpertGating> expertGatingFromGguf(std::int64_t value)
{
    if (value < 1 || value > 3)
        return std::nullopt;
    return static_cast<ExpertGating>(value);
}

} // namespace hearth::model
