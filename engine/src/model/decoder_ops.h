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

// The same for @p n queries of one head at positions [start, start + n) (a prompt): query t
// at q + t * qStride, its output at out + t * outStride. Several queries are scored against a
// vector of keys at once (cpu::AttendHeadArgs). @p scratch holds
// cpu::attendHeadScratchFloats(start + n, headDim) floats.
void attendCausalBatch(const float* q, std::size_t qStride, int n, int start, const KvCache& cache, int layer,
                       int kvOffset, int headDim, float scale, float* scratch, float* out, std::size_t outStride);

// y[t][i] += bias[i] for @p rows rows of @p dim floats.
void addBias(float* y, const float* bias, int rows, std::int64_t dim);

} // namespace hearth::model
