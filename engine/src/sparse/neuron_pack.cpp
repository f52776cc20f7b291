// SPDX-License-Identifier: MIT
#include "sparse/neuron_pack.h"

#include "sparse/neuron_kernels.h"

#include <cstdint>
#include <cstring>
#include <new>

namespace hearth::sparse {

namespace {

void interleaveRow(const BlockQ4_0* in, std::int64_t blocks, std::uint8_t* out)
{
    for (std::int64_t g = 0; g < blocks / kInterleavedBlocks; ++g) {
        const BlockQ4_0* src = in + g * kInterleavedBlocks;
        std::uint8_t* dst = out + std::size_t(g) * kInterleavedGroupBytes;
        for (int r = 0; r < kInterleavedBlocks; ++r)
            std::memcpy(dst + 2 * r, &src[r].d, 2);
        for (int k = 0; k < 4; ++k)
            for (int r = 0; r < kInterleavedBlocks; ++r)
                std::memcpy(dst + 32 + 64 * k + 4 * r, src[r].qs + 4 * k, 4);
    }
}

} // namespace

bool canInterleave(const NeuronWeights& w)
{
    const RowKernels* k = neuronKernels().forType(DType::Q4_0);
    return k && k->dot2Interleaved && w.valid() && w.type == DType::Q4_0 && w.gated() && !w.interleaved
           && w.nEmbd % kInterleavedElements == 0;
}

void packInterleavedActivation(const cpu::ActBlockQ8* x, std::int64_t nEmbd, std::uint8_t* out)
{
    for (std::int64_t g = 0; g < nEmbd / kInterleavedElements; ++g) {
        const cpu::ActBlockQ8* src = x + g * kInterleavedBlocks;
        std::uint8_t* dst = out + std::size_t(g) * kInterleavedActGroupBytes;
        for (int r = 0; r < kInterleavedBlocks; ++r) {
            std::memcpy(dst + 4 * r, &src[r].d, 4);
            const std::int32_t bias = -8 * src[r].sum; // undoes the +8 offset of the nibbles
            std::memcpy(dst + 64 + 8 * 64 + 4 * r, &bias, 4);
            for (int k = 0; k < 4; ++k) {
                std::memcpy(dst + 64 + 64 * (2 * k) + 4 * r, src[r].qs + 4 * k, 4);
                std::memcpy(dst + 64 + 64 * (2 * k + 1) + 4 * r, src[r].qs + 16 + 4 * k, 4);
            }
        }
    }
}

Result<std::unique_ptr<InterleavedNeurons>> InterleavedNeurons::create(const NeuronWeights& w)
{
    if (!canInterleave(w))
        return Status(ErrorCode::InvalidArgument, "these neuron weights cannot be interleaved");
    std::unique_ptr<InterleavedNeurons> p(new InterleavedNeurons());
    const std::size_t row = w.rowSize();
    const std::size_t block = 3 * row;
    p->m_data.reset(new (std::nothrow) std::uint8_t[block * std::size_t(w.nFf) + 64]);
    if (!p->m_data)
        return Status(ErrorCode::OutOfMemory, "not enough memory for the interleaved neuron weights");
    std::uint8_t* base = p->m_data.get();
    const std::int64_t blocks = w.nEmbd / QK4_0;
    for (std::int64_t i = 0; i < w.nFf; ++i) {
        const std::size_t offset = std::size_t(i) * w.stride;
        std::uint8_t* dst = base + std::size_t(i) * block;
        interleaveRow(reinterpret_cast<const BlockQ4_0*>(w.gate + offset), blocks, dst);
        interleaveRow(reinterpret_cast<const BlockQ4_0*>(w.up + offset), blocks, dst + row);
        std::memcpy(dst + 2 * row, w.down + offset, row);
    }
    p->m_weights = w;
    p->m_weights.gate = base;
    p->m_weights.up = base + row;
    p->m_weights.down = base + 2 * row;
    p->m_weights.stride = block;
    p->m_weights.interleaved = true;
    return p;
}

} // namespace hearth::sparse
