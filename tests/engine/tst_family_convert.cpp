// SPDX-License-Identifier: MIT
// Converting Hugging Face Falcon, OPT, Gemma and mixture-of-experts folders: a synthetic model is
// written directly as GGUF, then the same weights as a Hugging Face folder (FalconForCausalLM with
// multi-query or the new decoder architecture, RWForCausalLM, OPTForCausalLM, Gemma 2 and 3,
// MixtralForCausalLM, Qwen2MoeForCausalLM, Qwen3MoeForCausalLM; safetensors or
// pytorch_model.bin), and the converted file must equal the direct one: every tensor byte for
// byte, in F32 and quantized, the vocabulary, and the logits. With PowerInfer predictors the
// result is a sparse file.

#include "convert/hf_config.h"
#include "convert/hf_to_gguf.h"
#include "convert/quantize_file.h"
#include "family_test_support.h"
#include "gguf/gguf_file.h"
#include "hf_folder_writer.h"
#include "synth/synthetic_families.h"
#include "synth/synthetic_model.h"
#include "synth/synthetic_sparse.h"

#include <hearth/model.h>
#include <hearth/session.h>

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <cstdint>
#include <cstring>
#include <map>
#include <numeric>
#include <random>
#include <vector>

using namespace hearth;
using namespace hearth::test;

namespace {

using Tensors = std::map<std::string, FloatTensor>;

// Which Hugging Face flavour a fixture folder imitates.
enum class Flavour {
    FalconMultiQuery, // FalconForCausalLM, Falcon-7B style: one KV head, one LayerNorm per layer
    FalconNewDecoder, // FalconForCausalLM, Falcon-40B style: KV groups, ln_attn + ln_mlp
    RefinedWeb,       // RWForCausalLM with the old key names (n_embed, n_head, ...)
    Opt,              // OPTForCausalLM
};

synth::SynthOptions optionsFor(Flavour f, DType type)
{
    synth::SynthOptions o;
    o.architecture = f == Flavour::Opt ? "opt" : "falcon";
    o.shape = *synth::shapeByName(o.architecture, f == Flavour::FalconNewDecoder ? "falcon-tiny-gqa"
                                                   : f == Flavour::Opt             ? "opt-tiny"
                                                                                   : "falcon-tiny");
    o.type = type;
    o.ffnActivation = "relu";
    o.seed = 23;
    return o;
}

// An F32 tensor of the GGUF file as a PyTorch tensor (GGUF [cols, rows] is PyTorch [rows, cols]).
FloatTensor torchOf(const gguf::TensorInfo& t)
{
    FloatTensor out;
    for (std::size_t i = t.shape.size(); i-- > 0;)
        out.shape.push_back(t.shape[i]);
    out.values.resize(std::size_t(t.elementCount()));
    std::memcpy(out.values.data(), t.data, out.values.size() * sizeof(float));
    return out;
}

// GGUF's [Q | K | V] rows back into Hugging Face's per-KV-head groups [q.., k, v].
FloatTensor hfQkv(const FloatTensor& gguf, int heads, int kvHeads, int headDim)
{
    FloatTensor out = gguf;
    const std::int64_t cols = gguf.shape[1];
    const int group = heads / kvHeads;
    auto copyHead = [&](int from, int to) {
        for (std::int64_t r = 0; r < headDim; ++r)
            for (std::int64_t c = 0; c < cols; ++c)
                out.values[std::size_t((to * headDim + r) * cols + c)] = gguf.values[std::size_t((from * headDim + r) * cols + c)];
    };
    for (int g = 0; g < kvHeads; ++g) {
        for (int j = 0; j < group; ++j)
            copyHead(g * group + j, g * (group + 2) + j);
        copyHead(heads + g, g * (group + 2) + group);
        copyHead(heads + kvHeads + g, g * (group + 2) + group + 1);
    }
    return out;
}

// The Hugging Face names and layouts of the synthetic file's tensors.
Tensors hfTensors(const gguf::GgufFile& file, Flavour f, const synth::ModelShape& s)
{
    Tensors out;
    const bool opt = f == Flavour::Opt;
    const std::string d = "model.decoder.";
    for (const gguf::TensorInfo& t : file.tensors()) {
        std::string name = t.name;
        FloatTensor value = torchOf(t);
        if (name == "token_embd.weight") {
            name = opt ? d + "embed_tokens.weight" : "transformer.word_embeddings.weight";
        } else if (name == "position_embd.weight") {
            name = d + "embed_positions.weight";
        } else if (name.starts_with("output_norm.")) {
            name = (opt ? d + "final_layer_norm." : std::string("transformer.ln_f.")) + name.substr(12);
        } else if (name == "output.weight") {
            name = "lm_head.weight";
        } else {
            const std::size_t dot = name.find('.', 4);
            const std::string layer = name.substr(4, dot - 4);
            const std::string rest = name.substr(dot + 1);
            const std::string h = opt ? d + "layers." + layer + "." : "transformer.h." + layer + ".";
            static const std::map<std::string, std::string> falconNames = {
                {"attn_output.weight", "self_attention.dense.weight"},
                {"ffn_up.weight", "mlp.dense_h_to_4h.weight"},
                {"ffn_down.weight", "mlp.dense_4h_to_h.weight"},
                {"attn_norm_2.weight", "ln_mlp.weight"},
                {"attn_norm_2.bias", "ln_mlp.bias"},
            };
            static const std::map<std::string, std::string> optNames = {
                {"attn_norm.weight", "self_attn_layer_norm.weight"}, {"attn_norm.bias", "self_attn_layer_norm.bias"},
                {"attn_q.weight", "self_attn.q_proj.weight"},       {"attn_q.bias", "self_attn.q_proj.bias"},
                {"attn_k.weight", "self_attn.k_proj.weight"},       {"attn_k.bias", "self_attn.k_proj.bias"},
                {"attn_v.weight", "self_attn.v_proj.weight"},       {"attn_v.bias", "self_attn.v_proj.bias"},
                {"attn_output.weight", "self_attn.out_proj.weight"}, {"attn_output.bias", "self_attn.out_proj.bias"},
                {"ffn_norm.weight", "final_layer_norm.weight"},     {"ffn_norm.bias", "final_layer_norm.bias"},
                {"ffn_up.weight", "fc1.weight"},                    {"ffn_up.bias", "fc1.bias"},
                {"ffn_down.weight", "fc2.weight"},                  {"ffn_down.bias", "fc2.bias"},
            };
            if (opt) {
                name = h + optNames.at(rest);
            } else if (rest == "attn_qkv.weight") {
                name = h + "self_attention.query_key_value.weight";
                value = hfQkv(value, s.headCount, s.kvHeadCount, s.headDim());
            } else if (rest.starts_with("attn_norm.")) {
                name = h + (f == Flavour::FalconNewDecoder ? "ln_attn." : "input_layernorm.") + rest.substr(10);
            } else {
                name = h + falconNames.at(rest);
            }
        }
        out[name] = std::move(value);
    }
    return out;
}

QByteArray configJson(Flavour f, const synth::ModelShape& s)
{
    QJsonObject c;
    switch (f) {
    case Flavour::FalconMultiQuery:
    case Flavour::FalconNewDecoder:
        c = QJsonObject{{"architectures", QJsonArray{"FalconForCausalLM"}},
                        {"model_type", "falcon"},
                        {"hidden_size", s.embeddingSize},
                        {"num_hidden_layers", s.layerCount},
                        {"num_attention_heads", s.headCount},
                        {"vocab_size", s.vocabSize},
                        {"max_position_embeddings", s.contextLength},
                        {"layer_norm_epsilon", double(s.rmsNormEpsilon)},
                        {"parallel_attn", true},
                        {"bias", false},
                        {"alibi", false},
                        {"activation", "relu"}};
        if (f == Flavour::FalconNewDecoder) {
            c["new_decoder_architecture"] = true;
            c["num_kv_heads"] = s.kvHeadCount;
        } else {
            c["multi_query"] = true;
        }
        break;
    case Flavour::RefinedWeb:
        c = QJsonObject{{"architectures", QJsonArray{"RWForCausalLM"}},
                        {"model_type", "RefinedWebModel"},
                        {"n_embed", s.embeddingSize},
                        {"n_layer", s.layerCount},
                        {"n_head", s.headCount},
                        {"multi_query", true},
                        {"vocab_size", s.vocabSize},
                        {"max_position_embeddings", s.contextLength},
                        {"layer_norm_epsilon", double(s.rmsNormEpsilon)},
                        {"parallel_attn", true},
                        {"bias", false},
                        {"hidden_act", "relu"}};
        break;
    case Flavour::Opt:
        c = QJsonObject{{"architectures", QJsonArray{"OPTForCausalLM"}},
                        {"model_type", "opt"},
                        {"hidden_size", s.embeddingSize},
                        {"ffn_dim", s.feedForwardSize},
                        {"num_hidden_layers", s.layerCount},
                        {"num_attention_heads", s.headCount},
                        {"vocab_size", s.vocabSize},
                        {"max_position_embeddings", s.contextLength},
                        {"word_embed_proj_dim", s.embeddingSize},
                        {"do_layer_norm_before", true},
                        {"activation_function", "relu"},
                        {"enable_bias", true}};
        break;
    }
    return QJsonDocument(c).toJson();
}

// A byte-level BPE tokenizer.json with the synthetic file's vocabulary and merges.
QByteArray tokenizerJson(const gguf::GgufFile& file)
{
    const gguf::ArrayValue* tokens = file.getArray("tokenizer.ggml.tokens");
    const gguf::ArrayValue* types = file.getArray("tokenizer.ggml.token_type");
    const gguf::ArrayValue* merges = file.getArray("tokenizer.ggml.merges");
    QJsonObject vocab;
    QJsonArray added;
    for (std::size_t i = 0; tokens && i < tokens->size(); ++i) {
        const QString text = QString::fromStdString(tokens->strings[i]);
        vocab[text] = qint64(i);
        if (types && types->ints[i] != 1)
            added.append(QJsonObject{{"id", qint64(i)}, {"content", text}, {"special", true}, {"normalized", false}});
    }
    QJsonArray mergeList;
    for (std::size_t i = 0; merges && i < merges->size(); ++i)
        mergeList.append(QString::fromStdString(merges->strings[i]));
    const QJsonObject byteLevel{{"type", "ByteLevel"}, {"add_prefix_space", false}, {"trim_offsets", true}};
    const QJsonObject model{{"type", "BPE"}, {"vocab", vocab}, {"merges", mergeList}};
    const QJsonObject root{{"version", "1.0"}, {"added_tokens", added}, {"pre_tokenizer", byteLevel},
                           {"decoder", byteLevel}, {"model", model}};
    return QJsonDocument(root).toJson(QJsonDocument::Compact);
}

// Gemma's checkpoints: Gemma2ForCausalLM, Gemma3ForCausalLM (1B) and the text model of
// Gemma3ForConditionalGeneration (4B and up: settings in text_config, tensors under
// "language_model.model.", or "model.language_model." as newer transformers save them, and a
// vision tower beside them).
enum class GemmaFlavour { Gemma2, Gemma3, Gemma3Multimodal, Gemma3MultimodalResaved };

// Where the flavour's checkpoint keeps the text model's "model." tensors.
std::string gemmaModelPrefix(GemmaFlavour f)
{
    switch (f) {
    case GemmaFlavour::Gemma3Multimodal:
        return "language_model.model.";
    case GemmaFlavour::Gemma3MultimodalResaved:
        return "model.language_model.";
    default:
        return "model.";
    }
}

synth::SynthOptions gemmaOptions(GemmaFlavour f)
{
    synth::SynthOptions o;
    o.architecture = f == GemmaFlavour::Gemma2 ? "gemma2" : "gemma3";
    o.shape = *synth::shapeByName(o.architecture == "gemma2" ? "gemma2-tiny" : "gemma3-tiny");
    o.type = DType::F32;
    o.ffnActivation = "geglu";
    o.seed = 29;
    return o;
}

// The Hugging Face names of a Gemma GGUF file's tensors under @p model ("model." and the like);
// its norms hold 1 + w, the checkpoints w.
Tensors gemmaHfTensors(const gguf::GgufFile& file, const std::string& model)
{
    static const std::map<std::string, std::string> layerNames = {
        {"attn_norm.weight", "input_layernorm.weight"},
        {"attn_q.weight", "self_attn.q_proj.weight"},
        {"attn_k.weight", "self_attn.k_proj.weight"},
        {"attn_v.weight", "self_attn.v_proj.weight"},
        {"attn_output.weight", "self_attn.o_proj.weight"},
        {"attn_q_norm.weight", "self_attn.q_norm.weight"},
        {"attn_k_norm.weight", "self_attn.k_norm.weight"},
        {"post_attention_norm.weight", "post_attention_layernorm.weight"},
        {"ffn_norm.weight", "pre_feedforward_layernorm.weight"},
        {"post_ffw_norm.weight", "post_feedforward_layernorm.weight"},
        {"ffn_gate.weight", "mlp.gate_proj.weight"},
        {"ffn_up.weight", "mlp.up_proj.weight"},
        {"ffn_down.weight", "mlp.down_proj.weight"},
    };
    Tensors out;
    for (const gguf::TensorInfo& t : file.tensors()) {
        FloatTensor value = torchOf(t);
        std::string name;
        if (t.name == "token_embd.weight") {
            name = "embed_tokens.weight";
        } else if (t.name == "output_norm.weight") {
            name = "norm.weight";
        } else {
            const std::size_t dot = t.name.find('.', 4);
            name = "layers." + t.name.substr(4, dot - 4) + "." + layerNames.at(t.name.substr(dot + 1));
        }
        if (t.name.find("norm") != std::string::npos) {
            for (float& v : value.values)
                v -= 1.0f; // exact: the synthetic norms lie in [0.5, 2]
        }
        out[model + name] = std::move(value);
    }
    return out;
}

QByteArray gemmaConfigJson(GemmaFlavour f, const synth::ModelShape& s)
{
    QJsonObject text{{"hidden_size", s.embeddingSize},
                     {"intermediate_size", s.feedForwardSize},
                     {"num_hidden_layers", s.layerCount},
                     {"num_attention_heads", s.headCount},
                     {"num_key_value_heads", s.kvHeadCount},
                     {"head_dim", s.headDim()},
                     {"vocab_size", s.vocabSize},
                     {"max_position_embeddings", s.contextLength},
                     {"rms_norm_eps", double(s.rmsNormEpsilon)},
                     {"rope_theta", double(s.ropeFreqBase)},
                     {"sliding_window", s.slidingWindow},
                     {"query_pre_attn_scalar", s.headDim()},
                     {"hidden_activation", "gelu_pytorch_tanh"}};
    if (f == GemmaFlavour::Gemma2) {
        text["attn_logit_softcapping"] = double(s.attnSoftCap);
        text["final_logit_softcapping"] = double(s.finalSoftCap);
        text["model_type"] = "gemma2";
        text["architectures"] = QJsonArray{"Gemma2ForCausalLM"};
        return QJsonDocument(text).toJson();
    }
    text["attn_logit_softcapping"] = QJsonValue();
    text["final_logit_softcapping"] = QJsonValue();
    text["rope_local_base_freq"] = 10000.0;
    text["sliding_window_pattern"] = 6;
    if (s.ropeLinearFactor > 0.0f)
        text["rope_scaling"] = QJsonObject{{"rope_type", "linear"}, {"factor", double(s.ropeLinearFactor)}};
    if (f == GemmaFlavour::Gemma3) {
        text["model_type"] = "gemma3_text";
        text["architectures"] = QJsonArray{"Gemma3ForCausalLM"};
        return QJsonDocument(text).toJson();
    }
    text["model_type"] = "gemma3_text";
    const QJsonObject root{{"architectures", QJsonArray{"Gemma3ForConditionalGeneration"}},
                           {"model_type", "gemma3"},
                           {"text_config", text},
                           {"vision_config", QJsonObject{{"hidden_size", 16}, {"model_type", "siglip_vision_model"}}}};
    return QJsonDocument(root).toJson();
}

enum class MoeFlavour { Mixtral, Qwen2Moe, Qwen3Moe };

synth::SynthOptions moeOptions(MoeFlavour f)
{
    synth::SynthOptions o;
    o.architecture = f == MoeFlavour::Mixtral ? "llama" : f == MoeFlavour::Qwen2Moe ? "qwen2moe" : "qwen3moe";
    o.shape = *synth::shapeByName(f == MoeFlavour::Mixtral    ? "mixtral-tiny"
                                  : f == MoeFlavour::Qwen2Moe ? "qwen2moe-tiny"
                                                              : "qwen3moe-tiny");
    o.type = DType::F32;
    o.ffnActivation = "swiglu";
    o.seed = 31;
    return o;
}

// A llama file's Q or K rows back in Hugging Face's order: the inverse of convert::permuteForRope.
FloatTensor unpermutedForRope(const FloatTensor& gguf, int heads)
{
    const std::int64_t rows = gguf.shape[0];
    const std::int64_t cols = gguf.shape[1];
    std::vector<float> rowIds(static_cast<std::size_t>(rows));
    std::iota(rowIds.begin(), rowIds.end(), 0.0f);
    const std::vector<float> from = convert::permuteForRope(rowIds, heads, rows, 1); // GGUF row r is HF row from[r]
    FloatTensor out = gguf;
    for (std::int64_t r = 0; r < rows; ++r)
        std::copy_n(gguf.values.begin() + r * cols, cols, out.values.begin() + std::int64_t(from[std::size_t(r)]) * cols);
    return out;
}

// The Hugging Face names of a mixture's GGUF tensors: Mixtral's block_sparse_moe with experts
// w1, w3, w2, or Qwen's mlp with gate, up and down projections and Qwen 2 MoE's shared expert;
// the stacked experts one tensor per expert.
Tensors moeHfTensors(const gguf::GgufFile& file, MoeFlavour f, const synth::ModelShape& shape)
{
    const bool mixtral = f == MoeFlavour::Mixtral;
    const std::string moe = mixtral ? "block_sparse_moe." : "mlp.";
    const std::map<std::string, std::string> layerNames = {
        {"attn_norm.weight", "input_layernorm.weight"},
        {"attn_q.weight", "self_attn.q_proj.weight"},
        {"attn_k.weight", "self_attn.k_proj.weight"},
        {"attn_v.weight", "self_attn.v_proj.weight"},
        {"attn_q.bias", "self_attn.q_proj.bias"},
        {"attn_k.bias", "self_attn.k_proj.bias"},
        {"attn_v.bias", "self_attn.v_proj.bias"},
        {"attn_output.weight", "self_attn.o_proj.weight"},
        {"attn_q_norm.weight", "self_attn.q_norm.weight"},
        {"attn_k_norm.weight", "self_attn.k_norm.weight"},
        {"ffn_norm.weight", "post_attention_layernorm.weight"},
        {"ffn_gate_inp.weight", moe + "gate.weight"},
        {"ffn_gate_inp_shexp.weight", moe + "shared_expert_gate.weight"},
        {"ffn_gate_shexp.weight", moe + "shared_expert.gate_proj.weight"},
        {"ffn_up_shexp.weight", moe + "shared_expert.up_proj.weight"},
        {"ffn_down_shexp.weight", moe + "shared_expert.down_proj.weight"},
    };
    const std::map<std::string, std::string> expertNames = {
        {"ffn_gate_exps.weight", mixtral ? "w1" : "gate_proj"},
        {"ffn_up_exps.weight", mixtral ? "w3" : "up_proj"},
        {"ffn_down_exps.weight", mixtral ? "w2" : "down_proj"},
    };
    Tensors out;
    for (const gguf::TensorInfo& t : file.tensors()) {
        FloatTensor value = torchOf(t);
        if (t.name == "token_embd.weight") {
            out["model.embed_tokens.weight"] = std::move(value);
            continue;
        }
        if (t.name == "output_norm.weight" || t.name == "output.weight") {
            out[t.name == "output.weight" ? "lm_head.weight" : "model.norm.weight"] = std::move(value);
            continue;
        }
        const std::size_t dot = t.name.find('.', 4);
        const std::string layer = "model.layers." + t.name.substr(4, dot - 4) + ".";
        const std::string suffix = t.name.substr(dot + 1);
        if (const auto stacked = expertNames.find(suffix); stacked != expertNames.end()) {
            const std::int64_t n = value.shape[0];
            const std::size_t each = value.values.size() / std::size_t(n);
            for (std::int64_t e = 0; e < n; ++e) {
                FloatTensor expert{{value.shape[1], value.shape[2]},
                                   std::vector<float>(value.values.begin() + std::int64_t(each) * e,
                                                      value.values.begin() + std::int64_t(each) * (e + 1))};
                out[layer + moe + "experts." + std::to_string(e) + "." + stacked->second + ".weight"] = std::move(expert);
            }
            continue;
        }
        if (mixtral && (suffix == "attn_q.weight" || suffix == "attn_k.weight"))
            value = unpermutedForRope(value, suffix == "attn_q.weight" ? shape.headCount : shape.kvHeadCount);
        if (suffix == "ffn_gate_inp_shexp.weight")
            value.shape = {1, value.shape[0]}; // a Linear(hidden, 1)
        out[layer + layerNames.at(suffix)] = std::move(value);
    }
    return out;
}

QByteArray moeConfigJson(MoeFlavour f, const synth::ModelShape& s, bool tied)
{
    QJsonObject c{{"hidden_act", "silu"},
                  {"hidden_size", s.embeddingSize},
                  {"intermediate_size", s.feedForwardSize},
                  {"num_hidden_layers", s.layerCount},
                  {"num_attention_heads", s.headCount},
                  {"num_key_value_heads", s.kvHeadCount},
                  {"vocab_size", s.vocabSize},
                  {"max_position_embeddings", s.contextLength},
                  {"rms_norm_eps", double(s.rmsNormEpsilon)},
                  {"rope_theta", double(s.ropeFreqBase)},
                  {"tie_word_embeddings", tied},
                  {"num_experts_per_tok", s.expertUsedCount}};
    switch (f) {
    case MoeFlavour::Mixtral:
        c["architectures"] = QJsonArray{"MixtralForCausalLM"};
        c["model_type"] = "mixtral";
        c["num_local_experts"] = s.expertCount;
        c["sliding_window"] = QJsonValue();
        break;
    case MoeFlavour::Qwen2Moe:
    case MoeFlavour::Qwen3Moe: {
        const bool qwen3 = f == MoeFlavour::Qwen3Moe;
        c["architectures"] = QJsonArray{qwen3 ? "Qwen3MoeForCausalLM" : "Qwen2MoeForCausalLM"};
        c["model_type"] = qwen3 ? "qwen3_moe" : "qwen2_moe";
        c["num_experts"] = s.expertCount;
        c["moe_intermediate_size"] = s.expertWidth();
        c["norm_topk_prob"] = qwen3;
        c["decoder_sparse_step"] = 1;
        c["mlp_only_layers"] = QJsonArray{};
        if (qwen3)
            c["head_dim"] = s.headDim();
        else
            c["shared_expert_intermediate_size"] = s.sharedExpertFeedForwardSize;
        break;
    }
    }
    return QJsonDocument(c).toJson();
}

std::vector<float> logitsOf(const std::string& path, const std::vector<Token>& tokens, bool dense = false)
{
    auto model = Model::load(path);
    if (!model) {
        qWarning("%s", model.message().c_str());
        return {};
    }
    SessionParams params;
    params.contextLength = 32;
    params.threads = 2;
    params.denseFfn = dense;
    auto session = Session::create(*model, params);
    std::vector<float> all;
    if (!session || !(*session)->evaluateAll(tokens, all).ok())
        return {};
    return all;
}

const std::vector<Token> kTokens = {11, 300, 257, 64, 99, 12, 270, 5};

} // namespace

class TestFamilyConvert : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    int m_count = 0;

    QString path(const QString& name) { return m_dir.filePath(QStringLiteral("%1-%2").arg(++m_count).arg(name)); }

    // Writes the synthetic model of @p f directly (F32) and as a Hugging Face folder; returns both.
    std::pair<std::string, QString> fixture(Flavour f, bool pytorch)
    {
        const auto o = optionsFor(f, DType::F32);
        const QString direct = path(QStringLiteral("direct.gguf"));
        const Status st = synth::writeSyntheticModel(o, direct.toStdString());
        if (!st.ok()) {
            qWarning("%s", st.message().c_str());
            return {};
        }
        auto file = gguf::GgufFile::open(direct.toStdString());
        if (!file)
            return {};
        const QString hf = path(QStringLiteral("hf"));
        QDir().mkpath(hf);
        const Tensors tensors = hfTensors(**file, f, o.shape);
        const bool ok = writeFixtureFile(hf + "/config.json", configJson(f, o.shape))
                        && writeFixtureFile(hf + "/tokenizer.json", tokenizerJson(**file))
                        && (pytorch ? writeFixtureFile(hf + "/pytorch_model.bin", torchStateDict(tensors))
                                    : writeFixtureFile(hf + "/model.safetensors", hfSafetensors(tensors)));
        if (!ok)
            return {};
        return {direct.toStdString(), hf};
    }

    // A Hugging Face folder @p name: @p config, the tiny tokenizer and @p tensors as safetensors;
    // empty when a file could not be written.
    QString writeHfFolder(const QString& name, const QByteArray& config, const Tensors& tensors)
    {
        const QString hf = path(name);
        const bool ok = QDir().mkpath(hf) && writeFixtureFile(hf + "/config.json", config)
                        && writeFixtureFile(hf + "/tokenizer.json", hfTokenizerJson())
                        && writeFixtureFile(hf + "/tokenizer_config.json", hfTokenizerConfigJson())
                        && writeFixtureFile(hf + "/model.safetensors", hfSafetensors(tensors));
        return ok ? hf : QString();
    }

    // The folder @p hf converted to @p type at a new path named @p name; empty, with the reason
    // warned, when the conversion fails.
    std::string convertFolder(const QString& hf, const QString& name, DType type)
    {
        convert::ConvertOptions options;
        options.modelFolder = hf.toStdString();
        options.output = path(name).toStdString();
        options.type = type;
        const auto report = convert::convertHfModel(options);
        if (!report.ok()) {
            qWarning("%s", report.message().c_str());
            return {};
        }
        return options.output;
    }

    // The same tensors; those named in @p otherTypes only by name and shape, with that type.
    static void compareTensors(const std::string& expectedPath, const std::string& actualPath,
                               const std::map<std::string, DType>& otherTypes = {})
    {
        auto expected = gguf::GgufFile::open(expectedPath);
        auto actual = gguf::GgufFile::open(actualPath);
        QVERIFY(expected.ok() && actual.ok());
        QCOMPARE((*actual)->tensors().size(), (*expected)->tensors().size());
        for (const gguf::TensorInfo& e : (*expected)->tensors()) {
            const gguf::TensorInfo* a = (*actual)->findTensor(e.name);
            QVERIFY2(a, e.name.c_str());
            if (const auto other = otherTypes.find(e.name); other != otherTypes.end()) {
                QVERIFY2(a->type == other->second && a->shape == e.shape, e.name.c_str());
                continue;
            }
            QVERIFY2(a->type == e.type && a->shape == e.shape, e.name.c_str());
            QVERIFY2(a->byteSize == e.byteSize && std::memcmp(a->data, e.data, e.byteSize) == 0, e.name.c_str());
        }
    }

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void convertedEqualsDirect_data()
    {
        QTest::addColumn<int>("flavour");
        QTest::addColumn<bool>("pytorch");
        QTest::newRow("falcon-multi-query") << int(Flavour::FalconMultiQuery) << false;
        QTest::newRow("falcon-new-decoder") << int(Flavour::FalconNewDecoder) << true;
        QTest::newRow("rw-for-causal-lm") << int(Flavour::RefinedWeb) << true;
        QTest::newRow("opt-safetensors") << int(Flavour::Opt) << false;
        QTest::newRow("opt-pytorch") << int(Flavour::Opt) << true;
    }

    // F32: the same tensors, vocabulary and logits as the file written directly.
    void convertedEqualsDirect()
    {
        QFETCH(int, flavour);
        QFETCH(bool, pytorch);
        const auto [direct, hf] = fixture(Flavour(flavour), pytorch);
        QVERIFY(!direct.empty());
        convert::ConvertOptions options;
        options.modelFolder = hf.toStdString();
        options.output = path(QStringLiteral("converted.gguf")).toStdString();
        options.type = DType::F32;
        auto report = convert::convertHfModel(options);
        QVERIFY2(report.ok(), report.message().c_str());
        QVERIFY(!report->sparse);
        compareTensors(direct, options.output);

        auto a = gguf::GgufFile::open(direct);
        auto b = gguf::GgufFile::open(options.output);
        QVERIFY(a.ok() && b.ok());
        QCOMPARE((*b)->getString("general.architecture"), (*a)->getString("general.architecture"));
        for (const char* key : {"tokenizer.ggml.tokens", "tokenizer.ggml.merges"}) {
            const gguf::ArrayValue* x = (*a)->getArray(key);
            const gguf::ArrayValue* y = (*b)->getArray(key);
            QVERIFY(x && y);
            QCOMPARE(y->size(), x->size());
            for (std::size_t i = 0; i < x->size(); ++i)
                QVERIFY2(x->strings[i] == y->strings[i], key);
        }
        QCOMPARE((*b)->getString("tokenizer.ggml.pre"), (*a)->getString("tokenizer.ggml.pre"));

        // The same text gives the same ids through both files' tokenizers.
        auto ma = Model::load(direct);
        auto mb = Model::load(options.output);
        QVERIFY(ma.ok() && mb.ok());
        for (const char* text : {"Hello world", " 12345 tokens, punctuation!", "a b  c"})
            QVERIFY((*ma)->tokenizer().encode(text, false, false) == (*mb)->tokenizer().encode(text, false, false));

        const std::vector<float> want = logitsOf(direct, kTokens);
        const std::vector<float> got = logitsOf(options.output, kTokens);
        QVERIFY(!want.empty());
        QVERIFY(want == got);
    }

    void gemmaConvertedEqualsDirect_data()
    {
        QTest::addColumn<int>("flavour");
        QTest::newRow("gemma2") << int(GemmaFlavour::Gemma2);
        QTest::newRow("gemma3") << int(GemmaFlavour::Gemma3);
        QTest::newRow("gemma3-multimodal") << int(GemmaFlavour::Gemma3Multimodal);
        QTest::newRow("gemma3-multimodal-resaved") << int(GemmaFlavour::Gemma3MultimodalResaved);
    }

    // A synthetic Gemma file written directly (F32) and as a Hugging Face folder: the converted
    // file holds the same tensors (norms with Gemma's + 1), says what the loaders cannot infer
    // (soft-capping, the window, the local RoPE base), and gives the same logits.
    void gemmaConvertedEqualsDirect()
    {
        QFETCH(int, flavour);
        const GemmaFlavour f = GemmaFlavour(flavour);
        const synth::SynthOptions o = gemmaOptions(f);
        const std::string direct = path(QStringLiteral("gemma-direct.gguf")).toStdString();
        QVERIFY(synth::writeSyntheticModel(o, direct).ok());
        auto file = gguf::GgufFile::open(direct);
        QVERIFY(file.ok());
        Tensors tensors = gemmaHfTensors(**file, gemmaModelPrefix(f));
        if (f == GemmaFlavour::Gemma3Multimodal || f == GemmaFlavour::Gemma3MultimodalResaved)
            tensors["vision_tower.vision_model.embeddings.patch_embedding.weight"] = FloatTensor{{4, 4}, std::vector<float>(16, 0.5f)};
        const QString hf = writeHfFolder(QStringLiteral("gemma-hf"), gemmaConfigJson(f, o.shape), tensors);
        QVERIFY(!hf.isEmpty());

        const std::string output = convertFolder(hf, QStringLiteral("gemma-converted.gguf"), DType::F32);
        QVERIFY(!output.empty());
        compareTensors(direct, output);

        auto converted = gguf::GgufFile::open(output);
        QVERIFY(converted.ok());
        const std::string arch = o.architecture;
        QCOMPARE((*converted)->getString("general.architecture"), std::optional<std::string>(arch));
        QCOMPARE((*converted)->getString("hearth.ffn_activation"), std::optional<std::string>("geglu"));
        QCOMPARE((*converted)->getInt(arch + ".attention.sliding_window"), std::optional<std::int64_t>(o.shape.slidingWindow));
        if (f == GemmaFlavour::Gemma2) {
            QCOMPARE((*converted)->getFloat(arch + ".attn_logit_softcapping"), std::optional<double>(o.shape.attnSoftCap));
            QCOMPARE((*converted)->getFloat(arch + ".final_logit_softcapping"), std::optional<double>(o.shape.finalSoftCap));
        } else {
            QVERIFY(!(*converted)->find(arch + ".attn_logit_softcapping"));
            QCOMPARE((*converted)->getFloat(arch + ".rope.freq_base_swa"), std::optional<double>(10000.0));
        }
        const std::vector<float> want = logitsOf(direct, kTokens);
        QVERIFY(!want.empty());
        QVERIFY(want == logitsOf(output, kTokens));
    }

    void mixturesConvertedEqualsDirect_data()
    {
        QTest::addColumn<int>("flavour");
        QTest::newRow("mixtral") << int(MoeFlavour::Mixtral);
        QTest::newRow("qwen2moe") << int(MoeFlavour::Qwen2Moe);
        QTest::newRow("qwen3moe") << int(MoeFlavour::Qwen3Moe);
    }

    // A synthetic mixture written directly (F32) and as a Hugging Face folder, one tensor per
    // expert: the converted file stacks the experts as llama.cpp's files do (Mixtral as a llama
    // file with its Q and K rows permuted), keeps the router in F32 even when quantized, and
    // gives the same logits.
    void mixturesConvertedEqualsDirect()
    {
        QFETCH(int, flavour);
        const MoeFlavour f = MoeFlavour(flavour);
        const synth::SynthOptions o = moeOptions(f);
        const std::string direct = path(QStringLiteral("moe-direct.gguf")).toStdString();
        QVERIFY(synth::writeSyntheticModel(o, direct).ok());
        auto file = gguf::GgufFile::open(direct);
        QVERIFY(file.ok());
        const bool tied = !(*file)->findTensor("output.weight");
        const QString hf = writeHfFolder(QStringLiteral("moe-hf"), moeConfigJson(f, o.shape, tied),
                                         moeHfTensors(**file, f, o.shape));
        QVERIFY(!hf.isEmpty());

        const std::string output = convertFolder(hf, QStringLiteral("moe-converted.gguf"), DType::F32);
        QVERIFY(!output.empty());
        compareTensors(direct, output);
        auto converted = gguf::GgufFile::open(output);
        QVERIFY(converted.ok());
        const std::string arch = o.architecture;
        QCOMPARE((*converted)->getString("general.architecture"), std::optional<std::string>(arch));
        QCOMPARE((*converted)->getInt(arch + ".expert_count"), std::optional<std::int64_t>(o.shape.expertCount));
        QCOMPARE((*converted)->getInt(arch + ".expert_used_count"), std::optional<std::int64_t>(o.shape.expertUsedCount));
        const std::vector<float> want = logitsOf(direct, kTokens);
        QVERIFY(!want.empty());
        QVERIFY(want == logitsOf(output, kTokens));

        // Quantized: the generator's Q8_0 file, the router in F32 as llama-quantize leaves it.
        synth::SynthOptions q8 = o;
        q8.type = DType::Q8_0;
        const std::string directQ8 = path(QStringLiteral("moe-direct-q8.gguf")).toStdString();
        QVERIFY(synth::writeSyntheticModel(q8, directQ8).ok());
        const std::string outputQ8 = convertFolder(hf, QStringLiteral("moe-q8.gguf"), DType::Q8_0);
        QVERIFY(!outputQ8.empty());
        compareTensors(directQ8, outputQ8);
        auto quantized = gguf::GgufFile::open(outputQ8);
        QVERIFY(quantized.ok());
        QCOMPARE(DType((*quantized)->findTensor("blk.0.ffn_gate_inp.weight")->type), DType::F32);
        QCOMPARE(DType((*quantized)->findTensor("blk.1.ffn_down_exps.weight")->type), DType::Q8_0);
    }

    // What GGUF files cannot carry is refused, not converted into a different model.
    void gemmaSettingsWithoutAGgufKeyAreRefused_data()
    {
        QTest::addColumn<QString>("key");
        QTest::addColumn<QJsonValue>("value");
        QTest::newRow("query scale") << QStringLiteral("query_pre_attn_scalar") << QJsonValue(7);
        QTest::newRow("layer pattern") << QStringLiteral("sliding_window_pattern") << QJsonValue(4);
        QTest::newRow("activation") << QStringLiteral("hidden_activation") << QJsonValue("silu");
        QTest::newRow("rope scaling") << QStringLiteral("rope_scaling") << QJsonValue(QJsonObject{{"rope_type", "yarn"}, {"factor", 4}});
    }

    void gemmaSettingsWithoutAGgufKeyAreRefused()
    {
        QFETCH(QString, key);
        QFETCH(QJsonValue, value);
        const synth::SynthOptions o = gemmaOptions(GemmaFlavour::Gemma3);
        QJsonObject config = QJsonDocument::fromJson(gemmaConfigJson(GemmaFlavour::Gemma3, o.shape)).object();
        auto good = convert::HfConfig::parse(QJsonDocument(config).toJson().toStdString());
        QVERIFY2(good.ok(), good.message().c_str());
        config[key] = value;
        auto bad = convert::HfConfig::parse(QJsonDocument(config).toJson().toStdString());
        QVERIFY(!bad.ok());
        QCOMPARE(int(bad.status().code()), int(ErrorCode::Unsupported));
    }

    void quantizedEqualsDirect_data()
    {
        QTest::addColumn<int>("flavour");
        QTest::addColumn<int>("type");
        for (DType t : {DType::F16, DType::Q8_0, DType::Q4_0}) {
            QTest::newRow(("falcon-" + std::string(dtypeName(t))).c_str()) << int(Flavour::FalconNewDecoder) << int(t);
            QTest::newRow(("opt-" + std::string(dtypeName(t))).c_str()) << int(Flavour::Opt) << int(t);
        }
    }

    // Quantized output equals the synthetic generator's file of that type (same floats, the same
    // row quantization).
    void quantizedEqualsDirect()
    {
        QFETCH(int, flavour);
        QFETCH(int, type);
        const auto [direct, hf] = fixture(Flavour(flavour), false);
        QVERIFY(!direct.empty());
        const QString quantized = path(QStringLiteral("direct-q.gguf"));
        QVERIFY(synth::writeSyntheticModel(optionsFor(Flavour(flavour), DType(type)), quantized.toStdString()).ok());
        const std::string output = convertFolder(hf, QStringLiteral("converted-q.gguf"), DType(type));
        QVERIFY(!output.empty());
        compareTensors(quantized.toStdString(), output);
    }

    void quantizeFileEqualsDirect_data() { quantizedEqualsDirect_data(); }

    // hearth-quantize on a falcon/opt F32 file gives the generator's file of that type.
    void quantizeFileEqualsDirect()
    {
        QFETCH(int, flavour);
        QFETCH(int, type);
        const QString f32 = path(QStringLiteral("f32.gguf"));
        const QString direct = path(QStringLiteral("direct.gguf"));
        QVERIFY(synth::writeSyntheticModel(optionsFor(Flavour(flavour), DType::F32), f32.toStdString()).ok());
        QVERIFY(synth::writeSyntheticModel(optionsFor(Flavour(flavour), DType(type)), direct.toStdString()).ok());
        convert::QuantizeOptions q;
        q.input = f32.toStdString();
        q.output = path(QStringLiteral("quantized.gguf")).toStdString();
        q.preset = *presetFromName(dtypeName(DType(type)));
        auto report = convert::quantizeModelFile(q);
        QVERIFY2(report.ok(), report.message().c_str());
        // As llama-quantize does: Q4_0 files keep their output matrix (OPT's tied embedding) in
        // Q8_0 (Falcon, and rows too short for Q6_K), and a learned position embedding stays.
        std::map<std::string, DType> otherTypes;
        if (DType(type) == DType::Q4_0) {
            otherTypes["output.weight"] = DType::Q8_0;
            if (Flavour(flavour) == Flavour::Opt)
                otherTypes["token_embd.weight"] = DType::Q8_0;
        }
        otherTypes["position_embd.weight"] = DType::F32;
        compareTensors(direct.toStdString(), q.output, otherTypes);
    }

    // Sparse files of both layouts quantize too (the fused up|down rows are one row each) and
    // stay sparse.
    void quantizeSparseFiles()
    {
        for (const char* arch : {"falcon", "opt"}) {
            for (auto layout : {synth::SparseLayout::PowerInfer, synth::SparseLayout::Hearth}) {
                synth::SynthOptions o = optionsFor(std::string(arch) == "opt" ? Flavour::Opt : Flavour::FalconMultiQuery,
                                                   DType::F32);
                synth::SparseSynthOptions s;
                s.layout = layout;
                s.predictorHidden = 32;
                const QString f32 = path(QStringLiteral("sparse-f32.gguf"));
                QVERIFY(synth::writeSparseSyntheticModel(o, s, f32.toStdString()).ok());
                convert::QuantizeOptions q;
                q.input = f32.toStdString();
                q.output = path(QStringLiteral("sparse-q4.gguf")).toStdString();
                q.preset = QuantizationPreset::Q4_0;
                auto report = convert::quantizeModelFile(q);
                QVERIFY2(report.ok(), report.message().c_str());
                auto model = Model::load(q.output);
                QVERIFY2(model.ok(), model.message().c_str());
                QVERIFY((*model)->info().sparse);
                auto file = gguf::GgufFile::open(q.output);
                QVERIFY(file.ok());
                const char* ffn = layout == synth::SparseLayout::Hearth ? "blk.0.ffn_neurons.weight" : "blk.0.ffn_down_t.weight";
                QVERIFY((*file)->findTensor(ffn) && (*file)->findTensor(ffn)->type == DType::Q4_0);
                QVERIFY(!logitsOf(q.output, kTokens).empty());
            }
        }
    }

    void predictorsGiveSparseFile_data()
    {
        QTest::addColumn<int>("flavour");
        QTest::newRow("falcon") << int(Flavour::FalconMultiQuery);
        QTest::newRow("opt") << int(Flavour::Opt);
    }

    // PowerInfer predictors (model_<n>.pt): a PWRI file with neuron-major down projections and
    // the predictors as given; its dense FFN mode gives the direct file's logits.
    void predictorsGiveSparseFile()
    {
        QFETCH(int, flavour);
        const auto [direct, hf] = fixture(Flavour(flavour), false);
        QVERIFY(!direct.empty());
        const auto o = optionsFor(Flavour(flavour), DType::F32);
        const QString predictors = path(QStringLiteral("predictors"));
        QDir().mkpath(predictors);
        std::mt19937 rng(5);
        std::normal_distribution<float> normal(0.0f, 0.3f);
        std::vector<FloatTensor> fc1, fc2;
        for (int l = 0; l < o.shape.layerCount; ++l) {
            FloatTensor a{{32, o.shape.embeddingSize}, {}};
            FloatTensor b{{o.shape.feedForwardSize, 32}, {}};
            for (std::int64_t i = 0; i < 32 * o.shape.embeddingSize; ++i)
                a.values.push_back(normal(rng));
            for (std::int64_t i = 0; i < 32 * std::int64_t(o.shape.feedForwardSize); ++i)
                b.values.push_back(normal(rng));
            QVERIFY(writeFixtureFile(predictors + QStringLiteral("/model_%1.pt").arg(l),
                              torchStateDict({{"fc1.weight", a}, {"fc2.weight", b}})));
            fc1.push_back(a);
            fc2.push_back(b);
        }
        convert::ConvertOptions options;
        options.modelFolder = hf.toStdString();
        options.predictorFolder = predictors.toStdString();
        options.output = path(QStringLiteral("sparse.gguf")).toStdString();
        options.type = DType::F32;
        auto report = convert::convertHfModel(options);
        QVERIFY2(report.ok(), report.message().c_str());
        QVERIFY(report->sparse);

        auto file = gguf::GgufFile::open(options.output);
        auto plain = gguf::GgufFile::open(direct);
        QVERIFY(file.ok() && plain.ok());
        QVERIFY((*file)->magic() == gguf::Magic::PowerInfer);
        for (int l = 0; l < o.shape.layerCount; ++l) {
            const std::string p = "blk." + std::to_string(l) + ".";
            QVERIFY(!(*file)->findTensor(p + "ffn_down.weight"));
            const RefMatrix downT = readTensor(**file, p + "ffn_down_t.weight");
            const RefMatrix down = readTensor(**plain, p + "ffn_down.weight");
            QCOMPARE(downT.rows, down.cols);
            for (std::int64_t i = 0; i < downT.rows; ++i)
                for (std::int64_t c = 0; c < downT.cols; ++c)
                    QCOMPARE(downT.row(i)[c], down.row(c)[i]);
            const RefMatrix a = readTensor(**file, p + "fc1.weight");
            const RefMatrix b = readTensor(**file, p + "fc2.weight");
            QCOMPARE(a.rows, std::int64_t(32));
            QCOMPARE(b.rows, std::int64_t(o.shape.feedForwardSize));
            QCOMPARE(float(a.w[5]), fc1[std::size_t(l)].values[5]);
            QCOMPARE(float(b.w[7]), fc2[std::size_t(l)].values[7]);
        }
        auto model = Model::load(options.output);
        QVERIFY2(model.ok(), model.message().c_str());
        QVERIFY((*model)->info().sparse);

        const std::vector<float> want = logitsOf(direct, kTokens);
        const std::vector<float> dense = logitsOf(options.output, kTokens, true);
        const std::vector<float> sparse = logitsOf(options.output, kTokens);
        QCOMPARE(dense.size(), want.size());
        QCOMPARE(sparse.size(), want.size());
        double worst = 0, scale = 0;
        for (std::size_t i = 0; i < want.size(); ++i) {
            worst = std::max(worst, double(std::fabs(dense[i] - want[i])));
            scale = std::max(scale, double(std::fabs(want[i])));
        }
        QVERIFY2(worst < 1e-4 * scale, qPrintable(QString::number(worst)));
    }

    // hearth-convert on the command line: an OPT folder with predictors, quantized.
    void commandLineTool()
    {
        const QString tool = QStringLiteral(HEARTH_BIN_DIR) + "/hearth-convert";
        if (!QFileInfo::exists(tool))
            QSKIP("hearth-convert is not built");
        const auto [direct, hf] = fixture(Flavour::Opt, false);
        QVERIFY(!direct.empty());
        const auto o = optionsFor(Flavour::Opt, DType::F32);
        const QString predictors = path(QStringLiteral("cli-predictors"));
        QDir().mkpath(predictors);
        for (int l = 0; l < o.shape.layerCount; ++l) {
            FloatTensor a{{32, o.shape.embeddingSize}, std::vector<float>(std::size_t(32 * o.shape.embeddingSize), 0.01f)};
            FloatTensor b{{o.shape.feedForwardSize, 32}, std::vector<float>(std::size_t(32 * o.shape.feedForwardSize), 0.01f)};
            QVERIFY(writeFixtureFile(predictors + QStringLiteral("/model_%1.pt").arg(l),
                              torchStateDict({{"fc1.weight", a}, {"fc2.weight", b}})));
        }
        const QString out = path(QStringLiteral("cli.gguf"));
        QProcess p;
        p.start(tool, {"--model", hf, "--predictor", predictors, "--type", "q4_0", "-q", "-o", out});
        QVERIFY(p.waitForFinished(60000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        auto model = Model::load(out.toStdString());
        QVERIFY2(model.ok(), model.message().c_str());
        QCOMPARE((*model)->info().architecture, std::string("opt"));
        QVERIFY((*model)->info().sparse);
    }

    void unsupportedConfigs_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("needle");
        QTest::newRow("falcon-alibi") << QByteArray(R"({"architectures":["FalconForCausalLM"],"model_type":"falcon","hidden_size":64,"num_hidden_layers":2,"num_attention_heads":4,"vocab_size":320,"alibi":true})")
                                      << QStringLiteral("ALiBi");
        QTest::newRow("falcon-bias") << QByteArray(R"({"model_type":"falcon","hidden_size":64,"num_hidden_layers":2,"num_attention_heads":4,"vocab_size":320,"bias":true})")
                                     << QStringLiteral("biases");
        QTest::newRow("falcon-sequential") << QByteArray(R"({"model_type":"falcon","hidden_size":64,"num_hidden_layers":2,"num_attention_heads":4,"vocab_size":320,"parallel_attn":false})")
                                           << QStringLiteral("parallel");
        QTest::newRow("falcon-act") << QByteArray(R"({"model_type":"falcon","hidden_size":64,"num_hidden_layers":2,"num_attention_heads":4,"vocab_size":320,"activation":"swiglu"})")
                                    << QStringLiteral("swiglu");
        QTest::newRow("opt-350m") << QByteArray(R"({"architectures":["OPTForCausalLM"],"model_type":"opt","hidden_size":1024,"ffn_dim":4096,"num_hidden_layers":2,"num_attention_heads":16,"vocab_size":320,"do_layer_norm_before":false,"word_embed_proj_dim":512})")
                                  << QStringLiteral("opt-350m");
        QTest::newRow("opt-gelu") << QByteArray(R"({"model_type":"opt","hidden_size":64,"ffn_dim":256,"num_hidden_layers":2,"num_attention_heads":4,"vocab_size":320,"activation_function":"gelu"})")
                                  << QStringLiteral("gelu");
        QTest::newRow("opt-no-ffn") << QByteArray(R"({"model_type":"opt","hidden_size":64,"num_hidden_layers":2,"num_attention_heads":4,"vocab_size":320})")
                                    << QStringLiteral("ffn_dim");
        QTest::newRow("qwen3moe-unnormalized") << QByteArray(R"({"architectures":["Qwen3MoeForCausalLM"],"model_type":"qwen3_moe","hidden_size":64,"intermediate_size":128,"num_hidden_layers":2,"num_attention_heads":4,"vocab_size":320,"num_experts":8,"num_experts_per_tok":2,"moe_intermediate_size":32,"norm_topk_prob":false})")
                                               << QStringLiteral("norm_topk_prob");
        QTest::newRow("qwen2moe-dense-layers") << QByteArray(R"({"model_type":"qwen2_moe","hidden_size":64,"intermediate_size":128,"num_hidden_layers":2,"num_attention_heads":4,"vocab_size":320,"num_experts":8,"num_experts_per_tok":2,"moe_intermediate_size":32,"shared_expert_intermediate_size":64,"mlp_only_layers":[1]})")
                                               << QStringLiteral("dense layers");
        QTest::newRow("mixtral-no-experts") << QByteArray(R"({"architectures":["MixtralForCausalLM"],"model_type":"mixtral","hidden_size":64,"intermediate_size":128,"num_hidden_layers":2,"num_attention_heads":4,"vocab_size":320,"num_experts_per_tok":2})")
                                            << QStringLiteral("num_local_experts");
        QTest::newRow("falcon-kv") << QByteArray(R"({"model_type":"falcon","hidden_size":64,"num_hidden_layers":2,"num_attention_heads":4,"vocab_size":320,"new_decoder_architecture":true,"num_kv_heads":3})")
                                   << QStringLiteral("KV head");
    }

    void unsupportedConfigs()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, needle);
        auto parsed = convert::HfConfig::parse(json.toStdString());
        QVERIFY(!parsed.ok());
        QVERIFY2(QString::fromStdString(parsed.message()).contains(needle), parsed.message().c_str());
    }

    void configDefaults()
    {
        // Falcon-7B's config: multi-query by default, n_ff = 4 n_embd, GELU.
        auto falcon = convert::HfConfig::parse(
            R"({"architectures":["FalconForCausalLM"],"model_type":"falcon","hidden_size":4544,"num_hidden_layers":32,"num_attention_heads":71,"vocab_size":65024})");
        QVERIFY2(falcon.ok(), falcon.message().c_str());
        QCOMPARE(falcon->ggufArchitecture, std::string("falcon"));
        QCOMPARE(falcon->kvHeadCount, 1);
        QCOMPARE(falcon->intermediateSize, 4 * 4544);
        QCOMPARE(falcon->ffnActivation, std::string("gelu"));
        QCOMPARE(falcon->contextLength, 2048);
        // Falcon-40B: grouped KV heads.
        auto falcon40 = convert::HfConfig::parse(
            R"({"model_type":"falcon","hidden_size":8192,"num_hidden_layers":60,"num_attention_heads":128,"num_kv_heads":8,"new_decoder_architecture":true,"vocab_size":65024})");
        QVERIFY2(falcon40.ok(), falcon40.message().c_str());
        QCOMPARE(falcon40->kvHeadCount, 8);
        QVERIFY(falcon40->falconNewDecoder);
        auto opt = convert::HfConfig::parse(
            R"({"architectures":["OPTForCausalLM"],"model_type":"opt","hidden_size":768,"ffn_dim":3072,"num_hidden_layers":12,"num_attention_heads":12,"vocab_size":50272,"max_position_embeddings":2048})");
        QVERIFY2(opt.ok(), opt.message().c_str());
        QCOMPARE(opt->ggufArchitecture, std::string("opt"));
        QCOMPARE(opt->ffnActivation, std::string("relu"));
        QVERIFY(opt->tieWordEmbeddings);
    }
};

QTEST_GUILESS_MAIN(TestFamilyConvert)
#include "tst_family_convert.moc"
