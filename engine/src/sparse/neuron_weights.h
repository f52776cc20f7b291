// SPDX-License-Identifier: MIT
#pragma once

// Where one layer's FFN neurons live, whatever the file layout. Neuron i is its gate row, its
// up row and its down row (the n_embd weights it adds to the output); each is a row of n_embd
// elements of one weight type, found at `base + i * stride`.
//
// * Hearth's fused layout (tensor blk.N.ffn_neurons.weight, see model_loader.cpp): the three
//   rows of a neuron are adjacent, gate at +0, up at +rowBytes, down at +2 rowBytes, and
//   stride = 3 rowBytes: one contiguous read per active neuron. Up-only FFNs (falcon, opt)
//   store two rows (up, down).
// * PowerInfer's layout: ffn_gate, ffn_up and ffn_down_t are three separate matrices with one
//   row per neuron, so stride = rowBytes and the three rows are far apart.

#include "core/dtype.h"
#include "cpu/matmul.h"

#include <cstddef>
#include <cstdint>

namespace hearth::sparse {

// How a neuron's activation follows from its gate and up dot products (g, u).
enum class NeuronActivation {
    ReGlu,  // relu(g) * u: ReluLLaMA, ProSparse
    DRelu,  // relu(g) * relu(u): bamboo
    Relu2,  // relu(g)^2 * u
    SwiGlu, // silu(g) * u (dense models; never exactly zero)
    Relu,   // relu(u + bias): falcon, opt (no gate row)
    // silu(g) * u with silu(g) computed beforehand for every neuron (FfnInput::gateActs):
    // magnitude-sparse SwiGLU layers read their gate densely and run only the neurons whose
    // |silu(g)| passes the threshold, so a neuron reads its up and down rows only.
    GateGiven,
};

// Whether a neuron of this activation has a gate row for the kernels to read.
[[nodiscard]] constexpr bool readsGateRow(NeuronActivation a)
{
    return a != NeuronActivation::Relu && a != NeuronActivation::GateGiven;
}

struct NeuronWeights {
    DType type = DType::F32;
    std::int64_t nEmbd = 0;
    std::int64_t nFf = 0;
    const std::uint8_t* gate = nullptr; // null for up-only FFNs
    const std::uint8_t* up = nullptr;
    const std::uint8_t* down = nullptr;
    std::size_t stride = 0;        // bytes from neuron i's rows to neuron i + 1's
    const float* upBias = nullptr; // optional, nFf values (opt)
    NeuronActivation activation = NeuronActivation::ReGlu;
    bool interleaved = false;      // gate/up rows in neuron_pack.h's interleaved Q4_0 layout

    // Hearth's fused tensor: nFf rows of (gated ? 3 : 2) * nEmbd elements.
    [[nodiscard]] static NeuronWeights fused(const cpu::WeightMatrix& neurons, std::int64_t nEmbd,
                                             NeuronActivation activation);
    // PowerInfer's separate matrices (gate may have null data for up-only FFNs); every matrix
    // has nFf rows of nEmbd.
    [[nodiscard]] static NeuronWeights separate(const cpu::WeightMatrix& gate, const cpu::WeightMatrix& up,
                                                const cpu::WeightMatrix& downT, NeuronActivation activation);

    [[nodiscard]] bool gated() const { return gate != nullptr; }
    // The matrix of every neuron's row that starts at @p first (gate, up or down): nFf rows of
    // nEmbd, stride apart, as the dense products take it.
    [[nodiscard]] cpu::WeightMatrix rows(const std::uint8_t* first) const
    {
        cpu::WeightMatrix m{type, first, nFf, nEmbd};
        m.rowStride = stride;
        return m;
    }
    [[nodiscard]] std::size_t rowSize() const { return rowBytes(type, nEmbd); }
    // Bytes read for one neuron whose activation is non-zero.
    [[nodiscard]] std::size_t neuronBytes() const { return rowSize() * (gated() ? 3 : 2); }
    // True when every pointer and size is usable by the kernels.
    [[nodiscard]] bool valid() const;
};

} // namespace hearth::sparse
