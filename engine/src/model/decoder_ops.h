// SPDX-License-Identifier: MIT
#pragma once

// Per-token pieces of a decoder block that the falcon and opt forward passes share: causal
// attention of one query head over the KV cache, NeoX-style rotary embeddings and bias adds.

#include <cstdint>

namespace hearth::model {

class KvCache;

// out = softmax(q . K[0..pos] * scale) . V[0..pos] for one head and @p n queries at positions
// [start, start + n) (a prompt, or n = 1 for a decoded token): query t at q + t * qStride, its
// output at out + t * outStride; @p kvOffset picks the head's columns in the cache rows of
// @p layer. @p scratch holds cpu::attendHeadScratchFloats(start + n, headDim) floats.
// @p window > 0: sliding-window attention, a query at position p sees the keys of positions
// (p - window, p] only (llama.cpp's SWA mask).
// @p softCap > 0: the scores are soft-capped before the softmax (cpu::AttendHeadArgs::softCap).
// @p sink (optional): the head's attention sink score (cpu::AttendHeadArgs::sinks).
void attendCausal(const float* q, std::size_t qStride, int n, int start, const KvCache& cache, int layer, int kvOffset,
                  int headDim, float scale, float* scratch, float* out, std::size_t outStride, int window = 0,
                  float softCap = 0.0f, const float* sink = nullptr);

// One decoded token's attention at @p pos for the @p nq query heads (q + i * headDim, outputs
// likewise) that share the KV head at @p kvOffset: each cache row is read once for all of them.
// @p scratch, @p window and @p softCap as for attendCausal; @p sinks (optional): the nq heads'.
void attendSharedKv(const float* q, int nq, int pos, const KvCache& cache, int layer, int kvOffset, int headDim,
                    float scale, float* scratch, float* out, int window = 0, float softCap = 0.0f,
                    const float* sinks = nullptr);

// y[t][i] += bias[i] for @p rows rows of @p dim floats.
void addBias(float* y, const float* bias, int rows, std::int64_t dim);

} // namespace hearth::model
