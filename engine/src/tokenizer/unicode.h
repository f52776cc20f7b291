// SPDX-License-Identifier: MIT
#pragma once

// The little Unicode the tokenizers need: bounded UTF-8 decoding and encoding, the categories
// the pre-tokenizer patterns mention (\p{L}, \p{N}, \p{P}, \s), and GPT-2's byte <-> code point
// mapping. No locale, no ICU: tables come from scripts/gen-unicode-tables.py.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace hearth::unicode {

constexpr char32_t ReplacementCharacter = 0xFFFD;

struct DecodedChar {
    char32_t codePoint = ReplacementCharacter;
    std::uint8_t length = 1; // bytes consumed, 1..4; 1 for an invalid byte
    bool valid = false;
};

// Decodes the UTF-8 sequence starting at text[pos] (pos < text.size()). Never reads past the
// end. Overlong forms, surrogates, code points past U+10FFFF, stray continuation bytes and
// truncated sequences decode as an invalid U+FFFD that consumes exactly one byte, so a caller
// walking the text keeps every byte.
[[nodiscard]] DecodedChar decodeUtf8(std::string_view text, std::size_t pos);

// Appends the UTF-8 form of @p codePoint; invalid code points append U+FFFD.
void appendUtf8(std::string& out, char32_t codePoint);

// The number of bytes a sequence starting with @p lead claims (1..4), or 0 for a byte that
// cannot start one (a continuation byte, 0xC0, 0xC1, 0xF5..0xFF).
[[nodiscard]] int sequenceLength(unsigned char lead);

enum class Category : std::uint8_t {
    Other = 0,
    Letter = 1,      // \p{L}
    Number = 2,      // \p{N}
    Punctuation = 3, // \p{P}
};

[[nodiscard]] Category category(char32_t codePoint);
// Unicode White_Space, the set \s matches in Python's and Rust's regex engines.
[[nodiscard]] bool isWhitespace(char32_t codePoint);

// GPT-2's reversible mapping of the 256 byte values onto printable code points (a space
// becomes U+0120 'Ġ'), used by byte-level BPE vocabularies.
[[nodiscard]] char32_t byteToCodePoint(std::uint8_t byte);
// The byte behind a mapped code point, or -1 when @p codePoint is not in the mapping.
[[nodiscard]] int codePointToByte(char32_t codePoint);

} // namespace hearth::unicode
