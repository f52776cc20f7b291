// SPDX-License-Identifier: MIT
#include "model/decoder_ops.h"

#include "cpu/kernels.h"
#include "cpu/ops.h"
#include "model/kv_cache.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace hearth::model {

namespace {

// Head @p kvOffset's columns of @p layer's cache rows from position @p pos on.
void setKv(cpu::AttendHeadArgs& a, const KvCache& cache, int layer, int pos, int kvOffset)
{
    // Bytes of the head's offset, and items (elements or Q8_0 blocks) a row.
    std::size_t offset = std::size_t(kvOffset) * 4;
    std::size_t items = std::size_t(cache.kvDim());
    switch (cache.type()) {
    case KvCache::Type::F32:
        a.kvType = cpu::KvElement::F32;
        break;
    case KvCache::Type::F16:
        a.kvType = cpu::KvElement::F16;
        offset = std::size_t(kvOffset) * 2;
        break;
    case KvCache::Type::Q8_0:
        a.kvType = cpu::KvElement::Q8_0;
        offset = std::size_t(kvOffset) / QK8_0 * sizeof(BlockQ8_0);
        items /= QK8_0;
        break;
    }
    a.k = static_cast<const std::byte*>(cache.keys(layer, pos)) + offset;
    a.v = static_cast<const std::byte*>(cache.values(layer, pos)) + offset;
    a.kvStride = items;
}

} // namespace

void attendCausal(const float* q, std::size_t qStride, int n, int start, const KvCache& cache, int layer, int kvOffset,
                  int headDim, float scale, float* scratch, float* out, std::size_t outStride, int window,
                  float softCap, const float* sink)
{
    cpu::AttendHeadArgs a;
    a.sinks = sink;
    a.qStride = qStride;
    a.headDim = headDim;
    a.scale = scale;
    a.softCap = softCap;
    a.outStride = outStride;
    a.scratch = scratch;
    if (window > 0 && start + n > window) {
        // Some query's window starts past key 0. The kernels attend causally from their first
        // key, so each query goes alone, from the first key of its own window.
        for (int t = 0; t < n; ++t) {
            const int pos = start + t;
            const int first = std::max(0, pos - window + 1);
            setKv(a, cache, layer, first, kvOffset);
            a.q = q + std::size_t(t) * qStride;
            a.nq = 1;
            a.firstPos = pos - first;
            a.out = out + std::size_t(t) * outStride;
            cpu::activeKernels().attendHead(a);
        }
        return;
    }
    setKv(a, cache, layer, 0, kvOffset);
    a.q = q;
    a.nq = n;
    a.firstPos = start;
    a.out = out;
    cpu::activeKernels().attendHead(a);
}

void attendSharedKv(const float* q, int nq, int pos, const KvCache& cache, int layer, int kvOffset, int headDim,
                    float scale, float* scratch, float* out, int window, float softCap, const float* sinks)
{
    const int first = window > 0 ? std::max(0, pos - window + 1) : 0;
    cpu::AttendHeadArgs a;
    setKv(a, cache, layer, first, kvOffset);
    a.q = q;
    a.qStride = std::size_t(headDim);
    a.nq = nq;
    a.firstPos = pos - first;
    a.samePosition = true;
    a.headDim = headDim;
    a.scale = scale;
    a.softCap = softCap;
    a.sinks = sinks;
    a.out = out;
    a.outStride = std::size_t(headDim);
    a.scratch = scratch;
    cpu::activeKernels().attendHead(a);
}

void addBias(float* y, const float* bias, int rows, std::int64_t dim)
{
    if (!bias)
        return;
    for (int t = 0; t < rows; ++t)
        cpu::add(y + std::int64_t(t) * dim, bias, dim);
}

} // namespace hearth::model
