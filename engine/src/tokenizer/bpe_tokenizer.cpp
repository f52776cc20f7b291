// SPDX-License-Identifier: MIT
#include "tokenizer/bpe_tokenizer.h"

#include "gguf/gguf_file.h"
#include "tokenizer/unicode.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>

namespace hearth::tokenizer {

namespace {

constexpr std::string_view kMergesKey = "tokenizer.ggml.merges";

// Byte-level text (GPT-2 code points) back to the bytes it stands for. Code points outside the
// mapping are kept as they are.
std::string decodeByteLevel(std::string_view text)
{
    std::string out;
    out.reserve(text.size());
    for (std::size_t pos = 0; pos < text.size();) {
        const unicode::DecodedChar c = unicode::decodeUtf8(text, pos);
        const int byte = c.valid ? unicode::codePointToByte(c.codePoint) : -1;
        if (byte >= 0)
            out += char(byte);
        else
            out.append(text.substr(pos, c.length));
        pos += c.length;
    }
    return out;
}

std::uint64_t pairKey(std::int32_t left, std::int32_t right)
{
    return (std::uint64_t(std::uint32_t(left)) << 32) | std::uint32_t(right);
}

struct Symbol {
    int prev;
    int next;
    std::uint32_t begin;  // byte offset in the word
    std::uint32_t length; // bytes; 0 once merged into its left neighbour
    std::int32_t piece;
};

struct Bigram {
    std::int32_t rank;
    int left;
    int right;
    std::int32_t leftPiece;
    std::int32_t rightPiece;
    std::int32_t result;
};

// Heap order: lowest rank first, then leftmost.
bool lowerPriority(const Bigram& a, const Bigram& b)
{
    return a.rank > b.rank || (a.rank == b.rank && a.left > b.left);
}

} // namespace

// Buffers reused across the words of one encode() call.
struct BpeTokenizer::Scratch {
    std::vector<Symbol> symbols;
    std::vector<Bigram> queue;
    std::string mapped; // a word in the byte-level alphabet (ignoresMerges())
};

BpeTokenizer::BpeTokenizer(Vocabulary vocab, PreTokenizerKind preTokenizer)
    : VocabTokenizer(std::move(vocab))
    , m_preTokenizer(preTokenizer)
{
}

Result<std::unique_ptr<BpeTokenizer>> BpeTokenizer::create(Vocabulary vocab, const gguf::GgufFile& file)
{
    const std::optional<PreTokenizerKind> pre = preTokenizerFromName(vocab.preTokenizer());
    if (!pre)
        return Status::error(ErrorCode::Unsupported, "pre-tokenizer '" + vocab.preTokenizer() + "' is not supported");

    const gguf::ArrayValue* merges = file.getArray(kMergesKey);
    if (!merges || merges->elementType != gguf::ValueType::String)
        return Status::error(ErrorCode::InvalidFile, "byte-level BPE needs '" + std::string(kMergesKey) + "' (an array of strings)");
    if (merges->strings.size() > std::size_t(std::numeric_limits<std::int32_t>::max()))
        return Status::error(ErrorCode::InvalidFile, "too many merges");

    std::unique_ptr<BpeTokenizer> tok(new BpeTokenizer(std::move(vocab), *pre));
    const Vocabulary& v = tok->m_vocab;

    tok->m_bytes.resize(std::size_t(v.size()));
    for (Token id = 0; id < v.size(); ++id) {
        switch (v.type(id)) {
        case TokenType::Normal:
        case TokenType::Undefined:
        case TokenType::Byte:
            tok->m_bytes[std::size_t(id)] = decodeByteLevel(v.text(id));
            break;
        case TokenType::Unused:
            break;
        case TokenType::Control:
        case TokenType::Unknown:
        case TokenType::UserDefined:
            // Stored as plain text, not in the byte-level alphabet.
            tok->m_bytes[std::size_t(id)] = v.text(id);
            break;
        }
    }

    // Texts outside the vocabulary get piece ids past its end; only needed while loading.
    std::unordered_map<std::string, std::int32_t> extraPieces;
    const auto pieceOf = [&](const std::string& text) -> std::int32_t {
        const Token t = v.find(text);
        if (t != InvalidToken)
            return t;
        return extraPieces.try_emplace(text, std::int32_t(v.size() + int(extraPieces.size()))).first->second;
    };

    for (int b = 0; b < 256; ++b) {
        std::string text;
        unicode::appendUtf8(text, unicode::byteToCodePoint(std::uint8_t(b)));
        tok->m_bytePieces[std::size_t(b)] = pieceOf(text);
    }

    tok->m_merges.reserve(merges->strings.size());
    for (std::size_t rank = 0; rank < merges->strings.size(); ++rank) {
        const std::string& merge = merges->strings[rank];
        // The separator is the first space after the first character, so a left part that is
        // itself a space-like piece still splits correctly.
        const std::size_t space = merge.find(' ', 1);
        if (space == std::string::npos || space + 1 >= merge.size())
            return Status::error(ErrorCode::InvalidFile, "merge " + std::to_string(rank) + " is not of the form 'left right'");
        const std::string left = merge.substr(0, space);
        const std::string right = merge.substr(space + 1);
        const std::int32_t l = pieceOf(left);
        const std::int32_t r = pieceOf(right);
        const std::int32_t result = pieceOf(left + right);
        if (extraPieces.size() > std::size_t(std::numeric_limits<std::int32_t>::max() - v.size()))
            return Status::error(ErrorCode::InvalidFile, "too many merges outside the vocabulary");
        // The first (best-ranked) occurrence of a pair wins.
        tok->m_merges.try_emplace(pairKey(l, r), Merge{std::int32_t(rank), result});
    }
    return tok;
}

std::vector<Token> BpeTokenizer::encode(std::string_view text, bool addBos, bool parseSpecial) const
{
    text = boundedInput(text);
    std::vector<Token> out;
    out.reserve(text.size() / 3 + 2);
    beginSequence(out, addBos);

    Scratch scratch;
    for (const Fragment& fragment : m_vocab.splitSpecial(text, parseSpecial)) {
        if (fragment.token != InvalidToken) {
            out.push_back(fragment.token);
            continue;
        }
        for (const std::string_view word : preTokenize(fragment.text, m_preTokenizer)) {
            if (ignoresMerges(m_preTokenizer)) {
                // A word that is a token is that token, whatever the merges would make of it.
                std::string& mapped = scratch.mapped;
                mapped.clear();
                for (const char byte : word)
                    unicode::appendUtf8(mapped, unicode::byteToCodePoint(static_cast<std::uint8_t>(byte)));
                if (const Token whole = m_vocab.find(mapped); whole != InvalidToken && m_vocab.type(whole) == TokenType::Normal) {
                    out.push_back(whole);
                    continue;
                }
            }
            encodeWord(word, scratch, out);
        }
    }

    endSequence(out, addBos);
    return out;
}

void BpeTokenizer::encodeWord(std::string_view word, Scratch& scratch, std::vector<Token>& out) const
{
    std::vector<Symbol>& symbols = scratch.symbols;
    std::vector<Bigram>& queue = scratch.queue;
    symbols.clear();
    queue.clear();

    const int n = int(word.size());
    for (int i = 0; i < n; ++i) {
        const auto byte = static_cast<unsigned char>(word[std::size_t(i)]);
        symbols.push_back({i - 1, i + 1 == n ? -1 : i + 1, std::uint32_t(i), 1, m_bytePieces[byte]});
    }

    const auto addBigram = [&](int left, int right) {
        if (left < 0 || right < 0)
            return;
        const std::int32_t l = symbols[std::size_t(left)].piece;
        const std::int32_t r = symbols[std::size_t(right)].piece;
        const auto it = m_merges.find(pairKey(l, r));
        if (it == m_merges.end())
            return;
        queue.push_back({it->second.rank, left, right, l, r, it->second.result});
        std::push_heap(queue.begin(), queue.end(), lowerPriority);
    };

    for (int i = 1; i < n; ++i)
        addBigram(i - 1, i);

    while (!queue.empty()) {
        std::pop_heap(queue.begin(), queue.end(), lowerPriority);
        const Bigram bigram = queue.back();
        queue.pop_back();

        Symbol& left = symbols[std::size_t(bigram.left)];
        Symbol& right = symbols[std::size_t(bigram.right)];
        // A symbol only changes by absorbing its right neighbour, so equal pieces on both
        // live sides mean the pair is still exactly what was queued.
        if (left.length == 0 || right.length == 0 || left.piece != bigram.leftPiece || right.piece != bigram.rightPiece)
            continue;

        left.length += right.length;
        left.piece = bigram.result;
        right.length = 0;
        left.next = right.next;
        if (right.next >= 0)
            symbols[std::size_t(right.next)].prev = bigram.left;

        addBigram(left.prev, bigram.left);
        addBigram(bigram.left, left.next);
    }

    const Token unknown = m_vocab.unknown();
    for (int i = 0; i != -1 && i < n; i = symbols[std::size_t(i)].next) {
        const Symbol& s = symbols[std::size_t(i)];
        if (s.piece < m_vocab.size()) {
            out.push_back(s.piece);
            continue;
        }
        // A merge produced text the vocabulary lacks: fall back to the symbol's single bytes.
        for (std::uint32_t b = s.begin; b < s.begin + s.length; ++b) {
            const std::int32_t piece = m_bytePieces[static_cast<unsigned char>(word[b])];
            if (piece < m_vocab.size())
                out.push_back(piece);
            else if (unknown != InvalidToken)
                out.push_back(unknown);
        }
    }
}

} // namespace hearth::tokenizer
