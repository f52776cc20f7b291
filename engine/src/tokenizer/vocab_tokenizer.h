// SPDX-License-Identifier: MIT
#pragma once

// What every vocabulary-backed tokenizer answers the same way: special ids, flags, lookups and
// the bytes behind each token (computed once at load, so decoding is a table lookup).

#include "tokenizer/vocabulary.h"

#include <hearth/tokenizer.h>

#include <string>
#include <vector>

namespace hearth::tokenizer {

class VocabTokenizer : public Tokenizer {
public:
    [[nodiscard]] std::string tokenBytes(Token token) const override;
    [[nodiscard]] int vocabSize() const override { return m_vocab.size(); }
    [[nodiscard]] Token bos() const override { return m_vocab.bos(); }
    [[nodiscard]] Token eos() const override { return m_vocab.eos(); }
    [[nodiscard]] bool addsBos() const override { return m_vocab.addBos(); }
    [[nodiscard]] bool isControl(Token token) const override { return m_vocab.isSpecial(token); }
    [[nodiscard]] bool isEndOfGeneration(Token token) const override { return m_vocab.isEndOfGeneration(token); }
    [[nodiscard]] Token findToken(std::string_view text) const override { return m_vocab.find(text); }

    [[nodiscard]] const Vocabulary& vocabulary() const { return m_vocab; }

protected:
    explicit VocabTokenizer(Vocabulary vocab);

    // The BOS/EOS wrapping shared by both kinds: BOS before and EOS after @p body when the
    // caller asks for special tokens and the vocabulary wants them.
    void beginSequence(std::vector<Token>& out, bool addSpecial) const;
    void endSequence(std::vector<Token>& out, bool addSpecial) const;
    // Symbol indices are ints: a text past 2 GiB is tokenized up to there rather than
    // overflowing them (no context window comes anywhere near).
    [[nodiscard]] static std::string_view boundedInput(std::string_view text);

    Vocabulary m_vocab;
    // tokenBytes() for every id; filled by the derived class's factory.
    std::vector<std::string> m_bytes;
};

} // namespace hearth::tokenizer
