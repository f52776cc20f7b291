// SPDX-License-Identifier: MIT
#pragma once

// Perplexity of a text under a model, computed as llama.cpp's perplexity tool does so that
// numbers are comparable: the tokens (BOS-prefixed) are cut into non-overlapping chunks of the
// context length, each chunk starts with BOS in place of its first token, and only the second
// half of each chunk is scored (every scored token sees at least half a context of history).

#include <hearth/session.h>
#include <hearth/status.h>

#include <functional>
#include <span>
#include <vector>

namespace hearth {

struct PerplexityResult {
    double perplexity = 0;
    double negativeLogLikelihood = 0; // mean over scored tokens, in nats
    int chunks = 0;
    int scoredTokens = 0;
    double seconds = 0;
    std::vector<double> runningPerplexity; // the estimate after each chunk
};

// Called after each chunk with (chunks done, chunk count, perplexity so far); false cancels.
using PerplexityProgress = std::function<bool(int done, int total, double perplexity)>;

// Evaluates @p tokens in chunks of @p session's context length, resetting it before each chunk.
// Needs at least two chunks' worth of tokens. @p maxChunks > 0 limits the chunks evaluated.
Result<PerplexityResult> computePerplexity(Session& session, std::span<const Token> tokens, int maxChunks = 0,
                                           const PerplexityProgress& progress = {});

} // namespace hearth
