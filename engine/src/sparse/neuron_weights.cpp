// SPDX-License-Identifier: MIT
#include "sparse/neuron_weights.h"

#include <cstdint>

namespace hearth::sparse {

NeuronWeights NeuronWeights::fused(const cpu::WeightMatrix& neurons, std::int64_t nEmbd, NeuronActivation activation)
{
    NeuronWeights w;
    w.type = neurons.type;
    w.nEmbd = nEmbd;
    w.nFf = neurons.rows;
    w.activation = activation;
    const bool gated = readsGateRow(activation);
    if (!neurons.data || nEmbd <= 0 || neurons.cols != nEmbd * (gated ? 3 : 2))
        return w; // invalid: valid() says so
    const auto* base = static_cast<const std::uint8_t*>(neurons.data);
    const std::size_t row = rowBytes(neurons.type, nEmbd);
    w.stride = rowBytes(neurons.type, neurons.cols);
    w.gate = gated ? base : nullptr;
    w.up = gated ? base + row : base;
    w.down = gated ? base + 2 * row : base + row;
    return w;
}

NeuronWeights NeuronWeights::separate(const cpu::WeightMatrix& gate, const cpu::WeightMatrix& up,
                                      const cpu::WeightMatrix& downT, NeuronActivation activation)
{
    NeuronWeights w;
    w.type = up.type;
    w.nEmbd = up.cols;
    w.nFf = up.rows;
    w.activation = activation;
    const bool gated = readsGateRow(activation);
    const bool same = downT.type == up.type && downT.cols == up.cols && downT.rows == up.rows
                      && (!gated || (gate.type == up.type && gate.cols == up.cols && gate.rows == up.rows));
    if (!same)
        return w;
    w.stride = rowBytes(up.type, up.cols);
    w.gate = gated ? static_cast<const std::uint8_t*>(gate.data) : nullptr;
    w.up = static_cast<const std::uint8_t*>(up.data);
    w.down = static_cast<const std::uint8_t*>(downT.data);
    return w;
}

bool NeuronWeights::valid() const
{
    if (!isComputeType(type) || nEmbd <= 0 || nFf <= 0 || !up || !down || stride < rowSize())
        return false;
    if (nEmbd % computeBlockElements(type) != 0)
        return false;
    return gated() == readsGateRow(activation);
}

} // namespace hearth::sparse
