// SPDX-License-Identifier: MIT
#include "tokenizer/unicode.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <iterator>

namespace hearth::unicode {

namespace {

struct CategoryRun {
    char32_t first;
    char32_t last;
    Category category;
};

constexpr Category L = Category::Letter;
constexpr Category N = Category::Number;
constexpr Category P = Category::Punctuation;

constexpr CategoryRun kCategoryRuns[] = {
#include "tokenizer/unicode_tables.inc"
};

struct ByteMapping {
    std::array<char32_t, 256> toCodePoint{};
    // Every mapped code point is below 0x144 (256 + the 68 non-printable bytes).
    std::array<std::int16_t, 0x144> toByte{};
};

constexpr bool isPrintableByte(int b)
{
    return (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
}

constexpr ByteMapping makeByteMapping()
{
    ByteMapping m;
    for (auto& b : m.toByte)
        b = -1;
    int next = 256;
    for (int b = 0; b < 256; ++b) {
        const char32_t cp = isPrintableByte(b) ? char32_t(b) : char32_t(next++);
        m.toCodePoint[std::size_t(b)] = cp;
        m.toByte[cp] = std::int16_t(b);
    }
    return m;
}

constexpr ByteMapping kByteMapping = makeByteMapping();

} // namespace

int sequenceLength(unsigned char lead)
{
    if (lead < 0x80)
        return 1;
    if (lead < 0xC2)
        return 0;
    if (lead < 0xE0)
        return 2;
    if (lead < 0xF0)
        return 3;
    if (lead < 0xF5)
        return 4;
    return 0;
}

DecodedChar decodeUtf8(std::string_view text, std::size_t pos)
{
    const auto byteAt = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
    const unsigned char lead = byteAt(pos);
    const int length = sequenceLength(lead);
    if (length == 1)
        return {lead, 1, true};
    if (length == 0 || text.size() - pos < std::size_t(length))
        return {};

    char32_t cp = lead & (0x7F >> length);
    for (int i = 1; i < length; ++i) {
        const unsigned char c = byteAt(pos + std::size_t(i));
        if ((c & 0xC0) != 0x80)
            return {};
        cp = (cp << 6) | (c & 0x3F);
    }
    constexpr char32_t kMinimum[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMinimum[length] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return {};
    return {cp, std::uint8_t(length), true};
}

void appendUtf8(std::string& out, char32_t cp)
{
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        cp = ReplacementCharacter;
    if (cp < 0x80) {
        out += char(cp);
    } else if (cp < 0x800) {
        out += char(0xC0 | (cp >> 6));
        out += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += char(0xE0 | (cp >> 12));
        out += char(0x80 | ((cp >> 6) & 0x3F));
        out += char(0x80 | (cp & 0x3F));
    } else {
        out += char(0xF0 | (cp >> 18));
        out += char(0x80 | ((cp >> 12) & 0x3F));
        out += char(0x80 | ((cp >> 6) & 0x3F));
        out += char(0x80 | (cp & 0x3F));
    }
}

Category category(char32_t cp)
{
    // First run that does not end before cp.
    const auto it = std::partition_point(std::begin(kCategoryRuns), std::end(kCategoryRuns),
                                         [cp](const CategoryRun& run) { return run.last < cp; });
    if (it != std::end(kCategoryRuns) && it->first <= cp)
        return it->category;
    return Category::Other;
}

bool isWhitespace(char32_t cp)
{
    if (cp < 0x80)
        return cp == ' ' || (cp >= 0x09 && cp <= 0x0D);
    switch (cp) {
    case 0x85:
    case 0xA0:
    case 0x1680:
    case 0x2028:
    case 0x2029:
    case 0x202F:
    case 0x205F:
    case 0x3000:
        return true;
    default:
        return cp >= 0x2000 && cp <= 0x200A;
    }
}

char32_t byteToCodePoint(std::uint8_t byte)
{
    return kByteMapping.toCodePoint[byte];
}

int codePointToByte(char32_t cp)
{
    return cp < kByteMapping.toByte.size() ? kByteMapping.toByte[cp] : -1;
}

} // namespace hearth::unicode
