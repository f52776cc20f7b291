// SPDX-License-Identifier: MIT
// The parts of the public tokenizer API that do not depend on the vocabulary kind.

#include <hearth/tokenizer.h>

#include "tokenizer/unicode.h"

#include <algorithm>

namespace hearth {

namespace {

// How many bytes at the end of @p text form the start of a UTF-8 sequence that more bytes
// could still complete (0 when the text ends on a boundary or on bytes that can never be
// valid).
std::size_t incompleteTail(std::string_view text)
{
    // A sequence is at most 4 bytes: its lead is among the last 3 bytes if it is incomplete.
    const std::size_t lookBack = std::min<std::size_t>(3, text.size());
    for (std::size_t back = 1; back <= lookBack; ++back) {
        const std::size_t start = text.size() - back;
        const auto lead = static_cast<unsigned char>(text[start]);
        if ((lead & 0xC0) == 0x80)
            continue; // a continuation byte: keep looking for the lead
        const int length = unicode::sequenceLength(lead);
        if (length <= int(back))
            return 0; // complete, or not a lead at all
        // The bytes present must be a valid prefix. Which second bytes are allowed depends on
        // the lead (E0, ED, F0, F4 restrict it), so complete the sequence with the lowest and
        // with the highest continuation byte: a valid prefix decodes with one of them.
        for (const char fill : {char(0x80), char(0xBF)}) {
            std::string probe(text.substr(start));
            probe.resize(std::size_t(length), fill);
            if (unicode::decodeUtf8(probe, 0).valid)
                return back;
        }
        return 0;
    }
    return 0;
}

// @p bytes with every invalid byte replaced by U+FFFD.
void appendSanitized(std::string& out, std::string_view bytes)
{
    for (std::size_t pos = 0; pos < bytes.size();) {
        const unicode::DecodedChar c = unicode::decodeUtf8(bytes, pos);
        if (c.valid)
            out.append(bytes.substr(pos, c.length));
        else
            unicode::appendUtf8(out, unicode::ReplacementCharacter);
        pos += c.length;
    }
}

} // namespace

std::string Tokenizer::decode(std::span<const Token> tokens, bool renderSpecial) const
{
    std::string text;
    for (const Token t : tokens) {
        if (!renderSpecial && isControl(t))
            continue;
        text += tokenBytes(t);
    }
    return text;
}

Utf8StreamDecoder::Utf8StreamDecoder(const Tokenizer& tokenizer, bool renderSpecial)
    : m_tokenizer(tokenizer)
    , m_renderSpecial(renderSpecial)
{
}

std::string Utf8StreamDecoder::push(Token token)
{
    if (!m_renderSpecial && m_tokenizer.isControl(token))
        return {};
    m_pending += m_tokenizer.tokenBytes(token);

    const std::size_t hold = incompleteTail(m_pending);
    std::string out;
    appendSanitized(out, std::string_view(m_pending).substr(0, m_pending.size() - hold));
    m_pending.erase(0, m_pending.size() - hold);
    return out;
}

std::string Utf8StreamDecoder::flush()
{
    // push() only ever holds back the start of one unfinished sequence: it becomes a single
    // replacement character.
    std::string out;
    if (!m_pending.empty())
        unicode::appendUtf8(out, unicode::ReplacementCharacter);
    m_pending.clear();
    return out;
}

} // namespace hearth
