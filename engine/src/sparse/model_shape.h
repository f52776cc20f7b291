// SPDX-License-Identifier: MIT
#pragma once

// The sizes the placement planner reasons about, without any weights: what a layer would cost
// in GPU memory and how many bytes a token touches. Built from a GGUF file's tensor table
// (shapeFromGguf) or from hyper-parameters (uniformShape) so the UI can plan before loading.

#include "core/dtype.h"

#include <hearth/status.h>

#include <cstdint>
#include <string>
#include <vector>

namespace hearth::gguf {
class GgufFile;
}

namespace hearth::sparse {

struct LayerShape {
    std::uint64_t attentionBytes = 0;  // q, k, v, o weights (and biases) as stored
    std::uint32_t attentionTensors = 4; // allocations the attention weights need on the GPU
    std::uint64_t normBytes = 0;       // attention and FFN norms
    std::uint64_t predictorBytes = 0;  // fc1 + fc2; 0 when the layer has no predictor
    std::int64_t predictorHidden = 0;  // fc1's output width (scratch sizing)
    // One FFN neuron as stored: gate row + up row + down row (up + down for falcon/opt, which
    // have no gate), including biases. Neuron-major storage makes this a fixed size per layer.
    std::uint64_t neuronBytes = 0;
    std::uint32_t ffnTensors = 3;      // 3 with a gate, 2 without
    // A magnitude-sparse layer with the gate screen: the part of neuronBytes read for every
    // neuron on the CPU, kept or not (its gate row); the rest only for the neurons it keeps.
    std::uint64_t screenBytes = 0;
    std::int64_t nFF = 0;
    // A mixture of experts: the neurons one token runs (its chosen experts' and the shared
    // expert's), fewer than nFF; 0 for a plain FFN. The tensor table cannot tell (the routing is
    // in the family's hyper-parameters): shapes from a file get it from api/session_shape.h.
    std::int64_t activeFF = 0;
    // A mixture's routed experts, all of the same width, and its shared expert's neurons (both
    // among the nFF): the units a mixture's FFN is placed by. 0 for a plain FFN.
    std::int64_t expertCount = 0;
    std::int64_t sharedFF = 0;
    std::uint64_t kvBytesPerToken = 0; // K and V of one token at this layer
    std::int64_t slidingWindow = 0;    // keys a query sees; 0: all

    // The layer's KV cache at @p contextLength with batches of @p batchSize: a sliding-window
    // layer keeps its window's older keys and a batch, as model::KvCache and the device do.
    [[nodiscard]] std::uint64_t kvBytes(std::int64_t contextLength, std::int64_t batchSize) const;
    // Neurons of one routed expert, and how many experts a token runs (0 for a plain FFN).
    [[nodiscard]] std::int64_t expertFF() const { return expertCount > 0 ? (nFF - sharedFF) / expertCount : 0; }
    [[nodiscard]] std::int64_t expertsUsed() const
    {
        return expertFF() > 0 && activeFF > sharedFF ? (activeFF - sharedFF) / expertFF() : 0;
    }
};

struct ModelShape {
    std::string architecture;
    std::string weightType; // display only, e.g. "Q4_0"
    std::string kvType;     // display only, e.g. "F16"
    std::vector<LayerShape> layers;
    std::uint64_t embeddingBytes = 0; // token embedding: stays in RAM (a row gather per token)
    std::uint64_t outputBytes = 0;    // output matrix and output norm
    // What the CPU's interleaved layouts of the matrices (cpu/weight_pack.h) hold in RAM beyond
    // their bytes as stored: the host side's share of the weights grows by this much.
    std::uint64_t hostLayoutBytes = 0;
    std::int64_t nVocab = 0;
    std::int64_t nEmbd = 0;
    std::int64_t nEmbdKv = 0;         // n_head_kv * head_dim
    std::int64_t nEmbdQ = 0;          // n_head * head_dim (0: n_embd)
    std::int64_t nHead = 0;
    // A SwiGLU model made sparse by thresholds (hearth.sparse.layout "magnitude"): it skips
    // neurons on the CPU; with the gate screen (screensNeurons) its most kept neurons can be
    // placed on a GPU as a predictor model's hot neurons are.
    bool magnitudeSparse = false;

    [[nodiscard]] bool hasPredictors() const;
    // Every layer of a magnitude-sparse file screens its neurons by their gate.
    [[nodiscard]] bool screensNeurons() const;
    // Each token computes some of each layer's neurons, chosen by predictors or the gate screen:
    // the FFN can be placed by neuron.
    [[nodiscard]] bool selectsNeurons() const { return hasPredictors() || screensNeurons(); }
    [[nodiscard]] bool mixtureOfExperts() const;
    [[nodiscard]] std::int64_t maxFF() const;
    [[nodiscard]] std::int64_t maxPredictorHidden() const;
    // Every weight byte (embedding included), for "model size" displays.
    [[nodiscard]] std::uint64_t totalWeightBytes() const;
    // Rejects shapes the planner cannot reason about (negative or absurd sizes).
    [[nodiscard]] Status validate() const;
};

// Hyper-parameters of a uniform model (every layer alike), for planning before a file is opened
// and for tests.
struct UniformShapeParams {
    std::string architecture = "llama";
    std::int64_t nLayer = 32;
    std::int64_t nEmbd = 4096;
    std::int64_t nHead = 32;
    std::int64_t nHeadKv = 32;
    std::int64_t headDim = 0; // 0: nEmbd / nHead (Qwen 3 and Gemma have heads of their own size)
    std::int64_t nFF = 11008;
    // A mixture of experts: nFF is then expertCount experts of expertFF neurons, of which a
    // token runs expertsUsed.
    std::int64_t expertCount = 0;
    std::int64_t expertsUsed = 0;
    std::int64_t expertFF = 0;
    std::int64_t nVocab = 32000;
    std::int64_t predictorHidden = 1024; // 0: no predictors (a dense model)
    bool gatedFfn = true;                // false for falcon/opt (up and down only)
    DType weightType = DType::Q4_0;
    DType kvType = DType::F16;
};

[[nodiscard]] Result<ModelShape> uniformShape(const UniformShapeParams& params);

// Sizes from a GGUF/PWRI file's tensor table: sums of the tensors each layer would place, the
// per-neuron bytes from the FFN tensors (ffn_down_t or ffn_down), KV from attn_k's width.
[[nodiscard]] Result<ModelShape> shapeFromGguf(const gguf::GgufFile& file);

} // namespace hearth::sparse
