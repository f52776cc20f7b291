// SPDX-License-Identifier: MIT
#pragma once

// What a session needs from an architecture's forward pass. Each model family (llama, falcon,
// opt) implements it in its own file; the session neither knows nor cares which one runs.

#include "model/kv_cache.h"

#include <hearth/tokenizer.h>

#include <cstdint>

namespace hearth::model {

class ArchitectureForward {
public:
    virtual ~ArchitectureForward() = default;

    [[nodiscard]] virtual int contextLength() const = 0;
    [[nodiscard]] virtual int maxBatch() const = 0;
    [[nodiscard]] virtual int vocabSize() const = 0;
    [[nodiscard]] virtual const KvCache& kvCache() const = 0; // the host cache

    // Runs @p n tokens (1 <= n <= maxBatch, ids checked by the caller) at positions
    // [start, start + n) and stores their K/V in the cache; start + n <= contextLength.
    // Writes n rows of vocabulary logits to @p logits when @p allLogits, else only the last row.
    virtual void forward(const Token* tokens, int n, int start, float* logits, bool allLogits) = 0;
};

} // namespace hearth::model
