// SPDX-License-Identifier: MIT
#include "tokenizer/vocab_tokenizer.h"

#include <limits>
#include <utility>

namespace hearth::tokenizer {

VocabTokenizer::VocabTokenizer(Vocabulary vocab)
    : m_vocab(std::move(vocab))
{
}

std::string VocabTokenizer::tokenBytes(Token token) const
{
    if (token < 0 || std::size_t(token) >= m_bytes.size())
        return {};
    return m_bytes[std::size_t(token)];
}

std::string_view VocabTokenizer::boundedInput(std::string_view text)
{
    constexpr std::size_t kMaxBytes = std::size_t(std::numeric_limits<int>::max()) - 16;
    return text.size() > kMaxBytes ? text.substr(0, kMaxBytes) : text;
}

void VocabTokenizer::beginSequence(std::vector<Token>& out, bool addSpecial) const
{
    if (addSpecial && m_vocab.addBos() && m_vocab.bos() != InvalidToken)
        out.push_back(m_vocab.bos());
}

void VocabTokenizer::endSequence(std::vector<Token>& out, bool addSpecial) const
{
    if (addSpecial && m_vocab.addEos() && m_vocab.eos() != InvalidToken)
        out.push_back(m_vocab.eos());
}

} // namespace hearth::tokenizer
