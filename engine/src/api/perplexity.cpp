// SPDX-License-Identifier: MIT
#include "api/perplexity.h"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace hearth {

Result<PerplexityResult> computePerplexity(Session& session, std::span<const Token> tokens, int maxChunks,
                                           const PerplexityProgress& progress)
{
    const int nCtx = session.contextLength();
    const Tokenizer& tokenizer = session.model().tokenizer();
    const std::size_t vocab = std::size_t(tokenizer.vocabSize());
    if (nCtx < 4)
        return Status(ErrorCode::InvalidArgument, "the context is too short to measure perplexity");
    if (tokens.size() < 2 * std::size_t(nCtx))
        return Status(ErrorCode::InvalidArgument, "the text has " + std::to_string(tokens.size())
                                                      + " tokens; at least " + std::to_string(2 * nCtx)
                                                      + " (two contexts) are needed");
    int chunkCount = int(tokens.size() / std::size_t(nCtx));
    if (maxChunks > 0)
        chunkCount = std::min(chunkCount, maxChunks);

    const auto start = std::chrono::steady_clock::now();
    const int first = nCtx / 2;
    const Token bos = tokenizer.bos();
    const bool replaceWithBos = tokenizer.addsBos() && bos != InvalidToken;

    PerplexityResult result;
    std::vector<Token> chunk(static_cast<std::size_t>(nCtx));
    std::vector<float> logits;
    double nll = 0;
    for (int c = 0; c < chunkCount; ++c) {
        const auto begin = tokens.begin() + std::ptrdiff_t(c) * nCtx;
        std::copy(begin, begin + nCtx, chunk.begin());
        if (replaceWithBos)
            chunk[0] = bos;

        session.reset();
        HEARTH_TRY(session.evaluateAll(chunk, logits));

        // Row j predicts token j + 1 of the chunk; score rows first .. nCtx - 2.
        for (int j = first; j < nCtx - 1; ++j) {
            const float* row = logits.data() + std::size_t(j) * vocab;
            const float maxLogit = *std::max_element(row, row + vocab);
            double sum = 0;
            for (std::size_t v = 0; v < vocab; ++v)
                sum += std::exp(double(row[v]) - double(maxLogit));
            const Token target = begin[j + 1];
            nll += std::log(sum) - (double(row[target]) - double(maxLogit));
            ++result.scoredTokens;
        }
        const double ppl = std::exp(nll / result.scoredTokens);
        result.runningPerplexity.push_back(ppl);
        ++result.chunks;
        if (progress && !progress(c + 1, chunkCount, ppl))
            return Status(ErrorCode::Cancelled, "perplexity measurement was cancelled");
    }
    session.reset();
    result.negativeLogLikelihood = nll / result.scoredTokens;
    result.perplexity = std::exp(result.negativeLogLikelihood);
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
}

} // namespace hearth
