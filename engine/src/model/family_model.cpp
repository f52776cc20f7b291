// SPDX-License-Identifier: MIT
#include "model/family_model.h"

#include "core/mapped_file.h"
#include "cpu/matmul.h"
#include "cpu/weight_pack.h"
#include "gguf/gguf_file.h"
#include "model/dense_ffn.h"
#include "model/tensor_binder.h"
#include "tokenizer/tokenizer_factory.h"

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>

namespace hearth::model {

namespace {

// Bounds no real model reaches, keeping later size arithmetic far from overflow.
constexpr std::int64_t MaxDim = 1 << 20;
constexpr std::int64_t MaxLayers = 4096;

Status invalid(const std::string& message)
{
    return {ErrorCode::InvalidFile, message};
}

Status readPositive(const gguf::GgufFile& file, const std::string& key, std::int64_t limit, int& out, bool required)
{
    const auto value = file.getInt(key);
    if (!value) {
        if (file.find(key))
            return invalid("metadata key " + key + " is not an integer");
        return required ? invalid("metadata key " + key + " is missing") : Status();
    }
    if (*value <= 0 || *value > limit)
        return invalid("metadata key " + key + " has an implausible value " + std::to_string(*value));
    out = int(*value);
    return {};
}

} // namespace

FamilyModel::FamilyModel(const Architecture& architecture, std::unique_ptr<gguf::GgufFile> file,
                         std::unique_ptr<Tokenizer> tokenizer, HyperParams hp, ModelInfo info)
    : ArchitectureModel(architecture)
    , m_file(std::move(file))
    , m_tokenizer(std::move(tokenizer))
    , m_hp(std::move(hp))
    , m_info(std::move(info))
    , m_chatTemplate(m_file->getString("tokenizer.chat_template").value_or(std::string()))
{
}

FamilyModel::~FamilyModel() = default;

Result<HyperParams> readFamilyHyperParams(const gguf::GgufFile& file, const std::string& arch)
{
    HyperParams hp;
    hp.architecture = arch;
    const std::string p = arch + ".";
    HEARTH_TRY(readPositive(file, p + "embedding_length", MaxDim, hp.nEmbd, true));
    HEARTH_TRY(readPositive(file, p + "block_count", MaxLayers, hp.nLayer, true));
    HEARTH_TRY(readPositive(file, p + "attention.head_count", MaxDim, hp.nHead, true));
    hp.nFf = hp.nEmbd <= MaxDim / 4 ? 4 * hp.nEmbd : int(MaxDim);
    HEARTH_TRY(readPositive(file, p + "feed_forward_length", MaxDim, hp.nFf, false));
    hp.nHeadKv = hp.nHead;
    HEARTH_TRY(readPositive(file, p + "attention.head_count_kv", MaxDim, hp.nHeadKv, false));
    hp.nCtxTrain = 2048;
    HEARTH_TRY(readPositive(file, p + "context_length", std::numeric_limits<int>::max(), hp.nCtxTrain, false));

    if (hp.nEmbd % hp.nHead != 0)
        return invalid("embedding length " + std::to_string(hp.nEmbd) + " is not a multiple of the head count "
                       + std::to_string(hp.nHead));
    if (hp.nHead % hp.nHeadKv != 0)
        return invalid("head count " + std::to_string(hp.nHead) + " is not a multiple of the KV head count "
                       + std::to_string(hp.nHeadKv));
    hp.headDim = hp.nEmbd / hp.nHead;
    hp.nRot = hp.headDim;

    if (file.find(p + "attention.layer_norm_epsilon")) {
        const auto eps = file.getFloat(p + "attention.layer_norm_epsilon");
        if (!eps || !(*eps > 0 && *eps < 1))
            return invalid("metadata key " + p + "attention.layer_norm_epsilon is out of range");
        hp.normEps = float(*eps);
    }

    const gguf::ArrayValue* tokens = file.getArray("tokenizer.ggml.tokens");
    if (!tokens || tokens->size() == 0)
        return invalid("the vocabulary (tokenizer.ggml.tokens) is missing");
    if (tokens->size() > std::size_t(MaxDim) * 4)
        return invalid("the vocabulary has an implausible size");
    hp.nVocab = int(tokens->size());
    return hp;
}

Result<std::unique_ptr<Tokenizer>> createFamilyTokenizer(const gguf::GgufFile& file, const HyperParams& hp)
{
    auto tokenizer = createTokenizer(file);
    if (!tokenizer)
        return tokenizer.status();
    if ((*tokenizer)->vocabSize() != hp.nVocab)
        return Status(ErrorCode::InvalidFile, "the tokenizer has " + std::to_string((*tokenizer)->vocabSize())
                                                  + " tokens but the vocabulary lists " + std::to_string(hp.nVocab));
    return tokenizer;
}

ModelInfo familyModelInfo(const std::string& path, const gguf::GgufFile& file, const HyperParams& hp,
                          const FamilyWeights& weights, DenseActivation activation)
{
    ModelInfo info;
    info.path = path;
    info.name = file.getString("general.name").value_or(std::filesystem::path(path).filename().string());
    info.architecture = hp.architecture;
    info.fileSize = file.bytes().size();
    info.layerCount = hp.nLayer;
    info.embeddingSize = hp.nEmbd;
    info.headCount = hp.nHead;
    info.kvHeadCount = hp.nHeadKv;
    info.feedForwardSize = hp.nFf;
    info.vocabSize = hp.nVocab;
    info.trainedContextLength = hp.nCtxTrain;
    info.weightType = std::string(dtypeName(weights.dominantType));
    info.ffnActivation = std::string(denseActivationName(activation));
    info.sparse = weights.sparse;
    info.parameterCount = weights.parameterCount;
    info.bytesLeftMapped = weights.packed.refusedBytes();
    return info;
}

Result<ProgressCallback> familyBindingProgress(const LoadParams& params)
{
    if (params.progress && !params.progress(0.05f))
        return Status(ErrorCode::Cancelled, "loading was cancelled");
    return ProgressCallback([&params](float f) { return !params.progress || params.progress(0.05f + 0.95f * f); });
}

void lockFamilyMapping(const gguf::GgufFile& file, const LoadParams& params)
{
    if (params.lockInMemory && file.mapping())
        (void)file.mapping()->lock();
}

Status bindFamilyOutput(TensorBinder& binder, const HyperParams& hp, FamilyWeights& weights)
{
    HEARTH_TRY(binder.vector("output_norm.weight", hp.nEmbd, weights.outputNorm, weights.convertedNorms));
    HEARTH_TRY(binder.vector("output_norm.bias", hp.nEmbd, weights.outputNormBias, weights.convertedNorms));
    if (!binder.has("output.weight")) {
        weights.output = weights.tokenEmbd;
        return {};
    }
    return binder.matrix("output.weight", hp.nEmbd, hp.nVocab, weights.output);
}

void finishFamilyWeights(const TensorBinder& binder, FamilyWeights& weights)
{
    weights.dominantType = binder.dominantType();
    weights.parameterCount = binder.parameters();
}

Status bindFfnDown(TensorBinder& binder, const std::string& prefix, const HyperParams& hp, UpDownFfn& ffn)
{
    if (!binder.has(prefix + "ffn_down.weight") && binder.has(prefix + "ffn_down_t.weight")) {
        // PowerInfer files store the down projection neuron-major: row i is neuron i's
        // n_embd output weights, ggml shape [n_embd, n_ff].
        HEARTH_TRY(binder.matrix(prefix + "ffn_down_t.weight", hp.nEmbd, hp.nFf, ffn.down));
        ffn.downTransposed = true;
        return {};
    }
    return binder.matrix(prefix + "ffn_down.weight", hp.nFf, hp.nEmbd, ffn.down);
}

Status bindFamilyFfn(TensorBinder& binder, const std::string& prefix, const HyperParams& hp, UpDownFfn& ffn)
{
    if (binder.has(prefix + "ffn_neurons.weight")) {
        // Hearth's fused sparse layout: one row of up|down per neuron, read in one piece.
        HEARTH_TRY(binder.matrix(prefix + "ffn_neurons.weight", 2 * std::int64_t(hp.nEmbd), hp.nFf, ffn.neurons));
        ffn.fusedNeurons = true;
    } else {
        HEARTH_TRY(binder.matrix(prefix + "ffn_up.weight", hp.nEmbd, hp.nFf, ffn.up));
        HEARTH_TRY(bindFfnDown(binder, prefix, hp, ffn));
    }
    return binder.predictor(prefix, hp.nEmbd, hp.nFf, ffn.predictor);
}

std::size_t familyFfnTensorCount(const gguf::GgufFile& file)
{
    const std::size_t matrices = file.findTensor("blk.0.ffn_neurons.weight") ? 1 : 2;
    return matrices + (file.findTensor("blk.0.fc1.weight") ? 2 : 0) + (file.findTensor("blk.0.fc2.bias") ? 1 : 0);
}

Status readSparseThreshold(const gguf::GgufFile& file, float& threshold)
{
    if (!file.find("powerinfer.sparse_threshold"))
        return {};
    const auto value = file.getFloat("powerinfer.sparse_threshold");
    if (!value || !std::isfinite(*value))
        return invalid("powerinfer.sparse_threshold is not a finite number");
    threshold = float(*value);
    return {};
}

void packForKernels(cpu::PackedWeightStore& packed, cpu::WeightMatrix& m, bool release, bool fileMapped)
{
    if (packed.pack(m) && fileMapped && release)
        cpu::releaseMappedPages(m.data, std::size_t(m.packedRows) * rowBytes(m.type, m.cols));
}

void packFfnForKernels(cpu::PackedWeightStore& packed, UpDownFfn& ffn, bool fileMapped, bool sparse)
{
    // Predictors are dense products read for every token.
    if (ffn.predictor.present()) {
        packForKernels(packed, ffn.predictor.fc1, true, fileMapped);
        packForKernels(packed, ffn.predictor.fc2, true, fileMapped);
    }
    // The sparse FFN reads its neuron rows in place; huge pages spare the hardware prefetcher a
    // stop at every 4 KiB page of the mapping.
    if (ffn.fusedNeurons) {
        packed.moveToHugePages(ffn.neurons, fileMapped);
        return;
    }
    if (sparse && ffn.downTransposed) {
        packed.moveToHugePages(ffn.up, fileMapped);
        packed.moveToHugePages(ffn.down, fileMapped);
        return;
    }
    packForKernels(packed, ffn.up, true, fileMapped);
    if (!ffn.downTransposed)
        packForKernels(packed, ffn.down, true, fileMapped);
}

} // namespace hearth::model
