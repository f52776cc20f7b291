// SPDX-License-Identifier: MIT
// hearth-quantize: synthetic F32 and F16 models (and a PowerInfer-layout copy, built here) are
// re-encoded with every preset; each tensor's type follows llama-quantize's rules, metadata,
// magic and order are kept as llama-quantize keeps them, and logits stay within a per-preset
// bound of the unquantized model's.

#include "convert/quantize_file.h"
#include "convert/quantize_preset.h"
#include "core/fp16.h"
#include "cpu/quant.h"
#include "gguf/gguf_file.h"
#include "gguf/gguf_writer.h"
#include "logits_test_support.h"
#include "synth/synthetic_model.h"

#include <hearth/model.h>
#include <hearth/session.h>

#include <QCryptographicHash>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <cstdint>
#include <map>
#include <cstring>

using namespace hearth;
using hearth::test::promptLogits;
using hearth::test::relativeRms;

namespace {

// Every neuron, also in sparse files: the tests compare weights, and a prompt computes only
// the neurons the predictor chose for each token.
std::vector<float> logitsOf(const std::string& path)
{
    return promptLogits(path, {1, 300, 301, 280, 290, 310}, 64, -1, true);
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
    std::string m_f16Blocks; // tiny-256: rows of whole 256-weight super-blocks
    std::vector<float> m_blocksReference;

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

        options.shape = *synth::shapeByName("tiny-256");
        options.type = DType::F16;
        m_f16Blocks = path("tiny-256-f16.gguf");
        QVERIFY(synth::writeSyntheticModel(options, m_f16Blocks).ok());
        m_blocksReference = logitsOf(m_f16Blocks);
        QVERIFY(!m_blocksReference.empty());
    }

    // Every preset on a model of 256-weight rows: the type of each tensor as llama-quantize
    // chooses it, general.file_type, the order of metadata and tensors, and the logits.
    void presetsOnSuperBlockRows_data()
    {
        QTest::addColumn<int>("preset");
        QTest::addColumn<QString>("types"); // token_embd output blk.0.attn_q blk.0.attn_v blk.1.attn_v blk.0.ffn_down blk.1.ffn_down
        QTest::addColumn<int>("fileType");
        QTest::addColumn<double>("bound");
        using P = QuantizationPreset;
        // Two layers: use_more_bits(1, 2) holds (the last eighth), use_more_bits(0, 2) does not.
        // Bounds about 1.5 times the errors measured here (Q8_0 1.7e-2, Q6_K 4.4e-2, Q5_K 9e-2,
        // Q4_K 0.17, Q4_0 0.19, IQ4_XS 0.20, Q3_K_M 0.29, Q2_K 0.63, BF16 4e-3).
        QTest::newRow("Q8_0") << int(P::Q8_0) << "Q8_0 Q8_0 Q8_0 Q8_0 Q8_0 Q8_0 Q8_0" << 7 << 3e-2;
        QTest::newRow("Q6_K") << int(P::Q6_K) << "Q6_K Q6_K Q6_K Q6_K Q6_K Q6_K Q6_K" << 18 << 7e-2;
        QTest::newRow("Q5_K_M") << int(P::Q5_K_M) << "Q5_K Q6_K Q5_K Q5_K Q6_K Q5_K Q6_K" << 17 << 0.14;
        QTest::newRow("Q5_K_S") << int(P::Q5_K_S) << "Q5_K Q6_K Q5_K Q5_K Q5_K Q5_K Q5_K" << 16 << 0.14;
        QTest::newRow("Q4_K_M") << int(P::Q4_K_M) << "Q4_K Q6_K Q4_K Q4_K Q6_K Q4_K Q6_K" << 15 << 0.27;
        QTest::newRow("Q4_K_S") << int(P::Q4_K_S) << "Q4_K Q6_K Q4_K Q5_K Q5_K Q4_K Q4_K" << 14 << 0.27;
        QTest::newRow("Q4_0") << int(P::Q4_0) << "Q4_0 Q6_K Q4_0 Q4_0 Q4_0 Q4_0 Q4_0" << 2 << 0.3;
        QTest::newRow("IQ4_XS") << int(P::IQ4_XS) << "IQ4_XS Q6_K IQ4_XS IQ4_XS IQ4_XS IQ4_XS IQ4_XS" << 30 << 0.3;
        QTest::newRow("Q3_K_M") << int(P::Q3_K_M) << "Q3_K Q6_K Q3_K Q5_K Q5_K Q4_K Q4_K" << 12 << 0.45;
        QTest::newRow("Q2_K") << int(P::Q2_K) << "Q2_K Q6_K Q2_K Q3_K Q3_K Q3_K Q3_K" << 10 << 0.95;
        QTest::newRow("BF16") << int(P::BF16) << "BF16 BF16 BF16 BF16 BF16 BF16 BF16" << 32 << 1e-2;
    }

    void presetsOnSuperBlockRows()
    {
        QFETCH(int, preset);
        QFETCH(QString, types);
        QFETCH(int, fileType);
        QFETCH(double, bound);
        convert::QuantizeOptions options;
        options.input = m_f16Blocks;
        options.output = path("preset.gguf");
        options.preset = QuantizationPreset(preset);
        auto report = convert::quantizeModelFile(options);
        QVERIFY2(report, report.message().c_str());

        auto in = gguf::GgufFile::open(m_f16Blocks);
        auto out = gguf::GgufFile::open(options.output);
        QVERIFY(in && out);
        const char* names[] = {"token_embd.weight",    "output.weight",        "blk.0.attn_q.weight", "blk.0.attn_v.weight",
                               "blk.1.attn_v.weight",  "blk.0.ffn_down.weight", "blk.1.ffn_down.weight"};
        QStringList got;
        for (const char* name : names)
            got.append(QString::fromLatin1(dtypeName((*out)->findTensor(name)->type).data()));
        QCOMPARE(got.join(QLatin1Char(' ')), types);
        QCOMPARE((*out)->findTensor("output_norm.weight")->type, DType::F32);
        QCOMPARE((*out)->getInt("general.file_type").value_or(-1), fileType);
        QCOMPARE((*out)->getInt("general.quantization_version").value_or(-1), 2);

        // llama-quantize's layout: the input's metadata in its order, the version and file type
        // last; tensors by layer, then by name.
        std::vector<std::string> expectedKeys;
        for (const std::string& key : (*in)->metadataKeys()) {
            if (key != "general.file_type" && key != "general.quantization_version")
                expectedKeys.push_back(key);
        }
        expectedKeys.push_back("general.quantization_version");
        expectedKeys.push_back("general.file_type");
        QVERIFY((*out)->metadataKeys() == expectedKeys);
        QCOMPARE((*out)->tensors().front().name, std::string("output.weight"));
        QCOMPARE((*out)->tensors().back().name, std::string("blk.1.ffn_up.weight"));

        const double error = relativeRms(logitsOf(options.output), m_blocksReference);
        qInfo("%s: relative RMS error of logits against F16: %.2e", presetName(options.preset).data(), error);
        QVERIFY2(error < bound, qPrintable(QString::number(error)));
        QFile::remove(QString::fromStdString(options.output));
    }

    // The files llama-quantize wrote from the same input (data/llama_quantize_sha256.txt says
    // how), byte for byte, for every preset; 16 layers exercise use_more_bits' every-third rule.
    void presetsMatchLlamaQuantizeByteForByte()
    {
        QFile table(QStringLiteral(HEARTH_TEST_DATA_DIR "/llama_quantize_sha256.txt"));
        QVERIFY(table.open(QIODevice::ReadOnly));
        std::map<std::string, QByteArray> expected;
        while (!table.atEnd()) {
            const QByteArray line = table.readLine().trimmed();
            if (line.isEmpty() || line.startsWith('#'))
                continue;
            const QList<QByteArray> parts = line.split(' ');
            expected[parts.at(0).toStdString()] = parts.at(1);
        }
        QCOMPARE(expected.size(), std::size_t(16));

        synth::SynthOptions options;
        options.shape = *synth::shapeByName("tiny-256");
        options.shape.layerCount = 16;
        options.type = DType::F16;
        const std::string input = path("t16-f16.gguf");
        QVERIFY(synth::writeSyntheticModel(options, input).ok());
        auto sha256 = [](const std::string& file) {
            QFile f(QString::fromStdString(file));
            QCryptographicHash hash(QCryptographicHash::Sha256);
            return f.open(QIODevice::ReadOnly) && hash.addData(&f) ? hash.result().toHex() : QByteArray();
        };
        QCOMPARE(sha256(input), expected.at("input"));
        for (const auto& [name, hash] : expected) {
            if (name == "input")
                continue;
            convert::QuantizeOptions q;
            q.input = input;
            q.output = path("llama-match.gguf");
            q.preset = *presetFromName(name);
            q.verify = false;
            auto report = convert::quantizeModelFile(q);
            QVERIFY2(report, report.message().c_str());
            QVERIFY2(sha256(q.output) == hash, name.c_str());
        }
    }

    // Rows of 64 weights hold no 256-weight super-block: llama-quantize's 32-weight stand-ins.
    void presetsFallBackOnShortRows_data()
    {
        QTest::addColumn<int>("preset");
        QTest::addColumn<QString>("types"); // token_embd output blk.1.attn_v blk.0.ffn_up
        using P = QuantizationPreset;
        QTest::newRow("Q4_K_M") << int(P::Q4_K_M) << "Q5_0 Q8_0 Q8_0 Q5_0";
        QTest::newRow("Q5_K_M") << int(P::Q5_K_M) << "Q5_1 Q8_0 Q8_0 Q5_1";
        QTest::newRow("IQ4_XS") << int(P::IQ4_XS) << "IQ4_NL Q8_0 IQ4_NL IQ4_NL";
        QTest::newRow("Q2_K") << int(P::Q2_K) << "IQ4_NL Q8_0 IQ4_NL IQ4_NL";
        QTest::newRow("Q4_0") << int(P::Q4_0) << "Q4_0 Q8_0 Q4_0 Q4_0";
    }

    void presetsFallBackOnShortRows()
    {
        QFETCH(int, preset);
        QFETCH(QString, types);
        convert::QuantizeOptions options;
        options.input = m_f32;
        options.output = path("fallback.gguf");
        options.preset = QuantizationPreset(preset);
        auto report = convert::quantizeModelFile(options);
        QVERIFY2(report, report.message().c_str());
        auto out = gguf::GgufFile::open(options.output);
        QVERIFY(out);
        QStringList got;
        for (const char* name : {"token_embd.weight", "output.weight", "blk.1.attn_v.weight", "blk.0.ffn_up.weight"})
            got.append(QString::fromLatin1(dtypeName((*out)->findTensor(name)->type).data()));
        QCOMPARE(got.join(QLatin1Char(' ')), types);
        const double error = relativeRms(logitsOf(options.output), m_reference);
        QVERIFY2(error < 0.6, qPrintable(QString::number(error)));
        QFile::remove(QString::fromStdString(options.output));
    }

    // Presets without a mix: every weight matrix in one type, token_embd and output included.
    void quantizesWeightMatrices_data()
    {
        QTest::addColumn<int>("preset");
        QTest::addColumn<int>("type");
        QTest::addColumn<double>("bound");
        // Bounds about twice the errors measured on this model (f16 ~1e-3, q8_0 ~1e-2).
        QTest::newRow("f16") << int(QuantizationPreset::F16) << int(DType::F16) << 5e-3;
        QTest::newRow("q8_0") << int(QuantizationPreset::Q8_0) << int(DType::Q8_0) << 4e-2;
    }

    void quantizesWeightMatrices()
    {
        QFETCH(int, preset);
        QFETCH(int, type);
        QFETCH(double, bound);
        convert::QuantizeOptions options;
        options.input = m_f32;
        options.output = path("out.gguf");
        options.preset = QuantizationPreset(preset);
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
        options.preset = QuantizationPreset::Q4_0;
        auto report = convert::quantizeModelFile(options);
        QVERIFY2(report, report.message().c_str());
        auto out = gguf::GgufFile::open(options.output);
        QVERIFY(out);
        QCOMPARE((*out)->magic(), gguf::Magic::PowerInfer);
        QCOMPARE((*out)->getFloat("powerinfer.sparse_threshold").value_or(-1), 0.0);
        QCOMPARE((*out)->findTensor("blk.0.fc1.weight")->type, DType::F16);
        QCOMPARE((*out)->findTensor("blk.1.fc2.weight")->type, DType::F16);
        QCOMPARE((*out)->findTensor("blk.1.ffn_down_t.weight")->type, DType::Q4_0);
        QCOMPARE((*out)->findTensor("output.weight")->type, DType::Q8_0); // Q6_K's rows do not fit 64
        QVERIFY(!(*out)->findTensor("blk.1.ffn_down.weight"));
        auto model = Model::load(options.output);
        QVERIFY2(model, model.message().c_str());
        QVERIFY((*model)->info().sparse);
        const double error = relativeRms(logitsOf(options.output), sparseReference);
        qInfo("sparse layout, q4_0: relative RMS error %.2e", error);
        QVERIFY(error < 0.3);

        // Rows of 64 cannot be K-quants; Q4_K_M's fallback for them (Q5_0) is no type the sparse
        // FFN kernels read: refused.
        options.output = path("sparse-q4k.gguf");
        options.preset = QuantizationPreset::Q4_K_M;
        report = convert::quantizeModelFile(options);
        QCOMPARE(report.code(), ErrorCode::Unsupported);
        QVERIFY2(QString::fromStdString(report.message()).contains("sparse"), report.message().c_str());
        QVERIFY(!exists(options.output));
    }

    // K-quant presets on a sparse file of 256-weight rows: each layer's gate, up and
    // neuron-major down rows share the up rows' type (where Q4_K_M alone would give some down
    // rows Q6_K), the predictors stay F16, and the result loads as a sparse model.
    void sparseFileInKQuants_data()
    {
        QTest::addColumn<int>("preset");
        QTest::addColumn<int>("type");
        QTest::newRow("Q4_K_M") << int(QuantizationPreset::Q4_K_M) << int(DType::Q4_K);
        QTest::newRow("Q6_K") << int(QuantizationPreset::Q6_K) << int(DType::Q6_K);
    }

    void sparseFileInKQuants()
    {
        QFETCH(int, preset);
        QFETCH(int, type);
        const std::string dense = path("tiny-256-f32.gguf");
        const std::string sparse = path("sparse-256-f32.gguf");
        if (!exists(sparse)) {
            synth::SynthOptions o;
            o.shape = *synth::shapeByName("tiny-256");
            o.type = DType::F32;
            o.ffnActivation = "reglu";
            QVERIFY(synth::writeSyntheticModel(o, dense).ok());
            QVERIFY(writePowerInferCopy(dense, sparse).ok());
        }
        convert::QuantizeOptions options;
        options.input = sparse;
        options.output = path("sparse-256-quantized.gguf");
        options.preset = QuantizationPreset(preset);
        QFile::remove(QString::fromStdString(options.output));
        auto report = convert::quantizeModelFile(options);
        QVERIFY2(report, report.message().c_str());
        auto out = gguf::GgufFile::open(options.output);
        QVERIFY(out);
        const int layers = int((*out)->getInt("llama.block_count").value_or(0));
        QVERIFY(layers > 0);
        for (int l = 0; l < layers; ++l) {
            const std::string p = "blk." + std::to_string(l) + ".";
            for (const char* name : {"ffn_gate.weight", "ffn_up.weight", "ffn_down_t.weight"})
                QCOMPARE((*out)->findTensor(p + name)->type, DType(type));
            QCOMPARE((*out)->findTensor(p + "fc1.weight")->type, DType::F16);
        }
        auto model = Model::load(options.output);
        QVERIFY2(model, model.message().c_str());
        QVERIFY((*model)->info().sparse);
        const double error = relativeRms(logitsOf(options.output), logitsOf(sparse));
        QVERIFY2(error < 0.3, qPrintable(QString::number(error)));
    }

    void badInputsAreRejected_data()
    {
        QTest::addColumn<int>("which");
        QTest::newRow("missing input") << 0;
        QTest::newRow("garbage input") << 1;
        QTest::newRow("truncated input") << 2;
        QTest::newRow("rows no type of the preset stores") << 3;
        QTest::newRow("output is input") << 4;
        QTest::newRow("not a model") << 5;
    }

    void truncatedFilesNameTheTensorAndType()
    {
        // A Q4_K_M download cut short: refused with the tensor the cut falls in and its type
        // named (a Q6_K or Q4_K tensor), and nothing is mapped past the end.
        const std::string full = path("truncated-q4_k_m.gguf");
        convert::QuantizeOptions options;
        options.input = m_f16Blocks;
        options.output = full;
        options.preset = QuantizationPreset::Q4_K_M;
        QVERIFY(convert::quantizeModelFile(options).ok());
        auto file = gguf::GgufFile::open(full);
        QVERIFY(file.ok());
        std::vector<const gguf::TensorInfo*> byOffset;
        for (const gguf::TensorInfo& t : (*file)->tensors())
            byOffset.push_back(&t);
        std::sort(byOffset.begin(), byOffset.end(), [](auto* a, auto* b) { return a->offset < b->offset; });
        QFile bytes(QString::fromStdString(full));
        QVERIFY(bytes.open(QIODevice::ReadOnly));
        const QByteArray whole = bytes.readAll();
        bytes.close();
        for (const gguf::TensorInfo* cutIn : {byOffset.back(), byOffset[byOffset.size() / 2]}) {
            const std::string cut = path("cut.gguf");
            QFile out(QString::fromStdString(cut));
            QVERIFY(out.open(QIODevice::WriteOnly | QIODevice::Truncate));
            out.write(whole.left(qsizetype((*file)->dataOffset() + cutIn->offset + cutIn->byteSize / 2)));
            out.close();
            const auto model = Model::load(cut);
            QVERIFY(!model);
            QCOMPARE(model.code(), ErrorCode::InvalidFile);
            const std::string& why = model.message();
            QVERIFY2(why.find("'" + cutIn->name + "' (" + std::string(dtypeName(cutIn->type)) + ")") != std::string::npos,
                     why.c_str());
            QVERIFY2(why.find("truncated") != std::string::npos, why.c_str());
        }
    }

    void badInputsAreRejected()
    {
        QFETCH(int, which);
        convert::QuantizeOptions options;
        options.input = path("bad-input.gguf");
        options.output = path("bad-output.gguf");
        options.preset = QuantizationPreset::Q4_0;
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
        case 3: {
            // Rows of 48 weights: no 32-weight block either.
            gguf::GgufWriter writer;
            writer.setString("general.architecture", "llama");
            writer.addTensor("blk.0.attn_q.weight", DType::F32, {48, 48});
            QVERIFY(writer.begin(options.input).ok());
            std::vector<float> zeros(48 * 48);
            QVERIFY(writer.writeTensorData(std::as_bytes(std::span<const float>(zeros))).ok());
            QVERIFY(writer.finish().ok());
            break;
        }
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
        options.preset = QuantizationPreset::Q8_0;
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

        p.start(tool, {QString::fromStdString(m_f16Blocks), QString::fromStdString(path("cli-q4km.gguf")), "q4_k_m", "-q"});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 0);
        auto mixed = gguf::GgufFile::open(path("cli-q4km.gguf"));
        QVERIFY(mixed);
        QCOMPARE((*mixed)->getInt("general.file_type").value_or(-1), 15);

        p.start(tool, {QString::fromStdString(m_f32), QString::fromStdString(path("cli2.gguf")), "q5_k"});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 1);
        QVERIFY(!exists(path("cli2.gguf")));
    }
};

QTEST_GUILESS_MAIN(TestQuantize)
#include "tst_quantize.moc"
