// SPDX-License-Identifier: MIT
#include "chat/jinja_lexer.h"

#include <algorithm>
#include <cstdint>

namespace hearth::jinja {

std::string describe(SourcePos pos)
{
    return "line " + std::to_string(pos.line) + ", column " + std::to_string(pos.column) + ": ";
}

namespace {

bool isSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

bool isNameStart(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}

void appendUtf8(std::string& out, std::uint32_t cp)
{
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

class Lexer {
public:
    Lexer(std::string_view source, const LexOptions& options)
        : m_src(source)
        , m_options(options)
    {
        m_lineStarts.push_back(0);
        for (std::size_t i = 0; i < m_src.size(); ++i) {
            if (m_src[i] == '\n')
                m_lineStarts.push_back(i + 1);
        }
    }

    Result<std::vector<LexToken>> run()
    {
        std::size_t i = 0;
        while (i <= m_src.size()) {
            const std::size_t open = findTagOpen(i);
            std::string text(m_src.substr(i, open - i));
            applyLeadingControl(text);
            if (open == m_src.size()) {
                pushText(std::move(text), i);
                break;
            }
            const char kind = m_src[open + 1];
            std::size_t p = open + 2;
            const char modifier = p < m_src.size() ? m_src[p] : '\0';
            if (modifier == '-' || modifier == '+')
                ++p;
            if (modifier == '-')
                rstripAll(text);
            else if (modifier != '+' && kind != '{' && m_options.lstripBlocks)
                lstripLine(text);
            pushText(std::move(text), i);

            Result<std::size_t> next = kind == '#' ? lexComment(open, p) : lexTag(open, p, kind);
            if (!next)
                return next.status();
            i = *next;
        }
        m_tokens.push_back({LexToken::Type::End, {}, posAt(m_src.size())});
        return std::move(m_tokens);
    }

private:
    SourcePos posAt(std::size_t offset) const
    {
        const auto it = std::upper_bound(m_lineStarts.begin(), m_lineStarts.end(), offset);
        const auto line = static_cast<std::size_t>(it - m_lineStarts.begin());
        return {static_cast<int>(line), static_cast<int>(offset - m_lineStarts[line - 1] + 1)};
    }

    Status errorAt(std::size_t offset, const std::string& message) const
    {
        return {ErrorCode::InvalidArgument, describe(posAt(offset)) + message};
    }

    std::size_t findTagOpen(std::size_t from) const
    {
        for (std::size_t i = from; i + 1 < m_src.size(); ++i) {
            if (m_src[i] == '{' && (m_src[i + 1] == '{' || m_src[i + 1] == '%' || m_src[i + 1] == '#'))
                return i;
        }
        return m_src.size();
    }

    // What the previous tag asked of the text that follows it: "-" strips all leading
    // whitespace, trim_blocks drops one newline.
    void applyLeadingControl(std::string& text)
    {
        if (m_stripNext) {
            std::size_t k = 0;
            while (k < text.size() && isSpace(text[k]))
                ++k;
            text.erase(0, k);
        } else if (m_trimNewline) {
            if (text.starts_with("\r\n"))
                text.erase(0, 2);
            else if (text.starts_with('\n'))
                text.erase(0, 1);
        }
        m_stripNext = false;
        m_trimNewline = false;
    }

    static void rstripAll(std::string& text)
    {
        while (!text.empty() && isSpace(text.back()))
            text.pop_back();
    }

    // lstrip_blocks: spaces and tabs between the start of a line and a block tag go away.
    void lstripLine(std::string& text) const
    {
        const std::size_t newline = text.rfind('\n');
        const std::size_t lineStart = newline == std::string::npos ? 0 : newline + 1;
        if (newline == std::string::npos && !m_lineStarting)
            return;
        for (std::size_t k = lineStart; k < text.size(); ++k) {
            if (text[k] != ' ' && text[k] != '\t' && text[k] != '\r')
                return;
        }
        text.erase(lineStart);
    }

    void pushText(std::string text, std::size_t offset)
    {
        if (!text.empty())
            m_tokens.push_back({LexToken::Type::Text, std::move(text), posAt(offset)});
    }

    // After a tag: sets up whitespace control for the following text.
    void closeTag(bool minus, bool block, std::size_t after)
    {
        m_stripNext = minus;
        m_trimNewline = !minus && block && m_options.trimBlocks;
        if (minus) {
            // The stripped whitespace belongs to this tag; a line starts when it ended with a newline.
            std::size_t k = after;
            while (k < m_src.size() && isSpace(m_src[k]))
                ++k;
            m_lineStarting = k > after && m_src[k - 1] == '\n';
        } else {
            m_lineStarting = m_trimNewline && after < m_src.size() && m_src[after] == '\n';
        }
    }

    Result<std::size_t> lexComment(std::size_t open, std::size_t p)
    {
        const std::size_t close = m_src.find("#}", p);
        if (close == std::string_view::npos)
            return errorAt(open, "unterminated comment: '{#' without '#}'");
        const bool minus = close > p && m_src[close - 1] == '-';
        closeTag(minus, true, close + 2);
        return close + 2;
    }

    Result<std::size_t> lexTag(std::size_t open, std::size_t p, char kind)
    {
        const bool block = kind == '%';
        const std::size_t firstToken = m_tokens.size();
        m_tokens.push_back({block ? LexToken::Type::BlockBegin : LexToken::Type::VarBegin, {}, posAt(open)});
        const std::string_view closer = block ? "%}" : "}}";
        int depth = 0; // open brackets: "}}" inside {{ {'a': {'b': 1}} }} closes a dict, not the tag
        while (true) {
            while (p < m_src.size() && isSpace(m_src[p]))
                ++p;
            if (p >= m_src.size())
                return errorAt(open, block ? "unterminated tag: '{%' without '%}'" : "unterminated tag: '{{' without '}}'");
            bool minus = false;
            if (depth == 0 && m_src[p] == '-' && m_src.substr(p + 1, 2) == closer)
                minus = true;
            if (depth == 0 && (minus || m_src.substr(p, 2) == closer)) {
                const std::size_t after = p + (minus ? 3 : 2);
                m_tokens.push_back({block ? LexToken::Type::BlockEnd : LexToken::Type::VarEnd, {}, posAt(p)});
                closeTag(minus, block, after);
                if (block && m_tokens.size() == firstToken + 3 && m_tokens[firstToken + 1].type == LexToken::Type::Name
                    && m_tokens[firstToken + 1].text == "raw") {
                    m_tokens.resize(firstToken);
                    return lexRaw(open, after);
                }
                return after;
            }
            Result<std::size_t> next = lexExpressionToken(p, depth);
            if (!next)
                return next.status();
            p = *next;
        }
    }

    // {% raw %}...{% endraw %}: everything in between is text.
    Result<std::size_t> lexRaw(std::size_t open, std::size_t from)
    {
        for (std::size_t i = m_src.find("{%", from); i != std::string_view::npos; i = m_src.find("{%", i + 2)) {
            std::size_t p = i + 2;
            const bool minusOpen = p < m_src.size() && m_src[p] == '-';
            if (p < m_src.size() && (m_src[p] == '-' || m_src[p] == '+'))
                ++p;
            while (p < m_src.size() && isSpace(m_src[p]))
                ++p;
            if (m_src.substr(p, 6) != "endraw")
                continue;
            p += 6;
            while (p < m_src.size() && isSpace(m_src[p]))
                ++p;
            const bool minusClose = p < m_src.size() && m_src[p] == '-';
            if (minusClose)
                ++p;
            if (m_src.substr(p, 2) != "%}")
                continue;
            std::string text(m_src.substr(from, i - from));
            applyLeadingControl(text);
            if (minusOpen)
                rstripAll(text);
            pushText(std::move(text), from);
            closeTag(minusClose, true, p + 2);
            return p + 2;
        }
        return errorAt(open, "unterminated raw block: '{% raw %}' without '{% endraw %}'");
    }

    Result<std::size_t> lexExpressionToken(std::size_t p, int& depth)
    {
        const std::size_t start = p;
        const char c = m_src[p];
        if (isNameStart(c)) {
            while (p < m_src.size() && (isNameStart(m_src[p]) || isDigit(m_src[p])))
                ++p;
            m_tokens.push_back({LexToken::Type::Name, std::string(m_src.substr(start, p - start)), posAt(start)});
            return p;
        }
        if (isDigit(c)) {
            while (p < m_src.size() && (isDigit(m_src[p]) || m_src[p] == '_'))
                ++p;
            bool isFloat = false;
            if (p + 1 < m_src.size() && m_src[p] == '.' && isDigit(m_src[p + 1])) {
                isFloat = true;
                p += 1;
                while (p < m_src.size() && isDigit(m_src[p]))
                    ++p;
            }
            if (p < m_src.size() && (m_src[p] == 'e' || m_src[p] == 'E')) {
                std::size_t q = p + 1;
                if (q < m_src.size() && (m_src[q] == '+' || m_src[q] == '-'))
                    ++q;
                if (q < m_src.size() && isDigit(m_src[q])) {
                    isFloat = true;
                    p = q;
                    while (p < m_src.size() && isDigit(m_src[p]))
                        ++p;
                }
            }
            std::string text(m_src.substr(start, p - start));
            std::erase(text, '_');
            m_tokens.push_back({isFloat ? LexToken::Type::Float : LexToken::Type::Integer, std::move(text), posAt(start)});
            return p;
        }
        if (c == '\'' || c == '"')
            return lexString(p);

        static constexpr std::string_view twoChar[] = {"//", "**", "==", "!=", "<=", ">="};
        for (const auto op : twoChar) {
            if (m_src.substr(p, 2) == op) {
                m_tokens.push_back({LexToken::Type::Operator, std::string(op), posAt(p)});
                return p + 2;
            }
        }
        static constexpr std::string_view oneChar = "+-*/%~<>=()[]{},.:|";
        if (oneChar.find(c) != std::string_view::npos) {
            if (c == '(' || c == '[' || c == '{')
                ++depth;
            else if ((c == ')' || c == ']' || c == '}') && depth > 0)
                --depth;
            m_tokens.push_back({LexToken::Type::Operator, std::string(1, c), posAt(p)});
            return p + 1;
        }
        return errorAt(p, std::string("unexpected character '") + c + "' in tag");
    }

    Result<std::size_t> lexString(std::size_t p)
    {
        const std::size_t start = p;
        const char quote = m_src[p++];
        std::string value;
        while (p < m_src.size() && m_src[p] != quote) {
            char c = m_src[p++];
            if (c != '\\') {
                value += c;
                continue;
            }
            if (p >= m_src.size())
                break;
            c = m_src[p++];
            switch (c) {
            case 'n':
                value += '\n';
                break;
            case 't':
                value += '\t';
                break;
            case 'r':
                value += '\r';
                break;
            case '0':
                value += '\0';
                break;
            case 'x':
            case 'u':
            case 'U': {
                const std::size_t digits = c == 'x' ? 2 : c == 'u' ? 4 : 8;
                if (p + digits > m_src.size())
                    return errorAt(p - 2, "truncated escape sequence in string");
                std::uint32_t cp = 0;
                for (std::size_t k = 0; k < digits; ++k) {
                    const char h = m_src[p + k];
                    const int d = isDigit(h) ? h - '0' : (h >= 'a' && h <= 'f') ? h - 'a' + 10 : (h >= 'A' && h <= 'F') ? h - 'A' + 10 : -1;
                    if (d < 0)
                        return errorAt(p - 2, "invalid escape sequence in string");
                    cp = cp * 16 + static_cast<std::uint32_t>(d);
                }
                if (cp > 0x10FFFF)
                    return errorAt(p - 2, "invalid code point in string");
                p += digits;
                appendUtf8(value, cp);
                break;
            }
            case '\\':
            case '\'':
            case '"':
                value += c;
                break;
            case '\n': // line continuation
                break;
            default: // Python keeps unknown escapes verbatim
                value += '\\';
                value += c;
            }
        }
        if (p >= m_src.size())
            return errorAt(start, "unterminated string literal");
        m_tokens.push_back({LexToken::Type::String, std::move(value), posAt(start)});
        return p + 1;
    }

    std::string_view m_src;
    LexOptions m_options;
    std::vector<std::size_t> m_lineStarts;
    std::vector<LexToken> m_tokens;
    bool m_stripNext = false;
    bool m_trimNewline = false;
    bool m_lineStarting = true;
};

} // namespace

Result<std::vector<LexToken>> tokenize(std::string_view source, const LexOptions& options)
{
    return Lexer(source, options).run();
}

} // namespace hearth::jinja
