// SPDX-License-Identifier: MIT
#pragma once

// What the falcon and opt models share: the mapped file, tokenizer, hyper-parameters, the
// information shown to users, and reading the metadata keys both architectures use
// (<arch>.embedding_length, .block_count, .attention.head_count, ...).

#include "core/dtype.h"
#include "cpu/matmul.h"
#include "cpu/weight_pack.h"
#include "model/architecture_model.h"
#include "model/dense_ffn.h"
#include "model/hyper_params.h"

#include <hearth/model.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace hearth::gguf {
class GgufFile;
}

namespace hearth::model {

class TensorBinder;

// The weights every family has besides its layers (FalconWeights, OptWeights add those).
struct FamilyWeights {
    cpu::WeightMatrix tokenEmbd;
    const float* outputNorm = nullptr;
    const float* outputNormBias = nullptr;
    cpu::WeightMatrix output; // token_embd when tied
    DType dominantType = DType::F32;
    std::uint64_t parameterCount = 0;
    bool sparse = false; // every layer has a PowerInfer predictor (fc1/fc2)
    float sparseThreshold = 0.0f; // powerinfer.sparse_threshold

    std::vector<std::vector<float>> convertedNorms; // non-F32 norms and biases, as float
    cpu::PackedWeightStore packed;                  // kernel-layout copies of the matrices
};

class FamilyModel : public ArchitectureModel {
public:
    FamilyModel(const Architecture& architecture, std::unique_ptr<gguf::GgufFile> file, std::unique_ptr<Tokenizer> tokenizer, HyperParams hp,
                ModelInfo info);
    ~FamilyModel() override;

    [[nodiscard]] const ModelInfo& info() const override { return m_info; }
    [[nodiscard]] const Tokenizer& tokenizer() const override { return *m_tokenizer; }
    [[nodiscard]] const std::string& chatTemplateSource() const override { return m_chatTemplate; }

    [[nodiscard]] const HyperParams& hyperParams() const override { return m_hp; }
    [[nodiscard]] const gguf::GgufFile& file() const override { return *m_file; }

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

// ModelInfo filled from @p file, @p hp, the bound @p weights and the FFN's @p activation.
[[nodiscard]] ModelInfo familyModelInfo(const std::string& path, const gguf::GgufFile& file, const HyperParams& hp,
                                        const FamilyWeights& weights, DenseActivation activation);

// Reports the metadata checks as the first 5% of loading and returns the callback the tensor
// binding reports through (the remaining 95%); Cancelled when the caller stops loading.
[[nodiscard]] Result<ProgressCallback> familyBindingProgress(const LoadParams& params);

// Locks the file's mapping in memory when @p params asks for it. Best effort: the OS may
// refuse (RLIMIT_MEMLOCK), and loading goes on without it.
void lockFamilyMapping(const gguf::GgufFile& file, const LoadParams& params);

// Binds output_norm.weight/.bias and output.weight, or ties the output to the token
// embeddings (already bound) when the file has no output.weight.
[[nodiscard]] Status bindFamilyOutput(TensorBinder& binder, const HyperParams& hp, FamilyWeights& weights);

// Records what @p binder saw once every tensor is bound: the dominant type, the parameters.
void finishFamilyWeights(const TensorBinder& binder, FamilyWeights& weights);

// Binds layer @p prefix's FFN down projection: ffn_down.weight, or the neuron-major
// ffn_down_t.weight PowerInfer files store instead (then ffn.downTransposed is set).
[[nodiscard]] Status bindFfnDown(TensorBinder& binder, const std::string& prefix, const HyperParams& hp,
                                 UpDownFfn& ffn);

// Binds layer @p prefix's FFN matrices in whichever layout the file has: Hearth's fused
// ffn_neurons.weight (nFf rows of [up | down]), or ffn_up.weight and bindFfnDown's down
// projection; then the predictor (fc1/fc2) when present. Biases are the family's business.
[[nodiscard]] Status bindFamilyFfn(TensorBinder& binder, const std::string& prefix, const HyperParams& hp,
                                   UpDownFfn& ffn);

// Tensors per layer bindFamilyFfn binds: 2 (up, down), 1 (fused), plus 2 with predictors.
[[nodiscard]] std::size_t familyFfnTensorCount(const gguf::GgufFile& file);

// powerinfer.sparse_threshold into @p threshold when the file has it (InvalidFile unless finite).
[[nodiscard]] Status readSparseThreshold(const gguf::GgufFile& file, float& threshold);

// Settles the sparse state once every layer is bound: sparse when every layer has a predictor,
// the file's threshold, and InvalidFile for fused neurons without predictors.
template <typename Layers>
[[nodiscard]] Status finishFamilySparse(const gguf::GgufFile& file, const Layers& layers, FamilyWeights& weights)
{
    bool all = !layers.empty();
    bool anyFused = false;
    for (const auto& l : layers) {
        all = all && l.ffn.predictor.present();
        anyFused = anyFused || l.ffn.fusedNeurons;
    }
    weights.sparse = all;
    if (anyFused && !all)
        return {ErrorCode::InvalidFile, "the fused neuron layout (ffn_neurons) needs a predictor in every layer"};
    return readSparseThreshold(file, weights.sparseThreshold);
}

// Gives @p m a copy in the fastest kernels' layout (cpu/weight_pack.h) and, with @p release
// and a mapped file, releases the mapped pages the copy replaces. The mapped rows stay valid
// for getRow() and row-wise readers (a sparse FFN).
void packForKernels(cpu::PackedWeightStore& packed, cpu::WeightMatrix& m, bool release, bool fileMapped);

// packForKernels for the FFN's matrices and predictor; a neuron-major down projection stays as
// mapped. The up rows of a sparse model's neuron-major layer (@p sparse) stay too: the neuron
// kernels read them as the file has them, and a packed copy would double the FFN's memory.
void packFfnForKernels(cpu::PackedWeightStore& packed, UpDownFfn& ffn, bool fileMapped, bool sparse = false);

} // namespace hearth::model
