// SPDX-License-Identifier: MIT
#pragma once

// A loaded OPT model (pre-LayerNorm decoder): learned absolute position embeddings, biases on
// every projection and norm, separate Q/K/V/output projections, a ReLU up/down FFN, and an
// output matrix tied to the token embeddings unless the file has its own.

#include "cpu/matmul.h"
#include "cpu/weight_pack.h"
#include "model/dense_ffn.h"
#include "model/family_model.h"

#include <memory>
#include <string>
#include <vector>

namespace hearth::model {

struct OptLayerWeights {
    const float* attnNorm = nullptr; // self_attn_layer_norm
    const float* attnNormBias = nullptr;
    cpu::WeightMatrix wq, wk, wv; // nEmbd -> nEmbd
    const float* bq = nullptr;
    const float* bk = nullptr;
    const float* bv = nullptr;
    cpu::WeightMatrix wo; // nEmbd -> nEmbd
    const float* bo = nullptr;
    const float* ffnNorm = nullptr; // the layer's final_layer_norm
    const float* ffnNormBias = nullptr;
    UpDownFfn ffn; // ReLU, with biases
};

// The common weights (family_model.h), OPT's learned positions and its layers.
struct OptWeights : FamilyWeights {
    cpu::WeightMatrix positionEmbd; // row p + positionOffset: position p
    int positionOffset = 2;
    std::vector<OptLayerWeights> layers;
};

class OptModel final : public FamilyModel {
public:
    OptModel(std::unique_ptr<gguf::GgufFile> file, std::unique_ptr<Tokenizer> tokenizer, HyperParams hp,
             std::unique_ptr<OptWeights> weights, ModelInfo info);
    ~OptModel() override;

    [[nodiscard]] const OptWeights& weights() const { return *m_weights; }

private:
    std::unique_ptr<OptWeights> m_weights;
};

// Model::load for general.architecture "opt"; @p path is used for messages and ModelInfo.
[[nodiscard]] Result<std::shared_ptr<const Model>> loadOptModel(std::unique_ptr<gguf::GgufFile> file,
                                                                const std::string& path, const LoadParams& params);

} // namespace hearth::model
