// SPDX-License-Identifier: MIT
#include "tokenizer/pre_tokenizer.h"

#include "tokenizer/unicode.h"

#include <cstddef>
#include <cstdint>

namespace hearth::tokenizer {

namespace {

using unicode::Category;

// One decoded code point with what the patterns ask of it.
struct Unit {
    char32_t codePoint;
    std::uint32_t byteOffset;
    Category category;
    bool whitespace;
};

// Pieces are runs of units: [begin, end).
struct Piece {
    std::size_t begin;
    std::size_t end;
};

using Pieces = std::vector<Piece>;

// Appends [from, to) when non-empty.
void emit(Pieces& out, std::size_t from, std::size_t to)
{
    if (to > from)
        out.push_back({from, to});
}

// ASCII punctuation and symbols in the class "[\p{P}\$\+<=>\^~\|]" (with '`' for falcon).
// llama.cpp evaluates \p{P} on ASCII with an explicit list that, together with the listed
// symbols, covers every ASCII punctuation and symbol character except possibly '`'.
bool isAsciiPunctuationOrSymbol(char32_t cp, bool withBacktick)
{
    if (cp == '`')
        return withBacktick;
    return (cp >= 0x21 && cp <= 0x2F) || (cp >= 0x3A && cp <= 0x40) || (cp >= 0x5B && cp <= 0x60)
        || (cp >= 0x7B && cp <= 0x7E);
}

bool matchesPunctuationClass(const Unit& u, bool withBacktick)
{
    if (u.codePoint < 0x80)
        return isAsciiPunctuationOrSymbol(u.codePoint, withBacktick);
    return !u.whitespace && u.category == Category::Punctuation;
}

bool matchesNumberClass(const Unit& u)
{
    if (u.codePoint < 0x80)
        return u.codePoint >= '0' && u.codePoint <= '9';
    return !u.whitespace && u.category == Category::Number;
}

// "[class]+" (maximal runs) or "[class]" (single units) over each piece.
template <typename Predicate>
Pieces splitByClass(const std::vector<Unit>& units, const Pieces& pieces, bool runs, Predicate matches)
{
    Pieces out;
    out.reserve(pieces.size() * 2);
    for (const Piece piece : pieces) {
        std::size_t last = piece.begin; // end of the previous match
        std::size_t pos = piece.begin;
        while (pos < piece.end) {
            if (!matches(units[pos])) {
                ++pos;
                continue;
            }
            std::size_t end = pos + 1;
            if (runs) {
                while (end < piece.end && matches(units[end]))
                    ++end;
            }
            emit(out, last, pos);
            emit(out, pos, end);
            last = pos = end;
        }
        emit(out, last, piece.end);
    }
    return out;
}

// "[0-9][0-9][0-9]": groups of three ASCII digits, leftmost first.
Pieces splitDigitTriples(const std::vector<Unit>& units, const Pieces& pieces)
{
    const auto isDigit = [&](std::size_t i) { return units[i].codePoint >= '0' && units[i].codePoint <= '9'; };
    Pieces out;
    out.reserve(pieces.size());
    for (const Piece piece : pieces) {
        std::size_t last = piece.begin;
        std::size_t pos = piece.begin;
        while (pos + 3 <= piece.end) {
            if (isDigit(pos) && isDigit(pos + 1) && isDigit(pos + 2)) {
                emit(out, last, pos);
                emit(out, pos, pos + 3);
                last = pos = pos + 3;
            } else {
                ++pos;
            }
        }
        emit(out, last, piece.end);
    }
    return out;
}

// 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// Alternatives are tried in order at each position, as a backtracking regex engine would; the
// lookahead only ever gives back the last whitespace before a non-space.
Pieces splitGpt2(const std::vector<Unit>& units, const Pieces& pieces)
{
    Pieces out;
    out.reserve(units.size() / 3 + pieces.size());
    for (const Piece piece : pieces) {
        const std::size_t end = piece.end;
        const auto cpAt = [&](std::size_t i) { return i < end ? units[i].codePoint : char32_t(0); };
        const auto isLetter = [&](std::size_t i) { return i < end && units[i].category == Category::Letter; };
        const auto isNumber = [&](std::size_t i) { return i < end && units[i].category == Category::Number; };
        const auto isSpace = [&](std::size_t i) { return i < end && units[i].whitespace; };
        const auto isOther = [&](std::size_t i) { return i < end && !units[i].whitespace && units[i].category != Category::Letter && units[i].category != Category::Number; };

        std::size_t pos = piece.begin;
        while (pos < end) {
            const std::size_t start = pos;
            const char32_t cp = units[pos].codePoint;

            if (cp == '\'' && pos + 1 < end) {
                const char32_t next = cpAt(pos + 1);
                if (next == 's' || next == 't' || next == 'm' || next == 'd') {
                    emit(out, start, pos + 2);
                    pos += 2;
                    continue;
                }
                const char32_t nextNext = cpAt(pos + 2);
                if (pos + 2 < end
                    && ((next == 'r' && nextNext == 'e') || (next == 'v' && nextNext == 'e') || (next == 'l' && nextNext == 'l'))) {
                    emit(out, start, pos + 3);
                    pos += 3;
                    continue;
                }
            }

            // " ?X+" for the three classes: an optional leading space, then a run.
            const std::size_t body = (cp == ' ') ? pos + 1 : pos;
            const auto takeRun = [&](auto&& inClass) {
                if (!inClass(body))
                    return false;
                std::size_t i = body + 1;
                while (inClass(i))
                    ++i;
                emit(out, start, i);
                pos = i;
                return true;
            };
            if (takeRun(isLetter) || takeRun(isNumber) || takeRun(isOther))
                continue;

            std::size_t spaces = 0;
            while (isSpace(pos + spaces))
                ++spaces;
            if (spaces > 1 && pos + spaces < end) {
                // \s+(?!\S): leave the last space to prefix the word that follows.
                pos += spaces - 1;
                emit(out, start, pos);
                continue;
            }
            if (spaces > 0) {
                pos += spaces;
                emit(out, start, pos);
                continue;
            }
            // Unreachable for valid input (every unit is a space, letter, number or other);
            // kept so the loop always advances.
            ++pos;
            emit(out, start, pos);
        }
    }
    return out;
}

// (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
// (Llama 3; Qwen 2 takes one digit at a time: @p maxDigits 1). As splitGpt2: the alternatives in
// order at each position, as a backtracking engine tries them.
Pieces splitLlama3(const std::vector<Unit>& units, const Pieces& pieces, std::size_t maxDigits)
{
    Pieces out;
    out.reserve(units.size() / 3 + pieces.size());
    for (const Piece piece : pieces) {
        const std::size_t end = piece.end;
        const auto cpAt = [&](std::size_t i) { return i < end ? units[i].codePoint : char32_t(0); };
        const auto lower = [&](std::size_t i) {
            const char32_t cp = cpAt(i);
            return cp >= 'A' && cp <= 'Z' ? char32_t(cp - 'A' + 'a') : cp;
        };
        const auto isLetter = [&](std::size_t i) { return i < end && units[i].category == Category::Letter; };
        const auto isNumber = [&](std::size_t i) { return i < end && units[i].category == Category::Number; };
        const auto isSpace = [&](std::size_t i) { return i < end && units[i].whitespace; };
        const auto isNewline = [&](std::size_t i) { return i < end && (units[i].codePoint == '\r' || units[i].codePoint == '\n'); };
        const auto isOther = [&](std::size_t i) { return i < end && !units[i].whitespace && units[i].category != Category::Letter && units[i].category != Category::Number; };

        std::size_t pos = piece.begin;
        while (pos < end) {
            const std::size_t start = pos;
            // (?i:'s|'t|'re|'ve|'m|'ll|'d)
            if (cpAt(pos) == '\'' && pos + 1 < end) {
                const char32_t next = lower(pos + 1);
                if (next == 's' || next == 't' || next == 'm' || next == 'd') {
                    emit(out, start, pos += 2);
                    continue;
                }
                const char32_t nextNext = lower(pos + 2);
                if (pos + 2 < end && ((next == 'r' && nextNext == 'e') || (next == 'v' && nextNext == 'e') || (next == 'l' && nextNext == 'l'))) {
                    emit(out, start, pos += 3);
                    continue;
                }
            }
            // [^\r\n\p{L}\p{N}]?\p{L}+
            const std::size_t letters = !isLetter(pos) && !isNumber(pos) && !isNewline(pos) ? pos + 1 : pos;
            if (isLetter(letters)) {
                pos = letters + 1;
                while (isLetter(pos))
                    ++pos;
                emit(out, start, pos);
                continue;
            }
            // \p{N}{1,maxDigits}
            if (isNumber(pos)) {
                while (isNumber(pos) && pos - start < maxDigits)
                    ++pos;
                emit(out, start, pos);
                continue;
            }
            // ' ?[^\s\p{L}\p{N}]+[\r\n]*'
            const std::size_t symbols = cpAt(pos) == ' ' ? pos + 1 : pos;
            if (isOther(symbols)) {
                pos = symbols + 1;
                while (isOther(pos))
                    ++pos;
                while (isNewline(pos))
                    ++pos;
                emit(out, start, pos);
                continue;
            }
            // \s*[\r\n]+ (the whitespace up to its last line break), \s+(?!\S), \s+
            std::size_t spaces = 0;
            std::size_t afterNewline = 0;
            while (isSpace(pos + spaces)) {
                if (isNewline(pos + spaces))
                    afterNewline = pos + spaces + 1;
                ++spaces;
            }
            if (afterNewline > 0) {
                emit(out, start, pos = afterNewline);
                continue;
            }
            if (spaces > 1 && pos + spaces < end) {
                emit(out, start, pos += spaces - 1); // the last space goes with the next word
                continue;
            }
            pos += spaces > 0 ? spaces : 1; // a lone space before a word, or the rest
            emit(out, start, pos);
        }
    }
    return out;
}

} // namespace

bool ignoresMerges(PreTokenizerKind kind)
{
    return kind == PreTokenizerKind::Llama3;
}

std::optional<PreTokenizerKind> preTokenizerFromName(std::string_view name)
{
    if (name.empty() || name == "default")
        return PreTokenizerKind::Default;
    if (name == "gpt-2" || name == "gpt2" || name == "mpt" || name == "olmo" || name == "jais")
        return PreTokenizerKind::Gpt2;
    if (name == "falcon")
        return PreTokenizerKind::Falcon;
    if (name == "starcoder" || name == "refact" || name == "command-r" || name == "smollm" || name == "codeshell")
        return PreTokenizerKind::StarCoder;
    if (name == "llama-bpe" || name == "llama3" || name == "llama-v3" || name == "falcon3" || name == "pixtral"
        || name == "dbrx" || name == "smaug-bpe")
        return PreTokenizerKind::Llama3;
    if (name == "qwen2" || name == "deepseek-r1-qwen")
        return PreTokenizerKind::Qwen2;
    return std::nullopt;
}

std::vector<std::string_view> preTokenize(std::string_view text, PreTokenizerKind kind)
{
    std::vector<Unit> units;
    units.reserve(text.size());
    for (std::size_t pos = 0; pos < text.size();) {
        const unicode::DecodedChar c = unicode::decodeUtf8(text, pos);
        units.push_back({c.codePoint, std::uint32_t(pos), unicode::category(c.codePoint), unicode::isWhitespace(c.codePoint)});
        pos += c.length;
    }
    if (units.empty())
        return {};

    Pieces pieces{{0, units.size()}};
    const auto punctuation = [](bool withBacktick) {
        return [withBacktick](const Unit& u) { return matchesPunctuationClass(u, withBacktick); };
    };
    switch (kind) {
    case PreTokenizerKind::Default:
        pieces = splitByClass(units, pieces, true, punctuation(false));
        pieces = splitGpt2(units, pieces);
        pieces = splitByClass(units, pieces, true, matchesNumberClass);
        pieces = splitDigitTriples(units, pieces);
        break;
    case PreTokenizerKind::Gpt2:
        pieces = splitGpt2(units, pieces);
        break;
    case PreTokenizerKind::Falcon:
        pieces = splitByClass(units, pieces, true, punctuation(true));
        pieces = splitGpt2(units, pieces);
        pieces = splitDigitTriples(units, pieces);
        break;
    case PreTokenizerKind::StarCoder:
        pieces = splitByClass(units, pieces, false, matchesNumberClass);
        pieces = splitGpt2(units, pieces);
        break;
    case PreTokenizerKind::Llama3:
        pieces = splitLlama3(units, pieces, 3);
        break;
    case PreTokenizerKind::Qwen2:
        pieces = splitLlama3(units, pieces, 1);
        break;
    }

    std::vector<std::string_view> words;
    words.reserve(pieces.size());
    for (const Piece piece : pieces) {
        const std::size_t from = units[piece.begin].byteOffset;
        const std::size_t to = piece.end < units.size() ? units[piece.end].byteOffset : text.size();
        words.push_back(text.substr(from, to - from));
    }
    return words;
}

} // namespace hearth::tokenizer
