// SPDX-License-Identifier: MIT
// The drafters of speculative decoding: a smaller model of the same vocabulary, or the
// conversation's own earlier text.

#include <hearth/speculative.h>

#include "gguf/gguf_file.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <utility>

namespace hearth {

namespace {

// Vocabularies further apart than this are different ones, not one padded for the GPU (as
// llama.cpp's speculative decoding allows).
constexpr int maxVocabularyDifference = 128;

// The most likely token of @p logits and its probability.
std::pair<Token, float> mostLikely(std::span<const float> logits)
{
    const auto best = std::max_element(logits.begin(), logits.end());
    double sum = 0;
    for (const float logit : logits)
        sum += std::exp(double(logit) - double(*best));
    return {Token(best - logits.begin()), float(1.0 / sum)};
}

} // namespace

Status checkDraftVocabulary(const Model& draft, const Model& target)
{
    const Tokenizer& d = draft.tokenizer();
    const Tokenizer& t = target.tokenizer();
    if (std::abs(d.vocabSize() - t.vocabSize()) > maxVocabularyDifference) {
        return {ErrorCode::Unsupported, "the draft model's vocabulary has " + std::to_string(d.vocabSize())
                                            + " tokens, the model's " + std::to_string(t.vocabSize())};
    }
    if (d.bos() != t.bos() || d.eos() != t.eos() || d.addsBos() != t.addsBos())
        return {ErrorCode::Unsupported, "the draft model begins or ends texts with other tokens than the model"};
    const int shared = std::min(d.vocabSize(), t.vocabSize());
    for (Token token = 0; token < shared; ++token) {
        if (d.tokenBytes(token) != t.tokenBytes(token) || d.isEndOfGeneration(token) != t.isEndOfGeneration(token))
            return {ErrorCode::Unsupported, "the draft model's token " + std::to_string(token) + " is not the model's"};
    }
    return {};
}

Result<std::unique_ptr<DraftModel>> DraftModel::create(std::shared_ptr<const Model> draft, const Model& target,
                                                       const SessionParams& params, int maxDraft, float minProbability)
{
    if (!draft)
        return Status(ErrorCode::InvalidArgument, "no draft model");
    if (maxDraft < 1)
        return Status(ErrorCode::InvalidArgument, "a draft model must guess at least one token");
    HEARTH_TRY(checkDraftVocabulary(*draft, target));
    // A context longer than the draft model was trained on is cut to that: it then guesses
    // nothing further into a conversation (draft()).
    SessionParams own = params;
    if (const int trained = draft->info().trainedContextLength; trained > 0 && own.contextLength > trained)
        own.contextLength = trained;
    auto session = Session::create(std::move(draft), own);
    if (!session)
        return session.status();
    return std::unique_ptr<DraftModel>(
        new DraftModel(std::move(*session), target.tokenizer().vocabSize(), maxDraft, minProbability));
}

DraftModel::DraftModel(std::unique_ptr<Session> session, int targetVocab, int maxDraft, float minProbability)
    : m_session(std::move(session))
    , m_targetVocab(targetVocab)
    , m_maxDraft(maxDraft)
    , m_minProbability(minProbability)
{
}

DraftModel::~DraftModel() = default;

SessionParams DraftModel::sessionParamsFor(const Session& target, const SessionParams& targetParams)
{
    SessionParams params;
    params.threads = targetParams.threads;
    params.contextLength = target.contextLength();
    params.kvCache = targetParams.kvCache;
    params.deviceOverride = targetParams.deviceOverride;
    params.vramBudgetGiB = target.placement().usesGpu() && targetParams.vramBudgetGiB < 0 ? -1.0 : 0.0;
    return params;
}

Status DraftModel::draft(std::span<const Token> history, Token next, int count, std::vector<Token>& out)
{
    out.clear();
    // The draft session keeps what it shares with the conversation (after a pass, all but the
    // guesses the model did not take) and reads the rest.
    const std::span<const Token> seen = m_session->history();
    std::size_t common = 0;
    const std::size_t limit = std::min(seen.size(), history.size());
    while (common < limit && seen[common] == history[common])
        ++common;
    if (common == history.size() && seen.size() > common && seen[common] == next)
        ++common; // `next` was its own guess
    const int total = int(history.size()) + 1;
    if (total + count > m_session->contextLength())
        return {}; // a draft model of a shorter context guesses nothing here
    if (int(common) == total)
        --common; // the logits after `next` are needed again
    m_session->truncate(int(common));
    m_missing.assign(history.begin() + std::min<std::size_t>(std::size_t(m_session->position()), history.size()),
                     history.end());
    if (m_session->position() < total)
        m_missing.push_back(next);
    HEARTH_TRY(m_session->prefill(m_missing));
    for (int i = 0; i < count; ++i) {
        const auto [guess, probability] = mostLikely(m_session->logits());
        if (probability < m_minProbability || guess >= m_targetVocab
            || m_session->model().tokenizer().isEndOfGeneration(guess))
            break;
        out.push_back(guess);
        if (i + 1 < count)
            HEARTH_TRY(m_session->decode(guess));
    }
    return {};
}

Result<std::uint64_t> vocabularyFingerprint(const std::string& path)
{
    auto file = gguf::GgufFile::open(path);
    if (!file)
        return file.status();
    const gguf::ArrayValue* tokens = (*file)->getArray("tokenizer.ggml.tokens");
    if (!tokens || tokens->strings.empty())
        return Status(ErrorCode::InvalidFile, "the file has no vocabulary (tokenizer.ggml.tokens)");
    // FNV-1a over each text with its length, then the two ids.
    std::uint64_t hash = 0xcbf29ce484222325ULL;
    const auto mix = [&hash](const void* data, std::size_t size) {
        for (std::size_t i = 0; i < size; ++i) {
            hash ^= static_cast<const unsigned char*>(data)[i];
            hash *= 0x100000001b3ULL;
        }
    };
    constexpr std::size_t fingerprintTokens = 65536;
    for (std::size_t i = 0; i < std::min(tokens->strings.size(), fingerprintTokens); ++i) {
        const std::string& text = tokens->strings[i];
        const std::uint64_t size = text.size();
        mix(&size, sizeof size);
        mix(text.data(), text.size());
    }
    for (const char* key : {"tokenizer.ggml.bos_token_id", "tokenizer.ggml.eos_token_id"}) {
        const std::int64_t id = (*file)->getInt(key).value_or(-1);
        mix(&id, sizeof id);
    }
    return hash;
}

PromptLookup::PromptLookup(int maxDraft, int shortestMatch, int longestMatch)
    : m_maxDraft(std::max(1, maxDraft))
    , m_shortestMatch(std::max(1, shortestMatch))
    , m_longestMatch(std::max(m_shortestMatch, longestMatch))
{
}

Status PromptLookup::draft(std::span<const Token> history, Token next, int count, std::vector<Token>& out)
{
    out.clear();
    // The context is history + next; `at(i)` reads it without a copy.
    const std::size_t size = history.size() + 1;
    const auto at = [&](std::size_t i) { return i < history.size() ? history[i] : next; };
    for (int n = std::min<int>(m_longestMatch, int(size) - 1); n >= m_shortestMatch; --n) {
        const std::size_t suffix = size - std::size_t(n);
        // The latest earlier occurrence of the last n tokens, and what followed it.
        for (std::size_t start = suffix; start-- > 0;) {
            std::size_t matched = 0;
            while (matched < std::size_t(n) && at(start + matched) == at(suffix + matched))
                ++matched;
            if (matched < std::size_t(n))
                continue;
            for (std::size_t i = start + std::size_t(n); i < size && int(out.size()) < count; ++i)
                out.push_back(at(i));
            return {};
        }
    }
    return {};
}

} // namespace hearth
