// SPDX-License-Identifier: MIT
#include "tokenizer/pre_tokenizer.h"

#include "tokenizer/unicode.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

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

// "[class]+" (maximal runs) or "[class]" (single units) over each piece; with @p spaced,
// "\s?[class]+": each run takes the whitespace unit before it.
template <typename Predicate>
Pieces splitByClass(const std::vector<Unit>& units, const Pieces& pieces, bool runs, Predicate inClass,
                    bool spaced = false)
{
    Pieces out;
    out.reserve(pieces.size() * 2);
    for (const Piece piece : pieces) {
        const auto matches = [&](std::size_t i) { return i < piece.end && inClass(units[i]); };
        std::size_t last = piece.begin; // end of the previous match
        std::size_t pos = piece.begin;
        while (pos < piece.end) {
            const std::size_t body = spaced && units[pos].whitespace && matches(pos + 1) ? pos + 1 : pos;
            if (!matches(body)) {
                ++pos;
                continue;
            }
            std::size_t end = body + 1;
            while (runs && matches(end))
                ++end;
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

struct CodePointRange {
    char32_t first;
    char32_t last;
};

template <std::size_t N>
bool inRanges(char32_t cp, const CodePointRange (&ranges)[N])
{
    for (const CodePointRange& r : ranges) {
        if (cp >= r.first && cp <= r.last)
            return true;
    }
    return false;
}

// DeepSeek LLM's explicit classes (its tokenizer.json's patterns). llama.cpp matches them
// against text whose non-ASCII whitespace it has replaced by U+000B, so whitespace is never in
// them, and so it is here.
constexpr CodePointRange kDeepSeekLetters[] = {
    // clang-format off
    {0x41, 0x5A}, {0x61, 0x7A}, {0xB5, 0xB5}, {0xC0, 0xD6}, {0xD8, 0xF6}, {0xF8, 0x1BA},
    {0x1BC, 0x1BF}, {0x1C4, 0x293}, {0x295, 0x2AF}, {0x370, 0x373}, {0x376, 0x376}, {0x377, 0x377},
    {0x37B, 0x37D}, {0x37F, 0x37F}, {0x386, 0x386}, {0x388, 0x38A}, {0x38C, 0x38C}, {0x38E, 0x3A1},
    {0x3A3, 0x3F5}, {0x3F7, 0x481}, {0x48A, 0x52F}, {0x531, 0x556}, {0x10A0, 0x10C5}, {0x13A0, 0x13F5},
    {0x13F8, 0x13FD}, {0x1C90, 0x1CBA}, {0x1CBD, 0x1CBF}, {0x1D00, 0x1D2B}, {0x1D6B, 0x1D77}, {0x1D79, 0x1D9A},
    {0x1E00, 0x1F15}, {0x1F18, 0x1F1D}, {0x1F20, 0x1F45}, {0x1F48, 0x1F4D}, {0x1F50, 0x1F57}, {0x1F59, 0x1F59},
    {0x1F5B, 0x1F5B}, {0x1F5D, 0x1F5D}, {0x1F5F, 0x1F7D}, {0x1F80, 0x1FB4}, {0x1FB6, 0x1FBC}, {0x1FBE, 0x1FBE},
    {0x1FC2, 0x1FC4}, {0x1FC6, 0x1FCC}, {0x1FD0, 0x1FD3}, {0x1FD6, 0x1FDB}, {0x1FE0, 0x1FEC}, {0x1FF2, 0x1FF4},
    {0x1FF6, 0x1FFC}, {0x2102, 0x2102}, {0x2107, 0x2107}, {0x210A, 0x2113}, {0x2115, 0x2115}, {0x2119, 0x211D},
    {0x2124, 0x2124}, {0x2126, 0x2126}, {0x2128, 0x2128}, {0x212A, 0x212D}, {0x212F, 0x2134}, {0x2139, 0x2139},
    {0x213C, 0x213F}, {0x2145, 0x2149}, {0x214E, 0x214E}, {0x2183, 0x2183}, {0x2184, 0x2184}, {0x2C00, 0x2C7B},
    {0x2C7E, 0x2CE4}, {0x2CEB, 0x2CEE}, {0x2CF2, 0x2CF2}, {0x2CF3, 0x2CF3}, {0xA640, 0xA66D}, {0xA680, 0xA69B},
    {0xA722, 0xA76F}, {0xA771, 0xA787}, {0xA78B, 0xA78E}, {0xAB70, 0xABBF}, {0xFB00, 0xFB06}, {0xFB13, 0xFB17},
    {0xFF21, 0xFF3A}, {0xFF41, 0xFF5A}, {0x10400, 0x1044F}, {0x104B0, 0x104D3}, {0x104D8, 0x104FB}, {0x10C80, 0x10CB2},
    {0x10CC0, 0x10CF2}, {0x118A0, 0x118DF}, {0x1E900, 0x1E943},
    // clang-format on
};
// [!-/:-~！-／：-～‘-‟　-。]
constexpr CodePointRange kDeepSeekSymbols[] = {
    {0x21, 0x2F}, {0x3A, 0x7E}, {0x2018, 0x201F}, {0x3000, 0x3002}, {0xFF01, 0xFF0F}, {0xFF1A, 0xFF5E},
};
// [一-龥ࠀ-一가-퟿]: CJK ideographs, most scripts from U+0800, Hangul.
constexpr CodePointRange kDeepSeekCjk[] = {{0x0800, 0x9FA5}, {0xAC00, 0xD7FF}};

bool isNewlineUnit(const Unit& u)
{
    return u.codePoint == '\r' || u.codePoint == '\n';
}

// \p{P} as llama.cpp has it: on ASCII only !"#%&'()*,-./:;?@[\]_{} (the symbols $+<=>^`|~ are
// \p{S}).
bool matchesStrictPunctuation(const Unit& u)
{
    if (u.codePoint < 0x80)
        return isAsciiPunctuationOrSymbol(u.codePoint, true) && std::u32string_view(U"$+<=>^`|~").find(u.codePoint) == std::u32string_view::npos;
    return !u.whitespace && u.category == Category::Punctuation;
}

// "\s+$": the whitespace that ends each piece.
Pieces splitTrailingWhitespace(const std::vector<Unit>& units, const Pieces& pieces)
{
    Pieces out;
    out.reserve(pieces.size() * 2);
    for (const Piece piece : pieces) {
        std::size_t tail = piece.end;
        while (tail > piece.begin && units[tail - 1].whitespace)
            --tail;
        emit(out, piece.begin, tail);
        emit(out, tail, piece.end);
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

// What Llama 3's pattern and its relatives change in it.
struct Llama3Flavour {
    std::size_t maxDigits = 3; // \p{N}{1,maxDigits}
    bool contractions = true;  // (?i:'s|'t|'re|'ve|'m|'ll|'d) first
    // Tekken: a word is a run of capitals then lower-case letters, as llama.cpp has the pattern
    // (ASCII case only: any other letter counts as either):
    // [^\r\n\p{L}\p{N}]?((?=\p{L})[^a-z])*((?=\p{L})[^A-Z])+ | [^\r\n\p{L}\p{N}]?((?=\p{L})[^a-z])+((?=\p{L})[^A-Z])*
    bool caseWords = false;
    bool slashTail = false; // ' ?[^\s\p{L}\p{N}]+[\r\n/]*' rather than [\r\n]*
    // GPT-4o: a contraction belongs to the word before it rather than starting a piece:
    // word(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])? (with caseWords, contractions off)
    bool contractionSuffix = false;
};

// (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
// (Llama 3; Qwen 2 takes one digit at a time, Tekken see Llama3Flavour). As splitGpt2: the
// alternatives in order at each position, as a backtracking engine tries them.
Pieces splitLlama3(const std::vector<Unit>& units, const Pieces& pieces, const Llama3Flavour& flavour)
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
        const auto isCapital = [&](std::size_t i) { return isLetter(i) && !(cpAt(i) >= 'a' && cpAt(i) <= 'z'); };
        const auto isSmall = [&](std::size_t i) { return isLetter(i) && !(cpAt(i) >= 'A' && cpAt(i) <= 'Z'); };
        const auto isNumber = [&](std::size_t i) { return i < end && units[i].category == Category::Number; };
        const auto isSpace = [&](std::size_t i) { return i < end && units[i].whitespace; };
        const auto isNewline = [&](std::size_t i) { return i < end && (units[i].codePoint == '\r' || units[i].codePoint == '\n'); };
        const auto isOther = [&](std::size_t i) { return i < end && !units[i].whitespace && units[i].category != Category::Letter && units[i].category != Category::Number; };
        const auto runOf = [&](std::size_t i, auto&& inClass) {
            while (inClass(i))
                ++i;
            return i;
        };
        // Where a Tekken word from @p first ends, or @p first when none starts there.
        const auto caseWordEnd = [&](std::size_t first) {
            // Capitals, then at least one small letter: the longest run of capitals that a
            // small letter follows (non-ASCII letters are both, so the engine gives one back).
            const std::size_t capitals = runOf(first, isCapital);
            for (std::size_t k = capitals + 1; k-- > first;) {
                if (isSmall(k))
                    return runOf(k, isSmall);
            }
            // Else capitals, then any small letters.
            return capitals > first ? runOf(capitals, isSmall) : first;
        };

        // Where (?i:'s|'t|'re|'ve|'m|'ll|'d) from @p i ends, or @p i when none starts there.
        const auto contractionEnd = [&](std::size_t i) {
            if (cpAt(i) != '\'' || i + 1 >= end)
                return i;
            const char32_t next = lower(i + 1);
            if (next == 's' || next == 't' || next == 'm' || next == 'd')
                return i + 2;
            const char32_t nextNext = lower(i + 2);
            if (i + 2 < end && ((next == 'r' && nextNext == 'e') || (next == 'v' && nextNext == 'e') || (next == 'l' && nextNext == 'l')))
                return i + 3;
            return i;
        };

        std::size_t pos = piece.begin;
        while (pos < end) {
            const std::size_t start = pos;
            if (flavour.contractions) {
                if (const std::size_t contraction = contractionEnd(pos); contraction > pos) {
                    emit(out, start, pos = contraction);
                    continue;
                }
            }
            // [^\r\n\p{L}\p{N}]?\p{L}+
            const std::size_t letters = !isLetter(pos) && !isNumber(pos) && !isNewline(pos) ? pos + 1 : pos;
            if (flavour.caseWords) {
                if (const std::size_t wordEnd = caseWordEnd(letters); wordEnd > letters) {
                    emit(out, start, pos = flavour.contractionSuffix ? contractionEnd(wordEnd) : wordEnd);
                    continue;
                }
            } else if (isLetter(letters)) {
                emit(out, start, pos = runOf(letters, isLetter));
                continue;
            }
            // \p{N}{1,maxDigits}
            if (isNumber(pos)) {
                while (isNumber(pos) && pos - start < flavour.maxDigits)
                    ++pos;
                emit(out, start, pos);
                continue;
            }
            // ' ?[^\s\p{L}\p{N}]+[\r\n]*' ([\r\n/]* for Tekken)
            const std::size_t symbols = cpAt(pos) == ' ' ? pos + 1 : pos;
            if (isOther(symbols)) {
                pos = symbols + 1;
                while (isOther(pos))
                    ++pos;
                while (isNewline(pos) || (flavour.slashTail && cpAt(pos) == '/'))
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
    if (name == "deepseek-llm")
        return PreTokenizerKind::DeepSeekLlm;
    if (name == "deepseek-coder")
        return PreTokenizerKind::DeepSeekCoder;
    if (name == "tekken")
        return PreTokenizerKind::Tekken;
    if (name == "gpt-4o")
        return PreTokenizerKind::Gpt4o;
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
        pieces = splitLlama3(units, pieces, {});
        break;
    case PreTokenizerKind::Qwen2:
        pieces = splitLlama3(units, pieces, {.maxDigits = 1});
        break;
    case PreTokenizerKind::Tekken:
        pieces = splitLlama3(units, pieces, {.maxDigits = 1, .contractions = false, .caseWords = true, .slashTail = true});
        break;
    case PreTokenizerKind::Gpt4o:
        pieces = splitLlama3(units, pieces,
                             {.contractions = false, .caseWords = true, .slashTail = true, .contractionSuffix = true});
        break;
    case PreTokenizerKind::DeepSeekLlm:
        pieces = splitByClass(units, pieces, false, isNewlineUnit);
        pieces = splitByClass(units, pieces, true, [](const Unit& u) { return !u.whitespace && inRanges(u.codePoint, kDeepSeekLetters); }, true);
        pieces = splitByClass(units, pieces, true, [](const Unit& u) { return !u.whitespace && inRanges(u.codePoint, kDeepSeekSymbols); }, true);
        pieces = splitTrailingWhitespace(units, pieces);
        pieces = splitByClass(units, pieces, true, [](const Unit& u) { return !u.whitespace && inRanges(u.codePoint, kDeepSeekCjk); });
        pieces = splitByClass(units, pieces, true, matchesNumberClass);
        break;
    case PreTokenizerKind::DeepSeekCoder:
        pieces = splitByClass(units, pieces, false, isNewlineUnit);
        pieces = splitByClass(units, pieces, true, [](const Unit& u) { return !u.whitespace && u.category == Category::Letter; }, true);
        pieces = splitByClass(units, pieces, true, matchesStrictPunctuation, true);
        pieces = splitByClass(units, pieces, true, [](const Unit& u) { return !u.whitespace && inRanges(u.codePoint, kDeepSeekCjk); });
        pieces = splitByClass(units, pieces, false, matchesNumberClass);
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
