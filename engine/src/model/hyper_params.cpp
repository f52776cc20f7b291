// SPDX-License-Identifier: MIT
#include "model/hyper_params.h"

#include "gguf/gguf_file.h"

#include <cmath>
#include <cstdint>
#include <limits>

namespace hearth::model {

namespace {

// Upper bounds that no real model reaches but that keep later size arithmetic far from overflow.
constexpr std::int64_t MaxDim = 1 << 20;
constexpr std::int64_t MaxLayers = 4096;

Status invalid(const std::string& message)
{
    return {ErrorCode::InvalidFile, message};
}

// Reads a positive integer key, or fails with a message naming the key.
Status readPositive(const gguf::GgufFile& file, const std::string& key, std::int64_t limit, int& out, bool required = true)
{
    const auto value = file.getInt(key);
    if (!value) {
        if (!required)
            return {};
        return file.find(key) ? invalid("metadata key " + key + " is not an integer")
                              : invalid("metadata key " + key + " is missing");
    }
    if (*value <= 0 || *value > limit)
        return invalid("metadata key " + key + " has an implausible value " + std::to_string(*value));
    out = int(*value);
    return {};
}

} // namespace

Result<HyperParams> HyperParams::fromGguf(const gguf::GgufFile& file)
{
    HyperParams hp;
    const auto arch = file.getString("general.architecture");
    if (!arch)
        return invalid("metadata key general.architecture is missing");
    const Architecture* family = findArchitecture(*arch);
    if (!family || family->block != BlockKind::Llama)
        return Status(ErrorCode::Unsupported, "architecture \"" + *arch + "\" is not supported");
    hp.architecture = *arch;
    hp.flavour = family->llama;
    const std::string p = *arch + ".";

    HEARTH_TRY(readPositive(file, p + "embedding_length", MaxDim, hp.nEmbd));
    HEARTH_TRY(readPositive(file, p + "block_count", MaxLayers, hp.nLayer));
    HEARTH_TRY(readPositive(file, p + "feed_forward_length", MaxDim, hp.nFf));
    HEARTH_TRY(readPositive(file, p + "attention.head_count", MaxDim, hp.nHead));
    hp.nHeadKv = hp.nHead;
    HEARTH_TRY(readPositive(file, p + "attention.head_count_kv", MaxDim, hp.nHeadKv, false));
    hp.nCtxTrain = 2048;
    HEARTH_TRY(readPositive(file, p + "context_length", std::numeric_limits<int>::max(), hp.nCtxTrain, false));

    if (hp.nHead % hp.nHeadKv != 0)
        return invalid("head count " + std::to_string(hp.nHead) + " is not a multiple of the KV head count "
                       + std::to_string(hp.nHeadKv));
    // The head size is its own key in families whose heads do not split the embedding (Qwen 3).
    HEARTH_TRY(readPositive(file, p + "attention.key_length", 1 << 14, hp.headDim, false));
    if (hp.headDim == 0) {
        if (hp.nEmbd % hp.nHead != 0)
            return invalid("embedding length " + std::to_string(hp.nEmbd) + " is not a multiple of the head count "
                           + std::to_string(hp.nHead));
        hp.headDim = hp.nEmbd / hp.nHead;
    }
    int valueLength = hp.headDim;
    HEARTH_TRY(readPositive(file, p + "attention.value_length", 1 << 14, valueLength, false));
    if (valueLength != hp.headDim)
        return Status(ErrorCode::Unsupported, "attention heads with keys of " + std::to_string(hp.headDim)
                                                  + " and values of " + std::to_string(valueLength)
                                                  + " elements are not supported");

    hp.nRot = hp.headDim;
    HEARTH_TRY(readPositive(file, p + "rope.dimension_count", MaxDim, hp.nRot, false));
    if (hp.nRot > hp.headDim || hp.nRot % 2 != 0)
        return invalid("rope dimension count " + std::to_string(hp.nRot) + " does not fit head size "
                       + std::to_string(hp.headDim));

    if (const auto eps = file.getFloat(p + "attention.layer_norm_rms_epsilon")) {
        if (!(*eps > 0 && *eps < 1))
            return invalid("RMS norm epsilon " + std::to_string(*eps) + " is out of range");
        hp.normEps = float(*eps);
    }
    if (const auto base = file.getFloat(p + "rope.freq_base")) {
        if (!(*base > 1 && std::isfinite(*base)))
            return invalid("rope frequency base " + std::to_string(*base) + " is out of range");
        hp.ropeFreqBase = float(*base);
    }
    if (const auto base = file.getFloat(p + "rope.freq_base_swa")) {
        if (!(*base > 1 && std::isfinite(*base)))
            return invalid("rope frequency base of the sliding-window layers " + std::to_string(*base)
                           + " is out of range");
        hp.ropeFreqBaseSwa = float(*base);
        hp.ropeFreqScaleSwa = 1.0f;
    }
    if (const auto type = file.getString(p + "rope.scaling.type"); type && *type != "none" && *type != "longrope") {
        if (*type != "linear" && *type != "yarn")
            return Status(ErrorCode::Unsupported, "rope scaling \"" + *type + "\" is not supported");
        hp.ropeYarn = *type == "yarn";
        for (const auto& [key, beta] : {std::pair{"rope.scaling.yarn_beta_fast", &hp.yarnBetaFast},
                                        std::pair{"rope.scaling.yarn_beta_slow", &hp.yarnBetaSlow}}) {
            if (const auto value = file.getFloat(p + key)) {
                if (!(*value > 0 && *value < 1e4))
                    return invalid(p + key + " " + std::to_string(*value) + " is out of range");
                *beta = float(*value);
            }
        }
        const auto factor = file.getFloat(p + "rope.scaling.factor");
        if (factor && !(*factor > 0 && std::isfinite(*factor)))
            return invalid("rope scaling factor " + std::to_string(*factor) + " is out of range");
        if (factor && *factor != 0)
            hp.ropeFreqScale = float(1.0 / *factor);
    } else if (const auto factor = file.getFloat(p + "rope.scale_linear")) {
        // Older converters wrote the linear factor under this key.
        if (*factor > 0 && std::isfinite(*factor))
            hp.ropeFreqScale = float(1.0 / *factor);
    }

    // LongRoPE's factors are tensors (rope_factors_long/short.weight); these keys say how to use them.
    if (const auto factor = file.getFloat(p + "rope.scaling.attn_factor")) {
        if (!(*factor > 0 && *factor < 100))
            return invalid("rope attention factor " + std::to_string(*factor) + " is out of range");
        hp.ropeAttnFactor = float(*factor);
    }
    hp.ropeOriginalContext = hp.nCtxTrain;
    HEARTH_TRY(readPositive(file, p + "rope.scaling.original_context_length", std::numeric_limits<int>::max(),
                            hp.ropeOriginalContext, false));
    if (const auto window = file.getInt(p + "attention.sliding_window")) { // 0: none (Phi-4 writes it)
        if (*window < 0 || *window > std::numeric_limits<int>::max())
            return invalid("sliding window " + std::to_string(*window) + " is out of range");
        hp.slidingWindow = int(*window);
    }
    for (const auto& [key, cap] : {std::pair{"attn_logit_softcapping", &hp.attnSoftCap},
                                   std::pair{"final_logit_softcapping", &hp.finalSoftCap}}) {
        if (const auto value = file.getFloat(p + key)) {
            if (!(*value >= 0 && *value < 1e6))
                return invalid(p + key + " " + std::to_string(*value) + " is out of range");
            *cap = float(*value);
        }
    }
    HEARTH_TRY(readPositive(file, p + "expert_count", 1 << 16, hp.nExpert, false));
    if (hp.nExpert > 0) {
        HEARTH_TRY(readPositive(file, p + "expert_used_count", hp.nExpert, hp.nExpertUsed));
        // Mixtral's experts are feed_forward_length wide; newer families say it with a key of
        // their own (their defaults hook knows the older files' rule).
        hp.nFfExpert = hp.nFf;
        HEARTH_TRY(readPositive(file, p + "expert_feed_forward_length", MaxDim, hp.nFfExpert, false));
        hp.nFfSharedExpert = hp.nFf;
        HEARTH_TRY(readPositive(file, p + "expert_shared_feed_forward_length", MaxDim, hp.nFfSharedExpert, false));
        if (const auto gating = file.getInt(p + "expert_gating_func")) {
            const auto known = expertGatingFromGguf(*gating);
            if (!known)
                return Status(ErrorCode::Unsupported, "expert gating function " + std::to_string(*gating) + " is not supported");
            hp.expertGating = *known;
        }
    }
    if (family->defaults)
        family->defaults(hp, file);

    const gguf::ArrayValue* tokens = file.getArray("tokenizer.ggml.tokens");
    if (!tokens || tokens->size() == 0)
        return invalid("the vocabulary (tokenizer.ggml.tokens) is missing");
    if (tokens->size() > std::size_t(MaxDim) * 4)
        return invalid("the vocabulary has an implausible size");
    hp.nVocab = int(tokens->size());

    // FFN activation. Hearth reads the key "hearth.ffn_activation" ("swiglu", "reglu", "drelu"
    // or "relu2") so converted ReLU models can say what they use; files without it get the
    // family's default, except that a PowerInfer (PWRI) file of a SwiGLU family is a ReLU-gated
    // model (ReluLLaMA, ProSparse).
    if (const auto name = file.getString("hearth.ffn_activation")) {
        const auto act = parseFfnActivation(*name);
        if (!act)
            return Status(ErrorCode::Unsupported, "FFN activation \"" + *name + "\" is not supported");
        hp.ffnActivation = *act;
    } else if (hp.flavour.activation == FfnActivation::SwiGlu && file.magic() == gguf::Magic::PowerInfer) {
        hp.ffnActivation = FfnActivation::ReGlu;
    } else {
        hp.ffnActivation = hp.flavour.activation;
    }
    return hp;
}

} // namespace hearth::model
