// SPDX-License-Identifier: MIT
#pragma once

// Views of a llama-family model's tensors inside the file mapping. Nothing is copied except
// norm vectors stored in a type other than F32 (a few kilobytes, converted once).

#include "cpu/matmul.h"
#include "cpu/weight_pack.h"
#include "model/hyper_params.h"
#include "model/moe_ffn.h"
#include "sparse/predictor.h"

#include <hearth/model.h>
#include <hearth/status.h>

#include <cstdint>
#include <memory>
#include <vector>

namespace hearth::gguf {
class GgufFile;
}

namespace hearth::model {

class TensorBinder;

struct LlamaLayerWeights {
    const float* attnNorm = nullptr; // [nEmbd]
    cpu::WeightMatrix wq;            // nEmbd -> qDim
    cpu::WeightMatrix wk;            // nEmbd -> kvDim
    cpu::WeightMatrix wv;            // nEmbd -> kvDim
    cpu::WeightMatrix wo;            // qDim -> nEmbd
    // The family's extras (LlamaBlockFlavour); null when it has none.
    const float* bq = nullptr;       // [qDim] (qkvBias)
    const float* bk = nullptr;       // [kvDim]
    const float* bv = nullptr;       // [kvDim]
    const float* bo = nullptr;       // [nEmbd] (outputBias)
    const float* attnSinks = nullptr; // [nHead] (attentionSinks): each head's sink score
    const float* qNorm = nullptr;    // [headDim] (qkNorm): RMSNorm weight of every q head
    const float* kNorm = nullptr;    // [headDim]: of every k head
    const float* attnPostNorm = nullptr; // [nEmbd] (postNorms): of the attention block's output
    const float* ffnPostNorm = nullptr;  // [nEmbd]: of the FFN's output
    const float* ffnNorm = nullptr;  // [nEmbd]
    cpu::WeightMatrix gate;          // nEmbd -> nFf
    cpu::WeightMatrix up;            // nEmbd -> nFf
    cpu::WeightMatrix down;          // nFf -> nEmbd; when downTransposed: nFf rows of nEmbd
    bool downTransposed = false;     // PowerInfer's ffn_down_t: one row per neuron
    // Magnitude-sparse files (a SwiGLU model made sparse by thresholds, see model_loader.cpp),
    // with r the root mean square of the residual before the FFN norm: neuron i's up and down
    // rows are not read when |silu(gate_i . x)| < gateThresholds[i] * r, its down row not when
    // |silu(gate_i . x) * (up_i . x)| < activationThresholds[i] * r. Such layers store
    // ffn_down_t (downTransposed). Null elsewhere.
    const float* gateThresholds = nullptr;       // [nFf]; null when gate/up are input-major
    const float* activationThresholds = nullptr; // [nFf]
    // Magnitude-sparse files made with input sparsity (sparse/input_sparsity.h) store these
    // projections input-major (row i: input i's weights to every output; wq is then nEmbd rows of
    // qDim), and an input is dropped when |x_i| < threshold_i * rms(x). Null thresholds elsewhere.
    bool attentionInputMajor = false; // wq, wk, wv, wo
    bool gateUpInputMajor = false;    // gate, up
    const float* attnInputThresholds = nullptr;  // [nEmbd]: of q, k and v (the normalized input)
    const float* attnOutputThresholds = nullptr; // [qDim]: of wo (the heads' output)
    const float* ffnInputThresholds = nullptr;   // [nEmbd]: of gate and up (the normalized input)
    // A mixture-of-experts layer (ffn_gate_inp present) has these instead of gate/up/down.
    MoeWeights moe;
    // Sparse files only. Hearth's fused layout (see model_loader.cpp) replaces gate/up/down by
    // `neurons`: nFf rows of 3 nEmbd elements, neuron i's gate, up and down rows side by side.
    sparse::PredictorWeights predictor; // fc1/fc2; absent (null data) in dense files
    cpu::WeightMatrix neurons;
    bool fusedNeurons = false;
    // Sparse files loaded with LoadParams::sparsePromptCopies: the FFN laid out as a dense file's
    // for prompts whose tokens use most neurons (gate and up interleaved, down a row per output
    // in Q8_0); absent (null data) otherwise, or where memory was short.
    cpu::WeightMatrix promptGate, promptUp, promptDown;
};

struct LlamaWeights {
    cpu::WeightMatrix tokenEmbd;      // row t: embedding of token t (nVocab rows of nEmbd)
    const float* outputNorm = nullptr; // [nEmbd]
    const float* ropeFreqs = nullptr;  // [nRot / 2] or null: Llama 3.1's RoPE frequency factors
    const float* ropeFactorsShort = nullptr; // [nRot / 2] or null: LongRoPE's factors (Phi-3) of
    const float* ropeFactorsLong = nullptr;  // sessions up to and past hp.ropeOriginalContext
    cpu::WeightMatrix output;         // nEmbd -> nVocab (token_embd when tied)
    std::vector<LlamaLayerWeights> layers;
    DType dominantType = DType::F32;  // the type holding most weight bytes
    std::uint64_t parameterCount = 0;
    bool sparse = false;              // every layer has a predictor: decode runs the sparse FFN
    float sparseThreshold = 0.0f;     // powerinfer.sparse_threshold: active when logit >= it
    bool magnitudeSparse = false;     // every layer has gateThresholds: decode skips small neurons
    // Memory was short and routed experts stayed in the file mapping: the forward pass asks for
    // the chosen ones ahead of use (MoeFfn::readChosenAhead).
    bool readExpertsAhead = false;

    // The frequency divisors (cpu::ropeTables) of a session of @p contextLength tokens, or null.
    [[nodiscard]] const float* ropeFactors(const HyperParams& hp, int contextLength) const
    {
        if (ropeFreqs)
            return ropeFreqs;
        return ropeFactorsLong && contextLength > hp.ropeOriginalContext ? ropeFactorsLong : ropeFactorsShort;
    }

    // Finds and checks every tensor of @p hp's architecture in @p file. @p progress (optional)
    // sees the fraction of tensors bound and may cancel (ErrorCode::Cancelled). Packed copies
    // take at most @p packingLimit bytes (model/packing_limit.h); @p promptCopies: sparse layers
    // get promptGate/promptUp/promptDown within that limit.
    static Result<std::unique_ptr<LlamaWeights>> bind(const gguf::GgufFile& file, const HyperParams& hp,
                                                      const ProgressCallback& progress,
                                                      std::uint64_t packingLimit = SIZE_MAX, bool promptCopies = false);

    // Bytes of the packed copies, and the weight bytes the packing limit left in the file mapping.
    [[nodiscard]] std::uint64_t packedBytes() const { return m_packed.bytes(); }
    [[nodiscard]] std::uint64_t bytesLeftMapped() const { return m_packed.refusedBytes(); }
    // Bytes of the sparse layers' prompt copies (part of packedBytes()).
    [[nodiscard]] std::uint64_t promptCopyBytes() const { return m_promptCopyBytes; }

private:
    // Binds each layer's thresholds in a magnitude-sparse file.
    Status bindGateThresholds(const gguf::GgufFile& file, TensorBinder& b, const HyperParams& hp);
    // Gives the dense matrices a copy in the layout of the fastest kernels (cpu/weight_pack.h);
    // @p fileMapped: the tensors are a read-only file mapping whose packed rows may be dropped.
    void packForKernels(bool fileMapped);
    // Gives the sparse layers their prompt copies, while the packing limit allows.
    void makePromptCopies();

    cpu::PackedWeightStore m_packed;
    std::vector<std::vector<float>> m_convertedNorms; // norms stored as F16 etc., as float
    std::uint64_t m_promptCopyBytes = 0;
};

} // namespace hearth::model
