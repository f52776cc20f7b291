// SPDX-License-Identifier: MIT
#pragma once

// Per-token pieces of a decoder block that the falcon and opt forward passes share: causal
// attention of one query head over the KV cache, NeoX-style rotary embeddings and bias adds.

#include <cstdint>

namespace hearth::model {

class KvCache;

// out = softmax(q . K[0..pos] * scale) . V[0..pos] for one head: @p kvOffset picks the head's
// columns in the cache rows of @p layer. @p scores holds at least pos + 1 floats.
void attendCausal(const float* q, const KvCache& cache, int layer, int pos, int kvOffset, int headDim, float scale,
                  float* scores, float* out);

// y[t][i] += bias[i] for @p rows rows of @p dim floats.
void addBias(float* y, const float* bias, int rows, std::int64_t dim);

} // namespace hearth::model
