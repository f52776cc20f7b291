// SPDX-License-Identifier: MIT
#pragma once

// The attention key/value cache of one session, per layer [position][kvDim] for K and V.
// F16 by default: half the memory of F32 (an 8B model's 32k-token context takes 4 GiB instead
// of 8), and the attention kernels widen the rows as they read them. Sessions whose device layers
// mirror their rows into it keep it in the devices' type, F16 or F32 (devices copy rows back).
//
// A sliding-window layer keeps only the rows its queries can still see: room for its window
// plus a batch, with the newest rows moved back to the front when a batch would run past the
// end (prepare()), so the rows of consecutive positions stay adjacent for the kernels. Gemma 3
// at 32k tokens keeps 1/6 of its layers in full and the rest at 1-2k rows each. Such a cache
// cannot go back further than its windows reach (holdsContextOf()).

#include "core/aligned_allocator.h"
#include "core/dtype.h"
#include "core/sliding_window.h"

#include <hearth/session.h>
#include <hearth/status.h>

#include <cstdint>
#include <memory>
#include <vector>

namespace hearth::model {

class KvCache {
public:
    // Q8_0: llama.cpp's blocks of 32 bytes and an F16 scale, 1.06 bytes an element, for rows of
    // a multiple of 32 (heads of a multiple of 32, so each head starts a block).
    enum class Type { F16, F32, Q8_0 };

    // @p windows, when not empty, holds each layer's sliding window (0: none); @p maxBatch is the
    // most positions one batch stores. Fails with ErrorCode::OutOfMemory rather than throwing
    // when the cache does not fit.
    static Result<std::unique_ptr<KvCache>> create(int nLayer, int nCtx, int kvDim, Type type = Type::F16,
                                                   const std::vector<int>& windows = {}, int maxBatch = 1);
    // The type a session asks for (SessionParams::kvCache), and back.
    [[nodiscard]] static Type typeOf(KvCacheType type);
    [[nodiscard]] static KvCacheType publicType(Type type);
    // Bytes of @p elements stored as @p type (a multiple of QK8_0 for Q8_0).
    [[nodiscard]] static std::uint64_t bytesOf(Type type, std::uint64_t elements);
    // @p wanted for heads of @p headDim: F16 instead of a Q8_0 the heads do not suit.
    [[nodiscard]] static Type typeFor(Type wanted, int headDim)
    {
        return wanted == Type::Q8_0 && headDim % QK8_0 != 0 ? Type::F16 : wanted;
    }
    // The rows a layer with @p window keeps in a context of @p nCtx with batches of @p maxBatch.
    [[nodiscard]] static int rowsFor(int nCtx, int window, int maxBatch);
    // What this cache would take with @p nCtx positions and otherwise the same layers.
    [[nodiscard]] std::uint64_t byteSizeAt(int nCtx) const;

    [[nodiscard]] int capacity() const { return m_nCtx; } // positions a session may reach
    [[nodiscard]] int kvDim() const { return m_kvDim; }
    [[nodiscard]] Type type() const { return m_type; }
    [[nodiscard]] std::uint64_t byteSize() const { return 2 * bytesOf(elements()); }

    // Makes room for a batch of @p n positions from @p start, which holdsContextOf(start) allows.
    void prepare(int start, int n);
    // True when every layer still holds the rows a token at @p pos attends to.
    [[nodiscard]] bool holdsContextOf(int pos) const;

    // Writes the K and V rows (kvDim floats each) of @p pos in @p layer, in the cache's type.
    void store(int layer, int pos, const float* k, const float* v);

    // The rows of @p pos as stored (F16 halves as std::uint16_t, floats, or BlockQ8_0); rows of
    // consecutive positions are adjacent.
    [[nodiscard]] const void* keys(int layer, int pos) const;
    [[nodiscard]] const void* values(int layer, int pos) const;

    // F32 and F16 caches: the rows, which device layers write directly.
    [[nodiscard]] void* k(int layer, int pos) { return const_cast<void*>(keys(layer, pos)); }
    [[nodiscard]] void* v(int layer, int pos) { return const_cast<void*>(values(layer, pos)); }

    // Makes the cache F32 or F16, keeping what it holds (a Q8_0 cache's rows widened). Nothing to
    // do when it already is; OutOfMemory leaves it as it was.
    [[nodiscard]] Status useType(Type type);

private:
    KvCache() = default;
    struct LayerRows {
        std::size_t first = 0; // row of the layer's slot 0 in the buffers
        int rows = 0;          // slots
        int window = 0;        // 0: every position has a slot
        int base = 0;          // the position in slot 0
        int layerWindow = 0;   // the layer's sliding window, even when the context is shorter
    };
    [[nodiscard]] std::size_t offset(int layer, int pos) const
    {
        const LayerRows& l = m_layers[std::size_t(layer)];
        return (l.first + std::size_t(pos - l.base)) * std::size_t(m_kvDim);
    }
    [[nodiscard]] std::uint64_t elements() const { return m_rows * std::uint64_t(m_kvDim); }
    [[nodiscard]] std::uint64_t bytesOf(std::uint64_t elements) const { return bytesOf(m_type, elements); }
    // The K or the V rows of every layer, in the cache's type (the other vectors stay empty),
    // page-aligned so that a row of 64-byte multiples fills whole cache lines.
    template <typename T>
    using Buffer = std::vector<T, AlignedAllocator<T>>;
    struct Rows {
        Buffer<std::uint16_t> f16;
        Buffer<float> f32;
        Buffer<BlockQ8_0> q8;
    };
    // Sizes @p rows for @p elements of @p type; throws std::bad_alloc.
    static void allocate(Rows& rows, std::size_t elements, Type type);
    // Element @p at of @p rows as stored.
    [[nodiscard]] const void* at(const Rows& rows, std::size_t at) const;
    void store(Rows& rows, std::size_t at, const float* x) const;
    // Moves @p count rows of every buffer from slot @p from to slot @p to of the layer starting at @p first.
    void moveRows(std::size_t first, std::size_t from, std::size_t to, std::size_t count);

    int m_nCtx = 0;
    int m_kvDim = 0;
    int m_maxBatch = 1;
    std::vector<LayerRows> m_layers;
    std::uint64_t m_rows = 0; // of all layers
    Type m_type = Type::F16;
    Rows m_k;
    Rows m_v;
};

} // namespace hearth::model
