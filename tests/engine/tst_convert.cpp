// SPDX-License-Identifier: MIT
// hearth-convert: tiny random llama-shaped Hugging Face folders written here (safetensors or
// PyTorch shards, config.json, tokenizer files, PowerInfer predictors and statistics) are
// converted, loaded with the engine, and their logits compared with a plain reference forward
// pass that uses Hugging Face's own (rotate-half) rotary layout.

#include "convert/hf_config.h"
#include "convert/hf_to_gguf.h"
#include "convert/output_file.h"
#include "convert/predictor_import.h"
#include "convert/tokenizer_import.h"
#include "cpu/quant.h"
#include "gguf/gguf_file.h"
#include "hf_folder_writer.h"
#include "model/llama_model.h"
#include "model/rope_scaling.h"

#include <hearth/model.h>
#include <hearth/session.h>

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <limits>
#include <random>

using namespace hearth;
using hearth::test::Bytes;
using hearth::test::FloatTensor;
using hearth::test::HfFormat;
using hearth::test::HfPredictors;
using hearth::test::HfShape;
using hearth::test::HfTinyTokenizer;
using hearth::test::HfWeights;
using hearth::test::hfConfigJson;
using hearth::test::hfRandomTensor;
using hearth::test::hfTokenizerJson;
using hearth::test::makeHfWeights;
using hearth::test::writeFixtureFile;
using hearth::test::writeHfActivationFolder;
using hearth::test::writeHfModelFolder;
using hearth::test::writeHfPredictorFolder;

namespace {

const QString kSpace = hearth::test::sentencePieceSpace(); // SentencePiece's word marker

// The shared tiny llama folder, with ChatML's tokens and chat template.
HfShape fixtureShape()
{
    HfShape s;
    s.chatMl = true;
    return s;
}

// The shared fixture's weights plus the rotary table older exports carry, which the converter
// must leave out.
HfWeights makeWeights(const HfShape& s, unsigned seed)
{
    HfWeights w = makeHfWeights(s, seed);
    std::mt19937 rng(seed);
    w["model.layers.0.self_attn.rotary_emb.inv_freq"] = hfRandomTensor(rng, {s.headDim() / 2}, 1.0f);
    return w;
}

// The weights as a file of @p type holds them: matrices rounded through the type, norms exact.
std::map<std::string, FloatTensor> roundTrip(std::map<std::string, FloatTensor> w, DType type)
{
    for (auto& [name, t] : w) {
        if (t.shape.size() != 2)
            continue;
        const std::int64_t n = t.shape[1];
        std::vector<std::byte> row(rowBytes(type, n));
        for (std::int64_t r = 0; r < t.shape[0]; ++r) {
            float* x = t.values.data() + r * n;
            cpu::quantizeRow(type, x, row.data(), n);
            cpu::dequantizeRow(type, row.data(), x, n);
        }
    }
    return w;
}

// ---- reference forward pass, written from the Hugging Face modelling code's definitions ----

std::vector<double> matvec(const FloatTensor& w, const std::vector<double>& x)
{
    const auto rows = std::size_t(w.shape[0]);
    const std::size_t cols = x.size();
    std::vector<double> y(rows, 0.0);
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t c = 0; c < cols; ++c)
            y[r] += double(w.values[r * cols + c]) * x[c];
    return y;
}

std::vector<double> rmsNorm(const std::vector<double>& x, const FloatTensor& w, double eps)
{
    double ss = 0;
    for (double v : x)
        ss += v * v;
    const double scale = 1.0 / std::sqrt(ss / double(x.size()) + eps);
    std::vector<double> y(x.size());
    for (std::size_t i = 0; i < x.size(); ++i)
        y[i] = x[i] * scale * double(w.values[i]);
    return y;
}

// rotate_half over the first @p rot dimensions of each head: dimension i pairs with i + rot/2.
// @p factors (rot / 2, or empty) divide the frequencies and @p scale multiplies cos and sin, as
// Phi-3's LongRoPE does.
void ropeHf(std::vector<double>& v, int heads, int d, int rot, int pos, double base,
            const std::vector<double>& factors = {}, double scale = 1.0)
{
    for (int h = 0; h < heads; ++h) {
        double* x = v.data() + std::size_t(h) * std::size_t(d);
        for (int i = 0; i < rot / 2; ++i) {
            double theta = pos * std::pow(base, -2.0 * i / rot);
            if (!factors.empty())
                theta /= factors[std::size_t(i)];
            const double a = x[i];
            const double b = x[i + rot / 2];
            x[i] = (a * std::cos(theta) - b * std::sin(theta)) * scale;
            x[i + rot / 2] = (b * std::cos(theta) + a * std::sin(theta)) * scale;
        }
    }
}

std::vector<double> referenceLogits(const HfShape& s, std::map<std::string, FloatTensor>& w, const std::vector<int>& tokens)
{
    const double eps = 1e-5;
    const int d = s.headDim();
    const int kvDim = d * s.kvHeads;
    const FloatTensor& emb = w["model.embed_tokens.weight"];
    std::vector<std::vector<double>> keys(std::size_t(s.layers)), values(std::size_t(s.layers));
    std::vector<double> x;
    for (std::size_t t = 0; t < tokens.size(); ++t) {
        x.assign(std::size_t(s.embd), 0.0);
        for (int i = 0; i < s.embd; ++i)
            x[std::size_t(i)] = emb.values[std::size_t(tokens[t]) * std::size_t(s.embd) + std::size_t(i)];
        for (int l = 0; l < s.layers; ++l) {
            const std::string p = "model.layers." + std::to_string(l) + ".";
            const auto xn = rmsNorm(x, w[p + "input_layernorm.weight"], eps);
            std::vector<double> q, k, v;
            if (s.phi3()) {
                const auto qkv = matvec(w[p + "self_attn.qkv_proj.weight"], xn);
                q.assign(qkv.begin(), qkv.begin() + s.qDim());
                k.assign(qkv.begin() + s.qDim(), qkv.begin() + s.qDim() + kvDim);
                v.assign(qkv.begin() + s.qDim() + kvDim, qkv.end());
            } else {
                q = matvec(w[p + "self_attn.q_proj.weight"], xn);
                k = matvec(w[p + "self_attn.k_proj.weight"], xn);
                v = matvec(w[p + "self_attn.v_proj.weight"], xn);
            }
            if (s.qkvBias()) {
                for (const auto& [y, name] : {std::pair{&q, "q_proj"}, std::pair{&k, "k_proj"}, std::pair{&v, "v_proj"}}) {
                    const FloatTensor& b = w[p + "self_attn." + name + ".bias"];
                    for (std::size_t i = 0; i < y->size(); ++i)
                        (*y)[i] += double(b.values[i]);
                }
            }
            if (s.qkNorm()) {
                for (const auto& [y, name] : {std::pair{&q, "q_norm"}, std::pair{&k, "k_norm"}}) {
                    for (std::size_t h = 0; h < y->size() / std::size_t(d); ++h) {
                        const std::vector<double> head(y->begin() + std::ptrdiff_t(h) * d, y->begin() + std::ptrdiff_t(h + 1) * d);
                        const auto normed = rmsNorm(head, w[p + "self_attn." + name + ".weight"], eps);
                        std::copy(normed.begin(), normed.end(), y->begin() + std::ptrdiff_t(h) * d);
                    }
                }
            }
            // Phi-3: 6 tokens are within the 64 positions of the short factors; 256 / 64 gives
            // LongRoPE's scale sqrt(1 + ln 4 / ln 64).
            const std::vector<double> factors = s.phi3() ? s.longRopeShort() : std::vector<double>{};
            const double scale = s.phi3() ? std::sqrt(1.0 + std::log(4.0) / std::log(64.0)) : 1.0;
            ropeHf(q, s.heads, d, s.rotaryDims(), int(t), 10000.0, factors, scale);
            ropeHf(k, s.kvHeads, d, s.rotaryDims(), int(t), 10000.0, factors, scale);
            auto& K = keys[std::size_t(l)];
            auto& V = values[std::size_t(l)];
            K.insert(K.end(), k.begin(), k.end());
            V.insert(V.end(), v.begin(), v.end());
            std::vector<double> attn(std::size_t(s.qDim()), 0.0);
            for (int h = 0; h < s.heads; ++h) {
                const int kvh = h / (s.heads / s.kvHeads);
                std::vector<double> scores(t + 1, -std::numeric_limits<double>::infinity());
                double top = -1e300;
                // A sliding window sees the keys of positions (t - window, t].
                const std::size_t first = s.slidingWindow() > 0 && t + 1 > std::size_t(s.slidingWindow())
                                              ? t + 1 - std::size_t(s.slidingWindow())
                                              : 0;
                for (std::size_t j = first; j <= t; ++j) {
                    double dot = 0;
                    for (int i = 0; i < d; ++i)
                        dot += q[std::size_t(h * d + i)] * K[j * std::size_t(kvDim) + std::size_t(kvh * d + i)];
                    scores[j] = dot / std::sqrt(double(d));
                    top = std::max(top, scores[j]);
                }
                double sum = 0;
                for (double& sc : scores)
                    sum += (sc = std::exp(sc - top));
                for (std::size_t j = 0; j <= t; ++j)
                    for (int i = 0; i < d; ++i)
                        attn[std::size_t(h * d + i)] += scores[j] / sum * V[j * std::size_t(kvDim) + std::size_t(kvh * d + i)];
            }
            const auto o = matvec(w[p + "self_attn.o_proj.weight"], attn);
            for (std::size_t i = 0; i < x.size(); ++i)
                x[i] += o[i];
            const auto xf = rmsNorm(x, w[p + "post_attention_layernorm.weight"], eps);
            std::vector<double> g, u;
            if (s.phi3()) {
                const auto gateUp = matvec(w[p + "mlp.gate_up_proj.weight"], xf);
                g.assign(gateUp.begin(), gateUp.begin() + s.ff);
                u.assign(gateUp.begin() + s.ff, gateUp.end());
            } else {
                g = matvec(w[p + "mlp.gate_proj.weight"], xf);
                u = matvec(w[p + "mlp.up_proj.weight"], xf);
            }
            for (std::size_t i = 0; i < g.size(); ++i) {
                const double a = s.activation == QLatin1String("relu") ? std::max(0.0, g[i]) : g[i] / (1.0 + std::exp(-g[i]));
                g[i] = a * u[i];
            }
            const auto down = matvec(w[p + "mlp.down_proj.weight"], g);
            for (std::size_t i = 0; i < x.size(); ++i)
                x[i] += down[i];
        }
    }
    const auto xo = rmsNorm(x, w["model.norm.weight"], eps);
    return matvec(s.tied ? w["model.embed_tokens.weight"] : w["lm_head.weight"], xo);
}

// ---- fixture files (the folders themselves: hf_folder_writer.h) ----

void writeBytes(const QString& path, const Bytes& bytes)
{
    QVERIFY(writeFixtureFile(path, bytes));
}

void writeText(const QString& path, const QByteArray& text)
{
    QVERIFY(writeFixtureFile(path, text));
}

std::vector<float> hearthLogits(const std::string& path, const std::vector<int>& tokens)
{
    auto model = Model::load(path);
    if (!model) {
        qWarning("%s", model.message().c_str());
        return {};
    }
    SessionParams params;
    params.kvCache = KvCacheType::F32; // compared with a float reference
    params.contextLength = 64;
    params.threads = 1;
    params.denseFfn = true; // every neuron of a sparse file: the reference has no predictor
    auto session = Session::create(*model, params);
    if (!session)
        return {};
    std::vector<Token> ids(tokens.begin(), tokens.end());
    if (!(*session)->prefill(ids).ok())
        return {};
    const auto logits = (*session)->logits();
    return {logits.begin(), logits.end()};
}

// Root-mean-square of (a - b) over the RMS of b.
double relativeRms(const std::vector<float>& a, const std::vector<double>& b)
{
    double num = 0;
    double den = 0;
    for (std::size_t i = 0; i < b.size(); ++i) {
        num += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
        den += b[i] * b[i];
    }
    return std::sqrt(num / den);
}

// ---- protobuf writer for tokenizer.model fixtures ----

void varint(QByteArray& out, std::uint64_t v)
{
    do {
        const auto byte = std::uint8_t(v & 0x7f);
        v >>= 7;
        out.append(char(v ? byte | 0x80 : byte));
    } while (v);
}

void lengthField(QByteArray& out, int field, const QByteArray& payload)
{
    varint(out, std::uint64_t(field) << 3 | 2);
    varint(out, std::uint64_t(payload.size()));
    out.append(payload);
}

QByteArray sentencePieceModel(const HfTinyTokenizer& tok, int bos, int eos)
{
    QByteArray model;
    for (int i = 0; i < tok.tokens.size(); ++i) {
        QByteArray piece;
        lengthField(piece, 1, tok.tokens[i].toUtf8());
        varint(piece, 2 << 3 | 5);
        const float score = -float(i);
        piece.append(reinterpret_cast<const char*>(&score), 4);
        const int type = i == 0 ? 2 : i < 3 ? 3 : i < 259 ? 6 : 1;
        varint(piece, 3 << 3 | 0);
        varint(piece, std::uint64_t(type));
        lengthField(model, 1, piece);
    }
    QByteArray trainer;
    varint(trainer, 3 << 3 | 0); // model_type = BPE
    varint(trainer, 2);
    varint(trainer, 41 << 3 | 0);
    varint(trainer, std::uint64_t(bos));
    varint(trainer, 42 << 3 | 0);
    varint(trainer, std::uint64_t(eos));
    varint(trainer, 43 << 3 | 0);
    varint(trainer, std::uint64_t(std::int64_t(-1))); // pad_id = -1, sign-extended
    lengthField(model, 2, trainer);
    QByteArray normalizer;
    varint(normalizer, 3 << 3 | 0); // add_dummy_prefix = false
    varint(normalizer, 0);
    lengthField(model, 3, normalizer);
    return model;
}

bool exists(const std::string& path)
{
    return QFileInfo::exists(QString::fromStdString(path));
}

} // namespace

class TestConvert : public QObject {
    Q_OBJECT

private:
    const std::vector<int> m_prompt{1, 277, 270, 263, 268, 266};

    // Converts a fresh folder and compares the logits with the reference; returns the relative RMS error.
    double convertAndCompare(const HfShape& s, HfFormat format, DType type, convert::ConvertReport* report = nullptr,
                             bool roundTripReference = false)
    {
        QTemporaryDir dir;
        auto w = makeWeights(s, 1234);
        if (!writeHfModelFolder(dir.filePath("hf"), s, w, format))
            return 1e9;
        convert::ConvertOptions options;
        options.modelFolder = dir.filePath("hf").toStdString();
        options.output = dir.filePath("out.gguf").toStdString();
        options.type = type;
        auto result = convert::convertHfModel(options);
        if (!result) {
            qWarning("%s", result.message().c_str());
            return 1e9;
        }
        if (report)
            *report = *result;
        if (roundTripReference)
            w = roundTrip(std::move(w), type);
        const auto expected = referenceLogits(s, w, m_prompt);
        const auto actual = hearthLogits(options.output, m_prompt);
        if (actual.size() != std::size_t(s.vocab))
            return 1e9;
        return relativeRms(actual, expected);
    }

private Q_SLOTS:
    void permutationMovesRotateHalfPairsTogether()
    {
        // One head of 4 rows (pairs (0,2) and (1,3) in HF order) with 1 column: GGUF wants the
        // pairs adjacent: rows 0, 2, 1, 3.
        const std::vector<float> hf{10, 11, 12, 13, 20, 21, 22, 23};
        QCOMPARE(convert::permuteForRope(hf, 2, 8, 1), (std::vector<float>{10, 12, 11, 13, 20, 22, 21, 23}));
    }

    void safetensorsF32MatchesReference()
    {
        HfShape s = fixtureShape();
        const double error = convertAndCompare(s, HfFormat::Safetensors, DType::F32);
        qInfo("relative RMS error of F32 logits: %.2e", error);
        QVERIFY2(error < 1e-4, qPrintable(QString::number(error)));
    }

    void shardedSafetensorsSwigluMatchesReference()
    {
        HfShape s = fixtureShape();
        s.activation = QStringLiteral("silu");
        s.tied = true;
        QVERIFY(convertAndCompare(s, HfFormat::SafetensorsSharded, DType::F32) < 1e-4);
    }

    void pytorchShardsMatchReference()
    {
        HfShape s = fixtureShape();
        const double error = convertAndCompare(s, HfFormat::PytorchSharded, DType::F32);
        QVERIFY2(error < 1e-4, qPrintable(QString::number(error)));
    }

    void familiesConvert_data()
    {
        QTest::addColumn<QString>("modelType");
        QTest::addColumn<QString>("hfArchitecture");
        QTest::addColumn<int>("headDim");
        QTest::newRow("qwen2") << QStringLiteral("qwen2") << QStringLiteral("Qwen2ForCausalLM") << 0;
        QTest::newRow("qwen3") << QStringLiteral("qwen3") << QStringLiteral("Qwen3ForCausalLM") << 32;
        QTest::newRow("phi3") << QStringLiteral("phi3") << QStringLiteral("Phi3ForCausalLM") << 0;
    }

    void familiesConvert()
    {
        // Qwen 2's biases, Qwen 3's q/k norms and wide heads (4 heads of 32 in 64), Phi-3's fused
        // products, partial rotation, LongRoPE and sliding window, without llama's Q/K
        // permutation: the file computes what the Hugging Face model does.
        QFETCH(QString, modelType);
        QFETCH(QString, hfArchitecture);
        QFETCH(int, headDim);
        HfShape s = fixtureShape();
        s.activation = QStringLiteral("silu");
        s.modelType = modelType;
        s.architecture = hfArchitecture;
        s.explicitHeadDim = headDim;
        s.tied = true;
        convert::ConvertReport report;
        const double error = convertAndCompare(s, HfFormat::Safetensors, DType::F32, &report);
        QVERIFY2(error < 1e-4, qPrintable(QString::number(error)));
        QTemporaryDir dir;
        QVERIFY(writeHfModelFolder(dir.filePath("hf"), s, makeWeights(s, 1234), HfFormat::Safetensors));
        convert::ConvertOptions options;
        options.modelFolder = dir.filePath("hf").toStdString();
        options.output = dir.filePath("out.gguf").toStdString();
        QVERIFY(convert::convertHfModel(options).ok());
        auto model = Model::load(options.output);
        QVERIFY2(model.ok(), model.message().c_str());
        QCOMPARE(QString::fromStdString((*model)->info().architecture), modelType);
    }

    void withoutPermutationTheLogitsDiffer()
    {
        // The comparison above would pass by accident if rotary positions had no effect; skipping
        // the permutation (by permuting twice, which is not the identity) must break it.
        HfShape s = fixtureShape();
        auto w = makeWeights(s, 1234);
        auto w2 = w;
        for (int l = 0; l < s.layers; ++l) {
            for (auto [name, heads] : {std::pair("q_proj", s.heads), std::pair("k_proj", s.kvHeads)}) {
                FloatTensor& t = w2["model.layers." + std::to_string(l) + ".self_attn." + name + ".weight"];
                t.values = convert::permuteForRope(t.values, heads, t.shape[0], t.shape[1]);
            }
        }
        const auto unpermuted = referenceLogits(s, w2, m_prompt);
        const double difference =
            relativeRms(std::vector<float>(unpermuted.begin(), unpermuted.end()), referenceLogits(s, w, m_prompt));
        qInfo("relative RMS difference with the wrong rotary layout: %.2e", difference);
        QVERIFY(difference > 1e-2);
    }

    void quantizedConversionsStayClose()
    {
        HfShape s = fixtureShape();
        const double f16 = convertAndCompare(s, HfFormat::Safetensors, DType::F16);
        const double q8 = convertAndCompare(s, HfFormat::Safetensors, DType::Q8_0);
        const double q4 = convertAndCompare(s, HfFormat::Safetensors, DType::Q4_0);
        // Against a reference that uses the same rounded weights, what remains is the kernels'
        // own rounding (activations quantized for integer dot products): much smaller.
        const double q8Same = convertAndCompare(s, HfFormat::Safetensors, DType::Q8_0, nullptr, true);
        const double q4Same = convertAndCompare(s, HfFormat::Safetensors, DType::Q4_0, nullptr, true);
        qInfo("relative RMS error of logits: f16 %.2e, q8_0 %.2e, q4_0 %.2e; against rounded weights: q8_0 %.2e, "
              "q4_0 %.2e", f16, q8, q4, q8Same, q4Same);
        QVERIFY2(f16 < 5e-3, qPrintable(QString::number(f16)));
        // Bounds about twice the measured errors (2.7e-2 and 0.29 on this random model, whose
        // logits are sensitive: a 4-bit weight is off by ~6% of its row's RMS).
        QVERIFY2(q8 < 6e-2, qPrintable(QString::number(q8)));
        QVERIFY2(q4 < 0.5, qPrintable(QString::number(q4)));
        QVERIFY(q8 < q4);
        QVERIFY2(q8Same < 4e-2, qPrintable(QString::number(q8Same)));
        QVERIFY2(q4Same < 4e-2, qPrintable(QString::number(q4Same)));
    }

    void metadataAndTokenizer()
    {
        QTemporaryDir dir;
        HfShape s = fixtureShape();
        QVERIFY(writeHfModelFolder(dir.filePath("hf"), s, makeWeights(s, 5), HfFormat::Safetensors));
        convert::ConvertOptions options;
        options.modelFolder = dir.filePath("hf").toStdString();
        options.output = dir.filePath("out.gguf").toStdString();
        QVERIFY(convert::convertHfModel(options).ok());

        auto file = gguf::GgufFile::open(options.output);
        QVERIFY(file);
        QCOMPARE((*file)->magic(), gguf::Magic::Gguf);
        QCOMPARE((*file)->getString("hearth.ffn_activation").value_or(""), std::string("reglu"));
        QCOMPARE((*file)->getString("tokenizer.chat_template").value_or(""), std::string(hearth::test::kHfChatTemplate));
        QCOMPARE((*file)->getInt("llama.attention.head_count_kv").value_or(0), 2);
        QCOMPARE((*file)->findTensor("attn_q.weight"), nullptr);
        QCOMPARE((*file)->findTensor("blk.1.attn_q.weight")->type, DType::F16);
        QCOMPARE((*file)->findTensor("blk.1.attn_norm.weight")->type, DType::F32);
        QVERIFY((*file)->findTensor("blk.0.ffn_down.weight"));

        auto model = Model::load(options.output);
        QVERIFY2(model, model.message().c_str());
        const Tokenizer& tok = (*model)->tokenizer();
        QCOMPARE(tok.vocabSize(), s.vocab); // padded to the embedding rows
        const HfTinyTokenizer tiny(true);
        QCOMPARE(tok.encode("hello world", true, false),
                 (std::vector<Token>{1, tiny.id(kSpace + "hello"), tiny.id(kSpace + "world")}));
        QCOMPARE(tok.encode("<|im_end|>", false, true), std::vector<Token>{tiny.id("<|im_end|>")});
        QCOMPARE(tok.eos(), 2);
        QVERIFY(tok.isControl(tiny.id("<|im_start|>")));
        QVERIFY(tok.isEndOfGeneration(tiny.id("<|im_end|>")));
        // Byte fallback: a character outside the vocabulary becomes its UTF-8 bytes.
        QCOMPARE(tok.decode(tok.encode("z", false, false)), std::string(" z"));
    }

    void sentencePieceTokenizerModel()
    {
        const HfTinyTokenizer tiny(true);
        const QByteArray bytes = sentencePieceModel(tiny, 1, 2);
        auto vocab = convert::parseSentencePieceModel(std::as_bytes(std::span(bytes.constData(), std::size_t(bytes.size()))));
        QVERIFY2(vocab, vocab.message().c_str());
        QCOMPARE(vocab->tokens.size(), std::size_t(tiny.tokens.size()));
        QCOMPARE(vocab->tokens[260], tiny.tokens[260].toStdString());
        QCOMPARE(vocab->scores[270], -270.0f);
        QCOMPARE(vocab->types[0], 2);
        QCOMPARE(vocab->types[5], 6);
        QCOMPARE(vocab->bos, 1);
        QCOMPARE(vocab->eos, 2);
        QCOMPARE(vocab->pad, -1);
        QVERIFY(!vocab->addSpacePrefix);

        // A whole folder with tokenizer.model converts and loads.
        QTemporaryDir dir;
        HfShape s = fixtureShape();
        QVERIFY(writeHfModelFolder(dir.filePath("hf"), s, makeWeights(s, 5), HfFormat::Safetensors));
        QFile::remove(dir.filePath("hf/tokenizer.json"));
        writeText(dir.filePath("hf/tokenizer.model"), bytes);
        convert::ConvertOptions options;
        options.modelFolder = dir.filePath("hf").toStdString();
        options.output = dir.filePath("spm.gguf").toStdString();
        auto result = convert::convertHfModel(options);
        QVERIFY2(result, result.message().c_str());
        auto model = Model::load(options.output);
        QVERIFY(model);
        QCOMPARE((*model)->tokenizer().bos(), 1);
    }

    void truncatedSentencePieceModelIsRejected()
    {
        const QByteArray bytes = sentencePieceModel(HfTinyTokenizer(true), 1, 2);
        for (qsizetype cut : {qsizetype(1), qsizetype(7), bytes.size() / 2, bytes.size() - 1}) {
            auto vocab = convert::parseSentencePieceModel(std::as_bytes(std::span(bytes.constData(), std::size_t(cut))));
            QVERIFY(!vocab || !vocab->tokens.empty()); // either an error or a consistent prefix
            if (!vocab)
                QVERIFY(!vocab.message().empty());
        }
        const QByteArray hostileLength("\x0a\xff\xff\xff\xff\x0f", 6);
        QVERIFY(!convert::parseSentencePieceModel(std::as_bytes(std::span(hostileLength.constData(), 6))));
    }

    void corruptedTokenizerFilesNeverCrash()
    {
        // Random byte flips and truncations: each parse returns a vocabulary or an error.
        const HfTinyTokenizer tiny(true);
        const QByteArray model = sentencePieceModel(tiny, 1, 2);
        const QByteArray json = hfTokenizerJson(tiny);
        std::mt19937 rng(11);
        int rejected = 0;
        for (int round = 0; round < 300; ++round) {
            QByteArray m = model;
            QByteArray j = json;
            for (int flips = 0; flips < 1 + round % 4; ++flips) {
                m[qsizetype(rng() % std::uint32_t(m.size()))] = char(rng());
                j[qsizetype(rng() % std::uint32_t(j.size()))] = char(rng());
            }
            m.truncate(qsizetype(rng() % std::uint32_t(m.size() + 1)));
            auto fromModel = convert::parseSentencePieceModel(std::as_bytes(std::span(m.constData(), std::size_t(m.size()))));
            auto fromJson = convert::parseTokenizerJson(j.toStdString());
            rejected += !fromModel + !fromJson;
            if (fromModel)
                QCOMPARE(fromModel->tokens.size(), fromModel->types.size());
        }
        QVERIFY(rejected > 0);
    }

    void tokenIdsBeyondTheListAreRefusedFirst()
    {
        // 47 bytes that name token id 4,194,303: refused before arrays for four million tokens
        // are allocated, since a vocabulary of one entry has no such id.
        const std::string tiny = R"({"model":{"type":"BPE","vocab":{"a": 4194303}}})";
        QCOMPARE(tiny.size(), std::size_t(47));
        auto parsed = convert::parseTokenizerJson(tiny);
        QVERIFY(!parsed);
        QVERIFY2(QString::fromStdString(parsed.message()).contains(QStringLiteral("lists 1 tokens")), parsed.message().c_str());
        auto added = convert::parseTokenizerJson(R"({"model":{"vocab":{"a":0}},"added_tokens":[{"id":3000000,"content":"<x>"}]})");
        QVERIFY(!added);
        QVERIFY2(QString::fromStdString(added.message()).contains(QStringLiteral("lists 2 tokens")), added.message().c_str());
        // Ids within the list still place as before.
        auto fine = convert::parseTokenizerJson(R"({"model":{"vocab":{"b":1,"a":0}},"added_tokens":[{"id":2,"content":"<x>","special":true}]})");
        QVERIFY2(fine, fine.message().c_str());
        QCOMPARE(fine->tokens.size(), std::size_t(3));
    }

    // PowerInfer's converters copy the predictor folder's "sparse_threshold" into the file; so
    // does hearth-convert, unless a threshold is given explicitly.
    void predictorConfigGivesTheSparseThreshold()
    {
        QTemporaryDir dir;
        HfShape s = fixtureShape();
        auto w = makeWeights(s, 99);
        QVERIFY(writeHfModelFolder(dir.filePath("hf"), s, w, HfFormat::Safetensors));
        writeHfPredictorFolder(dir.filePath("pred"), s);
        const auto writeConfig = [&](const QByteArray& json) {
            QFile config(dir.filePath("pred/config.json"));
            return config.open(QIODevice::WriteOnly | QIODevice::Truncate) && config.write(json) == json.size();
        };
        convert::ConvertOptions options;
        options.modelFolder = dir.filePath("hf").toStdString();
        options.predictorFolder = dir.filePath("pred").toStdString();
        options.type = DType::F32;
        options.verify = false;
        const auto thresholdOf = [&](const QString& name) -> double {
            options.output = dir.filePath(name).toStdString();
            auto result = convert::convertHfModel(options);
            if (!result) {
                qWarning() << result.message().c_str();
                return -1.0;
            }
            auto file = gguf::GgufFile::open(options.output);
            return file ? (*file)->getFloat("powerinfer.sparse_threshold").value_or(-2.0) : -3.0;
        };
        QCOMPARE(thresholdOf("none.gguf"), 0.0); // no config.json
        QVERIFY(writeConfig(R"({"sparse_threshold": 0.5, "hidden_size": 8})"));
        QCOMPARE(thresholdOf("config.gguf"), 0.5);
        options.sparseThreshold = 0.25f;
        QCOMPARE(thresholdOf("explicit.gguf"), 0.25);
        options.sparseThreshold.reset();
        QVERIFY(writeConfig(R"({"hidden_size": 8})"));
        QCOMPARE(thresholdOf("nokey.gguf"), 0.0);

        // A config.json that cannot be read is named, and no file is left.
        for (const QByteArray& bad : { QByteArray(R"({"sparse_threshold": "high"})"), QByteArray("{not json") }) {
            QVERIFY(writeConfig(bad));
            options.output = dir.filePath("bad.gguf").toStdString();
            auto result = convert::convertHfModel(options);
            QVERIFY(!result);
            QVERIFY2(QString::fromStdString(result.message()).contains(QStringLiteral("predictor config.json")),
                     result.message().c_str());
            QVERIFY(!QFile::exists(dir.filePath("bad.gguf")));
        }
    }

    void predictorFolderGivesPowerInferFile()
    {
        QTemporaryDir dir;
        HfShape s = fixtureShape();
        auto w = makeWeights(s, 99);
        QVERIFY(writeHfModelFolder(dir.filePath("hf"), s, w, HfFormat::Safetensors));
        const HfPredictors predictors = writeHfPredictorFolder(dir.filePath("pred"), s);
        const auto counts = writeHfActivationFolder(dir.filePath("act"), s);
        convert::ConvertOptions options;
        options.modelFolder = dir.filePath("hf").toStdString();
        options.predictorFolder = dir.filePath("pred").toStdString();
        options.activationFolder = dir.filePath("act").toStdString();
        options.output = dir.filePath("sparse.gguf").toStdString();
        options.type = DType::F32;
        options.sparseThreshold = 0.25f;
        auto result = convert::convertHfModel(options);
        QVERIFY2(result, result.message().c_str());
        QVERIFY(result->sparse);
        QCOMPARE(result->statsOutput, dir.filePath("sparse.hearth-stats.gguf").toStdString());

        QFile raw(dir.filePath("sparse.gguf"));
        QVERIFY(raw.open(QIODevice::ReadOnly));
        QCOMPARE(raw.read(4), QByteArray("PWRI"));

        auto file = gguf::GgufFile::open(options.output);
        QVERIFY(file);
        QCOMPARE((*file)->getFloat("powerinfer.sparse_threshold").value_or(-1), 0.25);
        for (int l = 0; l < s.layers; ++l) {
            const std::string p = "blk." + std::to_string(l) + ".";
            const gguf::TensorInfo* fc1 = (*file)->findTensor(p + "fc1.weight");
            const gguf::TensorInfo* fc2 = (*file)->findTensor(p + "fc2.weight");
            QVERIFY(fc1 && fc2);
            QCOMPARE(fc1->shape, (std::vector<std::int64_t>{s.embd, s.predictorHidden}));
            QCOMPARE(fc2->shape, (std::vector<std::int64_t>{s.predictorHidden, s.ff}));
            QCOMPARE(reinterpret_cast<const float*>(fc2->data)[5], predictors.fc2[std::size_t(l)].values[5]);
            QVERIFY(!(*file)->findTensor(p + "ffn_down.weight"));
            const gguf::TensorInfo* downT = (*file)->findTensor(p + "ffn_down_t.weight");
            QVERIFY(downT);
            QCOMPARE(downT->shape, (std::vector<std::int64_t>{s.embd, s.ff}));
            // Row i of ffn_down_t is neuron i: HF down_proj[:, i].
            const FloatTensor& down = w["model.layers." + std::to_string(l) + ".mlp.down_proj.weight"];
            const float* rows = reinterpret_cast<const float*>(downT->data);
            QCOMPARE(rows[3 * s.embd + 7], down.values[std::size_t(7 * s.ff + 3)]);
        }

        auto model = Model::load(options.output);
        QVERIFY2(model, model.message().c_str());
        QVERIFY((*model)->info().sparse);
        QCOMPARE((*model)->info().ffnActivation, std::string("reglu"));
        const double error = relativeRms(hearthLogits(options.output, m_prompt), referenceLogits(s, w, m_prompt));
        QVERIFY2(error < 1e-4, qPrintable(QString::number(error)));

        auto stats = gguf::GgufFile::open(result->statsOutput);
        QVERIFY(stats);
        float largest = 0;
        for (const auto& layer : counts)
            for (float c : layer)
                largest = std::max(largest, c);
        for (int l = 0; l < s.layers; ++l) {
            const gguf::TensorInfo* freq = (*stats)->findTensor("blk." + std::to_string(l) + ".ffn_freq");
            QVERIFY(freq);
            QCOMPARE(freq->type, DType::F32);
            QCOMPARE(freq->shape, std::vector<std::int64_t>{s.ff});
            const float* f = reinterpret_cast<const float*>(freq->data);
            for (int i = 0; i < s.ff; ++i)
                QCOMPARE(f[i], counts[std::size_t(l)][std::size_t(i)] / largest);
        }
    }

    void layerFilesSortByNumber()
    {
        QTemporaryDir dir;
        for (int l : {0, 1, 2, 10, 11, 3, 4, 5, 6, 7, 8, 9})
            writeText(dir.filePath(QStringLiteral("model_%1.pt").arg(l)), "x");
        writeText(dir.filePath("model_final.pt"), "x");
        auto files = convert::layerFiles(dir.path().toStdString(), "model_", ".pt");
        QVERIFY(files);
        QCOMPARE(files->size(), std::size_t(12));
        QVERIFY(QString::fromStdString((*files)[2]).endsWith("model_2.pt"));
        QVERIFY(QString::fromStdString((*files)[10]).endsWith("model_10.pt"));
        QFile::remove(dir.filePath("model_4.pt"));
        auto gap = convert::layerFiles(dir.path().toStdString(), "model_", ".pt");
        QVERIFY(!gap);
        QVERIFY(gap.message().find("model_4.pt is missing") != std::string::npos);
    }

    void hostileInputsAreRejected_data()
    {
        QTest::addColumn<int>("which");
        const char* names[] = {"absurd hidden_size", "config garbage",      "unsupported architecture",
                               "missing shard",      "truncated shard",      "shape mismatch",
                               "tokenizer garbage",  "tokenizer too large",  "hostile predictor",
                               "predictor shape",    "missing lm_head",      "hostile pytorch shard",
                               "tokenizer.model garbage", "negative activation count"};
        for (int i = 0; i < int(std::size(names)); ++i)
            QTest::newRow(names[i]) << i;
    }

    void hostileInputsAreRejected()
    {
        QFETCH(int, which);
        QTemporaryDir dir;
        HfShape s = fixtureShape();
        const QString hf = dir.filePath("hf");
        auto w = makeWeights(s, 3);
        QVERIFY(writeHfModelFolder(hf, s, w, which == 11 ? HfFormat::PytorchSharded : HfFormat::SafetensorsSharded));
        writeHfPredictorFolder(dir.filePath("pred"), s);
        convert::ConvertOptions options;
        options.modelFolder = hf.toStdString();
        options.output = dir.filePath("out.gguf").toStdString();
        auto configWith = [&](const QString& key, const QJsonValue& value) {
            QJsonObject c = QJsonDocument::fromJson(hfConfigJson(s)).object();
            c[key] = value;
            writeText(hf + "/config.json", QJsonDocument(c).toJson());
        };
        switch (which) {
        case 0: configWith("hidden_size", 1099511627776.0); break;
        case 1: writeText(hf + "/config.json", "{\"hidden_size\": 64,"); break;
        case 2: {
            QJsonObject c = QJsonDocument::fromJson(hfConfigJson(s)).object();
            c["architectures"] = QJsonArray{"GPT2LMHeadModel"};
            c["model_type"] = "gpt2";
            writeText(hf + "/config.json", QJsonDocument(c).toJson());
            break;
        }
        case 3: QFile::remove(hf + "/model-00002-of-00002.safetensors"); break;
        case 4: {
            QFile f(hf + "/model-00002-of-00002.safetensors");
            QVERIFY(f.resize(f.size() / 2));
            break;
        }
        case 5: configWith("intermediate_size", 96); break;
        case 6: writeText(hf + "/tokenizer.json", "\x89PNG garbage {\"model\": [1, 2"); break;
        case 7: configWith("vocab_size", 100); break;
        case 8:
            writeText(dir.filePath("pred/model_1.pt"), QByteArray("PK\x03\x04", 4) + QByteArray(200, '\xff'));
            options.predictorFolder = dir.filePath("pred").toStdString();
            break;
        case 9: {
            std::mt19937 rng(1);
            writeBytes(dir.filePath("pred/model_1.pt"),
                       hearth::test::torchStateDict({{"fc1.weight", hfRandomTensor(rng, {32, 48}, 1.0f)},
                                                     {"fc2.weight", hfRandomTensor(rng, {s.ff, 32}, 1.0f)}}));
            options.predictorFolder = dir.filePath("pred").toStdString();
            break;
        }
        case 10: {
            // Drop lm_head from the index: the model is untied, so the output matrix is missing.
            QJsonObject index = QJsonDocument::fromJson([&] {
                                    QFile f(hf + "/model.safetensors.index.json");
                                    f.open(QIODevice::ReadOnly);
                                    return f.readAll();
                                }()).object();
            QJsonObject map = index["weight_map"].toObject();
            map.remove("lm_head.weight");
            index["weight_map"] = map;
            writeText(hf + "/model.safetensors.index.json", QJsonDocument(index).toJson());
            break;
        }
        case 11: writeText(hf + "/pytorch_model-00002-of-00002.bin", QByteArray("\x80\x02}q\x00.", 6)); break;
        case 12: writeText(hf + "/tokenizer.model", QByteArray("\x0a\x05\x0a\x03", 4)); break;
        case 13: {
            FloatTensor t{{s.ff}, std::vector<float>(std::size_t(s.ff), -3.0f)};
            QDir().mkpath(dir.filePath("act"));
            writeHfActivationFolder(dir.filePath("act"), s);
            writeBytes(dir.filePath("act/activation_1.pt"), hearth::test::torchTensorFile(t));
            options.activationFolder = dir.filePath("act").toStdString();
            break;
        }
        }
        auto result = convert::convertHfModel(options);
        QVERIFY(!result);
        QVERIFY(!result.message().empty());
        qInfo("%s", result.message().c_str());
        QVERIFY(!exists(options.output));
        QVERIFY(!exists(options.output + ".part"));
        QVERIFY(!exists(convert::statsPathFor(options.output)));
    }

    void cancellationLeavesNothing()
    {
        QTemporaryDir dir;
        HfShape s = fixtureShape();
        QVERIFY(writeHfModelFolder(dir.filePath("hf"), s, makeWeights(s, 5), HfFormat::Safetensors));
        convert::ConvertOptions options;
        options.modelFolder = dir.filePath("hf").toStdString();
        options.output = dir.filePath("out.gguf").toStdString();
        int calls = 0;
        options.progress = [&](float) { return ++calls < 5; };
        auto result = convert::convertHfModel(options);
        QCOMPARE(result.code(), ErrorCode::Cancelled);
        QVERIFY(!exists(options.output));
        QVERIFY(!exists(options.output + ".part"));

        // Cancelling while the result is being loaded for verification also leaves nothing.
        options.progress = [](float f) { return f < 0.9f || f >= 1.0f; };
        QCOMPARE(convert::convertHfModel(options).code(), ErrorCode::Cancelled);
        QVERIFY(!exists(options.output));
        QVERIFY(!exists(options.output + ".part"));

        // Progress rises to 1 on a full run.
        float last = 0;
        bool monotonic = true;
        options.progress = [&](float f) {
            monotonic = monotonic && f >= last;
            last = f;
            return true;
        };
        QVERIFY(convert::convertHfModel(options).ok());
        QVERIFY(monotonic);
        QCOMPARE(last, 1.0f);
    }

    void configActivations_data()
    {
        QTest::addColumn<QString>("architecture");
        QTest::addColumn<QString>("modelType");
        QTest::addColumn<QString>("act");
        QTest::addColumn<QString>("ggufArch");
        QTest::addColumn<QString>("ffn");
        QTest::newRow("ReluLLaMA") << "LlamaForCausalLM" << "llama" << "relu" << "llama" << "reglu";
        QTest::newRow("ProSparse fatrelu") << "LlamaForCausalLM" << "llama" << "fatrelu" << "llama" << "reglu";
        QTest::newRow("Llama SiLU") << "LlamaForCausalLM" << "llama" << "silu" << "llama" << "swiglu";
        QTest::newRow("Mistral") << "MistralForCausalLM" << "mistral" << "silu" << "llama" << "swiglu";
        QTest::newRow("Bamboo") << "BambooForCausalLM" << "bamboo" << "relu" << "bamboo" << "drelu";
        QTest::newRow("GELU") << "LlamaForCausalLM" << "llama" << "gelu" << "" << "";
        QTest::newRow("ReluFalcon") << "FalconForCausalLM" << "falcon" << "relu" << "falcon" << "relu";
        QTest::newRow("Falcon GELU") << "FalconForCausalLM" << "falcon" << "gelu" << "falcon" << "gelu";
        QTest::newRow("Falcon SiLU") << "FalconForCausalLM" << "falcon" << "silu" << "" << "";
    }

    void configActivations()
    {
        QFETCH(QString, architecture);
        QFETCH(QString, modelType);
        QFETCH(QString, act);
        QFETCH(QString, ggufArch);
        QFETCH(QString, ffn);
        QJsonObject c = QJsonDocument::fromJson(hfConfigJson(fixtureShape())).object();
        c["architectures"] = QJsonArray{architecture};
        c["model_type"] = modelType;
        c["hidden_act"] = act;
        auto config = convert::HfConfig::parse(QJsonDocument(c).toJson().toStdString());
        if (ggufArch.isEmpty()) {
            QCOMPARE(config.code(), ErrorCode::Unsupported);
            return;
        }
        QVERIFY2(config, config.message().c_str());
        QCOMPARE(QString::fromStdString(config->ggufArchitecture), ggufArch);
        QCOMPARE(QString::fromStdString(config->ffnActivation), ffn);
    }

    void bambooConverts()
    {
        QTemporaryDir dir;
        HfShape s = fixtureShape();
        QVERIFY(writeHfModelFolder(dir.filePath("hf"), s, makeWeights(s, 5), HfFormat::Safetensors));
        QJsonObject c = QJsonDocument::fromJson(hfConfigJson(s)).object();
        c["architectures"] = QJsonArray{"BambooForCausalLM"};
        c["model_type"] = "bamboo";
        writeText(dir.filePath("hf/config.json"), QJsonDocument(c).toJson());
        convert::ConvertOptions options;
        options.modelFolder = dir.filePath("hf").toStdString();
        options.output = dir.filePath("bamboo.gguf").toStdString();
        auto result = convert::convertHfModel(options);
        QVERIFY2(result, result.message().c_str());
        auto model = Model::load(options.output);
        QVERIFY2(model, model.message().c_str());
        QCOMPARE((*model)->info().architecture, std::string("bamboo"));
        QCOMPARE((*model)->info().ffnActivation, std::string("drelu"));
    }

    void llama3RopeScalingBecomesRopeFreqs()
    {
        // Llama 3.1's config.json: the converter writes the divisors as rope_freqs.weight, which
        // the engine then applies; other scaling types stay refused.
        QTemporaryDir dir;
        HfShape s = fixtureShape();
        QVERIFY(writeHfModelFolder(dir.filePath("hf"), s, makeWeights(s, 6), HfFormat::Safetensors));
        QJsonObject c = QJsonDocument::fromJson(hfConfigJson(s)).object();
        c["rope_theta"] = 500000.0;
        c["rope_scaling"] = QJsonObject{{"rope_type", "llama3"}, {"factor", 8.0}, {"low_freq_factor", 1.0},
                                        {"high_freq_factor", 4.0}, {"original_max_position_embeddings", 64}};
        writeText(dir.filePath("hf/config.json"), QJsonDocument(c).toJson());
        convert::ConvertOptions options;
        options.modelFolder = dir.filePath("hf").toStdString();
        options.output = dir.filePath("llama31.gguf").toStdString();
        auto result = convert::convertHfModel(options);
        QVERIFY2(result, result.message().c_str());
        auto model = Model::load(options.output);
        QVERIFY2(model, model.message().c_str());
        const auto* llama = dynamic_cast<const model::LlamaModel*>(model->get());
        QVERIFY(llama && llama->weights().ropeFreqs);
        const int nRot = llama->hyperParams().nRot;
        const std::vector<float> expected = model::llama3RopeFactors(nRot, 500000.0f, {8.0f, 1.0f, 4.0f, 64});
        QCOMPARE(std::vector<float>(llama->weights().ropeFreqs, llama->weights().ropeFreqs + nRot / 2), expected);

        c["rope_scaling"] = QJsonObject{{"rope_type", "yarn"}, {"factor", 4.0}};
        QCOMPARE(convert::HfConfig::parse(QJsonDocument(c).toJson().toStdString()).code(), ErrorCode::Unsupported);
        c["rope_scaling"] = QJsonObject{{"rope_type", "llama3"}, {"factor", 8.0}, {"low_freq_factor", 4.0}, {"high_freq_factor", 1.0}};
        QCOMPARE(convert::HfConfig::parse(QJsonDocument(c).toJson().toStdString()).code(), ErrorCode::InvalidFile);
    }

    void byteLevelTokenizerJson()
    {
        const QByteArray json = R"({"added_tokens": [{"id": 5, "content": "<|endoftext|>", "special": true}],
            "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": false},
            "model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2, "Ġ": 3, "Ġab": 4},
                      "merges": [["a", "b"], "Ġ ab"]}})";
        auto vocab = convert::parseTokenizerJson(json.toStdString());
        QVERIFY2(vocab, vocab.message().c_str());
        QCOMPARE(vocab->model, std::string("gpt2"));
        QCOMPARE(vocab->pre, std::string("gpt-2"));
        QCOMPARE(vocab->tokens.size(), std::size_t(6));
        QCOMPARE(vocab->merges, (std::vector<std::string>{"a b", "\xC4\xA0 ab"}));
        QCOMPARE(vocab->types[5], 3);
        QCOMPARE(vocab->types[0], 1);

        // A hole in the ids, or one id for two texts, is refused.
        QVERIFY(!convert::parseTokenizerJson(R"({"model": {"type": "BPE", "vocab": {"a": 0, "b": 2}}})"));
        QVERIFY(!convert::parseTokenizerJson(
            R"({"added_tokens": [{"id": 0, "content": "x"}], "model": {"type": "BPE", "vocab": {"a": 0}}})"));
        QCOMPARE(convert::parseTokenizerJson(R"({"model": {"type": "WordPiece", "vocab": {"a": 0}}})").code(),
                 ErrorCode::Unsupported);
    }

    void byteLevelSplitsAreNamed_data()
    {
        QTest::addColumn<QString>("pattern");
        QTest::addColumn<QString>("pre");
        // The Split regexes of Llama 3's and Qwen 2's tokenizer.json (Qwen 3 uses Qwen 2's).
        QTest::newRow("llama3") << QStringLiteral(R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)")
                                << QStringLiteral("llama-bpe");
        QTest::newRow("qwen2") << QStringLiteral(R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)")
                               << QStringLiteral("qwen2");
        QTest::newRow("another") << QStringLiteral(R"(\p{N}+|\s+)") << QStringLiteral("default");
    }

    void byteLevelSplitsAreNamed()
    {
        QFETCH(QString, pattern);
        QFETCH(QString, pre);
        const QJsonObject split{{QStringLiteral("type"), QStringLiteral("Split")},
                                {QStringLiteral("pattern"), QJsonObject{{QStringLiteral("Regex"), pattern}}},
                                {QStringLiteral("behavior"), QStringLiteral("Isolated")}};
        const QJsonObject root{
            {QStringLiteral("pre_tokenizer"),
             QJsonObject{{QStringLiteral("type"), QStringLiteral("Sequence")},
                         {QStringLiteral("pretokenizers"),
                          QJsonArray{split, QJsonObject{{QStringLiteral("type"), QStringLiteral("ByteLevel")}}}}}},
            {QStringLiteral("model"), QJsonObject{{QStringLiteral("type"), QStringLiteral("BPE")},
                                                  {QStringLiteral("vocab"), QJsonObject{{QStringLiteral("a"), 0}}},
                                                  {QStringLiteral("merges"), QJsonArray{}}}}};
        auto vocab = convert::parseTokenizerJson(QJsonDocument(root).toJson().toStdString());
        QVERIFY2(vocab, vocab.message().c_str());
        QCOMPARE(QString::fromStdString(vocab->pre), pre);
    }

    void diskSpaceIsCheckedFirst()
    {
        QTemporaryDir dir;
        const std::string out = dir.filePath("big.gguf").toStdString();
        QVERIFY(convert::checkFreeSpace(out, 1024).ok());
        const Status full = convert::checkFreeSpace(out, std::uint64_t(1) << 62);
        QCOMPARE(full.code(), ErrorCode::IoError);
        QVERIFY(full.message().find("not enough disk space") != std::string::npos);
    }

    void failureKeepsAnEarlierOutput()
    {
        QTemporaryDir dir;
        HfShape s = fixtureShape();
        QVERIFY(writeHfModelFolder(dir.filePath("hf"), s, makeWeights(s, 5), HfFormat::Safetensors));
        writeText(dir.filePath("out.gguf"), "an older file");
        QFile::remove(dir.filePath("hf/model.safetensors"));
        convert::ConvertOptions options;
        options.modelFolder = dir.filePath("hf").toStdString();
        options.output = dir.filePath("out.gguf").toStdString();
        QVERIFY(!convert::convertHfModel(options));
        QFile f(dir.filePath("out.gguf"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), QByteArray("an older file"));
    }

    void commandLineTool()
    {
        const QString tool = QStringLiteral(HEARTH_BIN_DIR) + "/hearth-convert";
        if (!QFileInfo::exists(tool))
            QSKIP("hearth-convert is not built");
        QTemporaryDir dir;
        HfShape s = fixtureShape();
        QVERIFY(writeHfModelFolder(dir.filePath("hf"), s, makeWeights(s, 5), HfFormat::Safetensors));
        writeHfPredictorFolder(dir.filePath("pred"), s);
        QProcess p;
        p.start(tool, {"--model", dir.filePath("hf"), "--predictor", dir.filePath("pred"), "--type", "q4_0", "-q", "-o",
                       dir.filePath("cli.gguf")});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 0);
        auto model = Model::load(dir.filePath("cli.gguf").toStdString());
        QVERIFY(model);
        QCOMPARE((*model)->info().weightType, std::string("Q4_0"));

        p.start(tool, {"--model", dir.filePath("nowhere"), "-o", dir.filePath("bad.gguf")});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 1);
        QVERIFY(p.readAllStandardError().contains("hearth-convert:"));
    }
};

QTEST_GUILESS_MAIN(TestConvert)
#include "tst_convert.moc"
