// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// Text <-> token ids, built from a model file's own vocabulary metadata.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace hearth {

using Token = std::int32_t;
constexpr Token InvalidToken = -1;

class Tokenizer {
public:
    virtual ~Tokenizer() = default;

    /// Splits @p text into tokens. With @p addBos the model's BOS token is prepended when the
    /// model wants one. With @p parseSpecial, special-token texts such as "<|im_start|>" in the
    /// text become their single ids; otherwise they are tokenized as plain text.
    [[nodiscard]] virtual std::vector<Token> encode(std::string_view text, bool addBos, bool parseSpecial) const = 0;

    /// The bytes a token stands for (after byte fallback/byte-level decoding). May be an
    /// incomplete UTF-8 sequence: use Utf8StreamDecoder when streaming to people.
    [[nodiscard]] virtual std::string tokenBytes(Token token) const = 0;

    /// Concatenated bytes of @p tokens; special/control tokens are skipped unless @p renderSpecial.
    [[nodiscard]] std::string decode(std::span<const Token> tokens, bool renderSpecial = false) const;

    [[nodiscard]] virtual int vocabSize() const = 0;
    [[nodiscard]] virtual Token bos() const = 0;                 ///< InvalidToken if none
    [[nodiscard]] virtual Token eos() const = 0;                 ///< InvalidToken if none
    [[nodiscard]] virtual bool addsBos() const = 0;              ///< the model expects BOS first
    [[nodiscard]] virtual bool isControl(Token token) const = 0; ///< special token (BOS, EOS, <|im_end|>...)
    /// True for tokens that end a turn (EOS, EOT, <|im_end|>, <|endoftext|>...).
    [[nodiscard]] virtual bool isEndOfGeneration(Token token) const = 0;
    /// The id of a special token by its text, or InvalidToken.
    [[nodiscard]] virtual Token findToken(std::string_view text) const = 0;
};

/// Turns a stream of tokens into text that never contains half a UTF-8 character: bytes of an
/// incomplete multi-byte sequence are held back until the sequence completes.
class Utf8StreamDecoder {
public:
    explicit Utf8StreamDecoder(const Tokenizer& tokenizer, bool renderSpecial = false);

    /// Appends @p token; returns the text that became complete (possibly empty).
    [[nodiscard]] std::string push(Token token);
    /// Returns whatever is still held back, with invalid bytes replaced by U+FFFD.
    [[nodiscard]] std::string flush();

private:
    const Tokenizer& m_tokenizer;
    bool m_renderSpecial;
    std::string m_pending;
};

} // namespace hearth
