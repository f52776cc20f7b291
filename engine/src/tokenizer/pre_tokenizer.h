// SPDX-License-Identifier: MIT
#pragma once

// Splits text into the words a byte-level BPE tokenizer merges within. Each pre-tokenizer is a
// list of patterns applied one after another; a pattern cuts every piece left by the previous
// ones at the edges of its matches (matches and the text between them both stay pieces), the
// way llama.cpp applies the regex lists named by `tokenizer.ggml.pre`. The patterns are
// hand-written scanners over code points, not regular expressions.

#include <optional>
#include <string_view>
#include <vector>

namespace hearth::tokenizer {

enum class PreTokenizerKind {
    Default,   // "default" and files without a name: punctuation runs, GPT-2, digit runs, 3 digits
    Gpt2,      // "gpt-2", "mpt", "olmo", "jais": the GPT-2 pattern alone
    Falcon,    // "falcon": punctuation runs (with '`'), GPT-2, groups of 3 ASCII digits
    StarCoder, // "starcoder", "refact", "command-r", "smollm", "codeshell": single digits, GPT-2
    Llama3,    // "llama-bpe", "llama3", "llama-v3", "falcon3", "pixtral", "dbrx", "smaug-bpe": Llama 3's pattern
    Qwen2,     // "qwen2", "deepseek-r1-qwen": Llama 3's pattern with single digits
    Tekken,    // "tekken" (Mistral Nemo, Ministral, Pixtral 12B): Qwen 2's without contractions, words split by case
    Gpt4o,     // "gpt-4o" (o200k: gpt-oss, Phi-4-mini): Tekken's words with contractions kept on them, 3 digits
    DeepSeekLlm,   // "deepseek-llm": line breaks, letter runs, symbol runs, trailing spaces, CJK, digit runs
    DeepSeekCoder, // "deepseek-coder": line breaks, letter runs, punctuation runs, CJK, single digits
};

// Llama 3's vocabularies take a word that is a token as a whole, before any merge (Hugging
// Face's `ignore_merges`).
[[nodiscard]] bool ignoresMerges(PreTokenizerKind kind);

// The pre-tokenizer for a `tokenizer.ggml.pre` value, or nullopt when Hearth does not know it.
[[nodiscard]] std::optional<PreTokenizerKind> preTokenizerFromName(std::string_view name);

// Splits @p text into consecutive, non-empty words that cover it exactly (views into @p text).
// Invalid UTF-8 bytes stay in the words; the patterns see them as U+FFFD.
[[nodiscard]] std::vector<std::string_view> preTokenize(std::string_view text, PreTokenizerKind kind);

} // namespace hearth::tokenizer
