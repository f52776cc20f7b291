// SPDX-License-Identifier: MIT
// OPT: the engine's forward pass against a plain-loop double-precision reference of the same
// model (pre-LayerNorm blocks, learned positions with OPT's offset of 2, biases everywhere,
// ReLU FFN, tied output), quantized variants, the GPT-2 tokenizer through a model file, the
// position table conventions, loader errors and generation.

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

// OPT, token by token, as Hugging Face's OPTForCausalLM computes it.
class OptReference {
public:
    OptReference(const gguf::GgufFile& file, const synth::SynthOptions& options, int positionOffset = 2)
        : m_shape(options.shape)
        , m_offset(positionOffset)
    {
        m_tokenEmbd = readTensor(file, "token_embd.weight");
        m_posEmbd = readTensor(file, "position_embd.weight");
        m_outNorm = readTensor(file, "output_norm.weight");
        m_outNormBias = readTensor(file, "output_norm.bias");
        for (int l = 0; l < m_shape.layerCount; ++l) {
            const std::string p = "blk." + std::to_string(l) + ".";
            Layer L;
            L.norm = readTensor(file, p + "attn_norm.weight");
            L.normBias = readTensor(file, p + "attn_norm.bias");
            L.q = readTensor(file, p + "attn_q.weight");
            L.qb = readTensor(file, p + "attn_q.bias");
            L.k = readTensor(file, p + "attn_k.weight");
            L.kb = readTensor(file, p + "attn_k.bias");
            L.v = readTensor(file, p + "attn_v.weight");
            L.vb = readTensor(file, p + "attn_v.bias");
            L.o = readTensor(file, p + "attn_output.weight");
            L.ob = readTensor(file, p + "attn_output.bias");
            L.ffnNorm = readTensor(file, p + "ffn_norm.weight");
            L.ffnNormBias = readTensor(file, p + "ffn_norm.bias");
            L.up = readTensor(file, p + "ffn_up.weight");
            L.upb = readTensor(file, p + "ffn_up.bias");
            L.down = readTensor(file, p + "ffn_down.weight");
            L.downb = readTensor(file, p + "ffn_down.bias");
            m_layers.push_back(std::move(L));
        }
        m_k.resize(m_layers.size());
        m_v.resize(m_layers.size());
    }

    std::vector<double> step(Token token)
    {
        const int pos = int(m_k[0].size());
        const std::size_t d = std::size_t(m_shape.embeddingSize);
        const std::size_t hd = std::size_t(m_shape.headDim());
        const double eps = m_shape.rmsNormEpsilon;
        auto affine = [](const RefMatrix& w, const RefMatrix& b, const std::vector<double>& x) {
            std::vector<double> y = matVec(w, x);
            for (std::size_t i = 0; i < y.size(); ++i)
                y[i] += b.w[i];
            return y;
        };
        std::vector<double> x(d);
        for (std::size_t i = 0; i < d; ++i)
            x[i] = m_tokenEmbd.row(token)[i] + m_posEmbd.row(pos + m_offset)[i];
        for (std::size_t l = 0; l < m_layers.size(); ++l) {
            const Layer& L = m_layers[l];
            const std::vector<double> h = layerNormRef(x, L.norm, L.normBias, eps);
            const std::vector<double> q = affine(L.q, L.qb, h);
            m_k[l].push_back(affine(L.k, L.kb, h));
            m_v[l].push_back(affine(L.v, L.vb, h));
            std::vector<double> attn;
            for (int head = 0; head < m_shape.headCount; ++head) {
                const auto out = attendRef(q.data() + std::size_t(head) * hd, m_k[l], m_v[l], std::size_t(head) * hd, hd);
                attn.insert(attn.end(), out.begin(), out.end());
            }
            const std::vector<double> a = affine(L.o, L.ob, attn);
            for (std::size_t i = 0; i < d; ++i)
                x[i] += a[i];
            std::vector<double> u = affine(L.up, L.upb, layerNormRef(x, L.ffnNorm, L.ffnNormBias, eps));
            for (double& v : u)
                v = std::max(v, 0.0);
            const std::vector<double> f = affine(L.down, L.downb, u);
            for (std::size_t i = 0; i < d; ++i)
                x[i] += f[i];
        }
        return matVec(m_tokenEmbd, layerNormRef(x, m_outNorm, m_outNormBias, eps));
    }

private:
    struct Layer {
        RefMatrix norm, normBias, q, qb, k, kb, v, vb, o, ob, ffnNorm, ffnNormBias, up, upb, down, downb;
    };
    synth::ModelShape m_shape;
    int m_offset;
    RefMatrix m_tokenEmbd, m_posEmbd, m_outNorm, m_outNormBias;
    std::vector<Layer> m_layers;
    std::vector<std::vector<std::vector<double>>> m_k, m_v;
};

const std::vector<Token> kPrompt{2, 300, 45, 100, 270, 5, 318};
const std::vector<Token> kDecoded{12, 290, 64, 7};

} // namespace

class TestOpt : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    int m_files = 0;

    QString nextPath() { return m_dir.filePath(QStringLiteral("opt-%1.gguf").arg(m_files++)); }

    static synth::SynthOptions options(DType type)
    {
        synth::SynthOptions o;
        o.architecture = "opt";
        o.shape = *synth::shapeByName("opt", "opt-tiny");
        o.type = type;
        o.ffnActivation = "relu";
        o.seed = 11;
        return o;
    }

    QString write(const synth::SynthOptions& o) { return writeSynthetic(o, nextPath()); }

    // Prefills kPrompt in one batch, decodes kDecoded one by one, and compares every row with
    // the reference; returns the worst difference relative to the spread of the logits.
    double compareWithReference(const QString& path, const OptReference& reference, double& worstAbs)
    {
        OptReference ref = reference;
        worstAbs = INFINITY;
        auto model = Model::load(path.toStdString());
        if (!model) {
            qWarning("%s", model.message().c_str());
            return INFINITY;
        }
        SessionParams params{32, 2, 256};
        params.kvCache = KvCacheType::F32; // compared with a float reference
        auto session = Session::create(*model, params);
        if (!session) {
            qWarning("%s", session.message().c_str());
            return INFINITY;
        }
        const std::size_t vocab = std::size_t((*model)->info().vocabSize);
        return compareSteps(**session, ref, vocab, kPrompt, kDecoded, worstAbs);
    }

    // Rewrites @p plain with @p edit applied (see loaderErrors) and loads it.
    Result<std::shared_ptr<const Model>> loadEdited(const QString& plain, const QString& edit)
    {
        const QStringList parts = edit.split(QLatin1Char(' '));
        const std::string what = parts.value(1).toStdString();
        const QString path = nextPath();
        const Status s = rewriteGguf(
            plain.toStdString(), path.toStdString(),
            [&](const std::string& key) { return !(parts[0] == QLatin1String("key") && key == what); },
            [&](gguf::GgufWriter& w) {
                if (parts[0] == QLatin1String("post-ln"))
                    w.setBool("opt.layer_norm_before", false);
            },
            [&](const gguf::TensorInfo& t, TensorReplacement& r) {
                if (t.name != what)
                    return true;
                if (parts[0] == QLatin1String("drop"))
                    return false;
                r.replace = true;
                r.type = DType::F32;
                r.shape = {t.shape[0], t.shape[0] / 2};
                r.bytes.assign(std::size_t(t.shape[0] * (t.shape[0] / 2)) * sizeof(float), std::byte{0});
                return true;
            });
        if (!s.ok())
            return s;
        return Model::load(path.toStdString());
    }

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    // F32 weights: the engine and the reference agree to float rounding at every position.
    void matchesReference()
    {
        const auto o = options(DType::F32);
        const QString path = write(o);
        QVERIFY(!path.isEmpty());
        auto file = gguf::GgufFile::open(path.toStdString());
        QVERIFY(file.ok());
        double worstAbs = 0;
        compareWithReference(path, OptReference(**file, o), worstAbs);
        qInfo("largest logit difference: %.3g", worstAbs);
        QVERIFY2(worstAbs < 1e-4, qPrintable(QString::number(worstAbs)));
    }

    void quantizedStayClose_data() { hearth::test::addQuantizedRows(); }

    // Quantized files follow the reference computed from their own dequantized weights.
    void quantizedStayClose()
    {
        QFETCH(int, type);
        QFETCH(double, tolerance);
        QFETCH(double, quantizationTolerance);
        const auto o = options(DType(type));
        const QString path = write(o);
        QVERIFY(!path.isEmpty());
        auto file = gguf::GgufFile::open(path.toStdString());
        QVERIFY(file.ok());
        double worstAbs = 0;
        const double rel = compareWithReference(path, OptReference(**file, o), worstAbs);
        qInfo("largest logit difference: %.3g (%.3g of the spread)", worstAbs, rel);
        QVERIFY2(rel < tolerance, qPrintable(QString::number(rel)));

        // And the quantized model stays near the F32 model it was made from (same seed).
        auto f32 = options(DType::F32);
        const QString f32Path = write(f32);
        auto f32File = gguf::GgufFile::open(f32Path.toStdString());
        QVERIFY(f32File.ok());
        const double fromF32 = compareWithReference(path, OptReference(**f32File, f32), worstAbs);
        qInfo("against the F32 model: %.3g (%.3g of the spread)", worstAbs, fromF32);
        QVERIFY2(fromF32 < quantizationTolerance, qPrintable(QString::number(fromF32)));
    }

    // A position table already trimmed to the context (no offset rows) gives the same
    // logits as Hugging Face's layout with its two leading rows.
    void trimmedPositionTable()
    {
        const auto o = options(DType::F32);
        const QString plain = write(o);
        const QString trimmed = nextPath();
        const Status s = rewriteGguf(plain.toStdString(), trimmed.toStdString(), {}, {},
                                     [](const gguf::TensorInfo& t, TensorReplacement& r) {
                                         if (t.name != "position_embd.weight")
                                             return true;
                                         const std::size_t row = std::size_t(t.shape[0]) * sizeof(float);
                                         r.replace = true;
                                         r.type = t.type;
                                         r.shape = {t.shape[0], t.shape[1] - 2};
                                         r.bytes.assign(t.data + 2 * row, t.data + t.byteSize);
                                         return true;
                                     });
        QVERIFY2(s.ok(), s.message().c_str());
        auto file = gguf::GgufFile::open(trimmed.toStdString());
        QVERIFY(file.ok());
        double worstAbs = 0;
        compareWithReference(trimmed, OptReference(**file, o, 0), worstAbs);
        QVERIFY2(worstAbs < 1e-4, qPrintable(QString::number(worstAbs)));

        // An explicit opt.position_offset wins over the table size.
        const QString keyed = nextPath();
        QVERIFY(rewriteGguf(plain.toStdString(), keyed.toStdString(), {},
                            [](gguf::GgufWriter& w) { w.setUInt32("opt.position_offset", 1); }, {})
                    .ok());
        auto keyedFile = gguf::GgufFile::open(keyed.toStdString());
        compareWithReference(keyed, OptReference(**keyedFile, o, 1), worstAbs);
        QVERIFY2(worstAbs < 1e-4, qPrintable(QString::number(worstAbs)));
    }

    // A session cannot outrun the learned positions.
    void contextLimitedByPositions()
    {
        auto model = Model::load(write(options(DType::F16)).toStdString());
        QVERIFY2(model.ok(), model.message().c_str());
        QCOMPARE((*model)->info().trainedContextLength, 256);
        auto tooLong = Session::create(*model, SessionParams{257, 1, 32});
        QVERIFY(!tooLong.ok());
        QCOMPARE(tooLong.code(), ErrorCode::InvalidArgument);
        QVERIFY(Session::create(*model, SessionParams{256, 1, 32}).ok());
        auto defaults = Session::create(*model);
        QVERIFY2(defaults.ok(), defaults.message().c_str());
        QCOMPARE((*defaults)->contextLength(), 256);
    }

    // A PowerInfer (PWRI) file: neuron-major down projections (ffn_down_t) and all-zero
    // predictors, which put every neuron at the threshold: the sparse FFN (with OPT's biases)
    // computes every neuron and matches the dense reference.
    void powerInferLayout()
    {
        const auto o = options(DType::F32);
        const QString plain = write(o);
        QVERIFY(!plain.isEmpty());
        std::vector<std::pair<std::string, std::vector<std::int64_t>>> predictors;
        for (int l = 0; l < o.shape.layerCount; ++l) {
            predictors.push_back({"blk." + std::to_string(l) + ".fc1.weight", {64, 32}});
            predictors.push_back({"blk." + std::to_string(l) + ".fc2.weight", {32, 256}});
        }
        const QString path = nextPath();
        const Status s = rewriteGguf(plain.toStdString(), path.toStdString(), {}, {}, transposeDown,
                                     gguf::Magic::PowerInfer, predictors);
        QVERIFY2(s.ok(), s.message().c_str());
        auto model = Model::load(path.toStdString());
        QVERIFY2(model.ok(), model.message().c_str());
        QVERIFY((*model)->info().sparse);
        auto file = gguf::GgufFile::open(plain.toStdString());
        QVERIFY(file.ok());
        double worstAbs = 0;
        compareWithReference(path, OptReference(**file, o), worstAbs);
        QVERIFY2(worstAbs < 1e-4, qPrintable(QString::number(worstAbs)));
    }

    void modelInfo()
    {
        auto model = Model::load(write(options(DType::Q8_0)).toStdString());
        QVERIFY2(model.ok(), model.message().c_str());
        const ModelInfo& info = (*model)->info();
        QCOMPARE(info.architecture, std::string("opt"));
        QCOMPARE(info.ffnActivation, std::string("relu"));
        QCOMPARE(info.weightType, std::string("Q8_0"));
        QCOMPARE(info.headCount, 4);
        QCOMPARE(info.kvHeadCount, 4);
        // OPT's tokenizer starts every text with </s>.
        const std::vector<Token> ids = (*model)->tokenizer().encode("the", true, false);
        QVERIFY(!ids.empty());
        QCOMPARE(ids.front(), Token(2));
        const std::vector<Token> text = (*model)->tokenizer().encode("the rain in Spain", false, false);
        QVERIFY(text.size() < std::string("the rain in Spain").size());
        QCOMPARE((*model)->tokenizer().decode(text), std::string("the rain in Spain"));
    }

    // The shared GPT-2 vocabulary, moved into an OPT model file, tokenizes llama.cpp's test
    // strings to the expected ids through the model's own tokenizer.
    void tokenizerVectors()
    {
        HEARTH_REQUIRE_SHARED(vocabPath, "vocab/ggml-vocab-gpt-2.gguf");
        auto vocabFile = gguf::GgufFile::open(vocabPath.toStdString());
        QVERIFY2(vocabFile.ok(), vocabFile.message().c_str());
        const gguf::ArrayValue* tokens = (*vocabFile)->getArray("tokenizer.ggml.tokens");
        QVERIFY(tokens);

        auto o = options(DType::Q8_0);
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
        QTest::newRow("missing bias") << QStringLiteral("drop blk.1.attn_v.bias") << int(ErrorCode::InvalidFile)
                                      << QStringLiteral("blk.1.attn_v.bias is missing");
        QTest::newRow("missing positions") << QStringLiteral("drop position_embd.weight") << int(ErrorCode::InvalidFile)
                                           << QStringLiteral("position_embd.weight is missing");
        QTest::newRow("wrong shape") << QStringLiteral("reshape blk.0.attn_q.weight") << int(ErrorCode::InvalidFile)
                                     << QStringLiteral("blk.0.attn_q.weight has shape [64, 32], expected [64, 64]");
        QTest::newRow("position table too short") << QStringLiteral("reshape position_embd.weight")
                                                  << int(ErrorCode::InvalidFile) << QStringLiteral("position_embd.weight has 32 rows");
        QTest::newRow("missing head count") << QStringLiteral("key opt.attention.head_count") << int(ErrorCode::InvalidFile)
                                            << QStringLiteral("opt.attention.head_count is missing");
        QTest::newRow("post-LayerNorm") << QStringLiteral("post-ln") << int(ErrorCode::Unsupported)
                                        << QStringLiteral("post-LayerNorm OPT");
        QTest::newRow("project_in") << QStringLiteral("project-in") << int(ErrorCode::Unsupported)
                                    << QStringLiteral("project_in/project_out");
    }

    // Broken or unsupported files fail with a message naming the problem, never a crash.
    void loaderErrors()
    {
        QFETCH(QString, edit);
        QFETCH(int, code);
        QFETCH(QString, message);
        const QString plain = write(options(DType::F32));
        QVERIFY(!plain.isEmpty());
        if (edit == QLatin1String("project-in")) {
            // The extra tensor needs data: write it through a second rewrite.
            const QString path = nextPath();
            std::vector<std::byte> zeros(32 * 64 * sizeof(float));
            auto file = gguf::GgufFile::open(plain.toStdString());
            gguf::GgufWriter w;
            for (const auto& [key, value] : (*file)->metadata())
                w.setValue(key, value);
            for (const auto& t : (*file)->tensors())
                w.addTensor(t.name, t.type, t.shape);
            w.addTensor("project_in.weight", DType::F32, {32, 64});
            QVERIFY(w.begin(path.toStdString()).ok());
            for (const auto& t : (*file)->tensors())
                QVERIFY(w.writeTensorData(std::span<const std::byte>(t.data, t.byteSize)).ok());
            QVERIFY(w.writeTensorData(zeros).ok());
            QVERIFY(w.finish().ok());
            auto model = Model::load(path.toStdString());
            QVERIFY(!model.ok());
            QCOMPARE(int(model.code()), code);
            QVERIFY2(QString::fromStdString(model.message()).contains(message), model.message().c_str());
            return;
        }
        auto model = loadEdited(plain, edit);
        QVERIFY(!model.ok());
        QCOMPARE(int(model.code()), code);
        QVERIFY2(QString::fromStdString(model.message()).contains(message), model.message().c_str());
    }

    // Session::generate runs end to end; greedy tokens follow the reference's argmax.
    void generate()
    {
        const auto o = options(DType::F32);
        const QString path = write(o);
        auto model = Model::load(path.toStdString());
        QVERIFY2(model.ok(), model.message().c_str());
        auto session = Session::create(*model, SessionParams{64, 2, 3}); // the prompt in three batches
        QVERIFY2(session.ok(), session.message().c_str());
        Sampler sampler(SamplingParams::greedy());
        std::vector<Token> streamed;
        auto stats = (*session)->generate(kPrompt, sampler, 6, [&](Token t, const std::string&) {
            streamed.push_back(t);
            return true;
        });
        QVERIFY2(stats.ok(), stats.message().c_str());
        QCOMPARE(int(streamed.size()), stats->generatedTokens);

        auto file = gguf::GgufFile::open(path.toStdString());
        OptReference ref(**file, o);
        std::vector<double> logits;
        for (Token t : kPrompt)
            logits = ref.step(t);
        for (Token t : streamed) {
            QCOMPARE(Token(std::max_element(logits.begin(), logits.end()) - logits.begin()), t);
            logits = ref.step(t);
        }
    }
};

QTEST_GUILESS_MAIN(TestOpt)
#include "tst_opt.moc"
