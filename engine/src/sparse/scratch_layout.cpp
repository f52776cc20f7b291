// SPDX-License-Identifier: MIT
#include "sparse/scratch_layout.h"

#include "sparse/byte_math.h"

#include <algorithm>
#include <cstdint>

namespace hearth::sparse {

std::uint64_t ScratchLayout::total() const
{
    std::uint64_t t = 0;
    for (std::uint64_t v : {activations, ffnIntermediate, predictor, attentionScores, logits, hostExchange, padding}) {
        t = satAdd(t, v);
    }
    return t;
}

std::uint64_t outputHeadScratchBytes(const ModelShape& shape)
{
    const auto columns = static_cast<std::uint64_t>(std::max<std::int64_t>(shape.nEmbd + shape.nVocab, 0));
    return satMul(static_cast<std::uint64_t>(kOutputHeadRows) * 4, columns);
}

ScratchLayout scratchLayout(const ModelShape& shape, std::int64_t contextLength, std::int64_t batchSize, bool sparse,
                            std::uint64_t granularity)
{
    auto u = [](std::int64_t v) { return static_cast<std::uint64_t>(std::max<std::int64_t>(v, 0)); };
    constexpr std::uint64_t f32 = 4;
    const std::uint64_t embd = u(shape.nEmbd);
    const std::uint64_t q = u(shape.nEmbdQ > 0 ? shape.nEmbdQ : shape.nEmbd);
    const std::uint64_t kv = u(shape.nEmbdKv);
    const std::uint64_t ff = u(shape.maxFF());

    ScratchLayout s;
    if (shape.mixtureOfExperts()) {
        // HybridDeviceLayers: layer input and attention block output (n_embd each) with its
        // AttentionScratch as below; device::DeviceExperts: input and output (n_embd each),
        // gate and up (the widest expert each).
        std::int64_t expertFF = 0;
        for (const LayerShape& l : shape.layers)
            expertFF = std::max({expertFF, l.expertFF(), l.sharedFF});
        const std::uint64_t attentionRows = satMul(u(std::min(batchSize, kDeviceAttentionRows)), f32);
        s.activations = satMul(attentionRows, satAdd(satAdd(satMul(3, embd), satMul(2, q)), satMul(4, kv)));
        s.ffnIntermediate = satMul(u(kExpertRows) * f32, satAdd(satMul(2, embd), satMul(2, u(expertFF))));
        s.attentionScores = satMul(f32, satMul(u(shape.nHead), u(contextLength)));
        s.padding = satMul(12, granularity);
        return s;
    }
    if (!sparse) {
        // device::DenseOffload: residual, FFN input, block output and a parallel block's FFN
        // output (n_embd each), gate and up (n_ff each); its AttentionScratch: input (n_embd),
        // q with fused k and v, k and v (n_embd_kv each), output (q), and one token's scores.
        const std::uint64_t rowsF32 = satMul(u(std::min(batchSize, kDenseOffloadRows)), f32);
        s.activations = satMul(rowsF32, satAdd(satAdd(satMul(5, embd), satMul(2, q)), satMul(4, kv)));
        s.ffnIntermediate = satMul(rowsF32, satMul(2, ff));
        s.attentionScores = satMul(f32, satMul(u(shape.nHead), u(contextLength)));
        s.padding = satMul(12, granularity);
        return s;
    }
    const std::uint64_t rowsF32 = satMul(u(batchSize), f32);
    // residual in, norm output, q, attention output, FFN output: n_embd each; k and v: n_embd_kv.
    s.activations = satMul(rowsF32, satAdd(satMul(5, embd), satMul(2, kv)));
    s.ffnIntermediate = satMul(rowsF32, satMul(2, ff));
    if (shape.hasPredictors()) {
        // hidden layer, logits, and the list of active neuron ids (I32, same size as F32)
        s.predictor = satMul(rowsF32, satAdd(u(shape.maxPredictorHidden()), satMul(2, ff)));
    }
    s.attentionScores = satMul(rowsF32, satMul(u(shape.nHead), u(contextLength)));
    s.logits = satMul(rowsF32, u(shape.nVocab));
    s.hostExchange = satMul(rowsF32, embd);
    s.padding = satMul(s.predictor > 0 ? 9 : 6, granularity);
    return s;
}

} // namespace hearth::sparse
