// SPDX-License-Identifier: MIT
#pragma once

// A SentencePiece-style ("llama") vocabulary for synthetic models, laid out like the real
// LLaMA one so the real tokenizer loads it: <unk>, <s>, </s>, the 256 byte-fallback tokens,
// then pieces. Every multi-character piece is the concatenation of two shorter pieces that
// precede it, so SentencePiece's pairwise merging can reach all of them.

#include <cstdint>
#include <string>
#include <vector>

namespace hearth::synth {

// GGUF token types (llama.cpp's llama_token_type).
enum class TokenType : std::int32_t {
    Normal = 1,
    Unknown = 2,
    Control = 3,
    UserDefined = 4,
    Unused = 5,
    Byte = 6,
};

struct SyntheticVocab {
    std::vector<std::string> tokens;
    std::vector<float> scores;
    std::vector<std::int32_t> types;

    static constexpr std::int32_t kUnk = 0;
    static constexpr std::int32_t kBos = 1;
    static constexpr std::int32_t kEos = 2;
    static constexpr std::int32_t kFirstByte = 3;
    static constexpr int kMinimumSize = 3 + 256 + 1; // specials, bytes and "▁"

    // @p size >= kMinimumSize; the same size always gives the same vocabulary.
    static SyntheticVocab build(int size);
};

} // namespace hearth::synth
