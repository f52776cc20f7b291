// SPDX-License-Identifier: MIT
#include "tokenizer/tokenizer_factory.h"

#include "tokenizer/bpe_tokenizer.h"
#include "tokenizer/spm_tokenizer.h"
#include "tokenizer/vocabulary.h"

namespace hearth {

namespace {

template <typename T>
Result<std::unique_ptr<Tokenizer>> upcast(Result<std::unique_ptr<T>> result)
{
    if (!result)
        return result.status();
    return std::unique_ptr<Tokenizer>(std::move(result).value());
}

} // namespace

Result<std::unique_ptr<Tokenizer>> createTokenizer(const gguf::GgufFile& file)
{
    Result<tokenizer::Vocabulary> vocab = tokenizer::Vocabulary::load(file);
    if (!vocab)
        return vocab.status();
    switch (vocab->kind()) {
    case tokenizer::VocabKind::SentencePiece:
        return upcast(tokenizer::SpmTokenizer::create(std::move(vocab).value()));
    case tokenizer::VocabKind::ByteLevelBpe:
        return upcast(tokenizer::BpeTokenizer::create(std::move(vocab).value(), file));
    }
    return Status::error(ErrorCode::Internal, "unhandled vocabulary kind");
}

} // namespace hearth
