// SPDX-License-Identifier: MIT
// hearth/convert.h: Hugging Face folders written here (safetensors or pytorch_model.bin, with
// PowerInfer predictors and activation statistics) are converted through the public API. The
// result must compute exactly what the same weights give when written straight into a GGUF
// file; quantized results stay close; the estimate bounds what is written; cancelled, refused
// and failed calls leave no file behind and never replace an existing one.

#include "convert/hf_to_gguf.h"
#include "convert/tokenizer_import.h"
#include "core/dtype.h"
#include "gguf/gguf_writer.h"
#include "hf_folder_writer.h"
#include "logits_test_support.h"

#include <hearth/convert.h>
#include <hearth/model.h>
#include <hearth/session.h>

#include <QDir>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <cstdint>

using namespace hearth;
using namespace hearth::test;

namespace {

const std::vector<Token> kPrompt{1, 277, 270, 263, 268, 266};

// Writes @p w (Hugging Face names) straight into a GGUF llama file of F32 tensors, the way the
// converter is documented to lay it out: GGUF names, [in, out] shapes, Q and K rows permuted to
// the interleaved rotary layout.
bool writeDirectGguf(const std::string& path, const std::string& hfFolder, const HfShape& s, const HfWeights& w)
{
    auto vocab = convert::importTokenizer(hfFolder);
    if (!vocab)
        return false;
    vocab->padTo(std::size_t(s.vocab));
    gguf::GgufWriter writer;
    writer.setString("general.architecture", "llama");
    writer.setString("general.name", "direct");
    writer.setUInt32("general.file_type", 0);
    writer.setUInt32("llama.context_length", 256);
    writer.setUInt32("llama.embedding_length", std::uint32_t(s.embd));
    writer.setUInt32("llama.block_count", std::uint32_t(s.layers));
    writer.setUInt32("llama.feed_forward_length", std::uint32_t(s.ff));
    writer.setUInt32("llama.rope.dimension_count", std::uint32_t(s.headDim()));
    writer.setFloat32("llama.rope.freq_base", 10000.0f);
    writer.setUInt32("llama.attention.head_count", std::uint32_t(s.heads));
    writer.setUInt32("llama.attention.head_count_kv", std::uint32_t(s.kvHeads));
    writer.setFloat32("llama.attention.layer_norm_rms_epsilon", 1e-5f);
    writer.setUInt32("llama.vocab_size", std::uint32_t(s.vocab));
    writer.setString("hearth.ffn_activation", "reglu");
    vocab->writeTo(writer);

    struct Entry {
        std::string name;
        std::vector<float> values;
        std::vector<std::int64_t> shape;
    };
    std::vector<Entry> entries;
    const auto add = [&](const std::string& gguf, const std::string& hf, int permuteHeads = 0) {
        const FloatTensor& t = w.at(hf);
        std::vector<float> values = t.values;
        if (permuteHeads > 0)
            values = convert::permuteForRope(values, permuteHeads, t.shape[0], t.shape[1]);
        std::vector<std::int64_t> shape = t.shape.size() == 1 ? t.shape : std::vector<std::int64_t>{t.shape[1], t.shape[0]};
        entries.push_back({gguf, std::move(values), std::move(shape)});
    };
    add("token_embd.weight", "model.embed_tokens.weight");
    for (int l = 0; l < s.layers; ++l) {
        const std::string g = "blk." + std::to_string(l) + ".";
        const std::string h = "model.layers." + std::to_string(l) + ".";
        add(g + "attn_norm.weight", h + "input_layernorm.weight");
        add(g + "attn_q.weight", h + "self_attn.q_proj.weight", s.heads);
        add(g + "attn_k.weight", h + "self_attn.k_proj.weight", s.kvHeads);
        add(g + "attn_v.weight", h + "self_attn.v_proj.weight");
        add(g + "attn_output.weight", h + "self_attn.o_proj.weight");
        add(g + "ffn_norm.weight", h + "post_attention_layernorm.weight");
        add(g + "ffn_gate.weight", h + "mlp.gate_proj.weight");
        add(g + "ffn_up.weight", h + "mlp.up_proj.weight");
        add(g + "ffn_down.weight", h + "mlp.down_proj.weight");
    }
    add("output_norm.weight", "model.norm.weight");
    add("output.weight", "lm_head.weight");
    for (const Entry& e : entries)
        writer.addTensor(e.name, DType::F32, e.shape);
    if (!writer.begin(path).ok())
        return false;
    for (const Entry& e : entries) {
        if (!writer.writeTensorData(std::as_bytes(std::span<const float>(e.values))).ok())
            return false;
    }
    return writer.finish().ok();
}

QStringList filesIn(const QString& dir)
{
    return QDir(dir).entryList(QDir::Files | QDir::Hidden, QDir::Name);
}

quint64 fileSize(const std::string& path)
{
    return quint64(QFileInfo(QString::fromStdString(path)).size());
}

std::vector<float> logitsOf(const std::string& path)
{
    return promptLogits(path, kPrompt);
}

} // namespace

class TestPublicConvert : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    HfShape m_shape;
    HfWeights m_weights;
    QString m_hf;         // safetensors folder
    QString m_hfTorch;    // the same weights as pytorch_model.bin
    QString m_predictors;
    QString m_activations;

    [[nodiscard]] QString outDir(const QString& name) const
    {
        const QString dir = m_dir.filePath(name);
        QDir().mkpath(dir);
        return dir;
    }

    [[nodiscard]] ConvertParams params(const QString& output, WeightType type = WeightType::F16) const
    {
        ConvertParams p;
        p.modelFolder = m_hf.toStdString();
        p.output = output.toStdString();
        p.type = type;
        return p;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_weights = makeHfWeights(m_shape, 1234);
        m_hf = m_dir.filePath(QStringLiteral("hf"));
        m_hfTorch = m_dir.filePath(QStringLiteral("hf-torch"));
        m_predictors = m_dir.filePath(QStringLiteral("predictors"));
        m_activations = m_dir.filePath(QStringLiteral("activations"));
        QVERIFY(writeHfModelFolder(m_hf, m_shape, m_weights));
        QVERIFY(writeHfModelFolder(m_hfTorch, m_shape, m_weights, HfFormat::PytorchBin));
        writeHfPredictorFolder(m_predictors, m_shape);
        writeHfActivationFolder(m_activations, m_shape);
    }

    void weightTypeNames()
    {
        QCOMPARE(weightTypeName(WeightType::Q4_0), std::string_view("Q4_0"));
        QCOMPARE(weightTypeFromName("q8_0"), std::optional<WeightType>(WeightType::Q8_0));
        QCOMPARE(weightTypeFromName("F16"), std::optional<WeightType>(WeightType::F16));
        QVERIFY(!weightTypeFromName("q5_k"));
        QVERIFY(!weightTypeFromName(""));
        QCOMPARE(statisticsPathFor("/a/m.gguf"), std::string("/a/m.hearth-stats.gguf"));
    }

    // F32 conversion is lossless, so the converted file and the directly written one must give
    // bit-identical logits, from safetensors and from PyTorch pickles alike.
    void convertedEqualsDirectlyWritten()
    {
        const QString dir = outDir(QStringLiteral("direct"));
        const std::string direct = (dir + QStringLiteral("/direct.gguf")).toStdString();
        QVERIFY(writeDirectGguf(direct, m_hf.toStdString(), m_shape, m_weights));
        const auto expected = logitsOf(direct);
        QCOMPARE(expected.size(), std::size_t(m_shape.vocab));

        for (const QString& folder : {m_hf, m_hfTorch}) {
            ConvertParams p = params(dir + QStringLiteral("/") + QFileInfo(folder).fileName() + QStringLiteral(".gguf"),
                                     WeightType::F32);
            p.modelFolder = folder.toStdString();
            auto report = convertModel(p);
            QVERIFY2(report.ok(), report.message().c_str());
            QCOMPARE(report->output, p.output);
            QVERIFY(!report->sparse);
            QCOMPARE(report->bytesWritten, fileSize(p.output));
            const auto actual = logitsOf(p.output);
            QCOMPARE(actual.size(), expected.size());
            for (std::size_t i = 0; i < expected.size(); ++i)
                QCOMPARE(actual[i], expected[i]);
        }
    }

    void quantizedStaysClose()
    {
        const QString dir = outDir(QStringLiteral("quantized"));
        const QString f32 = dir + QStringLiteral("/f32.gguf");
        auto base = convertModel(params(f32, WeightType::F32));
        QVERIFY2(base.ok(), base.message().c_str());
        const auto reference = logitsOf(f32.toStdString());

        // Converted straight to a type, and re-encoded from the F32 file: both stay close.
        double errors[3][2] = {};
        const WeightType types[3] = {WeightType::F16, WeightType::Q8_0, WeightType::Q4_0};
        for (int i = 0; i < 3; ++i) {
            const QString name = QString::fromLatin1(weightTypeName(types[i]).data());
            const QString converted = dir + QStringLiteral("/conv-") + name + QStringLiteral(".gguf");
            auto c = convertModel(params(converted, types[i]));
            QVERIFY2(c.ok(), c.message().c_str());
            QuantizeParams q;
            q.input = f32.toStdString();
            q.output = (dir + QStringLiteral("/quant-") + name + QStringLiteral(".gguf")).toStdString();
            q.preset = *presetFromName(weightTypeName(types[i]));
            auto estimate = estimateQuantization(q);
            QVERIFY2(estimate.ok(), estimate.message().c_str());
            auto quantized = quantizeModel(q);
            QVERIFY2(quantized.ok(), quantized.message().c_str());
            QVERIFY(estimate->outputBytes >= quantized->bytesWritten);
            QVERIFY(estimate->outputBytes < quantized->bytesWritten + (quint64(2) << 20));
            QCOMPARE(estimate->sourceFormat, std::string("gguf"));
            QCOMPARE(estimate->layerCount, m_shape.layers);
            errors[i][0] = relativeRms(logitsOf(converted.toStdString()), reference);
            errors[i][1] = relativeRms(logitsOf(q.output), reference);
        }
        qInfo("relative RMS error of logits against F32 (converted / re-encoded): f16 %.2e / %.2e, q8_0 %.2e / %.2e, "
              "q4_0 %.2e / %.2e",
              errors[0][0], errors[0][1], errors[1][0], errors[1][1], errors[2][0], errors[2][1]);
        for (int way = 0; way < 2; ++way) {
            QVERIFY2(errors[0][way] < 5e-3, qPrintable(QString::number(errors[0][way])));
            QVERIFY2(errors[1][way] < 6e-2, qPrintable(QString::number(errors[1][way])));
            QVERIFY2(errors[2][way] < 0.5, qPrintable(QString::number(errors[2][way])));
            QVERIFY(errors[1][way] < errors[2][way]);
        }
    }

    void estimateBoundsOutput_data()
    {
        QTest::addColumn<int>("type");
        QTest::addColumn<bool>("sparse");
        QTest::newRow("f16 dense") << int(WeightType::F16) << false;
        QTest::newRow("q4_0 dense") << int(WeightType::Q4_0) << false;
        QTest::newRow("f16 sparse") << int(WeightType::F16) << true;
        QTest::newRow("q8_0 sparse") << int(WeightType::Q8_0) << true;
    }

    void estimateBoundsOutput()
    {
        QFETCH(int, type);
        QFETCH(bool, sparse);
        const QString dir = outDir(QStringLiteral("estimate-%1-%2").arg(type).arg(sparse));
        ConvertParams p = params(dir + QStringLiteral("/m.gguf"), WeightType(type));
        if (sparse) {
            p.predictorFolder = m_predictors.toStdString();
            p.activationFolder = m_activations.toStdString();
        }
        auto estimate = estimateConversion(p);
        QVERIFY2(estimate.ok(), estimate.message().c_str());
        QCOMPARE(estimate->architecture, std::string("llama"));
        QCOMPARE(estimate->sourceFormat, std::string("safetensors"));
        QCOMPARE(estimate->layerCount, m_shape.layers);
        QCOMPARE(estimate->sparse, sparse);
        QVERIFY(filesIn(dir).isEmpty()); // estimating writes nothing

        auto report = convertModel(p);
        QVERIFY2(report.ok(), report.message().c_str());
        QCOMPARE(report->sparse, sparse);
        QVERIFY(estimate->outputBytes >= report->bytesWritten);
        QVERIFY(estimate->outputBytes < report->bytesWritten + (quint64(2) << 20));
        if (sparse) {
            QCOMPARE(report->statisticsOutput, statisticsPathFor(p.output));
            QVERIFY(estimate->statisticsBytes >= fileSize(report->statisticsOutput));
            auto model = Model::load(p.output);
            QVERIFY2(model.ok(), model.message().c_str());
            QVERIFY((*model)->info().sparse);
        } else {
            QCOMPARE(estimate->statisticsBytes, quint64(0));
            QVERIFY(report->statisticsOutput.empty());
        }
        QCOMPARE(filesIn(dir).size(), sparse ? 2 : 1); // no .part left over
    }

    void existingOutputIsNeverReplacedSilently()
    {
        const QString dir = outDir(QStringLiteral("existing"));
        const QString output = dir + QStringLiteral("/m.gguf");
        QVERIFY(writeFixtureFile(output, QByteArray("keep me")));
        auto refused = convertModel(params(output));
        QVERIFY(!refused.ok());
        QCOMPARE(refused.code(), ErrorCode::InvalidArgument);
        QVERIFY2(refused.message().find("already exists") != std::string::npos, refused.message().c_str());
        QFile f(output);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), QByteArray("keep me"));
        f.close();

        QuantizeParams q;
        q.input = output.toStdString();
        q.output = output.toStdString();
        QCOMPARE(quantizeModel(q).code(), ErrorCode::InvalidArgument);

        // An existing statistics file counts too.
        const QString other = dir + QStringLiteral("/n.gguf");
        QVERIFY(writeFixtureFile(QString::fromStdString(statisticsPathFor(other.toStdString())), QByteArray("stats")));
        ConvertParams withStats = params(other);
        withStats.activationFolder = m_activations.toStdString();
        QCOMPARE(convertModel(withStats).code(), ErrorCode::InvalidArgument);
        QVERIFY(!QFileInfo::exists(other));

        ConvertParams replace = params(output);
        replace.overwrite = true;
        auto replaced = convertModel(replace);
        QVERIFY2(replaced.ok(), replaced.message().c_str());
        QVERIFY(fileSize(replace.output) > 1000);
    }

    void cancelLeavesNothing_data()
    {
        QTest::addColumn<float>("at");
        QTest::newRow("while writing") << 0.3f;
        QTest::newRow("while verifying") << 0.95f;
    }

    void cancelLeavesNothing()
    {
        QFETCH(float, at);
        const QString dir = outDir(QStringLiteral("cancel-%1").arg(double(at)));
        ConvertParams p = params(dir + QStringLiteral("/m.gguf"));
        p.activationFolder = m_activations.toStdString();
        p.predictorFolder = m_predictors.toStdString();
        float last = 0;
        p.progress = [&last, at](float f) {
            last = f;
            return f < at;
        };
        auto result = convertModel(p);
        QCOMPARE(result.code(), ErrorCode::Cancelled);
        QVERIFY(last >= at);
        QCOMPARE(filesIn(dir), QStringList());

        QuantizeParams q;
        q.input = m_dir.filePath(QStringLiteral("quantized/f32.gguf")).toStdString();
        q.output = (dir + QStringLiteral("/q.gguf")).toStdString();
        q.progress = [at](float f) { return f < at; };
        if (QFileInfo::exists(QString::fromStdString(q.input))) {
            QCOMPARE(quantizeModel(q).code(), ErrorCode::Cancelled);
            QCOMPARE(filesIn(dir), QStringList());
        }
    }

    void brokenInputsAreRejected_data()
    {
        QTest::addColumn<QString>("breakage");
        QTest::addColumn<int>("code");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("no config.json") << QStringLiteral("no-config") << int(ErrorCode::IoError) << QStringLiteral("config.json");
        QTest::newRow("unsupported architecture") << QStringLiteral("gpt2") << int(ErrorCode::Unsupported)
                                                  << QStringLiteral("GPT2LMHeadModel");
        QTest::newRow("truncated safetensors") << QStringLiteral("truncated-weights") << int(ErrorCode::InvalidFile)
                                               << QStringLiteral("safetensors");
        QTest::newRow("truncated predictor") << QStringLiteral("truncated-predictor") << int(ErrorCode::InvalidFile)
                                             << QStringLiteral("model_1.pt");
        QTest::newRow("hostile pickle") << QStringLiteral("hostile-pickle") << int(ErrorCode::Unsupported)
                                        << QStringLiteral("pytorch_model.bin");
        QTest::newRow("missing predictor layer") << QStringLiteral("missing-predictor")
                                                 << int(ErrorCode::InvalidArgument) << QStringLiteral("predictors");
    }

    void brokenInputsAreRejected()
    {
        QFETCH(QString, breakage);
        QFETCH(int, code);
        QFETCH(QString, mentions);
        const QString root = outDir(QStringLiteral("broken-") + breakage);
        const QString hf = root + QStringLiteral("/hf");
        HfShape shape = m_shape;
        if (breakage == QStringLiteral("gpt2")) {
            shape.architecture = QStringLiteral("GPT2LMHeadModel");
            shape.modelType = QStringLiteral("gpt2");
        }
        QVERIFY(writeHfModelFolder(hf, shape, m_weights,
                                   breakage == QStringLiteral("hostile-pickle") ? HfFormat::PytorchBin
                                                                                : HfFormat::Safetensors));
        QString predictors;
        if (breakage == QStringLiteral("no-config")) {
            QVERIFY(QFile::remove(hf + QStringLiteral("/config.json")));
        } else if (breakage == QStringLiteral("truncated-weights")) {
            QFile f(hf + QStringLiteral("/model.safetensors"));
            QVERIFY(f.resize(f.size() / 2));
        } else if (breakage.endsWith(QStringLiteral("predictor"))) {
            predictors = root + QStringLiteral("/predictors");
            writeHfPredictorFolder(predictors, m_shape);
            QFile f(predictors + QStringLiteral("/model_1.pt"));
            if (breakage == QStringLiteral("missing-predictor"))
                QVERIFY(f.remove());
            else
                QVERIFY(f.resize(f.size() - 300));
        } else if (breakage == QStringLiteral("hostile-pickle")) {
            // A pickle that would run os.system under Python's unpickler.
            PickleWriter p;
            p.proto(2).global("os", "system").mark().str("touch " + (root + QStringLiteral("/pwned")).toStdString());
            p.tuple().reduce().stop();
            QVERIFY(writeFixtureFile(hf + QStringLiteral("/pytorch_model.bin"),
                                     writeZip({{"archive/data.pkl", p.bytes()},
                                               {"archive/version", Bytes{std::byte{'3'}, std::byte{'\n'}}}})));
        }
        const QString out = outDir(QStringLiteral("broken-out-") + breakage);
        ConvertParams p = params(out + QStringLiteral("/m.gguf"));
        p.modelFolder = hf.toStdString();
        p.predictorFolder = predictors.toStdString();

        auto estimate = estimateConversion(p);
        QVERIFY(!estimate.ok());
        auto result = convertModel(p);
        QVERIFY(!result.ok());
        qInfo("%s: %s", qPrintable(breakage), result.message().c_str());
        QCOMPARE(int(result.code()), code);
        QVERIFY2(QString::fromStdString(result.message()).contains(mentions), result.message().c_str());
        QCOMPARE(estimate.message(), result.message());
        QCOMPARE(filesIn(out), QStringList());
        QVERIFY(!QFileInfo::exists(root + QStringLiteral("/pwned")));
    }
};

QTEST_GUILESS_MAIN(TestPublicConvert)
#include "tst_public_convert.moc"
