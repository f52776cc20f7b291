// SPDX-License-Identifier: MIT
#include "convert/safetensors_file.h"

#include "convert/json_value.h"
#include "core/mapped_file.h"

#include <algorithm>
#include <cstdint>
#include <limits>

namespace hearth::convert {

std::int64_t SafetensorsTensor::elementCount() const
{
    std::int64_t count = 1;
    for (const std::int64_t dim : shape) {
        count *= dim;
    }
    return count;
}

std::vector<float> SafetensorsTensor::toFloat() const
{
    return convertToFloat(dtype, data.data(), data.size() / elementSize(dtype));
}

namespace {

Status invalid(const std::string& what)
{
    return Status(ErrorCode::InvalidFile, "invalid safetensors header: " + what);
}

Result<SafetensorsTensor> parseTensor(const std::string& name, const JsonValue& info)
{
    if (!info.isObject()) {
        return invalid("'" + name + "' is not an object");
    }
    const JsonValue* dtype = info.find("dtype");
    const JsonValue* shape = info.find("shape");
    const JsonValue* offsets = info.find("data_offsets");
    if (dtype == nullptr || !dtype->isString() || shape == nullptr || !shape->isArray() || offsets == nullptr
        || !offsets->isArray()) {
        return invalid("'" + name + "' needs a dtype string, a shape array and a data_offsets array");
    }
    SafetensorsTensor tensor;
    tensor.name = name;
    const auto type = elementTypeFromSafetensors(dtype->toString());
    if (!type) {
        return Status(ErrorCode::Unsupported, "tensor '" + name + "' has dtype " + dtype->toString()
                                                  + ", which Hearth does not read");
    }
    tensor.dtype = *type;

    // Element and byte counts, with every multiplication checked.
    constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    std::uint64_t count = 1;
    for (const JsonValue& dim : shape->items()) {
        if (!dim.isInteger() || dim.toInteger() < 0) {
            return invalid("the shape of '" + name + "' holds something other than a non-negative integer");
        }
        const auto d = static_cast<std::uint64_t>(dim.toInteger());
        if (d != 0 && count > kMax / d) {
            return invalid("the shape of '" + name + "' overflows");
        }
        count *= d;
        tensor.shape.push_back(dim.toInteger());
    }
    if (count > kMax / elementSize(tensor.dtype)) {
        return invalid("the size of '" + name + "' overflows");
    }
    const std::uint64_t bytes = count * elementSize(tensor.dtype);

    const auto& range = offsets->items();
    if (range.size() != 2 || !range[0].isInteger() || !range[1].isInteger() || range[0].toInteger() < 0
        || range[1].toInteger() < range[0].toInteger()) {
        return invalid("the data_offsets of '" + name + "' are not [begin, end] with begin <= end");
    }
    const auto begin = static_cast<std::uint64_t>(range[0].toInteger());
    const auto end = static_cast<std::uint64_t>(range[1].toInteger());
    if (end - begin != bytes) {
        return invalid("'" + name + "' covers " + std::to_string(end - begin) + " bytes, but its shape and dtype need "
                       + std::to_string(bytes));
    }
    tensor.fileOffset = begin; // relative to the data section until the caller rebases it
    return tensor;
}

} // namespace

Result<SafetensorsFile> SafetensorsFile::open(const std::string& path)
{
    auto file = MappedFile::open(path);
    if (!file) {
        return file.status();
    }
    std::shared_ptr<const MappedFile> mapping(std::move(*file));
    auto parsed = parse(mapping->bytes());
    if (!parsed) {
        return Status(parsed.code(), "'" + path + "': " + parsed.message());
    }
    parsed->m_path = path;
    parsed->m_owner = std::move(mapping);
    return parsed;
}

Result<SafetensorsFile> SafetensorsFile::fromBytes(std::span<const std::byte> bytes)
{
    return parse(bytes);
}

Result<SafetensorsFile> SafetensorsFile::parse(std::span<const std::byte> bytes)
{
    if (bytes.size() < 8) {
        return Status(ErrorCode::InvalidFile, "not a safetensors file: shorter than its 8-byte header length");
    }
    std::uint64_t headerLength = 0;
    for (std::size_t i = 0; i < 8; ++i) {
        headerLength |= std::to_integer<std::uint64_t>(bytes[i]) << (8 * i);
    }
    if (headerLength > kMaxHeaderBytes) {
        return invalid("its length " + std::to_string(headerLength) + " is over the 100 MiB limit");
    }
    if (headerLength > bytes.size() - 8) {
        return invalid("its length " + std::to_string(headerLength) + " runs past the end of the file");
    }
    const std::string_view text(reinterpret_cast<const char*>(bytes.data() + 8), static_cast<std::size_t>(headerLength));
    auto header = parseJson(text, 16);
    if (!header) {
        return invalid(header.message());
    }
    if (!header->isObject()) {
        return invalid("the header is not a JSON object");
    }

    SafetensorsFile file;
    const std::uint64_t dataStart = 8 + headerLength;
    const std::uint64_t dataSize = bytes.size() - dataStart;
    for (const auto& [name, info] : header->members()) {
        if (name == "__metadata__") {
            continue; // free-form strings (format, creator); nothing Hearth relies on
        }
        auto tensor = parseTensor(name, info);
        if (!tensor) {
            return tensor.status();
        }
        const std::uint64_t begin = tensor->fileOffset;
        const auto length = static_cast<std::uint64_t>(tensor->elementCount()) * elementSize(tensor->dtype);
        if (begin > dataSize || length > dataSize - begin) {
            return invalid("the data of '" + name + "' lies outside the file");
        }
        tensor->fileOffset = dataStart + begin;
        tensor->data = bytes.subspan(static_cast<std::size_t>(tensor->fileOffset), static_cast<std::size_t>(length));
        file.m_tensors.push_back(std::move(*tensor));
    }

    // Two tensors sharing bytes would alias silently when written back or converted.
    std::sort(file.m_tensors.begin(), file.m_tensors.end(),
              [](const SafetensorsTensor& a, const SafetensorsTensor& b) {
                  // Empty tensors first at a shared offset: they occupy no bytes.
                  return a.fileOffset != b.fileOffset ? a.fileOffset < b.fileOffset : a.data.size() < b.data.size();
              });
    for (std::size_t i = 1; i < file.m_tensors.size(); ++i) {
        const SafetensorsTensor& previous = file.m_tensors[i - 1];
        if (previous.fileOffset + previous.data.size() > file.m_tensors[i].fileOffset) {
            return invalid("the data of '" + previous.name + "' and '" + file.m_tensors[i].name + "' overlap");
        }
    }
    for (std::size_t i = 0; i < file.m_tensors.size(); ++i) {
        file.m_index.emplace(file.m_tensors[i].name, i);
    }
    return file;
}

const SafetensorsTensor* SafetensorsFile::find(std::string_view name) const
{
    const auto it = m_index.find(std::string(name));
    return it == m_index.end() ? nullptr : &m_tensors[it->second];
}

} // namespace hearth::convert
