// SPDX-License-Identifier: MIT
// tokenizer.json and tokenizer_config.json of Hugging Face folders. The input is tried as a
// tokenizer.json and, against a small fixed vocabulary, as the config beside it: either gives a
// vocabulary (or config) or an error with a message, without allocating for ids the file does not list.

#include "convert/tokenizer_import.h"
#include "fuzz_support.h"

#include <cstdint>

using namespace hearth;

namespace {

void checkVocabulary(const convert::ImportedVocab& vocab)
{
    const std::size_t n = vocab.tokens.size();
    fuzz::require(n > 0 && vocab.scores.size() == n && vocab.types.size() == n);
    for (const std::int32_t id : {vocab.unk, vocab.bos, vocab.eos, vocab.pad})
        fuzz::require(id < static_cast<std::int32_t>(n));
}

const char* const kFixedTokenizer = R"({"model":{"type":"BPE","vocab":{"<unk>":0,"<s>":1,"</s>":2,"a":3,"b":4,"ab":5},"merges":["a b"]},
"added_tokens":[{"id":1,"content":"<s>","special":true},{"id":2,"content":"</s>","special":true}]})";

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view input = fuzz::text(data, size);
    auto vocab = convert::parseTokenizerJson(input);
    if (fuzz::parsed(vocab)) {
        checkVocabulary(*vocab);
        if (fuzz::succeeded(convert::applyTokenizerConfig(*vocab, R"({"bos_token":"<s>","add_bos_token":true})", {})))
            checkVocabulary(*vocab);
    }

    static const convert::ImportedVocab fixed = *convert::parseTokenizerJson(kFixedTokenizer);
    convert::ImportedVocab configured = fixed;
    if (fuzz::succeeded(convert::applyTokenizerConfig(configured, input, {})))
        checkVocabulary(configured);
    configured = fixed;
    if (fuzz::succeeded(convert::applyTokenizerConfig(configured, {}, input)))
        checkVocabulary(configured);
    return 0;
}
