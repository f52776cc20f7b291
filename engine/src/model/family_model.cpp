// SPDX-License-Identifier: MIT
#include "model/family_model.h"

#include "gguf/gguf_file.h"
#include "tokenizer/tokenizer_factory.h"

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

FamilyModel::FamilyModel(std::unique_ptr<gguf::GgufFile> file, std::unique_ptr<Tokenizer> tokenizer, HyperParams hp,
                         ModelInfo info)
    : m_file(std::move(file))
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

ModelInfo familyModelInfo(const std::string& path, const gguf::GgufFile& file, const HyperParams& hp)
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
    return info;
}

} // namespace hearth::model
