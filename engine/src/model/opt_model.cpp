// SPDX-License-Identifier: MIT
// Loading OPT GGUF files.
//
// Keys: opt.embedding_length, .block_count, .attention.head_count, .feed_forward_length,
// .context_length, .attention.layer_norm_epsilon (see family_model.h), and Hearth's own:
//  * "opt.position_offset" (integer >= 0): position p reads row p + offset of position_embd.
//    Hugging Face's OPT table has context_length + 2 rows and an offset of 2 (rows 0 and 1
//    belong to padding). Without the key the table's size decides: context_length + 2 rows
//    means offset 2 (the table copied as is), context_length rows means 0 (already trimmed).
//  * "opt.layer_norm_before" (bool, default true): false is the post-LayerNorm variant
//    (opt-350m), which Hearth rejects, as it does opt-350m's project_in/project_out.
// "hearth.ffn_activation", when present, must be "relu". As for falcon, a PowerInfer file's
// neuron-major ffn_down_t replaces ffn_down, its predictors make the FFN sparse, and Hearth's
// fused ffn_neurons (up|down per neuron) may replace both; the biases stay separate tensors
// (ffn_up.bias in the file's neuron order).

#include "model/opt_model.h"

#include "core/mapped_file.h"
#include "gguf/gguf_file.h"
#include "model/families/families.h"
#include "model/packing_limit.h"
#include "model/tensor_binder.h"

#include <cstdint>

namespace hearth::model {

OptModel::OptModel(std::unique_ptr<gguf::GgufFile> file, std::unique_ptr<Tokenizer> tokenizer, HyperParams hp,
                   std::unique_ptr<OptWeights> weights, ModelInfo info)
    : FamilyModel(families::opt, std::move(file), std::move(tokenizer), std::move(hp), std::move(info))
    , m_weights(std::move(weights))
{
}

OptModel::~OptModel() = default;

namespace {

Status positionTable(const gguf::GgufFile& file, const HyperParams& hp, int& rows, int& offset)
{
    const gguf::TensorInfo* t = file.findTensor("position_embd.weight");
    if (!t)
        return {ErrorCode::InvalidFile, "tensor position_embd.weight is missing"};
    if (t->shape.empty() || t->rows() <= 0 || t->rows() > (std::int64_t(1) << 24))
        return {ErrorCode::InvalidFile, "tensor position_embd.weight has an implausible shape"};
    rows = int(t->rows());
    if (file.find("opt.position_offset")) {
        const auto value = file.getInt("opt.position_offset");
        if (!value || *value < 0 || *value >= rows)
            return {ErrorCode::InvalidFile, "metadata key opt.position_offset is out of range"};
        offset = int(*value);
    } else if (std::int64_t(rows) == std::int64_t(hp.nCtxTrain) + 2) {
        offset = 2;
    } else if (rows == hp.nCtxTrain) {
        offset = 0;
    } else {
        return {ErrorCode::InvalidFile, "tensor position_embd.weight has " + std::to_string(rows)
                                            + " rows; expected the context length " + std::to_string(hp.nCtxTrain)
                                            + " plus 2, or opt.position_offset"};
    }
    if (rows - offset < hp.nCtxTrain)
        return {ErrorCode::InvalidFile, "tensor position_embd.weight has fewer rows than the context length"};
    return {};
}

// Packs the matrices the dense products read (family_model.h). The pages of a tied output
// matrix stay mapped: its rows are also the token embeddings read on every token.
void packWeights(OptWeights& w, bool ownOutput, bool fileMapped)
{
    packForKernels(w.packed, w.output, ownOutput, fileMapped);
    for (auto& l : w.layers) {
        for (cpu::WeightMatrix* m : {&l.wq, &l.wk, &l.wv, &l.wo})
            packForKernels(w.packed, *m, true, fileMapped);
        packFfnForKernels(w.packed, l.ffn, fileMapped, w.sparse);
    }
}

Result<std::unique_ptr<OptWeights>> bindOpt(const gguf::GgufFile& file, const HyperParams& hp,
                                            const ProgressCallback& progress, std::uint64_t packingLimit)
{
    auto w = std::make_unique<OptWeights>();
    w->packed.setLimit(std::size_t(packingLimit));
    const bool tied = file.findTensor("output.weight") == nullptr;
    TensorBinder b(file, progress, std::size_t(hp.nLayer) * (14 + familyFfnTensorCount(file)) + 4 + (tied ? 0 : 1));
    auto& conv = w->convertedNorms;
    const int d = hp.nEmbd;

    int positions = 0;
    HEARTH_TRY(positionTable(file, hp, positions, w->positionOffset));
    HEARTH_TRY(b.matrix("token_embd.weight", d, hp.nVocab, w->tokenEmbd));
    HEARTH_TRY(b.matrix("position_embd.weight", d, positions, w->positionEmbd));
    HEARTH_TRY(bindFamilyOutput(b, hp, *w));

    w->layers.resize(std::size_t(hp.nLayer));
    for (int i = 0; i < hp.nLayer; ++i) {
        const std::string p = "blk." + std::to_string(i) + ".";
        OptLayerWeights& l = w->layers[std::size_t(i)];
        HEARTH_TRY(b.vector(p + "attn_norm.weight", d, l.attnNorm, conv));
        HEARTH_TRY(b.vector(p + "attn_norm.bias", d, l.attnNormBias, conv));
        HEARTH_TRY(b.matrix(p + "attn_q.weight", d, d, l.wq));
        HEARTH_TRY(b.vector(p + "attn_q.bias", d, l.bq, conv));
        HEARTH_TRY(b.matrix(p + "attn_k.weight", d, d, l.wk));
        HEARTH_TRY(b.vector(p + "attn_k.bias", d, l.bk, conv));
        HEARTH_TRY(b.matrix(p + "attn_v.weight", d, d, l.wv));
        HEARTH_TRY(b.vector(p + "attn_v.bias", d, l.bv, conv));
        HEARTH_TRY(b.matrix(p + "attn_output.weight", d, d, l.wo));
        HEARTH_TRY(b.vector(p + "attn_output.bias", d, l.bo, conv));
        HEARTH_TRY(b.vector(p + "ffn_norm.weight", d, l.ffnNorm, conv));
        HEARTH_TRY(b.vector(p + "ffn_norm.bias", d, l.ffnNormBias, conv));
        HEARTH_TRY(bindFamilyFfn(b, p, hp, l.ffn));
        HEARTH_TRY(b.vector(p + "ffn_up.bias", hp.nFf, l.ffn.upBias, conv));
        HEARTH_TRY(b.vector(p + "ffn_down.bias", d, l.ffn.downBias, conv));
        l.ffn.activation = DenseActivation::Relu;
    }
    HEARTH_TRY(finishFamilySparse(file, w->layers, *w));
    finishFamilyWeights(b, *w);
    packWeights(*w, !tied, file.mapping() != nullptr);
    return w;
}

} // namespace

Result<std::shared_ptr<const Model>> loadOptModel(std::unique_ptr<gguf::GgufFile> file, const std::string& path,
                                                  const LoadParams& params)
{
    auto fail = [&path](const Status& s) { return Status(s.code(), path + ": " + s.message()); };

    auto hp = readFamilyHyperParams(*file, "opt");
    if (!hp)
        return fail(hp.status());
    if (hp->nHeadKv != hp->nHead)
        return fail({ErrorCode::InvalidFile, "OPT has as many KV heads as heads"});
    if (file->find("opt.layer_norm_before") && !file->getBool("opt.layer_norm_before").value_or(true))
        return fail({ErrorCode::Unsupported, "post-LayerNorm OPT models (opt-350m) are not supported"});
    if (file->findTensor("project_in.weight") || file->findTensor("project_out.weight"))
        return fail({ErrorCode::Unsupported, "OPT models with project_in/project_out (opt-350m) are not supported"});
    if (const auto name = file->getString("hearth.ffn_activation"); name && *name != "relu")
        return fail({ErrorCode::Unsupported, "FFN activation \"" + *name + "\" is not supported for opt (use relu)"});

    auto tokenizer = createFamilyTokenizer(*file, *hp);
    if (!tokenizer)
        return fail(tokenizer.status());

    auto scaled = familyBindingProgress(params);
    if (!scaled)
        return scaled.status();
    auto weights = bindOpt(*file, *hp, *scaled, packingLimit(params));
    if (!weights)
        return weights.code() == ErrorCode::Cancelled ? weights.status() : fail(weights.status());

    lockFamilyMapping(*file, params);

    ModelInfo info = familyModelInfo(path, *file, *hp, **weights, DenseActivation::Relu);

    return std::shared_ptr<const Model>(std::make_shared<OptModel>(std::move(file), std::move(tokenizer).value(),
                                                                   std::move(hp).value(), std::move(weights).value(),
                                                                   std::move(info)));
}

} // namespace hearth::model
