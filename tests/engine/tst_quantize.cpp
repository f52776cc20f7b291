// SPDX-License-Identifier: MIT
// hearth-quantize: a synthetic F32 model (and a PowerInfer-layout copy of it, built here) is
// re-encoded; tensor types, metadata, magic and logits are checked against the F32 original.

#include "convert/quantize_file.h"
#include "core/fp16.h"
#include "cpu/quant.h"
#include "gguf/gguf_file.h"
#include "gguf/gguf_writer.h"
#include "logits_test_support.h"
#include "synth/synthetic_model.h"

#include <hearth/model.h>
#include <hearth/session.h>

#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <cstring>

using namespace hearth;
using hearth::test::promptLogits;
using hearth::test::relativeRms;

namespace {

std::vector<float> logitsOf(const std::string& path)
{
    return promptLogits(path, {1, 300, 301, 280, 290, 310});
}

bool exists(const std::string& path)
{
    return QFileInfo::exists(QString::fromStdString(path));
}

// Copies a dense llama file into PowerInfer's layout: PWRI magic, ffn_down replaced by the
// neuron-major ffn_down_t, and F16 predictors blk.N.fc1 / fc2 with a hidden size of 32.
Status writePowerInferCopy(const std::string& from, const std::string& to)
{
    auto opened = gguf::GgufFile::open(from);
    if (!opened)
        return opened.status();
    const gguf::GgufFile& in = **opened;
    gguf::GgufWriter writer(gguf::Magic::PowerInfer);
    for (const auto& [key, value] : in.metadata())
        writer.setValue(key, value);
    writer.setFloat32("powerinfer.sparse_threshold", 0.0f);
    const std::int64_t embd = in.getInt("llama.embedding_length").value_or(0);
    const std::int64_t ff = in.getInt("llama.feed_forward_length").value_or(0);
    struct Out {
        std::string name;
        DType type;
        std::vector<std::int64_t> shape;
        std::vector<std::byte> bytes;
    };
    std::vector<Out> outs;
    for (const gguf::TensorInfo& t : in.tensors()) {
        const auto dot = t.name.find(".ffn_down.weight");
        if (dot == std::string::npos) {
            outs.push_back({t.name, t.type, t.shape, {t.data, t.data + t.byteSize}});
            continue;
        }
        const std::string prefix = t.name.substr(0, dot);
        const auto* down = reinterpret_cast<const float*>(t.data); // [embd rows][ff]
        std::vector<float> downT(std::size_t(embd * ff));
        for (std::int64_t r = 0; r < embd; ++r)
            for (std::int64_t c = 0; c < ff; ++c)
                downT[std::size_t(c * embd + r)] = down[r * ff + c];
        Out o{prefix + ".ffn_down_t.weight", DType::F32, {embd, ff}, {}};
        o.bytes.resize(downT.size() * 4);
        std::memcpy(o.bytes.data(), downT.data(), o.bytes.size());
        outs.push_back(std::move(o));
        for (auto [name, shape] : {std::pair(std::string(".fc1.weight"), std::vector<std::int64_t>{embd, 32}),
                                   std::pair(std::string(".fc2.weight"), std::vector<std::int64_t>{32, ff})}) {
            Out p{prefix + name, DType::F16, shape, {}};
            const std::int64_t n = shape[0] * shape[1];
            for (std::int64_t i = 0; i < n; ++i) {
                const std::uint16_t h = floatToHalf(float((i * 7919) % 101) / 101.0f - 0.5f);
                p.bytes.push_back(std::byte(h & 0xff));
                p.bytes.push_back(std::byte(h >> 8));
            }
            outs.push_back(std::move(p));
        }
    }
    for (const Out& o : outs)
        writer.addTensor(o.name, o.type, o.shape);
    HEARTH_TRY(writer.begin(to));
    for (const Out& o : outs)
        HEARTH_TRY(writer.writeTensorData(o.bytes));
    return writer.finish();
}

} // namespace

class TestQuantize : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::string m_f32;
    std::vector<float> m_reference;

    [[nodiscard]] std::string path(const char* name) const { return m_dir.filePath(name).toStdString(); }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        auto shape = synth::shapeByName("tiny");
        QVERIFY(shape);
        synth::SynthOptions options;
        options.shape = *shape;
        options.type = DType::F32;
        options.ffnActivation = "reglu";
        m_f32 = path("tiny-f32.gguf");
        QVERIFY(synth::writeSyntheticModel(options, m_f32).ok());
        m_reference = logitsOf(m_f32);
        QCOMPARE(m_reference.size(), std::size_t(shape->vocabSize));
    }

    void quantizesWeightMatrices_data()
    {
        QTest::addColumn<int>("type");
        QTest::addColumn<double>("bound");
        // Bounds about twice the errors measured on this model (f16 ~1e-3, q8_0 ~1e-2, q4_0 ~0.1).
        QTest::newRow("f16") << int(DType::F16) << 5e-3;
        QTest::newRow("q8_0") << int(DType::Q8_0) << 4e-2;
        QTest::newRow("q4_0") << int(DType::Q4_0) << 0.3;
    }

    void quantizesWeightMatrices()
    {
        QFETCH(int, type);
        QFETCH(double, bound);
        convert::QuantizeOptions options;
        options.input = m_f32;
        options.output = path("out.gguf");
        options.type = DType(type);
        auto report = convert::quantizeModelFile(options);
        QVERIFY2(report, report.message().c_str());
        QVERIFY(report->convertedTensors > 0);
        QVERIFY(report->copiedTensors > 0);
        QVERIFY(report->outputBytes < report->inputBytes);
        QVERIFY(!exists(options.output + ".part"));

        auto in = gguf::GgufFile::open(m_f32);
        auto out = gguf::GgufFile::open(options.output);
        QVERIFY(in && out);
        QCOMPARE((*out)->tensors().size(), (*in)->tensors().size());
        for (const gguf::TensorInfo& t : (*out)->tensors()) {
            const bool matrix = t.shape.size() == 2;
            QCOMPARE(t.type, matrix ? DType(type) : DType::F32);
        }
        QCOMPARE((*out)->findTensor("token_embd.weight")->type, DType(type));
        for (const auto& [key, value] : (*in)->metadata()) {
            if (key == "general.file_type" || key == "general.quantization_version")
                continue;
            const gguf::Value* copied = (*out)->find(key);
            QVERIFY2(copied && *copied == value, key.c_str());
        }
        const double error = relativeRms(logitsOf(options.output), m_reference);
        qInfo("relative RMS error of logits against F32: %.2e", error);
        QVERIFY2(error < bound, qPrintable(QString::number(error)));
        QFile::remove(QString::fromStdString(options.output));
    }

    void powerInferFileKeepsMagicAndPredictors()
    {
        const std::string sparse = path("sparse-f32.gguf");
        QVERIFY(writePowerInferCopy(m_f32, sparse).ok());
        const auto sparseReference = logitsOf(sparse);
        QVERIFY(relativeRms(sparseReference, m_reference) < 1e-4); // same model, other layout

        convert::QuantizeOptions options;
        options.input = sparse;
        options.output = path("sparse-q4.gguf");
        options.type = DType::Q4_0;
        auto report = convert::quantizeModelFile(options);
        QVERIFY2(report, report.message().c_str());
        auto out = gguf::GgufFile::open(options.output);
        QVERIFY(out);
        QCOMPARE((*out)->magic(), gguf::Magic::PowerInfer);
        QCOMPARE((*out)->getFloat("powerinfer.sparse_threshold").value_or(-1), 0.0);
        QCOMPARE((*out)->findTensor("blk.0.fc1.weight")->type, DType::F16);
        QCOMPARE((*out)->findTensor("blk.1.fc2.weight")->type, DType::F16);
        QCOMPARE((*out)->findTensor("blk.1.ffn_down_t.weight")->type, DType::Q4_0);
        QVERIFY(!(*out)->findTensor("blk.1.ffn_down.weight"));
        auto model = Model::load(options.output);
        QVERIFY2(model, model.message().c_str());
        QVERIFY((*model)->info().sparse);
        const double error = relativeRms(logitsOf(options.output), sparseReference);
        qInfo("sparse layout, q4_0: relative RMS error %.2e", error);
        QVERIFY(error < 0.3);
    }

    void badInputsAreRejected_data()
    {
        QTest::addColumn<int>("which");
        QTest::newRow("missing input") << 0;
        QTest::newRow("garbage input") << 1;
        QTest::newRow("truncated input") << 2;
        QTest::newRow("unsupported type") << 3;
        QTest::newRow("output is input") << 4;
        QTest::newRow("not a model") << 5;
    }

    void badInputsAreRejected()
    {
        QFETCH(int, which);
        convert::QuantizeOptions options;
        options.input = path("bad-input.gguf");
        options.output = path("bad-output.gguf");
        options.type = DType::Q4_0;
        QFile::remove(QString::fromStdString(options.input));
        switch (which) {
        case 0: break;
        case 1: {
            QFile f(QString::fromStdString(options.input));
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("GGUF\x03\x00\x00\x00 this is not a model at all");
            break;
        }
        case 2: {
            QFile src(QString::fromStdString(m_f32));
            QVERIFY(src.open(QIODevice::ReadOnly));
            QFile f(QString::fromStdString(options.input));
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(src.read(src.size() / 2));
            break;
        }
        case 3:
            options.input = m_f32;
            options.type = DType::Q4_1;
            break;
        case 4: options.input = options.output = m_f32; break;
        case 5: {
            gguf::GgufWriter writer;
            writer.setString("general.architecture", "llama");
            writer.addTensor("blk.0.attn_q.weight", DType::F32, {32, 32});
            QVERIFY(writer.begin(options.input).ok());
            std::vector<float> zeros(32 * 32);
            QVERIFY(writer.writeTensorData(std::as_bytes(std::span<const float>(zeros))).ok());
            QVERIFY(writer.finish().ok());
            break;
        }
        }
        auto report = convert::quantizeModelFile(options);
        QVERIFY(!report);
        QVERIFY(!report.message().empty());
        qInfo("%s", report.message().c_str());
        if (which != 4)
            QVERIFY(!exists(options.output));
        QVERIFY(!exists(options.output + ".part"));
        QVERIFY(exists(m_f32));
    }

    void cancellationLeavesNothing()
    {
        convert::QuantizeOptions options;
        options.input = m_f32;
        options.output = path("cancelled.gguf");
        options.type = DType::Q8_0;
        int calls = 0;
        options.progress = [&](float) { return ++calls < 3; };
        auto report = convert::quantizeModelFile(options);
        QCOMPARE(report.code(), ErrorCode::Cancelled);
        QVERIFY(!exists(options.output));
        QVERIFY(!exists(options.output + ".part"));
    }

    void commandLineTool()
    {
        const QString tool = QStringLiteral(HEARTH_BIN_DIR) + "/hearth-quantize";
        if (!QFileInfo::exists(tool))
            QSKIP("hearth-quantize is not built");
        QProcess p;
        p.start(tool, {QString::fromStdString(m_f32), QString::fromStdString(path("cli.gguf")), "q8_0", "-q"});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 0);
        auto model = Model::load(path("cli.gguf"));
        QVERIFY(model);
        QCOMPARE((*model)->info().weightType, std::string("Q8_0"));

        p.start(tool, {QString::fromStdString(m_f32), QString::fromStdString(path("cli2.gguf")), "q5_k"});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 1);
        QVERIFY(!exists(path("cli2.gguf")));
    }
};

QTEST_GUILESS_MAIN(TestQuantize)
#include "tst_quantize.moc"
