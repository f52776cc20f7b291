// SPDX-License-Identifier: MIT
#pragma once

// Element types of tensors in checkpoint files (PyTorch storages, safetensors dtypes).

#include "core/dtype.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace hearth::convert {

enum class ElementType {
    F64,
    F32,
    F16,
    BF16,
    I64,
    I32,
    I16,
    I8,
    U8,
    Bool,
};

// Bytes per element.
[[nodiscard]] std::size_t elementSize(ElementType type);
// Upper-case short name as safetensors spells it ("F32", "BF16", "BOOL").
[[nodiscard]] std::string_view elementTypeName(ElementType type);
// The safetensors dtype string, or nullopt for one Hearth does not read (F8_E4M3, U64, ...).
[[nodiscard]] std::optional<ElementType> elementTypeFromSafetensors(std::string_view name);
// The GGUF type a tensor of this type keeps when converted unchanged, if there is one.
[[nodiscard]] std::optional<DType> ggufType(ElementType type);

// Converts @p count little-endian elements starting at @p data to floats. Integers convert
// exactly up to 2^24; larger ones round like a static_cast.
[[nodiscard]] std::vector<float> convertToFloat(ElementType type, const std::byte* data, std::size_t count);

} // namespace hearth::convert
