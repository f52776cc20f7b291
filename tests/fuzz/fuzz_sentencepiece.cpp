// SPDX-License-Identifier: MIT
// SentencePiece tokenizer.model files (protobuf): any input gives a vocabulary or an error with a
// message, and a vocabulary's arrays and special ids agree.

#include "convert/tokenizer_import.h"
#include "fuzz_support.h"

#include <cstdint>

using namespace hearth;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    auto vocab = convert::parseSentencePieceModel(fuzz::bytes(data, size));
    if (!fuzz::parsed(vocab))
        return 0;
    const std::size_t n = vocab->tokens.size();
    fuzz::require(n > 0 && vocab->scores.size() == n && vocab->types.size() == n);
    for (const std::int32_t id : {vocab->unk, vocab->bos, vocab->eos, vocab->pad})
        fuzz::require(id < static_cast<std::int32_t>(n));
    return 0;
}
