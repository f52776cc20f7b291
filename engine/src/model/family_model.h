// SPDX-License-Identifier: MIT
#pragma once

// What the falcon and opt models share: the mapped file, tokenizer, hyper-parameters, the
// information shown to users, and reading the metadata keys both architectures use
// (<arch>.embedding_length, .block_count, .attention.head_count, ...).

#include "model/hyper_params.h"

#include <hearth/model.h>

#include <memory>
#include <string>

namespace hearth::gguf {
class GgufFile;
}

namespace hearth::model {

class FamilyModel : public Model {
public:
    FamilyModel(std::unique_ptr<gguf::GgufFile> file, std::unique_ptr<Tokenizer> tokenizer, HyperParams hp,
                ModelInfo info);
    ~FamilyModel() override;

    [[nodiscard]] const ModelInfo& info() const override { return m_info; }
    [[nodiscard]] const Tokenizer& tokenizer() const override { return *m_tokenizer; }
    [[nodiscard]] const std::string& chatTemplateSource() const override { return m_chatTemplate; }

    [[nodiscard]] const HyperParams& hyperParams() const { return m_hp; }
    [[nodiscard]] const gguf::GgufFile& file() const { return *m_file; }

private:
    std::unique_ptr<gguf::GgufFile> m_file; // owns the mapping every weight view points into
    std::unique_ptr<Tokenizer> m_tokenizer;
    HyperParams m_hp;
    ModelInfo m_info;
    std::string m_chatTemplate;
};

// The keys falcon and opt share, prefixed by @p arch: embedding_length, block_count,
// attention.head_count (all required), feed_forward_length (default 4 * n_embd),
// attention.head_count_kv (default: head_count), context_length (default 2048) and
// attention.layer_norm_epsilon (default 1e-5, stored in normEps). nRot is the head size and
// nVocab the length of tokenizer.ggml.tokens. ffnActivation is not meaningful for these
// architectures and left at its default.
[[nodiscard]] Result<HyperParams> readFamilyHyperParams(const gguf::GgufFile& file, const std::string& arch);

// The file's tokenizer, checked against the vocabulary size in @p hp.
[[nodiscard]] Result<std::unique_ptr<Tokenizer>> createFamilyTokenizer(const gguf::GgufFile& file,
                                                                       const HyperParams& hp);

// ModelInfo filled from @p file and @p hp; the caller adds weight type, activation, counts.
[[nodiscard]] ModelInfo familyModelInfo(const std::string& path, const gguf::GgufFile& file, const HyperParams& hp);

} // namespace hearth::model
