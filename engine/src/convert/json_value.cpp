// SPDX-License-Identifier: MIT
#include "convert/json_value.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <unordered_set>

namespace hearth::convert {

const JsonValue* JsonValue::find(std::string_view key) const
{
    for (const Member& member : m_members) {
        if (member.first == key) {
            return &member.second;
        }
    }
    return nullptr;
}

JsonValue JsonValue::makeBool(bool value)
{
    JsonValue v;
    v.m_kind = Kind::Bool;
    v.m_bool = value;
    return v;
}

JsonValue JsonValue::makeInteger(std::int64_t value)
{
    JsonValue v;
    v.m_kind = Kind::Integer;
    v.m_integer = value;
    return v;
}

JsonValue JsonValue::makeNumber(double value)
{
    JsonValue v;
    v.m_kind = Kind::Number;
    v.m_number = value;
    return v;
}

JsonValue JsonValue::makeString(std::string value)
{
    JsonValue v;
    v.m_kind = Kind::String;
    v.m_string = std::move(value);
    return v;
}

JsonValue JsonValue::makeArray(std::vector<JsonValue> items)
{
    JsonValue v;
    v.m_kind = Kind::Array;
    v.m_items = std::move(items);
    return v;
}

JsonValue JsonValue::makeObject(std::vector<Member> members)
{
    JsonValue v;
    v.m_kind = Kind::Object;
    v.m_members = std::move(members);
    return v;
}

namespace {

class JsonParser {
public:
    JsonParser(std::string_view text, int maxDepth)
        : m_text(text)
        , m_maxDepth(maxDepth)
    {
    }

    Result<JsonValue> parseDocument()
    {
        skipWhitespace();
        auto value = parseValue(0);
        if (!value) {
            return value;
        }
        skipWhitespace();
        if (m_pos != m_text.size()) {
            return error("unexpected text after the JSON value");
        }
        return value;
    }

private:
    Status error(const std::string& what) const
    {
        return Status(ErrorCode::InvalidFile, "invalid JSON at offset " + std::to_string(m_pos) + ": " + what);
    }

    void skipWhitespace()
    {
        while (m_pos < m_text.size()
               && (m_text[m_pos] == ' ' || m_text[m_pos] == '\t' || m_text[m_pos] == '\n' || m_text[m_pos] == '\r')) {
            ++m_pos;
        }
    }

    bool consumeLiteral(std::string_view literal)
    {
        if (m_text.substr(m_pos, literal.size()) == literal) {
            m_pos += literal.size();
            return true;
        }
        return false;
    }

    Result<JsonValue> parseValue(int depth)
    {
        if (depth > m_maxDepth) {
            return error("nesting deeper than " + std::to_string(m_maxDepth) + " levels");
        }
        if (m_pos >= m_text.size()) {
            return error("unexpected end of text");
        }
        const char c = m_text[m_pos];
        switch (c) {
        case '{': return parseObject(depth);
        case '[': return parseArray(depth);
        case '"': {
            auto s = parseString();
            if (!s) {
                return s.status();
            }
            return JsonValue::makeString(std::move(*s));
        }
        case 't':
            if (consumeLiteral("true")) {
                return JsonValue::makeBool(true);
            }
            break;
        case 'f':
            if (consumeLiteral("false")) {
                return JsonValue::makeBool(false);
            }
            break;
        case 'n':
            if (consumeLiteral("null")) {
                return JsonValue::makeNull();
            }
            break;
        default:
            if (c == '-' || (c >= '0' && c <= '9')) {
                return parseNumber();
            }
            break;
        }
        return error(std::string("unexpected character '") + c + "'");
    }

    Result<JsonValue> parseObject(int depth)
    {
        ++m_pos; // '{'
        std::vector<JsonValue::Member> members;
        std::unordered_set<std::string> seen;
        skipWhitespace();
        if (m_pos < m_text.size() && m_text[m_pos] == '}') {
            ++m_pos;
            return JsonValue::makeObject(std::move(members));
        }
        while (true) {
            skipWhitespace();
            if (m_pos >= m_text.size() || m_text[m_pos] != '"') {
                return error("expected a string key");
            }
            auto key = parseString();
            if (!key) {
                return key.status();
            }
            if (!seen.insert(*key).second) {
                return error("duplicate key \"" + *key + "\"");
            }
            skipWhitespace();
            if (m_pos >= m_text.size() || m_text[m_pos] != ':') {
                return error("expected ':'");
            }
            ++m_pos;
            skipWhitespace();
            auto value = parseValue(depth + 1);
            if (!value) {
                return value;
            }
            members.emplace_back(std::move(*key), std::move(*value));
            skipWhitespace();
            if (m_pos < m_text.size() && m_text[m_pos] == ',') {
                ++m_pos;
                continue;
            }
            if (m_pos < m_text.size() && m_text[m_pos] == '}') {
                ++m_pos;
                return JsonValue::makeObject(std::move(members));
            }
            return error("expected ',' or '}'");
        }
    }

    Result<JsonValue> parseArray(int depth)
    {
        ++m_pos; // '['
        std::vector<JsonValue> items;
        skipWhitespace();
        if (m_pos < m_text.size() && m_text[m_pos] == ']') {
            ++m_pos;
            return JsonValue::makeArray(std::move(items));
        }
        while (true) {
            skipWhitespace();
            auto value = parseValue(depth + 1);
            if (!value) {
                return value;
            }
            items.push_back(std::move(*value));
            skipWhitespace();
            if (m_pos < m_text.size() && m_text[m_pos] == ',') {
                ++m_pos;
                continue;
            }
            if (m_pos < m_text.size() && m_text[m_pos] == ']') {
                ++m_pos;
                return JsonValue::makeArray(std::move(items));
            }
            return error("expected ',' or ']'");
        }
    }

    bool parseHex4(std::uint32_t& out)
    {
        if (m_text.size() - m_pos < 4) {
            return false;
        }
        out = 0;
        for (int i = 0; i < 4; ++i) {
            const char c = m_text[m_pos++];
            out <<= 4;
            if (c >= '0' && c <= '9') {
                out |= static_cast<std::uint32_t>(c - '0');
            } else if (c >= 'a' && c <= 'f') {
                out |= static_cast<std::uint32_t>(c - 'a' + 10);
            } else if (c >= 'A' && c <= 'F') {
                out |= static_cast<std::uint32_t>(c - 'A' + 10);
            } else {
                return false;
            }
        }
        return true;
    }

    static void appendUtf8(std::string& out, std::uint32_t cp)
    {
        if (cp < 0x80) {
            out += static_cast<char>(cp);
        } else if (cp < 0x800) {
            out += static_cast<char>(0xc0 | (cp >> 6));
            out += static_cast<char>(0x80 | (cp & 0x3f));
        } else if (cp < 0x10000) {
            out += static_cast<char>(0xe0 | (cp >> 12));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
            out += static_cast<char>(0x80 | (cp & 0x3f));
        } else {
            out += static_cast<char>(0xf0 | (cp >> 18));
            out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
            out += static_cast<char>(0x80 | (cp & 0x3f));
        }
    }

    // Length of the valid UTF-8 sequence starting at m_pos, or 0.
    std::size_t utf8SequenceLength() const
    {
        const auto byte = [this](std::size_t i) { return static_cast<unsigned char>(m_text[m_pos + i]); };
        const unsigned char lead = byte(0);
        std::size_t length = 0;
        std::uint32_t cp = 0;
        if (lead < 0x80) {
            return 1;
        } else if ((lead & 0xe0) == 0xc0) {
            length = 2;
            cp = lead & 0x1f;
        } else if ((lead & 0xf0) == 0xe0) {
            length = 3;
            cp = lead & 0x0f;
        } else if ((lead & 0xf8) == 0xf0) {
            length = 4;
            cp = lead & 0x07;
        } else {
            return 0;
        }
        if (m_text.size() - m_pos < length) {
            return 0;
        }
        for (std::size_t i = 1; i < length; ++i) {
            if ((byte(i) & 0xc0) != 0x80) {
                return 0;
            }
            cp = (cp << 6) | (byte(i) & 0x3f);
        }
        static constexpr std::uint32_t minimum[] = {0, 0, 0x80, 0x800, 0x10000};
        if (cp < minimum[length] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
            return 0; // overlong, out of range or a surrogate
        }
        return length;
    }

    Result<std::string> parseString()
    {
        ++m_pos; // '"'
        std::string out;
        while (true) {
            if (m_pos >= m_text.size()) {
                return error("unterminated string");
            }
            const char c = m_text[m_pos];
            if (c == '"') {
                ++m_pos;
                return out;
            }
            if (static_cast<unsigned char>(c) < 0x20) {
                return error("control character in a string");
            }
            if (c != '\\') {
                const std::size_t length = utf8SequenceLength();
                if (length == 0) {
                    return error("invalid UTF-8 in a string");
                }
                out.append(m_text.substr(m_pos, length));
                m_pos += length;
                continue;
            }
            ++m_pos;
            if (m_pos >= m_text.size()) {
                return error("unterminated escape");
            }
            const char e = m_text[m_pos++];
            switch (e) {
            case '"': out += '"'; break;
            case '\\': out += '\\'; break;
            case '/': out += '/'; break;
            case 'b': out += '\b'; break;
            case 'f': out += '\f'; break;
            case 'n': out += '\n'; break;
            case 'r': out += '\r'; break;
            case 't': out += '\t'; break;
            case 'u': {
                std::uint32_t cp = 0;
                if (!parseHex4(cp)) {
                    return error("bad \\u escape");
                }
                if (cp >= 0xdc00 && cp <= 0xdfff) {
                    return error("lone low surrogate in \\u escape");
                }
                if (cp >= 0xd800 && cp <= 0xdbff) {
                    std::uint32_t low = 0;
                    if (!consumeLiteral("\\u") || !parseHex4(low) || low < 0xdc00 || low > 0xdfff) {
                        return error("unpaired surrogate in \\u escape");
                    }
                    cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
                }
                appendUtf8(out, cp);
                break;
            }
            default:
                return error(std::string("unknown escape '\\") + e + "'");
            }
        }
    }

    Result<JsonValue> parseNumber()
    {
        const std::size_t start = m_pos;
        bool integral = true;
        if (m_text[m_pos] == '-') {
            ++m_pos;
        }
        const auto digits = [this] {
            const std::size_t begin = m_pos;
            while (m_pos < m_text.size() && m_text[m_pos] >= '0' && m_text[m_pos] <= '9') {
                ++m_pos;
            }
            return m_pos - begin;
        };
        const std::size_t intStart = m_pos;
        const std::size_t intDigits = digits();
        if (intDigits == 0) {
            return error("expected digits");
        }
        if (intDigits > 1 && m_text[intStart] == '0') {
            return error("leading zero in a number");
        }
        if (m_pos < m_text.size() && m_text[m_pos] == '.') {
            integral = false;
            ++m_pos;
            if (digits() == 0) {
                return error("expected digits after '.'");
            }
        }
        if (m_pos < m_text.size() && (m_text[m_pos] == 'e' || m_text[m_pos] == 'E')) {
            integral = false;
            ++m_pos;
            if (m_pos < m_text.size() && (m_text[m_pos] == '+' || m_text[m_pos] == '-')) {
                ++m_pos;
            }
            if (digits() == 0) {
                return error("expected digits in the exponent");
            }
        }
        const char* first = m_text.data() + start;
        const char* last = m_text.data() + m_pos;
        if (integral) {
            std::int64_t value = 0;
            const auto [ptr, ec] = std::from_chars(first, last, value);
            if (ec == std::errc() && ptr == last) {
                return JsonValue::makeInteger(value);
            }
            // Too large for 64 bits: keep it as a (rounded) number.
        }
        double value = 0.0;
        const auto [ptr, ec] = std::from_chars(first, last, value);
        if (ec != std::errc() || ptr != last || !std::isfinite(value)) {
            return error("number out of range");
        }
        return JsonValue::makeNumber(value);
    }

    std::string_view m_text;
    std::size_t m_pos = 0;
    int m_maxDepth;
};

} // namespace

Result<JsonValue> parseJson(std::string_view text, int maxDepth)
{
    return JsonParser(text, maxDepth).parseDocument();
}

} // namespace hearth::convert
