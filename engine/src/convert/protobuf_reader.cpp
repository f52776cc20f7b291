// SPDX-License-Identifier: MIT
#include "convert/protobuf_reader.h"

#include <bit>
#include <cstdint>
#include <string>

namespace hearth::convert {

namespace {

Status truncated()
{
    return {ErrorCode::InvalidFile, "the protobuf message is truncated or corrupt"};
}

} // namespace

float ProtobufReader::Field::asFloat() const
{
    return std::bit_cast<float>(static_cast<std::uint32_t>(varint));
}

std::string_view ProtobufReader::Field::asString() const
{
    return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

Result<std::uint64_t> ProtobufReader::varint()
{
    std::uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (m_pos >= m_bytes.size()) {
            return truncated();
        }
        const auto byte = static_cast<std::uint8_t>(m_bytes[m_pos++]);
        value |= static_cast<std::uint64_t>(byte & 0x7fu) << shift;
        if ((byte & 0x80u) == 0) {
            return value;
        }
    }
    return truncated(); // more than ten bytes: not a varint
}

Result<ProtobufReader::Field> ProtobufReader::next()
{
    auto key = varint();
    if (!key) {
        return key.status();
    }
    Field field;
    field.number = static_cast<std::uint32_t>(*key >> 3);
    if (field.number == 0 || (*key >> 3) > 0x1fffffffu) {
        return truncated();
    }
    const auto fixed = [&](std::size_t size) -> Status {
        if (m_bytes.size() - m_pos < size) {
            return truncated();
        }
        for (std::size_t i = 0; i < size; ++i) {
            field.varint |= static_cast<std::uint64_t>(static_cast<std::uint8_t>(m_bytes[m_pos + i])) << (8 * i);
        }
        m_pos += size;
        return {};
    };
    switch (*key & 7u) {
    case 0: {
        field.type = WireType::Varint;
        auto v = varint();
        if (!v) {
            return v.status();
        }
        field.varint = *v;
        return field;
    }
    case 1:
        field.type = WireType::Fixed64;
        HEARTH_TRY(fixed(8));
        return field;
    case 2: {
        field.type = WireType::LengthDelimited;
        auto length = varint();
        if (!length) {
            return length.status();
        }
        if (*length > m_bytes.size() - m_pos) {
            return truncated();
        }
        field.bytes = m_bytes.subspan(m_pos, static_cast<std::size_t>(*length));
        m_pos += static_cast<std::size_t>(*length);
        return field;
    }
    case 5:
        field.type = WireType::Fixed32;
        HEARTH_TRY(fixed(4));
        return field;
    default:
        // Groups (3, 4) are deprecated and never used by SentencePiece.
        return Status(ErrorCode::InvalidFile, "unsupported protobuf wire type " + std::to_string(*key & 7u));
    }
}

} // namespace hearth::convert
