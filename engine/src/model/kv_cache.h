// SPDX-License-Identifier: MIT
#pragma once

// The attention key/value cache of one session: F32, per layer [position][kvDim] for K and V.

#include <hearth/status.h>

#include <cstdint>
#include <memory>
#include <vector>

namespace hearth::model {

class KvCache {
public:
    // Fails with ErrorCode::OutOfMemory rather than throwing when the cache does not fit.
    static Result<std::unique_ptr<KvCache>> create(int nLayer, int nCtx, int kvDim);

    [[nodiscard]] int capacity() const { return m_nCtx; }
    [[nodiscard]] int kvDim() const { return m_kvDim; }
    [[nodiscard]] std::uint64_t byteSize() const { return (m_k.size() + m_v.size()) * sizeof(float); }

    // Row of @p pos in @p layer (kvDim floats); rows of consecutive positions are adjacent.
    [[nodiscard]] float* k(int layer, int pos) { return m_k.data() + offset(layer, pos); }
    [[nodiscard]] float* v(int layer, int pos) { return m_v.data() + offset(layer, pos); }
    [[nodiscard]] const float* k(int layer, int pos) const { return m_k.data() + offset(layer, pos); }
    [[nodiscard]] const float* v(int layer, int pos) const { return m_v.data() + offset(layer, pos); }

private:
    KvCache() = default;
    [[nodiscard]] std::size_t offset(int layer, int pos) const
    {
        return (std::size_t(layer) * std::size_t(m_nCtx) + std::size_t(pos)) * std::size_t(m_kvDim);
    }

    int m_nCtx = 0;
    int m_kvDim = 0;
    std::vector<float> m_k;
    std::vector<float> m_v;
};

} // namespace hearth::model
