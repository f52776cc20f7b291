// SPDX-License-Identifier: MIT
#pragma once

// A .safetensors file: an 8-byte little-endian header length, a JSON header naming each tensor's
// dtype, shape and byte range, then the data. The header is validated completely (types,
// sizes, ranges inside the file, no two tensors sharing bytes) before anything is handed out.

#include "convert/element_type.h"

#include <hearth/status.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace hearth::convert {

struct SafetensorsTensor {
    std::string name;
    ElementType dtype = ElementType::F32;
    std::vector<std::int64_t> shape;
    std::uint64_t fileOffset = 0; // first byte of the data within the file
    std::span<const std::byte> data; // row-major little-endian, inside the file's mapping

    [[nodiscard]] std::int64_t elementCount() const;
    [[nodiscard]] std::vector<float> toFloat() const;
};

class SafetensorsFile {
public:
    // Header lengths above this are refused, as the reference implementation does.
    static constexpr std::uint64_t kMaxHeaderBytes = 100u << 20;

    [[nodiscard]] static Result<SafetensorsFile> open(const std::string& path);
    // Parses a file held in memory; @p bytes must outlive the result.
    [[nodiscard]] static Result<SafetensorsFile> fromBytes(std::span<const std::byte> bytes);

    // Tensors in the order of their data in the file.
    [[nodiscard]] const std::vector<SafetensorsTensor>& tensors() const { return m_tensors; }
    [[nodiscard]] const SafetensorsTensor* find(std::string_view name) const;
    [[nodiscard]] const std::string& path() const { return m_path; }

private:
    static Result<SafetensorsFile> parse(std::span<const std::byte> bytes);

    std::string m_path;
    std::shared_ptr<const void> m_owner; // the mapping, when open() made one
    std::vector<SafetensorsTensor> m_tensors;
    std::unordered_map<std::string, std::size_t> m_index;
};

} // namespace hearth::convert
