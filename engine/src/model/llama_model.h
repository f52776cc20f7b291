// SPDX-License-Identifier: MIT
#pragma once

// A loaded llama-family model: the mapped file, its tokenizer, hyper-parameters and weight views.

#include "model/architecture_model.h"
#include "model/hyper_params.h"
#include "model/llama_weights.h"

#include <hearth/model.h>

#include <memory>
#include <string>

namespace hearth::gguf {
class GgufFile;
}

namespace hearth::model {

class LlamaModel final : public ArchitectureModel {
public:
    LlamaModel(const Architecture& architecture, std::unique_ptr<gguf::GgufFile> file, std::unique_ptr<Tokenizer> tokenizer, HyperParams hp,
               std::unique_ptr<LlamaWeights> weights, ModelInfo info, std::string chatTemplate);
    ~LlamaModel() override;

    [[nodiscard]] const ModelInfo& info() const override { return m_info; }
    [[nodiscard]] const Tokenizer& tokenizer() const override { return *m_tokenizer; }
    [[nodiscard]] const std::string& chatTemplateSource() const override { return m_chatTemplate; }

    [[nodiscard]] const HyperParams& hyperParams() const override { return m_hp; }
    [[nodiscard]] const LlamaWeights& weights() const { return *m_weights; }
    [[nodiscard]] const gguf::GgufFile& file() const override { return *m_file; }

private:
    std::unique_ptr<gguf::GgufFile> m_file; // owns the mapping every weight view points into
    std::unique_ptr<Tokenizer> m_tokenizer;
    HyperParams m_hp;
    std::unique_ptr<LlamaWeights> m_weights;
    ModelInfo m_info;
    std::string m_chatTemplate;
};

// Model::load for the registry's llama-block families (architecture.h); @p path is used for
// messages and ModelInfo.
[[nodiscard]] Result<std::shared_ptr<const Model>> loadLlamaModel(std::unique_ptr<gguf::GgufFile> file,
                                                                  const std::string& path, const LoadParams& params);

} // namespace hearth::model
