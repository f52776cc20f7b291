// SPDX-License-Identifier: MIT
#pragma once

// SentencePiece-style BPE ("llama" vocabularies): spaces become U+2581, a space is prefixed
// to the text, neighbouring pieces merge best-score first, and what no piece covers falls back
// to <0xNN> byte tokens. Matches llama.cpp's tokenization of these vocabularies.

#include "tokenizer/vocab_tokenizer.h"

#include <hearth/status.h>

#include <array>
#include <memory>

namespace hearth::tokenizer {

class SpmTokenizer final : public VocabTokenizer {
public:
    [[nodiscard]] static Result<std::unique_ptr<SpmTokenizer>> create(Vocabulary vocab);

    [[nodiscard]] std::vector<Token> encode(std::string_view text, bool addBos, bool parseSpecial) const override;

private:
    explicit SpmTokenizer(Vocabulary vocab);
    // Tokenizes one stretch of already escaped text (spaces as U+2581), appending to @p out.
    void encodeEscaped(std::string_view text, std::vector<Token>& out) const;
    void appendBytes(std::string_view bytes, std::vector<Token>& out) const;

    // <0xNN> token per byte value, or the single-byte piece, or the unknown token.
    std::array<Token, 256> m_byteTokens{};
};

} // namespace hearth::tokenizer
