// SPDX-License-Identifier: MIT
// Activation predictors: the predictor of a file equals a plain reference computed from the
// file's tensors, neuron selection, and the synthetic generator's calibration (predicted
// frequencies match the requested sparsity and the written statistics).

#include "cpu/quant.h"
#include "cpu/thread_pool.h"
#include "gguf/gguf_file.h"
#include "model/llama_model.h"
#include "sparse/activation_profile.h"
#include "sparse/predictor.h"
#include "synth/synthetic_sparse.h"

#include <hearth/model.h>

#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

using namespace hearth;

namespace {

std::vector<float> dequantized(const gguf::TensorInfo& t)
{
    const std::int64_t cols = t.shape[0];
    const std::int64_t rows = t.shape[1];
    std::vector<float> out(std::size_t(rows * cols));
    const std::size_t rb = rowBytes(t.type, cols);
    for (std::int64_t r = 0; r < rows; ++r)
        cpu::dequantizeRow(t.type, reinterpret_cast<const std::uint8_t*>(t.data) + std::size_t(r) * rb,
                           out.data() + std::size_t(r * cols), cols);
    return out;
}

std::vector<float> gaussian(std::size_t n, std::uint32_t seed)
{
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> v(n);
    for (float& x : v)
        x = normal(rng);
    return v;
}

} // namespace

class TestPredictor : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;

    std::string writeModel(DType type, double sparsity, const char* name, int hidden = 32, int embd = 0, int ff = 0)
    {
        synth::SynthOptions o;
        o.shape = *synth::shapeByName("tiny");
        if (embd > 0) {
            o.shape.embeddingSize = embd;
            o.shape.feedForwardSize = ff;
        }
        o.type = type;
        o.ffnActivation = "reglu";
        synth::SparseSynthOptions s;
        s.sparsity = sparsity;
        s.predictorHidden = hidden;
        const std::string path = m_dir.filePath(QString::fromLatin1(name)).toStdString();
        const Status st = synth::writeSparseSyntheticModel(o, s, path);
        if (!st.ok())
            qWarning("%s", st.message().c_str());
        return path;
    }

private slots:
    void predictorEqualsPlainReference_data()
    {
        QTest::addColumn<int>("type");
        QTest::newRow("F32") << int(DType::F32);
        QTest::newRow("F16") << int(DType::F16);
    }

    void predictorEqualsPlainReference()
    {
        QFETCH(int, type);
        const std::string path = writeModel(DType(type), 0.8, type == int(DType::F32) ? "ref-f32.gguf" : "ref-f16.gguf");
        auto loaded = Model::load(path);
        QVERIFY2(loaded.ok(), loaded.message().c_str());
        const auto& m = dynamic_cast<const model::LlamaModel&>(**loaded);
        auto file = gguf::GgufFile::open(path);
        QVERIFY(file.ok());
        const int nEmbd = m.hyperParams().nEmbd;
        const int nFf = m.hyperParams().nFf;
        cpu::ThreadPool pool(2);
        for (int l = 0; l < m.hyperParams().nLayer; ++l) {
            const sparse::PredictorWeights& p = m.weights().layers[std::size_t(l)].predictor;
            QVERIFY(p.present());
            // Layer 0 has a larger hidden size than the others.
            QCOMPARE(p.hidden(), std::int64_t(l == 0 ? 64 : 32));
            const std::string prefix = "blk." + std::to_string(l) + ".";
            const std::vector<float> fc1 = dequantized(*(*file)->findTensor(prefix + "fc1.weight"));
            const std::vector<float> fc2 = dequantized(*(*file)->findTensor(prefix + "fc2.weight"));
            const std::vector<float> x = gaussian(std::size_t(nEmbd), std::uint32_t(l + 1));
            std::vector<double> h(std::size_t(p.hidden()));
            for (std::int64_t j = 0; j < p.hidden(); ++j) {
                double s = 0;
                for (int c = 0; c < nEmbd; ++c)
                    s += double(fc1[std::size_t(j * nEmbd + c)]) * x[std::size_t(c)];
                h[std::size_t(j)] = std::max(0.0, s);
            }
            std::vector<float> hidden(static_cast<std::size_t>(p.hidden())), logits(static_cast<std::size_t>(nFf));
            sparse::predict(pool, p, x.data(), 1, hidden.data(), logits.data());
            std::vector<std::int32_t> ids(static_cast<std::size_t>(nFf));
            const std::int64_t count = sparse::selectActive(logits.data(), nFf, 0.0f, ids.data());
            std::vector<std::int32_t> expectedIds;
            for (int i = 0; i < nFf; ++i) {
                double s = 0;
                for (std::int64_t j = 0; j < p.hidden(); ++j)
                    s += double(fc2[std::size_t(i * p.hidden() + j)]) * h[std::size_t(j)];
                QVERIFY2(std::fabs(s - logits[std::size_t(i)]) < 1e-3 * (1 + std::fabs(s)),
                         qPrintable(QStringLiteral("layer %1 neuron %2: %3 vs %4").arg(l).arg(i).arg(s).arg(logits[std::size_t(i)])));
                if (logits[std::size_t(i)] >= 0.0f)
                    expectedIds.push_back(i);
            }
            QCOMPARE(std::vector<std::int32_t>(ids.begin(), ids.begin() + count), expectedIds);
        }
    }

    void batchSelectionIsUnionWithMask()
    {
        const std::vector<float> logits = {-1, 2, 0, -3, /* token 1 */ 5, -1, -2, -0.5f};
        std::vector<std::uint8_t> mask(8);
        std::vector<std::int32_t> ids(4);
        const std::int64_t n = sparse::selectActiveBatch(logits.data(), 2, 4, 0.0f, mask.data(), ids.data());
        QCOMPARE(n, std::int64_t(3));
        QCOMPARE(std::vector<std::int32_t>(ids.begin(), ids.begin() + n), (std::vector<std::int32_t>{0, 1, 2}));
        QCOMPARE(mask, (std::vector<std::uint8_t>{0, 1, 1, 0, 1, 0, 0, 0}));
        std::int64_t pairs = -1;
        QCOMPARE(sparse::selectActiveBatch(logits.data(), 2, 4, 0.0f, mask.data(), ids.data(), &pairs), n);
        QCOMPARE(pairs, std::int64_t(3)); // the flags set over both tokens
        QCOMPARE(sparse::selectActive(logits.data(), 4, 10.0f, ids.data()), std::int64_t(0));
    }

    void powerLawHitsTheMean()
    {
        for (double sparsity : {0.5, 0.7, 0.9, 0.97}) {
            const auto f = synth::powerLawFrequencies(5632, sparsity, 1.0);
            const double mean = std::accumulate(f.begin(), f.end(), 0.0) / double(f.size());
            QVERIFY(std::fabs(mean - (1 - sparsity)) < 1e-3);
            QVERIFY(std::is_sorted(f.rbegin(), f.rend()));
            QCOMPARE(f.front(), 1.0f); // the hottest neurons always fire
        }
    }

    // The generator's predictor fires on random inputs about as often as requested, neuron by
    // neuron as its statistics say.
    void calibrationMatchesStatistics_data()
    {
        QTest::addColumn<double>("sparsity");
        QTest::newRow("90%") << 0.9;
        QTest::newRow("70%") << 0.7;
    }

    void calibrationMatchesStatistics()
    {
        QFETCH(double, sparsity);
        const std::string path = writeModel(DType::F16, sparsity, sparsity > 0.8 ? "cal90.gguf" : "cal70.gguf", 128, 256, 1024);
        auto loaded = Model::load(path);
        QVERIFY2(loaded.ok(), loaded.message().c_str());
        const auto& m = dynamic_cast<const model::LlamaModel&>(**loaded);
        auto stats = sparse::loadStatsFile(sparse::defaultStatsPath(path));
        QVERIFY2(stats.ok(), stats.message().c_str());
        const int nEmbd = m.hyperParams().nEmbd;
        const int nFf = m.hyperParams().nFf;
        const int samples = 400;
        cpu::ThreadPool pool(1);
        const sparse::PredictorWeights& p = m.weights().layers[1].predictor;
        std::vector<float> hidden(static_cast<std::size_t>(p.hidden())), logits(static_cast<std::size_t>(nFf));
        std::vector<double> fired(static_cast<std::size_t>(nFf), 0);
        for (int s = 0; s < samples; ++s) {
            std::vector<float> x = gaussian(std::size_t(nEmbd), std::uint32_t(1000 + s));
            for (float& v : x)
                v *= 3.0f; // the scale of the input does not matter
            sparse::predict(pool, p, x.data(), 1, hidden.data(), logits.data());
            for (int i = 0; i < nFf; ++i)
                fired[std::size_t(i)] += logits[std::size_t(i)] >= 0.0f ? 1 : 0;
        }
        double mean = 0, maxDiff = 0, statMean = 0;
        const auto expected = stats->layer(1);
        for (int i = 0; i < nFf; ++i) {
            const double f = fired[std::size_t(i)] / samples;
            mean += f;
            statMean += expected[std::size_t(i)];
            maxDiff = std::max(maxDiff, std::fabs(f - expected[std::size_t(i)]));
        }
        mean /= nFf;
        statMean /= nFf;
        QVERIFY2(std::fabs(mean - (1 - sparsity)) < 0.03, qPrintable(QString::number(mean)));
        QVERIFY2(std::fabs(statMean - (1 - sparsity)) < 0.01, qPrintable(QString::number(statMean)));
        // Sampling error of 400 draws is at most ~0.025 per neuron; allow for the model of q_i.
        QVERIFY2(maxDiff < 0.15, qPrintable(QString::number(maxDiff)));
    }

    void generatorRejectsBadOptions()
    {
        synth::SynthOptions o;
        o.shape = *synth::shapeByName("tiny");
        o.ffnActivation = "swiglu";
        synth::SparseSynthOptions s;
        const std::string path = m_dir.filePath(QStringLiteral("bad.gguf")).toStdString();
        QVERIFY(!synth::writeSparseSyntheticModel(o, s, path).ok());
        o.ffnActivation = "reglu";
        s.sparsity = 1.0;
        QVERIFY(!synth::writeSparseSyntheticModel(o, s, path).ok());
        s.sparsity = 0.5;
        o.type = DType::Q4_0;
        s.predictorHidden = 40; // not whole Q4_0 blocks
        QVERIFY(!synth::writeSparseSyntheticModel(o, s, path).ok());
        QVERIFY(!synth::parseSparseLayout("dense").ok());
    }
};

QTEST_GUILESS_MAIN(TestPredictor)
#include "tst_predictor.moc"
