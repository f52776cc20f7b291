// SPDX-License-Identifier: MIT
#pragma once

// Builds the tokenizer a model file describes under `tokenizer.ggml.*`.

#include <hearth/status.h>
#include <hearth/tokenizer.h>

#include <memory>

namespace hearth::gguf {
class GgufFile;
}

namespace hearth {

// A SentencePiece-style ("llama") or byte-level BPE ("gpt2") tokenizer. Missing or inconsistent
// metadata is an InvalidFile error; an unknown tokenizer model or pre-tokenizer is Unsupported.
// The tokenizer copies what it needs: @p file may be closed afterwards.
[[nodiscard]] Result<std::unique_ptr<Tokenizer>> createTokenizer(const gguf::GgufFile& file);

} // namespace hearth
