// SPDX-License-Identifier: MIT
#include "convert/hf_config.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace hearth::convert {

namespace {

// No released model comes near these; they keep every later product of sizes far from overflow.
constexpr std::int64_t kMaxWidth = 1 << 18;
constexpr std::int64_t kMaxLayers = 1024;
constexpr std::int64_t kMaxHeads = 4096;
constexpr std::int64_t kMaxVocab = 1 << 22;
constexpr std::int64_t kMaxContext = std::int64_t{1} << 24;

Status invalid(const std::string& message)
{
    return {ErrorCode::InvalidFile, "config.json: " + message};
}

Status readInt(const JsonValue& root, const char* key, std::int64_t limit, int& out, bool required)
{
    const JsonValue* v = root.find(key);
    if (v == nullptr || v->isNull()) {
        return required ? invalid(std::string("\"") + key + "\" is missing") : Status();
    }
    if (!v->isInteger()) {
        return invalid(std::string("\"") + key + "\" is not an integer");
    }
    if (v->toInteger() <= 0 || v->toInteger() > limit) {
        return invalid(std::string("\"") + key + "\" = " + std::to_string(v->toInteger()) + " is implausible");
    }
    out = static_cast<int>(v->toInteger());
    return {};
}

Status readFloat(const JsonValue& root, const char* key, float& out)
{
    const JsonValue* v = root.find(key);
    if (v == nullptr || v->isNull()) {
        return {};
    }
    if (!v->isNumber() || !std::isfinite(v->toNumber())) {
        return invalid(std::string("\"") + key + "\" is not a number");
    }
    out = static_cast<float>(v->toNumber());
    return {};
}

std::string stringOf(const JsonValue& root, const char* key)
{
    const JsonValue* v = root.find(key);
    return v != nullptr && v->isString() ? v->toString() : std::string();
}

} // namespace

Result<std::string> readTextFile(const std::string& path, std::uint64_t limit)
{
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    if (ec) {
        return Status(ErrorCode::IoError, "cannot read '" + path + "': " + ec.message());
    }
    if (size > limit) {
        return Status(ErrorCode::InvalidFile, "'" + path + "' is implausibly large (" + std::to_string(size) + " bytes)");
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        return Status(ErrorCode::IoError, "cannot open '" + path + "'");
    }
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) {
        return Status(ErrorCode::IoError, "cannot read '" + path + "'");
    }
    return text.str();
}

Result<HfConfig> HfConfig::parse(std::string_view json)
{
    auto parsed = parseJson(json, 32);
    if (!parsed) {
        return invalid(parsed.message());
    }
    const JsonValue& root = *parsed;
    if (!root.isObject()) {
        return invalid("not a JSON object");
    }

    HfConfig c;
    if (const JsonValue* archs = root.find("architectures"); archs != nullptr && archs->isArray()
        && !archs->items().empty() && archs->items().front().isString()) {
        c.hfArchitecture = archs->items().front().toString();
    }
    c.modelType = stringOf(root, "model_type");
    c.name = stringOf(root, "_name_or_path");

    const bool bamboo = c.modelType == "bamboo" || c.hfArchitecture.find("Bamboo") != std::string::npos;
    const bool llamaLike = c.modelType == "llama" || c.modelType == "mistral" || c.hfArchitecture == "LlamaForCausalLM"
        || c.hfArchitecture == "MistralForCausalLM";
    if (!bamboo && !llamaLike) {
        return Status(ErrorCode::Unsupported,
                      "config.json: model \"" + (c.hfArchitecture.empty() ? c.modelType : c.hfArchitecture)
                          + "\" is not supported (llama-family models only: LlamaForCausalLM, MistralForCausalLM, "
                            "Bamboo)");
    }
    c.ggufArchitecture = bamboo ? "bamboo" : "llama";

    // The activation decides which gated FFN the file declares. ReluLLaMA and ProSparse say
    // "relu" (ReLU on the gate); Bamboo applies ReLU to gate and up alike.
    std::string act = stringOf(root, "hidden_act");
    if (act.empty()) {
        act = stringOf(root, "hidden_activation");
    }
    if (bamboo) {
        if (!act.empty() && act != "relu" && act != "drelu") {
            return Status(ErrorCode::Unsupported, "config.json: Bamboo with activation \"" + act + "\" is not supported");
        }
        c.ffnActivation = "drelu";
    } else if (act == "relu" || act == "fatrelu") {
        c.ffnActivation = "reglu";
    } else if (act == "drelu") {
        c.ffnActivation = "drelu";
    } else if (act == "silu" || act == "swish" || act.empty()) {
        c.ffnActivation = "swiglu";
    } else {
        return Status(ErrorCode::Unsupported, "config.json: hidden activation \"" + act + "\" is not supported");
    }

    HEARTH_TRY(readInt(root, "hidden_size", kMaxWidth, c.hiddenSize, true));
    HEARTH_TRY(readInt(root, "intermediate_size", kMaxWidth, c.intermediateSize, true));
    HEARTH_TRY(readInt(root, "num_hidden_layers", kMaxLayers, c.layerCount, true));
    HEARTH_TRY(readInt(root, "num_attention_heads", kMaxHeads, c.headCount, true));
    c.kvHeadCount = c.headCount;
    HEARTH_TRY(readInt(root, "num_key_value_heads", kMaxHeads, c.kvHeadCount, false));
    HEARTH_TRY(readInt(root, "vocab_size", kMaxVocab, c.vocabSize, true));
    c.contextLength = 2048;
    HEARTH_TRY(readInt(root, "max_position_embeddings", kMaxContext, c.contextLength, false));
    HEARTH_TRY(readFloat(root, "rms_norm_eps", c.rmsNormEps));
    HEARTH_TRY(readFloat(root, "rope_theta", c.ropeTheta));
    if (const JsonValue* tie = root.find("tie_word_embeddings"); tie != nullptr && tie->isBool()) {
        c.tieWordEmbeddings = tie->toBool();
    }
    if (const JsonValue* bias = root.find("attention_bias"); bias != nullptr && bias->isBool() && bias->toBool()) {
        return Status(ErrorCode::Unsupported, "config.json: attention biases are not supported");
    }
    if (const JsonValue* scaling = root.find("rope_scaling"); scaling != nullptr && !scaling->isNull()) {
        if (!scaling->isObject()) {
            return invalid("\"rope_scaling\" is not an object");
        }
        std::string type = stringOf(*scaling, "type");
        if (type.empty()) {
            type = stringOf(*scaling, "rope_type");
        }
        if (type != "linear") {
            return Status(ErrorCode::Unsupported, "config.json: rope scaling \"" + type + "\" is not supported");
        }
        HEARTH_TRY(readFloat(*scaling, "factor", c.ropeLinearFactor));
        if (!(c.ropeLinearFactor > 0.0f)) {
            return invalid("the rope scaling factor must be positive");
        }
    }

    if (c.hiddenSize % c.headCount != 0) {
        return invalid("hidden_size " + std::to_string(c.hiddenSize) + " is not a multiple of num_attention_heads "
                       + std::to_string(c.headCount));
    }
    if (c.headCount % c.kvHeadCount != 0) {
        return invalid("num_attention_heads is not a multiple of num_key_value_heads");
    }
    if (c.headDim() % 2 != 0) {
        return invalid("the head size " + std::to_string(c.headDim()) + " is odd; rotary embeddings need pairs");
    }
    if (!(c.rmsNormEps > 0.0f && c.rmsNormEps < 1.0f)) {
        return invalid("\"rms_norm_eps\" is out of range");
    }
    if (!(c.ropeTheta > 1.0f)) {
        return invalid("\"rope_theta\" is out of range");
    }
    return c;
}

Result<HfConfig> HfConfig::load(const std::string& folder)
{
    auto text = readTextFile((std::filesystem::path(folder) / "config.json").string(), 1u << 20);
    if (!text) {
        return text.status();
    }
    return parse(*text);
}

} // namespace hearth::convert
