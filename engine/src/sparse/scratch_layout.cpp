// SPDX-License-Identifier: MIT
#include "sparse/scratch_layout.h"

#include "sparse/byte_math.h"

#include <algorithm>

namespace hearth::sparse {

std::uint64_t ScratchLayout::total() const
{
    std::uint64_t t = 0;
    for (std::uint64_t v : {activations, ffnIntermediate, predictor, attentionScores, logits, hostExchange}) {
        t = satAdd(t, v);
    }
    return t;
}

ScratchLayout scratchLayout(const ModelShape& shape, std::int64_t contextLength, std::int64_t batchSize, bool sparse)
{
    auto u = [](std::int64_t v) { return static_cast<std::uint64_t>(std::max<std::int64_t>(v, 0)); };
    constexpr std::uint64_t f32 = 4;
    const std::uint64_t rowsF32 = satMul(u(batchSize), f32);
    const std::uint64_t embd = u(shape.nEmbd);
    const std::uint64_t ff = u(shape.maxFF());

    ScratchLayout s;
    // residual in, norm output, q, attention output, FFN output: n_embd each; k and v: n_embd_kv.
    s.activations = satMul(rowsF32, satAdd(satMul(5, embd), satMul(2, u(shape.nEmbdKv))));
    s.ffnIntermediate = satMul(rowsF32, satMul(2, ff));
    if (sparse && shape.hasPredictors()) {
        // hidden layer, logits, and the list of active neuron ids (I32, same size as F32)
        s.predictor = satMul(rowsF32, satAdd(u(shape.maxPredictorHidden()), satMul(2, ff)));
    }
    s.attentionScores = satMul(rowsF32, satMul(u(shape.nHead), u(contextLength)));
    s.logits = satMul(rowsF32, u(shape.nVocab));
    s.hostExchange = satMul(rowsF32, embd);
    return s;
}

} // namespace hearth::sparse
