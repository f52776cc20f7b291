// SPDX-License-Identifier: MIT
#pragma once

// Hybrid FFN placement against whole-layer offload at the same VRAM budget, for hearth-hybrid-bench.
// One layer of each kind is timed and the model's decode time is composed from them:
//
//   whole-layer offload: k layers (attention, KV cache, dense FFN) on the device, as many as the
//       budget holds, the other layers dense on the CPU;
//   hybrid: every layer's attention on the CPU, its FFN split with the hottest neurons (as many
//       bytes as the budget holds, spread evenly over the layers) on the device and the
//       predicted-active cold ones on the CPU.
//
// Composing from one layer keeps the run short (a 7B model's layers need not all exist) and is
// what decode is: the same work per layer, in sequence.

#include "core/dtype.h"
#include "device/device.h"

#include <cstdint>
#include <string>
#include <vector>

namespace hearth::cpu {
class ThreadPool;
}

namespace hearth::gpucheck {

struct OffloadShape {
    std::int64_t nEmbd = 4096;
    std::int64_t nFF = 11008;
    std::int32_t nHead = 32;
    std::int32_t nHeadKv = 32;
    std::int32_t nLayer = 32;
    std::int32_t contextLength = 512;
    std::int32_t position = 256; // where the timed tokens sit (attention reads this many rows)
};

// Runs the comparison at a budget of @p ffnShare of all layers' FFN weights; returns a JSON
// object (or an "error" member) and prints a table. @p byFrequency: neurons, most frequent first;
// @p activeSets: each token's predicted-active neurons.
[[nodiscard]] std::string compareWithWholeLayers(device::Device& device, cpu::ThreadPool& pool, DType type,
                                                 const OffloadShape& shape, double ffnShare,
                                                 const std::vector<std::int32_t>& byFrequency,
                                                 const std::vector<std::vector<std::int32_t>>& activeSets);

} // namespace hearth::gpucheck
