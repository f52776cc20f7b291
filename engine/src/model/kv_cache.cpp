// SPDX-License-Identifier: MIT
#include "model/kv_cache.h"

#include "cpu/quant.h"

#include <algorithm>
#include <cstdint>
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

int KvCache::rowsFor(int nCtx, int window, int maxBatch)
{
    return int(slidingWindowRows(nCtx, window, maxBatch));
}

Result<std::unique_ptr<KvCache>> KvCache::create(int nLayer, int nCtx, int kvDim, Type type,
                                                 const std::vector<int>& windows, int maxBatch)
{
    if (nLayer <= 0 || nCtx <= 0 || kvDim <= 0 || (!windows.empty() && windows.size() != std::size_t(nLayer))
        || (type == Type::Q8_0 && kvDim % QK8_0 != 0))
        return Status(ErrorCode::InvalidArgument, "invalid KV cache dimensions");
    std::unique_ptr<KvCache> cache(new KvCache);
    cache->m_nCtx = nCtx;
    cache->m_kvDim = kvDim;
    cache->m_type = type;
    cache->m_maxBatch = maxBatch;
    cache->m_layers.resize(std::size_t(nLayer));
    for (std::size_t l = 0; l < std::size_t(nLayer); ++l) {
        LayerRows& rows = cache->m_layers[l];
        rows.layerWindow = windows.empty() ? 0 : std::max(0, windows[l]);
        rows.window = rows.layerWindow;
        rows.rows = rowsFor(nCtx, rows.window, maxBatch);
        if (rows.rows == nCtx)
            rows.window = 0; // it holds every position anyway
        rows.first = std::size_t(cache->m_rows);
        cache->m_rows += std::uint64_t(rows.rows);
    }
    try {
        for (Rows* rows : {&cache->m_k, &cache->m_v})
            allocate(*rows, std::size_t(cache->elements()), cache->m_type);
    } catch (const std::bad_alloc&) {
        return outOfMemory(cache->byteSize());
    }
    return cache;
}

void KvCache::allocate(Rows& rows, std::size_t elements, Type type)
{
    switch (type) {
    case Type::F16:
        rows.f16.resize(elements);
        break;
    case Type::F32:
        rows.f32.resize(elements);
        break;
    case Type::Q8_0:
        rows.q8.resize(elements / QK8_0);
        break;
    }
}

const void* KvCache::at(const Rows& rows, std::size_t at) const
{
    switch (m_type) {
    case Type::F16:
        return rows.f16.data() + at;
    case Type::F32:
        return rows.f32.data() + at;
    case Type::Q8_0:
        return rows.q8.data() + at / QK8_0;
    }
    return nullptr;
}

void KvCache::store(Rows& rows, std::size_t at, const float* x) const
{
    switch (m_type) {
    case Type::F32:
        std::memcpy(rows.f32.data() + at, x, sizeof(float) * std::size_t(m_kvDim));
        break;
    case Type::F16:
        cpu::quantizeRow(DType::F16, x, rows.f16.data() + at, m_kvDim);
        break;
    case Type::Q8_0:
        cpu::quantizeRow(DType::Q8_0, x, rows.q8.data() + at / QK8_0, m_kvDim);
        break;
    }
}

KvCache::Type KvCache::typeOf(KvCacheType type)
{
    switch (type) {
    case KvCacheType::F32:
        return Type::F32;
    case KvCacheType::Q8_0:
        return Type::Q8_0;
    case KvCacheType::F16:
        break;
    }
    return Type::F16;
}

KvCacheType KvCache::publicType(Type type)
{
    switch (type) {
    case Type::F32:
        return KvCacheType::F32;
    case Type::Q8_0:
        return KvCacheType::Q8_0;
    case Type::F16:
        break;
    }
    return KvCacheType::F16;
}

std::uint64_t KvCache::bytesOf(Type type, std::uint64_t elements)
{
    switch (type) {
    case Type::F16:
        return elements * 2;
    case Type::F32:
        return elements * 4;
    case Type::Q8_0:
        return elements / QK8_0 * sizeof(BlockQ8_0);
    }
    return 0;
}

void KvCache::store(int layer, int pos, const float* k, const float* v)
{
    const std::size_t at = offset(layer, pos);
    store(m_k, at, k);
    store(m_v, at, v);
}

void KvCache::moveRows(std::size_t first, std::size_t from, std::size_t to, std::size_t count)
{
    // Items of a buffer per row: elements, or Q8_0 blocks.
    const std::size_t kv = std::size_t(m_kvDim) / (m_type == Type::Q8_0 ? QK8_0 : 1);
    const auto move = [&](auto& buffer) {
        if (!buffer.empty())
            std::memmove(buffer.data() + (first + to) * kv, buffer.data() + (first + from) * kv,
                         count * kv * sizeof(buffer[0]));
    };
    for (Rows* rows : {&m_k, &m_v}) {
        move(rows->f16);
        move(rows->f32);
        move(rows->q8);
    }
}

void KvCache::prepare(int start, int n)
{
    for (LayerRows& l : m_layers) {
        if (l.window == 0)
            continue;
        if (start == 0) {
            l.base = 0;
            continue;
        }
        if (start + n - l.base <= l.rows)
            continue;
        // Keep the rows the batch's first query still sees: (start - window, start).
        const int keepFrom = std::max(l.base, start - l.window + 1);
        moveRows(l.first, std::size_t(keepFrom - l.base), 0, std::size_t(start - keepFrom));
        l.base = keepFrom;
    }
}

std::uint64_t KvCache::byteSizeAt(int nCtx) const
{
    std::uint64_t rows = 0;
    for (const LayerRows& l : m_layers)
        rows += std::uint64_t(rowsFor(nCtx, l.layerWindow, m_maxBatch));
    return 2 * bytesOf(rows * std::uint64_t(m_kvDim));
}

bool KvCache::holdsContextOf(int pos) const
{
    return std::all_of(m_layers.begin(), m_layers.end(), [pos](const LayerRows& l) {
        return l.window == 0 || pos == 0 || std::max(0, pos - l.window + 1) >= l.base;
    });
}

const void* KvCache::keys(int layer, int pos) const
{
    return at(m_k, offset(layer, pos));
}

const void* KvCache::values(int layer, int pos) const
{
    return at(m_v, offset(layer, pos));
}

Status KvCache::useType(Type type)
{
    if (m_type == type)
        return {};
    if (type == Type::Q8_0)
        return Status(ErrorCode::InvalidArgument, "a cache is not made Q8_0 after the fact");
    const std::size_t n = std::size_t(elements());
    // A Q8_0 cache becomes F16 through floats, a row at a time.
    Buffer<float> wide;
    Rows k;
    Rows v;
    try {
        if (m_type == Type::Q8_0 && type == Type::F16)
            wide.resize(std::size_t(m_kvDim));
        allocate(k, n, type);
        allocate(v, n, type);
    } catch (const std::bad_alloc&) {
        return outOfMemory(2 * bytesOf(type, n));
    }
    for (auto [from, to] : {std::pair{&m_k, &k}, std::pair{&m_v, &v}}) {
        if (type == Type::F32) {
            cpu::dequantizeRow(m_type == Type::F16 ? DType::F16 : DType::Q8_0, at(*from, 0), to->f32.data(),
                               std::int64_t(n));
        } else if (m_type == Type::F32) {
            cpu::quantizeRow(DType::F16, from->f32.data(), to->f16.data(), std::int64_t(n));
        } else {
            for (std::size_t row = 0; row < n; row += std::size_t(m_kvDim)) {
                cpu::dequantizeRow(DType::Q8_0, at(*from, row), wide.data(), m_kvDim);
                cpu::quantizeRow(DType::F16, wide.data(), to->f16.data() + row, m_kvDim);
            }
        }
    }
    m_k = std::move(k);
    m_v = std::move(v);
    m_type = type;
    return {};
}

} // namespace hearth::model
