// SPDX-License-Identifier: MIT
#include "model/decoder_ops.h"

#include "cpu/kernels.h"
#include "cpu/ops.h"
#include "model/kv_cache.h"

#include <algorithm>
#include <cstring>

namespace hearth::model {

void attendCausal(const float* q, std::size_t qStride, int n, int start, const KvCache& cache, int layer, int kvOffset,
                  int headDim, float scale, float* scratch, float* out, std::size_t outStride, int window)
{
    if (window > 0 && start + n > window) {
        // Some query's window starts past key 0. The kernels attend causally from their first
        // key, so each query goes alone, from the first key of its own window.
        for (int t = 0; t < n; ++t) {
            const int pos = start + t;
            const int first = std::max(0, pos - window + 1);
            cpu::AttendHeadArgs a;
            a.q = q + std::size_t(t) * qStride;
            a.qStride = qStride;
            a.nq = 1;
            a.firstPos = pos - first;
            a.k = cache.k(layer, first) + kvOffset;
            a.v = cache.v(layer, first) + kvOffset;
            a.kvStride = std::size_t(cache.kvDim());
            a.headDim = headDim;
            a.scale = scale;
            a.out = out + std::size_t(t) * outStride;
            a.outStride = outStride;
            a.scratch = scratch;
            cpu::activeKernels().attendHead(a);
        }
        return;
    }
    cpu::AttendHeadArgs a;
    a.q = q;
    a.qStride = qStride;
    a.nq = n;
    a.firstPos = start;
    a.k = cache.k(layer, 0) + kvOffset;
    a.v = cache.v(layer, 0) + kvOffset;
    a.kvStride = std::size_t(cache.kvDim());
    a.headDim = headDim;
    a.scale = scale;
    a.out = out;
    a.outStride = outStride;
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
