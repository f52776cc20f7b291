// SPDX-License-Identifier: MIT
#pragma once

// Sliding-window attention, the two rules every part shares: which layers slide, and how many
// rows of KV cache a sliding layer keeps (the host cache, the device caches and the planner).

#include <algorithm>
#include <cstdint>

namespace hearth {

// The window of layer @p layer: @p window on every layer with @p period 0 (Phi-3, Mistral), on
// every layer but each period-th otherwise (layer l slides unless (l + 1) % period == 0: Gemma 2
// with 2, Gemma 3 with 6; with @p globalFirst unless l % period == 0: SmallThinker with 4); 0: it
// sees every key.
[[nodiscard]] constexpr int layerWindow(int window, int period, int layer, bool globalFirst = false)
{
    return period > 0 && (globalFirst ? layer : layer + 1) % period == 0 ? 0 : window;
}

// Rows of KV cache a layer with @p window keeps in a context of @p contextLength, batches of
// @p maxBatch: the window's older keys plus a batch, and at least a window's worth of free rows so
// that moving the rows back costs about one row per stored row. Every position without a window.
[[nodiscard]] constexpr std::int64_t slidingWindowRows(std::int64_t contextLength, std::int64_t window,
                                                        std::int64_t maxBatch)
{
    if (window <= 0)
        return contextLength;
    return std::min(contextLength, window - 1 + std::max({window, maxBatch, std::int64_t(1)}));
}

} // namespace hearth
