// SPDX-License-Identifier: MIT
#include "model/kv_cache.h"

#include <new>
#include <string>

namespace hearth::model {

Result<std::unique_ptr<KvCache>> KvCache::create(int nLayer, int nCtx, int kvDim)
{
    if (nLayer <= 0 || nCtx <= 0 || kvDim <= 0)
        return Status(ErrorCode::InvalidArgument, "invalid KV cache dimensions");
    std::unique_ptr<KvCache> cache(new KvCache);
    cache->m_nCtx = nCtx;
    cache->m_kvDim = kvDim;
    const std::size_t n = std::size_t(nLayer) * std::size_t(nCtx) * std::size_t(kvDim);
    try {
        cache->m_k.resize(n);
        cache->m_v.resize(n);
    } catch (const std::bad_alloc&) {
        return Status(ErrorCode::OutOfMemory, "not enough memory for a KV cache of "
                                                  + std::to_string(2 * n * sizeof(float) >> 20) + " MiB");
    }
    return cache;
}

} // namespace hearth::model
