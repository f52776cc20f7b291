// SPDX-License-Identifier: MIT
// CPU kernels: every ISA path this machine can run against the scalar reference. Quantizers and
// dequantizers must agree to the byte, dot products within float rounding. Paths the CPU lacks
// are skipped, not failed.

#include "core/fp16.h"
#include "cpu/block_dot.h"
#include "cpu/isa.h"
#include "cpu/kernels.h"
#include "cpu/matmul.h"
#include "cpu/quant.h"
#include "cpu/thread_pool.h"
#include "cpu/weight_pack.h"

#include <QTest>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

using namespace hearth;
using namespace hearth::cpu;

namespace {

const char* const kVariantNames[] = {"scalar", "avx2", "avx512", "avx512-vnni"};

const CpuKernels* variantByName(const QByteArray& name)
{
    for (const CpuKernels* k : kernelVariants()) {
        if (name == k->name) {
            return k;
        }
    }
    return nullptr;
}

std::vector<float> randomFloats(std::mt19937& rng, std::size_t n, float scale)
{
    std::normal_distribution<float> dist(0.0f, scale);
    std::vector<float> v(n);
    for (float& f : v) {
        f = dist(rng);
    }
    return v;
}

// Rows of @p values (rows x cols) stored as @p type by the reference quantizers.
std::vector<std::uint8_t> encode(DType type, const std::vector<float>& values, std::int64_t rows, std::int64_t cols)
{
    const std::size_t stride = rowBytes(type, cols);
    std::vector<std::uint8_t> out(stride * static_cast<std::size_t>(rows));
    for (std::int64_t r = 0; r < rows; ++r) {
        const float* src = values.data() + r * cols;
        void* dst = out.data() + static_cast<std::size_t>(r) * stride;
        switch (type) {
        case DType::F32:
            std::memcpy(dst, src, stride);
            break;
        case DType::F16:
            kScalarKernels.convertRowF16(src, static_cast<std::uint16_t*>(dst), cols);
            break;
        case DType::Q4_0:
            kScalarKernels.quantizeRowQ4_0(src, static_cast<BlockQ4_0*>(dst), cols);
            break;
        case DType::Q8_0:
            kScalarKernels.quantizeRowQ8_0(src, static_cast<BlockQ8_0*>(dst), cols);
            break;
        default:
            quantizeRow(type, src, dst, cols); // K-quants: ggml's reference quantizer
            break;
        }
    }
    return out;
}

void addVariantRows()
{
    QTest::addColumn<QByteArray>("variant");
    for (const char* name : kVariantNames) {
        QTest::newRow(name) << QByteArray(name);
    }
}

#define FETCH_VARIANT(k)                                                                             \
    QFETCH(QByteArray, variant);                                                                     \
    const CpuKernels* k = variantByName(variant);                                                    \
    if (!k)                                                                                          \
        QSKIP(qPrintable(QStringLiteral("this CPU cannot run the %1 kernels").arg(QString::fromLatin1(variant))))

bool sameHalf(std::uint16_t a, std::uint16_t b)
{
    const auto isNan = [](std::uint16_t h) { return (h & 0x7c00u) == 0x7c00u && (h & 0x03ffu) != 0; };
    return a == b || (isNan(a) && isNan(b) && (a & 0x8000u) == (b & 0x8000u));
}

} // namespace

class TestKernels : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void isaSelection();
    void rowsViewKeepsThePackedCopy();
    void halfToFloatMatches_data() { addVariantRows(); }
    void halfToFloatMatches();
    void floatToHalfMatches_data() { addVariantRows(); }
    void floatToHalfMatches();
    void quantizersByteExact_data() { addVariantRows(); }
    void quantizersByteExact();
    void q4RoundingEdgeCases_data() { addVariantRows(); }
    void q4RoundingEdgeCases();
    void dequantizeExact_data() { addVariantRows(); }
    void dequantizeExact();
    void matmulMatchesReference_data();
    void matmulMatchesReference();
    void scalarMatchesFloatMath_data();
    void scalarMatchesFloatMath();
    void sharedMatchesSeparate_data() { addVariantRows(); }
    void sharedMatchesSeparate();
    void stridedViewMatchesRows_data() { addVariantRows(); }
    void stridedViewMatchesRows();
    void getRowAndBadInput();
    void f16DecodeKeepsNonFiniteWeights_data() { addVariantRows(); }
    void f16DecodeKeepsNonFiniteWeights();
    void packedLayout();
    void packedLayoutKQuants();
    void packedSharedRaggedRows_data() { addVariantRows(); }
    void packedSharedRaggedRows();
    void attentionHelpersMatchReference_data() { addVariantRows(); }
    void attentionHelpersMatchReference();
    void swigluMatchesReference_data() { addVariantRows(); }
    void swigluMatchesReference();
    void attendHeadMatchesReference_data() { addVariantRows(); }
    void attendHeadMatchesReference();
    void attendHeadReadsQ8_0_data() { addVariantRows(); }
    void attendHeadReadsQ8_0();
    void attentionSinksTakeTheirShare_data() { addVariantRows(); }
    void attentionSinksTakeTheirShare();
};

void TestKernels::isaSelection()
{
    QVERIFY(isaSupported(Isa::Scalar));
    QVERIFY(static_cast<int>(activeIsa()) <= static_cast<int>(detectedIsa()));
    QVERIFY(isaSupported(detectedIsa()));
    QCOMPARE(QByteArray(isaName(Isa::Avx512)), QByteArray("avx512"));
    QVERIFY(!cpuFeatureString().empty());
    QCOMPARE(activeKernels().isa, activeIsa());
    QCOMPARE(kernelVariants().front(), &kScalarKernels);
    for (Isa isa : {Isa::Scalar, Isa::Avx2, Isa::Avx512}) {
        QCOMPARE(kernelsFor(isa) != nullptr, isaSupported(isa));
    }
}

void TestKernels::halfToFloatMatches()
{
    FETCH_VARIANT(k);
    std::vector<std::uint16_t> halves(65536);
    for (std::size_t i = 0; i < halves.size(); ++i) {
        halves[i] = static_cast<std::uint16_t>(i);
    }
    std::vector<float> out(halves.size());
    k->dequantizeRowF16(halves.data(), out.data(), static_cast<std::int64_t>(halves.size()));
    for (std::size_t i = 0; i < halves.size(); ++i) {
        const float expected = halfToFloat(halves[i]);
        if (std::isnan(expected)) {
            QVERIFY2(std::isnan(out[i]), qPrintable(QString::number(i, 16)));
            QCOMPARE(std::signbit(out[i]), std::signbit(expected));
        } else {
            QVERIFY2(std::bit_cast<std::uint32_t>(out[i]) == std::bit_cast<std::uint32_t>(expected),
                     qPrintable(QString::number(i, 16)));
        }
    }
}

void TestKernels::floatToHalfMatches()
{
    FETCH_VARIANT(k);
    std::vector<float> values = {0.0f, -0.0f, 1.0f, -1.0f, 65504.0f, 65519.99f, 65520.0f, -65520.0f, 1e30f,
                                 std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                                 std::numeric_limits<float>::quiet_NaN(), -std::numeric_limits<float>::quiet_NaN(),
                                 std::numeric_limits<float>::denorm_min(), 5.96046448e-08f, 2.98023224e-08f,
                                 2.98023254e-08f, 6.09755516e-05f, 6.10351562e-05f, 1.00048828f, 1.00146484f};
    // Exact midpoints between neighbouring halves (ties to even) across normal and subnormal ranges.
    for (std::uint32_t h = 0; h < 0x7c00; h += 7) {
        const float a = halfToFloat(static_cast<std::uint16_t>(h));
        const float b = halfToFloat(static_cast<std::uint16_t>(h + 1));
        values.push_back((a + b) * 0.5f);
        values.push_back(-(a + b) * 0.5f);
    }
    std::mt19937 rng(7);
    for (int i = 0; i < 200000; ++i) {
        // Random bit patterns cover every exponent, including float subnormals and NaN payloads.
        values.push_back(std::bit_cast<float>(static_cast<std::uint32_t>(rng())));
    }
    std::vector<std::uint16_t> out(values.size());
    k->convertRowF16(values.data(), out.data(), static_cast<std::int64_t>(values.size()));
    for (std::size_t i = 0; i < values.size(); ++i) {
        QVERIFY2(sameHalf(out[i], floatToHalf(values[i])),
                 qPrintable(QStringLiteral("%1 -> %2, expected %3")
                                .arg(static_cast<double>(values[i]))
                                .arg(out[i], 0, 16)
                                .arg(floatToHalf(values[i]), 0, 16)));
    }
}

void TestKernels::quantizersByteExact()
{
    FETCH_VARIANT(k);
    std::mt19937 rng(42);
    for (float scale : {1e-6f, 0.02f, 1.0f, 300.0f}) {
        constexpr std::int64_t n = 32 * 97;
        std::vector<float> x = randomFloats(rng, n, scale);
        std::fill(x.begin() + 64, x.begin() + 96, 0.0f); // an all-zero block
        for (int j = 96; j < 128; ++j) {
            x[static_cast<std::size_t>(j)] = static_cast<float>(j - 112) * 0.5f; // exact .5 ties
        }
        x[130] = 5.0f; // equal magnitudes of both signs: the first one wins
        x[131] = -5.0f;
        x[161] = -5.0f;
        x[170] = 5.0f;

        std::vector<BlockQ8_0> q8(n / 32), q8ref(n / 32);
        k->quantizeRowQ8_0(x.data(), q8.data(), n);
        kScalarKernels.quantizeRowQ8_0(x.data(), q8ref.data(), n);
        QVERIFY(std::memcmp(q8.data(), q8ref.data(), q8.size() * sizeof(BlockQ8_0)) == 0);

        std::vector<BlockQ4_0> q4(n / 32), q4ref(n / 32);
        k->quantizeRowQ4_0(x.data(), q4.data(), n);
        kScalarKernels.quantizeRowQ4_0(x.data(), q4ref.data(), n);
        QVERIFY(std::memcmp(q4.data(), q4ref.data(), q4.size() * sizeof(BlockQ4_0)) == 0);

        std::vector<ActBlockQ8> act(n / 32), actRef(n / 32);
        k->quantizeActivations(x.data(), act.data(), n);
        kScalarKernels.quantizeActivations(x.data(), actRef.data(), n);
        QVERIFY(std::memcmp(act.data(), actRef.data(), act.size() * sizeof(ActBlockQ8)) == 0);
        // Activation blocks hold the same values as a BlockQ8_0.
        for (std::size_t b = 0; b < q8ref.size(); ++b) {
            QVERIFY(std::memcmp(act[b].qs, q8ref[b].qs, 32) == 0);
            QCOMPARE(act[b].d, halfToFloat(q8ref[b].d));
        }
    }
}

void TestKernels::q4RoundingEdgeCases()
{
    FETCH_VARIANT(k);
    // Known values from ggml's reference quantizer: max -8 maps to 0, d = max / -8.
    float x[32];
    for (int j = 0; j < 32; ++j) {
        x[j] = static_cast<float>(j - 16) * 0.5f; // -8 .. 7.5
    }
    BlockQ4_0 q;
    k->quantizeRowQ4_0(x, &q, 32);
    QCOMPARE(q.d, floatToHalf(1.0f)); // max |x| is -8 -> d = 1
    QCOMPARE(q.qs[0] & 0x0f, 0);      // -8 / 1 + 8.5 -> 0
    QCOMPARE(q.qs[15] >> 4, 15);      // 7.5 + 8.5 = 16 -> capped at 15
    BlockQ8_0 q8;
    k->quantizeRowQ8_0(x, &q8, 32);
    QCOMPARE(static_cast<int>(q8.qs[0]), -127);
}

void TestKernels::dequantizeExact()
{
    FETCH_VARIANT(k);
    std::mt19937 rng(3);
    constexpr std::int64_t n = 32 * 41;
    std::vector<BlockQ8_0> q8(n / 32);
    std::vector<BlockQ4_0> q4(n / 32);
    for (std::size_t b = 0; b < q8.size(); ++b) {
        // Random finite scales (exponent below 31) with random payload bytes.
        q8[b].d = static_cast<std::uint16_t>(rng() % 0x7c00u) | static_cast<std::uint16_t>(rng() & 0x8000u);
        q4[b].d = static_cast<std::uint16_t>(rng() % 0x7c00u) | static_cast<std::uint16_t>(rng() & 0x8000u);
        for (auto& v : q8[b].qs) {
            v = static_cast<std::int8_t>(rng());
        }
        for (auto& v : q4[b].qs) {
            v = static_cast<std::uint8_t>(rng());
        }
    }
    std::vector<float> out(n), ref(n);
    k->dequantizeRowQ8_0(q8.data(), out.data(), n);
    kScalarKernels.dequantizeRowQ8_0(q8.data(), ref.data(), n);
    QVERIFY(std::memcmp(out.data(), ref.data(), out.size() * sizeof(float)) == 0);
    k->dequantizeRowQ4_0(q4.data(), out.data(), n);
    kScalarKernels.dequantizeRowQ4_0(q4.data(), ref.data(), n);
    QVERIFY(std::memcmp(out.data(), ref.data(), out.size() * sizeof(float)) == 0);
}

void TestKernels::matmulMatchesReference_data()
{
    QTest::addColumn<QByteArray>("variant");
    QTest::addColumn<int>("type");
    QTest::addColumn<qint64>("rows");
    QTest::addColumn<qint64>("cols");
    QTest::addColumn<qint64>("tokens");
    QTest::addColumn<int>("threads");
    struct Shape {
        qint64 rows, cols, tokens;
    };
    // Rows not a multiple of any tile, token counts 1..17 (every tail of 2- and 4-token tiles),
    // widths from one block to 4096. From 16 tokens on, rows without a packed copy are packed a
    // group at a time as the product uses them (the last three shapes, whole super-blocks wide).
    const Shape shapes[] = {{1, 32, 1},    {3, 64, 2},     {17, 96, 3},   {64, 160, 4},  {131, 256, 5},
                            {300, 32, 6},  {7, 4096, 7},   {45, 1024, 8}, {29, 544, 9},  {33, 128, 10},
                            {5, 2048, 11}, {300, 512, 12}, {19, 320, 13}, {2, 800, 14},  {66, 192, 15},
                            {9, 224, 16},  {100, 384, 17}, {300, 4096, 1}, {257, 2048, 1}, {50, 512, 16},
                            {35, 768, 33}, {16, 256, 40}};
    // K-quants (packed as Q4_Kx16, ...) where the width is whole super-blocks; MXFP4 as MXFP4x16.
    const DType types[] = {DType::F32,  DType::F16,  DType::Q4_0, DType::Q8_0,   DType::Q4_K,
                           DType::Q5_K, DType::Q6_K, DType::IQ4_XS, DType::MXFP4};
    for (const char* name : kVariantNames) {
        if (QByteArray(name) == "scalar") {
            continue; // the reference itself
        }
        int i = 0;
        for (const Shape& s : shapes) {
            for (DType t : types) {
                if (s.cols % dtypeTraits(static_cast<std::uint32_t>(t))->blockElements != 0)
                    continue;
                const int threads = 1 + (i++ % 3);
                QTest::addRow("%s %s %lldx%lld t%lld j%d", name, dtypeName(t).data(), static_cast<long long>(s.rows),
                              static_cast<long long>(s.cols), static_cast<long long>(s.tokens), threads)
                    << QByteArray(name) << static_cast<int>(t) << s.rows << s.cols << s.tokens << threads;
            }
        }
    }
    // F32/F16 rows whose width is not a multiple of the vector width.
    for (const char* name : kVariantNames) {
        if (QByteArray(name) != "scalar") {
            QTest::addRow("%s F16 odd width", name) << QByteArray(name) << 1 << qint64(13) << qint64(37) << qint64(5) << 2;
            QTest::addRow("%s F32 odd width", name) << QByteArray(name) << 0 << qint64(9) << qint64(3) << qint64(2) << 3;
        }
    }
}

void TestKernels::matmulMatchesReference()
{
    FETCH_VARIANT(k);
    QFETCH(int, type);
    QFETCH(qint64, rows);
    QFETCH(qint64, cols);
    QFETCH(qint64, tokens);
    QFETCH(int, threads);
    const DType dtype = static_cast<DType>(type);

    std::mt19937 rng(static_cast<unsigned>(rows * 131 + cols * 7 + tokens));
    const std::vector<float> wf = randomFloats(rng, static_cast<std::size_t>(rows * cols), 0.05f);
    const std::vector<float> x = randomFloats(rng, static_cast<std::size_t>(tokens * cols), 1.0f);
    const std::vector<std::uint8_t> wq = encode(dtype, wf, rows, cols);
    const WeightMatrix w{dtype, wq.data(), rows, cols};

    ThreadPool pool(threads);
    ThreadPool single(1);
    std::vector<float> y(static_cast<std::size_t>(rows * tokens), -1.0f);
    std::vector<float> ref(y.size(), -2.0f);
    matmulWith(*k, pool, w, x.data(), tokens, y.data());
    matmulWith(kScalarKernels, single, w, x.data(), tokens, ref.data());
    // A packed copy (where this table has a packed kernel for the type) must give the same
    // results; compare that one too, with the same tolerance.
    PackedWeightStore store;
    WeightMatrix packed = w;
    const bool isPacked = store.packFor(*k, packed);
    std::vector<float> yPacked(y.size(), -3.0f);
    if (isPacked && packedGemmFor(*k, interleavedPacking(dtype))) {
        QCOMPARE(packed.packing, interleavedPacking(dtype));
        QCOMPARE(packed.packedRows, rows / kQ4x16Rows * kQ4x16Rows);
    } else if (isPacked) {
        // Every other type: a copy of the rows in huge-page memory, read instead of the original.
        QCOMPARE(packed.packing, Packing::Rows);
        QCOMPARE(packed.packedRows, rows);
        QVERIFY(packed.packed != w.data);
        QVERIFY(std::memcmp(packed.packed, w.data, wq.size()) == 0);
    }
    if (isPacked) {
        matmulWith(*k, pool, packed, x.data(), tokens, yPacked.data());
    }

    // Integer block dots are exact on every path; only the float accumulation order differs,
    // so the error is bounded by a few ulps of sum |w * x|.
    std::vector<float> wd(static_cast<std::size_t>(cols));
    for (qint64 r = 0; r < rows; ++r) {
        getRow(w, r, wd.data());
        for (qint64 t = 0; t < tokens; ++t) {
            double magnitude = 0.0;
            for (qint64 c = 0; c < cols; ++c) {
                magnitude += std::fabs(static_cast<double>(wd[static_cast<std::size_t>(c)]) * x[static_cast<std::size_t>(t * cols + c)]);
            }
            const float want = ref[static_cast<std::size_t>(t * rows + r)];
            const double tolerance = 2e-6 * static_cast<double>(cols > 64 ? std::sqrt(double(cols)) : 8.0) * magnitude + 1e-30;
            for (const std::vector<float>* out : {&y, &yPacked}) {
                if (out == &yPacked && !isPacked) {
                    continue;
                }
                const float got = (*out)[static_cast<std::size_t>(t * rows + r)];
                if (!(std::fabs(static_cast<double>(got) - want) <= tolerance)) {
                    QFAIL(qPrintable(QStringLiteral("%1row %2 token %3: %4 vs reference %5 (tolerance %6)")
                                         .arg(out == &yPacked ? QStringLiteral("packed ") : QString())
                                         .arg(r)
                                         .arg(t)
                                         .arg(static_cast<double>(got))
                                         .arg(static_cast<double>(want))
                                         .arg(tolerance)));
                }
            }
        }
    }
}

// Decoding F16 rows by integer widening (cpu/f16_widen.h) would read an infinite or NaN weight
// as a finite value, so the store marks only matrices without them; a damaged row must still
// give a non-finite result (the converter's load-and-answer check relies on it).
void TestKernels::f16DecodeKeepsNonFiniteWeights()
{
    FETCH_VARIANT(k);
    const std::int64_t rows = 32;
    const std::int64_t cols = 96;
    std::mt19937 rng(5);
    const std::vector<float> wf = randomFloats(rng, static_cast<std::size_t>(rows * cols), 0.05f);
    const std::vector<float> x = randomFloats(rng, static_cast<std::size_t>(cols), 1.0f);
    std::vector<std::uint8_t> clean = encode(DType::F16, wf, rows, cols);
    std::vector<std::uint8_t> damaged = clean;
    auto* halves = reinterpret_cast<std::uint16_t*>(damaged.data());
    halves[3 * cols + 5] = 0x7c00;      // +infinity in row 3
    halves[20 * cols + 90] = 0x7e00;    // NaN in row 20, in the tail past the last whole run
    QVERIFY(halvesAreFinite(reinterpret_cast<const std::uint16_t*>(clean.data()), clean.size() / 2));
    QVERIFY(!halvesAreFinite(halves, damaged.size() / 2));

    ThreadPool pool(2);
    std::vector<float> ref(static_cast<std::size_t>(rows));
    std::vector<float> y(static_cast<std::size_t>(rows));
    for (const std::vector<std::uint8_t>* bytes : {&clean, &damaged}) {
        WeightMatrix w{DType::F16, bytes->data(), rows, cols};
        matmulWith(kScalarKernels, pool, w, x.data(), 1, ref.data());
        PackedWeightStore store;
        (void)store.packFor(*k, w);
        QCOMPARE(w.finiteHalves, bytes == &clean);
        matmulWith(*k, pool, w, x.data(), 1, y.data());
        for (std::int64_t r = 0; r < rows; ++r) {
            const float want = ref[static_cast<std::size_t>(r)];
            const float got = y[static_cast<std::size_t>(r)];
            if (!std::isfinite(want)) {
                QVERIFY2(!std::isfinite(got), qPrintable(QStringLiteral("row %1: %2").arg(r).arg(got)));
                QCOMPARE(std::isnan(got), std::isnan(want));
            } else {
                QVERIFY2(std::fabs(got - want) <= 1e-5f * (1.0f + std::fabs(want)),
                         qPrintable(QStringLiteral("row %1: %2 vs %3").arg(r).arg(got).arg(want)));
            }
        }
    }
}

// A view of a matrix's later rows (a magnitude-sparse layer's cold neurons) computes those rows
// of the whole product, through the packed copy where the view starts on a packed group, for
// every packing: interleaved groups, and plain rows (F32, F16).
void TestKernels::rowsViewKeepsThePackedCopy()
{
    const std::int64_t rows = 80;
    const std::int64_t cols = 256;
    std::mt19937 rng(5);
    const std::vector<float> x = randomFloats(rng, std::size_t(cols), 1.0f);
    ThreadPool pool(2);
    for (const DType dtype : {DType::F32, DType::F16, DType::Q4_0, DType::Q8_0, DType::Q4_K}) {
        const std::vector<std::uint8_t> wq = encode(dtype, randomFloats(rng, std::size_t(rows * cols), 0.05f), rows, cols);
        WeightMatrix w{dtype, wq.data(), rows, cols};
        PackedWeightStore store;
        (void)store.pack(w);
        std::vector<float> all(static_cast<std::size_t>(rows));
        matmul(pool, w, x.data(), 1, all.data());
        for (const std::int64_t begin : {std::int64_t(16), std::int64_t(21), std::int64_t(64)}) {
            const WeightMatrix view = rowsView(w, begin, rows);
            QCOMPARE(view.rows, rows - begin);
            QCOMPARE(view.packing != Packing::None, w.packing == Packing::Rows || (w.packing != Packing::None && begin % 16 == 0));
            std::vector<float> part(static_cast<std::size_t>(rows - begin));
            matmul(pool, view, x.data(), 1, part.data());
            for (std::int64_t r = begin; r < rows; ++r) {
                const float want = all[std::size_t(r)];
                QVERIFY2(std::fabs(part[std::size_t(r - begin)] - want) <= 1e-5f * (1.0f + std::fabs(want)),
                         qPrintable(QStringLiteral("%1 from %2, row %3").arg(QString::fromLatin1(dtypeName(dtype).data())).arg(begin).arg(r)));
            }
        }
    }
}

void TestKernels::scalarMatchesFloatMath_data()
{
    QTest::addColumn<int>("type");
    QTest::addColumn<double>("tolerance");
    // Q4_0/Q8_0 weights are compared after dequantization, so only activation quantization
    // (Q8_0, ~1/254 relative per value) separates them from float math.
    QTest::newRow("F32") << static_cast<int>(DType::F32) << 1e-5;
    QTest::newRow("F16") << static_cast<int>(DType::F16) << 1e-5;
    QTest::newRow("Q4_0") << static_cast<int>(DType::Q4_0) << 1e-2;
    QTest::newRow("Q8_0") << static_cast<int>(DType::Q8_0) << 1e-2;
}

void TestKernels::scalarMatchesFloatMath()
{
    QFETCH(int, type);
    QFETCH(double, tolerance);
    const DType dtype = static_cast<DType>(type);
    constexpr qint64 rows = 23, cols = 320, tokens = 3;
    std::mt19937 rng(11);
    const std::vector<float> wf = randomFloats(rng, rows * cols, 0.1f);
    const std::vector<float> x = randomFloats(rng, tokens * cols, 1.0f);
    const std::vector<std::uint8_t> wq = encode(dtype, wf, rows, cols);
    const WeightMatrix w{dtype, wq.data(), rows, cols};
    ThreadPool pool(2);
    std::vector<float> y(rows * tokens);
    matmulWith(kScalarKernels, pool, w, x.data(), tokens, y.data());
    std::vector<float> wd(cols);
    for (qint64 r = 0; r < rows; ++r) {
        getRow(w, r, wd.data());
        for (qint64 t = 0; t < tokens; ++t) {
            double exact = 0.0, magnitude = 0.0;
            for (qint64 c = 0; c < cols; ++c) {
                exact += static_cast<double>(wd[c]) * x[t * cols + c];
                magnitude += std::fabs(static_cast<double>(wd[c]) * x[t * cols + c]);
            }
            QVERIFY(std::fabs(y[t * rows + r] - exact) <= tolerance * magnitude);
        }
    }
}

// A view whose rows lie apart (WeightMatrix::rowStride: the gate rows of a fused neuron tensor)
// gives what the same rows stored together give: decode, a short prompt and one long enough for
// the rows to be packed as they are used; the bytes between the rows are never read as weights.
void TestKernels::stridedViewMatchesRows()
{
    FETCH_VARIANT(k);
    constexpr qint64 rows = 37, cols = 512;
    std::mt19937 rng(9);
    for (DType type : {DType::F32, DType::F16, DType::Q4_0, DType::Q8_0, DType::Q4_K, DType::Q6_K}) {
        const std::vector<std::uint8_t> wq = encode(type, randomFloats(rng, rows * cols, 0.1f), rows, cols);
        const std::size_t rb = rowBytes(type, cols);
        const std::size_t stride = 3 * rb;
        std::vector<std::uint8_t> spread(stride * rows, 0xff); // NaN halves, extreme scales between the rows
        for (qint64 r = 0; r < rows; ++r)
            std::memcpy(spread.data() + r * stride + rb, wq.data() + r * rb, rb);
        const WeightMatrix together{type, wq.data(), rows, cols};
        WeightMatrix apart{type, spread.data() + rb, rows, cols};
        apart.rowStride = stride;
        ThreadPool pool(2);
        for (qint64 tokens : {1, 5, 20}) {
            const std::vector<float> x = randomFloats(rng, tokens * cols, 1.0f);
            std::vector<float> want(rows * tokens, 1.0f);
            std::vector<float> got(rows * tokens, 2.0f);
            matmulWith(*k, pool, together, x.data(), tokens, want.data());
            matmulWith(*k, pool, apart, x.data(), tokens, got.data());
            QVERIFY2(got == want, qPrintable(QStringLiteral("%1, %2 tokens").arg(QLatin1String(dtypeName(type).data())).arg(tokens)));
        }
        std::vector<float> row(cols, 0.0f);
        std::vector<float> wantRow(cols, 1.0f);
        getRow(apart, rows - 1, row.data());
        getRow(together, rows - 1, wantRow.data());
        QCOMPARE(row, wantRow);
    }
}

void TestKernels::sharedMatchesSeparate()
{
    FETCH_VARIANT(k);
    constexpr qint64 cols = 256;
    std::mt19937 rng(5);
    const qint64 rowsOf[] = {64, 37, 16};
    const DType typeOf[] = {DType::Q4_0, DType::F16, DType::Q8_0};
    std::vector<std::vector<std::uint8_t>> storage;
    std::vector<WeightMatrix> ws;
    for (int i = 0; i < 3; ++i) {
        storage.push_back(encode(typeOf[i], randomFloats(rng, rowsOf[i] * cols, 0.1f), rowsOf[i], cols));
    }
    for (int i = 0; i < 3; ++i) {
        ws.push_back({typeOf[i], storage[static_cast<std::size_t>(i)].data(), rowsOf[i], cols});
    }
    for (qint64 tokens : {1, 6}) {
        const std::vector<float> x = randomFloats(rng, tokens * cols, 1.0f);
        ThreadPool pool(3);
        std::vector<std::vector<float>> shared(3), separate(3);
        float* ys[3];
        for (int i = 0; i < 3; ++i) {
            shared[i].assign(rowsOf[i] * tokens, 0.0f);
            separate[i].assign(rowsOf[i] * tokens, 1.0f);
            ys[i] = shared[i].data();
            matmulWith(*k, pool, ws[static_cast<std::size_t>(i)], x.data(), tokens, separate[i].data());
        }
        matmulSharedWith(*k, pool, ws.data(), ys, 3, x.data(), tokens);
        for (int i = 0; i < 3; ++i) {
            for (std::size_t j = 0; j < shared[i].size(); ++j) {
                QVERIFY(std::fabs(shared[i][j] - separate[i][j]) <= 1e-5f * (1.0f + std::fabs(separate[i][j])));
            }
        }
    }
}

void TestKernels::getRowAndBadInput()
{
    constexpr qint64 rows = 4, cols = 64;
    std::mt19937 rng(9);
    const std::vector<float> wf = randomFloats(rng, rows * cols, 1.0f);
    const std::vector<std::uint8_t> wq = encode(DType::Q8_0, wf, rows, cols);
    const WeightMatrix w{DType::Q8_0, wq.data(), rows, cols};
    std::vector<float> row(cols), ref(cols);
    getRow(w, 2, row.data());
    dequantizeRow(DType::Q8_0, wq.data() + 2 * rowBytes(DType::Q8_0, cols), ref.data(), cols);
    QCOMPARE(row, ref);

    // Out-of-range rows, unsupported types and null data give zeros, not a crash.
    getRow(w, rows, row.data());
    QCOMPARE(row, std::vector<float>(cols, 0.0f));
    ThreadPool pool(2);
    std::vector<float> y(rows, 5.0f);
    const std::vector<float> x(cols, 1.0f);
    matmul(pool, WeightMatrix{DType::Q4_K, wq.data(), rows, cols}, x.data(), 1, y.data());
    QCOMPARE(y, std::vector<float>(rows, 0.0f));
    y.assign(rows, 5.0f);
    matmul(pool, WeightMatrix{DType::Q8_0, nullptr, rows, cols}, x.data(), 1, y.data());
    QCOMPARE(y, std::vector<float>(rows, 0.0f));
    y.assign(rows, 5.0f);
    matmul(pool, WeightMatrix{DType::Q8_0, wq.data(), rows, 33}, x.data(), 1, y.data()); // not whole blocks
    QCOMPARE(y, std::vector<float>(rows, 0.0f));
    QCOMPARE(quantizeRow(DType::Q4_K, x.data(), row.data(), cols), std::size_t(0));
}

void TestKernels::packedLayout()
{
    if (!PackedWeightStore::enabled()) {
        QSKIP("HEARTH_CPU_REPACK=0 turns packing off");
    }
    // The layout documented in weight_pack.h, byte for byte: 2 groups of 16 rows, 3 blocks.
    constexpr qint64 rows = 37, cols = 96;
    std::mt19937 rng(13);
    const std::vector<std::uint8_t> wq = encode(DType::Q4_0, randomFloats(rng, rows * cols, 1.0f), rows, cols);
    const WeightMatrix w{DType::Q4_0, wq.data(), rows, cols};
    const std::size_t groupBytes = q4x16GroupBytes(cols);
    QCOMPARE(groupBytes, std::size_t(3 * 288));
    std::vector<std::uint8_t> packed(2 * groupBytes);
    packInterleaved(w, 0, 2, packed.data());
    for (qint64 r = 0; r < 32; ++r) {
        const auto* row = reinterpret_cast<const BlockQ4_0*>(wq.data() + static_cast<std::size_t>(r) * rowBytes(DType::Q4_0, cols));
        const std::uint8_t* group = packed.data() + static_cast<std::size_t>(r / 16) * groupBytes;
        const int lane = static_cast<int>(r % 16);
        for (int b = 0; b < 3; ++b) {
            const std::uint8_t* block = group + 288 * b;
            std::uint16_t d;
            std::memcpy(&d, block + 2 * lane, 2);
            QCOMPARE(d, row[b].d);
            for (int j = 0; j < 16; ++j) {
                QCOMPARE(block[32 + 64 * (j / 4) + 4 * lane + j % 4], row[b].qs[j]);
            }
        }
    }

    // Q8_0x16: the same with whole bytes, four to a lane.
    const std::vector<std::uint8_t> q8 = encode(DType::Q8_0, randomFloats(rng, rows * cols, 1.0f), rows, cols);
    const std::size_t q8GroupBytes = packedGroupBytes(Packing::Q8_0x16, cols);
    QCOMPARE(q8GroupBytes, std::size_t(3 * 544));
    std::vector<std::uint8_t> packedQ8(2 * q8GroupBytes);
    packInterleaved(WeightMatrix{DType::Q8_0, q8.data(), rows, cols}, 0, 2, packedQ8.data());
    for (qint64 r = 0; r < 32; ++r) {
        const auto* row = reinterpret_cast<const BlockQ8_0*>(q8.data() + static_cast<std::size_t>(r) * rowBytes(DType::Q8_0, cols));
        const int lane = static_cast<int>(r % 16);
        for (int b = 0; b < 3; ++b) {
            const std::uint8_t* block = packedQ8.data() + static_cast<std::size_t>(r / 16) * q8GroupBytes + 544 * b;
            QVERIFY(std::memcmp(block + 2 * lane, &row[b].d, 2) == 0);
            for (int j = 0; j < 32; ++j)
                QCOMPARE(std::int8_t(block[32 + 64 * (j / 4) + 4 * lane + j % 4]), row[b].qs[j]);
        }
    }

    // The store interleaves only for a table with the kernel, and leaves the original rows in
    // place; without one the rows are copied as they are into huge pages, where there are any.
    PackedWeightStore store;
    WeightMatrix scalarView = w;
    const bool copied = store.packFor(kScalarKernels, scalarView);
    std::size_t q5Bytes = 0;
    QCOMPARE(copied, PackedWeightStore::hugePagesEnabled());
    QCOMPARE(scalarView.packing, copied ? Packing::Rows : Packing::None);
    QCOMPARE(scalarView.data, w.data);
    for (const CpuKernels* k : kernelVariants()) {
        if (!k->gemmQ4_0x16) {
            continue;
        }
        WeightMatrix view = w;
        QVERIFY(store.packFor(*k, view));
        QVERIFY(!store.packFor(*k, view)); // already packed
        QCOMPARE(view.packedRows, qint64(32));
        QVERIFY(std::memcmp(view.packed, packed.data(), packed.size()) == 0);
        QCOMPARE(view.data, w.data);
        std::vector<float> a(cols), b(cols);
        getRow(view, 36, a.data());
        getRow(w, 36, b.data());
        QCOMPARE(a, b);
        WeightMatrix small{DType::Q4_0, wq.data(), 15, cols};
        QVERIFY(!store.packFor(*k, small)); // not one whole group
        std::vector<std::uint8_t> q5 = encode(DType::Q5_0, randomFloats(rng, rows * cols, 1.0f), rows, cols);
        q5Bytes = q5.size();
        WeightMatrix other{DType::Q5_0, q5.data(), rows, cols};
        QCOMPARE(store.packFor(*k, other), copied); // no interleaved layout: a copy of the rows
        QCOMPARE(other.packing, copied ? Packing::Rows : Packing::None);
    }
    // The interleaved copies, and where rows are copied the scalar view's and the Q5_0 ones.
    const std::size_t copies = copied ? wq.size() + (kernelVariants().size() - 1) * q5Bytes : 0;
    QCOMPARE(store.bytes(), (kernelVariants().size() - 1) * packed.size() + copies);
}

// The K-quant layouts of weight_pack.h at a few documented places: row 16 + 5 of a 40-row,
// two-super-block matrix, its second super-block (group 1, column 1).
void TestKernels::packedLayoutKQuants()
{
    constexpr qint64 rows = 40, cols = 512;
    constexpr int row = 21, lane = 5;
    std::mt19937 rng(17);
    for (DType type : {DType::Q4_K, DType::Q5_K, DType::Q6_K, DType::IQ4_XS}) {
        const std::vector<std::uint8_t> wq = encode(type, randomFloats(rng, rows * cols, 1.0f), rows, cols);
        const WeightMatrix w{type, wq.data(), rows, cols};
        const std::size_t groupBytes = packedGroupBytes(interleavedPacking(type), cols);
        std::vector<std::uint8_t> packed(2 * groupBytes);
        packInterleaved(w, 0, 2, packed.data());
        const std::uint8_t* block = packed.data() + groupBytes + groupBytes / 2;
        const std::uint8_t* source = wq.data() + row * rowBytes(type, cols) + rowBytes(type, cols) / 2;
        if (type == DType::IQ4_XS) {
            QCOMPARE(groupBytes / 2, kIQ4XSx16BlockBytes);
            const auto& b = *reinterpret_cast<const BlockIQ4_XS*>(source);
            QVERIFY(std::memcmp(block + 2 * lane, &b.d, 2) == 0);
            for (int run = 0; run < 8; ++run) {
                const int scale = (((b.scalesL[run / 2] >> (4 * (run % 2))) & 15) | (((b.scalesH >> (2 * run)) & 3) << 4)) - 32;
                QCOMPARE(int(static_cast<std::int8_t>(block[kIQ4XSx16ScaleOffset + 32 * (run / 2) + 2 * lane + run % 2])), scale);
            }
            // Weight 32s + e has index qs[16s + e % 16], low nibble for e < 16.
            const auto index = [&](int w) { return (b.qs[16 * (w / 32) + w % 16] >> (w % 32 < 16 ? 0 : 4)) & 15; };
            for (int j = 0; j < 4; ++j) {
                for (int e = 0; e < 32; ++e) {
                    const std::uint8_t byte = block[kIQ4XSx16QuantOffset + 512 * j + 64 * (e / 4) + 4 * lane + e % 4];
                    QCOMPARE(byte & 15, index(64 * j + e));
                    QCOMPARE(byte >> 4, index(64 * j + 32 + e));
                }
            }
            continue;
        }
        if (type == DType::Q6_K) {
            QCOMPARE(groupBytes / 2, kQ6Kx16BlockBytes);
            const auto& b = *reinterpret_cast<const BlockQ6_K*>(source);
            QVERIFY(std::memcmp(block + 2 * lane, &b.d, 2) == 0);
            for (int g = 0; g < 16; ++g)
                QCOMPARE(static_cast<std::int8_t>(block[kQ6Kx16ScaleOffset + 32 * (g / 2) + 2 * lane + g % 2]), b.scales[g]);
            for (int h = 0; h < 2; ++h) {
                for (int j = 0; j < 32; ++j) {
                    const int k = j / 4, i = j % 4;
                    QCOMPARE(block[kQ6Kx16LowOffset + 128 * (8 * h + k) + 4 * lane + i], b.ql[64 * h + j]);
                    QCOMPARE(block[kQ6Kx16LowOffset + 128 * (8 * h + k) + 64 + 4 * lane + i], b.ql[64 * h + 32 + j]);
                    QCOMPARE(block[kQ6Kx16HighOffset + 64 * (8 * h + k) + 4 * lane + i], b.qh[32 * h + j]);
                }
            }
            continue;
        }
        const bool fifth = type == DType::Q5_K;
        QCOMPARE(groupBytes / 2, fifth ? kQ5Kx16BlockBytes : kQ4Kx16BlockBytes);
        // Q4_K and Q5_K share their first fields.
        const auto& b = *reinterpret_cast<const BlockQ4_K*>(source);
        const auto& b5 = *reinterpret_cast<const BlockQ5_K*>(source);
        QVERIFY(std::memcmp(block + 2 * lane, &b.d, 2) == 0);
        QVERIFY(std::memcmp(block + kQ4Kx16DminOffset + 2 * lane, &b.dmin, 2) == 0);
        for (int run = 0; run < 8; ++run) {
            std::int32_t scale = 0, min = 0;
            scaleMinK4(b.scales, run, scale, min);
            QCOMPARE(int(block[kQ4Kx16ScaleOffset + 16 * run + lane]), scale);
            QCOMPARE(int(block[kQ4Kx16MinOffset + 32 * (run / 2) + 2 * lane + run % 2]), min);
        }
        const std::uint8_t* qs = fifth ? b5.qs : b.qs;
        for (int j = 0; j < 4; ++j) {
            for (int k = 0; k < 8; ++k) {
                for (int i = 0; i < 4; ++i)
                    QCOMPARE(block[kQ4Kx16QuantOffset + 512 * j + 64 * k + 4 * lane + i], qs[32 * j + 4 * k + i]);
            }
        }
        for (int k = 0; fifth && k < 8; ++k) {
            for (int i = 0; i < 4; ++i)
                QCOMPARE(block[kQ5Kx16HighOffset + 64 * k + 4 * lane + i], b5.qh[4 * k + i]);
        }
    }
}

void TestKernels::packedSharedRaggedRows()
{
    FETCH_VARIANT(k);
    if (!k->gemmQ4_0x16 || !PackedWeightStore::enabled()) {
        QSKIP("no packed kernel in this table, or HEARTH_CPU_REPACK=0");
    }
    // Q/K/V-like parts whose boundaries are not multiples of 16 rows, so threads' ranges cut
    // packed groups: the edges must fall back to the stored rows and still match.
    constexpr qint64 cols = 192;
    const qint64 rowsOf[] = {40, 53, 67};
    std::mt19937 rng(21);
    std::vector<std::vector<std::uint8_t>> storage;
    std::vector<WeightMatrix> plain, packed;
    PackedWeightStore store;
    for (qint64 rows : rowsOf) {
        storage.push_back(encode(DType::Q4_0, randomFloats(rng, rows * cols, 0.1f), rows, cols));
        plain.push_back({DType::Q4_0, storage.back().data(), rows, cols});
        packed.push_back(plain.back());
        QVERIFY(store.packFor(*k, packed.back()));
    }
    for (qint64 tokens : {1, 7}) {
        const std::vector<float> x = randomFloats(rng, tokens * cols, 1.0f);
        for (int threads : {1, 2, 3, 5}) {
            ThreadPool pool(threads);
            std::vector<std::vector<float>> want(3), got(3);
            float* ys[3];
            for (int i = 0; i < 3; ++i) {
                want[i].assign(rowsOf[i] * tokens, 1.0f);
                got[i].assign(rowsOf[i] * tokens, 2.0f);
                ys[i] = got[i].data();
                matmulWith(kScalarKernels, pool, plain[static_cast<std::size_t>(i)], x.data(), tokens, want[i].data());
            }
            matmulSharedWith(*k, pool, packed.data(), ys, 3, x.data(), tokens);
            for (int i = 0; i < 3; ++i) {
                for (std::size_t j = 0; j < got[i].size(); ++j) {
                    QVERIFY2(std::fabs(got[i][j] - want[i][j]) <= 1e-4f * (1.0f + std::fabs(want[i][j])),
                             qPrintable(QStringLiteral("part %1 index %2 threads %3").arg(i).arg(j).arg(threads)));
                }
            }
        }
    }
}

void TestKernels::attentionHelpersMatchReference()
{
    FETCH_VARIANT(k);
    std::mt19937 rng(7);
    // Head sizes, odd tails and an empty row.
    for (const std::int64_t n : {0, 1, 7, 16, 31, 64, 80, 128, 131}) {
        const std::vector<float> a = randomFloats(rng, std::size_t(n), 1.0f);
        const std::vector<float> b = randomFloats(rng, std::size_t(n), 1.0f);
        double exact = 0.0;
        double magnitude = 0.0;
        for (std::int64_t i = 0; i < n; ++i) {
            exact += double(a[std::size_t(i)]) * double(b[std::size_t(i)]);
            magnitude += std::fabs(double(a[std::size_t(i)]) * double(b[std::size_t(i)]));
        }
        // Only the summation order differs between tables.
        const float d = k->dotF32(a.data(), b.data(), n);
        QVERIFY2(std::fabs(double(d) - exact) <= 1e-6 * magnitude + 1e-30,
                 qPrintable(QStringLiteral("n=%1: %2 vs %3").arg(n).arg(d).arg(exact)));

        std::vector<float> y = randomFloats(rng, std::size_t(n), 1.0f);
        std::vector<float> ref = y;
        k->axpyF32(y.data(), 0.37f, a.data(), n);
        kScalarKernels.axpyF32(ref.data(), 0.37f, a.data(), n);
        for (std::int64_t i = 0; i < n; ++i) {
            // One fused or two rounded operations per element.
            QVERIFY(std::fabs(y[std::size_t(i)] - ref[std::size_t(i)]) <= 1e-6f * (std::fabs(ref[std::size_t(i)]) + 1.0f));
        }
    }
}

void TestKernels::swigluMatchesReference()
{
    FETCH_VARIANT(k);
    std::mt19937 rng(11);
    // Ordinary values, the saturated ends of silu, zeros and non-finite inputs; 67 elements so
    // every table also runs its scalar tail.
    std::vector<float> gate = randomFloats(rng, 67, 6.0f);
    const float special[] = {0.0f, -0.0f, 90.0f, -90.0f, 200.0f, -200.0f, 1e-30f, -1e-30f, 87.5f, -87.5f,
                             std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity()};
    std::copy(std::begin(special), std::end(special), gate.begin() + 3);
    gate[40] = std::numeric_limits<float>::quiet_NaN();
    const std::vector<float> up = randomFloats(rng, gate.size(), 1.0f);
    std::vector<float> y = gate;
    std::vector<float> ref = gate;
    k->swigluF32(y.data(), up.data(), std::int64_t(y.size()));
    kScalarKernels.swigluF32(ref.data(), up.data(), std::int64_t(ref.size()));
    for (std::size_t i = 0; i < y.size(); ++i) {
        if (std::isnan(ref[i])) {
            QVERIFY2(std::isnan(y[i]), qPrintable(QStringLiteral("element %1: %2").arg(i).arg(y[i])));
            continue;
        }
        if (y[i] == ref[i]) {
            continue; // also the infinities
        }
        QVERIFY2(std::fabs(y[i] - ref[i]) <= 1e-6f * std::fabs(ref[i]) + 1e-37f,
                 qPrintable(QStringLiteral("gate %1: %2 vs %3").arg(gate[i]).arg(y[i]).arg(ref[i])));
    }
}

// A prompt's attention per head against the scalar reference (query by query, exp and double
// sums): head sizes the vectors divide and ones they do not (8, as stories260K), prompts from
// 1 to 37 tokens (whole and partial query blocks and key vectors), starting at position 0 or
// after earlier tokens in the cache, with the cache's row stride wider than a head.
void TestKernels::attendHeadMatchesReference()
{
    FETCH_VARIANT(k);
    std::mt19937 rng(17);
    struct Case {
        int headDim, nq, firstPos;
    };
    for (const Case c : {Case{64, 1, 0}, Case{64, 5, 0}, Case{64, 8, 3}, Case{64, 37, 0}, Case{64, 13, 40},
                         Case{128, 17, 9}, Case{80, 9, 2}, Case{8, 11, 4}, Case{32, 33, 31}}) {
        const std::size_t kvStride = std::size_t(c.headDim) * 3 + 5;
        const int keys = c.firstPos + c.nq;
        const std::vector<float> q = randomFloats(rng, std::size_t(c.nq) * std::size_t(c.headDim) * 2, 1.0f);
        const std::vector<float> kc = randomFloats(rng, std::size_t(keys) * kvStride, 1.0f);
        const std::vector<float> vc = randomFloats(rng, std::size_t(keys) * kvStride, 1.0f);
        std::vector<float> scratch(attendHeadScratchFloats(keys, c.headDim));
        std::vector<float> want(std::size_t(c.nq) * std::size_t(c.headDim), -1.0f);
        std::vector<float> got(want.size(), -2.0f);
        // The same cache in F16 (a session's default), against the float cache of its values.
        std::vector<std::uint16_t> kh(kc.size());
        std::vector<std::uint16_t> vh(vc.size());
        std::vector<float> kr(kc.size());
        std::vector<float> vr(vc.size());
        for (std::size_t i = 0; i < kc.size(); ++i) {
            kh[i] = floatToHalf(kc[i]);
            vh[i] = floatToHalf(vc[i]);
            kr[i] = halfToFloat(kh[i]);
            vr[i] = halfToFloat(vh[i]);
        }
        std::vector<float> wantHalf(want.size(), -1.0f);
        std::vector<float> gotHalf(want.size(), -2.0f);
        std::vector<float> gotHalfScalar(want.size(), -3.0f);
        AttendHeadArgs a;
        a.q = q.data();
        a.qStride = std::size_t(c.headDim) * 2;
        a.nq = c.nq;
        a.firstPos = c.firstPos;
        a.k = kc.data() + 3;
        a.v = vc.data() + 3;
        a.kvStride = kvStride;
        a.headDim = c.headDim;
        a.scale = 1.0f / std::sqrt(float(c.headDim));
        a.outStride = std::size_t(c.headDim);
        a.scratch = scratch.data();
        a.out = want.data();
        kScalarKernels.attendHead(a);
        a.out = got.data();
        k->attendHead(a);
        a.k = kr.data() + 3;
        a.v = vr.data() + 3;
        a.out = wantHalf.data();
        kScalarKernels.attendHead(a);
        a.k = kh.data() + 3;
        a.v = vh.data() + 3;
        a.kvType = KvElement::F16;
        a.out = gotHalf.data();
        k->attendHead(a);
        a.out = gotHalfScalar.data();
        kScalarKernels.attendHead(a);
        // The same queries as the heads of one KV head at one position (a decoded token): each
        // equals that query attending alone at firstPos + nq - 1, in F32 and in F16.
        const int pos = c.firstPos + c.nq - 1;
        for (const bool half : {false, true}) {
            std::vector<float> shared(want.size(), -4.0f);
            std::vector<float> alone(want.size(), -5.0f);
            AttendHeadArgs g = a;
            g.k = half ? static_cast<const void*>(kh.data() + 3) : static_cast<const void*>(kc.data() + 3);
            g.v = half ? static_cast<const void*>(vh.data() + 3) : static_cast<const void*>(vc.data() + 3);
            g.kvType = half ? KvElement::F16 : KvElement::F32;
            g.firstPos = pos;
            g.samePosition = true;
            g.out = shared.data();
            k->attendHead(g);
            for (int i = 0; i < c.nq; ++i) {
                AttendHeadArgs one = g;
                one.samePosition = false;
                one.nq = 1;
                one.q = a.q + std::size_t(i) * a.qStride;
                one.out = alone.data() + std::size_t(i) * std::size_t(c.headDim);
                kScalarKernels.attendHead(one);
            }
            for (std::size_t i = 0; i < want.size(); ++i)
                QVERIFY2(std::fabs(shared[i] - alone[i]) <= 1e-5f * (1.0f + std::fabs(alone[i])),
                         qPrintable(QStringLiteral("shared KV%1, head %2, %3 queries at %4: element %5: %6 vs %7")
                                        .arg(half ? QStringLiteral(" (F16)") : QString())
                                        .arg(c.headDim)
                                        .arg(c.nq)
                                        .arg(pos)
                                        .arg(i)
                                        .arg(shared[i])
                                        .arg(alone[i])));
        }
        for (std::size_t i = 0; i < want.size(); ++i) {
            QVERIFY2(std::fabs(gotHalf[i] - wantHalf[i]) <= 1e-5f * (1.0f + std::fabs(wantHalf[i]))
                         && std::fabs(gotHalfScalar[i] - wantHalf[i]) <= 1e-5f * (1.0f + std::fabs(wantHalf[i])),
                     qPrintable(QStringLiteral("F16 cache, head %1, %2 queries from %3: element %4: %5 and %6 vs %7")
                                    .arg(c.headDim)
                                    .arg(c.nq)
                                    .arg(c.firstPos)
                                    .arg(i)
                                    .arg(gotHalf[i])
                                    .arg(gotHalfScalar[i])
                                    .arg(wantHalf[i])));
            QVERIFY2(std::fabs(got[i] - want[i]) <= 1e-5f * (1.0f + std::fabs(want[i])),
                     qPrintable(QStringLiteral("head %1, %2 queries from %3: element %4: %5 vs %6")
                                    .arg(c.headDim)
                                    .arg(c.nq)
                                    .arg(c.firstPos)
                                    .arg(i)
                                    .arg(got[i])
                                    .arg(want[i])));
        }
    }
}

// gpt-oss's attention sinks: a sink score s joins each query's softmax with no value behind it,
// so every output is the plain one times Z / (Z + e^s), Z the sum of e^score over the keys; the
// vector kernels give the reference's outputs, for a prompt (one sink for the head) and for the
// heads of one KV head (a sink each).
void TestKernels::attentionSinksTakeTheirShare()
{
    FETCH_VARIANT(k);
    std::mt19937 rng(29);
    for (const int headDim : {64, 8}) {
        constexpr int kQueries = 5;
        constexpr int kFirstPos = 3;
        const int keys = kFirstPos + kQueries;
        const std::size_t stride = std::size_t(headDim);
        const std::vector<float> q = randomFloats(rng, kQueries * stride, 1.0f);
        const std::vector<float> kc = randomFloats(rng, std::size_t(keys) * stride, 1.0f);
        const std::vector<float> vc = randomFloats(rng, std::size_t(keys) * stride, 1.0f);
        const float sinks[kQueries] = {0.5f, -1.0f, 2.0f, 0.0f, 3.0f};
        std::vector<float> scratch(attendHeadScratchFloats(keys, headDim));
        AttendHeadArgs a;
        a.q = q.data();
        a.qStride = stride;
        a.nq = kQueries;
        a.firstPos = kFirstPos;
        a.k = kc.data();
        a.v = vc.data();
        a.kvStride = stride;
        a.headDim = headDim;
        a.scale = 1.0f / std::sqrt(float(headDim));
        a.outStride = stride;
        a.scratch = scratch.data();
        for (const bool samePosition : {false, true}) {
            a.samePosition = samePosition;
            a.firstPos = samePosition ? keys - 1 : kFirstPos;
            std::vector<float> plain(kQueries * stride);
            std::vector<float> want(plain.size());
            std::vector<float> got(plain.size());
            a.sinks = nullptr;
            a.out = plain.data();
            kScalarKernels.attendHead(a);
            a.sinks = sinks;
            a.out = want.data();
            kScalarKernels.attendHead(a);
            a.out = got.data();
            k->attendHead(a);
            for (int i = 0; i < kQueries; ++i) {
                const int seen = samePosition ? keys : kFirstPos + i + 1;
                double z = 0.0;
                for (int j = 0; j < seen; ++j) {
                    double dot = 0.0;
                    for (int d = 0; d < headDim; ++d)
                        dot += double(q[std::size_t(i) * stride + std::size_t(d)]) * kc[std::size_t(j) * stride + std::size_t(d)];
                    z += std::exp(dot * a.scale);
                }
                const double share = z / (z + std::exp(double(sinks[samePosition ? i : 0])));
                for (int d = 0; d < headDim; ++d) {
                    const std::size_t e = std::size_t(i) * stride + std::size_t(d);
                    QVERIFY2(std::fabs(want[e] - plain[e] * share) <= 1e-5 * (1.0 + std::fabs(plain[e])),
                             qPrintable(QStringLiteral("reference, head %1, query %2").arg(headDim).arg(i)));
                    QVERIFY2(std::fabs(got[e] - want[e]) <= 1e-5f * (1.0f + std::fabs(want[e])),
                             qPrintable(QStringLiteral("head %1, query %2%3: %4 vs %5")
                                            .arg(headDim)
                                            .arg(i)
                                            .arg(samePosition ? QStringLiteral(" (shared KV)") : QString())
                                            .arg(got[e])
                                            .arg(want[e])));
                }
            }
        }
    }
}

// A Q8_0 cache (KvCacheType::Q8_0): the kernels read its blocks as the reference reads the
// floats they stand for, for a prompt and for a decoded token's shared KV head, with rows of
// three heads and the head in the middle one.
void TestKernels::attendHeadReadsQ8_0()
{
    FETCH_VARIANT(k);
    std::mt19937 rng(23);
    struct Case {
        int headDim, nq, firstPos;
    };
    for (const Case c : {Case{64, 1, 0}, Case{64, 9, 5}, Case{128, 17, 30}, Case{32, 33, 2}, Case{256, 4, 11}}) {
        const std::size_t rowElements = std::size_t(c.headDim) * 3;
        const std::size_t rowBlocks = rowElements / QK8_0;
        const int keys = c.firstPos + c.nq;
        const std::vector<float> q = randomFloats(rng, std::size_t(c.nq) * std::size_t(c.headDim), 1.0f);
        const std::vector<float> kc = randomFloats(rng, std::size_t(keys) * rowElements, 1.0f);
        const std::vector<float> vc = randomFloats(rng, std::size_t(keys) * rowElements, 1.0f);
        std::vector<BlockQ8_0> k8(std::size_t(keys) * rowBlocks);
        std::vector<BlockQ8_0> v8(k8.size());
        std::vector<float> kr(kc.size());
        std::vector<float> vr(vc.size());
        for (int j = 0; j < keys; ++j) {
            quantizeRow(DType::Q8_0, kc.data() + j * rowElements, k8.data() + j * rowBlocks, std::int64_t(rowElements));
            quantizeRow(DType::Q8_0, vc.data() + j * rowElements, v8.data() + j * rowBlocks, std::int64_t(rowElements));
        }
        dequantizeRow(DType::Q8_0, k8.data(), kr.data(), std::int64_t(kr.size()));
        dequantizeRow(DType::Q8_0, v8.data(), vr.data(), std::int64_t(vr.size()));
        std::vector<float> scratch(attendHeadScratchFloats(keys, c.headDim));
        for (const bool samePosition : {false, true}) {
            AttendHeadArgs a;
            a.q = q.data();
            a.qStride = std::size_t(c.headDim);
            a.nq = c.nq;
            a.firstPos = samePosition ? keys - 1 : c.firstPos;
            a.samePosition = samePosition;
            a.headDim = c.headDim;
            a.scale = 1.0f / std::sqrt(float(c.headDim));
            a.outStride = std::size_t(c.headDim);
            a.scratch = scratch.data();
            std::vector<float> want(std::size_t(c.nq) * std::size_t(c.headDim), -1.0f);
            a.k = kr.data() + c.headDim; // the middle head
            a.v = vr.data() + c.headDim;
            a.kvStride = rowElements;
            a.out = want.data();
            kScalarKernels.attendHead(a);
            a.kvType = KvElement::Q8_0;
            a.k = k8.data() + c.headDim / QK8_0;
            a.v = v8.data() + c.headDim / QK8_0;
            a.kvStride = rowBlocks;
            for (const CpuKernels* kernels : {k, &kScalarKernels}) {
                std::vector<float> got(want.size(), -2.0f);
                a.out = got.data();
                kernels->attendHead(a);
                for (std::size_t i = 0; i < want.size(); ++i)
                    QVERIFY2(std::fabs(got[i] - want[i]) <= 1e-5f * (1.0f + std::fabs(want[i])),
                             qPrintable(QStringLiteral("%1, head %2, %3 queries from %4%5: element %6: %7 vs %8")
                                            .arg(QLatin1String(kernels->name))
                                            .arg(c.headDim)
                                            .arg(c.nq)
                                            .arg(a.firstPos)
                                            .arg(samePosition ? QStringLiteral(", one position") : QString())
                                            .arg(i)
                                            .arg(got[i])
                                            .arg(want[i])));
            }
        }
    }
}

QTEST_GUILESS_MAIN(TestKernels)
#include "tst_kernels.moc"
