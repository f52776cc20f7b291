// SPDX-License-Identifier: MIT
#pragma once

// What a session needs from an architecture's forward pass. Each model family (llama, falcon,
// opt) implements it in its own file; the session neither knows nor cares which one runs.

#include <hearth/tokenizer.h>

#include <cstdint>

namespace hearth::model {

class ArchitectureForward {
public:
    virtual ~ArchitectureForward() = default;

    [[nodiscard]] virtual int contextLength() const = 0;
    [[nodiscard]] virtual int maxBatch() const = 0;
    [[nodiscard]] virtual int vocabSize() const = 0;
    [[nodiscard]] virtual std::uint64_t kvCacheBytes() const = 0; // the host cache's memory
    [[nodiscard]] virtual std::uint64_t kvCacheBytesAt(int contextLength) const = 0; // at another length
    // True when the cache still holds what a token at @p pos attends to, so a session can go
    // back to @p pos (sliding-window layers keep only their window).
    [[nodiscard]] virtual bool holdsContextOf(int pos) const = 0;

    // Runs @p n tokens (1 <= n <= maxBatch, ids checked by the caller) at positions
    // [start, start + n) and stores their K/V in the cache; start + n <= contextLength.
    // Writes n rows of vocabulary logits to @p logits when @p allLogits, else only the last row.
    virtual void forward(const Token* tokens, int n, int start, float* logits, bool allLogits) = 0;
};

} // namespace hearth::model
