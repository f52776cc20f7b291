// SPDX-License-Identifier: MIT
// GGUF reader and writer: round trips, the real files under ../shared, and hostile input.

#include "test_support.h"

#include "core/mapped_file.h"
#include "gguf/gguf_file.h"
#include "gguf/gguf_writer.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

using namespace hearth;
using namespace hearth::gguf;

namespace {

using Bytes = std::vector<std::byte>;

// Builds raw GGUF bytes by hand, for headers the writer would refuse to produce.
class RawGguf {
public:
    template <typename T>
    RawGguf& put(T v)
    {
        const auto* p = reinterpret_cast<const std::byte*>(&v);
        m_bytes.insert(m_bytes.end(), p, p + sizeof(T));
        return *this;
    }
    RawGguf& str(const std::string& s)
    {
        put<std::uint64_t>(s.size());
        const auto* p = reinterpret_cast<const std::byte*>(s.data());
        m_bytes.insert(m_bytes.end(), p, p + s.size());
        return *this;
    }
    RawGguf& header(std::uint64_t tensors, std::uint64_t kvs, std::uint32_t version = 3, const char* magic = "GGUF")
    {
        const auto* p = reinterpret_cast<const std::byte*>(magic);
        m_bytes.insert(m_bytes.end(), p, p + 4);
        put(version);
        put(tensors);
        put(kvs);
        return *this;
    }
    RawGguf& kvU32(const std::string& key, std::uint32_t v)
    {
        str(key);
        put<std::uint32_t>(static_cast<std::uint32_t>(ValueType::UInt32));
        return put(v);
    }
    RawGguf& tensor(const std::string& name, const std::vector<std::uint64_t>& dims, std::uint32_t type,
                    std::uint64_t offset)
    {
        str(name);
        put<std::uint32_t>(static_cast<std::uint32_t>(dims.size()));
        for (std::uint64_t d : dims) {
            put(d);
        }
        put(type);
        return put(offset);
    }
    // Pads to @p alignment and appends @p dataBytes of data.
    RawGguf& data(std::size_t dataBytes, std::size_t alignment = 32)
    {
        while (m_bytes.size() % alignment != 0) {
            m_bytes.push_back(std::byte{0});
        }
        m_bytes.resize(m_bytes.size() + dataBytes, std::byte{0x3c});
        return *this;
    }
    Bytes bytes() const { return m_bytes; }

private:
    Bytes m_bytes;
};

Bytes readAll(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        return {};
    }
    const QByteArray data = f.readAll();
    const auto* p = reinterpret_cast<const std::byte*>(data.constData());
    return Bytes(p, p + data.size());
}

Bytes patternBytes(std::size_t n, unsigned seed)
{
    Bytes out(n);
    std::mt19937 rng(seed);
    for (std::byte& b : out) {
        b = static_cast<std::byte>(rng() & 0xff);
    }
    return out;
}

// Reads every byte the parsed file points at, so AddressSanitizer sees any pointer that escapes
// the buffer, and exercises the accessors.
std::uint64_t touchEverything(const GgufFile& file)
{
    std::uint64_t sum = file.version() + file.alignment();
    for (const auto& [key, value] : file.metadata()) {
        sum += key.size() + static_cast<std::uint64_t>(value.type);
        (void)file.getInt(key);
        (void)file.getFloat(key);
        (void)file.getString(key);
        (void)file.getBool(key);
        if (const ArrayValue* a = file.getArray(key)) {
            sum += a->size();
        }
    }
    for (const TensorInfo& t : file.tensors()) {
        sum += static_cast<std::uint64_t>(t.elementCount() + t.rows() + t.rowLength());
        for (std::uint64_t i = 0; i < t.byteSize; ++i) {
            sum += static_cast<std::uint8_t>(t.data[i]);
        }
        if (file.findTensor(t.name) != &t) {
            sum += 1;
        }
    }
    return sum;
}

bool sameValue(const Value& a, const Value& b)
{
    return a == b;
}

} // namespace

class TestGguf : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;

    QString tempPath(const QString& name) const { return m_dir.filePath(name); }

    // A small valid file with metadata of several kinds and tensors of several types; the last
    // tensor ends exactly at the end of the file, so every proper prefix is invalid.
    Bytes smallValidFile()
    {
        const QString path = tempPath(QStringLiteral("small.gguf"));
        GgufWriter w;
        w.setString("general.architecture", "llama");
        w.setUInt32("llama.block_count", 2);
        w.setFloat32("llama.rope.freq_base", 10000.0f);
        w.setBool("tokenizer.ggml.add_bos_token", true);
        w.setStringArray("tokenizer.ggml.tokens", {"<unk>", "<s>", "</s>", "a", "b"});
        w.setFloat32Array("tokenizer.ggml.scores", {0.f, 0.f, 0.f, -1.f, -2.f});
        w.setInt32Array("tokenizer.ggml.token_type", {2, 3, 3, 1, 1});
        w.addTensor("a.weight", DType::Q8_0, {32, 2});
        w.addTensor("b.weight", DType::F16, {3});
        w.addTensor("c.weight", DType::F32, {8});
        if (!w.begin(path.toStdString())) {
            return {};
        }
        for (const char* name : {"a.weight", "b.weight", "c.weight"}) {
            const Bytes data = patternBytes(w.tensorSize(name), 7);
            if (!w.writeTensorData(data)) {
                return {};
            }
        }
        if (!w.finish()) {
            return {};
        }
        return readAll(path);
    }

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void mappedFileBasics()
    {
        const QString path = tempPath(QStringLiteral("mapped.bin"));
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QByteArray(10000, 'x'));
        }
        auto mapped = MappedFile::open(path.toStdString());
        QVERIFY2(mapped.ok(), mapped.message().c_str());
        QCOMPARE((*mapped)->bytes().size(), std::size_t(10000));
        QCOMPARE(static_cast<char>((*mapped)->bytes()[9999]), 'x');
        QCOMPARE((*mapped)->path(), path.toStdString());
        // Out-of-range hints are ignored rather than crashing.
        (*mapped)->prefetch(0, 10000);
        (*mapped)->prefetch(4097, 1 << 30);
        (*mapped)->prefetch(20000, 10);
        (void)(*mapped)->lock(); // may be refused by RLIMIT_MEMLOCK; must not fail loudly
    }

    void mappedFileEmptyAndMissing()
    {
        const QString empty = tempPath(QStringLiteral("empty.bin"));
        {
            QFile f(empty);
            QVERIFY(f.open(QIODevice::WriteOnly));
        }
        auto mapped = MappedFile::open(empty.toStdString());
        QVERIFY2(mapped.ok(), mapped.message().c_str());
        QVERIFY((*mapped)->bytes().empty());
        (*mapped)->prefetch(0, 100);
        QVERIFY((*mapped)->lock());

        auto missing = MappedFile::open(tempPath(QStringLiteral("does-not-exist")).toStdString());
        QVERIFY(!missing.ok());
        QCOMPARE(missing.code(), ErrorCode::IoError);
        QVERIFY2(missing.message().find("does-not-exist") != std::string::npos, missing.message().c_str());

        auto directory = MappedFile::open(m_dir.path().toStdString());
        QVERIFY(!directory.ok());
        QCOMPARE(directory.code(), ErrorCode::IoError);

        auto emptyGguf = GgufFile::open(empty.toStdString());
        QVERIFY(!emptyGguf.ok());
        QCOMPARE(emptyGguf.code(), ErrorCode::InvalidFile);
        QVERIFY2(emptyGguf.message().find("empty.bin") != std::string::npos, emptyGguf.message().c_str());
    }

    void roundTripValues()
    {
        const QString path = tempPath(QStringLiteral("values.gguf"));
        GgufWriter w;
        w.setValue("u8", Value{ValueType::UInt8, std::uint64_t{250}});
        w.setValue("i8", Value{ValueType::Int8, std::int64_t{-100}});
        w.setValue("u16", Value{ValueType::UInt16, std::uint64_t{65000}});
        w.setValue("i16", Value{ValueType::Int16, std::int64_t{-32000}});
        w.setUInt32("u32", 4000000000u);
        w.setInt32("i32", -2000000000);
        w.setFloat32("f32", 0.25f);
        w.setBool("bool", true);
        w.setString("string", std::string("h\xc3\xa9llo\0x", 8));
        w.setUInt64("u64", std::numeric_limits<std::uint64_t>::max());
        w.setValue("i64", Value{ValueType::Int64, std::numeric_limits<std::int64_t>::min()});
        w.setValue("f64", Value{ValueType::Float64, 1.0 / 3.0});
        w.setString("empty", "");
        w.setString("replaced", "first");
        w.setString("replaced", "second");

        std::vector<Value> arrays;
        const ValueType intTypes[] = {ValueType::UInt8, ValueType::Int8, ValueType::UInt16, ValueType::Int16,
                                      ValueType::UInt32, ValueType::Int32, ValueType::UInt64, ValueType::Int64,
                                      ValueType::Bool};
        for (ValueType t : intTypes) {
            ArrayValue a;
            a.elementType = t;
            const bool isSigned = t == ValueType::Int8 || t == ValueType::Int16 || t == ValueType::Int32
                || t == ValueType::Int64;
            a.ints = t == ValueType::Bool ? std::vector<std::int64_t>{1, 0, 1}
                                          : (isSigned ? std::vector<std::int64_t>{-1, 0, 7, -128}
                                                      : std::vector<std::int64_t>{0, 1, 127, 255});
            w.setValue("array." + std::string(valueTypeName(t)), Value{ValueType::Array, a});
        }
        {
            ArrayValue a;
            a.elementType = ValueType::Float64;
            a.floats = {1e300, -0.5, 0.0};
            w.setValue("array.float64", Value{ValueType::Array, a});
        }
        w.setFloat32Array("array.float32", {1.5f, -2.25f});
        w.setStringArray("array.string", {"", "x", "longer string"});
        w.setStringArray("array.empty", {});
        w.setInt32Array("array.int32b", {std::numeric_limits<std::int32_t>::min(), 5});
        {
            // An array of two arrays: [u8 {1, 2}], [string {"z"}].
            RawGguf inner;
            inner.put<std::uint32_t>(static_cast<std::uint32_t>(ValueType::UInt8)).put<std::uint64_t>(2);
            inner.put<std::uint8_t>(1).put<std::uint8_t>(2);
            inner.put<std::uint32_t>(static_cast<std::uint32_t>(ValueType::String)).put<std::uint64_t>(1).str("z");
            ArrayValue a;
            a.elementType = ValueType::Array;
            a.nestedCount = 2;
            a.nestedRaw = inner.bytes();
            w.setValue("array.nested", Value{ValueType::Array, a});
        }
        QVERIFY(w.begin(path.toStdString()).ok());
        QVERIFY(w.finish().ok());

        auto file = GgufFile::open(path.toStdString());
        QVERIFY2(file.ok(), file.message().c_str());
        const GgufFile& f = **file;
        QCOMPARE(f.version(), 3u);
        QCOMPARE(f.magic(), Magic::Gguf);
        QCOMPARE(f.getInt("u8"), std::optional<std::int64_t>(250));
        QCOMPARE(f.find("u8")->type, ValueType::UInt8);
        QCOMPARE(f.getInt("i8"), std::optional<std::int64_t>(-100));
        QCOMPARE(f.getInt("u16"), std::optional<std::int64_t>(65000));
        QCOMPARE(f.getInt("i16"), std::optional<std::int64_t>(-32000));
        QCOMPARE(f.getInt("u32"), std::optional<std::int64_t>(4000000000LL));
        QCOMPARE(f.getInt("i32"), std::optional<std::int64_t>(-2000000000LL));
        QCOMPARE(f.getFloat("f32"), std::optional<double>(0.25));
        QCOMPARE(f.getBool("bool"), std::optional<bool>(true));
        QCOMPARE(f.getString("string"), std::optional<std::string>(std::string("h\xc3\xa9llo\0x", 8)));
        QCOMPARE(std::get<std::uint64_t>(f.find("u64")->data), std::numeric_limits<std::uint64_t>::max());
        QVERIFY(!f.getInt("u64")); // does not fit int64: reported missing, not wrapped
        QCOMPARE(f.getInt("i64"), std::optional<std::int64_t>(std::numeric_limits<std::int64_t>::min()));
        QCOMPARE(f.getFloat("f64"), std::optional<double>(1.0 / 3.0));
        QCOMPARE(f.getString("empty"), std::optional<std::string>(""));
        QCOMPARE(f.getString("replaced"), std::optional<std::string>("second"));
        // Mismatched getters say "absent" instead of converting.
        QVERIFY(!f.getString("u32"));
        QVERIFY(!f.getBool("u8"));
        QVERIFY(!f.getInt("string"));
        QVERIFY(!f.getArray("string"));
        QVERIFY(!f.find("missing"));

        for (ValueType t : intTypes) {
            const ArrayValue* a = f.getArray("array." + std::string(valueTypeName(t)));
            QVERIFY(a);
            QCOMPARE(a->elementType, t);
            QCOMPARE(a->size(), t == ValueType::Bool ? std::size_t(3) : std::size_t(4));
        }
        QCOMPARE(f.getArray("array.int8")->ints, (std::vector<std::int64_t>{-1, 0, 7, -128}));
        QCOMPARE(f.getArray("array.uint8")->ints, (std::vector<std::int64_t>{0, 1, 127, 255}));
        QCOMPARE(f.getArray("array.bool")->ints, (std::vector<std::int64_t>{1, 0, 1}));
        QCOMPARE(f.getArray("array.float64")->floats, (std::vector<double>{1e300, -0.5, 0.0}));
        QCOMPARE(f.getArray("array.float32")->floats, (std::vector<double>{1.5, -2.25}));
        QCOMPARE(f.getArray("array.string")->strings, (std::vector<std::string>{"", "x", "longer string"}));
        QCOMPARE(f.getArray("array.empty")->size(), std::size_t(0));
        QCOMPARE(f.getArray("array.int32b")->ints.front(), std::int64_t(std::numeric_limits<std::int32_t>::min()));
        const ArrayValue* nested = f.getArray("array.nested");
        QVERIFY(nested);
        QCOMPARE(nested->elementType, ValueType::Array);
        QCOMPARE(nested->size(), std::size_t(2));

        // Copying every value through setValue reproduces the same metadata, nested array included.
        const QString copyPath = tempPath(QStringLiteral("values-copy.gguf"));
        GgufWriter copy;
        for (const auto& [key, value] : f.metadata()) {
            copy.setValue(key, value);
        }
        QVERIFY(copy.begin(copyPath.toStdString()).ok());
        QVERIFY(copy.finish().ok());
        auto copied = GgufFile::open(copyPath.toStdString());
        QVERIFY2(copied.ok(), copied.message().c_str());
        QCOMPARE((*copied)->metadata().size(), f.metadata().size());
        for (const auto& [key, value] : f.metadata()) {
            const Value* other = (*copied)->find(key);
            QVERIFY2(other && sameValue(value, *other), key.c_str());
        }
    }

    void roundTripTensors_data()
    {
        QTest::addColumn<quint64>("alignment");
        QTest::addColumn<bool>("powerInfer");
        QTest::newRow("align 32") << quint64(32) << false;
        QTest::newRow("align 1") << quint64(1) << false;
        QTest::newRow("align 8") << quint64(8) << false;
        QTest::newRow("align 64") << quint64(64) << false;
        QTest::newRow("align 4096") << quint64(4096) << false;
        QTest::newRow("PWRI align 32") << quint64(32) << true;
        QTest::newRow("PWRI align 128") << quint64(128) << true;
    }

    void roundTripTensors()
    {
        QFETCH(quint64, alignment);
        QFETCH(bool, powerInfer);
        struct Spec {
            std::string name;
            DType type;
            std::vector<std::int64_t> shape;
            std::uint64_t bytes;
        };
        const std::vector<Spec> specs = {
            {"f32", DType::F32, {5, 3}, 60},
            {"f16", DType::F16, {7}, 14},
            {"q4_0", DType::Q4_0, {64, 2}, 4 * 18},
            {"q8_0", DType::Q8_0, {32, 3, 1}, 3 * 34},
            {"i32", DType::I32, {2, 2, 2, 2}, 64},
            {"empty", DType::F32, {0, 4}, 0},
        };
        const QString path = tempPath(QStringLiteral("tensors-%1-%2.gguf").arg(alignment).arg(powerInfer));
        GgufWriter w(powerInfer ? Magic::PowerInfer : Magic::Gguf, alignment);
        w.setString("general.name", "tensors");
        for (const Spec& s : specs) {
            w.addTensor(s.name, s.type, s.shape);
        }
        for (const Spec& s : specs) {
            QCOMPARE(w.tensorSize(s.name), s.bytes);
            QCOMPARE(w.tensorOffset(s.name) % alignment, quint64(0));
        }
        Status begun = w.begin(path.toStdString());
        QVERIFY2(begun.ok(), begun.message().c_str());
        std::vector<Bytes> payloads;
        for (std::size_t i = 0; i < specs.size(); ++i) {
            payloads.push_back(patternBytes(specs[i].bytes, static_cast<unsigned>(i)));
            QVERIFY(w.writeTensorData(payloads.back()).ok());
        }
        QVERIFY(w.finish().ok());

        auto file = GgufFile::open(path.toStdString());
        QVERIFY2(file.ok(), file.message().c_str());
        const GgufFile& f = **file;
        QCOMPARE(f.magic(), powerInfer ? Magic::PowerInfer : Magic::Gguf);
        QCOMPARE(f.alignment(), alignment);
        QCOMPARE(f.dataOffset() % alignment, quint64(0));
        QCOMPARE(f.getInt("general.alignment").has_value(), alignment != 32);
        QCOMPARE(f.tensors().size(), specs.size());
        for (std::size_t i = 0; i < specs.size(); ++i) {
            const TensorInfo* t = f.findTensor(specs[i].name);
            QVERIFY(t);
            QCOMPARE(t, &f.tensors()[i]); // declaration order is kept
            QCOMPARE(t->type, specs[i].type);
            QCOMPARE(t->shape, specs[i].shape);
            QCOMPARE(t->byteSize, specs[i].bytes);
            QCOMPARE(t->offset % alignment, quint64(0));
            QCOMPARE(reinterpret_cast<std::uintptr_t>(t->data) - reinterpret_cast<std::uintptr_t>(f.bytes().data()),
                     std::uintptr_t(f.dataOffset() + t->offset));
            QVERIFY(payloads[i].empty() || std::memcmp(t->data, payloads[i].data(), payloads[i].size()) == 0);
        }
        QCOMPARE(f.findTensor("q4_0")->rows(), std::int64_t(2));
        QCOMPARE(f.findTensor("q4_0")->rowLength(), std::int64_t(64));
        QCOMPARE(f.findTensor("i32")->elementCount(), std::int64_t(16));
        QCOMPARE(f.findTensor("empty")->elementCount(), std::int64_t(0));
        QVERIFY(!f.findTensor("missing"));

        // parse() over a caller's buffer agrees with open().
        const Bytes bytes = readAll(path);
        auto parsed = GgufFile::parse(bytes);
        QVERIFY2(parsed.ok(), parsed.message().c_str());
        QCOMPARE((*parsed)->tensors().size(), specs.size());
        QVERIFY(!(*parsed)->mapping());
    }

    void alignmentFromMetadata()
    {
        // Setting general.alignment (as a copy from another file does) changes the layout.
        const QString path = tempPath(QStringLiteral("align-key.gguf"));
        GgufWriter w;
        w.setUInt32("general.alignment", 256);
        w.addTensor("t", DType::F32, {3});
        w.addTensor("u", DType::F32, {3});
        QVERIFY(w.begin(path.toStdString()).ok());
        QVERIFY(w.writeTensorData(patternBytes(12, 1)).ok());
        QVERIFY(w.writeTensorData(patternBytes(12, 2)).ok());
        QVERIFY(w.finish().ok());
        auto file = GgufFile::open(path.toStdString());
        QVERIFY2(file.ok(), file.message().c_str());
        QCOMPARE((*file)->alignment(), quint64(256));
        QCOMPARE((*file)->findTensor("u")->offset, quint64(256));
        QCOMPARE((*file)->metadata().size(), std::size_t(1));
    }

    void writerErrors()
    {
        {
            GgufWriter w;
            w.addTensor("bad", DType::Q4_0, {33});
            const Status s = w.begin(tempPath(QStringLiteral("bad-shape.gguf")).toStdString());
            QCOMPARE(s.code(), ErrorCode::InvalidArgument);
            QVERIFY2(s.message().find("'bad'") != std::string::npos, s.message().c_str());
        }
        for (const std::vector<std::int64_t>& shape :
             {std::vector<std::int64_t>{}, std::vector<std::int64_t>{1, 1, 1, 1, 1}, std::vector<std::int64_t>{4, -1}}) {
            GgufWriter w;
            w.addTensor("t", DType::F32, shape);
            QCOMPARE(w.begin(tempPath(QStringLiteral("bad-dims.gguf")).toStdString()).code(), ErrorCode::InvalidArgument);
        }
        {
            GgufWriter w;
            w.addTensor("twice", DType::F32, {1});
            w.addTensor("twice", DType::F32, {1});
            QCOMPARE(w.begin(tempPath(QStringLiteral("dup.gguf")).toStdString()).code(), ErrorCode::InvalidArgument);
        }
        {
            GgufWriter w(Magic::Gguf, 48);
            QCOMPARE(w.begin(tempPath(QStringLiteral("align.gguf")).toStdString()).code(), ErrorCode::InvalidArgument);
        }
        {
            GgufWriter w;
            w.setString("general.alignment", "32");
            QCOMPARE(w.begin(tempPath(QStringLiteral("align2.gguf")).toStdString()).code(), ErrorCode::InvalidArgument);
        }
        {
            GgufWriter w;
            const Status s = w.begin(tempPath(QStringLiteral("no-such-dir/x.gguf")).toStdString());
            QCOMPARE(s.code(), ErrorCode::IoError);
            QVERIFY2(s.message().find(std::strerror(ENOENT)) != std::string::npos, s.message().c_str());
        }
        {
            // Wrong sizes and a missing tensor are refused, and the partial file is removed.
            const QString path = tempPath(QStringLiteral("partial.gguf"));
            GgufWriter w;
            w.addTensor("a", DType::F32, {4});
            w.addTensor("b", DType::F32, {4});
            QVERIFY(w.begin(path.toStdString()).ok());
            QCOMPARE(w.writeTensorData(patternBytes(15, 0)).code(), ErrorCode::InvalidArgument);
            QVERIFY(w.writeTensorData(patternBytes(16, 0)).ok());
            const Status s = w.finish();
            QCOMPARE(s.code(), ErrorCode::InvalidArgument);
            QVERIFY2(s.message().find("'b'") != std::string::npos, s.message().c_str());
            QVERIFY(!QFile::exists(path));
        }
        {
            const QString path = tempPath(QStringLiteral("abandoned.gguf"));
            {
                GgufWriter w;
                w.addTensor("a", DType::F32, {4});
                QVERIFY(w.begin(path.toStdString()).ok());
            }
            QVERIFY(!QFile::exists(path));
        }
        if (QFile::exists(QStringLiteral("/dev/full"))) {
            // A full disk surfaces as IoError with the system's reason, at the latest in finish().
            GgufWriter w;
            w.setString("general.name", std::string(4096, 'x'));
            w.addTensor("a", DType::F32, {1024});
            Status s = w.begin("/dev/full");
            if (s.ok()) {
                s = w.writeTensorData(patternBytes(4096, 0));
            }
            if (s.ok()) {
                s = w.finish();
            }
            QCOMPARE(s.code(), ErrorCode::IoError);
            QVERIFY2(s.message().find(std::strerror(ENOSPC)) != std::string::npos, s.message().c_str());
            QVERIFY(QFile::exists(QStringLiteral("/dev/full")));
        }
    }

    void sharedFiles_data()
    {
        QTest::addColumn<QString>("relative");
        QTest::newRow("stories260K") << QStringLiteral("models/stories260K.gguf");
        QTest::newRow("falcon") << QStringLiteral("vocab/ggml-vocab-falcon.gguf");
        QTest::newRow("gpt-2") << QStringLiteral("vocab/ggml-vocab-gpt-2.gguf");
        QTest::newRow("llama-spm") << QStringLiteral("vocab/ggml-vocab-llama-spm.gguf");
        QTest::newRow("mpt") << QStringLiteral("vocab/ggml-vocab-mpt.gguf");
    }

    void sharedFiles()
    {
        QFETCH(QString, relative);
        const QString path = hearth::test::sharedFile(relative);
        if (path.isEmpty()) {
            QSKIP(qPrintable(QStringLiteral("../shared/%1 is not present; skipping").arg(relative)));
        }
        auto file = GgufFile::open(path.toStdString());
        QVERIFY2(file.ok(), file.message().c_str());
        const GgufFile& f = **file;
        QVERIFY(f.version() == 2 || f.version() == 3);
        QVERIFY(f.getString("general.architecture").has_value());
        const ArrayValue* tokens = f.getArray("tokenizer.ggml.tokens");
        QVERIFY(tokens);
        QCOMPARE(tokens->elementType, ValueType::String);
        QVERIFY(tokens->size() > 0);
        QVERIFY(f.mapping());
        QCOMPARE(f.mapping()->bytes().size(), f.bytes().size());
        touchEverything(f);

        if (relative.startsWith(QStringLiteral("models/"))) {
            QCOMPARE(*f.getString("general.architecture"), std::string("llama"));
            const TensorInfo* embd = f.findTensor("token_embd.weight");
            QVERIFY(embd);
            QCOMPARE(embd->shape.size(), std::size_t(2));
            QCOMPARE(static_cast<std::size_t>(embd->shape[1]), tokens->size());

            // A full copy through the writer reproduces metadata and tensor bytes.
            const QString copyPath = tempPath(QStringLiteral("stories-copy.gguf"));
            GgufWriter w(f.magic(), f.alignment());
            for (const auto& [key, value] : f.metadata()) {
                w.setValue(key, value);
            }
            for (const TensorInfo& t : f.tensors()) {
                w.addTensor(t.name, t.type, t.shape);
            }
            QVERIFY(w.begin(copyPath.toStdString()).ok());
            for (const TensorInfo& t : f.tensors()) {
                QVERIFY(w.writeTensorData({t.data, static_cast<std::size_t>(t.byteSize)}).ok());
            }
            QVERIFY(w.finish().ok());
            auto copy = GgufFile::open(copyPath.toStdString());
            QVERIFY2(copy.ok(), copy.message().c_str());
            QCOMPARE((*copy)->metadata().size(), f.metadata().size());
            for (const auto& [key, value] : f.metadata()) {
                const Value* other = (*copy)->find(key);
                QVERIFY2(other && sameValue(value, *other), key.c_str());
            }
            QCOMPARE((*copy)->tensors().size(), f.tensors().size());
            for (const TensorInfo& t : f.tensors()) {
                const TensorInfo* other = (*copy)->findTensor(t.name);
                QVERIFY(other && other->shape == t.shape && other->type == t.type);
                QVERIFY(t.byteSize == 0 || std::memcmp(other->data, t.data, t.byteSize) == 0);
            }
        }
    }

    void truncatedPrefixes()
    {
        const Bytes full = smallValidFile();
        QVERIFY(!full.empty());
        auto whole = GgufFile::parse(full);
        QVERIFY2(whole.ok(), whole.message().c_str());
        for (std::size_t n = 0; n < full.size(); ++n) {
            // An exact-size heap copy, so AddressSanitizer catches a read one byte too far.
            const Bytes prefix(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(n));
            auto parsed = GgufFile::parse(prefix);
            if (parsed.ok()) {
                QFAIL(qPrintable(QStringLiteral("a %1-byte prefix of a %2-byte file parsed").arg(n).arg(full.size())));
            }
            QVERIFY(!parsed.message().empty());
            QCOMPARE(parsed.code(), ErrorCode::InvalidFile);
        }
    }

    void randomMutations()
    {
        const Bytes base = smallValidFile();
        QVERIFY(!base.empty());
        std::mt19937_64 rng(20240601);
        int accepted = 0;
        int rejected = 0;
        for (int iteration = 0; iteration < 5000; ++iteration) {
            Bytes bytes = base;
            const int edits = 1 + static_cast<int>(rng() % 8);
            for (int e = 0; e < edits; ++e) {
                const std::size_t at = rng() % bytes.size();
                switch (rng() % 4) {
                case 0: // random byte
                    bytes[at] = static_cast<std::byte>(rng() & 0xff);
                    break;
                case 1: // single bit flip
                    bytes[at] ^= static_cast<std::byte>(1u << (rng() % 8));
                    break;
                case 2: { // an interesting 64-bit value over a count, length or offset
                    static constexpr std::uint64_t interesting[] = {0, 1, 0x7f, 0xffffffffull, 1ull << 32,
                                                                    1ull << 60, ~0ull, 0x8000000000000000ull};
                    const std::uint64_t v = interesting[rng() % std::size(interesting)];
                    const std::size_t n = std::min<std::size_t>(8, bytes.size() - at);
                    std::memcpy(bytes.data() + at, &v, n);
                    break;
                }
                default: // truncate
                    bytes.resize(std::max<std::size_t>(at, 1));
                    break;
                }
            }
            auto parsed = GgufFile::parse(bytes);
            if (parsed.ok()) {
                ++accepted;
                touchEverything(**parsed);
            } else {
                ++rejected;
                QVERIFY(!parsed.message().empty());
            }
        }
        QVERIFY(rejected > 0);
        qInfo("random mutations: %d accepted, %d rejected", accepted, rejected);
    }

    void hostileHeaders_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("expected");

        auto row = [](const char* name, const RawGguf& raw, const char* expected) {
            const Bytes b = raw.bytes();
            QTest::newRow(name) << QByteArray(reinterpret_cast<const char*>(b.data()), static_cast<qsizetype>(b.size()))
                                << QString::fromUtf8(expected);
        };
        constexpr std::uint32_t f32 = 0;
        constexpr std::uint32_t u8 = static_cast<std::uint32_t>(ValueType::UInt8);
        constexpr std::uint32_t str = static_cast<std::uint32_t>(ValueType::String);
        constexpr std::uint32_t arr = static_cast<std::uint32_t>(ValueType::Array);

        row("empty", RawGguf(), "bytes long");
        row("bad magic", RawGguf().header(0, 0, 3, "GGML"), "not a GGUF file");
        row("short header", RawGguf().put<std::uint32_t>(0x46554747).put<std::uint32_t>(3), "header is truncated");
        row("version 1", RawGguf().header(0, 0, 1), "version 1");
        row("version 4", RawGguf().header(0, 0, 4), "version 4");
        row("version 0", RawGguf().header(0, 0, 0), "version 0");
        row("big-endian", RawGguf().header(0, 0, 0x03000000), "big-endian");
        row("huge tensor count", RawGguf().header(1ull << 60, 0).data(64), "tensors but only");
        row("huge metadata count", RawGguf().header(0, 1ull << 60).data(64), "metadata entries but only");
        row("huge key length", RawGguf().header(0, 1).put<std::uint64_t>(1ull << 60).data(64), "claims");
        row("huge string value",
            RawGguf().header(0, 1).str("k").put(str).put<std::uint64_t>(~0ull).data(32), "claims");
        row("huge array count",
            RawGguf().header(0, 1).str("k").put(arr).put(u8).put<std::uint64_t>(1ull << 60).data(32), "elements");
        row("huge string array count",
            RawGguf().header(0, 1).str("k").put(arr).put(str).put<std::uint64_t>(1ull << 59).data(32), "elements");
        row("huge nested array count",
            RawGguf().header(0, 1).str("k").put(arr).put(arr).put<std::uint64_t>(1ull << 62).data(32), "elements");
        {
            RawGguf deep;
            deep.header(0, 1).str("k");
            deep.put(arr);
            for (int i = 0; i < 40; ++i) {
                deep.put(arr).put<std::uint64_t>(1);
            }
            deep.put(u8).put<std::uint64_t>(0);
            row("nesting too deep", deep, "nests arrays deeper");
        }
        row("unknown value type", RawGguf().header(0, 1).str("k").put<std::uint32_t>(13).put<std::uint32_t>(0), "unknown value type");
        row("unknown array element type",
            RawGguf().header(0, 1).str("k").put(arr).put<std::uint32_t>(99).put<std::uint64_t>(0), "unknown value type");
        row("duplicate key", RawGguf().header(0, 2).kvU32("k", 1).kvU32("k", 2), "duplicate metadata 'k'");
        row("alignment 0", RawGguf().header(0, 1).kvU32("general.alignment", 0), "power of two");
        row("alignment 48", RawGguf().header(0, 1).kvU32("general.alignment", 48), "power of two");
        row("alignment string",
            RawGguf().header(0, 1).str("general.alignment").put(str).str("32"), "must be an unsigned integer");
        row("n_dims 0", RawGguf().header(1, 0).tensor("t", {}, f32, 0).data(64), "has 0 dimensions");
        row("n_dims 5", RawGguf().header(1, 0).tensor("t", {1, 1, 1, 1, 1}, f32, 0).data(64), "has 5 dimensions");
        row("negative dim", RawGguf().header(1, 0).tensor("t", {1ull << 63}, f32, 0).data(64), "beyond the largest valid size");
        row("dims overflow",
            RawGguf().header(1, 0).tensor("t", {1ull << 32, 1ull << 32}, f32, 0).data(64), "overflows");
        row("byte size overflow",
            RawGguf().header(1, 0).tensor("t", {1ull << 31, 1ull << 31}, f32, 0).data(64), "overflows");
        row("unknown tensor type", RawGguf().header(1, 0).tensor("t", {4}, 99, 0).data(64), "unknown tensor type id 99");
        row("row not a block multiple", RawGguf().header(1, 0).tensor("t", {33}, 2, 0).data(64), "block size");
        row("misaligned offset", RawGguf().header(1, 0).tensor("t", {4}, f32, 16).data(64), "not a multiple of the alignment");
        row("offset past end", RawGguf().header(1, 0).tensor("blk.3.ffn_up.weight", {4}, f32, 1 << 20).data(64),
            "tensor 'blk.3.ffn_up.weight' (F32) extends past the end of the file");
        row("offset near 2^64", RawGguf().header(1, 0).tensor("t", {4}, f32, ~0ull - 31).data(64), "extends past the end");
        row("size past end", RawGguf().header(1, 0).tensor("big", {1024}, f32, 0).data(64), "tensor 'big' (F32) extends past");
        row("duplicate tensor",
            RawGguf().header(2, 0).tensor("t", {4}, f32, 0).tensor("t", {4}, f32, 32).data(64), "duplicate tensor 't'");
        row("truncated tensor info",
            RawGguf().header(1, 0).str("tensor-with-long-name").put<std::uint32_t>(2).put<std::uint64_t>(4).put<std::uint64_t>(4),
            "unexpected end of file");
        row("huge alignment with tensor",
            RawGguf().header(1, 1).kvU32("general.alignment", 1u << 31).tensor("t", {4}, f32, 0).data(64),
            "extends past the end");
    }

    void hostileHeaders()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, expected);
        const auto* p = reinterpret_cast<const std::byte*>(bytes.constData());
        const Bytes exact(p, p + bytes.size());
        auto parsed = GgufFile::parse(exact);
        QVERIFY(!parsed.ok());
        QVERIFY2(parsed.code() == ErrorCode::InvalidFile || parsed.code() == ErrorCode::Unsupported,
                 parsed.message().c_str());
        QVERIFY2(parsed.message().find(expected.toStdString()) != std::string::npos, parsed.message().c_str());
        qInfo("%s", parsed.message().c_str());
    }

    void acceptsVersion2AndEmptyData()
    {
        // Version 2 has the same layout as 3; a file without tensors needs no data section.
        const Bytes v2 = RawGguf().header(0, 1, 2).kvU32("k", 7).bytes();
        auto parsed = GgufFile::parse(v2);
        QVERIFY2(parsed.ok(), parsed.message().c_str());
        QCOMPARE((*parsed)->version(), 2u);
        QCOMPARE((*parsed)->getInt("k"), std::optional<std::int64_t>(7));

        // A zero-sized tensor may sit at the end of a file with no data at all.
        const Bytes zero = RawGguf().header(1, 0).tensor("z", {0}, 0, 0).bytes();
        auto zeroParsed = GgufFile::parse(zero);
        QVERIFY2(zeroParsed.ok(), zeroParsed.message().c_str());
        QCOMPARE((*zeroParsed)->tensors().front().byteSize, quint64(0));
    }
};

QTEST_GUILESS_MAIN(TestGguf)
#include "tst_gguf.moc"
