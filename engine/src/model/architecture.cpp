// SPDX-License-Identifier: MIT
#include "model/architecture.h"

#include "model/families/families.h"

#include <array>

namespace hearth::model {

namespace {

// The registry. Each entry lives in its family's file under families/.
const std::array<const Architecture*, 13> kArchitectures = {
    &families::llama,    &families::bamboo,       &families::qwen2,  &families::qwen3,  &families::qwen2moe,
    &families::qwen3moe, &families::smallthinker, &families::gptOss, &families::phi3,   &families::gemma2,
    &families::gemma3,   &families::falcon,       &families::opt,
};

} // namespace

const Architecture* findArchitecture(std::string_view name)
{
    for (const Architecture* a : kArchitectures) {
        if (a->name == name)
            return a;
    }
    return nullptr;
}

std::span<const Architecture* const> architectures()
{
    return kArchitectures;
}

} // namespace hearth::model
