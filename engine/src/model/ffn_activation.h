// SPDX-License-Identifier: MIT
#pragma once

// The gated feed-forward activations of the llama-block families.

#include <optional>
#include <string_view>

namespace hearth::model {

enum class FfnActivation {
    SwiGlu, // silu(gate) * up: llama, mistral (dense models)
    ReGlu,  // relu(gate) * up: ReluLLaMA, ProSparse
    DRelu,  // relu(gate) * relu(up): bamboo
    Relu2,  // relu(gate)^2 * up
    GeGlu,  // gelu(gate) * up, GELU in the tanh approximation: Gemma
    // gpt-oss's clamped variant: g = min(gate, 7), u = clamp(up, -7, 7),
    // g * sigmoid(1.702 g) * (u + 1)
    SwiGluOai,
};

[[nodiscard]] constexpr std::string_view ffnActivationName(FfnActivation a)
{
    switch (a) {
    case FfnActivation::SwiGlu:
        return "swiglu";
    case FfnActivation::ReGlu:
        return "reglu";
    case FfnActivation::DRelu:
        return "drelu";
    case FfnActivation::Relu2:
        return "relu2";
    case FfnActivation::GeGlu:
        return "geglu";
    case FfnActivation::SwiGluOai:
        return "swiglu-oai";
    }
    return "swiglu";
}

[[nodiscard]] constexpr std::optional<FfnActivation> parseFfnActivation(std::string_view name)
{
    for (FfnActivation a : {FfnActivation::SwiGlu, FfnActivation::ReGlu, FfnActivation::DRelu, FfnActivation::Relu2,
                            FfnActivation::GeGlu, FfnActivation::SwiGluOai}) {
        if (ffnActivationName(a) == name)
            return a;
    }
    return std::nullopt;
}

} // namespace hearth::model
