// SPDX-License-Identifier: MIT
#pragma once

// A byte-level BPE ("gpt2" tokenizer model) vocabulary for synthetic falcon and opt models:
// the architecture's special tokens at the ids the real vocabularies use, the 256 byte tokens
// in GPT-2's byte-to-character alphabet, then merged pieces. Every merged piece comes from a
// merge of two earlier tokens, so the real BPE tokenizer reaches all of them.

#include <cstdint>
#include <string>
#include <vector>

namespace hearth::synth {

struct SyntheticBpeVocab {
    enum class Style {
        Falcon, // 11 ">>TITLE<<"-style prompt markers, then <|endoftext|> (id 11) as BOS/EOS
        Opt,    // <s> <pad> </s> <unk>; OPT's tokenizer starts every text with </s> (id 2)
    };

    std::vector<std::string> tokens;
    std::vector<std::int32_t> types; // GGUF token types (synth::TokenType)
    std::vector<std::string> merges;
    std::int32_t bos = 0;
    std::int32_t eos = 0;
    bool addBos = false;
    std::string preTokenizer; // tokenizer.ggml.pre: "falcon" or "gpt-2"

    // The smallest vocabulary of @p style: its special tokens, the 256 bytes and one merge.
    [[nodiscard]] static int minimumSize(Style style);
    // @p size >= minimumSize(style); the same arguments always give the same vocabulary.
    [[nodiscard]] static SyntheticBpeVocab build(int size, Style style);
};

// GPT-2's byte-level alphabet: the printable character standing for byte @p b, as UTF-8.
[[nodiscard]] std::string byteLevelCharacter(std::uint8_t b);

} // namespace hearth::synth
