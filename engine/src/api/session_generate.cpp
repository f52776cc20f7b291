// SPDX-License-Identifier: MIT
// Session::generate: the prefill-sample-decode loop shared by every architecture.

#include <hearth/session.h>

#include <chrono>

namespace hearth {

namespace {
double secondsSince(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}
} // namespace

Result<GenerationStats> Session::generate(std::span<const Token> prompt, Sampler& sampler, int maxTokens,
                                          const TokenCallback& onToken)
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

    const Tokenizer& tokenizer = model().tokenizer();
    Utf8StreamDecoder text(tokenizer);
    const auto generateStart = std::chrono::steady_clock::now();
    stats.stopReason = StopReason::MaxTokens;
    while (stats.generatedTokens < maxTokens) {
        if (position() >= contextLength()) {
            stats.stopReason = StopReason::ContextFull;
            break;
        }
        const Token token = sampler.sample(logits());
        sampler.accept(token);
        // The end-of-turn token is neither shown nor added to the cache: the chat template
        // writes it when the conversation continues.
        if (tokenizer.isEndOfGeneration(token)) {
            stats.stopReason = StopReason::EndOfGeneration;
            break;
        }
        const bool keepGoing = !onToken || onToken(token, text.push(token));
        // Every token the caller saw is in history(), even the one it stopped at.
        HEARTH_TRY(decode(token));
        ++stats.generatedTokens;
        if (!keepGoing) {
            stats.stopReason = StopReason::Cancelled;
            break;
        }
    }
    stats.generateSeconds = secondsSince(generateStart);
    return stats;
}

} // namespace hearth
