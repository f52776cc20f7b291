// SPDX-License-Identifier: MIT
#pragma once

// Vocabularies of Hugging Face model folders, turned into GGUF's tokenizer.ggml.* metadata:
// a SentencePiece tokenizer.model (read with a minimal protobuf reader) or a tokenizers
// tokenizer.json (SentencePiece-style BPE with byte fallback, Unigram, or byte-level BPE), plus
// special tokens and the chat template from tokenizer_config.json / special_tokens_map.json.

#include <hearth/status.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace hearth::gguf {
class GgufWriter;
}

namespace hearth::convert {

struct ImportedVocab {
    std::string model = "llama";      // tokenizer.ggml.model: "llama" (SentencePiece) or "gpt2"
    std::string pre;                  // tokenizer.ggml.pre, byte-level BPE only
    std::vector<std::string> tokens;
    std::vector<float> scores;
    std::vector<std::int32_t> types;  // GGUF token types (1 normal ... 6 byte)
    std::vector<std::string> merges;  // "left right", byte-level BPE only
    std::int32_t bos = -1;
    std::int32_t eos = -1;
    std::int32_t unk = -1;
    std::int32_t pad = -1;
    std::optional<bool> addBos;
    std::optional<bool> addEos;
    bool addSpacePrefix = true;
    std::string chatTemplate;

    [[nodiscard]] std::int32_t find(std::string_view text) const;
    // Appends unused "[PAD<i>]" tokens up to @p size (the embedding has more rows than the
    // tokenizer has tokens, as in models padded to a multiple of 64).
    void padTo(std::size_t size);
    // Writes tokenizer.ggml.* and tokenizer.chat_template.
    void writeTo(gguf::GgufWriter& writer) const;
};

[[nodiscard]] Result<ImportedVocab> parseSentencePieceModel(std::span<const std::byte> bytes);
[[nodiscard]] Result<ImportedVocab> parseTokenizerJson(std::string_view json);
// Applies tokenizer_config.json / special_tokens_map.json texts (either may be empty).
[[nodiscard]] Status applyTokenizerConfig(ImportedVocab& vocab, std::string_view tokenizerConfig,
                                          std::string_view specialTokensMap);

// Reads the tokenizer of a model folder: tokenizer.model if present, else tokenizer.json; then
// the special-token files beside it.
[[nodiscard]] Result<ImportedVocab> importTokenizer(const std::string& folder);

} // namespace hearth::convert
