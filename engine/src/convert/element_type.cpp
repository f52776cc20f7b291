// SPDX-License-Identifier: MIT
#include "convert/element_type.h"

#include "core/fp16.h"

#include <bit>
#include <cstdint>
#include <cstring>

namespace hearth::convert {

namespace {

// Little-endian load independent of the host's byte order.
template <typename U>
U loadLittle(const std::byte* p)
{
    U value = 0;
    for (std::size_t i = 0; i < sizeof(U); ++i) {
        value |= static_cast<U>(static_cast<U>(std::to_integer<unsigned>(p[i])) << (8 * i));
    }
    return value;
}

} // namespace

std::size_t elementSize(ElementType type)
{
    switch (type) {
    case ElementType::F64:
    case ElementType::I64:
        return 8;
    case ElementType::F32:
    case ElementType::I32:
        return 4;
    case ElementType::F16:
    case ElementType::BF16:
    case ElementType::I16:
        return 2;
    case ElementType::I8:
    case ElementType::U8:
    case ElementType::Bool:
        return 1;
    }
    return 1;
}

std::string_view elementTypeName(ElementType type)
{
    switch (type) {
    case ElementType::F64: return "F64";
    case ElementType::F32: return "F32";
    case ElementType::F16: return "F16";
    case ElementType::BF16: return "BF16";
    case ElementType::I64: return "I64";
    case ElementType::I32: return "I32";
    case ElementType::I16: return "I16";
    case ElementType::I8: return "I8";
    case ElementType::U8: return "U8";
    case ElementType::Bool: return "BOOL";
    }
    return "?";
}

std::optional<ElementType> elementTypeFromSafetensors(std::string_view name)
{
    static constexpr ElementType all[] = {ElementType::F64, ElementType::F32, ElementType::F16, ElementType::BF16,
                                          ElementType::I64, ElementType::I32, ElementType::I16, ElementType::I8,
                                          ElementType::U8,  ElementType::Bool};
    for (const ElementType type : all) {
        if (elementTypeName(type) == name) {
            return type;
        }
    }
    return std::nullopt;
}

std::optional<DType> ggufType(ElementType type)
{
    switch (type) {
    case ElementType::F64: return DType::F64;
    case ElementType::F32: return DType::F32;
    case ElementType::F16: return DType::F16;
    case ElementType::BF16: return DType::BF16;
    case ElementType::I64: return DType::I64;
    case ElementType::I32: return DType::I32;
    case ElementType::I16: return DType::I16;
    case ElementType::I8: return DType::I8;
    case ElementType::U8:
    case ElementType::Bool:
        return std::nullopt; // GGUF has no unsigned byte tensors
    }
    return std::nullopt;
}

namespace {

// One loop per type, so the compiler can vectorise the plain conversions.
template <typename Convert>
void convertEach(float* out, const std::byte* data, std::size_t count, std::size_t size, Convert convert)
{
    for (std::size_t i = 0; i < count; ++i) {
        out[i] = convert(data + i * size);
    }
}

} // namespace

std::vector<float> convertToFloat(ElementType type, const std::byte* data, std::size_t count)
{
    std::vector<float> out(count);
    float* o = out.data();
    const std::size_t size = elementSize(type);
    switch (type) {
    case ElementType::F64:
        convertEach(o, data, count, size, [](const std::byte* p) {
            return static_cast<float>(std::bit_cast<double>(loadLittle<std::uint64_t>(p)));
        });
        break;
    case ElementType::F32:
        if constexpr (std::endian::native == std::endian::little) {
            if (count > 0) {
                std::memcpy(o, data, count * sizeof(float));
            }
        } else {
            convertEach(o, data, count, size,
                        [](const std::byte* p) { return std::bit_cast<float>(loadLittle<std::uint32_t>(p)); });
        }
        break;
    case ElementType::F16:
        if (count >= 65536) { // a table of all halves pays for itself on large tensors
            static const std::vector<float> table = [] {
                std::vector<float> t(65536);
                for (std::uint32_t h = 0; h < 65536; ++h) {
                    t[h] = halfToFloat(static_cast<std::uint16_t>(h));
                }
                return t;
            }();
            convertEach(o, data, count, size, [](const std::byte* p) { return table[loadLittle<std::uint16_t>(p)]; });
        } else {
            convertEach(o, data, count, size,
                        [](const std::byte* p) { return halfToFloat(loadLittle<std::uint16_t>(p)); });
        }
        break;
    case ElementType::BF16:
        convertEach(o, data, count, size, [](const std::byte* p) {
            return std::bit_cast<float>(static_cast<std::uint32_t>(loadLittle<std::uint16_t>(p)) << 16);
        });
        break;
    case ElementType::I64:
        convertEach(o, data, count, size, [](const std::byte* p) {
            return static_cast<float>(static_cast<std::int64_t>(loadLittle<std::uint64_t>(p)));
        });
        break;
    case ElementType::I32:
        convertEach(o, data, count, size, [](const std::byte* p) {
            return static_cast<float>(static_cast<std::int32_t>(loadLittle<std::uint32_t>(p)));
        });
        break;
    case ElementType::I16:
        convertEach(o, data, count, size, [](const std::byte* p) {
            return static_cast<float>(static_cast<std::int16_t>(loadLittle<std::uint16_t>(p)));
        });
        break;
    case ElementType::I8:
        convertEach(o, data, count, size, [](const std::byte* p) {
            return static_cast<float>(static_cast<std::int8_t>(std::to_integer<std::uint8_t>(*p)));
        });
        break;
    case ElementType::U8:
        convertEach(o, data, count, size,
                    [](const std::byte* p) { return static_cast<float>(std::to_integer<std::uint8_t>(*p)); });
        break;
    case ElementType::Bool:
        convertEach(o, data, count, size,
                    [](const std::byte* p) { return std::to_integer<std::uint8_t>(*p) != 0 ? 1.0f : 0.0f; });
        break;
    }
    return out;
}

} // namespace hearth::convert
