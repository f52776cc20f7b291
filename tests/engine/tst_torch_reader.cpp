// SPDX-License-Identifier: MIT
// PyTorch checkpoint reader: zip archives and pickles written byte by byte here the way
// torch.save writes them, and hostile files that must be refused with a message.

#include "convert/torch_checkpoint.h"
#include "convert/unpickler.h"
#include "convert/zip_archive.h"
#include "core/fp16.h"
#include "torch_fixture_writer.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <bit>
#include <cstdint>
#include <cstring>
#include <list>
#include <map>
#include <random>
#include <string>
#include <vector>

using namespace hearth;
using namespace hearth::convert;
using namespace hearth::test;

namespace {

template <typename U>
void putLittle(Bytes& out, std::size_t offset, U value)
{
    for (std::size_t i = 0; i < sizeof(U); ++i) {
        out[offset + i] = static_cast<std::byte>((static_cast<std::uint64_t>(value) >> (8 * i)) & 0xffu);
    }
}

template <typename T>
Bytes toBytes(const std::vector<T>& values)
{
    Bytes out;
    appendBytes(out, values.data(), values.size() * sizeof(T));
    return out;
}

// A checkpoint as torch.save lays it out: archive/data.pkl, archive/data/<key>, byteorder, version.
Bytes writeCheckpoint(const PickleWriter& pickle, const std::map<std::string, Bytes>& storages, bool zip64 = false,
                      const std::string& byteorder = "little")
{
    std::vector<ZipItem> items;
    items.push_back({"archive/data.pkl", pickle.bytes()});
    const Bytes order(reinterpret_cast<const std::byte*>(byteorder.data()),
                      reinterpret_cast<const std::byte*>(byteorder.data()) + byteorder.size());
    items.push_back({"archive/byteorder", order});
    for (const auto& [key, data] : storages) {
        items.push_back({"archive/data/" + key, data});
    }
    items.push_back({"archive/version", Bytes{std::byte{'3'}, std::byte{'\n'}}});
    return writeZip(items, zip64);
}

std::vector<std::uint16_t> halves(const std::vector<float>& values)
{
    std::vector<std::uint16_t> out;
    for (const float v : values) {
        out.push_back(floatToHalf(v));
    }
    return out;
}

// A predictor's state dict: OrderedDict with fc1.weight (F16 [3,4]) and fc2.weight (F32 [5,3]),
// and the _metadata attribute model.state_dict() attaches through BUILD.
PickleWriter predictorPickle()
{
    PickleWriter p;
    p.proto(2).global("collections", "OrderedDict").put(0).emptyTuple().reduce().put(1);
    p.mark();
    p.str("fc1.weight").tensor("HalfStorage", "0", 12, 0, {3, 4}, {4, 1});
    p.str("fc2.weight").tensor("FloatStorage", "1", 15, 0, {5, 3}, {3, 1});
    p.setItems();
    // state: {'_metadata': OrderedDict([('', {'version': 1})])}
    p.emptyDict().str("_metadata").get(0).emptyTuple().reduce();
    p.mark().str("").emptyDict().str("version").integer(1).op('s').setItems();
    p.op('s');
    p.op('b'); // BUILD
    p.stop();
    return p;
}

std::vector<float> range(int n, float scale)
{
    std::vector<float> out;
    for (int i = 0; i < n; ++i) {
        out.push_back(static_cast<float>(i) * scale - 1.0f);
    }
    return out;
}

Bytes predictorCheckpoint(bool zip64 = false)
{
    return writeCheckpoint(predictorPickle(),
                           {{"0", toBytes(halves(range(12, 0.25f)))}, {"1", toBytes(range(15, 0.5f))}}, zip64);
}

QString writeFile(const QTemporaryDir& dir, const QString& name, const Bytes& bytes)
{
    const QString path = dir.filePath(name);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        return {};
    }
    file.write(reinterpret_cast<const char*>(bytes.data()), static_cast<qint64>(bytes.size()));
    return path;
}

// Parses in-memory bytes; tensors point into them, so a copy stays alive for the whole run.
Result<std::map<std::string, TorchTensor>> stateDictOf(const Bytes& bytes)
{
    static std::list<Bytes> keepAlive;
    keepAlive.push_back(bytes);
    auto checkpoint = TorchCheckpoint::fromBytes(keepAlive.back());
    if (!checkpoint) {
        return checkpoint.status();
    }
    return checkpoint->stateDict();
}

Bytes asBytes(const QByteArray& data)
{
    return Bytes(reinterpret_cast<const std::byte*>(data.constData()),
                 reinterpret_cast<const std::byte*>(data.constData()) + data.size());
}

QByteArray asQByteArray(const Bytes& data)
{
    return QByteArray(reinterpret_cast<const char*>(data.data()), static_cast<qsizetype>(data.size()));
}

} // namespace

class TestTorchReader : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void predictorStateDict()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = writeFile(dir, QStringLiteral("model_0.pt"), predictorCheckpoint());
        auto tensors = readStateDict(path.toStdString());
        QVERIFY2(tensors.ok(), tensors.message().c_str());
        QCOMPARE(tensors->size(), std::size_t{2});

        const TorchTensor& fc1 = tensors->at("fc1.weight");
        QCOMPARE(fc1.dtype(), ElementType::F16);
        QCOMPARE(fc1.shape(), (std::vector<std::int64_t>{3, 4}));
        QVERIFY(fc1.isMapped());
        QCOMPARE(fc1.data().size(), std::size_t{24});
        const std::vector<float> expected1 = range(12, 0.25f);
        QCOMPARE(fc1.toFloat(), expected1); // exactly representable in half

        const TorchTensor& fc2 = tensors->at("fc2.weight");
        QCOMPARE(fc2.dtype(), ElementType::F32);
        QCOMPARE(fc2.shape(), (std::vector<std::int64_t>{5, 3}));
        QCOMPARE(fc2.toFloat(), range(15, 0.5f));
    }

    void zip64Archive()
    {
        auto tensors = stateDictOf(predictorCheckpoint(true));
        QVERIFY2(tensors.ok(), tensors.message().c_str());
        QCOMPARE(tensors->at("fc2.weight").toFloat(), range(15, 0.5f));
    }

    void activationF32()
    {
        PickleWriter p;
        p.proto(2).tensor("FloatStorage", "0", 6, 0, {6}, {1}).stop();
        const std::vector<float> counts = {0, 5, 17, 3, 1000, 2};
        QTemporaryDir dir;
        const QString path = writeFile(dir, QStringLiteral("activation_3.pt"), writeCheckpoint(p, {{"0", toBytes(counts)}}));
        auto tensors = readStateDict(path.toStdString());
        QVERIFY2(tensors.ok(), tensors.message().c_str());
        QCOMPARE(tensors->size(), std::size_t{1});
        QCOMPARE(tensors->at("").shape(), (std::vector<std::int64_t>{6}));
        QCOMPARE(tensors->at("").toFloat(), counts);
    }

    // Protocol 4 opcodes: FRAME, SHORT_BINUNICODE, MEMOIZE, STACK_GLOBAL, LONG1.
    void activationI64Protocol4()
    {
        PickleWriter p;
        p.proto(4).op(0x95);
        Bytes frameLength;
        appendLittle<std::uint64_t>(frameLength, 0); // checked only against the data's end
        p.raw(std::string_view(reinterpret_cast<const char*>(frameLength.data()), 8));
        p.shortStr("torch._utils").op(0x94).shortStr("_rebuild_tensor_v2").op(0x94).op(0x93).op(0x94);
        p.mark().mark().shortStr("storage").shortStr("torch").shortStr("LongStorage").op(0x93);
        p.shortStr("0").shortStr("cpu").integer(4).tuple().op('Q');
        p.integer(0).integer(4).op(0x85).integer(1).op(0x85).op(0x89);
        p.shortStr("collections").shortStr("OrderedDict").op(0x93).emptyTuple().reduce();
        p.tuple().reduce().stop();
        const std::vector<std::int64_t> counts = {7, 0, 1LL << 40, 3};
        auto tensors = stateDictOf(writeCheckpoint(p, {{"0", toBytes(counts)}}));
        QVERIFY2(tensors.ok(), tensors.message().c_str());
        const TorchTensor& t = tensors->at("");
        QCOMPARE(t.dtype(), ElementType::I64);
        QCOMPARE(t.toFloat(), (std::vector<float>{7.0f, 0.0f, 1099511627776.0f, 3.0f}));
    }

    void nestedDictAndParameter()
    {
        // {'state_dict': OrderedDict(w=Parameter(tensor)), 'epoch': 3}
        PickleWriter p;
        p.proto(2).emptyDict().mark().str("state_dict").global("collections", "OrderedDict").emptyTuple().reduce();
        p.str("w").global("torch._utils", "_rebuild_parameter").mark();
        p.tensor("IntStorage", "0", 2, 0, {2}, {1}).op(0x88).global("collections", "OrderedDict").emptyTuple().reduce();
        p.tuple().reduce().op('s');
        p.str("epoch").integer(3).setItems().stop();
        const Bytes bytes = writeCheckpoint(p, {{"0", toBytes(std::vector<std::int32_t>{-4, 9})}});
        auto checkpoint = TorchCheckpoint::fromBytes(bytes);
        QVERIFY2(checkpoint.ok(), checkpoint.message().c_str());
        QVERIFY(checkpoint->root().is(PickleValue::Kind::Dict));
        QCOMPARE(checkpoint->root().find("epoch")->toInt(), std::int64_t{3});
        auto tensors = checkpoint->stateDict();
        QVERIFY2(tensors.ok(), tensors.message().c_str());
        QCOMPARE(tensors->size(), std::size_t{1});
        QCOMPARE(tensors->at("state_dict.w").toFloat(), (std::vector<float>{-4.0f, 9.0f}));
    }

    void orderedDictKeepsOrder()
    {
        PickleWriter p;
        p.proto(2).global("collections", "OrderedDict").emptyTuple().reduce().mark();
        for (const char* key : {"zeta", "alpha", "mid", "alpha"}) {
            p.str(key).integer(static_cast<std::int64_t>(std::strlen(key)));
        }
        p.setItems().stop();
        auto value = unpickle(p.bytes());
        QVERIFY2(value.ok(), value.message().c_str());
        const auto& items = value->dictItems();
        QCOMPARE(items.size(), std::size_t{3}); // the repeated key replaces, like Python
        QCOMPARE(items[0].first.text(), std::string("zeta"));
        QCOMPARE(items[1].first.text(), std::string("alpha"));
        QCOMPARE(items[2].first.text(), std::string("mid"));
    }

    void plainValues()
    {
        PickleWriter p;
        p.proto(2).mark().integer(-5).integer(70000).integer(1LL << 40).op('N').op(0x88);
        p.op('G');
        const std::uint64_t bits = std::bit_cast<std::uint64_t>(2.5);
        for (int i = 7; i >= 0; --i) {
            p.op(static_cast<std::uint8_t>(bits >> (8 * i)));
        }
        p.op('C').op(3).raw("abc").emptyList().put(5).str("x").op('a').get(5).tuple().stop();
        auto value = unpickle(p.bytes());
        QVERIFY2(value.ok(), value.message().c_str());
        const auto& t = value->items();
        QCOMPARE(t.size(), std::size_t{9});
        QCOMPARE(t[0].toInt(), std::int64_t{-5});
        QCOMPARE(t[1].toInt(), std::int64_t{70000});
        QCOMPARE(t[2].toInt(), std::int64_t{1} << 40);
        QVERIFY(t[3].is(PickleValue::Kind::None));
        QVERIFY(t[4].toBool());
        QCOMPARE(t[5].toFloat(), 2.5);
        QVERIFY(t[6].is(PickleValue::Kind::Bytes));
        QCOMPARE(t[7].items().size(), std::size_t{1});
        QCOMPARE(t[8].containerIdentity(), t[7].containerIdentity()); // the memo shares, like Python
    }

    void storageOffsetAndViews()
    {
        // One storage of 12 floats holding two views: rows 1..2 of a [3,4] matrix (offset 4)
        // and the transposed [4,3] matrix (strides 1,4), which must be copied into row order.
        PickleWriter p;
        p.proto(2).emptyDict().mark();
        p.str("rows").tensor("FloatStorage", "0", 12, 4, {2, 4}, {4, 1});
        p.str("transposed").tensor("FloatStorage", "0", 12, 0, {4, 3}, {1, 4});
        p.str("scalar").tensor("FloatStorage", "0", 12, 11, {}, {});
        p.setItems().stop();
        const std::vector<float> values = range(12, 1.0f);
        auto tensors = stateDictOf(writeCheckpoint(p, {{"0", toBytes(values)}}));
        QVERIFY2(tensors.ok(), tensors.message().c_str());

        const TorchTensor& rows = tensors->at("rows");
        QVERIFY(rows.isMapped());
        QCOMPARE(rows.storageOffset(), std::int64_t{4});
        QCOMPARE(rows.toFloat(), std::vector<float>(values.begin() + 4, values.end()));

        const TorchTensor& transposed = tensors->at("transposed");
        QVERIFY(!transposed.isMapped());
        std::vector<float> expected;
        for (int i = 0; i < 4; ++i) {
            for (int j = 0; j < 3; ++j) {
                expected.push_back(values[static_cast<std::size_t>(j * 4 + i)]);
            }
        }
        QCOMPARE(transposed.toFloat(), expected);
        QCOMPARE(tensors->at("scalar").toFloat(), std::vector<float>{values[11]});
    }

    void bigEndianStorage()
    {
        PickleWriter p;
        p.proto(2).tensor("FloatStorage", "0", 2, 0, {2}, {1}).stop();
        Bytes swapped;
        for (const float v : {1.5f, -2.0f}) {
            const auto bits = std::bit_cast<std::uint32_t>(v);
            for (int i = 3; i >= 0; --i) {
                swapped.push_back(static_cast<std::byte>(bits >> (8 * i)));
            }
        }
        auto tensors = stateDictOf(writeCheckpoint(p, {{"0", swapped}}, false, "big"));
        QVERIFY2(tensors.ok(), tensors.message().c_str());
        QCOMPARE(tensors->at("").toFloat(), (std::vector<float>{1.5f, -2.0f}));
    }

    void hostilePickle_data()
    {
        QTest::addColumn<QByteArray>("pickle");
        QTest::addColumn<QString>("message");
        const auto add = [](const char* name, const PickleWriter& p, const char* message) {
            QTest::newRow(name) << asQByteArray(p.bytes()) << QString::fromLatin1(message);
        };
        const char* refusal = "which could run code";
        add("os.system", PickleWriter().proto(2).global("os", "system").str("echo hi").op(0x85).reduce().stop(),
            "refusing to load: the file calls os.system, which could run code");
        add("posix.system", PickleWriter().proto(2).global("posix", "system").stop(), refusal);
        add("builtins.eval", PickleWriter().proto(2).global("builtins", "eval").str("1").op(0x85).reduce().stop(),
            "builtins.eval");
        add("subprocess.Popen via STACK_GLOBAL",
            PickleWriter().proto(4).shortStr("subprocess").shortStr("Popen").op(0x93).stop(), "subprocess.Popen");
        add("torch.load", PickleWriter().proto(2).global("torch", "load").stop(), refusal);
        add("reduce on a storage class",
            PickleWriter().proto(2).global("torch", "FloatStorage").emptyTuple().reduce().stop(), refusal);
        add("reduce on a string", PickleWriter().proto(2).str("os").emptyTuple().reduce().stop(), "not callable");
        add("reduce with non-tuple args",
            PickleWriter().proto(2).global("collections", "OrderedDict").emptyList().reduce().stop(), "not a tuple");
        add("OrderedDict with arguments",
            PickleWriter().proto(2).global("collections", "OrderedDict").str("x").op(0x85).reduce().stop(), "arguments");
        add("newobj of an unknown class",
            PickleWriter().proto(2).global("__main__", "Exploit").emptyTuple().op(0x81).stop(), "__main__.Exploit");
        add("newobj of a storage class",
            PickleWriter().proto(2).global("torch", "FloatStorage").emptyTuple().op(0x81).stop(), "refusing to load");
        add("build on a list", PickleWriter().proto(2).emptyList().emptyDict().op('b').stop(), "refusing to load");
        add("memo index out of range", PickleWriter().proto(2).get(7).stop(), "memo index 7");
        add("long memo index out of range", PickleWriter().proto(2).op('j').raw("\xff\xff\xff\xff").stop(), "memo index");
        add("stack underflow: APPEND", PickleWriter().proto(2).op('a').stop(), "underflow");
        add("stack underflow: TUPLE2", PickleWriter().proto(2).integer(1).op(0x86).stop(), "underflow");
        add("stack underflow: SETITEM", PickleWriter().proto(2).emptyDict().op('s').stop(), "underflow");
        add("stack underflow: below a MARK", PickleWriter().proto(2).integer(1).mark().op('0').stop(), "underflow");
        add("TUPLE without MARK", PickleWriter().proto(2).integer(1).tuple().stop(), "MARK");
        add("STOP on an empty stack", PickleWriter().proto(2).stop(), "empty stack");
        add("no STOP", PickleWriter().proto(2).integer(1), "STOP");
        add("huge BINUNICODE8 length",
            PickleWriter().proto(4).op(0x8d).raw("\xff\xff\xff\xff\xff\xff\xff\xff").stop(), "truncated");
        add("huge BINUNICODE length", PickleWriter().proto(2).op('X').raw("\xff\xff\xff\x7f").raw("ab").stop(), "truncated");
        add("huge FRAME length", PickleWriter().proto(4).op(0x95).raw(std::string_view("\x00\x00\x00\x00\x00\x00\x00\x80", 8)).stop(), "frame");
        add("GLOBAL without newline", PickleWriter().proto(2).raw("cos\nsystem"), "truncated");
        add("unknown opcode", PickleWriter().proto(2).op('i').stop(), "opcode 0x69");
        add("protocol 6", PickleWriter().proto(6).stop(), "protocol 6");
        add("wide LONG1", PickleWriter().proto(2).op(0x8a).op(9).raw("123456789").stop(), "64 bits");
        add("APPEND to a dict", PickleWriter().proto(2).emptyDict().integer(1).op('a').stop(), "not a list");
        add("SETITEMS with odd count",
            PickleWriter().proto(2).emptyDict().mark().integer(1).setItems().stop(), "odd");
        add("list containing itself",
            PickleWriter().proto(2).emptyList().put(0).get(0).op('a').stop(), "contains itself");
        add("persistent id not a tuple", PickleWriter().proto(2).str("storage").op('Q').stop(), "persistent id");
        add("persistent id with a bad key",
            PickleWriter().proto(2).mark().str("storage").global("torch", "FloatStorage").str("../x").str("cpu").integer(1)
                .tuple().op('Q').stop(),
            "storage key");
        add("tensor past its storage",
            PickleWriter().proto(2).tensor("FloatStorage", "0", 4, 2, {3}, {1}).stop(), "reaches element 4");
        add("tensor with overflowing size",
            PickleWriter().proto(2).tensor("FloatStorage", "0", 4, 0, {1LL << 40, 1LL << 40}, {1LL << 40, 1LL << 40}).stop(),
            "overflows");
        add("tensor with negative size",
            PickleWriter().proto(2).tensor("FloatStorage", "0", 4, 0, {-1}, {1}).stop(), "non-negative");
        add("tensor rank mismatch", PickleWriter().proto(2).tensor("FloatStorage", "0", 4, 0, {2, 2}, {1}).stop(),
            "different lengths");
    }

    void hostilePickle()
    {
        QFETCH(QByteArray, pickle);
        QFETCH(QString, message);
        const Bytes bytes = asBytes(pickle);
        auto value = unpickle(bytes);
        QVERIFY(!value.ok());
        QVERIFY2(QString::fromStdString(value.message()).contains(message), value.message().c_str());
        // The same inside a checkpoint, through the public entry point.
        PickleWriter wrapped;
        wrapped.raw(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
        auto tensors = stateDictOf(writeCheckpoint(wrapped, {}));
        QVERIFY(!tensors.ok());
    }

    void deepNestingIsRefused()
    {
        PickleWriter p;
        p.proto(2);
        constexpr int depth = 200000;
        for (int i = 0; i < depth; ++i) {
            p.emptyList();
        }
        for (int i = 0; i < depth - 1; ++i) {
            p.op('a');
        }
        p.stop();
        auto value = unpickle(p.bytes());
        QVERIFY(!value.ok());
        QVERIFY2(value.message().find("deeper") != std::string::npos, value.message().c_str());

        UnpicklerLimits limits;
        limits.maxStack = 1000;
        auto limited = unpickle(p.bytes(), limits);
        QVERIFY(!limited.ok());
        QVERIFY2(limited.message().find("stack grows") != std::string::npos, limited.message().c_str());
    }

    void everyTruncatedPickleFails()
    {
        const Bytes full = predictorPickle().bytes();
        QVERIFY(unpickle(full).ok());
        for (std::size_t n = 0; n < full.size(); ++n) {
            auto value = unpickle(std::span(full.data(), n));
            QVERIFY2(!value.ok(), qPrintable(QStringLiteral("prefix of %1 bytes parsed").arg(n)));
        }
    }

    void everyTruncatedArchiveFails()
    {
        const Bytes full = predictorCheckpoint();
        QVERIFY(stateDictOf(full).ok());
        for (std::size_t n = 0; n < full.size(); ++n) {
            const Bytes prefix(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(n));
            auto tensors = stateDictOf(prefix);
            QVERIFY2(!tensors.ok(), qPrintable(QStringLiteral("prefix of %1 bytes parsed").arg(n)));
            QVERIFY(!tensors.message().empty());
        }
    }

    void compressedEntry()
    {
        std::vector<ZipItem> items = {{"archive/data.pkl", predictorPickle().bytes(), 8}};
        auto tensors = stateDictOf(writeZip(items));
        QVERIFY(!tensors.ok());
        QCOMPARE(tensors.code(), ErrorCode::Unsupported);
        QVERIFY2(tensors.message().find("compressed entries are not supported") != std::string::npos,
                 tensors.message().c_str());
    }

    void badArchive_data()
    {
        QTest::addColumn<int>("field");   // which field to overwrite
        QTest::addColumn<quint32>("value");
        QTest::addColumn<QString>("message");
        // Fields, counted from the end-of-central-directory record (EOCD) or the first central header (CD).
        QTest::newRow("directory offset past the end") << 0 << 0x7fffffffu << "central directory";
        QTest::newRow("directory offset inside data") << 0 << 10u << "signature";
        QTest::newRow("directory size too large") << 1 << 0x7fffffffu << "central directory";
        QTest::newRow("entry count too large") << 2 << 0xfffeu << "entries";
        QTest::newRow("huge entry size") << 3 << 0xfffffff0u << "different compressed";
        QTest::newRow("huge entry sizes (both)") << 4 << 0xfffffff0u << "size";
        QTest::newRow("local header offset past the end") << 5 << 0x7fffffffu << "outside the file";
        QTest::newRow("local header offset misaligned") << 5 << 3u << "signature";
        QTest::newRow("name length past directory") << 6 << 0xffffu << "runs past";
    }

    void badArchive()
    {
        QFETCH(int, field);
        QFETCH(quint32, value);
        QFETCH(QString, message);
        Bytes bytes = predictorCheckpoint();
        const std::size_t eocd = bytes.size() - 22;
        std::uint32_t directory = 0;
        std::memcpy(&directory, bytes.data() + eocd + 16, 4);
        switch (field) {
        case 0: putLittle<std::uint32_t>(bytes, eocd + 16, value); break;
        case 1: putLittle<std::uint32_t>(bytes, eocd + 12, value); break;
        case 2:
            putLittle<std::uint16_t>(bytes, eocd + 8, static_cast<std::uint16_t>(value));
            putLittle<std::uint16_t>(bytes, eocd + 10, static_cast<std::uint16_t>(value));
            break;
        case 3: putLittle<std::uint32_t>(bytes, directory + 24, value); break;
        case 4:
            putLittle<std::uint32_t>(bytes, directory + 20, value);
            putLittle<std::uint32_t>(bytes, directory + 24, value);
            break;
        case 5: putLittle<std::uint32_t>(bytes, directory + 42, value); break;
        case 6: putLittle<std::uint16_t>(bytes, directory + 28, static_cast<std::uint16_t>(value)); break;
        }
        auto tensors = stateDictOf(bytes);
        QVERIFY(!tensors.ok());
        QVERIFY2(QString::fromStdString(tensors.message()).contains(message), tensors.message().c_str());
    }

    void localHeaderMismatch()
    {
        Bytes bytes = predictorCheckpoint();
        bytes[30] = std::byte{'X'}; // first letter of the first local name
        auto tensors = stateDictOf(bytes);
        QVERIFY(!tensors.ok());
        QVERIFY2(tensors.message().find("does not match") != std::string::npos, tensors.message().c_str());
    }

    void storageProblems()
    {
        PickleWriter p;
        p.proto(2).tensor("FloatStorage", "0", 4, 0, {4}, {1}).stop();
        auto missing = stateDictOf(writeCheckpoint(p, {}));
        QVERIFY(!missing.ok());
        QVERIFY2(missing.message().find("lacks the storage") != std::string::npos, missing.message().c_str());
        auto shortStorage = stateDictOf(writeCheckpoint(p, {{"0", Bytes(15)}}));
        QVERIFY(!shortStorage.ok());
        QVERIFY2(shortStorage.message().find("shorter") != std::string::npos, shortStorage.message().c_str());
    }

    void notACheckpoint()
    {
        const Bytes legacy = PickleWriter().proto(2).integer(1).stop().bytes();
        auto result = stateDictOf(legacy);
        QVERIFY(!result.ok());
        QVERIFY2(result.message().find("legacy") != std::string::npos, result.message().c_str());
        QVERIFY(!stateDictOf(Bytes{}).ok());
        QVERIFY(!readStateDict("/nonexistent/activation_0.pt").ok());
        auto noPickle = stateDictOf(writeZip({{"archive/byteorder", Bytes(6)}}));
        QVERIFY(!noPickle.ok());
        QVERIFY2(noPickle.message().find("data.pkl") != std::string::npos, noPickle.message().c_str());
    }

    // Random corruption of a valid file: any outcome is fine except a crash (ASan watches).
    void randomCorruption()
    {
        const Bytes original = predictorCheckpoint();
        std::mt19937 rng(1234);
        std::uniform_int_distribution<std::size_t> position(0, original.size() - 1);
        std::uniform_int_distribution<int> byte(0, 255);
        for (int round = 0; round < 3000; ++round) {
            Bytes bytes = original;
            const int flips = 1 + round % 4;
            for (int i = 0; i < flips; ++i) {
                bytes[position(rng)] = static_cast<std::byte>(byte(rng));
            }
            auto tensors = stateDictOf(bytes);
            if (tensors.ok()) {
                for (const auto& [name, tensor] : *tensors) {
                    QCOMPARE(tensor.toFloat().size(), static_cast<std::size_t>(tensor.elementCount()));
                }
            } else {
                QVERIFY(!tensors.message().empty());
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestTorchReader)
#include "tst_torch_reader.moc"
