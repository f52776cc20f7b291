// SPDX-License-Identifier: MIT
#include "tokenizer/vocabulary.h"

#include "gguf/gguf_file.h"

#include <algorithm>
#include <cstdint>
#include <limits>

namespace hearth::tokenizer {

namespace {

constexpr std::string_view kModelKey = "tokenizer.ggml.model";
constexpr std::string_view kTokensKey = "tokenizer.ggml.tokens";
constexpr std::string_view kTypesKey = "tokenizer.ggml.token_type";
constexpr std::string_view kScoresKey = "tokenizer.ggml.scores";

// Texts that end a turn in common chat formats, whatever their ids.
constexpr std::string_view kEndOfGenerationTexts[] = {
    "<|eot_id|>", "<|im_end|>", "<|endoftext|>", "<|end|>", "<end_of_turn>", "<|eom_id|>", "<EOT>", "</s>",
    "<|return|>", "<|call|>",
};

// The structure of gpt-oss's messages (OpenAI's harmony format): written as text, as llama.cpp
// shows them, so that an answer's channels can be told apart (<|channel|>analysis<|message|>...).
constexpr std::string_view kHarmonyMarkers[] = {"<|start|>", "<|channel|>", "<|message|>", "<|constrain|>"};

Status invalid(std::string message)
{
    return Status::error(ErrorCode::InvalidFile, std::move(message));
}

std::string quoted(std::string_view key)
{
    // Built by appending: GCC 12 warns falsely (-Wrestrict) about "'" + std::string.
    std::string out;
    out.reserve(key.size() + 2);
    out += '\'';
    out += key;
    out += '\'';
    return out;
}

bool isIntegerType(gguf::ValueType type)
{
    switch (type) {
    case gguf::ValueType::UInt8:
    case gguf::ValueType::Int8:
    case gguf::ValueType::UInt16:
    case gguf::ValueType::Int16:
    case gguf::ValueType::UInt32:
    case gguf::ValueType::Int32:
    case gguf::ValueType::UInt64:
    case gguf::ValueType::Int64:
        return true;
    default:
        return false;
    }
}

// An optional boolean: the default when absent, an error when present with another type.
Status readBool(const gguf::GgufFile& file, std::string_view key, bool& value)
{
    if (!file.find(key))
        return {};
    const std::optional<bool> v = file.getBool(key);
    if (!v)
        return invalid(quoted(key) + " is not a boolean");
    value = *v;
    return {};
}

} // namespace

Result<Vocabulary> Vocabulary::load(const gguf::GgufFile& file)
{
    Vocabulary vocab;

    const std::optional<std::string> model = file.getString(kModelKey);
    if (!model)
        return invalid("the model file has no tokenizer (" + quoted(kModelKey) + " is missing)");
    if (*model == "llama") {
        vocab.m_kind = VocabKind::SentencePiece;
    } else if (*model == "gpt2") {
        vocab.m_kind = VocabKind::ByteLevelBpe;
    } else {
        return Status::error(ErrorCode::Unsupported, "tokenizer model '" + *model + "' is not supported");
    }

    HEARTH_TRY(vocab.loadTokens(file));
    vocab.indexTokens();
    HEARTH_TRY(vocab.loadSpecialIds(file));

    const bool spm = vocab.m_kind == VocabKind::SentencePiece;
    vocab.m_addBos = spm;
    vocab.m_addSpacePrefix = spm;
    HEARTH_TRY(readBool(file, "tokenizer.ggml.add_bos_token", vocab.m_addBos));
    HEARTH_TRY(readBool(file, "tokenizer.ggml.add_eos_token", vocab.m_addEos));
    HEARTH_TRY(readBool(file, "tokenizer.ggml.add_space_prefix", vocab.m_addSpacePrefix));
    if (vocab.m_addBos && vocab.m_bos == InvalidToken)
        return invalid("the tokenizer asks for a BOS token but has none");
    if (vocab.m_addEos && vocab.m_eos == InvalidToken)
        return invalid("the tokenizer asks for an EOS token but has none");

    if (file.find("tokenizer.ggml.pre")) {
        const std::optional<std::string> pre = file.getString("tokenizer.ggml.pre");
        if (!pre)
            return invalid("'tokenizer.ggml.pre' is not a string");
        vocab.m_preTokenizer = *pre;
    } else if (vocab.m_kind == VocabKind::ByteLevelBpe) {
        // Files converted before the key existed (PowerInfer's among them): the architecture
        // tells which Hugging Face pre-tokenizer the vocabulary was trained with.
        const std::string arch = file.getString("general.architecture").value_or(std::string());
        if (arch == "falcon")
            vocab.m_preTokenizer = "falcon";
        else if (arch == "gpt2" || arch == "opt" || arch == "mpt" || arch == "gptneox")
            vocab.m_preTokenizer = "gpt-2";
        else
            vocab.m_preTokenizer = "default";
    }
    return vocab;
}

Status Vocabulary::loadTokens(const gguf::GgufFile& file)
{
    const gguf::ArrayValue* tokens = file.getArray(kTokensKey);
    if (!tokens || tokens->elementType != gguf::ValueType::String)
        return invalid(quoted(kTokensKey) + " is missing or not an array of strings");
    if (tokens->strings.empty())
        return invalid("the vocabulary is empty");
    if (tokens->strings.size() > std::size_t(std::numeric_limits<Token>::max()))
        return invalid("the vocabulary has too many tokens");
    m_texts = tokens->strings;
    const std::size_t n = m_texts.size();

    m_types.assign(n, TokenType::Normal);
    if (file.find(kTypesKey)) {
        const gguf::ArrayValue* types = file.getArray(kTypesKey);
        if (!types || !isIntegerType(types->elementType) || types->ints.size() != n)
            return invalid(quoted(kTypesKey) + " must be an integer array with one entry per token");
        for (std::size_t i = 0; i < n; ++i) {
            const std::int64_t t = types->ints[i];
            if (t < 0 || t > std::int64_t(TokenType::Byte))
                return invalid("token " + std::to_string(i) + " has an unknown type " + std::to_string(t));
            // Undefined types behave as normal pieces.
            m_types[i] = t == 0 ? TokenType::Normal : TokenType(t);
        }
    }

    if (file.find(kScoresKey)) {
        const gguf::ArrayValue* scores = file.getArray(kScoresKey);
        if (!scores || scores->floats.size() != n)
            return invalid(quoted(kScoresKey) + " must be a float array with one entry per token");
        m_scores.assign(scores->floats.begin(), scores->floats.end());
    }
    return {};
}

void Vocabulary::indexTokens()
{
    m_ids.reserve(m_texts.size());
    for (std::size_t i = 0; i < m_texts.size(); ++i) {
        // A later duplicate wins, as in the reference implementation.
        m_ids[m_texts[i]] = Token(i);
    }
    for (const std::string_view marker : kHarmonyMarkers) {
        if (const auto it = m_ids.find(marker); it != m_ids.end() && m_types[std::size_t(it->second)] == TokenType::Control)
            m_types[std::size_t(it->second)] = TokenType::UserDefined;
    }

    for (std::size_t i = 0; i < m_texts.size(); ++i) {
        const TokenType t = m_types[i];
        if (!m_texts[i].empty() && (t == TokenType::Control || t == TokenType::UserDefined || t == TokenType::Unknown))
            m_specialTokens.push_back(Token(i));
    }
    std::stable_sort(m_specialTokens.begin(), m_specialTokens.end(),
                     [this](Token a, Token b) { return text(a).size() > text(b).size(); });
}

Status Vocabulary::loadSpecialIds(const gguf::GgufFile& file)
{
    const bool spm = m_kind == VocabKind::SentencePiece;
    const auto readId = [&](std::string_view key, Token fallback, Token& id) -> Status {
        id = contains(fallback) ? fallback : InvalidToken;
        if (!file.find(key))
            return {};
        const std::optional<std::int64_t> v = file.getInt(key);
        if (!v)
            return invalid(quoted(key) + " is not an integer");
        // Converters write -1 (or its uint32 form) for "no such token".
        if (*v == -1 || *v == std::int64_t(std::numeric_limits<std::uint32_t>::max())) {
            id = InvalidToken;
            return {};
        }
        if (*v < 0 || *v >= size())
            return invalid(quoted(key) + " = " + std::to_string(*v) + " is outside the vocabulary of "
                           + std::to_string(size()) + " tokens");
        id = Token(*v);
        return {};
    };
    // SentencePiece models that predate these keys use <unk>=0, <s>=1, </s>=2.
    HEARTH_TRY(readId("tokenizer.ggml.bos_token_id", spm ? 1 : InvalidToken, m_bos));
    HEARTH_TRY(readId("tokenizer.ggml.eos_token_id", spm ? 2 : InvalidToken, m_eos));
    HEARTH_TRY(readId("tokenizer.ggml.unknown_token_id", spm ? 0 : InvalidToken, m_unknown));
    HEARTH_TRY(readId("tokenizer.ggml.padding_token_id", InvalidToken, m_padding));
    Token eot = InvalidToken;
    Token eom = InvalidToken;
    HEARTH_TRY(readId("tokenizer.ggml.eot_token_id", InvalidToken, eot));
    HEARTH_TRY(readId("tokenizer.ggml.eom_token_id", InvalidToken, eom));

    for (const Token t : {m_eos, eot, eom}) {
        if (t != InvalidToken)
            m_endOfGeneration.push_back(t);
    }
    for (const std::string_view eogText : kEndOfGenerationTexts) {
        const Token t = find(eogText);
        if (t != InvalidToken && type(t) != TokenType::Normal && type(t) != TokenType::Byte)
            m_endOfGeneration.push_back(t);
    }
    // In the harmony format <|end|> closes a message, not the answer: with <|return|> and
    // <|call|> there, the model goes on after its analysis (llama.cpp drops <|end|> alike).
    if (find("<|return|>") != InvalidToken && find("<|call|>") != InvalidToken)
        std::erase(m_endOfGeneration, find("<|end|>"));
    std::sort(m_endOfGeneration.begin(), m_endOfGeneration.end());
    m_endOfGeneration.erase(std::unique(m_endOfGeneration.begin(), m_endOfGeneration.end()), m_endOfGeneration.end());
    return {};
}

Token Vocabulary::find(std::string_view text) const
{
    const auto it = m_ids.find(text);
    return it == m_ids.end() ? InvalidToken : it->second;
}

bool Vocabulary::isSpecial(Token token) const
{
    if (!contains(token))
        return false;
    const TokenType t = type(token);
    return t == TokenType::Control || t == TokenType::Unknown;
}

bool Vocabulary::isEndOfGeneration(Token token) const
{
    return std::binary_search(m_endOfGeneration.begin(), m_endOfGeneration.end(), token);
}

std::vector<Fragment> Vocabulary::splitSpecial(std::string_view text, bool parseSpecial) const
{
    std::vector<Fragment> fragments;
    if (text.empty())
        return fragments;
    fragments.push_back({InvalidToken, text});

    std::vector<Fragment> next;
    for (const Token special : m_specialTokens) {
        if (!parseSpecial && type(special) != TokenType::UserDefined)
            continue;
        const std::string_view needle = this->text(special);
        // Most special tokens never occur: look before rebuilding the list.
        const bool occurs = std::any_of(fragments.begin(), fragments.end(), [&](const Fragment& f) {
            return f.token == InvalidToken && f.text.find(needle) != std::string_view::npos;
        });
        if (!occurs)
            continue;

        next.clear();
        for (const Fragment& f : fragments) {
            if (f.token != InvalidToken) {
                next.push_back(f);
                continue;
            }
            std::string_view rest = f.text;
            for (std::size_t at; (at = rest.find(needle)) != std::string_view::npos;) {
                if (at > 0)
                    next.push_back({InvalidToken, rest.substr(0, at)});
                next.push_back({special, needle});
                rest.remove_prefix(at + needle.size());
            }
            if (!rest.empty())
                next.push_back({InvalidToken, rest});
        }
        fragments.swap(next);
    }
    return fragments;
}

} // namespace hearth::tokenizer
