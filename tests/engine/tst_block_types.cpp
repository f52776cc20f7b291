// SPDX-License-Identifier: MIT
// The weight types of GGUF files beyond F32/F16/Q4_0/Q8_0 (cpu/block_dot.h): dequantization and
// activation quantization to the bit, and dot products within float rounding, of vectors that
// ggml itself made (data/block_vectors.txt says how); every ISA table's dot products against
// the scalar reference; and matrix products of every type, mixed in one shared call, against
// the dequantized weights.

#include "core/dtype.h"
#include "core/fp16.h"
#include "cpu/block_dot.h"
#include "cpu/block_quantize.h"
#include "cpu/kernels.h"
#include "cpu/matmul.h"
#include "cpu/quant.h"
#include "cpu/thread_pool.h"

#include <QFile>
#include <QTest>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <random>
#include <vector>

using namespace hearth;
using namespace hearth::cpu;

namespace {

struct Vector {
    QByteArray weights;
    quint64 quantizedRowsHash = 0;
    quint64 dequantizedHash = 0;
    QByteArray activationType;
    QByteArray activations;
    float dot = 0.0f;
};

struct Vectors {
    std::vector<float> w;
    std::vector<float> x;
    std::map<QByteArray, Vector> types;
};

std::vector<float> floatsFromHex(const QByteArray& hex)
{
    const QByteArray bytes = QByteArray::fromHex(hex);
    std::vector<float> v(static_cast<std::size_t>(bytes.size()) / sizeof(float));
    std::memcpy(v.data(), bytes.constData(), v.size() * sizeof(float));
    return v;
}

Vectors readVectors(const QString& path)
{
    Vectors out;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return out;
    Vector* current = nullptr;
    while (!file.atEnd()) {
        const QByteArray line = file.readLine().trimmed();
        if (line.isEmpty() || line.startsWith('#'))
            continue;
        const qsizetype space = line.indexOf(' ');
        const QByteArray key = line.left(space);
        const QByteArray value = line.mid(space + 1);
        if (key == "input_w")
            out.w = floatsFromHex(value);
        else if (key == "input_x")
            out.x = floatsFromHex(value);
        else if (key == "type")
            current = &out.types[value.toUpper()]; // ggml writes "q4_K"
        else if (current && key == "weights")
            current->weights = QByteArray::fromHex(value);
        else if (current && key == "dequantized_fnv1a")
            current->dequantizedHash = value.toULongLong(nullptr, 16);
        else if (current && key == "activations")
            current->activationType = value;
        else if (current && key == "activation_bytes")
            current->activations = QByteArray::fromHex(value);
        else if (current && key == "dot")
            current->dot = value.toFloat();
        else if (current && key == "llama_quantize_rows_fnv1a")
            current->quantizedRowsHash = value.toULongLong(nullptr, 16);
    }
    return out;
}

quint64 fnv1a(const void* data, std::size_t n)
{
    const auto* b = static_cast<const unsigned char*>(data);
    quint64 h = 1469598103934665603ull;
    for (std::size_t i = 0; i < n; ++i) {
        h ^= b[i];
        h *= 1099511628211ull;
    }
    return h;
}

// The rows of the quantizer check, as the data file's generator made them: a 64-bit LCG with
// rows of five scales, some with every third group of 32 zero, some with outliers, some all
// positive.
std::vector<float> fillRows(int rows, int n)
{
    std::vector<float> out(std::size_t(rows) * std::size_t(n));
    std::uint64_t state = 42;
    for (int r = 0; r < rows; ++r) {
        const float scale = 0.01f * float(1 + r % 5);
        for (int j = 0; j < n; ++j) {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            float v = (float(state >> 40) / 16777216.0f * 2.0f - 1.0f) * scale;
            if (r % 7 == 3 && (j / 32) % 3 == 0)
                v = 0.0f;
            if (r % 11 == 5 && j % 97 == 0)
                v *= 20.0f;
            if (r % 13 == 6)
                v = std::fabs(v);
            out[std::size_t(r) * std::size_t(n) + std::size_t(j)] = v;
        }
    }
    return out;
}

constexpr DType kBlockTypes[] = {DType::Q4_1, DType::Q5_0, DType::Q5_1, DType::IQ4_NL, DType::Q2_K, DType::Q3_K,
                                 DType::Q4_K, DType::Q5_K, DType::Q6_K, DType::IQ4_XS, DType::MXFP4, DType::BF16};

// Random but valid blocks: random bytes with finite, moderate half scales where the scales are.
std::vector<std::uint8_t> randomRow(DType type, std::int64_t n, std::mt19937& rng)
{
    std::vector<std::uint8_t> row(rowBytes(type, n));
    std::uniform_int_distribution<int> byte(0, 255);
    for (std::uint8_t& b : row)
        b = std::uint8_t(byte(rng));
    std::uniform_real_distribution<float> scale(-0.02f, 0.02f);
    const auto traits = *dtypeTraits(std::uint32_t(type));
    auto setHalf = [&](std::size_t offset) {
        const std::uint16_t h = floatToHalf(scale(rng));
        std::memcpy(row.data() + offset, &h, 2);
    };
    for (std::size_t b = 0; b < row.size() / traits.blockBytes; ++b) {
        const std::size_t at = b * traits.blockBytes;
        switch (type) {
        case DType::Q4_1:
        case DType::Q5_1:
        case DType::Q4_K:
        case DType::Q5_K:
            setHalf(at);
            setHalf(at + 2);
            break;
        case DType::Q5_0:
        case DType::IQ4_NL:
        case DType::IQ4_XS:
            setHalf(at);
            break;
        case DType::Q2_K:
            setHalf(at + 80);
            setHalf(at + 82);
            break;
        case DType::Q3_K:
            setHalf(at + 108);
            break;
        case DType::Q6_K:
            setHalf(at + 208);
            break;
        case DType::MXFP4:
            row[at] = std::uint8_t(118 + byte(rng) % 12); // an exponent byte: 2^-10 .. 2^1
            break;
        case DType::BF16:
            for (std::size_t i = 0; i < row.size(); i += 2) {
                const float v = scale(rng) * 50.0f;
                std::uint32_t bits;
                std::memcpy(&bits, &v, 4);
                const std::uint16_t h = std::uint16_t(bits >> 16);
                std::memcpy(row.data() + i, &h, 2);
            }
            return row;
        default:
            break;
        }
    }
    return row;
}

std::vector<float> randomFloats(std::int64_t n, std::mt19937& rng)
{
    std::normal_distribution<float> dist(0.0f, 1.0f);
    std::vector<float> v(static_cast<std::size_t>(n));
    for (float& f : v)
        f = dist(rng);
    return v;
}

// The activations @p format wants for @p x.
std::vector<std::uint8_t> quantizedActivations(ActivationFormat format, const std::vector<float>& x)
{
    const auto n = std::int64_t(x.size());
    std::vector<std::uint8_t> out;
    switch (format) {
    case ActivationFormat::Floats:
        out.resize(x.size() * sizeof(float));
        std::memcpy(out.data(), x.data(), out.size());
        break;
    case ActivationFormat::Q8:
        out.resize(std::size_t(n / QK8_0) * sizeof(ActBlockQ8));
        kScalarKernels.quantizeActivations(x.data(), reinterpret_cast<ActBlockQ8*>(out.data()), n);
        break;
    case ActivationFormat::Q8K:
        out.resize(std::size_t(n / QK_K) * sizeof(ActBlockQ8K));
        quantizeActivationsQ8K(x.data(), reinterpret_cast<ActBlockQ8K*>(out.data()), n);
        break;
    }
    return out;
}

} // namespace

class TestBlockTypes : public QObject
{
    Q_OBJECT

    Vectors m_vectors;

private Q_SLOTS:
    void initTestCase()
    {
        m_vectors = readVectors(QStringLiteral(HEARTH_TEST_DATA_DIR "/block_vectors.txt"));
        QCOMPARE(m_vectors.w.size(), std::size_t(512));
        QCOMPARE(m_vectors.x.size(), std::size_t(512));
    }

    void everyBlockTypeIsKnown()
    {
        for (DType type : kBlockTypes) {
            QVERIFY2(isCpuWeightType(type), dtypeName(type).data());
            const BlockFormat* format = blockFormat(type);
            QVERIFY(format);
            QCOMPARE(format->type, type);
        }
        QVERIFY(!blockFormat(DType::Q4_0)); // its own tiled kernels
        QVERIFY(!isCpuWeightType(DType::IQ2_XXS));
        QCOMPARE(rowBytes(DType::IQ4_XS, 256), std::size_t(136));
        QCOMPARE(dtypeName(DType::IQ4_NL), std::string_view("IQ4_NL"));
    }

    void matchesGgml_data()
    {
        QTest::addColumn<int>("type");
        for (DType type : kBlockTypes)
            QTest::newRow(dtypeName(type).data()) << int(type);
    }

    void matchesGgml()
    {
        QFETCH(int, type);
        const DType t = DType(type);
        const QByteArray name(dtypeName(t).data(), qsizetype(dtypeName(t).size()));
        QVERIFY2(m_vectors.types.count(name), name.constData());
        const Vector& v = m_vectors.types.at(name);
        const auto n = std::int64_t(m_vectors.w.size());
        QCOMPARE(std::size_t(v.weights.size()), rowBytes(t, n));

        // Dequantization: bit for bit.
        std::vector<float> y(static_cast<std::size_t>(n));
        dequantizeRow(t, v.weights.constData(), y.data(), n);
        QCOMPARE(fnv1a(y.data(), y.size() * sizeof(float)), v.dequantizedHash);

        // The activations: ggml's Q8_K bytes exactly (Q8_0/Q8_1 are checked by tst_kernels).
        const BlockFormat* format = blockFormat(t);
        const std::vector<std::uint8_t> act = quantizedActivations(format->activations, m_vectors.x);
        if (format->activations == ActivationFormat::Q8K) {
            QCOMPARE(v.activationType.toUpper(), QByteArray("Q8_K"));
            QCOMPARE(act.size(), std::size_t(v.activations.size()));
            QVERIFY(std::memcmp(act.data(), v.activations.constData(), act.size()) == 0);
            for (const CpuKernels* k : kernelVariants()) {
                if (!k->quantizeActivationsQ8K)
                    continue;
                std::vector<ActBlockQ8K> own(std::size_t(n / QK_K));
                k->quantizeActivationsQ8K(m_vectors.x.data(), own.data(), n);
                QVERIFY2(std::memcmp(own.data(), v.activations.constData(), act.size()) == 0, k->name);
            }
        }

        // Dot products, every table: ggml's within the rounding of a different summation order.
        // Two kinds of rows differ more, and Hearth is the nearer to the exact sum for both:
        // ggml rounds BF16 rows' activations to BF16 (Hearth keeps floats), and keeps Q4_1/Q5_1
        // activations' block sums as halves. For those, within 1e-3 of the products' magnitude.
        double magnitude = 0.0;
        double exact = 0.0;
        for (std::size_t i = 0; i < y.size(); ++i) {
            magnitude += std::fabs(double(y[i]) * m_vectors.x[i]);
            exact += double(y[i]) * m_vectors.x[i];
        }
        const bool looser = t == DType::BF16 || t == DType::Q4_1 || t == DType::Q5_1;
        const double bound = looser ? 1e-3 * magnitude : 1e-5 * (1.0 + std::fabs(v.dot));
        for (const CpuKernels* k : kernelVariants()) {
            const float dot = blockDotFor(*k, t)(v.weights.constData(), act.data(), n);
            if (looser)
                QVERIFY(std::fabs(dot - exact) <= std::fabs(double(v.dot) - exact));
            QVERIFY2(std::fabs(dot - v.dot) <= bound,
                     qPrintable(QStringLiteral("%1 %2: %3 vs ggml %4").arg(QString::fromLatin1(k->name),
                         QString::fromLatin1(name)).arg(double(dot), 0, 'g', 9).arg(double(v.dot), 0, 'g', 9)));
        }
    }

    void quantizesLikeLlamaQuantize_data() { matchesGgml_data(); }

    // Byte for byte what llama-quantize writes (ggml_quantize_chunk without an importance matrix).
    void quantizesLikeLlamaQuantize()
    {
        QFETCH(int, type);
        const DType t = DType(type);
        QVERIFY(isBlockQuantizeType(t));
        const QByteArray name(dtypeName(t).data(), qsizetype(dtypeName(t).size()));
        const Vector& v = m_vectors.types.at(name);
        constexpr int kRows = 64;
        constexpr int kCols = 512;
        const std::vector<float> rows = fillRows(kRows, kCols);
        std::vector<std::uint8_t> out(rowBytes(t, kCols) * kRows);
        for (int r = 0; r < kRows; ++r)
            QCOMPARE(quantizeRowBlock(t, rows.data() + r * kCols, out.data() + std::size_t(r) * rowBytes(t, kCols), kCols),
                     rowBytes(t, kCols));
        QCOMPARE(fnv1a(out.data(), out.size()), v.quantizedRowsHash);
        // The fixed row too, against ggml's reference quantizer (for IQ4_NL the reference
        // searches fewer scales than llama-quantize does, so only the rows above apply).
        if (t != DType::IQ4_NL) {
            std::vector<std::uint8_t> row(rowBytes(t, kCols));
            quantizeRowBlock(t, m_vectors.w.data(), row.data(), kCols);
            QCOMPARE(QByteArray(reinterpret_cast<const char*>(row.data()), qsizetype(row.size())).toHex(), v.weights.toHex());
        }
    }

    void vectorDotsMatchReference_data()
    {
        QTest::addColumn<int>("type");
        for (DType type : kBlockTypes)
            QTest::newRow(dtypeName(type).data()) << int(type);
    }

    // Random blocks over every bit pattern the layouts allow.
    void vectorDotsMatchReference()
    {
        QFETCH(int, type);
        const DType t = DType(type);
        const BlockFormat* format = blockFormat(t);
        std::mt19937 rng(1234u + unsigned(type));
        constexpr std::int64_t n = 4096;
        for (int round = 0; round < 20; ++round) {
            const std::vector<std::uint8_t> row = randomRow(t, n, rng);
            const std::vector<float> x = randomFloats(n, rng);
            const std::vector<std::uint8_t> act = quantizedActivations(format->activations, x);
            // The reference dot is the dequantized row against the dequantized activations.
            std::vector<float> w(static_cast<std::size_t>(n));
            dequantizeRow(t, row.data(), w.data(), n);
            const float ref = format->dot(row.data(), act.data(), n);
            double magnitude = 0.0;
            for (std::int64_t i = 0; i < n; ++i)
                magnitude += std::fabs(double(w[std::size_t(i)]) * x[std::size_t(i)]);
            for (const CpuKernels* k : kernelVariants()) {
                const float dot = blockDotFor(*k, t)(row.data(), act.data(), n);
                QVERIFY2(std::fabs(dot - ref) <= 1e-5 * magnitude + 1e-6,
                         qPrintable(QStringLiteral("%1 round %2: %3 vs %4").arg(QString::fromLatin1(k->name)).arg(round)
                                        .arg(double(dot)).arg(double(ref))));
            }
        }
    }

    // Prompt batches (rows unpacked once, several tokens at a time) give each token's row dot
    // product, on every table, for every token count around the kernels' tile of four; and what
    // every table computes is the scalar reference's product, up to the summation order (the
    // VNNI prompt kernel spreads the same integer sums over other float lanes than the decode).
    void promptBatchesEqualRowDots()
    {
        std::mt19937 rng(5);
        constexpr std::int64_t cols = 768;
        constexpr std::int64_t rows = 37;
        ThreadPool pool(2);
        for (DType t : kBlockTypes) {
            std::vector<std::uint8_t> bytes;
            for (std::int64_t r = 0; r < rows; ++r) {
                const auto row = randomRow(t, cols, rng);
                bytes.insert(bytes.end(), row.begin(), row.end());
            }
            WeightMatrix w;
            w.type = t;
            w.data = bytes.data();
            w.rows = rows;
            w.cols = cols;
            std::vector<float> weights(static_cast<std::size_t>(rows * cols));
            for (std::int64_t r = 0; r < rows; ++r)
                dequantizeRow(t, bytes.data() + std::size_t(r) * rowBytes(t, cols), weights.data() + r * cols, cols);
            for (std::int64_t tokens : {2, 3, 4, 5, 9}) {
                const std::vector<float> x = randomFloats(cols * tokens, rng);
                std::vector<float> reference(static_cast<std::size_t>(rows * tokens));
                matmulWith(kScalarKernels, pool, w, x.data(), tokens, reference.data());
                // Float sums in another order differ by a few ulps of sum |w x|, which for these
                // random rows (scales of both signs) is far larger than the result.
                std::vector<float> bound(reference.size());
                for (std::int64_t tok = 0; tok < tokens; ++tok) {
                    for (std::int64_t r = 0; r < rows; ++r) {
                        double magnitude = 0.0;
                        for (std::int64_t c = 0; c < cols; ++c)
                            magnitude += std::fabs(double(weights[std::size_t(r * cols + c)]) * x[std::size_t(tok * cols + c)]);
                        bound[std::size_t(tok * rows + r)] = float(1e-5 * magnitude + 1e-6);
                    }
                }
                for (const CpuKernels* k : kernelVariants()) {
                    std::vector<float> y(static_cast<std::size_t>(rows * tokens));
                    matmulWith(*k, pool, w, x.data(), tokens, y.data());
                    for (std::size_t i = 0; i < y.size(); ++i) {
                        QVERIFY2(std::fabs(y[i] - reference[i]) <= bound[i],
                                 qPrintable(QStringLiteral("%1 %2 tokens %3: %4 vs the reference %5")
                                                .arg(QString::fromLatin1(k->name), QString::fromLatin1(dtypeName(t).data()))
                                                .arg(tokens).arg(double(y[i])).arg(double(reference[i]))));
                    }
                    for (std::int64_t tok = 0; tok < tokens; ++tok) {
                        const std::vector<float> one(x.begin() + tok * cols, x.begin() + (tok + 1) * cols);
                        std::vector<float> ref(static_cast<std::size_t>(rows));
                        matmulWith(*k, pool, w, one.data(), 1, ref.data());
                        for (std::int64_t r = 0; r < rows; ++r) {
                            const float got = y[std::size_t(tok * rows + r)];
                            QVERIFY2(std::fabs(got - ref[std::size_t(r)]) <= bound[std::size_t(tok * rows + r)],
                                     qPrintable(QStringLiteral("%1 %2 tokens %3 row %4: %5 vs %6")
                                                    .arg(QString::fromLatin1(k->name), QString::fromLatin1(dtypeName(t).data()))
                                                    .arg(tokens).arg(r).arg(double(got)).arg(double(ref[std::size_t(r)]))));
                        }
                    }
                }
            }
        }
    }

    // Y = W X through matmulShared with one matrix of every type, decode and a prompt batch,
    // against the dequantized weights times the floats: the quantized activations' error only.
    void sharedMatmulOfEveryType()
    {
        std::mt19937 rng(99);
        constexpr std::int64_t cols = 512;
        constexpr std::int64_t rows = 40;
        std::vector<std::vector<std::uint8_t>> data;
        std::vector<WeightMatrix> ws;
        for (DType t : kBlockTypes) {
            std::vector<std::uint8_t> bytes;
            for (std::int64_t r = 0; r < rows; ++r) {
                const auto row = randomRow(t, cols, rng);
                bytes.insert(bytes.end(), row.begin(), row.end());
            }
            data.push_back(std::move(bytes));
        }
        for (std::size_t i = 0; i < data.size(); ++i) {
            WeightMatrix w;
            w.type = kBlockTypes[i];
            w.data = data[i].data();
            w.rows = rows;
            w.cols = cols;
            ws.push_back(w);
        }
        ThreadPool pool(2);
        for (std::int64_t tokens : {1, 5}) {
            const std::vector<float> x = randomFloats(cols * tokens, rng);
            std::vector<std::vector<float>> ys(ws.size(), std::vector<float>(std::size_t(rows * tokens)));
            std::vector<float*> yPointers;
            for (auto& y : ys)
                yPointers.push_back(y.data());
            matmulShared(pool, ws.data(), yPointers.data(), int(ws.size()), x.data(), tokens);
            for (std::size_t i = 0; i < ws.size(); ++i) {
                std::vector<float> w(static_cast<std::size_t>(cols));
                for (std::int64_t r = 0; r < rows; ++r) {
                    getRow(ws[i], r, w.data());
                    for (std::int64_t t = 0; t < tokens; ++t) {
                        double exact = 0.0;
                        double magnitude = 0.0;
                        for (std::int64_t c = 0; c < cols; ++c) {
                            exact += double(w[std::size_t(c)]) * x[std::size_t(t * cols + c)];
                            magnitude += std::fabs(double(w[std::size_t(c)]) * x[std::size_t(t * cols + c)]);
                        }
                        const float got = ys[i][std::size_t(t * rows + r)];
                        // 8-bit activations: about 1/127 of each product at worst, far less summed.
                        QVERIFY2(std::fabs(got - exact) <= 0.02 * magnitude + 1e-6,
                                 qPrintable(QStringLiteral("%1 row %2 token %3: %4 vs %5")
                                                .arg(QString::fromLatin1(dtypeName(ws[i].type).data())).arg(r).arg(t)
                                                .arg(double(got)).arg(exact)));
                    }
                }
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestBlockTypes)
#include "tst_block_types.moc"
