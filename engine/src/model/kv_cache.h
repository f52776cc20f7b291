// SPDX-License-Identifier: MIT
#pragma once

// The attention key/value cache of one session, per layer [position][kvDim] for K and V.
// F16 by default: half the memory of F32 (an 8B model's 32k-token context takes 4 GiB instead
// of 8), and the attention kernels widen the rows as they read them. F32 for sessions whose
// device layers mirror their rows into it (the devices keep F32 caches and copy rows back).

#include <hearth/status.h>

#include <cstdint>
#include <memory>
#include <vector>

namespace hearth::model {

class KvCache {
public:
    enum class Type { F16, F32 };

    // Fails with ErrorCode::OutOfMemory rather than throwing when the cache does not fit.
    static Result<std::unique_ptr<KvCache>> create(int nLayer, int nCtx, int kvDim, Type type = Type::F16);

    [[nodiscard]] int capacity() const { return m_nCtx; }
    [[nodiscard]] int kvDim() const { return m_kvDim; }
    [[nodiscard]] Type type() const { return m_type; }
    [[nodiscard]] std::uint64_t byteSize() const { return 2 * elements() * (m_type == Type::F16 ? 2 : 4); }

    // Writes the K and V rows (kvDim floats each) of @p pos in @p layer, in the cache's type.
    void store(int layer, int pos, const float* k, const float* v);

    // The rows of @p pos as stored (F16 halves as std::uint16_t, or floats); rows of
    // consecutive positions are adjacent.
    [[nodiscard]] const void* keys(int layer, int pos) const;
    [[nodiscard]] const void* values(int layer, int pos) const;

    // F32 caches only: the rows, which device layers write directly.
    [[nodiscard]] float* k(int layer, int pos) { return m_k32.data() + offset(layer, pos); }
    [[nodiscard]] float* v(int layer, int pos) { return m_v32.data() + offset(layer, pos); }

    // Makes the cache F32, keeping what it holds. OutOfMemory leaves it as it was.
    [[nodiscard]] Status useF32();

private:
    KvCache() = default;
    [[nodiscard]] std::size_t offset(int layer, int pos) const
    {
        return (std::size_t(layer) * std::size_t(m_nCtx) + std::size_t(pos)) * std::size_t(m_kvDim);
    }
    [[nodiscard]] std::uint64_t elements() const { return std::uint64_t(m_nLayer) * std::uint64_t(m_nCtx) * std::uint64_t(m_kvDim); }

    int m_nLayer = 0;
    int m_nCtx = 0;
    int m_kvDim = 0;
    Type m_type = Type::F16;
    std::vector<std::uint16_t> m_k16; // F16
    std::vector<std::uint16_t> m_v16;
    std::vector<float> m_k32;         // F32
    std::vector<float> m_v32;
};

} // namespace hearth::model
