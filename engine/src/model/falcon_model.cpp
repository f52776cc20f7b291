// SPDX-License-Identifier: MIT
// Loading Falcon GGUF files.
//
// Keys: falcon.embedding_length, .block_count, .attention.head_count, .attention.head_count_kv
// (1 for Falcon-7B's multi-query attention, 8 for 40B), .attention.layer_norm_epsilon,
// .context_length, .feed_forward_length (absent in llama.cpp's files: 4 * n_embd),
// .rope.freq_base (optional). "hearth.ffn_activation" is "gelu" or "relu"; without it a plain
// GGUF file is Falcon (GELU) and a PowerInfer (PWRI) file is ReluFalcon (ReLU).
//
// Tensors: attn_qkv is the fused projection as llama.cpp's converter writes it, output rows
// [Q (n_embd) | K (kv_dim) | V (kv_dim)]. The presence of attn_norm_2 marks the 40B layout,
// whose FFN has its own LayerNorm. PowerInfer files may store the down projection neuron-major
// (ffn_down_t instead of ffn_down) and carry predictors (fc1/fc2), which make the FFN sparse
// (model/family_sparse_ffn.h); Hearth's sparse files store each neuron's up and down rows
// together (ffn_neurons).

#include "model/falcon_model.h"

#include "core/mapped_file.h"
#include "gguf/gguf_file.h"
#include "model/families/families.h"
#include "model/packing_limit.h"
#include "model/tensor_binder.h"

#include <cmath>

namespace hearth::model {

FalconModel::FalconModel(std::unique_ptr<gguf::GgufFile> file, std::unique_ptr<Tokenizer> tokenizer, HyperParams hp,
                         DenseActivation activation, std::unique_ptr<FalconWeights> weights, ModelInfo info)
    : FamilyModel(families::falcon, std::move(file), std::move(tokenizer), std::move(hp), std::move(info))
    , m_activation(activation)
    , m_weights(std::move(weights))
{
}

FalconModel::~FalconModel() = default;

Result<DenseActivation> falconActivation(const gguf::GgufFile& file)
{
    if (const auto name = file.getString("hearth.ffn_activation")) {
        const auto parsed = parseDenseActivation(*name);
        if (!parsed)
            return Status(ErrorCode::Unsupported, "FFN activation \"" + *name + "\" is not supported for falcon (use gelu or relu)");
        return *parsed;
    }
    return file.magic() == gguf::Magic::PowerInfer ? DenseActivation::Relu : DenseActivation::Gelu;
}

namespace {

// Packs the matrices the dense products read (family_model.h). The pages of a tied output
// matrix stay mapped: its rows are also the token embeddings read on every token.
void packWeights(FalconWeights& w, bool ownOutput, bool fileMapped)
{
    packForKernels(w.packed, w.output, ownOutput, fileMapped);
    for (auto& l : w.layers) {
        for (cpu::WeightMatrix* m : {&l.wqkv, &l.wo})
            packForKernels(w.packed, *m, true, fileMapped);
        packFfnForKernels(w.packed, l.ffn, fileMapped, w.sparse);
    }
}

Result<std::unique_ptr<FalconWeights>> bindFalcon(const gguf::GgufFile& file, const HyperParams& hp,
                                                  DenseActivation activation, const ProgressCallback& progress,
                                                  std::uint64_t packingLimit)
{
    auto w = std::make_unique<FalconWeights>();
    w->packed.setLimit(std::size_t(packingLimit));
    const bool tied = file.findTensor("output.weight") == nullptr;
    const bool separateFfnNorm = file.findTensor("blk.0.attn_norm_2.weight") != nullptr;
    TensorBinder b(file, progress,
                   std::size_t(hp.nLayer) * ((separateFfnNorm ? 6 : 4) + familyFfnTensorCount(file)) + 3 + (tied ? 0 : 1));
    auto& conv = w->convertedNorms;

    HEARTH_TRY(b.matrix("token_embd.weight", hp.nEmbd, hp.nVocab, w->tokenEmbd));
    HEARTH_TRY(bindFamilyOutput(b, hp, *w));

    w->layers.resize(std::size_t(hp.nLayer));
    for (int i = 0; i < hp.nLayer; ++i) {
        const std::string p = "blk." + std::to_string(i) + ".";
        FalconLayerWeights& l = w->layers[std::size_t(i)];
        HEARTH_TRY(b.vector(p + "attn_norm.weight", hp.nEmbd, l.attnNorm, conv));
        HEARTH_TRY(b.vector(p + "attn_norm.bias", hp.nEmbd, l.attnNormBias, conv));
        if (separateFfnNorm) {
            HEARTH_TRY(b.vector(p + "attn_norm_2.weight", hp.nEmbd, l.ffnNorm, conv));
            HEARTH_TRY(b.vector(p + "attn_norm_2.bias", hp.nEmbd, l.ffnNormBias, conv));
        } else if (b.has(p + "attn_norm_2.weight")) {
            return Status(ErrorCode::InvalidFile, "tensor " + p + "attn_norm_2.weight is present in some layers only");
        }
        HEARTH_TRY(b.matrix(p + "attn_qkv.weight", hp.nEmbd, hp.qDim() + 2 * hp.kvDim(), l.wqkv));
        HEARTH_TRY(b.matrix(p + "attn_output.weight", hp.qDim(), hp.nEmbd, l.wo));
        HEARTH_TRY(bindFamilyFfn(b, p, hp, l.ffn));
        l.ffn.activation = activation;
    }
    HEARTH_TRY(finishFamilySparse(file, w->layers, *w));
    if (w->sparse && activation != DenseActivation::Relu) {
        // GELU never gives exact zeros: predictors cannot skip neurons, so they are ignored.
        if (w->layers.front().ffn.fusedNeurons)
            return Status(ErrorCode::Unsupported, "the fused neuron layout (ffn_neurons) needs a ReLU FFN, not GELU");
        w->sparse = false;
    }
    finishFamilyWeights(b, *w);
    packWeights(*w, !tied, file.mapping() != nullptr);
    return w;
}

} // namespace

Result<std::shared_ptr<const Model>> loadFalconModel(std::unique_ptr<gguf::GgufFile> file, const std::string& path,
                                                     const LoadParams& params)
{
    auto fail = [&path](const Status& s) { return Status(s.code(), path + ": " + s.message()); };

    auto hp = readFamilyHyperParams(*file, "falcon");
    if (!hp)
        return fail(hp.status());
    if (hp->headDim % 2 != 0)
        return fail({ErrorCode::InvalidFile, "head size " + std::to_string(hp->headDim)
                                                 + " is odd; rotary embeddings rotate pairs"});
    if (const auto base = file->getFloat("falcon.rope.freq_base")) {
        if (!(*base > 1 && std::isfinite(*base)))
            return fail({ErrorCode::InvalidFile, "rope frequency base " + std::to_string(*base) + " is out of range"});
        hp->ropeFreqBase = float(*base);
    }

    const auto activation = falconActivation(*file);
    if (!activation)
        return fail(activation.status());

    auto tokenizer = createFamilyTokenizer(*file, *hp);
    if (!tokenizer)
        return fail(tokenizer.status());

    auto scaled = familyBindingProgress(params);
    if (!scaled)
        return scaled.status();
    auto weights = bindFalcon(*file, *hp, *activation, *scaled, packingLimit(params));
    if (!weights)
        return weights.code() == ErrorCode::Cancelled ? weights.status() : fail(weights.status());

    lockFamilyMapping(*file, params);

    ModelInfo info = familyModelInfo(path, *file, *hp, **weights, *activation);

    return std::shared_ptr<const Model>(std::make_shared<FalconModel>(std::move(file), std::move(tokenizer).value(),
                                                                      std::move(hp).value(), *activation,
                                                                      std::move(weights).value(), std::move(info)));
}

} // namespace hearth::model
