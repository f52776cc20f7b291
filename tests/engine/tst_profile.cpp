// SPDX-License-Identifier: MIT
// Activation statistics: the statistics file round trip, hostile and truncated files rejected
// with a message, and hearth-profile's frequencies on a tiny model against a reference count.

#include "gguf/gguf_writer.h"
#include "model/llama_forward.h"
#include "model/llama_model.h"
#include "sparse/activation_profile.h"
#include "synth/synthetic_sparse.h"

#include <hearth/model.h>

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

using namespace hearth;

namespace {

struct Counts {
    std::vector<std::vector<double>> fired;
    double tokens = 0;
};

void countReference(void* context, int layer, int n, const float* acts, const float*)
{
    auto* c = static_cast<Counts*>(context);
    auto& layerCounts = c->fired[std::size_t(layer)];
    for (int t = 0; t < n; ++t) {
        for (std::size_t i = 0; i < layerCounts.size(); ++i)
            layerCounts[i] += acts[std::size_t(t) * layerCounts.size() + i] != 0.0f ? 1 : 0;
    }
    if (layer == 0)
        c->tokens += n;
}

// A statistics file written by hand, with one thing wrong at a time.
struct Hostile {
    std::string architecture = "hearth.activation_stats";
    int layerCount = 2;
    int layersWritten = 2;
    std::vector<int> lengths = {8, 8};
    DType type = DType::F32;
    float badValue = 0.5f;
    bool twoDims = false;
};

std::string writeHostile(const QTemporaryDir& dir, const QString& name, const Hostile& h)
{
    const std::string path = dir.filePath(name).toStdString();
    gguf::GgufWriter w;
    w.setString("general.architecture", h.architecture);
    w.setUInt32("hearth.stats.layer_count", std::uint32_t(h.layerCount));
    for (int l = 0; l < h.layersWritten; ++l) {
        std::vector<std::int64_t> shape = {h.lengths[std::size_t(l)]};
        if (h.twoDims)
            shape = {h.lengths[std::size_t(l)] / 2, 2};
        w.addTensor("blk." + std::to_string(l) + ".ffn_freq", h.type, shape);
    }
    if (!w.begin(path).ok())
        return {};
    for (int l = 0; l < h.layersWritten; ++l) {
        std::vector<float> v(std::size_t(h.lengths[std::size_t(l)]), 0.25f);
        v[1] = h.badValue;
        const std::size_t bytes = rowBytes(h.type, std::int64_t(v.size()));
        std::vector<std::byte> data(bytes);
        std::memcpy(data.data(), v.data(), std::min(bytes, v.size() * sizeof(float)));
        if (!w.writeTensorData(data).ok())
            return {};
    }
    return w.finish().ok() ? path : std::string();
}

} // namespace

class TestProfile : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;

private slots:
    void statsRoundTrip()
    {
        const std::string path = m_dir.filePath(QStringLiteral("ok.hearth-stats.gguf")).toStdString();
        const std::vector<std::vector<float>> freq = {{0.0f, 0.5f, 1.0f, 0.125f}, {1.0f, 0.0f, 0.25f, 0.75f}};
        QVERIFY(sparse::writeStatsFile(path, freq, 1234).ok());
        auto stats = sparse::loadStatsFile(path);
        QVERIFY2(stats.ok(), stats.message().c_str());
        QCOMPARE(stats->layerCount(), std::size_t(2));
        for (std::size_t l = 0; l < 2; ++l)
            QCOMPARE(std::vector<float>(stats->layer(l).begin(), stats->layer(l).end()), freq[l]);
        QCOMPARE(sparse::defaultStatsPath("/m/model.gguf"), std::string("/m/model.hearth-stats.gguf"));
        QCOMPARE(sparse::defaultStatsPath("/m/model.bin"), std::string("/m/model.bin.hearth-stats.gguf"));
    }

    void hostileStatsRejected_data()
    {
        QTest::addColumn<int>("variant");
        const char* names[] = {"wrong architecture", "layer missing", "layer count zero", "NaN", "above one",
                               "negative", "F16 tensor", "2-D tensor", "lengths differ", "implausible layer count"};
        for (int i = 0; i < 10; ++i)
            QTest::newRow(names[i]) << i;
    }

    void hostileStatsRejected()
    {
        QFETCH(int, variant);
        Hostile h;
        switch (variant) {
        case 0: h.architecture = "llama"; break;
        case 1: h.layersWritten = 1; break;
        case 2: h.layerCount = 0; break;
        case 3: h.badValue = std::numeric_limits<float>::quiet_NaN(); break;
        case 4: h.badValue = 1.5f; break;
        case 5: h.badValue = -0.1f; break;
        case 6: h.type = DType::F16; break;
        case 7: h.twoDims = true; break;
        case 8: h.lengths = {8, 16}; break;
        case 9: h.layerCount = 1 << 30; h.layersWritten = 2; break;
        }
        const std::string path = writeHostile(m_dir, QStringLiteral("hostile-%1.gguf").arg(variant), h);
        QVERIFY(!path.empty());
        auto stats = sparse::loadStatsFile(path);
        QVERIFY(!stats.ok());
        QVERIFY(stats.message().find(path) != std::string::npos); // names the file
    }

    void truncatedAndGarbageStatsRejected()
    {
        const std::string path = m_dir.filePath(QStringLiteral("cut.hearth-stats.gguf")).toStdString();
        std::vector<std::vector<float>> freq(3, std::vector<float>(4096, 0.5f));
        QVERIFY(sparse::writeStatsFile(path, freq, 10).ok());
        QFile f(QString::fromStdString(path));
        const qint64 full = f.size();
        for (qint64 cut : {full - 1, full / 2, qint64(100), qint64(3), qint64(0)}) {
            QVERIFY(f.resize(cut));
            auto stats = sparse::loadStatsFile(path);
            QVERIFY2(!stats.ok(), qPrintable(QStringLiteral("cut at %1").arg(cut)));
            QVERIFY(!stats.message().empty());
        }
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray(4096, '\x5a'));
        f.close();
        QVERIFY(!sparse::loadStatsFile(path).ok());
        QVERIFY(!sparse::loadStatsFile(m_dir.filePath(QStringLiteral("absent.gguf")).toStdString()).ok());
        QVERIFY(!sparse::writeStatsFile(path, {}, 0).ok());
    }

    void powerInferFolderErrors()
    {
        QTemporaryDir empty;
        auto stats = sparse::loadPowerInferActivations(empty.path().toStdString());
        QVERIFY(!stats.ok());
        QVERIFY(!stats.message().empty());
        QFile junk(empty.filePath(QStringLiteral("activation_0.pt")));
        QVERIFY(junk.open(QIODevice::WriteOnly));
        junk.write("not a checkpoint");
        junk.close();
        QVERIFY(!sparse::loadPowerInferActivations(empty.path().toStdString()).ok());
    }

    // hearth-profile (batched windows) against counts taken here one token at a time.
    void profileMatchesReferenceCount_data()
    {
        QTest::addColumn<bool>("predicted");
        QTest::newRow("dense") << false;
        QTest::newRow("predicted") << true;
    }

    void profileMatchesReferenceCount()
    {
        QFETCH(bool, predicted);
        synth::SynthOptions o;
        o.shape = *synth::shapeByName("tiny");
        o.type = DType::F32;
        o.ffnActivation = "reglu";
        synth::SparseSynthOptions s;
        s.sparsity = 0.6;
        s.predictorHidden = 32;
        s.layout = synth::SparseLayout::Hearth;
        const std::string model = m_dir.filePath(QStringLiteral("profile.gguf")).toStdString();
        QVERIFY(synth::writeSparseSyntheticModel(o, s, model).ok());
        const QString text = m_dir.filePath(QStringLiteral("text.txt"));
        {
            QFile f(text);
            QVERIFY(f.open(QIODevice::WriteOnly));
            for (int i = 0; i < 20; ++i)
                f.write("a small fire keeps the hearth warm while snow falls outside. ");
        }
        const QString out = m_dir.filePath(QStringLiteral("profile-out.gguf"));
        constexpr int window = 64;
        QProcess p;
        QStringList args = {"-m", QString::fromStdString(model), "-f", text, "-o", out, "-t", "2", "-c", QString::number(window)};
        if (predicted)
            args << "--predicted";
        p.start(QStringLiteral(HEARTH_BIN_DIR "/hearth-profile"), args);
        QVERIFY(p.waitForFinished(120000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        auto stats = sparse::loadStatsFile(out.toStdString());
        QVERIFY2(stats.ok(), stats.message().c_str());

        auto loaded = Model::load(model);
        QVERIFY(loaded.ok());
        const auto& m = dynamic_cast<const model::LlamaModel&>(**loaded);
        const model::HyperParams& hp = m.hyperParams();
        const std::vector<Token> tokens = m.tokenizer().encode(QFile::exists(text) ? [&] {
            QFile f(text);
            (void)f.open(QIODevice::ReadOnly);
            return f.readAll().toStdString();
        }() : std::string(), false, false);
        QVERIFY(tokens.size() > std::size_t(2 * window));
        Counts counts;
        counts.fired.assign(std::size_t(hp.nLayer), std::vector<double>(std::size_t(hp.nFf), 0));
        auto f = model::LlamaForward::create(m, window, 1, 1);
        QVERIFY(f.ok());
        (*f)->setFfnMode(predicted ? model::LlamaForward::FfnMode::Sparse : model::LlamaForward::FfnMode::Dense);
        (*f)->setActivationObserver(countReference, &counts);
        std::vector<float> logits(std::size_t(hp.nVocab));
        for (std::size_t pos = 0; pos < tokens.size();) {
            std::vector<Token> chunk = {m.tokenizer().bos()};
            const std::size_t take = std::min(tokens.size() - pos, std::size_t(window - 1));
            chunk.insert(chunk.end(), tokens.begin() + std::ptrdiff_t(pos), tokens.begin() + std::ptrdiff_t(pos + take));
            pos += take;
            for (std::size_t i = 0; i < chunk.size(); ++i)
                (*f)->forward(&chunk[i], 1, int(i), logits.data(), false);
        }
        QCOMPARE(stats->layerCount(), std::size_t(hp.nLayer));
        double meanFreq = 0;
        for (int l = 0; l < hp.nLayer; ++l) {
            const auto freq = stats->layer(std::size_t(l));
            for (int i = 0; i < hp.nFf; ++i) {
                const double expected = counts.fired[std::size_t(l)][std::size_t(i)] / counts.tokens;
                meanFreq += expected;
                // Batched and one-token paths sum in different orders: an activation within
                // rounding of zero may flip, so allow two tokens' worth.
                QVERIFY2(std::fabs(freq[std::size_t(i)] - expected) <= 2.0 / counts.tokens + 1e-6,
                         qPrintable(QStringLiteral("layer %1 neuron %2: %3 vs %4").arg(l).arg(i).arg(freq[std::size_t(i)]).arg(expected)));
            }
        }
        meanFreq /= double(hp.nLayer) * hp.nFf;
        // Random gates fire about half the time; the predictor keeps ~40% of those.
        QVERIFY(predicted ? meanFreq < 0.35 : meanFreq > 0.35);
    }
};

QTEST_GUILESS_MAIN(TestProfile)
#include "tst_profile.moc"
