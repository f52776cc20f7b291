// SPDX-License-Identifier: MIT
// safetensors reader: files written byte by byte here, multi-shard indexes, hostile headers.

#include "convert/json_value.h"
#include "convert/safetensors_file.h"
#include "convert/safetensors_index.h"
#include "core/fp16.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

using namespace hearth;
using namespace hearth::convert;

namespace {

using Bytes = std::vector<std::byte>;

template <typename T>
void appendValues(Bytes& out, const std::vector<T>& values)
{
    const auto* p = reinterpret_cast<const std::byte*>(values.data());
    out.insert(out.end(), p, p + values.size() * sizeof(T));
}

// A file from a header text and a data section, the header padded to 8 bytes like the writer does.
Bytes makeFile(std::string header, const Bytes& data, bool pad = true)
{
    while (pad && header.size() % 8 != 0) {
        header += ' ';
    }
    Bytes out;
    for (int i = 0; i < 8; ++i) {
        out.push_back(static_cast<std::byte>((static_cast<std::uint64_t>(header.size()) >> (8 * i)) & 0xffu));
    }
    for (const char c : header) {
        out.push_back(static_cast<std::byte>(c));
    }
    out.insert(out.end(), data.begin(), data.end());
    return out;
}

bool writeFile(const QString& path, const Bytes& bytes)
{
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        return false;
    }
    return file.write(reinterpret_cast<const char*>(bytes.data()), static_cast<qint64>(bytes.size()))
        == static_cast<qint64>(bytes.size());
}

bool writeText(const QString& path, const std::string& text)
{
    return writeFile(path, Bytes(reinterpret_cast<const std::byte*>(text.data()),
                                 reinterpret_cast<const std::byte*>(text.data()) + text.size()));
}

// Six tensors of every commonly used type.
Bytes sampleFile()
{
    Bytes data;
    appendValues(data, std::vector<float>{1.0f, -2.0f, 3.5f, 0.25f, 8.0f, -0.5f}); // 0..24 a F32 [2,3]
    appendValues(data, std::vector<std::uint16_t>{floatToHalf(1.5f), floatToHalf(-3.0f), floatToHalf(0.0f),
                                                  floatToHalf(65504.0f)}); // 24..32 b F16 [4]
    appendValues(data, std::vector<std::uint16_t>{0x3f80, 0xc040}); // 32..36 c BF16 [2]: 1, -3
    appendValues(data, std::vector<std::int64_t>{-7, 0, 1LL << 33}); // 36..60 d I64 [3]
    appendValues(data, std::vector<std::uint8_t>{0, 200, 255}); // 60..63 e U8 [3]
    appendValues(data, std::vector<std::uint8_t>{1, 0}); // 63..65 f BOOL [2]
    appendValues(data, std::vector<std::int32_t>{-9}); // 65..69 g I32 [1]
    const std::string header = R"({"__metadata__":{"format":"pt"},)"
                               R"("b":{"dtype":"F16","shape":[4],"data_offsets":[24,32]},)"
                               R"("a":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]},)"
                               R"("c":{"dtype":"BF16","shape":[2],"data_offsets":[32,36]},)"
                               R"("d":{"dtype":"I64","shape":[3],"data_offsets":[36,60]},)"
                               R"("e":{"dtype":"U8","shape":[3],"data_offsets":[60,63]},)"
                               R"("f":{"dtype":"BOOL","shape":[2],"data_offsets":[63,65]},)"
                               R"("g":{"dtype":"I32","shape":[1],"data_offsets":[65,69]},)"
                               R"("empty":{"dtype":"F32","shape":[0,4],"data_offsets":[24,24]}})";
    return makeFile(header, data);
}

std::string shardHeader(const std::string& name, std::size_t floats)
{
    return "{\"" + name + "\":{\"dtype\":\"F32\",\"shape\":[" + std::to_string(floats) + "],\"data_offsets\":[0,"
        + std::to_string(floats * 4) + "]}}";
}

} // namespace

class TestSafetensors : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void roundTrip()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("model.safetensors"));
        QVERIFY(writeFile(path, sampleFile()));
        auto file = SafetensorsFile::open(path.toStdString());
        QVERIFY2(file.ok(), file.message().c_str());
        QCOMPARE(file->tensors().size(), std::size_t{8});
        QCOMPARE(file->tensors().front().name, std::string("a")); // ordered by data offset

        const SafetensorsTensor* a = file->find("a");
        QVERIFY(a != nullptr);
        QCOMPARE(a->dtype, ElementType::F32);
        QCOMPARE(a->shape, (std::vector<std::int64_t>{2, 3}));
        QCOMPARE(a->toFloat(), (std::vector<float>{1.0f, -2.0f, 3.5f, 0.25f, 8.0f, -0.5f}));
        QCOMPARE(file->find("b")->toFloat(), (std::vector<float>{1.5f, -3.0f, 0.0f, 65504.0f}));
        QCOMPARE(file->find("c")->dtype, ElementType::BF16);
        QCOMPARE(file->find("c")->toFloat(), (std::vector<float>{1.0f, -3.0f}));
        QCOMPARE(file->find("d")->toFloat(), (std::vector<float>{-7.0f, 0.0f, 8589934592.0f}));
        QCOMPARE(file->find("e")->toFloat(), (std::vector<float>{0.0f, 200.0f, 255.0f}));
        QCOMPARE(file->find("f")->dtype, ElementType::Bool);
        QCOMPARE(file->find("f")->toFloat(), (std::vector<float>{1.0f, 0.0f}));
        QCOMPARE(file->find("g")->toFloat(), std::vector<float>{-9.0f});
        QCOMPARE(file->find("empty")->elementCount(), std::int64_t{0});
        QVERIFY(file->find("__metadata__") == nullptr);
        QVERIFY(file->find("missing") == nullptr);
        QCOMPARE(ggufType(ElementType::BF16), std::optional<DType>(DType::BF16));
    }

    void shardedIndex()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        Bytes data1;
        appendValues(data1, std::vector<float>{1, 2, 3});
        Bytes data2;
        appendValues(data2, std::vector<float>{4, 5});
        QVERIFY(writeFile(dir.filePath(QStringLiteral("model-00001-of-00002.safetensors")),
                          makeFile(shardHeader("embed.weight", 3), data1)));
        QVERIFY(writeFile(dir.filePath(QStringLiteral("model-00002-of-00002.safetensors")),
                          makeFile(shardHeader("lm_head.weight", 2), data2)));
        QVERIFY(writeText(dir.filePath(QStringLiteral("model.safetensors.index.json")),
                          R"({"metadata":{"total_size":20},"weight_map":{)"
                          R"("lm_head.weight":"model-00002-of-00002.safetensors",)"
                          R"("embed.weight":"model-00001-of-00002.safetensors"}})"));
        auto index = SafetensorsIndex::openFolder(dir.path().toStdString());
        QVERIFY2(index.ok(), index.message().c_str());
        QCOMPARE(index->shards().size(), std::size_t{2});
        QCOMPARE(index->names(), (std::vector<std::string>{"lm_head.weight", "embed.weight"}));
        SafetensorsIndex copy = *index; // lookups survive copies
        QCOMPARE(copy.find("embed.weight")->toFloat(), (std::vector<float>{1, 2, 3}));
        QCOMPARE(copy.find("lm_head.weight")->toFloat(), (std::vector<float>{4, 5}));
        QVERIFY(copy.find("nothing") == nullptr);

        // A tensor the index promises but the shard lacks.
        QVERIFY(writeText(dir.filePath(QStringLiteral("model.safetensors.index.json")),
                          R"({"weight_map":{"ghost":"model-00001-of-00002.safetensors"}})"));
        auto missing = SafetensorsIndex::openFolder(dir.path().toStdString());
        QVERIFY(!missing.ok());
        QVERIFY2(missing.message().find("ghost") != std::string::npos, missing.message().c_str());

        // Shard names that reach outside the folder.
        for (const char* shard : {"../model-00001-of-00002.safetensors", "/etc/passwd", "..", ""}) {
            QVERIFY(writeText(dir.filePath(QStringLiteral("model.safetensors.index.json")),
                              std::string(R"({"weight_map":{"x":")") + shard + "\"}}"));
            auto escaped = SafetensorsIndex::openFolder(dir.path().toStdString());
            QVERIFY(!escaped.ok());
            QVERIFY2(escaped.message().find("not a file name") != std::string::npos, escaped.message().c_str());
        }
        QVERIFY(writeText(dir.filePath(QStringLiteral("model.safetensors.index.json")), R"({"weight_map":[]})"));
        QVERIFY(!SafetensorsIndex::openFolder(dir.path().toStdString()).ok());
    }

    void singleFileFolder()
    {
        QTemporaryDir dir;
        QVERIFY(writeFile(dir.filePath(QStringLiteral("model.safetensors")), sampleFile()));
        auto index = SafetensorsIndex::openFolder(dir.path().toStdString());
        QVERIFY2(index.ok(), index.message().c_str());
        QCOMPARE(index->names().size(), std::size_t{8});
        QCOMPARE(index->find("g")->toFloat(), std::vector<float>{-9.0f});
        QVERIFY(!SafetensorsIndex::openFolder(dir.filePath(QStringLiteral("absent")).toStdString()).ok());
    }

    void hostileHeader_data()
    {
        QTest::addColumn<QString>("header");
        QTest::addColumn<int>("dataBytes");
        QTest::addColumn<QString>("message");
        const auto row = [](const char* name, const char* header, int dataBytes, const char* message) {
            QTest::newRow(name) << QString::fromUtf8(header) << dataBytes << QString::fromUtf8(message);
        };
        row("offsets overlap",
            R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})",
            12, "overlap");
        row("same range twice",
            R"({"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]},"b":{"dtype":"U8","shape":[4],"data_offsets":[0,4]}})",
            4, "overlap");
        row("end past the data", R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})", 12, "outside the file");
        row("begin past the data", R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[99,100]}})", 12, "outside");
        row("huge offsets",
            R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[9223372036854775806,9223372036854775807]}})", 12,
            "outside");
        row("offsets beyond 64 bits",
            R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,18446744073709551617]}})", 12, "data_offsets");
        row("begin after end", R"({"a":{"dtype":"U8","shape":[0],"data_offsets":[8,4]}})", 12, "begin <= end");
        row("negative offset", R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[-1,0]}})", 12, "data_offsets");
        row("size mismatch", R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", 12, "need 12");
        row("shape overflow",
            R"({"a":{"dtype":"F32","shape":[4294967296,4294967296,4],"data_offsets":[0,8]}})", 12, "overflows");
        row("negative dimension", R"({"a":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})", 12, "non-negative");
        row("fractional dimension", R"({"a":{"dtype":"F32","shape":[1.5],"data_offsets":[0,8]}})", 12, "non-negative");
        row("unknown dtype", R"({"a":{"dtype":"F8_E4M3","shape":[1],"data_offsets":[0,1]}})", 12, "F8_E4M3");
        row("missing dtype", R"({"a":{"shape":[1],"data_offsets":[0,1]}})", 12, "dtype");
        row("tensor not an object", R"({"a":[1,2]})", 12, "not an object");
        row("header not an object", R"([1,2,3])", 12, "not a JSON object");
        row("trailing comma", R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},})", 12, "invalid JSON");
        row("duplicate key",
            R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}})",
            12, "duplicate key");
        // (An ordinary literal: moc's scanner loses track in raw strings with unbalanced braces.)
        row("truncated JSON", "{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_off", 12, "invalid JSON");
        row("garbage after JSON", R"({} x)", 12, "after the JSON value");
        row("single quotes", R"({'a':1})", 12, "invalid JSON");
        row("bad escape", R"({"a\q":1})", 12, "escape");
        row("lone surrogate", R"({"\udc00":1})", 12, "surrogate");
        row("NaN", R"({"a":NaN})", 12, "invalid JSON");
        row("leading zero", R"({"a":01})", 12, "leading zero");
        row("deep nesting", "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]", 12,
            "nesting");
        row("empty header", "", 12, "invalid JSON");
    }

    void hostileHeader()
    {
        QFETCH(QString, header);
        QFETCH(int, dataBytes);
        QFETCH(QString, message);
        const Bytes bytes = makeFile(header.toStdString(), Bytes(static_cast<std::size_t>(dataBytes)), false);
        auto file = SafetensorsFile::fromBytes(bytes);
        QVERIFY(!file.ok());
        QVERIFY2(QString::fromStdString(file.message()).contains(message), file.message().c_str());
    }

    void headerLengthProblems()
    {
        Bytes bytes = sampleFile();
        bytes[3] = std::byte{0x01}; // header 16 MiB longer than the file
        auto pastEnd = SafetensorsFile::fromBytes(bytes);
        QVERIFY(!pastEnd.ok());
        QVERIFY2(pastEnd.message().find("past the end") != std::string::npos, pastEnd.message().c_str());

        bytes = sampleFile();
        bytes[7] = std::byte{0x80}; // 2^63 + ...
        auto huge = SafetensorsFile::fromBytes(bytes);
        QVERIFY(!huge.ok());
        QVERIFY2(huge.message().find("100 MiB") != std::string::npos, huge.message().c_str());

        QVERIFY(!SafetensorsFile::fromBytes(Bytes(5)).ok());
        QVERIFY(!SafetensorsFile::open("/nonexistent/model.safetensors").ok());
    }

    void everyTruncationFails()
    {
        const Bytes full = sampleFile();
        QVERIFY(SafetensorsFile::fromBytes(full).ok());
        for (std::size_t n = 0; n < full.size(); ++n) {
            const Bytes prefix(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(n));
            auto file = SafetensorsFile::fromBytes(prefix);
            QVERIFY2(!file.ok(), qPrintable(QStringLiteral("prefix of %1 bytes parsed").arg(n)));
        }
    }

    void jsonValues()
    {
        auto value = parseJson(R"( {"s":"a\u00e9\ud83d\ude00\n","i":-42,"big":12345678901234567890,"f":2.5e3,)"
                               R"("t":true,"n":null,"arr":[1,[2]],"o":{}} )");
        QVERIFY2(value.ok(), value.message().c_str());
        QCOMPARE(value->find("s")->toString(), std::string("a\xc3\xa9\xf0\x9f\x98\x80\n"));
        QVERIFY(value->find("i")->isInteger());
        QCOMPARE(value->find("i")->toInteger(), std::int64_t{-42});
        QVERIFY(!value->find("big")->isInteger());
        QCOMPARE(value->find("f")->toNumber(), 2500.0);
        QVERIFY(value->find("t")->toBool());
        QVERIFY(value->find("n")->isNull());
        QCOMPARE(value->find("arr")->items().size(), std::size_t{2});
        QVERIFY(value->find("o")->isObject());
        QVERIFY(!parseJson("\"\xff\"").ok()); // invalid UTF-8
        QVERIFY(!parseJson("\"\xc0\xaf\"").ok()); // overlong encoding
        QVERIFY(!parseJson("1e999").ok());
    }
};

QTEST_GUILESS_MAIN(TestSafetensors)
#include "tst_safetensors.moc"
