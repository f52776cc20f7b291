// SPDX-License-Identifier: MIT
#include "tokenizer/spm_tokenizer.h"

#include "tokenizer/unicode.h"

#include <algorithm>
#include <cstdint>

namespace hearth::tokenizer {

namespace {

constexpr std::string_view kSpaceMarker = "\xE2\x96\x81"; // U+2581 LOWER ONE EIGHTH BLOCK

int hexDigit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

// The byte of a "<0xNN>" token text, or -1.
int parseByteToken(std::string_view text)
{
    if (text.size() != 6 || text.substr(0, 3) != "<0x" || text[5] != '>')
        return -1;
    const int hi = hexDigit(text[3]);
    const int lo = hexDigit(text[4]);
    return hi < 0 || lo < 0 ? -1 : hi * 16 + lo;
}

std::string unescapeSpaces(std::string_view text)
{
    std::string out;
    out.reserve(text.size());
    for (std::size_t pos = 0; pos < text.size();) {
        if (text.substr(pos, kSpaceMarker.size()) == kSpaceMarker) {
            out += ' ';
            pos += kSpaceMarker.size();
        } else {
            out += text[pos++];
        }
    }
    return out;
}

// A piece of the text being merged; pieces form a linked list in text order.
struct Symbol {
    int prev;
    int next;
    std::size_t begin; // in the escaped text, which may be 3x the input
    std::size_t length; // 0 once merged into its left neighbour
};

struct Bigram {
    float score;
    int left;
    int right;
    std::size_t length; // of the merged text; a stale entry no longer matches
};

// Heap order: highest score first, then leftmost.
bool lowerPriority(const Bigram& a, const Bigram& b)
{
    return a.score < b.score || (a.score == b.score && a.left > b.left);
}

} // namespace

SpmTokenizer::SpmTokenizer(Vocabulary vocab)
    : VocabTokenizer(std::move(vocab))
{
}

Result<std::unique_ptr<SpmTokenizer>> SpmTokenizer::create(Vocabulary vocab)
{
    std::unique_ptr<SpmTokenizer> tok(new SpmTokenizer(std::move(vocab)));
    const Vocabulary& v = tok->m_vocab;

    tok->m_byteTokens.fill(InvalidToken);
    tok->m_bytes.resize(std::size_t(v.size()));
    for (Token id = 0; id < v.size(); ++id) {
        const std::string& text = v.text(id);
        std::string& bytes = tok->m_bytes[std::size_t(id)];
        switch (v.type(id)) {
        case TokenType::Byte: {
            const int byte = parseByteToken(text);
            if (byte < 0)
                return Status::error(ErrorCode::InvalidFile, "byte token " + std::to_string(id) + " is not of the form <0xNN>");
            bytes.assign(1, char(byte));
            if (tok->m_byteTokens[std::size_t(byte)] == InvalidToken)
                tok->m_byteTokens[std::size_t(byte)] = id;
            break;
        }
        case TokenType::Normal:
        case TokenType::Undefined:
            bytes = unescapeSpaces(text);
            break;
        case TokenType::Unused:
            break;
        case TokenType::Control:
        case TokenType::Unknown:
        case TokenType::UserDefined:
            bytes = text;
            break;
        }
    }
    // Vocabularies without byte tokens: a single-byte piece, else <unk>.
    for (int b = 0; b < 256; ++b) {
        Token& t = tok->m_byteTokens[std::size_t(b)];
        if (t == InvalidToken) {
            const char c = char(b);
            t = v.find(std::string_view(&c, 1));
            if (t == InvalidToken)
                t = v.unknown();
        }
    }
    return tok;
}

std::vector<Token> SpmTokenizer::encode(std::string_view text, bool addBos, bool parseSpecial) const
{
    text = boundedInput(text);
    std::vector<Token> out;
    out.reserve(text.size() / 3 + 2);
    beginSequence(out, addBos);

    std::string escaped;
    bool afterSpecial = true; // the start of the text counts as following a special token
    for (const Fragment& fragment : m_vocab.splitSpecial(text, parseSpecial)) {
        if (fragment.token != InvalidToken) {
            out.push_back(fragment.token);
            afterSpecial = true;
            continue;
        }
        escaped.clear();
        if (m_vocab.addSpacePrefix() && afterSpecial)
            escaped += kSpaceMarker;
        for (const char c : fragment.text) {
            if (c == ' ')
                escaped += kSpaceMarker;
            else
                escaped += c;
        }
        encodeEscaped(escaped, out);
        afterSpecial = false;
    }

    endSequence(out, addBos);
    return out;
}

void SpmTokenizer::appendBytes(std::string_view bytes, std::vector<Token>& out) const
{
    for (const char c : bytes) {
        const Token t = m_byteTokens[static_cast<unsigned char>(c)];
        if (t != InvalidToken)
            out.push_back(t);
    }
}

void SpmTokenizer::encodeEscaped(std::string_view text, std::vector<Token>& out) const
{
    if (text.empty())
        return;

    // One symbol per character; an invalid byte is a character of its own.
    std::vector<Symbol> symbols;
    symbols.reserve(text.size());
    for (std::size_t pos = 0; pos < text.size();) {
        const std::size_t length = unicode::decodeUtf8(text, pos).length;
        const int index = int(symbols.size());
        symbols.push_back({index - 1, pos + length == text.size() ? -1 : index + 1, pos, length});
        pos += length;
    }

    std::vector<Bigram> queue;
    queue.reserve(symbols.size());
    const auto tryAddBigram = [&](int left, int right) {
        if (left < 0 || right < 0)
            return;
        const std::size_t length = symbols[std::size_t(left)].length + symbols[std::size_t(right)].length;
        const Token t = m_vocab.find(text.substr(symbols[std::size_t(left)].begin, length));
        if (t == InvalidToken)
            return;
        queue.push_back({m_vocab.score(t), left, right, length});
        std::push_heap(queue.begin(), queue.end(), lowerPriority);
    };

    for (int i = 1; i < int(symbols.size()); ++i)
        tryAddBigram(i - 1, i);

    while (!queue.empty()) {
        std::pop_heap(queue.begin(), queue.end(), lowerPriority);
        const Bigram bigram = queue.back();
        queue.pop_back();

        Symbol& left = symbols[std::size_t(bigram.left)];
        Symbol& right = symbols[std::size_t(bigram.right)];
        // One side was merged since this pair was queued.
        if (left.length == 0 || right.length == 0 || left.length + right.length != bigram.length)
            continue;

        left.length += right.length;
        right.length = 0;
        left.next = right.next;
        if (right.next >= 0)
            symbols[std::size_t(right.next)].prev = bigram.left;

        tryAddBigram(left.prev, bigram.left);
        tryAddBigram(bigram.left, left.next);
    }

    for (int i = 0; i != -1; i = symbols[std::size_t(i)].next) {
        const Symbol& s = symbols[std::size_t(i)];
        const std::string_view piece = text.substr(s.begin, s.length);
        const Token t = m_vocab.find(piece);
        if (t != InvalidToken)
            out.push_back(t);
        else
            appendBytes(piece, out);
    }
}

} // namespace hearth::tokenizer
