// SPDX-License-Identifier: MIT
#pragma once

// Writes tiny Hugging Face llama folders for conversion tests: config.json, a SentencePiece-style
// tokenizer.json with byte fallback, weights as safetensors or PyTorch files (whole or in two
// shards with their index), and PowerInfer's
// predictor (model_<n>.pt) and activation (activation_<n>.pt) folders. Everything comes from a
// seed, so a test can also build the same model another way and compare.

#include "torch_fixture_writer.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace hearth::test {

struct HfShape {
    int embd = 64;
    int ff = 128;
    int layers = 2;
    int heads = 4;
    int kvHeads = 2;
    int vocab = 288; // the tokenizer has fewer tokens: the rest are padding
    int predictorHidden = 32;
    QString activation = QStringLiteral("relu");
    QString architecture = QStringLiteral("LlamaForCausalLM");
    QString modelType = QStringLiteral("llama");
    bool tied = false; // tie_word_embeddings: no lm_head.weight, the output reuses the embeddings
    // ChatML's <|im_start|> and <|im_end|> as special added tokens, a chat template, and the EOS
    // as an AddedToken object in tokenizer_config.json, as newer exports write them.
    bool chatMl = false;
    int explicitHeadDim = 0; // config.json's head_dim (Qwen 3); 0: embd / heads
    [[nodiscard]] int headDim() const { return explicitHeadDim > 0 ? explicitHeadDim : embd / heads; }
    [[nodiscard]] int qDim() const { return headDim() * heads; }
    [[nodiscard]] int kvDim() const { return headDim() * kvHeads; }
    // What the Qwen model types add: Q/K/V biases (qwen2), per-head q/k norms (qwen3).
    [[nodiscard]] bool qkvBias() const { return modelType == QLatin1String("qwen2"); }
    [[nodiscard]] bool qkNorm() const { return modelType == QLatin1String("qwen3"); }
    // Phi-3: fused qkv_proj and gate_up_proj, 3/4 of each head rotated, a sliding window of 4
    // keys, and LongRoPE whose short factors serve up to 64 of the 256 positions.
    [[nodiscard]] bool phi3() const { return modelType == QLatin1String("phi3"); }
    [[nodiscard]] int rotaryDims() const { return phi3() ? headDim() * 3 / 4 : headDim(); }
    [[nodiscard]] int slidingWindow() const { return phi3() ? 4 : 0; }
    [[nodiscard]] std::vector<double> longRopeShort() const
    {
        std::vector<double> f;
        for (int i = 0; i < rotaryDims() / 2; ++i)
            f.push_back(1.0 + 0.1 * i);
        return f;
    }
};

using HfWeights = std::map<std::string, FloatTensor>;

inline QString sentencePieceSpace()
{
    return QString::fromUtf8("\xE2\x96\x81");
}

inline constexpr const char* kHfChatTemplate =
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}";

// The fixtures' vocabulary: specials, 256 byte tokens, a few letters and their merges, and with
// @p chatMl ChatML's two special tokens last.
struct HfTinyTokenizer {
    QStringList tokens;
    QList<QPair<QString, QString>> merges;
    explicit HfTinyTokenizer(bool chatMl = false)
    {
        const QString sp = sentencePieceSpace();
        tokens << QStringLiteral("<unk>") << QStringLiteral("<s>") << QStringLiteral("</s>");
        for (int b = 0; b < 256; ++b)
            tokens << QStringLiteral("<0x%1>").arg(b, 2, 16, QLatin1Char('0')).toUpper().replace(QStringLiteral("0X"), QStringLiteral("0x"));
        tokens << sp;
        for (const char* c : {"h", "e", "l", "o", "w", "r", "d"})
            tokens << QString::fromLatin1(c);
        const auto s = [](const char* text) { return QString::fromLatin1(text); };
        const QList<QPair<QString, QString>> m = {{s("h"), s("e")},        {s("l"), s("l")},   {sp, s("he")},
                                                  {s("ll"), s("o")},       {sp + s("he"), s("llo")}, {sp, s("w")},
                                                  {s("o"), s("r")},        {sp + s("w"), s("or")},   {s("l"), s("d")},
                                                  {sp + s("wor"), s("ld")}};
        for (const auto& pair : m) {
            merges << pair;
            tokens << pair.first + pair.second;
        }
        if (chatMl)
            tokens << QStringLiteral("<|im_start|>") << QStringLiteral("<|im_end|>");
    }
    [[nodiscard]] int id(const QString& text) const { return int(tokens.indexOf(text)); }
};

inline FloatTensor hfRandomTensor(std::mt19937& rng, std::vector<std::int64_t> shape, float scale, float mean = 0.0f)
{
    FloatTensor t;
    t.shape = std::move(shape);
    std::int64_t n = 1;
    for (auto d : t.shape)
        n *= d;
    std::uniform_real_distribution<float> dist(-scale, scale);
    t.values.reserve(std::size_t(n));
    for (std::int64_t i = 0; i < n; ++i)
        t.values.push_back(mean + dist(rng));
    return t;
}

// Weights under Hugging Face names and PyTorch shapes ([out, in]).
inline HfWeights makeHfWeights(const HfShape& s, unsigned seed)
{
    std::mt19937 rng(seed);
    HfWeights w;
    const float in = 1.7f / std::sqrt(float(s.embd));
    w["model.embed_tokens.weight"] = hfRandomTensor(rng, {s.vocab, s.embd}, 1.0f);
    for (int l = 0; l < s.layers; ++l) {
        const std::string p = "model.layers." + std::to_string(l) + ".";
        w[p + "input_layernorm.weight"] = hfRandomTensor(rng, {s.embd}, 0.2f, 1.0f);
        if (s.phi3()) {
            w[p + "self_attn.qkv_proj.weight"] = hfRandomTensor(rng, {s.qDim() + 2 * s.kvDim(), s.embd}, 1.5f * in);
        } else {
            w[p + "self_attn.q_proj.weight"] = hfRandomTensor(rng, {s.qDim(), s.embd}, 1.5f * in);
            w[p + "self_attn.k_proj.weight"] = hfRandomTensor(rng, {s.kvDim(), s.embd}, 1.5f * in);
            w[p + "self_attn.v_proj.weight"] = hfRandomTensor(rng, {s.kvDim(), s.embd}, in);
        }
        w[p + "self_attn.o_proj.weight"] = hfRandomTensor(rng, {s.embd, s.qDim()}, 1.7f / std::sqrt(float(s.qDim())));
        if (s.qkvBias()) {
            w[p + "self_attn.q_proj.bias"] = hfRandomTensor(rng, {s.qDim()}, 0.5f);
            w[p + "self_attn.k_proj.bias"] = hfRandomTensor(rng, {s.kvDim()}, 0.5f);
            w[p + "self_attn.v_proj.bias"] = hfRandomTensor(rng, {s.kvDim()}, 0.5f);
        }
        if (s.qkNorm()) {
            w[p + "self_attn.q_norm.weight"] = hfRandomTensor(rng, {s.headDim()}, 0.2f, 1.0f);
            w[p + "self_attn.k_norm.weight"] = hfRandomTensor(rng, {s.headDim()}, 0.2f, 1.0f);
        }
        w[p + "post_attention_layernorm.weight"] = hfRandomTensor(rng, {s.embd}, 0.2f, 1.0f);
        if (s.phi3()) {
            w[p + "mlp.gate_up_proj.weight"] = hfRandomTensor(rng, {2 * s.ff, s.embd}, in);
        } else {
            w[p + "mlp.gate_proj.weight"] = hfRandomTensor(rng, {s.ff, s.embd}, in);
            w[p + "mlp.up_proj.weight"] = hfRandomTensor(rng, {s.ff, s.embd}, in);
        }
        w[p + "mlp.down_proj.weight"] = hfRandomTensor(rng, {s.embd, s.ff}, 1.7f / std::sqrt(float(s.ff)));
    }
    w["model.norm.weight"] = hfRandomTensor(rng, {s.embd}, 0.2f, 1.0f);
    if (!s.tied)
        w["lm_head.weight"] = hfRandomTensor(rng, {s.vocab, s.embd}, in);
    return w;
}

inline bool writeFixtureFile(const QString& path, const QByteArray& bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

inline bool writeFixtureFile(const QString& path, const Bytes& bytes)
{
    return writeFixtureFile(path, QByteArray(reinterpret_cast<const char*>(bytes.data()), qsizetype(bytes.size())));
}

inline Bytes hfSafetensors(const HfWeights& tensors)
{
    QJsonObject header;
    header[QStringLiteral("__metadata__")] = QJsonObject{{QStringLiteral("format"), QStringLiteral("pt")}};
    std::int64_t offset = 0;
    for (const auto& [name, t] : tensors) {
        QJsonArray shape;
        for (auto dim : t.shape)
            shape.append(qint64(dim));
        const auto size = std::int64_t(t.values.size() * sizeof(float));
        header[QString::fromStdString(name)] = QJsonObject{
            {QStringLiteral("dtype"), QStringLiteral("F32")},
            {QStringLiteral("shape"), shape},
            {QStringLiteral("data_offsets"), QJsonArray{qint64(offset), qint64(offset + size)}}};
        offset += size;
    }
    QByteArray json = QJsonDocument(header).toJson(QJsonDocument::Compact);
    while (json.size() % 8 != 0)
        json.append(' ');
    Bytes out;
    appendLittle<std::uint64_t>(out, std::uint64_t(json.size()));
    appendBytes(out, json.constData(), std::size_t(json.size()));
    for (const auto& entry : tensors)
        appendBytes(out, entry.second.values.data(), entry.second.values.size() * sizeof(float));
    return out;
}

inline QByteArray hfConfigJson(const HfShape& s)
{
    QJsonObject c{{QStringLiteral("architectures"), QJsonArray{s.architecture}},
                        {QStringLiteral("model_type"), s.modelType},
                        {QStringLiteral("hidden_act"), s.activation},
                        {QStringLiteral("hidden_size"), s.embd},
                        {QStringLiteral("intermediate_size"), s.ff},
                        {QStringLiteral("num_hidden_layers"), s.layers},
                        {QStringLiteral("num_attention_heads"), s.heads},
                        {QStringLiteral("num_key_value_heads"), s.kvHeads},
                        {QStringLiteral("vocab_size"), s.vocab},
                        {QStringLiteral("max_position_embeddings"), 256},
                        {QStringLiteral("rms_norm_eps"), 1e-5},
                        {QStringLiteral("rope_theta"), 10000.0},
                        {QStringLiteral("tie_word_embeddings"), s.tied},
                        {QStringLiteral("torch_dtype"), QStringLiteral("float32")}};
    if (s.explicitHeadDim > 0)
        c[QStringLiteral("head_dim")] = s.explicitHeadDim;
    if (s.phi3()) {
        QJsonArray shortFactors;
        QJsonArray longFactors;
        for (double f : s.longRopeShort()) {
            shortFactors.append(f);
            longFactors.append(f * 4.0);
        }
        c[QStringLiteral("partial_rotary_factor")] = 0.75;
        c[QStringLiteral("sliding_window")] = s.slidingWindow();
        c[QStringLiteral("original_max_position_embeddings")] = 64;
        c[QStringLiteral("rope_scaling")] = QJsonObject{{QStringLiteral("type"), QStringLiteral("longrope")},
                                                        {QStringLiteral("short_factor"), shortFactors},
                                                        {QStringLiteral("long_factor"), longFactors}};
    }
    return QJsonDocument(c).toJson();
}

// ChatML's tokens are added tokens only, outside the BPE vocabulary, as in real exports.
inline QByteArray hfTokenizerJson(const HfTinyTokenizer& tok = HfTinyTokenizer())
{
    const QString sp = sentencePieceSpace();
    QJsonObject vocab;
    QJsonArray added;
    for (int i = 0; i < tok.tokens.size(); ++i) {
        const QString& t = tok.tokens[i];
        const bool chatMl = t.startsWith(QLatin1String("<|"));
        if (i < 3 || chatMl)
            added.append(QJsonObject{{QStringLiteral("id"), i},
                                     {QStringLiteral("content"), t},
                                     {QStringLiteral("special"), true},
                                     {QStringLiteral("normalized"), false}});
        if (!chatMl)
            vocab[t] = i;
    }
    QJsonArray merges;
    for (const auto& m : tok.merges)
        merges.append(m.first + QLatin1Char(' ') + m.second);
    const QJsonObject normalizer{
        {QStringLiteral("type"), QStringLiteral("Sequence")},
        {QStringLiteral("normalizers"),
         QJsonArray{QJsonObject{{QStringLiteral("type"), QStringLiteral("Prepend")}, {QStringLiteral("prepend"), sp}},
                    QJsonObject{{QStringLiteral("type"), QStringLiteral("Replace")},
                                {QStringLiteral("pattern"), QJsonObject{{QStringLiteral("String"), QStringLiteral(" ")}}},
                                {QStringLiteral("content"), sp}}}}};
    const QJsonObject model{{QStringLiteral("type"), QStringLiteral("BPE")},
                            {QStringLiteral("unk_token"), QStringLiteral("<unk>")},
                            {QStringLiteral("byte_fallback"), true},
                            {QStringLiteral("fuse_unk"), true},
                            {QStringLiteral("vocab"), vocab},
                            {QStringLiteral("merges"), merges}};
    const QJsonObject root{{QStringLiteral("version"), QStringLiteral("1.0")},
                           {QStringLiteral("added_tokens"), added},
                           {QStringLiteral("normalizer"), normalizer},
                           {QStringLiteral("pre_tokenizer"), QJsonValue()},
                           {QStringLiteral("model"), model}};
    return QJsonDocument(root).toJson(QJsonDocument::Compact);
}

inline QByteArray hfTokenizerConfigJson(bool chatMl = false)
{
    QJsonObject c{{QStringLiteral("bos_token"), QStringLiteral("<s>")},
                  {QStringLiteral("eos_token"), QStringLiteral("</s>")},
                  {QStringLiteral("add_bos_token"), true},
                  {QStringLiteral("add_eos_token"), false}};
    if (chatMl) {
        c[QStringLiteral("eos_token")] =
            QJsonObject{{QStringLiteral("content"), QStringLiteral("</s>")}, {QStringLiteral("special"), true}};
        c[QStringLiteral("chat_template")] = QString::fromLatin1(kHfChatTemplate);
    }
    return QJsonDocument(c).toJson();
}

enum class HfFormat {
    Safetensors,        // model.safetensors
    PytorchBin,         // pytorch_model.bin
    SafetensorsSharded, // two model-0000N-of-00002.safetensors and their index
    PytorchSharded,     // two pytorch_model-0000N-of-00002.bin and their index
};

// Writes a whole model folder into @p dir; false when a file could not be written. Sharded
// folders hold layer 0 and the embeddings in the first shard, the rest in the second.
inline bool writeHfModelFolder(const QString& dir, const HfShape& s, const HfWeights& w,
                               HfFormat format = HfFormat::Safetensors)
{
    QDir().mkpath(dir);
    const bool ok = writeFixtureFile(dir + QStringLiteral("/config.json"), hfConfigJson(s))
        && writeFixtureFile(dir + QStringLiteral("/tokenizer.json"), hfTokenizerJson(HfTinyTokenizer(s.chatMl)))
        && writeFixtureFile(dir + QStringLiteral("/tokenizer_config.json"), hfTokenizerConfigJson(s.chatMl));
    if (format == HfFormat::Safetensors)
        return ok && writeFixtureFile(dir + QStringLiteral("/model.safetensors"), hfSafetensors(w));
    if (format == HfFormat::PytorchBin)
        return ok && writeFixtureFile(dir + QStringLiteral("/pytorch_model.bin"), torchStateDict(w));
    HfWeights shards[2];
    QJsonObject weightMap;
    const bool torch = format == HfFormat::PytorchSharded;
    const QString names[2] = {torch ? QStringLiteral("pytorch_model-00001-of-00002.bin")
                                    : QStringLiteral("model-00001-of-00002.safetensors"),
                              torch ? QStringLiteral("pytorch_model-00002-of-00002.bin")
                                    : QStringLiteral("model-00002-of-00002.safetensors")};
    for (const auto& [name, t] : w) {
        const bool first = name.find("layers.0.") != std::string::npos || name.find("embed") != std::string::npos;
        const int shard = first ? 0 : 1;
        shards[shard][name] = t;
        weightMap[QString::fromStdString(name)] = names[shard];
    }
    bool written = ok;
    for (int i = 0; i < 2; ++i) {
        const Bytes bytes = torch ? torchStateDict(shards[i]) : hfSafetensors(shards[i]);
        written = written && writeFixtureFile(dir + QLatin1Char('/') + names[i], bytes);
    }
    const QJsonObject index{{QStringLiteral("metadata"), QJsonObject{{QStringLiteral("total_size"), 0}}},
                            {QStringLiteral("weight_map"), weightMap}};
    return written
        && writeFixtureFile(dir + (torch ? QStringLiteral("/pytorch_model.bin.index.json")
                                         : QStringLiteral("/model.safetensors.index.json")),
                            QJsonDocument(index).toJson());
}

struct HfPredictors {
    std::vector<FloatTensor> fc1; // [hidden, embd] per layer
    std::vector<FloatTensor> fc2; // [ff, hidden] per layer
};

inline HfPredictors writeHfPredictorFolder(const QString& dir, const HfShape& s, unsigned seed = 7)
{
    QDir().mkpath(dir);
    std::mt19937 rng(seed);
    HfPredictors p;
    for (int l = 0; l < s.layers; ++l) {
        p.fc1.push_back(hfRandomTensor(rng, {s.predictorHidden, s.embd}, 0.3f));
        p.fc2.push_back(hfRandomTensor(rng, {s.ff, s.predictorHidden}, 0.3f));
        writeFixtureFile(dir + QStringLiteral("/model_%1.pt").arg(l),
                         torchStateDict({{"fc1.weight", p.fc1.back()}, {"fc2.weight", p.fc2.back()}}));
    }
    return p;
}

// activation_<n>.pt: one tensor of n_ff counts per layer.
inline std::vector<std::vector<float>> writeHfActivationFolder(const QString& dir, const HfShape& s)
{
    QDir().mkpath(dir);
    std::vector<std::vector<float>> counts;
    for (int l = 0; l < s.layers; ++l) {
        FloatTensor t{{s.ff}, {}};
        for (int i = 0; i < s.ff; ++i)
            t.values.push_back(float((i * 37 + l * 11) % 1000));
        counts.push_back(t.values);
        writeFixtureFile(dir + QStringLiteral("/activation_%1.pt").arg(l), torchTensorFile(t));
    }
    return counts;
}

} // namespace hearth::test
