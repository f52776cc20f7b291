// SPDX-License-Identifier: MIT
#include "synth/synthetic_vocab.h"

#include <cassert>
#include <cstdint>
#include <cstdio>
#include <string_view>
#include <unordered_set>

namespace hearth::synth {

namespace {

constexpr std::string_view kSpace = "\xE2\x96\x81"; // U+2581, SentencePiece's word-start marker

// Adds pieces in a fixed order until the vocabulary is full. Earlier pieces get higher scores,
// as SentencePiece's do for more frequent pieces.
class PieceList {
public:
    PieceList(SyntheticVocab& vocab, int size)
        : m_vocab(vocab)
        , m_size(size)
    {
    }

    [[nodiscard]] bool full() const { return static_cast<int>(m_vocab.tokens.size()) >= m_size; }

    void add(std::string piece)
    {
        if (full() || !m_seen.insert(piece).second)
            return;
        m_vocab.scores.push_back(-static_cast<float>(m_nextRank++));
        m_vocab.types.push_back(static_cast<std::int32_t>(TokenType::Normal));
        m_vocab.tokens.push_back(std::move(piece));
    }

private:
    SyntheticVocab& m_vocab;
    int m_size;
    int m_nextRank = 0;
    std::unordered_set<std::string> m_seen;
};

} // namespace

SyntheticVocab SyntheticVocab::build(int size)
{
    assert(size >= kMinimumSize);
    SyntheticVocab vocab;
    vocab.tokens.reserve(static_cast<std::size_t>(size));

    auto addSpecial = [&](std::string text, TokenType type) {
        vocab.tokens.push_back(std::move(text));
        vocab.scores.push_back(0.0f);
        vocab.types.push_back(static_cast<std::int32_t>(type));
    };
    addSpecial("<unk>", TokenType::Unknown);
    addSpecial("<s>", TokenType::Control);
    addSpecial("</s>", TokenType::Control);
    for (int b = 0; b < 256; ++b) {
        char name[8];
        std::snprintf(name, sizeof name, "<0x%02X>", b);
        addSpecial(name, TokenType::Byte);
    }

    PieceList pieces(vocab, size);
    const std::string lower = "etaoinshrdlcumwfgypbvkjxqz"; // English letter frequency order
    std::string upper;
    for (char c : lower)
        upper += static_cast<char>(c - 'a' + 'A');
    const std::string digits = "0123456789";
    const std::string punctuation = ".,'\"!?;:-()[]{}<>/\\|@#$%^&*_+=~`";

    pieces.add(std::string(kSpace));
    for (char c : lower)
        pieces.add(std::string(1, c));
    for (char c : lower)
        pieces.add(std::string(kSpace) + c);
    for (char c : upper)
        pieces.add(std::string(1, c));
    for (char c : digits)
        pieces.add(std::string(1, c));
    for (char c : punctuation)
        pieces.add(std::string(1, c));
    for (char c : upper)
        pieces.add(std::string(kSpace) + c);

    // Lowercase n-grams, each reachable by merging its (n-1)-prefix with a last letter, with and
    // without the word-start marker, shortest first, until the vocabulary is full.
    std::vector<std::string> previous(1, std::string());
    while (!pieces.full()) {
        std::vector<std::string> current;
        current.reserve(previous.size() * lower.size());
        for (const auto& prefix : previous) {
            for (char c : lower)
                current.push_back(prefix + c);
        }
        for (const auto& gram : current) {
            if (gram.size() >= 2)
                pieces.add(gram);
            if (pieces.full())
                break;
            if (gram.size() >= 2)
                pieces.add(std::string(kSpace) + gram);
        }
        previous = std::move(current);
    }
    return vocab;
}

} // namespace hearth::synth
