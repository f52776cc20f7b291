// SPDX-License-Identifier: MIT
// Falcon: the engine's forward pass against a plain-loop double-precision reference of the
// same model (parallel attention/FFN block, fused QKV, multi-query and grouped-query
// attention, NeoX rotary embeddings, LayerNorm with bias, GELU or ReLU FFN), quantized
// variants, the falcon tokenizer through a model file, loader errors and generation.

#include "family_test_support.h"
#include "gguf/gguf_file.h"
#include "gguf/gguf_writer.h"
#include "synth/synthetic_families.h"
#include "synth/synthetic_model.h"
#include "test_support.h"

#include <hearth/model.h>
#include <hearth/sampling.h>
#include <hearth/session.h>

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

using namespace hearth;
using namespace hearth::test;

namespace {

// Falcon, token by token, straight from the definition.
class FalconReference {
public:
    FalconReference(const gguf::GgufFile& file, const synth::SynthOptions& options)
        : m_file(file)
        , m_shape(options.shape)
        , m_gelu(options.ffnActivation == "gelu")
    {
        m_tokenEmbd = readTensor(file, "token_embd.weight");
        m_outNorm = readTensor(file, "output_norm.weight");
        m_outNormBias = readTensor(file, "output_norm.bias");
        m_output = readTensor(file, "output.weight");
        for (int l = 0; l < m_shape.layerCount; ++l) {
            const std::string p = "blk." + std::to_string(l) + ".";
            Layer layer;
            layer.norm = readTensor(file, p + "attn_norm.weight");
            layer.normBias = readTensor(file, p + "attn_norm.bias");
            layer.norm2 = readTensor(file, p + "attn_norm_2.weight");
            layer.norm2Bias = readTensor(file, p + "attn_norm_2.bias");
            layer.qkv = readTensor(file, p + "attn_qkv.weight");
            layer.wo = readTensor(file, p + "attn_output.weight");
            layer.up = readTensor(file, p + "ffn_up.weight");
            layer.down = readTensor(file, p + "ffn_down.weight");
            m_layers.push_back(std::move(layer));
        }
        m_k.resize(m_layers.size());
        m_v.resize(m_layers.size());
    }

    // Logits of @p token at the next position.
    std::vector<double> step(Token token)
    {
        const int pos = int(m_k[0].size());
        const std::size_t d = std::size_t(m_shape.embeddingSize);
        const std::size_t hd = std::size_t(m_shape.headDim());
        const std::size_t kv = std::size_t(m_shape.kvEmbeddingSize());
        const double eps = m_shape.rmsNormEpsilon;
        std::vector<double> x(m_tokenEmbd.row(token), m_tokenEmbd.row(token) + d);
        for (std::size_t l = 0; l < m_layers.size(); ++l) {
            const Layer& L = m_layers[l];
            const std::vector<double> xn = layerNormRef(x, L.norm, L.normBias, eps);
            const std::vector<double> xn2 = L.norm2.rows ? layerNormRef(x, L.norm2, L.norm2Bias, eps) : xn;
            std::vector<double> qkv = matVec(L.qkv, xn);
            // NeoX rotation: element i pairs with i + hd/2 in every head of Q and K.
            auto rotate = [&](double* head) {
                for (std::size_t i = 0; i < hd / 2; ++i) {
                    const double theta = pos * std::pow(double(m_shape.ropeFreqBase), -2.0 * double(i) / double(hd));
                    const double a = head[i];
                    const double b = head[i + hd / 2];
                    head[i] = a * std::cos(theta) - b * std::sin(theta);
                    head[i + hd / 2] = a * std::sin(theta) + b * std::cos(theta);
                }
            };
            for (int h = 0; h < m_shape.headCount; ++h)
                rotate(qkv.data() + std::size_t(h) * hd);
            for (int h = 0; h < m_shape.kvHeadCount; ++h)
                rotate(qkv.data() + d + std::size_t(h) * hd);
            m_k[l].emplace_back(qkv.begin() + std::ptrdiff_t(d), qkv.begin() + std::ptrdiff_t(d + kv));
            m_v[l].emplace_back(qkv.begin() + std::ptrdiff_t(d + kv), qkv.end());
            std::vector<double> attn;
            const int group = m_shape.headCount / m_shape.kvHeadCount;
            for (int h = 0; h < m_shape.headCount; ++h) {
                const auto out = attendRef(qkv.data() + std::size_t(h) * hd, m_k[l], m_v[l], std::size_t(h / group) * hd, hd);
                attn.insert(attn.end(), out.begin(), out.end());
            }
            const std::vector<double> a = matVec(L.wo, attn);
            std::vector<double> u = matVec(L.up, xn2);
            for (double& v : u) {
                if (m_gelu)
                    v = 0.5 * v * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (v + 0.044715 * v * v * v)));
                else
                    v = std::max(v, 0.0);
            }
            const std::vector<double> f = matVec(L.down, u);
            for (std::size_t i = 0; i < d; ++i)
                x[i] += a[i] + f[i];
        }
        return matVec(m_output, layerNormRef(x, m_outNorm, m_outNormBias, eps));
    }

private:
    struct Layer {
        RefMatrix norm, normBias, norm2, norm2Bias, qkv, wo, up, down;
    };
    const gguf::GgufFile& m_file;
    synth::ModelShape m_shape;
    bool m_gelu;
    RefMatrix m_tokenEmbd, m_outNorm, m_outNormBias, m_output;
    std::vector<Layer> m_layers;
    std::vector<std::vector<std::vector<double>>> m_k, m_v; // [layer][pos][kvDim]
};

const std::vector<Token> kPrompt{11, 300, 45, 100, 270, 5, 318};
const std::vector<Token> kDecoded{12, 290, 64, 11};

} // namespace

class TestFalcon : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    int m_files = 0;

    QString nextPath() { return m_dir.filePath(QStringLiteral("falcon-%1.gguf").arg(m_files++)); }

    synth::SynthOptions options(const char* shape, DType type, const char* activation)
    {
        synth::SynthOptions o;
        o.architecture = "falcon";
        o.shape = *synth::shapeByName("falcon", shape);
        o.type = type;
        o.ffnActivation = activation;
        o.seed = 7;
        return o;
    }

    // Writes the model and returns its path (empty on failure, with a warning).
    QString write(const synth::SynthOptions& o) { return writeSynthetic(o, nextPath()); }

    // Prefills kPrompt in one batch (every row's logits), then decodes kDecoded one by one,
    // comparing each row to the reference; returns the worst difference relative to the
    // logits' spread, and the worst absolute one in @p worstAbs.
    double compareWithReference(const QString& path, const synth::SynthOptions& o, double& worstAbs,
                                const QString& referencePath = {})
    {
        worstAbs = INFINITY;
        auto model = Model::load(path.toStdString());
        if (!model) {
            qWarning("%s", model.message().c_str());
            return INFINITY;
        }
        SessionParams params;
        params.kvCache = KvCacheType::F32; // compared with a float reference
        params.contextLength = 32;
        params.threads = 2;
        auto session = Session::create(*model, params);
        if (!session) {
            qWarning("%s", session.message().c_str());
            return INFINITY;
        }
        auto file = gguf::GgufFile::open((referencePath.isEmpty() ? path : referencePath).toStdString());
        FalconReference ref(**file, o);
        const std::size_t vocab = std::size_t(o.shape.vocabSize);

        return compareSteps(**session, ref, vocab, kPrompt, kDecoded, worstAbs);
    }

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void matchesReference_data()
    {
        QTest::addColumn<QString>("shape");
        QTest::addColumn<QString>("activation");
        QTest::newRow("multi-query, gelu") << QStringLiteral("falcon-tiny") << QStringLiteral("gelu");
        QTest::newRow("grouped-query with two norms, relu") << QStringLiteral("falcon-tiny-gqa") << QStringLiteral("relu");
    }

    // F32 weights: the engine and the reference agree to float rounding at every position,
    // for the batched prompt and for each decoded token.
    void matchesReference()
    {
        QFETCH(QString, shape);
        QFETCH(QString, activation);
        const auto o = options(qPrintable(shape), DType::F32, qPrintable(activation));
        const QString path = write(o);
        QVERIFY(!path.isEmpty());
        double worstAbs = 0;
        compareWithReference(path, o, worstAbs);
        qInfo("largest logit difference: %.3g", worstAbs);
        QVERIFY2(worstAbs < 1e-4, qPrintable(QString::number(worstAbs)));
    }

    void quantizedStayClose_data() { hearth::test::addQuantizedRows(); }

    // Quantized files run and follow the reference computed from their own (dequantized)
    // weights; the F32 file is the exact case above.
    void quantizedStayClose()
    {
        QFETCH(int, type);
        QFETCH(double, tolerance);
        QFETCH(double, quantizationTolerance);
        const auto o = options("falcon-tiny-gqa", DType(type), "gelu");
        const QString path = write(o);
        QVERIFY(!path.isEmpty());
        double worstAbs = 0;
        const double rel = compareWithReference(path, o, worstAbs);
        qInfo("largest logit difference: %.3g (%.3g of the spread)", worstAbs, rel);
        QVERIFY2(rel < tolerance, qPrintable(QString::number(rel)));

        const QString f32Path = write(options("falcon-tiny-gqa", DType::F32, "gelu"));
        const double fromF32 = compareWithReference(path, o, worstAbs, f32Path);
        qInfo("against the F32 model: %.3g (%.3g of the spread)", worstAbs, fromF32);
        QVERIFY2(fromF32 < quantizationTolerance, qPrintable(QString::number(fromF32)));
    }

    // A PowerInfer (PWRI) file: neuron-major down projections (ffn_down_t) and predictors; the
    // all-zero predictors put every neuron at the threshold (0), so the sparse FFN computes every
    // neuron and matches the dense reference. Without hearth.ffn_activation such a file is ReLU.
    void powerInferLayout()
    {
        const auto o = options("falcon-tiny-gqa", DType::F32, "relu");
        const QString plain = write(o);
        QVERIFY(!plain.isEmpty());
        std::vector<std::pair<std::string, std::vector<std::int64_t>>> predictors;
        for (int l = 0; l < o.shape.layerCount; ++l) {
            predictors.push_back({"blk." + std::to_string(l) + ".fc1.weight", {64, 32}});
            predictors.push_back({"blk." + std::to_string(l) + ".fc2.weight", {32, 256}});
        }
        const QString path = nextPath();
        const Status s = rewriteGguf(
            plain.toStdString(), path.toStdString(), [](const std::string& key) { return key != "hearth.ffn_activation"; },
            {}, transposeDown, gguf::Magic::PowerInfer, predictors);
        QVERIFY2(s.ok(), s.message().c_str());
        auto model = Model::load(path.toStdString());
        QVERIFY2(model.ok(), model.message().c_str());
        QCOMPARE((*model)->info().ffnActivation, std::string("relu"));
        QVERIFY((*model)->info().sparse);
        double worstAbs = 0;
        compareWithReference(path, o, worstAbs, plain);
        QVERIFY2(worstAbs < 1e-4, qPrintable(QString::number(worstAbs)));
    }

    void modelInfo()
    {
        const QString path = write(options("falcon-tiny", DType::F16, "gelu"));
        auto model = Model::load(path.toStdString());
        QVERIFY2(model.ok(), model.message().c_str());
        const ModelInfo& info = (*model)->info();
        QCOMPARE(info.architecture, std::string("falcon"));
        QCOMPARE(info.ffnActivation, std::string("gelu"));
        QCOMPARE(info.weightType, std::string("F16"));
        QCOMPARE(info.kvHeadCount, 1);
        QCOMPARE(info.feedForwardSize, 256); // absent from the file: 4 * n_embd
        QVERIFY(!info.sparse);
        // The synthetic byte-level BPE vocabulary round-trips text through merged pieces.
        const Tokenizer& tok = (*model)->tokenizer();
        const std::vector<Token> ids = tok.encode("the rain in Spain", true, false);
        QVERIFY(ids.size() < std::string("the rain in Spain").size());
        QCOMPARE(tok.decode(ids), std::string("the rain in Spain"));
        QCOMPARE(tok.eos(), Token(11));
    }

    // The shared falcon vocabulary, moved into a falcon model file, tokenizes llama.cpp's test
    // strings to the expected ids through the model's own tokenizer.
    void tokenizerVectors()
    {
        HEARTH_REQUIRE_SHARED(vocabPath, "vocab/ggml-vocab-falcon.gguf");
        auto vocabFile = gguf::GgufFile::open(vocabPath.toStdString());
        QVERIFY2(vocabFile.ok(), vocabFile.message().c_str());
        const gguf::ArrayValue* tokens = (*vocabFile)->getArray("tokenizer.ggml.tokens");
        QVERIFY(tokens);

        auto o = options("falcon-tiny", DType::Q8_0, "gelu");
        o.shape.vocabSize = int(tokens->size());
        const QString plain = write(o);
        QVERIFY(!plain.isEmpty());
        const QString path = nextPath();
        const Status s = withTokenizerOf(plain, path, **vocabFile);
        QVERIFY2(s.ok(), s.message().c_str());

        auto model = Model::load(path.toStdString());
        QVERIFY2(model.ok(), model.message().c_str());
        const auto vectors = readVocabVectors(vocabPath);
        QVERIFY(vectors.size() > 10);
        QCOMPARE(encodeMismatches((*model)->tokenizer(), vectors), 0);
    }

    void loaderErrors_data()
    {
        QTest::addColumn<QString>("edit");
        QTest::addColumn<int>("code");
        QTest::addColumn<QString>("message");
        QTest::newRow("missing tensor") << QStringLiteral("drop blk.1.ffn_up.weight") << int(ErrorCode::InvalidFile)
                                        << QStringLiteral("blk.1.ffn_up.weight is missing");
        QTest::newRow("missing bias") << QStringLiteral("drop blk.0.attn_norm.bias") << int(ErrorCode::InvalidFile)
                                      << QStringLiteral("blk.0.attn_norm.bias is missing");
        QTest::newRow("fused QKV without the KV rows") << QStringLiteral("reshape blk.0.attn_qkv.weight")
                                                       << int(ErrorCode::InvalidFile)
                                                       << QStringLiteral("blk.0.attn_qkv.weight has shape [64, 64]");
        QTest::newRow("missing block count") << QStringLiteral("key falcon.block_count") << int(ErrorCode::InvalidFile)
                                             << QStringLiteral("falcon.block_count is missing");
        QTest::newRow("gated activation") << QStringLiteral("activation swiglu") << int(ErrorCode::Unsupported)
                                          << QStringLiteral("\"swiglu\" is not supported for falcon");
    }

    // Broken files fail with a message naming what is wrong, never a crash.
    void loaderErrors()
    {
        QFETCH(QString, edit);
        QFETCH(int, code);
        QFETCH(QString, message);
        const QString plain = write(options("falcon-tiny", DType::F32, "gelu"));
        QVERIFY(!plain.isEmpty());
        const QStringList parts = edit.split(QLatin1Char(' '));
        const std::string what = parts[1].toStdString();
        const QString path = nextPath();
        const Status s = rewriteGguf(
            plain.toStdString(), path.toStdString(),
            [&](const std::string& key) {
                return !(parts[0] == QLatin1String("key") && key == what)
                    && !(parts[0] == QLatin1String("activation") && key == "hearth.ffn_activation");
            },
            [&](gguf::GgufWriter& w) {
                if (parts[0] == QLatin1String("activation"))
                    w.setString("hearth.ffn_activation", what);
            },
            [&](const gguf::TensorInfo& t, TensorReplacement& r) {
                if (t.name != what)
                    return true;
                if (parts[0] == QLatin1String("drop"))
                    return false;
                r.replace = true;
                r.type = DType::F32;
                r.shape = {t.shape[0], t.shape[0]};
                r.bytes.assign(std::size_t(t.shape[0] * t.shape[0]) * sizeof(float), std::byte{0});
                return true;
            });
        QVERIFY2(s.ok(), s.message().c_str());
        auto model = Model::load(path.toStdString());
        QVERIFY(!model.ok());
        QCOMPARE(int(model.code()), code);
        QVERIFY2(QString::fromStdString(model.message()).contains(message), model.message().c_str());
    }

    // Session::generate runs the falcon forward pass end to end; greedy tokens follow the
    // reference's argmax.
    void generate()
    {
        const auto o = options("falcon-tiny", DType::F32, "relu");
        const QString path = write(o);
        auto model = Model::load(path.toStdString());
        QVERIFY2(model.ok(), model.message().c_str());
        auto session = Session::create(*model, SessionParams{64, 2, 4}); // the prompt in two batches
        QVERIFY2(session.ok(), session.message().c_str());
        Sampler sampler(SamplingParams::greedy());
        std::vector<Token> streamed;
        auto stats = (*session)->generate(kPrompt, sampler, 6, [&](Token t, const std::string&) {
            streamed.push_back(t);
            return true;
        });
        QVERIFY2(stats.ok(), stats.message().c_str());
        QCOMPARE(int(streamed.size()), stats->generatedTokens);
        QCOMPARE((*session)->position(), int(kPrompt.size()) + stats->generatedTokens);

        auto file = gguf::GgufFile::open(path.toStdString());
        FalconReference ref(**file, o);
        std::vector<double> logits;
        for (Token t : kPrompt)
            logits = ref.step(t);
        for (Token t : streamed) {
            QCOMPARE(Token(std::max_element(logits.begin(), logits.end()) - logits.begin()), t);
            logits = ref.step(t);
        }
    }
};

QTEST_GUILESS_MAIN(TestFalcon)
#include "tst_falcon.moc"
