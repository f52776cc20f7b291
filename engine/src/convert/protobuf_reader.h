// SPDX-License-Identifier: MIT
#pragma once

// A minimal reader of the Protocol Buffers wire format, enough to walk a SentencePiece
// tokenizer.model without the protobuf library. Every length is checked against the buffer:
// a truncated or hostile message is an error, never an out-of-bounds read.

#include <hearth/status.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace hearth::convert {

class ProtobufReader {
public:
    enum class WireType : std::uint32_t { Varint = 0, Fixed64 = 1, LengthDelimited = 2, Fixed32 = 5 };

    struct Field {
        std::uint32_t number = 0;
        WireType type = WireType::Varint;
        std::uint64_t varint = 0;            // Varint, Fixed32 and Fixed64 values (raw bits)
        std::span<const std::byte> bytes;    // LengthDelimited payloads
        [[nodiscard]] float asFloat() const; // a Fixed32 float
        [[nodiscard]] std::string_view asString() const;
        [[nodiscard]] std::int64_t asInt() const { return static_cast<std::int64_t>(varint); }
    };

    explicit ProtobufReader(std::span<const std::byte> bytes)
        : m_bytes(bytes)
    {
    }

    [[nodiscard]] bool atEnd() const { return m_pos >= m_bytes.size(); }
    // Reads the next field; call only when !atEnd().
    [[nodiscard]] Result<Field> next();

private:
    Result<std::uint64_t> varint();

    std::span<const std::byte> m_bytes;
    std::size_t m_pos = 0;
};

} // namespace hearth::convert
