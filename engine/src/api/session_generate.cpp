// SPDX-License-Identifier: MIT
// Session::generate: the prefill-sample-decode loop shared by every architecture, token by token
// or with a drafter's guesses checked in batched passes.

#include <hearth/session.h>
#include <hearth/speculative.h>

#include <algorithm>
#include <chrono>
#include <optional>

namespace hearth {

namespace {

double secondsSince(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// What one generate() call has done so far, and the rules for going on.
class Generation {
public:
    Generation(Session& session, Sampler& sampler, int maxTokens, const Session::TokenCallback& onToken,
               GenerationStats& stats)
        : m_session(session)
        , m_sampler(sampler)
        , m_maxTokens(maxTokens)
        , m_onToken(onToken)
        , m_text(session.model().tokenizer())
        , m_stats(stats)
    {
    }

    // Whether another token may come with @p position tokens in the cache; if not,
    // stats.stopReason says why.
    [[nodiscard]] bool mayGenerate(int position)
    {
        if (m_stats.generatedTokens >= m_maxTokens) {
            m_stats.stopReason = StopReason::MaxTokens;
            return false;
        }
        if (position >= m_session.contextLength()) {
            m_stats.stopReason = StopReason::ContextFull;
            return false;
        }
        return true;
    }

    // The token the sampler draws from @p logits, or none at the end of the turn. The
    // end-of-turn token is neither shown nor added to the cache: the chat template writes it
    // when the conversation continues.
    [[nodiscard]] std::optional<Token> sample(std::span<const float> logits)
    {
        const Token token = m_sampler.sample(logits);
        m_sampler.accept(token);
        if (m_session.model().tokenizer().isEndOfGeneration(token)) {
            m_stats.stopReason = StopReason::EndOfGeneration;
            return std::nullopt;
        }
        return token;
    }

    // Hands @p token to the caller. Every token the caller saw goes into history(), even the
    // one it stopped at. False: it wants no more (stats.stopReason says so).
    [[nodiscard]] bool show(Token token)
    {
        ++m_stats.generatedTokens;
        if (!m_onToken || m_onToken(token, m_text.push(token)))
            return true;
        m_stats.stopReason = StopReason::Cancelled;
        return false;
    }

    [[nodiscard]] int tokensLeft() const { return m_maxTokens - m_stats.generatedTokens; }
    [[nodiscard]] GenerationStats& stats() { return m_stats; }

private:
    Session& m_session;
    Sampler& m_sampler;
    int m_maxTokens;
    const Session::TokenCallback& m_onToken;
    Utf8StreamDecoder m_text;
    GenerationStats& m_stats;
};

Status decodeOneByOne(Session& session, Generation& generation)
{
    while (generation.mayGenerate(session.position())) {
        const std::optional<Token> token = generation.sample(session.logits());
        if (!token)
            break;
        const bool keepGoing = generation.show(*token);
        HEARTH_TRY(session.decode(*token));
        if (!keepGoing)
            break;
    }
    return {};
}

// Keeps the session's first @p keep tokens. Where sliding-window layers have let go of keys that
// far back, the tokens they lost are computed again.
Status keepFirst(Session& session, int keep, std::vector<Token>& scratch)
{
    if (session.position() <= keep)
        return {};
    const std::span<const Token> history = session.history();
    scratch.assign(history.begin(), history.begin() + keep);
    session.truncate(keep);
    if (session.position() < keep)
        return session.prefill(std::span<const Token>(scratch).subspan(std::size_t(session.position())));
    return {};
}

// The token the caller saw last goes into the cache together with the drafter's guesses of
// the ones after it; row i of the batch's logits is what the sampler draws the token after
// batch[i] from. While its draws equal the guesses, those tokens are already in the cache;
// the first other draw ends the pass and goes in with the next one. A wider pass costs more
// (on two CPU cores a pass over 5 tokens 1.3-1.4 decoded tokens, over 9 two to two and a half),
// so the session asks for as many guesses as the last pass had right plus one, twice as many
// after a pass that took them all.
Status decodeWithGuesses(Session& session, Generation& generation, Drafter& drafter)
{
    GenerationStats& stats = generation.stats();
    std::optional<Token> pending; // shown to the caller, not yet in the cache
    std::span<const float> logits = session.logits();
    std::vector<Token> guesses;
    std::vector<Token> batch;
    std::vector<Token> scratch;
    std::vector<float> rows;
    int limit = std::min(2, drafter.maxDraft());
    while (true) {
        if (!pending) {
            if (!generation.mayGenerate(session.position()))
                return {};
            pending = generation.sample(logits);
            if (!pending)
                return {};
            if (!generation.show(*pending))
                return session.decode(*pending);
        }
        const Token next = *pending;
        pending.reset();
        const int room = std::min({limit, session.contextLength() - session.position() - 1, generation.tokensLeft()});
        guesses.clear();
        if (room > 0) {
            HEARTH_TRY(drafter.draft(session.history(), next, room, guesses));
            guesses.resize(std::min(guesses.size(), std::size_t(room)));
        }
        if (guesses.empty()) {
            HEARTH_TRY(session.decode(next));
            logits = session.logits();
            continue;
        }
        const int base = session.position();
        batch.assign(1, next);
        batch.insert(batch.end(), guesses.begin(), guesses.end());
        HEARTH_TRY(session.evaluateAll(batch, rows));
        stats.draftedTokens += int(guesses.size());
        const std::size_t width = rows.size() / batch.size();
        const int takenBefore = stats.acceptedTokens;
        for (std::size_t i = 0; i <= guesses.size(); ++i) {
            const int keep = base + int(i) + 1; // batch[0..i] are the right tokens
            if (!generation.mayGenerate(keep))
                return keepFirst(session, keep, scratch);
            const std::optional<Token> token = generation.sample(std::span<const float>(rows).subspan(i * width, width));
            if (!token)
                return keepFirst(session, keep, scratch);
            const bool keepGoing = generation.show(*token);
            if (i < guesses.size() && *token == guesses[i]) {
                ++stats.acceptedTokens;
                if (!keepGoing)
                    return keepFirst(session, keep + 1, scratch);
                continue;
            }
            HEARTH_TRY(keepFirst(session, keep, scratch));
            if (!keepGoing)
                return session.decode(*token);
            pending = token;
            break;
        }
        const int taken = stats.acceptedTokens - takenBefore;
        limit = taken == int(guesses.size()) ? std::min(drafter.maxDraft(), 2 * limit) : taken + 1;
    }
}

} // namespace

Result<GenerationStats> Session::generate(std::span<const Token> prompt, Sampler& sampler, int maxTokens,
                                          const TokenCallback& onToken, Drafter* drafter)
{
    GenerationStats stats;
    stats.promptTokens = int(prompt.size());
    if (maxTokens < 0)
        return Status(ErrorCode::InvalidArgument, "the token limit must not be negative");

    const auto promptStart = std::chrono::steady_clock::now();
    if (!prompt.empty()) {
        HEARTH_TRY(prefill(prompt));
    } else if (logits().empty()) {
        // Regenerating after truncate(): the logits of the last kept token are gone, so
        // evaluate it again.
        if (position() == 0)
            return Status(ErrorCode::InvalidArgument, "nothing to generate from: the prompt and the session are empty");
        const Token last = history().back();
        truncate(position() - 1);
        HEARTH_TRY(decode(last));
    }
    stats.promptSeconds = secondsSince(promptStart);
    // Penalties look at the context: the prompt, then every generated token.
    for (Token t : prompt)
        sampler.accept(t);

    const auto generateStart = std::chrono::steady_clock::now();
    Generation generation(*this, sampler, maxTokens, onToken, stats);
    HEARTH_TRY(drafter ? decodeWithGuesses(*this, generation, *drafter) : decodeOneByOne(*this, generation));
    stats.generateSeconds = secondsSince(generateStart);
    return stats;
}

} // namespace hearth
