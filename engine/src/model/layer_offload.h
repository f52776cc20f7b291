// SPDX-License-Identifier: MIT
#pragma once

// The hook through which a forward pass (llama, falcon, opt) lets parts of its layers run on a
// device. The code that drives the device lives in the api layer, so the model library needs no
// device code.

#include "model/kv_cache.h"

#include <cstdint>

namespace hearth::model {

// Runs parts of the layers somewhere else (a device): the leading layers whole (dense files under
// a VRAM budget), the attention block of chosen layers, the predictor of chosen layers, the output
// head. Layers it runs keep their KV cache there and mirror the new rows into the forward pass's
// cache, so a call that fails (returns false) leaves the CPU to take over from that point with
// nothing lost, and truncating a session needs nothing from it. The defaults offload nothing.
class LayerOffload {
public:
    virtual ~LayerOffload() = default;
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
};

} // namespace hearth::model
