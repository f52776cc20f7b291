// SPDX-License-Identifier: MIT
#pragma once

// The hook through which a forward pass (llama, falcon, opt) lets parts of its layers run on a
// device. The code that drives the device lives in the api layer, so the model library needs no
// device code.

#include "model/kv_cache.h"

#include <cstdint>
#include <span>

namespace hearth::model {

// One mixture-of-experts layer's work for a batch, as MoeFfn lays it out: the (token, expert)
// pairs' input rows grouped by expert (expert e's rows are [first[e], first[e + 1])), and the
// batch's own rows for the shared expert.
struct ExpertBatch {
    const float* gathered = nullptr;     // [pairs][nEmbd]
    const std::int32_t* first = nullptr; // [nExpert + 1]
    float* out = nullptr;                // [pairs][nEmbd]: each pair's expert output, same rows
    const float* input = nullptr;        // [tokens][nEmbd]: the FFN's normalized input
    int tokens = 0;
    float* sharedOut = nullptr;          // [tokens][nEmbd]: the shared expert's output; null: none
};

// Runs parts of the layers somewhere else (a device): the leading layers whole (dense files under
// a VRAM budget), the attention block of chosen layers, the predictor of chosen layers, some
// experts of mixture-of-experts layers, the output head. Layers it runs keep their KV cache there and mirror the new rows into the forward pass's
// cache, so a call that fails (returns false) leaves the CPU to take over from that point with
// nothing lost, and truncating a session needs nothing from it. The defaults offload nothing.
class LayerOffload {
public:
    virtual ~LayerOffload() = default;
    // The type of the device's KV cache, which the forward pass's cache takes so the device can
    // copy its rows there (F16 or F32).
    [[nodiscard]] virtual KvCache::Type cacheType() const { return KvCache::Type::F32; }
    // Layers [0, wholeLayers()) run entirely through runWholeLayers().
    [[nodiscard]] virtual int wholeLayers() const { return 0; }
    // Runs those layers for @p n tokens at positions [start, start + n) on @p x (n rows of
    // nEmbd, in and out), mirroring their K/V rows into @p cache. x is undefined on failure.
    [[nodiscard]] virtual bool runWholeLayers(KvCache& /*cache*/, float* /*x*/, int /*n*/, int /*start*/)
    {
        return false;
    }
    [[nodiscard]] virtual bool hasAttention(int /*layer*/) const { return false; }
    // @p out (n rows of nEmbd) = the attention block of @p layer for the rows of @p x, before
    // the residual add; K/V rows mirrored into @p cache.
    [[nodiscard]] virtual bool runAttention(KvCache& /*cache*/, int /*layer*/, const float* /*x*/, int /*n*/,
                                            int /*start*/, float* /*out*/)
    {
        return false;
    }
    // @p logits (rows x nVocab) = the output head (final norm and projection, no soft-capping)
    // of @p rows rows of @p x, the residual stream after the last layer; false when the output
    // head is not there (or failed), so the CPU computes them.
    [[nodiscard]] virtual bool runOutput(const float* /*x*/, int /*rows*/, float* /*logits*/) { return false; }
    // The predicted-active neurons of one token (ascending ids into @p active, which holds
    // nFf), from the predictor's input @p x (llama and opt: the residual stream before the FFN
    // norm; falcon: the layer input); -1 when @p layer's predictor is not there (or failed), so
    // the CPU predicts.
    [[nodiscard]] virtual std::int64_t predict(int /*layer*/, const float* /*x*/, float /*threshold*/,
                                               std::int32_t* /*active*/)
    {
        return -1;
    }
    // Which experts of @p layer the device holds: nExpert + 1 flags (the last one: the shared
    // expert), or empty when it holds none.
    [[nodiscard]] virtual std::span<const std::uint8_t> deviceExperts(int /*layer*/) const { return {}; }
    // Queues the device's experts of @p layer over their rows of @p batch, their outputs into the
    // same rows of batch.out (and batch.sharedOut), and returns at once, so the CPU computes the
    // other experts meanwhile. false: nothing is queued (the device has failed).
    [[nodiscard]] virtual bool startExperts(int /*layer*/, const ExpertBatch& /*batch*/) { return false; }
    // Waits for what startExperts() queued; false when it failed, its rows undefined.
    [[nodiscard]] virtual bool finishExperts() { return false; }
};

} // namespace hearth::model
