// SPDX-License-Identifier: MIT
// Model loading and the llama forward pass, on tiny models written by the test itself: loader
// validation and messages, progress and cancellation, and every FFN activation against a
// plain-loop reference forward pass.

#include "cpu/quant.h"
#include "gguf/gguf_writer.h"

#include <hearth/model.h>
#include <hearth/session.h>

#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <vector>

using namespace hearth;

namespace {

// Row-major float matrix: rows outputs of cols inputs, as ggml stores matmul weights.
struct Matrix {
    int rows = 0;
    int cols = 0;
    std::vector<float> data;
    [[nodiscard]] const float* row(int r) const { return data.data() + std::size_t(r) * std::size_t(cols); }
};

struct TinySpec {
    std::string architecture = "llama";
    std::string activationKey; // hearth.ffn_activation; empty: not written
    gguf::Magic magic = gguf::Magic::Gguf;
    DType matrixType = DType::F32;
    int nEmbd = 64;
    int nLayer = 1;
    int nHead = 4;
    int nHeadKv = 2;
    int nFf = 96;
    int nVocab = 300;
    int nCtx = 64;
    bool tiedOutput = false;
    bool powerInferLayout = false; // ffn_down_t (neuron-major down) and predictor tensors
    std::uint32_t seed = 7;
    // Broken variants for loader tests.
    std::string omitTensor;
    std::string wrongShapeTensor;
    std::string unsupportedTypeTensor;
};

// Everything the reference needs: the float weights as written (before any quantization).
struct TinyWeights {
    Matrix tokenEmbd, output;
    std::vector<float> outputNorm;
    struct Layer {
        std::vector<float> attnNorm, ffnNorm;
        Matrix wq, wk, wv, wo, gate, up, down;
        std::vector<float> downT; // down transposed: row i = neuron i's outputs
    };
    std::vector<Layer> layers;
};

Matrix randomMatrix(std::mt19937& rng, int rows, int cols, float scale)
{
    std::uniform_real_distribution<float> dist(-scale, scale);
    Matrix m{rows, cols, std::vector<float>(std::size_t(rows) * std::size_t(cols))};
    for (float& v : m.data)
        v = dist(rng);
    return m;
}

std::vector<float> randomNorm(std::mt19937& rng, int n)
{
    std::uniform_real_distribution<float> dist(0.8f, 1.2f);
    std::vector<float> v(static_cast<std::size_t>(n));
    for (float& x : v)
        x = dist(rng);
    return v;
}

// A SentencePiece-style vocabulary: <unk>, <s>, </s>, 256 byte tokens, then word pieces.
void writeVocabulary(gguf::GgufWriter& w, int size)
{
    std::vector<std::string> tokens{"<unk>", "<s>", "</s>"};
    std::vector<float> scores{0, 0, 0};
    std::vector<std::int32_t> types{2, 3, 3};
    for (int b = 0; b < 256; ++b) {
        char name[8];
        std::snprintf(name, sizeof name, "<0x%02X>", b);
        tokens.emplace_back(name);
        scores.push_back(0);
        types.push_back(6);
    }
    const std::string space = "\xe2\x96\x81";
    for (int i = 0; int(tokens.size()) < size; ++i) {
        tokens.push_back(i == 0 ? space : space + std::string(1, char('a' + (i - 1) % 26)) + std::to_string((i - 1) / 26));
        scores.push_back(-float(i));
        types.push_back(1);
    }
    w.setString("tokenizer.ggml.model", "llama");
    w.setStringArray("tokenizer.ggml.tokens", tokens);
    w.setFloat32Array("tokenizer.ggml.scores", scores);
    w.setInt32Array("tokenizer.ggml.token_type", types);
    w.setUInt32("tokenizer.ggml.unknown_token_id", 0);
    w.setUInt32("tokenizer.ggml.bos_token_id", 1);
    w.setUInt32("tokenizer.ggml.eos_token_id", 2);
}

// Writes a random llama-family model; returns the float weights for the reference.
Status writeTinyModel(const QString& path, const TinySpec& s, TinyWeights* out = nullptr)
{
    std::mt19937 rng(s.seed);
    TinyWeights tw;
    const int headDim = s.nEmbd / s.nHead;
    const int kvDim = headDim * s.nHeadKv;
    tw.tokenEmbd = randomMatrix(rng, s.nVocab, s.nEmbd, 1.0f);
    tw.outputNorm = randomNorm(rng, s.nEmbd);
    tw.output = s.tiedOutput ? tw.tokenEmbd : randomMatrix(rng, s.nVocab, s.nEmbd, 0.3f);
    for (int l = 0; l < s.nLayer; ++l) {
        TinyWeights::Layer L;
        L.attnNorm = randomNorm(rng, s.nEmbd);
        L.wq = randomMatrix(rng, s.nEmbd, s.nEmbd, 0.3f);
        L.wk = randomMatrix(rng, kvDim, s.nEmbd, 0.3f);
        L.wv = randomMatrix(rng, kvDim, s.nEmbd, 0.3f);
        L.wo = randomMatrix(rng, s.nEmbd, s.nEmbd, 0.2f);
        L.ffnNorm = randomNorm(rng, s.nEmbd);
        L.gate = randomMatrix(rng, s.nFf, s.nEmbd, 0.3f);
        L.up = randomMatrix(rng, s.nFf, s.nEmbd, 0.3f);
        L.down = randomMatrix(rng, s.nEmbd, s.nFf, 0.2f);
        L.downT.resize(L.down.data.size());
        for (int r = 0; r < s.nEmbd; ++r)
            for (int c = 0; c < s.nFf; ++c)
                L.downT[std::size_t(c) * std::size_t(s.nEmbd) + std::size_t(r)] = L.down.row(r)[c];
        tw.layers.push_back(std::move(L));
    }

    gguf::GgufWriter w(s.magic);
    const std::string a = s.architecture;
    w.setString("general.architecture", a);
    w.setString("general.name", "tiny test model");
    w.setUInt32(a + ".context_length", std::uint32_t(s.nCtx));
    w.setUInt32(a + ".embedding_length", std::uint32_t(s.nEmbd));
    w.setUInt32(a + ".block_count", std::uint32_t(s.nLayer));
    w.setUInt32(a + ".feed_forward_length", std::uint32_t(s.nFf));
    w.setUInt32(a + ".attention.head_count", std::uint32_t(s.nHead));
    w.setUInt32(a + ".attention.head_count_kv", std::uint32_t(s.nHeadKv));
    w.setUInt32(a + ".rope.dimension_count", std::uint32_t(headDim));
    w.setFloat32(a + ".attention.layer_norm_rms_epsilon", 1e-5f);
    if (!s.activationKey.empty())
        w.setString("hearth.ffn_activation", s.activationKey);
    writeVocabulary(w, s.nVocab);

    struct Planned {
        std::string name;
        DType type;
        std::vector<std::int64_t> shape;
        const float* data;
        std::size_t count; // floats at data
    };
    std::vector<Planned> planned;
    auto plan = [&](const std::string& name, DType type, std::vector<std::int64_t> shape, const float* data) {
        if (name == s.omitTensor)
            return;
        std::size_t count = 1;
        for (auto d : shape)
            count *= std::size_t(d);
        if (name == s.wrongShapeTensor) {
            // One row too many (for token_embd: more rows than the vocabulary has tokens).
            if (shape.size() > 1)
                shape[1] += 1;
            else
                shape[0] += 32;
        }
        if (name == s.unsupportedTypeTensor)
            type = DType::Q8_1; // known by size, never computed
        planned.push_back({name, type, shape, data, count});
    };
    plan("token_embd.weight", s.matrixType, {s.nEmbd, s.nVocab}, tw.tokenEmbd.data.data());
    plan("output_norm.weight", DType::F32, {s.nEmbd}, tw.outputNorm.data());
    if (!s.tiedOutput)
        plan("output.weight", s.matrixType, {s.nEmbd, s.nVocab}, tw.output.data.data());
    for (int l = 0; l < s.nLayer; ++l) {
        const auto& L = tw.layers[std::size_t(l)];
        const std::string p = "blk." + std::to_string(l) + ".";
        plan(p + "attn_norm.weight", DType::F32, {s.nEmbd}, L.attnNorm.data());
        plan(p + "attn_q.weight", s.matrixType, {s.nEmbd, s.nEmbd}, L.wq.data.data());
        plan(p + "attn_k.weight", s.matrixType, {s.nEmbd, kvDim}, L.wk.data.data());
        plan(p + "attn_v.weight", s.matrixType, {s.nEmbd, kvDim}, L.wv.data.data());
        plan(p + "attn_output.weight", s.matrixType, {s.nEmbd, s.nEmbd}, L.wo.data.data());
        plan(p + "ffn_norm.weight", DType::F32, {s.nEmbd}, L.ffnNorm.data());
        plan(p + "ffn_gate.weight", s.matrixType, {s.nEmbd, s.nFf}, L.gate.data.data());
        plan(p + "ffn_up.weight", s.matrixType, {s.nEmbd, s.nFf}, L.up.data.data());
        if (s.powerInferLayout) {
            plan(p + "ffn_down_t.weight", s.matrixType, {s.nEmbd, s.nFf}, L.downT.data());
            plan(p + "fc1.weight", DType::F32, {s.nEmbd, 32}, L.down.data.data());
            plan(p + "fc2.weight", DType::F32, {32, s.nFf}, L.down.data.data());
        } else {
            plan(p + "ffn_down.weight", s.matrixType, {s.nFf, s.nEmbd}, L.down.data.data());
        }
    }
    for (const auto& t : planned)
        w.addTensor(t.name, t.type, t.shape);
    HEARTH_TRY(w.begin(path.toStdString()));
    for (const auto& t : planned) {
        const std::int64_t rowLength = t.shape[0];
        const std::int64_t rows = t.shape.size() > 1 ? t.shape[1] : 1;
        const std::size_t rowSize = rowBytes(t.type, rowLength);
        std::vector<std::byte> bytes(rowSize * std::size_t(rows));
        std::vector<float> row(static_cast<std::size_t>(rowLength));
        for (std::int64_t r = 0; r < rows; ++r) {
            // Resized tensors (wrong shape) repeat their values; only their size matters.
            for (std::int64_t c = 0; c < rowLength; ++c)
                row[std::size_t(c)] = t.data[std::size_t(r * rowLength + c) % t.count];
            if (t.type == DType::Q4_1)
                continue; // zero bytes are a valid Q4_1 block; nothing computes with it anyway
            cpu::quantizeRow(t.type, row.data(), bytes.data() + rowSize * std::size_t(r), rowLength);
        }
        HEARTH_TRY(w.writeTensorData(bytes));
    }
    HEARTH_TRY(w.finish());
    if (out)
        *out = std::move(tw);
    return {};
}

// ---- plain-loop reference forward pass ----

void refMatVec(const Matrix& m, const std::vector<float>& x, std::vector<float>& y)
{
    y.assign(std::size_t(m.rows), 0.0f);
    for (int r = 0; r < m.rows; ++r) {
        double s = 0;
        for (int c = 0; c < m.cols; ++c)
            s += double(m.row(r)[c]) * double(x[std::size_t(c)]);
        y[std::size_t(r)] = float(s);
    }
}

std::vector<float> refRmsNorm(const std::vector<float>& x, const std::vector<float>& w)
{
    double ss = 0;
    for (float v : x)
        ss += double(v) * v;
    const double scale = 1.0 / std::sqrt(ss / double(x.size()) + 1e-5);
    std::vector<float> out(x.size());
    for (std::size_t i = 0; i < x.size(); ++i)
        out[i] = float(x[i] * scale * w[i]);
    return out;
}

void refRope(std::vector<float>& v, int heads, int headDim, int pos)
{
    for (int h = 0; h < heads; ++h) {
        for (int i = 0; i < headDim / 2; ++i) {
            const double theta = pos * std::pow(10000.0, -2.0 * i / headDim);
            float& a = v[std::size_t(h * headDim + 2 * i)];
            float& b = v[std::size_t(h * headDim + 2 * i + 1)];
            const double x0 = a, x1 = b;
            a = float(x0 * std::cos(theta) - x1 * std::sin(theta));
            b = float(x0 * std::sin(theta) + x1 * std::cos(theta));
        }
    }
}

float refActivation(const std::string& act, float g, float u)
{
    const float r = std::max(g, 0.0f);
    if (act == "reglu")
        return r * u;
    if (act == "drelu")
        return r * std::max(u, 0.0f);
    if (act == "relu2")
        return r * r * u;
    return float(g / (1.0 + std::exp(-double(g)))) * u;
}

// Logits of every position for @p tokens, computed the slow and obvious way.
std::vector<std::vector<float>> referenceForward(const TinySpec& s, const TinyWeights& w, const std::string& act,
                                                 const std::vector<Token>& tokens)
{
    const int headDim = s.nEmbd / s.nHead;
    const int group = s.nHead / s.nHeadKv;
    std::vector<std::vector<std::vector<float>>> keys(std::size_t(s.nLayer)), values(std::size_t(s.nLayer));
    std::vector<std::vector<float>> logits;
    for (std::size_t pos = 0; pos < tokens.size(); ++pos) {
        std::vector<float> x(w.tokenEmbd.row(tokens[pos]), w.tokenEmbd.row(tokens[pos]) + s.nEmbd);
        for (int l = 0; l < s.nLayer; ++l) {
            const auto& L = w.layers[std::size_t(l)];
            std::vector<float> xn = refRmsNorm(x, L.attnNorm), q, k, v, o, attn(std::size_t(s.nEmbd), 0.0f);
            refMatVec(L.wq, xn, q);
            refMatVec(L.wk, xn, k);
            refMatVec(L.wv, xn, v);
            refRope(q, s.nHead, headDim, int(pos));
            refRope(k, s.nHeadKv, headDim, int(pos));
            keys[std::size_t(l)].push_back(k);
            values[std::size_t(l)].push_back(v);
            for (int h = 0; h < s.nHead; ++h) {
                const int kv = h / group;
                std::vector<double> sc(pos + 1);
                double mx = -1e300;
                for (std::size_t j = 0; j <= pos; ++j) {
                    double d = 0;
                    for (int i = 0; i < headDim; ++i)
                        d += double(q[std::size_t(h * headDim + i)]) * keys[std::size_t(l)][j][std::size_t(kv * headDim + i)];
                    sc[j] = d / std::sqrt(double(headDim));
                    mx = std::max(mx, sc[j]);
                }
                double sum = 0;
                for (double& e : sc)
                    sum += (e = std::exp(e - mx));
                for (std::size_t j = 0; j <= pos; ++j)
                    for (int i = 0; i < headDim; ++i)
                        attn[std::size_t(h * headDim + i)] +=
                            float(sc[j] / sum * values[std::size_t(l)][j][std::size_t(kv * headDim + i)]);
            }
            refMatVec(L.wo, attn, o);
            for (int i = 0; i < s.nEmbd; ++i)
                x[std::size_t(i)] += o[std::size_t(i)];
            xn = refRmsNorm(x, L.ffnNorm);
            std::vector<float> g, u, d;
            refMatVec(L.gate, xn, g);
            refMatVec(L.up, xn, u);
            for (std::size_t i = 0; i < g.size(); ++i)
                g[i] = refActivation(act, g[i], u[i]);
            refMatVec(L.down, g, d);
            for (int i = 0; i < s.nEmbd; ++i)
                x[std::size_t(i)] += d[std::size_t(i)];
        }
        std::vector<float> out;
        refMatVec(w.output, refRmsNorm(x, w.outputNorm), out);
        logits.push_back(std::move(out));
    }
    return logits;
}

} // namespace

class TestModel : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    int m_counter = 0;

    QString freshPath() { return m_dir.filePath(QStringLiteral("model%1.gguf").arg(++m_counter)); }

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void loadsAndDescribes()
    {
        TinySpec spec;
        spec.nLayer = 2;
        spec.tiedOutput = true;
        const QString path = freshPath();
        QVERIFY(writeTinyModel(path, spec).ok());
        auto model = Model::load(path.toStdString());
        QVERIFY2(model.ok(), model.message().c_str());
        const ModelInfo& info = (*model)->info();
        QCOMPARE(info.architecture, std::string("llama"));
        QCOMPARE(info.name, std::string("tiny test model"));
        QCOMPARE(info.ffnActivation, std::string("swiglu"));
        QCOMPARE(info.weightType, std::string("F32"));
        QCOMPARE(info.layerCount, 2);
        QCOMPARE(info.embeddingSize, 64);
        QCOMPARE(info.headCount, 4);
        QCOMPARE(info.kvHeadCount, 2);
        QCOMPARE(info.feedForwardSize, 96);
        QCOMPARE(info.vocabSize, 300);
        QCOMPARE(info.trainedContextLength, 64);
        QVERIFY(!info.sparse);
        QVERIFY(info.parameterCount > 0);
        QCOMPARE((*model)->tokenizer().vocabSize(), 300);
    }

    void defaultActivation_data()
    {
        QTest::addColumn<QString>("architecture");
        QTest::addColumn<bool>("powerInfer");
        QTest::addColumn<QString>("expected");
        QTest::newRow("llama") << "llama" << false << "swiglu";
        QTest::newRow("llama PWRI") << "llama" << true << "reglu";
        QTest::newRow("bamboo") << "bamboo" << false << "drelu";
    }

    void defaultActivation()
    {
        QFETCH(QString, architecture);
        QFETCH(bool, powerInfer);
        QFETCH(QString, expected);
        TinySpec spec;
        spec.architecture = architecture.toStdString();
        spec.magic = powerInfer ? gguf::Magic::PowerInfer : gguf::Magic::Gguf;
        const QString path = freshPath();
        QVERIFY(writeTinyModel(path, spec).ok());
        auto model = Model::load(path.toStdString());
        QVERIFY2(model.ok(), model.message().c_str());
        QCOMPARE(QString::fromStdString((*model)->info().ffnActivation), expected);
    }

    // One forward pass per activation, every position, against the plain loops above.
    void activationMatchesReference_data()
    {
        QTest::addColumn<QString>("activation");
        QTest::addColumn<QString>("architecture");
        QTest::newRow("swiglu") << "swiglu" << "llama";
        QTest::newRow("reglu") << "reglu" << "llama";
        QTest::newRow("drelu") << "drelu" << "bamboo";
        QTest::newRow("relu2") << "relu2" << "llama";
    }

    void activationMatchesReference()
    {
        QFETCH(QString, activation);
        QFETCH(QString, architecture);
        TinySpec spec;
        spec.architecture = architecture.toStdString();
        spec.activationKey = activation.toStdString();
        // stories260K's awkward sizes: n_ff not a multiple of any SIMD width, 8-wide heads.
        spec.nFf = 172;
        spec.nHead = 8;
        spec.nHeadKv = 4;
        spec.nLayer = 2;
        spec.tiedOutput = true;
        TinyWeights weights;
        const QString path = freshPath();
        QVERIFY(writeTinyModel(path, spec, &weights).ok());
        auto model = Model::load(path.toStdString());
        QVERIFY2(model.ok(), model.message().c_str());
        QCOMPARE(QString::fromStdString((*model)->info().ffnActivation), activation);

        const std::vector<Token> tokens{1, 290, 5, 77, 260, 3, 299};
        const auto expected = referenceForward(spec, weights, activation.toStdString(), tokens);
        SessionParams params;
        params.kvCache = KvCacheType::F32; // compared with a float reference
        params.threads = 2;
        auto session = Session::create(*model, params);
        QVERIFY2(session.ok(), session.message().c_str());
        std::vector<float> all;
        QVERIFY((*session)->evaluateAll(tokens, all).ok());
        QCOMPARE(all.size(), tokens.size() * std::size_t(spec.nVocab));
        float worst = 0;
        for (std::size_t t = 0; t < tokens.size(); ++t)
            for (int v = 0; v < spec.nVocab; ++v)
                worst = std::max(worst, std::abs(all[t * std::size_t(spec.nVocab) + std::size_t(v)] - expected[t][std::size_t(v)]));
        qDebug("max abs logit error %g", double(worst));
        QVERIFY2(worst < 1e-3f, qPrintable(QStringLiteral("max |logit - reference| = %1").arg(worst)));
    }

    // PowerInfer files: PWRI magic, ReGLU by default, down projection stored neuron-major.
    void powerInferLayoutMatchesReference()
    {
        TinySpec spec;
        spec.magic = gguf::Magic::PowerInfer;
        spec.powerInferLayout = true;
        spec.nLayer = 2;
        TinyWeights weights;
        const QString path = freshPath();
        QVERIFY(writeTinyModel(path, spec, &weights).ok());
        auto model = Model::load(path.toStdString());
        QVERIFY2(model.ok(), model.message().c_str());
        QVERIFY((*model)->info().sparse);
        QCOMPARE((*model)->info().ffnActivation, std::string("reglu"));

        const std::vector<Token> tokens{1, 42, 270, 9, 150};
        const auto expected = referenceForward(spec, weights, "reglu", tokens);
        for (int batch : {256, 2}) {
            SessionParams params;
            params.kvCache = KvCacheType::F32; // compared with a float reference
            params.threads = 2;
            params.batchSize = batch;
            // The file's predictor weights are placeholders: check the layout on the dense path.
            params.denseFfn = true;
            auto session = Session::create(*model, params);
            QVERIFY(session.ok());
            std::vector<float> all;
            QVERIFY((*session)->evaluateAll(tokens, all).ok());
            float worst = 0;
            for (std::size_t t = 0; t < tokens.size(); ++t)
                for (int v = 0; v < spec.nVocab; ++v)
                    worst = std::max(worst, std::abs(all[t * std::size_t(spec.nVocab) + std::size_t(v)] - expected[t][std::size_t(v)]));
            QVERIFY2(worst < 1e-3f, qPrintable(QStringLiteral("batch %1: max error %2").arg(batch).arg(worst)));
        }
    }

    void quantizedModelsRun_data()
    {
        QTest::addColumn<int>("type");
        QTest::addColumn<double>("tolerance"); // relative RMS error of the logits
        QTest::newRow("F16") << int(DType::F16) << 0.005;
        QTest::newRow("Q8_0") << int(DType::Q8_0) << 0.03;
        QTest::newRow("Q4_0") << int(DType::Q4_0) << 0.35;
    }

    void quantizedModelsRun()
    {
        QFETCH(int, type);
        QFETCH(double, tolerance);
        TinySpec spec;
        spec.matrixType = DType(type);
        TinyWeights weights;
        const QString path = freshPath();
        QVERIFY(writeTinyModel(path, spec, &weights).ok());
        auto model = Model::load(path.toStdString());
        QVERIFY2(model.ok(), model.message().c_str());
        QCOMPARE(QString::fromStdString((*model)->info().weightType), QString::fromLatin1(dtypeName(DType(type)).data()));
        auto session = Session::create(*model);
        QVERIFY(session.ok());
        const std::vector<Token> tokens{1, 100, 200};
        QVERIFY((*session)->prefill(tokens).ok());
        // Quantization moves the logits a little, never far: compare with the float reference.
        const auto expected = referenceForward(spec, weights, "swiglu", tokens).back();
        const auto logits = (*session)->logits();
        double err = 0, norm = 0;
        for (int v = 0; v < spec.nVocab; ++v) {
            QVERIFY(std::isfinite(logits[std::size_t(v)]));
            err += std::pow(double(logits[std::size_t(v)]) - expected[std::size_t(v)], 2);
            norm += std::pow(double(expected[std::size_t(v)]), 2);
        }
        qDebug("relative error %g", std::sqrt(err / norm));
        QVERIFY2(std::sqrt(err / norm) < tolerance, qPrintable(QStringLiteral("relative error %1").arg(std::sqrt(err / norm))));
    }

    void rejectsBrokenFiles_data()
    {
        QTest::addColumn<QString>("omit");
        QTest::addColumn<QString>("wrongShape");
        QTest::addColumn<QString>("unsupportedType");
        QTest::addColumn<QString>("architecture");
        QTest::addColumn<int>("nHeadKv");
        QTest::addColumn<int>("expectedCode");
        QTest::addColumn<QString>("messagePart");
        const int invalid = int(ErrorCode::InvalidFile);
        const int unsupported = int(ErrorCode::Unsupported);
        QTest::newRow("missing tensor") << "blk.0.ffn_up.weight" << "" << "" << "llama" << 2 << invalid << "blk.0.ffn_up.weight";
        QTest::newRow("missing output norm") << "output_norm.weight" << "" << "" << "llama" << 2 << invalid << "output_norm.weight";
        QTest::newRow("wrong shape") << "" << "blk.0.attn_k.weight" << "" << "llama" << 2 << invalid << "blk.0.attn_k.weight";
        QTest::newRow("vocab mismatch") << "" << "token_embd.weight" << "" << "llama" << 2 << invalid << "token_embd.weight";
        QTest::newRow("unsupported type") << "" << "" << "blk.0.attn_q.weight" << "llama" << 2 << unsupported << "Q8_1";
        QTest::newRow("unsupported architecture") << "" << "" << "" << "gpt2" << 2 << unsupported << "gpt2";
        QTest::newRow("kv heads do not divide") << "" << "" << "" << "llama" << 3 << invalid << "head count";
    }

    void rejectsBrokenFiles()
    {
        QFETCH(QString, omit);
        QFETCH(QString, wrongShape);
        QFETCH(QString, unsupportedType);
        QFETCH(QString, architecture);
        QFETCH(int, nHeadKv);
        QFETCH(int, expectedCode);
        QFETCH(QString, messagePart);
        TinySpec spec;
        spec.omitTensor = omit.toStdString();
        spec.wrongShapeTensor = wrongShape.toStdString();
        spec.unsupportedTypeTensor = unsupportedType.toStdString();
        spec.architecture = architecture.toStdString();
        spec.nHeadKv = nHeadKv;
        const QString path = freshPath();
        QVERIFY(writeTinyModel(path, spec).ok());
        auto model = Model::load(path.toStdString());
        QVERIFY(!model.ok());
        QCOMPARE(int(model.code()), expectedCode);
        QVERIFY2(QString::fromStdString(model.message()).contains(messagePart), model.message().c_str());
    }

    void rejectsMissingFile()
    {
        auto model = Model::load(m_dir.filePath(QStringLiteral("does-not-exist.gguf")).toStdString());
        QVERIFY(!model.ok());
        QVERIFY(!model.message().empty());
    }

    void progressAndCancellation()
    {
        TinySpec spec;
        spec.nLayer = 3;
        const QString path = freshPath();
        QVERIFY(writeTinyModel(path, spec).ok());

        std::vector<float> seen;
        LoadParams params;
        params.progress = [&seen](float f) {
            seen.push_back(f);
            return true;
        };
        auto model = Model::load(path.toStdString(), params);
        QVERIFY2(model.ok(), model.message().c_str());
        QVERIFY(seen.size() > 3);
        QVERIFY(std::is_sorted(seen.begin(), seen.end()));
        QCOMPARE(seen.front(), 0.0f);
        QVERIFY(std::abs(seen.back() - 1.0f) < 1e-6f);

        int calls = 0;
        params.progress = [&calls](float) { return ++calls < 5; };
        auto cancelled = Model::load(path.toStdString(), params);
        QVERIFY(!cancelled.ok());
        QCOMPARE(cancelled.code(), ErrorCode::Cancelled);
        QCOMPARE(calls, 5);
    }
};

QTEST_GUILESS_MAIN(TestModel)
#include "tst_model.moc"
