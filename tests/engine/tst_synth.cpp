// SPDX-License-Identifier: MIT
// The synthetic model generator: deterministic bytes, llama.cpp-compatible metadata, weights
// at sane scales, and files the engine itself loads and runs.

#include "cpu/quant.h"
#include "gguf/gguf_file.h"
#include "sparse/activation_profile.h"
#include "synth/synthetic_families.h"
#include "synth/synthetic_model.h"
#include "synth/synthetic_sparse.h"
#include "synth/synthetic_vocab.h"

#include <hearth/hearth.h>

#include <QCryptographicHash>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <set>
#include <vector>

using namespace hearth;

namespace {

synth::SynthOptions tinyOptions(DType type, std::uint64_t seed = 42)
{
    synth::SynthOptions options;
    options.shape = *synth::shapeByName("tiny");
    options.type = type;
    options.seed = seed;
    return options;
}

QByteArray fileHash(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    QCryptographicHash hash(QCryptographicHash::Sha256);
    hash.addData(&file);
    return hash.result();
}

std::vector<float> dequantizedRow(const gguf::TensorInfo& t, std::int64_t row)
{
    std::vector<float> out(static_cast<std::size_t>(t.rowLength()));
    const std::size_t bytes = rowBytes(t.type, t.rowLength());
    cpu::dequantizeRow(t.type, t.data + static_cast<std::size_t>(row) * bytes, out.data(), t.rowLength());
    return out;
}

} // namespace

class TestSynth : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void sameOptionsGiveIdenticalFiles_data();
    void sameOptionsGiveIdenticalFiles();
    void differentSeedsGiveDifferentWeights();
    void metadataLooksLikeLlamaCpp();
    void vocabularyHasSpecialsBytesAndPieces();
    void weightsHaveTheIntendedScale();
    void quantizedTypesStayCloseToFloat();
    void invalidOptionsAreRejected();
    void missingFolderIsAClearError();
    void tokenizerRoundTripsText();
    void modelLoadsAndQuantizedLogitsStayClose();
    void generationRuns();
    void everyActivationLoads_data();
    void everyActivationLoads();
    void chatTemplateRenders();
    void familySparseFiles_data();
    void familySparseFiles();
    void familySparseNeedsRelu();
};

void TestSynth::sameOptionsGiveIdenticalFiles_data()
{
    QTest::addColumn<int>("type");
    QTest::newRow("f32") << static_cast<int>(DType::F32);
    QTest::newRow("f16") << static_cast<int>(DType::F16);
    QTest::newRow("q8_0") << static_cast<int>(DType::Q8_0);
    QTest::newRow("q4_0") << static_cast<int>(DType::Q4_0);
}

void TestSynth::sameOptionsGiveIdenticalFiles()
{
    QFETCH(int, type);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const auto options = tinyOptions(static_cast<DType>(type));
    const QString a = dir.filePath("a.gguf");
    const QString b = dir.filePath("b.gguf");
    const Status sa = synth::writeSyntheticModel(options, a.toStdString());
    QVERIFY2(sa.ok(), sa.message().c_str());
    const Status sb = synth::writeSyntheticModel(options, b.toStdString());
    QVERIFY2(sb.ok(), sb.message().c_str());
    QVERIFY(!fileHash(a).isEmpty());
    QCOMPARE(fileHash(a), fileHash(b));
    // The file size estimate used for the free-space check is an upper bound.
    QVERIFY(static_cast<std::uint64_t>(QFileInfo(a).size()) <= synth::estimatedFileSize(options));
    QVERIFY(!QFile::exists(a + ".part"));
}

void TestSynth::differentSeedsGiveDifferentWeights()
{
    QTemporaryDir dir;
    const QString a = dir.filePath("a.gguf");
    const QString b = dir.filePath("b.gguf");
    QVERIFY(synth::writeSyntheticModel(tinyOptions(DType::F32, 1), a.toStdString()).ok());
    QVERIFY(synth::writeSyntheticModel(tinyOptions(DType::F32, 2), b.toStdString()).ok());
    auto fa = gguf::GgufFile::open(a.toStdString());
    auto fb = gguf::GgufFile::open(b.toStdString());
    QVERIFY(fa && fb);
    const auto* ta = (*fa)->findTensor("blk.0.ffn_up.weight");
    const auto* tb = (*fb)->findTensor("blk.0.ffn_up.weight");
    QVERIFY(ta && tb);
    QCOMPARE(ta->byteSize, tb->byteSize);
    QVERIFY(std::memcmp(ta->data, tb->data, ta->byteSize) != 0);
}

void TestSynth::metadataLooksLikeLlamaCpp()
{
    QTemporaryDir dir;
    const QString path = dir.filePath("m.gguf");
    auto options = tinyOptions(DType::Q8_0);
    options.ffnActivation = "reglu";
    QVERIFY(synth::writeSyntheticModel(options, path.toStdString()).ok());
    auto file = gguf::GgufFile::open(path.toStdString());
    QVERIFY2(file, file.message().c_str());
    const gguf::GgufFile& f = **file;
    const synth::ModelShape& s = options.shape;

    QCOMPARE(f.getString("general.architecture").value_or(""), std::string("llama"));
    QCOMPARE(f.getInt("general.file_type").value_or(-1), 7); // MOSTLY_Q8_0
    QCOMPARE(f.getInt("llama.embedding_length").value_or(0), s.embeddingSize);
    QCOMPARE(f.getInt("llama.feed_forward_length").value_or(0), s.feedForwardSize);
    QCOMPARE(f.getInt("llama.block_count").value_or(0), s.layerCount);
    QCOMPARE(f.getInt("llama.attention.head_count").value_or(0), s.headCount);
    QCOMPARE(f.getInt("llama.attention.head_count_kv").value_or(0), s.kvHeadCount);
    QCOMPARE(f.getInt("llama.context_length").value_or(0), s.contextLength);
    QCOMPARE(f.getInt("llama.rope.dimension_count").value_or(0), s.embeddingSize / s.headCount);
    QVERIFY(std::abs(f.getFloat("llama.attention.layer_norm_rms_epsilon").value_or(0) - 1e-5) < 1e-9);
    QCOMPARE(f.getString("hearth.ffn_activation").value_or(""), std::string("reglu"));
    QCOMPARE(f.getString("tokenizer.ggml.model").value_or(""), std::string("llama"));
    QCOMPARE(f.getInt("tokenizer.ggml.bos_token_id").value_or(-1), 1);
    QCOMPARE(f.getInt("tokenizer.ggml.eos_token_id").value_or(-1), 2);
    QVERIFY(!f.getString("tokenizer.chat_template").value_or("").empty());

    // 1 embedding + 9 per layer + output norm + output.
    QCOMPARE(f.tensors().size(), static_cast<std::size_t>(3 + 9 * s.layerCount));
    const auto* embd = f.findTensor("token_embd.weight");
    QVERIFY(embd);
    QCOMPARE(embd->type, DType::Q8_0);
    QCOMPARE(embd->shape, (std::vector<std::int64_t>{s.embeddingSize, s.vocabSize}));
    const auto* k = f.findTensor("blk.1.attn_k.weight");
    QVERIFY(k);
    QCOMPARE(k->shape, (std::vector<std::int64_t>{s.embeddingSize, s.kvEmbeddingSize()}));
    const auto* down = f.findTensor("blk.1.ffn_down.weight");
    QVERIFY(down);
    QCOMPARE(down->shape, (std::vector<std::int64_t>{s.feedForwardSize, s.embeddingSize}));
    const auto* norm = f.findTensor("blk.0.attn_norm.weight");
    QVERIFY(norm);
    QCOMPARE(norm->type, DType::F32); // norms stay F32 whatever the weight type
    QVERIFY(f.findTensor("output.weight"));
    QVERIFY(f.findTensor("output_norm.weight"));
}

void TestSynth::vocabularyHasSpecialsBytesAndPieces()
{
    const auto vocab = synth::SyntheticVocab::build(32000);
    QCOMPARE(vocab.tokens.size(), std::size_t(32000));
    QCOMPARE(vocab.scores.size(), vocab.tokens.size());
    QCOMPARE(vocab.types.size(), vocab.tokens.size());
    QCOMPARE(vocab.tokens[0], std::string("<unk>"));
    QCOMPARE(vocab.tokens[1], std::string("<s>"));
    QCOMPARE(vocab.tokens[2], std::string("</s>"));
    QCOMPARE(vocab.tokens[3], std::string("<0x00>"));
    QCOMPARE(vocab.tokens[3 + 255], std::string("<0xFF>"));
    QCOMPARE(vocab.types[3 + 10], static_cast<std::int32_t>(synth::TokenType::Byte));
    QCOMPARE(vocab.tokens[259], std::string("\xE2\x96\x81"));
    // Unique pieces, and every multi-character piece can be merged from two earlier ones.
    std::set<std::string> seen;
    for (std::size_t i = 259; i < vocab.tokens.size(); ++i) {
        const std::string& piece = vocab.tokens[i];
        QVERIFY2(seen.insert(piece).second, piece.c_str());
        if (i > 259)
            QVERIFY(vocab.scores[i] < vocab.scores[i - 1]);
    }
    QVERIFY(seen.count("\xE2\x96\x81the"));
    QVERIFY(seen.count("th") && seen.count("\xE2\x96\x81th"));
    // Small vocabularies are prefixes of large ones, so tiny models tokenize like large ones.
    const auto small = synth::SyntheticVocab::build(320);
    QCOMPARE(small.tokens.size(), std::size_t(320));
    QVERIFY(std::equal(small.tokens.begin(), small.tokens.end(), vocab.tokens.begin()));
}

void TestSynth::weightsHaveTheIntendedScale()
{
    QTemporaryDir dir;
    const QString path = dir.filePath("m.gguf");
    const auto options = tinyOptions(DType::F32);
    QVERIFY(synth::writeSyntheticModel(options, path.toStdString()).ok());
    auto file = gguf::GgufFile::open(path.toStdString());
    QVERIFY(file);

    auto stats = [](const gguf::TensorInfo& t) {
        const float* v = reinterpret_cast<const float*>(t.data);
        const std::int64_t n = t.elementCount();
        double sum = 0, sumSq = 0;
        for (std::int64_t i = 0; i < n; ++i) {
            sum += v[i];
            sumSq += double(v[i]) * v[i];
        }
        const double mean = sum / n;
        return std::pair{mean, std::sqrt(sumSq / n - mean * mean)};
    };
    const auto [upMean, upStd] = stats(*(*file)->findTensor("blk.0.ffn_up.weight"));
    QVERIFY(std::abs(upMean) < 0.01);
    QVERIFY(std::abs(upStd - 1.0 / std::sqrt(options.shape.embeddingSize)) < 0.01);
    const auto [downMean, downStd] = stats(*(*file)->findTensor("blk.1.ffn_down.weight"));
    QVERIFY(std::abs(downMean) < 0.01);
    QVERIFY(std::abs(downStd - 1.0 / std::sqrt(options.shape.feedForwardSize)) < 0.01);
    const auto [normMean, normStd] = stats(*(*file)->findTensor("output_norm.weight"));
    QVERIFY(std::abs(normMean - 1.0) < 0.05);
    QVERIFY(normStd < 0.1);
}

void TestSynth::quantizedTypesStayCloseToFloat()
{
    QTemporaryDir dir;
    const QString f32 = dir.filePath("f32.gguf");
    const QString q8 = dir.filePath("q8.gguf");
    QVERIFY(synth::writeSyntheticModel(tinyOptions(DType::F32), f32.toStdString()).ok());
    QVERIFY(synth::writeSyntheticModel(tinyOptions(DType::Q8_0), q8.toStdString()).ok());
    auto a = gguf::GgufFile::open(f32.toStdString());
    auto b = gguf::GgufFile::open(q8.toStdString());
    QVERIFY(a && b);
    // Same seed, same values before quantization: Q8_0 rows are the F32 rows to within a step.
    const auto* ta = (*a)->findTensor("blk.1.attn_q.weight");
    const auto* tb = (*b)->findTensor("blk.1.attn_q.weight");
    QVERIFY(ta && tb);
    QCOMPARE(tb->type, DType::Q8_0);
    for (std::int64_t row : {0, 17, 63}) {
        const auto x = dequantizedRow(*ta, row);
        const auto y = dequantizedRow(*tb, row);
        for (std::size_t i = 0; i < x.size(); ++i)
            QVERIFY(std::abs(x[i] - y[i]) < 0.01f);
    }
}

void TestSynth::invalidOptionsAreRejected()
{
    QTemporaryDir dir;
    auto options = tinyOptions(DType::F16);
    options.ffnActivation = "gelu";
    QCOMPARE(synth::writeSyntheticModel(options, dir.filePath("a.gguf").toStdString()).code(), ErrorCode::InvalidArgument);
    options = tinyOptions(DType::Q8_1); // known by size, never a weight type
    QCOMPARE(synth::writeSyntheticModel(options, dir.filePath("a.gguf").toStdString()).code(), ErrorCode::InvalidArgument);
    options = tinyOptions(DType::Q4_K); // rows of 64: no whole 256-weight super-block
    QCOMPARE(synth::writeSyntheticModel(options, dir.filePath("a.gguf").toStdString()).code(), ErrorCode::InvalidArgument);
    options = tinyOptions(DType::F16);
    options.shape.vocabSize = 100; // no room for the byte tokens
    QCOMPARE(synth::writeSyntheticModel(options, dir.filePath("a.gguf").toStdString()).code(), ErrorCode::InvalidArgument);
    options = tinyOptions(DType::F16);
    options.shape.headCount = 5;
    QCOMPARE(synth::validateOptions(options).code(), ErrorCode::InvalidArgument);
    QVERIFY(!synth::shapeByName("gpt-5"));
    QVERIFY(!synth::parseWeightType("q5_k_m")); // a preset, not a type
    QCOMPARE(*synth::parseWeightType("Q5_K"), DType::Q5_K);
    QCOMPARE(*synth::parseWeightType("Q4_0"), DType::Q4_0);
    QVERIFY(!QFile::exists(dir.filePath("a.gguf")));
}

void TestSynth::missingFolderIsAClearError()
{
    QTemporaryDir dir;
    const std::string path = dir.filePath("no/such/folder/m.gguf").toStdString();
    const Status s = synth::writeSyntheticModel(tinyOptions(DType::F16), path);
    QCOMPARE(s.code(), ErrorCode::IoError);
    QVERIFY2(s.message().find("no/such/folder") != std::string::npos, s.message().c_str());
}

void TestSynth::tokenizerRoundTripsText()
{
    QTemporaryDir dir;
    const QString path = dir.filePath("m.gguf");
    QVERIFY(synth::writeSyntheticModel(tinyOptions(DType::F16), path.toStdString()).ok());
    auto model = Model::load(path.toStdString());
    QVERIFY2(model, model.message().c_str());
    const Tokenizer& tokenizer = (*model)->tokenizer();
    QCOMPARE(tokenizer.vocabSize(), 320);
    QCOMPARE(tokenizer.bos(), 1);
    QCOMPARE(tokenizer.eos(), 2);
    const std::string text = "Hello world, caf\xC3\xA9 42!";
    const std::vector<Token> tokens = tokenizer.encode(text, true, false);
    QVERIFY(!tokens.empty());
    QCOMPARE(tokens.front(), 1);
    const std::string decoded = tokenizer.decode(std::span<const Token>(tokens).subspan(1));
    // SentencePiece marks the first word with a space too; a tokenizer may keep it when decoding.
    QVERIFY2(decoded == text || decoded == " " + text, decoded.c_str());
}

void TestSynth::modelLoadsAndQuantizedLogitsStayClose()
{
    QTemporaryDir dir;
    const QString f32 = dir.filePath("f32.gguf");
    const QString q8 = dir.filePath("q8.gguf");
    QVERIFY(synth::writeSyntheticModel(tinyOptions(DType::F32), f32.toStdString()).ok());
    QVERIFY(synth::writeSyntheticModel(tinyOptions(DType::Q8_0), q8.toStdString()).ok());

    std::vector<std::vector<float>> logits;
    for (const QString& path : {f32, q8}) {
        auto model = Model::load(path.toStdString());
        QVERIFY2(model, model.message().c_str());
        const ModelInfo& info = (*model)->info();
        QCOMPARE(info.architecture, std::string("llama"));
        QCOMPARE(info.layerCount, 2);
        QCOMPARE(info.embeddingSize, 64);
        QCOMPARE(info.kvHeadCount, 2);
        QCOMPARE(info.vocabSize, 320);
        auto session = Session::create(*model, SessionParams{64, 1, 32});
        QVERIFY2(session, session.message().c_str());
        const std::vector<Token> prompt = (*model)->tokenizer().encode("once upon a time", true, false);
        const Status s = (*session)->prefill(prompt);
        QVERIFY2(s.ok(), s.message().c_str());
        const auto l = (*session)->logits();
        QCOMPARE(l.size(), std::size_t(320));
        logits.emplace_back(l.begin(), l.end());
    }
    double maxDiff = 0, maxAbs = 0;
    for (std::size_t i = 0; i < logits[0].size(); ++i) {
        QVERIFY(std::isfinite(logits[0][i]) && std::isfinite(logits[1][i]));
        maxDiff = std::max(maxDiff, double(std::abs(logits[0][i] - logits[1][i])));
        maxAbs = std::max(maxAbs, double(std::abs(logits[0][i])));
    }
    // Logits of unit scale: activations stayed sane through the layers.
    QVERIFY2(maxAbs > 0.1 && maxAbs < 20, qPrintable(QString::number(maxAbs)));
    QVERIFY2(maxDiff < 0.1, qPrintable(QString::number(maxDiff)));
}

void TestSynth::generationRuns()
{
    QTemporaryDir dir;
    const QString path = dir.filePath("m.gguf");
    QVERIFY(synth::writeSyntheticModel(tinyOptions(DType::Q4_0), path.toStdString()).ok());
    auto model = Model::load(path.toStdString());
    QVERIFY2(model, model.message().c_str());
    auto session = Session::create(*model, SessionParams{128, 1, 32});
    QVERIFY2(session, session.message().c_str());
    Sampler sampler(SamplingParams::greedy());
    const std::vector<Token> prompt = (*model)->tokenizer().encode("the", true, false);
    int callbacks = 0;
    auto stats = (*session)->generate(prompt, sampler, 16, [&](Token t, const std::string&) {
        ++callbacks;
        return t >= 0 && t < 320;
    });
    QVERIFY2(stats, stats.message().c_str());
    QVERIFY(stats->generatedTokens > 0);
    QVERIFY(callbacks > 0);
    QVERIFY((*session)->position() >= static_cast<int>(prompt.size()));
}

void TestSynth::everyActivationLoads_data()
{
    QTest::addColumn<QString>("activation");
    for (const char* a : {"swiglu", "reglu", "drelu", "relu2"})
        QTest::newRow(a) << QString::fromLatin1(a);
}

void TestSynth::everyActivationLoads()
{
    QFETCH(QString, activation);
    QTemporaryDir dir;
    const QString path = dir.filePath("m.gguf");
    auto options = tinyOptions(DType::F16);
    options.ffnActivation = activation.toStdString();
    QVERIFY(synth::writeSyntheticModel(options, path.toStdString()).ok());
    auto model = Model::load(path.toStdString());
    QVERIFY2(model, model.message().c_str());
    QCOMPARE((*model)->info().ffnActivation, activation.toStdString());
    QCOMPARE((*model)->info().weightType, std::string("F16"));
}

void TestSynth::chatTemplateRenders()
{
    QTemporaryDir dir;
    const QString path = dir.filePath("m.gguf");
    QVERIFY(synth::writeSyntheticModel(tinyOptions(DType::Q8_0), path.toStdString()).ok());
    auto model = Model::load(path.toStdString());
    QVERIFY2(model, model.message().c_str());
    const ChatTemplate chatTemplate = ChatTemplate::forModel(**model);
    QCOMPARE(chatTemplate.name(), std::string("jinja")); // the file's own template, not a fallback
    const std::vector<ChatMessage> messages{{"system", "Be brief."}, {"user", "Hi"}};
    auto text = chatTemplate.apply(messages, true);
    QVERIFY2(text, text.message().c_str());
    QCOMPARE(*text, std::string("<|system|>\nBe brief.</s>\n<|user|>\nHi</s>\n<|assistant|>\n"));
}

void TestSynth::familySparseFiles_data()
{
    QTest::addColumn<QString>("arch");
    QTest::newRow("falcon") << QStringLiteral("falcon");
    QTest::newRow("opt") << QStringLiteral("opt");
}

// Falcon and opt sparse files: deterministic, statistics with the chosen mean sparsity in both
// layouts, and the two layouts compute the same function (the Hearth file reorders the neurons).
void TestSynth::familySparseFiles()
{
    QFETCH(QString, arch);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    synth::SynthOptions o;
    o.architecture = arch.toStdString();
    o.shape = *synth::shapeByName(o.architecture, o.architecture + "-tiny");
    o.type = DType::F32;
    o.ffnActivation = "relu";
    synth::SparseSynthOptions s;
    s.sparsity = 0.9;
    s.predictorHidden = 32;
    const QString a = dir.filePath("a.gguf");
    const QString b = dir.filePath("b.gguf");
    const QString fused = dir.filePath("fused.gguf");
    QVERIFY(synth::writeSparseSyntheticModel(o, s, a.toStdString()).ok());
    QVERIFY(synth::writeSparseSyntheticModel(o, s, b.toStdString()).ok());
    QCOMPARE(fileHash(a), fileHash(b));
    QVERIFY(!QFile::exists(a + ".part"));
    s.layout = synth::SparseLayout::Hearth;
    QVERIFY(synth::writeSparseSyntheticModel(o, s, fused.toStdString()).ok());

    for (const QString& path : {a, fused}) {
        auto stats = sparse::loadStatsFile(sparse::defaultStatsPath(path.toStdString()));
        QVERIFY2(stats, stats.message().c_str());
        QCOMPARE(int(stats->layerCount()), o.shape.layerCount);
        for (std::size_t l = 0; l < stats->layerCount(); ++l) {
            const auto freq = stats->layer(l);
            QCOMPARE(int(freq.size()), o.shape.feedForwardSize);
            double mean = 0;
            for (float f : freq)
                mean += f;
            QVERIFY2(std::fabs(mean / double(freq.size()) - 0.1) < 0.01, qPrintable(QString::number(mean)));
        }
    }

    std::vector<std::vector<float>> logits;
    for (const QString& path : {a, fused}) {
        auto model = Model::load(path.toStdString());
        QVERIFY2(model, model.message().c_str());
        QVERIFY((*model)->info().sparse);
        SessionParams params;
        params.contextLength = 32;
        params.threads = 1;
        auto session = Session::create(*model, params);
        QVERIFY2(session, session.message().c_str());
        std::vector<float> all;
        QVERIFY((*session)->evaluateAll(std::vector<Token>{11, 40, 300, 7}, all).ok());
        logits.push_back(all);
    }
    QCOMPARE(logits[0].size(), logits[1].size());
    for (std::size_t i = 0; i < logits[0].size(); ++i)
        QVERIFY2(std::fabs(logits[0][i] - logits[1][i]) < 1e-3f, qPrintable(QString::number(i)));
}

void TestSynth::familySparseNeedsRelu()
{
    QTemporaryDir dir;
    synth::SynthOptions o;
    o.architecture = "falcon";
    o.shape = *synth::shapeByName("falcon", "falcon-tiny");
    o.ffnActivation = "gelu";
    const Status st = synth::writeSparseSyntheticModel(o, {}, dir.filePath("m.gguf").toStdString());
    QCOMPARE(st.code(), ErrorCode::InvalidArgument);
    QVERIFY(!QFile::exists(dir.filePath("m.gguf")));
}

QTEST_GUILESS_MAIN(TestSynth)
#include "tst_synth.moc"
