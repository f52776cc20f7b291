// SPDX-License-Identifier: MIT
#pragma once

// An interleaved copy of Q4_0 neuron weights for the integer dot products of the sparse FFN.
//
// A Q4_0 row dotted block by block spends most of its instructions on one block at a time
// (unpack, multiply, one scale each). Interleaving 16 blocks of the same row, as cpu/weight_pack.h
// interleaves 16 rows, gives every lane of a 512-bit register its own block:
//
//   group g (blocks 16g .. 16g+15 of the row), 288 bytes:
//     [ 16 x fp16 scale (block order) | 4 x 64 bytes of quants ]
//   quant register k, int32 lane r, byte i = qs[4k + i] of block 16g + r
//   (low nibble: element 4k + i of that block, high nibble: element 16 + 4k + i).
//
// The token's activation is rearranged to match once per token (packInterleavedActivation).
// Only the gate and up rows are interleaved; the down row keeps the GGUF layout (it is added to
// the output, not dotted), so a neuron's block keeps its size and its single contiguous read.

#include "cpu/kernels.h"
#include "sparse/neuron_weights.h"

#include <hearth/status.h>

#include <cstddef>
#include <cstdint>
#include <memory>

namespace hearth::sparse {

constexpr std::int64_t kInterleavedBlocks = 16;
constexpr std::int64_t kInterleavedElements = kInterleavedBlocks * QK4_0; // 512
constexpr std::size_t kInterleavedGroupBytes = kInterleavedBlocks * sizeof(BlockQ4_0); // 288
// Activation group: 16 float scales, 8 registers (lo/hi per k) of 64 bytes, 16 int32 biases.
constexpr std::size_t kInterleavedActGroupBytes = 64 + 8 * 64 + 64;

// True when @p w can use the interleaved kernels on this machine.
[[nodiscard]] bool canInterleave(const NeuronWeights& w);

// Activation blocks (nEmbd / 32 of them) into the interleaved form; @p out holds
// nEmbd / 512 * kInterleavedActGroupBytes bytes.
void packInterleavedActivation(const cpu::ActBlockQ8* x, std::int64_t nEmbd, std::uint8_t* out);

// An interleaved copy of a fused Q4_0 neuron tensor, owning its memory.
class InterleavedNeurons {
public:
    // Copies @p w (canInterleave(w) must hold); OutOfMemory when the copy does not fit.
    [[nodiscard]] static Result<std::unique_ptr<InterleavedNeurons>> create(const NeuronWeights& w);
    [[nodiscard]] const NeuronWeights& weights() const { return m_weights; }

private:
    InterleavedNeurons() = default;
    std::unique_ptr<std::uint8_t[]> m_data;
    NeuronWeights m_weights;
};

} // namespace hearth::sparse
