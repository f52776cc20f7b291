// SPDX-License-Identifier: MIT
#include "convert/hf_config.h"

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <initializer_list>
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
constexpr std::int64_t kMaxExperts = 1024;

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

// @p fallback when the key is absent or not a bool.
bool boolOf(const JsonValue& root, const char* key, bool fallback)
{
    const JsonValue* v = root.find(key);
    return v != nullptr && v->isBool() ? v->toBool() : fallback;
}

// readInt under the first of @p keys the config has (Falcon's RW configs use other names).
Status readIntAny(const JsonValue& root, std::initializer_list<const char*> keys, std::int64_t limit, int& out,
                  bool required)
{
    for (const char* key : keys) {
        if (const JsonValue* v = root.find(key); v != nullptr && !v->isNull())
            return readInt(root, key, limit, out, true);
    }
    return required ? invalid(std::string("\"") + *keys.begin() + "\" is missing") : Status();
}

Status checkHeads(const HfConfig& c)
{
    if (c.explicitHeadDim == 0 && c.hiddenSize % c.headCount != 0) {
        return invalid("hidden_size " + std::to_string(c.hiddenSize) + " is not a multiple of num_attention_heads "
                       + std::to_string(c.headCount));
    }
    if (c.headCount % c.kvHeadCount != 0) {
        return invalid("num_attention_heads is not a multiple of the KV head count");
    }
    return {};
}

// FalconForCausalLM (model_type "falcon") and RWForCausalLM ("RefinedWeb", "RefinedWebModel").
// Hearth runs the parallel attention/FFN block with rotary embeddings: ALiBi, projection biases
// and the sequential block (falcon-rw) are refused.
Status parseFalcon(const JsonValue& root, HfConfig& c)
{
    c.ggufArchitecture = "falcon";
    HEARTH_TRY(readIntAny(root, {"hidden_size", "n_embed"}, kMaxWidth, c.hiddenSize, true));
    HEARTH_TRY(readIntAny(root, {"num_hidden_layers", "n_layer"}, kMaxLayers, c.layerCount, true));
    HEARTH_TRY(readIntAny(root, {"num_attention_heads", "n_head"}, kMaxHeads, c.headCount, true));
    HEARTH_TRY(readInt(root, "vocab_size", kMaxVocab, c.vocabSize, true));
    c.falconNewDecoder = boolOf(root, "new_decoder_architecture", false);
    if (c.falconNewDecoder) {
        c.kvHeadCount = c.headCount;
        HEARTH_TRY(readIntAny(root, {"num_kv_heads", "n_head_kv"}, kMaxHeads, c.kvHeadCount, false));
    } else {
        // FalconConfig's default is multi-query (one K/V head), as in Falcon-7B.
        c.kvHeadCount = boolOf(root, "multi_query", true) ? 1 : c.headCount;
    }
    c.intermediateSize = c.hiddenSize <= kMaxWidth / 4 ? 4 * c.hiddenSize : int(kMaxWidth);
    HEARTH_TRY(readInt(root, "ffn_hidden_size", kMaxWidth, c.intermediateSize, false));
    c.contextLength = 2048;
    HEARTH_TRY(readInt(root, "max_position_embeddings", kMaxContext, c.contextLength, false));
    HEARTH_TRY(readFloat(root, "layer_norm_epsilon", c.layerNormEps));
    HEARTH_TRY(readFloat(root, "rope_theta", c.ropeTheta));
    c.tieWordEmbeddings = boolOf(root, "tie_word_embeddings", true);
    if (boolOf(root, "alibi", false))
        return Status(ErrorCode::Unsupported, "config.json: Falcon with ALiBi (falcon-rw) is not supported");
    if (boolOf(root, "bias", false))
        return Status(ErrorCode::Unsupported, "config.json: Falcon with projection biases is not supported");
    if (!c.falconNewDecoder && !boolOf(root, "parallel_attn", true))
        return Status(ErrorCode::Unsupported, "config.json: Falcon without parallel attention is not supported");
    std::string act = stringOf(root, "activation");
    if (act.empty())
        act = stringOf(root, "hidden_act");
    if (act.empty() || act == "gelu")
        c.ffnActivation = "gelu";
    else if (act == "relu")
        c.ffnActivation = "relu"; // ReluFalcon
    else
        return Status(ErrorCode::Unsupported, "config.json: Falcon activation \"" + act + "\" is not supported");
    HEARTH_TRY(checkHeads(c));
    if (c.headDim() % 2 != 0)
        return invalid("the head size " + std::to_string(c.headDim()) + " is odd; rotary embeddings need pairs");
    if (!(c.layerNormEps > 0.0f && c.layerNormEps < 1.0f))
        return invalid("\"layer_norm_epsilon\" is out of range");
    if (!(c.ropeTheta > 1.0f))
        return invalid("\"rope_theta\" is out of range");
    return {};
}

// OPTForCausalLM: pre-LayerNorm decoders with biases everywhere. opt-350m (post-LayerNorm, with
// project_in/project_out) is refused, as the loader refuses it.
Status parseOpt(const JsonValue& root, HfConfig& c)
{
    c.ggufArchitecture = "opt";
    HEARTH_TRY(readInt(root, "hidden_size", kMaxWidth, c.hiddenSize, true));
    HEARTH_TRY(readInt(root, "ffn_dim", kMaxWidth, c.intermediateSize, true));
    HEARTH_TRY(readInt(root, "num_hidden_layers", kMaxLayers, c.layerCount, true));
    HEARTH_TRY(readInt(root, "num_attention_heads", kMaxHeads, c.headCount, true));
    HEARTH_TRY(readInt(root, "vocab_size", kMaxVocab, c.vocabSize, true));
    c.kvHeadCount = c.headCount;
    c.contextLength = 2048;
    HEARTH_TRY(readInt(root, "max_position_embeddings", kMaxContext, c.contextLength, false));
    c.tieWordEmbeddings = boolOf(root, "tie_word_embeddings", true);
    c.layerNormEps = 1e-5f; // OPT's LayerNorms use PyTorch's default
    if (!boolOf(root, "do_layer_norm_before", true))
        return Status(ErrorCode::Unsupported, "config.json: post-LayerNorm OPT models (opt-350m) are not supported");
    int projection = c.hiddenSize;
    HEARTH_TRY(readInt(root, "word_embed_proj_dim", kMaxWidth, projection, false));
    if (projection != c.hiddenSize)
        return Status(ErrorCode::Unsupported, "config.json: OPT with project_in/project_out (opt-350m) is not supported");
    if (!boolOf(root, "enable_bias", true) || !boolOf(root, "layer_norm_elementwise_affine", true))
        return Status(ErrorCode::Unsupported, "config.json: OPT without biases or LayerNorm weights is not supported");
    std::string act = stringOf(root, "activation_function");
    if (!act.empty() && act != "relu")
        return Status(ErrorCode::Unsupported, "config.json: OPT activation \"" + act + "\" is not supported");
    c.ffnActivation = "relu";
    return checkHeads(c);
}

// Which mixture of experts a config describes.
enum class Mixture { None, Mixtral, Qwen2Moe, Qwen3Moe };

// The experts of a mixture: how many, how many a token uses, how wide, and Qwen 2 MoE's shared
// expert. What a GGUF file of the family cannot say (dense layers between the sparse ones, the
// other choice of normalising the chosen experts' weights) is refused.
Status parseExperts(const JsonValue& cfg, Mixture mixture, HfConfig& c)
{
    const bool mixtral = mixture == Mixture::Mixtral;
    HEARTH_TRY(readInt(cfg, mixtral ? "num_local_experts" : "num_experts", kMaxExperts, c.expertCount, true));
    HEARTH_TRY(readInt(cfg, "num_experts_per_tok", c.expertCount, c.expertsUsed, true));
    c.expertWidth = c.intermediateSize;
    if (mixtral)
        return {};
    HEARTH_TRY(readInt(cfg, "moe_intermediate_size", kMaxWidth, c.expertWidth, true));
    if (mixture == Mixture::Qwen2Moe)
        HEARTH_TRY(readInt(cfg, "shared_expert_intermediate_size", kMaxWidth, c.sharedExpertWidth, true));
    int step = 1;
    HEARTH_TRY(readInt(cfg, "decoder_sparse_step", kMaxLayers, step, false));
    const JsonValue* denseLayers = cfg.find("mlp_only_layers");
    if (step != 1 || (denseLayers != nullptr && denseLayers->isArray() && !denseLayers->items().empty()))
        return Status(ErrorCode::Unsupported, "config.json: dense layers between the mixture's layers are not supported");
    // Qwen 3 MoE files renormalise the chosen experts' weights, Qwen 2 MoE files do not.
    const bool normalized = mixture == Mixture::Qwen3Moe;
    if (boolOf(cfg, "norm_topk_prob", normalized) != normalized)
        return Status(ErrorCode::Unsupported, std::string("config.json: norm_topk_prob ")
                                                  + (normalized ? "false" : "true") + " is not supported for this family");
    return {};
}

// "rope_scaling": linear, Llama 3's, or (Phi-3 only) LongRoPE; null or absent: none.
Status parseRopeScaling(const JsonValue& cfg, bool phi3, HfConfig& c)
{
    if (const JsonValue* scaling = cfg.find("rope_scaling"); scaling != nullptr && !scaling->isNull()) {
        if (!scaling->isObject()) {
            return invalid("\"rope_scaling\" is not an object");
        }
        std::string type = stringOf(*scaling, "type");
        if (type.empty()) {
            type = stringOf(*scaling, "rope_type");
        }
        if (phi3 && (type == "longrope" || type == "su")) {
            // Phi-3's LongRoPE: one divisor per rotated pair for short and for long sessions.
            for (const auto& [key, out] : {std::pair{"short_factor", &c.longRopeShort}, std::pair{"long_factor", &c.longRopeLong}}) {
                const JsonValue* list = scaling->find(key);
                if (list == nullptr || !list->isArray() || list->items().empty() || list->items().size() > 4096) {
                    return invalid(std::string("the longrope scaling lacks a list \"") + key + "\"");
                }
                for (const JsonValue& f : list->items()) {
                    if (!f.isNumber() || !(f.toNumber() > 0.0 && f.toNumber() < 1e6)) {
                        return invalid(std::string("\"") + key + "\" holds a factor that is not a positive number");
                    }
                    out->push_back(float(f.toNumber()));
                }
            }
        } else if (type == "llama3") {
            model::Llama3RopeScaling& r = c.llama3Rope;
            r = {};
            HEARTH_TRY(readFloat(*scaling, "factor", r.factor));
            HEARTH_TRY(readFloat(*scaling, "low_freq_factor", r.lowFreqFactor));
            HEARTH_TRY(readFloat(*scaling, "high_freq_factor", r.highFreqFactor));
            float original = float(r.originalContextLength);
            HEARTH_TRY(readFloat(*scaling, "original_max_position_embeddings", original));
            r.originalContextLength = int(original);
            if (!(r.factor >= 1.0f && r.factor < 1000.0f) || !(r.lowFreqFactor > 0.0f) || !(r.highFreqFactor > r.lowFreqFactor)
                || !(original >= 1.0f && original <= float(1 << 24))) {
                return invalid("the llama3 rope scaling needs factor >= 1, 0 < low_freq_factor < high_freq_factor and a positive original context");
            }
        } else if (type != "linear") {
            return Status(ErrorCode::Unsupported, "config.json: rope scaling \"" + type + "\" is not supported");
        } else {
            HEARTH_TRY(readFloat(*scaling, "factor", c.ropeLinearFactor));
            if (!(c.ropeLinearFactor > 0.0f)) {
                return invalid("the rope scaling factor must be positive");
            }
        }
    }

    return {};
}

// The head layout, norm and RoPE settings every llama-block family needs.
Status checkAttention(const HfConfig& c)
{
    HEARTH_TRY(checkHeads(c));
    if (c.headDim() % 2 != 0) {
        return invalid("the head size " + std::to_string(c.headDim()) + " is odd; rotary embeddings need pairs");
    }
    if (!(c.rmsNormEps > 0.0f && c.rmsNormEps < 1.0f)) {
        return invalid("\"rms_norm_eps\" is out of range");
    }
    if (!(c.ropeTheta > 1.0f)) {
        return invalid("\"rope_theta\" is out of range");
    }
    return {};
}

// Gemma 2 and 3 (text). Gemma 3's text_config leaves out what equals the defaults of
// transformers' Gemma3TextConfig, so those are the starting values. What GGUF files cannot say
// is checked against what the gemma2/gemma3 loaders assume: queries scaled by 1 / sqrt(head
// size) (n_embd / n_head for the 27B models), and the local/global layer pattern.
Status parseGemma(const JsonValue& cfg, bool gemma3, HfConfig& c)
{
    c.normOffset = 1.0f;
    c.tieWordEmbeddings = boolOf(cfg, "tie_word_embeddings", true);
    c.rmsNormEps = 1e-6f;
    c.slidingWindow = 4096;
    if (gemma3) {
        c.headCount = 8;
        c.kvHeadCount = 4;
        c.explicitHeadDim = 256;
        c.vocabSize = 262208;
        c.contextLength = 131072;
        c.ropeTheta = 1000000.0f;
        c.ropeLocalTheta = 10000.0f;
    } else {
        c.contextLength = 8192;
        c.attnSoftCap = 50.0f;
        c.finalSoftCap = 30.0f;
    }
    HEARTH_TRY(readInt(cfg, "hidden_size", kMaxWidth, c.hiddenSize, true));
    HEARTH_TRY(readInt(cfg, "intermediate_size", kMaxWidth, c.intermediateSize, true));
    HEARTH_TRY(readInt(cfg, "num_hidden_layers", kMaxLayers, c.layerCount, true));
    HEARTH_TRY(readInt(cfg, "num_attention_heads", kMaxHeads, c.headCount, !gemma3));
    if (!gemma3) {
        c.kvHeadCount = c.headCount;
    }
    HEARTH_TRY(readInt(cfg, "num_key_value_heads", kMaxHeads, c.kvHeadCount, false));
    HEARTH_TRY(readInt(cfg, "head_dim", 1 << 14, c.explicitHeadDim, !gemma3));
    HEARTH_TRY(readInt(cfg, "vocab_size", kMaxVocab, c.vocabSize, !gemma3));
    HEARTH_TRY(readInt(cfg, "max_position_embeddings", kMaxContext, c.contextLength, false));
    HEARTH_TRY(readInt(cfg, "sliding_window", kMaxContext, c.slidingWindow, false));
    HEARTH_TRY(readFloat(cfg, "rms_norm_eps", c.rmsNormEps));
    HEARTH_TRY(readFloat(cfg, "rope_theta", c.ropeTheta));
    HEARTH_TRY(readFloat(cfg, "rope_local_base_freq", c.ropeLocalTheta));
    // null turns soft-capping off (Gemma 3's configs say so).
    for (const auto& [key, cap] : {std::pair{"attn_logit_softcapping", &c.attnSoftCap},
                                   std::pair{"final_logit_softcapping", &c.finalSoftCap}}) {
        if (const JsonValue* v = cfg.find(key); v != nullptr && v->isNull()) {
            *cap = 0.0f;
        }
        HEARTH_TRY(readFloat(cfg, key, *cap));
        if (!(*cap >= 0.0f && *cap < 1e6f)) {
            return invalid(std::string("\"") + key + "\" is out of range");
        }
    }
    HEARTH_TRY(parseRopeScaling(cfg, false, c));
    if (c.llama3Rope.factor > 0.0f) {
        return Status(ErrorCode::Unsupported, "config.json: Gemma with Llama 3's rope scaling is not supported");
    }
    HEARTH_TRY(checkAttention(c));

    const int wideScaleLayers = gemma3 ? 62 : 46; // the 27B models
    const float impliedScalar =
        c.layerCount == wideScaleLayers ? float(c.hiddenSize) / float(c.headCount) : float(c.headDim());
    float scalar = impliedScalar;
    HEARTH_TRY(readFloat(cfg, "query_pre_attn_scalar", scalar));
    if (scalar != impliedScalar) {
        return Status(ErrorCode::Unsupported, "config.json: query_pre_attn_scalar " + std::to_string(scalar)
                                                  + " differs from what a GGUF file of this size implies ("
                                                  + std::to_string(impliedScalar) + ")");
    }
    // Gemma 2 slides on the even layers, Gemma 3 on all but every sixth.
    const int period = gemma3 ? 6 : 2;
    int pattern = period;
    HEARTH_TRY(readInt(cfg, "sliding_window_pattern", kMaxLayers, pattern, false));
    bool layersMatch = true;
    if (const JsonValue* types = cfg.find("layer_types"); types != nullptr && types->isArray()) {
        layersMatch = int(types->items().size()) == c.layerCount;
        for (std::size_t l = 0; layersMatch && l < types->items().size(); ++l) {
            const bool sliding = gemma3 ? (l + 1) % 6 != 0 : l % 2 == 0;
            layersMatch = types->items()[l].isString()
                && types->items()[l].toString() == (sliding ? "sliding_attention" : "full_attention");
        }
    }
    if (pattern != period || !layersMatch) {
        return Status(ErrorCode::Unsupported,
                      "config.json: a pattern of sliding-window layers other than Gemma's is not supported");
    }
    return {};
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

float HfConfig::longRopeAttnFactor() const
{
    const double scale = originalContextLength > 0 ? double(contextLength) / double(originalContextLength) : 1.0;
    return scale <= 1.0 ? 1.0f : float(std::sqrt(1.0 + std::log(scale) / std::log(double(originalContextLength))));
}

const std::vector<std::string>& convertibleModelTypes()
{
    static const std::vector<std::string> types = {"llama",  "mistral",     "mixtral", "bamboo", "qwen2",
                                                   "qwen3",  "qwen2_moe",   "qwen3_moe", "phi3", "gemma2",
                                                   "gemma3", "gemma3_text", "falcon",  "opt",    "RefinedWeb",
                                                   "RefinedWebModel"};
    return types;
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

    const bool falcon = c.modelType == "falcon" || c.modelType == "RefinedWeb" || c.modelType == "RefinedWebModel"
        || c.hfArchitecture == "FalconForCausalLM" || c.hfArchitecture == "RWForCausalLM";
    if (falcon) {
        HEARTH_TRY(parseFalcon(root, c));
        return c;
    }
    if (c.modelType == "opt" || c.hfArchitecture == "OPTForCausalLM") {
        HEARTH_TRY(parseOpt(root, c));
        return c;
    }
    const bool bamboo = c.modelType == "bamboo" || c.hfArchitecture.find("Bamboo") != std::string::npos;
    const Mixture mixture = c.modelType == "mixtral" || c.hfArchitecture == "MixtralForCausalLM" ? Mixture::Mixtral
        : c.modelType == "qwen2_moe" || c.hfArchitecture == "Qwen2MoeForCausalLM"               ? Mixture::Qwen2Moe
        : c.modelType == "qwen3_moe" || c.hfArchitecture == "Qwen3MoeForCausalLM"               ? Mixture::Qwen3Moe
                                                                                                 : Mixture::None;
    const bool llamaLike = c.modelType == "llama" || c.modelType == "mistral" || c.hfArchitecture == "LlamaForCausalLM"
        || c.hfArchitecture == "MistralForCausalLM" || mixture == Mixture::Mixtral;
    const bool qwen2 = c.modelType == "qwen2" || c.hfArchitecture == "Qwen2ForCausalLM" || mixture == Mixture::Qwen2Moe;
    const bool qwen3 = c.modelType == "qwen3" || c.hfArchitecture == "Qwen3ForCausalLM" || mixture == Mixture::Qwen3Moe;
    const bool phi3 = c.modelType == "phi3" || c.hfArchitecture == "Phi3ForCausalLM";
    const bool gemma2 = c.modelType == "gemma2" || c.hfArchitecture == "Gemma2ForCausalLM";
    const bool gemma3 = c.modelType == "gemma3" || c.modelType == "gemma3_text" || c.hfArchitecture == "Gemma3ForCausalLM"
        || c.hfArchitecture == "Gemma3ForConditionalGeneration";
    if (!bamboo && !llamaLike && !qwen2 && !qwen3 && !phi3 && !gemma2 && !gemma3) {
        return Status(ErrorCode::Unsupported,
                      "config.json: model \"" + (c.hfArchitecture.empty() ? c.modelType : c.hfArchitecture)
                          + "\" is not supported (LlamaForCausalLM, MistralForCausalLM, MixtralForCausalLM, Bamboo, "
                            "Qwen2ForCausalLM, Qwen3ForCausalLM, Qwen2MoeForCausalLM, Qwen3MoeForCausalLM, "
                            "Phi3ForCausalLM, Gemma2ForCausalLM, Gemma3ForCausalLM, Gemma3ForConditionalGeneration, "
                            "FalconForCausalLM, RWForCausalLM and OPTForCausalLM are)");
    }
    // Mixtral's GGUF files are llama files with experts, as llama.cpp writes them.
    c.ggufArchitecture = bamboo               ? "bamboo"
        : mixture == Mixture::Qwen2Moe       ? "qwen2moe"
        : mixture == Mixture::Qwen3Moe       ? "qwen3moe"
        : qwen2                              ? "qwen2"
        : qwen3                              ? "qwen3"
        : phi3                               ? "phi3"
        : gemma2                             ? "gemma2"
        : gemma3                             ? "gemma3"
                                             : "llama";
    // Gemma 3's multimodal checkpoints keep the text model's settings in "text_config"; the
    // vision tower is not converted.
    const JsonValue* textConfig = gemma3 ? root.find("text_config") : nullptr;
    if (textConfig != nullptr && !textConfig->isObject()) {
        return invalid("\"text_config\" is not an object");
    }
    c.multimodal = textConfig != nullptr;
    const JsonValue& cfg = textConfig != nullptr ? *textConfig : root;

    // The activation decides which gated FFN the file declares. ReluLLaMA and ProSparse say
    // "relu" (ReLU on the gate); Bamboo applies ReLU to gate and up alike.
    std::string act = stringOf(cfg, "hidden_act");
    if (act.empty()) {
        act = stringOf(cfg, "hidden_activation");
    }
    if (bamboo) {
        if (!act.empty() && act != "relu" && act != "drelu") {
            return Status(ErrorCode::Unsupported, "config.json: Bamboo with activation \"" + act + "\" is not supported");
        }
        c.ffnActivation = "drelu";
    } else if (gemma2 || gemma3) {
        // Gemma's GELU is the tanh approximation, whatever older configs call it (as llama.cpp).
        if (!act.empty() && act != "gelu_pytorch_tanh" && act != "gelu" && act != "gelu_new") {
            return Status(ErrorCode::Unsupported, "config.json: Gemma with activation \"" + act + "\" is not supported");
        }
        c.ffnActivation = "geglu";
        HEARTH_TRY(parseGemma(cfg, gemma3, c));
        return c;
    } else if (act == "relu" || act == "fatrelu") {
        c.ffnActivation = "reglu";
    } else if (act == "drelu") {
        c.ffnActivation = "drelu";
    } else if (act == "silu" || act == "swish" || act.empty()) {
        c.ffnActivation = "swiglu";
    } else {
        return Status(ErrorCode::Unsupported, "config.json: hidden activation \"" + act + "\" is not supported");
    }

    HEARTH_TRY(readInt(cfg, "hidden_size", kMaxWidth, c.hiddenSize, true));
    HEARTH_TRY(readInt(cfg, "intermediate_size", kMaxWidth, c.intermediateSize, true));
    HEARTH_TRY(readInt(cfg, "num_hidden_layers", kMaxLayers, c.layerCount, true));
    HEARTH_TRY(readInt(cfg, "num_attention_heads", kMaxHeads, c.headCount, true));
    c.kvHeadCount = c.headCount;
    HEARTH_TRY(readInt(cfg, "num_key_value_heads", kMaxHeads, c.kvHeadCount, false));
    HEARTH_TRY(readInt(cfg, "vocab_size", kMaxVocab, c.vocabSize, true));
    c.contextLength = 2048;
    HEARTH_TRY(readInt(cfg, "max_position_embeddings", kMaxContext, c.contextLength, false));
    HEARTH_TRY(readFloat(cfg, "rms_norm_eps", c.rmsNormEps));
    if (mixture != Mixture::None)
        HEARTH_TRY(parseExperts(cfg, mixture, c));
    HEARTH_TRY(readFloat(cfg, "rope_theta", c.ropeTheta));
    if (const JsonValue* tie = cfg.find("tie_word_embeddings"); tie != nullptr && tie->isBool()) {
        c.tieWordEmbeddings = tie->toBool();
    }
    // Qwen 2 always has Q/K/V biases (its config does not say so); a llama or Qwen 3 config
    // that asks for biases names a layout no GGUF architecture of theirs has.
    if (const JsonValue* bias = cfg.find("attention_bias"); !qwen2 && bias != nullptr && bias->isBool() && bias->toBool()) {
        return Status(ErrorCode::Unsupported, "config.json: attention biases are not supported");
    }
    // Qwen 3 states its head size, which need not be hidden_size / num_attention_heads.
    HEARTH_TRY(readInt(cfg, "head_dim", 1 << 14, c.explicitHeadDim, false));
    HEARTH_TRY(parseRopeScaling(cfg, phi3, c));
    if (phi3) {
        HEARTH_TRY(readFloat(cfg, "partial_rotary_factor", c.partialRotaryFactor));
        if (!(c.partialRotaryFactor > 0.0f && c.partialRotaryFactor <= 1.0f)) {
            return invalid("\"partial_rotary_factor\" is out of range");
        }
        if (const JsonValue* window = cfg.find("sliding_window"); window != nullptr && !window->isNull()) {
            HEARTH_TRY(readInt(cfg, "sliding_window", kMaxContext, c.slidingWindow, false));
        }
        c.originalContextLength = c.contextLength;
        HEARTH_TRY(readInt(cfg, "original_max_position_embeddings", kMaxContext, c.originalContextLength, false));
    }
    HEARTH_TRY(checkAttention(c));
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
