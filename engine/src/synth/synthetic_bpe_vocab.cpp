// SPDX-License-Identifier: MIT
#include "synth/synthetic_bpe_vocab.h"

#include "synth/synthetic_vocab.h"

#include <cassert>
#include <cstdint>
#include <unordered_set>

namespace hearth::synth {

namespace {

const std::vector<std::string>& specialsOf(SyntheticBpeVocab::Style style)
{
    static const std::vector<std::string> falcon = {
        ">>TITLE<<",  ">>ABSTRACT<<", ">>INTRODUCTION<<", ">>SUMMARY<<", ">>COMMENT<<",  ">>ANSWER<<",
        ">>QUESTION<<", ">>DOMAIN<<", ">>PREFIX<<",       ">>SUFFIX<<",  ">>MIDDLE<<",   "<|endoftext|>",
    };
    static const std::vector<std::string> opt = {"<s>", "<pad>", "</s>", "<unk>"};
    return style == SyntheticBpeVocab::Style::Falcon ? falcon : opt;
}

void appendUtf8(std::string& out, std::uint32_t cp)
{
    if (cp < 0x80) {
        out += char(cp);
    } else if (cp < 0x800) {
        out += char(0xC0 | (cp >> 6));
        out += char(0x80 | (cp & 0x3F));
    } else {
        out += char(0xE0 | (cp >> 12));
        out += char(0x80 | ((cp >> 6) & 0x3F));
        out += char(0x80 | (cp & 0x3F));
    }
}

} // namespace

std::string byteLevelCharacter(std::uint8_t b)
{
    // Printable Latin-1 bytes stand for themselves; the others (controls, space, 0x7F-0xA0,
    // 0xAD) are numbered from U+0100 in byte order.
    auto printable = [](int c) { return (c >= 0x21 && c <= 0x7E) || (c >= 0xA1 && c <= 0xAC) || (c >= 0xAE && c <= 0xFF); };
    std::string out;
    if (printable(b)) {
        appendUtf8(out, b);
        return out;
    }
    std::uint32_t n = 0;
    for (int c = 0; c < b; ++c) {
        if (!printable(c))
            ++n;
    }
    appendUtf8(out, 0x100 + n);
    return out;
}

int SyntheticBpeVocab::minimumSize(Style style)
{
    return int(specialsOf(style).size()) + 256 + 1;
}

SyntheticBpeVocab SyntheticBpeVocab::build(int size, Style style)
{
    assert(size >= minimumSize(style));
    SyntheticBpeVocab v;
    for (const std::string& s : specialsOf(style)) {
        v.tokens.push_back(s);
        v.types.push_back(std::int32_t(TokenType::Control));
    }
    if (style == Style::Falcon) {
        v.bos = v.eos = 11;
        v.preTokenizer = "falcon";
    } else {
        v.bos = v.eos = 2;
        v.addBos = true;
        v.preTokenizer = "gpt-2";
    }
    std::unordered_set<std::string> seen;
    for (int b = 0; b < 256; ++b) {
        v.tokens.push_back(byteLevelCharacter(std::uint8_t(b)));
        v.types.push_back(std::int32_t(TokenType::Normal));
        seen.insert(v.tokens.back());
    }

    auto full = [&] { return int(v.tokens.size()) >= size; };
    auto merge = [&](const std::string& left, const std::string& right) {
        if (full() || !seen.insert(left + right).second)
            return;
        v.merges.push_back(left + " " + right);
        v.tokens.push_back(left + right);
        v.types.push_back(std::int32_t(TokenType::Normal));
    };

    // Word-initial letters ("Ġe": space + e), then ever longer lowercase n-grams with and
    // without the leading space, most frequent letters first, until the vocabulary is full.
    const std::string space = byteLevelCharacter(' ');
    const std::string lower = "etaoinshrdlcumwfgypbvkjxqz";
    for (char c : lower)
        merge(space, std::string(1, c));
    std::vector<std::string> previous;
    for (char c : lower)
        previous.emplace_back(1, c);
    while (!full()) {
        std::vector<std::string> current;
        for (const std::string& prefix : previous) {
            for (char c : lower) {
                merge(prefix, std::string(1, c));
                merge(space + prefix, std::string(1, c));
                current.push_back(prefix + c);
                if (full())
                    return v;
            }
        }
        previous = std::move(current);
    }
    return v;
}

} // namespace hearth::synth
