// SPDX-License-Identifier: MIT
#pragma once

// A model's vocabulary as stored under `tokenizer.ggml.*`: token texts, types and scores, the
// special ids and flags. Loading validates everything; both tokenizer kinds share it.

#include <hearth/status.h>
#include <hearth/tokenizer.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace hearth::gguf {
class GgufFile;
}

namespace hearth::tokenizer {

// Values of `tokenizer.ggml.token_type` (SentencePiece's piece types).
enum class TokenType : std::uint8_t {
    Undefined = 0,
    Normal = 1,
    Unknown = 2,
    Control = 3,
    UserDefined = 4,
    Unused = 5,
    Byte = 6,
};

enum class VocabKind {
    SentencePiece, // "llama"
    ByteLevelBpe,  // "gpt2"
};

// A stretch of input: plain text to tokenize, or one special token found in the text.
struct Fragment {
    Token token = InvalidToken; // InvalidToken for plain text
    std::string_view text;
};

class Vocabulary {
public:
    // Reads and checks `tokenizer.ggml.*`. Errors: InvalidFile for missing or inconsistent
    // metadata, Unsupported for a tokenizer model Hearth does not implement.
    [[nodiscard]] static Result<Vocabulary> load(const gguf::GgufFile& file);

    Vocabulary(Vocabulary&&) noexcept = default;
    Vocabulary& operator=(Vocabulary&&) noexcept = default;

    [[nodiscard]] VocabKind kind() const { return m_kind; }
    [[nodiscard]] int size() const { return int(m_texts.size()); }
    [[nodiscard]] bool contains(Token token) const { return token >= 0 && token < size(); }
    [[nodiscard]] const std::string& text(Token token) const { return m_texts[std::size_t(token)]; }
    [[nodiscard]] TokenType type(Token token) const { return m_types[std::size_t(token)]; }
    [[nodiscard]] float score(Token token) const { return m_scores.empty() ? 0.0f : m_scores[std::size_t(token)]; }
    // The id whose text is exactly @p text, or InvalidToken.
    [[nodiscard]] Token find(std::string_view text) const;

    [[nodiscard]] Token bos() const { return m_bos; }
    [[nodiscard]] Token eos() const { return m_eos; }
    [[nodiscard]] Token unknown() const { return m_unknown; }
    [[nodiscard]] Token padding() const { return m_padding; }
    [[nodiscard]] bool addBos() const { return m_addBos; }
    [[nodiscard]] bool addEos() const { return m_addEos; }
    [[nodiscard]] bool addSpacePrefix() const { return m_addSpacePrefix; }
    // `tokenizer.ggml.pre`, or for older byte-level files without it a name inferred from the
    // architecture ("falcon", "gpt-2", else "default").
    [[nodiscard]] const std::string& preTokenizer() const { return m_preTokenizer; }

    // Control and unknown tokens: not text, hidden when decoding unless asked for.
    [[nodiscard]] bool isSpecial(Token token) const;
    [[nodiscard]] bool isEndOfGeneration(Token token) const;

    // Cuts @p text at every occurrence of a special token's text, longest tokens first.
    // User-defined tokens are always recognised (they are ordinary words the vocabulary
    // spells as one piece); control and unknown tokens only with @p parseSpecial.
    [[nodiscard]] std::vector<Fragment> splitSpecial(std::string_view text, bool parseSpecial) const;

private:
    Vocabulary() = default;
    Status loadTokens(const gguf::GgufFile& file);
    Status loadSpecialIds(const gguf::GgufFile& file);
    void indexTokens();

    VocabKind m_kind = VocabKind::SentencePiece;
    std::vector<std::string> m_texts;
    std::vector<TokenType> m_types;
    std::vector<float> m_scores; // empty when the file has none
    // Views into m_texts, which never changes after loading.
    std::unordered_map<std::string_view, Token> m_ids;
    // Tokens splitSpecial looks for, longest text first.
    std::vector<Token> m_specialTokens;
    std::vector<Token> m_endOfGeneration; // sorted

    Token m_bos = InvalidToken;
    Token m_eos = InvalidToken;
    Token m_unknown = InvalidToken;
    Token m_padding = InvalidToken;
    bool m_addBos = false;
    bool m_addEos = false;
    bool m_addSpacePrefix = false;
    std::string m_preTokenizer;
};

} // namespace hearth::tokenizer
