// SPDX-License-Identifier: MIT
#include "model/kv_cache.h"

#include "core/fp16.h"
#include "cpu/quant.h"

#include <algorithm>
#include <cstring>
#include <new>
#include <string>

namespace hearth::model {

namespace {

Status outOfMemory(std::uint64_t bytes)
{
    return Status(ErrorCode::OutOfMemory, "not enough memory for a KV cache of " + std::to_string(bytes >> 20) + " MiB");
}

} // namespace

Result<std::unique_ptr<KvCache>> KvCache::create(int nLayer, int nCtx, int kvDim, Type type)
{
    if (nLayer <= 0 || nCtx <= 0 || kvDim <= 0)
        return Status(ErrorCode::InvalidArgument, "invalid KV cache dimensions");
    std::unique_ptr<KvCache> cache(new KvCache);
    cache->m_nLayer = nLayer;
    cache->m_nCtx = nCtx;
    cache->m_kvDim = kvDim;
    cache->m_type = type;
    const std::size_t n = std::size_t(cache->elements());
    try {
        if (type == Type::F16) {
            cache->m_k16.resize(n);
            cache->m_v16.resize(n);
        } else {
            cache->m_k32.resize(n);
            cache->m_v32.resize(n);
        }
    } catch (const std::bad_alloc&) {
        return outOfMemory(cache->byteSize());
    }
    return cache;
}

void KvCache::store(int layer, int pos, const float* k, const float* v)
{
    const std::size_t at = offset(layer, pos);
    if (m_type == Type::F32) {
        std::memcpy(m_k32.data() + at, k, sizeof(float) * std::size_t(m_kvDim));
        std::memcpy(m_v32.data() + at, v, sizeof(float) * std::size_t(m_kvDim));
        return;
    }
    cpu::quantizeRow(DType::F16, k, m_k16.data() + at, m_kvDim);
    cpu::quantizeRow(DType::F16, v, m_v16.data() + at, m_kvDim);
}

const void* KvCache::keys(int layer, int pos) const
{
    return m_type == Type::F16 ? static_cast<const void*>(m_k16.data() + offset(layer, pos))
                               : static_cast<const void*>(m_k32.data() + offset(layer, pos));
}

const void* KvCache::values(int layer, int pos) const
{
    return m_type == Type::F16 ? static_cast<const void*>(m_v16.data() + offset(layer, pos))
                               : static_cast<const void*>(m_v32.data() + offset(layer, pos));
}

Status KvCache::useF32()
{
    if (m_type == Type::F32)
        return {};
    const std::size_t n = std::size_t(elements());
    std::vector<float> k;
    std::vector<float> v;
    try {
        k.resize(n);
        v.resize(n);
    } catch (const std::bad_alloc&) {
        return outOfMemory(2 * n * sizeof(float));
    }
    std::transform(m_k16.begin(), m_k16.end(), k.begin(), halfToFloat);
    std::transform(m_v16.begin(), m_v16.end(), v.begin(), halfToFloat);
    m_k32 = std::move(k);
    m_v32 = std::move(v);
    m_k16 = {};
    m_v16 = {};
    m_type = Type::F32;
    return {};
}

} // namespace hearth::model
