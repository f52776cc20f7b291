// SPDX-License-Identifier: MIT
#pragma once

// Byte-level BPE ("gpt2" vocabularies: GPT-2, Falcon, MPT/GPT-NeoX, ...): the text is cut into
// words by the pre-tokenizer, each word's bytes become GPT-2's printable code points, and
// neighbouring pieces merge by rank until no listed merge applies.

#include "tokenizer/pre_tokenizer.h"
#include "tokenizer/vocab_tokenizer.h"

#include <hearth/status.h>

#include <array>
#include <cstdint>
#include <memory>
#include <unordered_map>

namespace hearth::gguf {
class GgufFile;
}

namespace hearth::tokenizer {

class BpeTokenizer final : public VocabTokenizer {
public:
    // Reads `tokenizer.ggml.merges` from @p file.
    [[nodiscard]] static Result<std::unique_ptr<BpeTokenizer>> create(Vocabulary vocab, const gguf::GgufFile& file);

    [[nodiscard]] std::vector<Token> encode(std::string_view text, bool addBos, bool parseSpecial) const override;

    [[nodiscard]] PreTokenizerKind preTokenizer() const { return m_preTokenizer; }

private:
    struct Merge {
        std::int32_t rank;
        std::int32_t result; // piece id of the merged text
    };
    struct Scratch;

    explicit BpeTokenizer(Vocabulary vocab, PreTokenizerKind preTokenizer);
    void encodeWord(std::string_view word, Scratch& scratch, std::vector<Token>& out) const;

    PreTokenizerKind m_preTokenizer;
    // Pieces are vocabulary ids, then ids >= vocabSize() for texts that merges produce or
    // consume but the vocabulary lacks (they can still take part in later merges).
    std::array<std::int32_t, 256> m_bytePieces{};
    // (left piece << 32 | right piece) -> merge.
    std::unordered_map<std::uint64_t, Merge> m_merges;
};

} // namespace hearth::tokenizer
