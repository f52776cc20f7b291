// SPDX-License-Identifier: MIT
#pragma once

// A loaded Falcon model (llama.cpp's "falcon" GGUF layout): parallel attention and FFN per
// block, fused QKV, multi-query or grouped-query attention, NeoX rotary embeddings, LayerNorm
// with bias, an up/down FFN with GELU (Falcon) or ReLU (ReluFalcon, PowerInfer files).

#include "cpu/matmul.h"
#include "cpu/weight_pack.h"
#include "model/dense_ffn.h"
#include "model/family_model.h"

#include <memory>
#include <string>
#include <vector>

namespace hearth::model {

struct FalconLayerWeights {
    const float* attnNorm = nullptr;     // [nEmbd]
    const float* attnNormBias = nullptr; // [nEmbd]
    // Falcon-40B style: the FFN has its own LayerNorm (attn_norm_2); null when it shares attnNorm.
    const float* ffnNorm = nullptr;
    const float* ffnNormBias = nullptr;
    cpu::WeightMatrix wqkv; // nEmbd -> qDim + 2 * kvDim: rows [Q | K | V]
    cpu::WeightMatrix wo;   // qDim -> nEmbd
    UpDownFfn ffn;
};

// The common weights (family_model.h) and falcon's layers.
struct FalconWeights : FamilyWeights {
    std::vector<FalconLayerWeights> layers;
};

class FalconModel final : public FamilyModel {
public:
    FalconModel(std::unique_ptr<gguf::GgufFile> file, std::unique_ptr<Tokenizer> tokenizer, HyperParams hp,
                DenseActivation activation, std::unique_ptr<FalconWeights> weights, ModelInfo info);
    ~FalconModel() override;

    [[nodiscard]] DenseActivation activation() const { return m_activation; }
    [[nodiscard]] const FalconWeights& weights() const { return *m_weights; }

private:
    DenseActivation m_activation;
    std::unique_ptr<FalconWeights> m_weights;
};

// The FFN activation @p file declares ("hearth.ffn_activation"); without one PowerInfer's files
// are ReLU (ReluFalcon) and others GELU.
[[nodiscard]] Result<DenseActivation> falconActivation(const gguf::GgufFile& file);

// Model::load for general.architecture "falcon"; @p path is used for messages and ModelInfo.
[[nodiscard]] Result<std::shared_ptr<const Model>> loadFalconModel(std::unique_ptr<gguf::GgufFile> file,
                                                                   const std::string& path, const LoadParams& params);

} // namespace hearth::model
