// SPDX-License-Identifier: MIT
// The sparse FFN: neuron kernels against a plain masked reference for every weight type and
// kernel table, thread-count agreement and run-to-run determinism, and whole models (written by
// the test in both sparse layouts) against the dense path.

#include "cpu/kernels.h"
#include "cpu/quant.h"
#include "cpu/thread_pool.h"
#include "model/llama_forward.h"
#include "model/llama_model.h"
#include "sparse/down_projection.h"
#include "sparse/neuron_kernels.h"
#include "sparse/neuron_pack.h"
#include "sparse/sparse_ffn.h"
#include "session_test_support.h"
#include "test_support.h"
#include "synth/synthetic_sparse.h"

#include <hearth/model.h>

#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

using namespace hearth;

namespace {

constexpr std::int64_t kEmbd = 256; // one K-quant super-block
constexpr std::int64_t kFf = 96;
// Every type the neuron kernels read.
constexpr DType kNeuronTypes[] = {DType::F32, DType::F16, DType::Q8_0, DType::Q4_0, DType::Q4_K, DType::Q5_K, DType::Q6_K};

// Quantized rows of a fused or separate layout, and their dequantized values.
struct NeuronFixture {
    DType type;
    bool fused;
    std::vector<std::byte> fusedData;            // kFf rows of gate|up|down
    std::vector<std::byte> gate, up, down;        // kFf rows each
    std::vector<float> gateF, upF, downF;         // dequantized, kFf x kEmbd
    sparse::NeuronWeights weights;
};

NeuronFixture makeNeurons(DType type, bool fused, sparse::NeuronActivation act, std::uint32_t seed)
{
    NeuronFixture f{type, fused, {}, {}, {}, {}, {}, {}, {}, {}};
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, 0.3f);
    const std::size_t rb = rowBytes(type, kEmbd);
    std::vector<float> row(kEmbd);
    auto fill = [&](std::vector<std::byte>& bytes, std::vector<float>& deq) {
        bytes.resize(rb * kFf);
        deq.resize(std::size_t(kFf * kEmbd));
        for (std::int64_t i = 0; i < kFf; ++i) {
            for (float& v : row)
                v = normal(rng);
            cpu::quantizeRow(type, row.data(), bytes.data() + std::size_t(i) * rb, kEmbd);
            cpu::dequantizeRow(type, bytes.data() + std::size_t(i) * rb, deq.data() + std::size_t(i * kEmbd), kEmbd);
        }
    };
    fill(f.gate, f.gateF);
    fill(f.up, f.upF);
    fill(f.down, f.downF);
    if (fused) {
        f.fusedData.resize(3 * rb * kFf);
        for (std::int64_t i = 0; i < kFf; ++i) {
            std::memcpy(f.fusedData.data() + std::size_t(3 * i) * rb, f.gate.data() + std::size_t(i) * rb, rb);
            std::memcpy(f.fusedData.data() + std::size_t(3 * i + 1) * rb, f.up.data() + std::size_t(i) * rb, rb);
            std::memcpy(f.fusedData.data() + std::size_t(3 * i + 2) * rb, f.down.data() + std::size_t(i) * rb, rb);
        }
        f.weights = sparse::NeuronWeights::fused({type, f.fusedData.data(), kFf, 3 * kEmbd}, kEmbd, act);
    } else {
        f.weights = sparse::NeuronWeights::separate({type, f.gate.data(), kFf, kEmbd}, {type, f.up.data(), kFf, kEmbd},
                                                    {type, f.down.data(), kFf, kEmbd}, act);
    }
    return f;
}

float activation(sparse::NeuronActivation a, float g, float u)
{
    switch (a) {
    case sparse::NeuronActivation::ReGlu: return g > 0 ? g * u : 0;
    case sparse::NeuronActivation::DRelu: return g > 0 && u > 0 ? g * u : 0;
    case sparse::NeuronActivation::Relu2: return g > 0 ? g * g * u : 0;
    case sparse::NeuronActivation::SwiGlu: return g / (1 + std::exp(-g)) * u;
    case sparse::NeuronActivation::Relu: return u > 0 ? u : 0;
    case sparse::NeuronActivation::GateGiven: return g * u; // g: the given silu(gate)
    }
    return 0;
}

// The plain masked FFN: out[t] = sum over listed neurons i with mask[t][i] of act(i) * down_i.
std::vector<float> reference(const NeuronFixture& f, const std::vector<float>& x, int tokens,
                             const std::vector<std::int32_t>& ids, const std::vector<std::uint8_t>& mask)
{
    std::vector<float> out(std::size_t(tokens * kEmbd), 0.0f);
    for (int t = 0; t < tokens; ++t) {
        const float* xt = x.data() + std::size_t(t * kEmbd);
        for (std::int32_t i : ids) {
            if (!mask.empty() && !mask[std::size_t(t * kFf + i)])
                continue;
            double g = 0, u = 0;
            for (std::int64_t c = 0; c < kEmbd; ++c) {
                g += double(f.gateF[std::size_t(i * kEmbd + c)]) * xt[c];
                u += double(f.upF[std::size_t(i * kEmbd + c)]) * xt[c];
            }
            const float a = activation(f.weights.activation, float(g), float(u));
            for (std::int64_t c = 0; c < kEmbd; ++c)
                out[std::size_t(t * kEmbd + c)] += a * f.downF[std::size_t(i * kEmbd + c)];
        }
    }
    return out;
}

double maxRelativeError(const std::vector<float>& a, const std::vector<float>& b)
{
    double diff = 0, scale = 1e-6;
    for (std::size_t i = 0; i < a.size(); ++i) {
        diff = std::max(diff, double(std::fabs(a[i] - b[i])));
        scale = std::max(scale, double(std::fabs(b[i])));
    }
    return diff / scale;
}

// @p count rows of @p n in @p type and a factor for each, the rows not in memory order (as a
// token's kept rows need not be); row r's values have a spread of 1 + r % @p spreads.
struct ScaledRows {
    std::vector<std::uint8_t> data;
    std::vector<const void*> rows;
    std::vector<float> scales;
};

// One of RowKernels' ways of adding scaled rows (axpyRows, axpyRowsInt8).
using AddRows = void (*sparse::RowKernels::*)(float*, const float*, const void* const*, int, std::int64_t);

// Every table of @p isas that has @p add for @p type adds the first @p count of @p c's rows into
// an output of n values starting at 0.25: within @p tolerance of @p expected (relative).
void checkAddedRows(std::initializer_list<cpu::Isa> isas, DType type, AddRows add, const ScaledRows& c, int count,
                    const std::vector<float>& expected, double tolerance)
{
    for (cpu::Isa isa : isas) {
        const sparse::NeuronKernels* k = sparse::neuronKernelsFor(isa);
        if (!k || !(k->forType(type)->*add))
            continue;
        std::vector<float> y(expected.size(), 0.25f);
        (k->forType(type)->*add)(y.data(), c.scales.data(), c.rows.data(), count, std::int64_t(y.size()));
        const double err = maxRelativeError(y, expected);
        QVERIFY2(err < tolerance, qPrintable(QStringLiteral("%1, %2 rows: relative error %3")
                                                 .arg(QString::fromLatin1(k->name))
                                                 .arg(count)
                                                 .arg(err)));
    }
}

ScaledRows scaledRows(DType type, int n, int count, unsigned seed, int spreads = 1)
{
    ScaledRows c;
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    const std::size_t rb = rowBytes(type, n);
    c.data.resize(std::size_t(count) * rb);
    std::vector<float> values(static_cast<std::size_t>(n));
    for (int r = 0; r < count; ++r) {
        for (float& v : values)
            v = normal(rng) * (1.0f + float(r % spreads));
        cpu::quantizeRow(type, values.data(), c.data.data() + std::size_t(r) * rb, n);
        c.rows.push_back(c.data.data() + std::size_t(count - 1 - r) * rb);
        c.scales.push_back(normal(rng));
    }
    return c;
}

// A down projection over @p nFf neuron-major rows of @p nEmbd in @p type, @p spacing rows apart
// (a fused tensor's stride; the gaps hold garbage), @p tokens tokens' activations (one in five
// non-zero when @p sparse, else two in three) and the float reference of the product.
struct DownProjectionCase {
    std::vector<std::byte> rows;
    cpu::WeightMatrix down;
    std::vector<float> acts;
    std::vector<float> expected;
};

DownProjectionCase downProjectionCase(DType type, std::int64_t nFf, std::int64_t nEmbd, int tokens, int spacing,
                                      bool sparse, unsigned seed)
{
    DownProjectionCase c;
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, 0.3f);
    const std::size_t stride = rowBytes(type, nEmbd) * std::size_t(spacing);
    c.rows.assign(stride * std::size_t(nFf), std::byte{0x7f});
    std::vector<float> rowsF(std::size_t(nFf * nEmbd));
    std::vector<float> row(static_cast<std::size_t>(nEmbd));
    for (std::int64_t i = 0; i < nFf; ++i) {
        for (float& v : row)
            v = normal(rng);
        cpu::quantizeRow(type, row.data(), c.rows.data() + std::size_t(i) * stride, nEmbd);
        cpu::dequantizeRow(type, c.rows.data() + std::size_t(i) * stride, rowsF.data() + std::size_t(i * nEmbd), nEmbd);
    }
    c.acts.resize(std::size_t(tokens * nFf));
    for (std::size_t j = 0; j < c.acts.size(); ++j)
        c.acts[j] = (sparse ? j % 5 != 0 : j % 3 == 0) ? 0.0f : normal(rng);
    c.expected.assign(std::size_t(tokens * nEmbd), 0.0f);
    for (int t = 0; t < tokens; ++t)
        for (std::int64_t i = 0; i < nFf; ++i)
            for (std::int64_t o = 0; o < nEmbd; ++o)
                c.expected[std::size_t(t * nEmbd + o)] += c.acts[std::size_t(t * nFf + i)] * rowsF[std::size_t(i * nEmbd + o)];
    c.down = cpu::WeightMatrix{type, c.rows.data(), nFf, nEmbd};
    c.down.rowStride = spacing > 1 ? stride : 0;
    return c;
}

// Runs @p c through @p d on one thread and two with every ISA's kernels: each result within
// @p tolerance of the reference, and, where @p anyThreadCount, the scalar table's the same for
// both thread counts.
void checkDownProjection(sparse::DownProjection& d, const DownProjectionCase& c, int tokens, double tolerance,
                         bool anyThreadCount)
{
    std::vector<float> byOne;
    for (int threads : {1, 2}) {
        cpu::ThreadPool pool(threads);
        for (cpu::Isa isa : {cpu::Isa::Scalar, cpu::Isa::Avx2, cpu::Isa::Avx512}) {
            const sparse::NeuronKernels* k = sparse::neuronKernelsFor(isa);
            if (!k)
                continue;
            d.setKernels(k);
            std::vector<float> out(c.expected.size(), -1.0f);
            d.run(pool, c.down, c.acts.data(), tokens, out.data());
            const double err = maxRelativeError(out, c.expected);
            QVERIFY2(err < tolerance, qPrintable(QStringLiteral("%1: relative error %2").arg(QString::fromLatin1(k->name)).arg(err)));
            if (isa == cpu::Isa::Scalar && threads == 1)
                byOne = out;
            else if (isa == cpu::Isa::Scalar && anyThreadCount)
                QCOMPARE(out, byOne);
        }
    }
}

// Quantized weights see an 8-bit activation; float weights only summation order.
double tolerance(DType type)
{
    return sparse::neuronInputFormat(type) == cpu::ActivationFormat::Floats ? 1e-4 : 3e-2;
}

std::vector<float> randomInput(int tokens, std::uint32_t seed)
{
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> x(std::size_t(tokens * kEmbd));
    for (float& v : x)
        v = normal(rng);
    return x;
}

const model::LlamaModel& llamaOf(const std::shared_ptr<const Model>& m)
{
    return dynamic_cast<const model::LlamaModel&>(*m);
}

// Last-token logits of @p tokens fed one by one (n = 1 each) or as one batch.
std::vector<float> runModel(const model::LlamaModel& m, const std::vector<Token>& tokens, int threads,
                            model::LlamaForward::FfnMode mode, float threshold, bool batch)
{
    auto f = model::LlamaForward::create(m, 64, 32, threads);
    if (!f)
        return {};
    (*f)->setFfnMode(mode);
    (*f)->setSparseThreshold(threshold);
    std::vector<float> logits(std::size_t(m.hyperParams().nVocab));
    if (batch) {
        (*f)->forward(tokens.data(), int(tokens.size()), 0, logits.data(), false);
    } else {
        for (std::size_t i = 0; i < tokens.size(); ++i)
            (*f)->forward(tokens.data() + i, 1, int(i), logits.data(), false);
    }
    return logits;
}

} // namespace

class TestSparse : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;

    std::string writeModel(DType type, synth::SparseLayout layout, double sparsity, const char* ffn = "reglu")
    {
        synth::SynthOptions o;
        o.shape = *synth::shapeByName(computeBlockElements(type) == cpu::QK_K ? "tiny-256" : "tiny");
        o.shape.vocabSize = 300;
        o.type = type;
        o.ffnActivation = ffn;
        o.seed = 11;
        synth::SparseSynthOptions s;
        s.sparsity = sparsity;
        s.layout = layout;
        s.predictorHidden = int(std::max<std::int64_t>(32, computeBlockElements(type)));
        const std::string path = m_dir.filePath(QStringLiteral("%1-%2-%3-%4.gguf")
                                                    .arg(QString::fromLatin1(dtypeName(type)))
                                                    .arg(layout == synth::SparseLayout::Hearth ? "hearth" : "pi")
                                                    .arg(sparsity)
                                                    .arg(QString::fromLatin1(ffn)))
                                     .toStdString();
        const Status st = synth::writeSparseSyntheticModel(o, s, path);
        if (!st.ok())
            qWarning("%s", st.message().c_str());
        return st.ok() ? path : std::string();
    }

private slots:
    void kernelsMatchMaskedReference_data()
    {
        QTest::addColumn<int>("type");
        QTest::addColumn<bool>("fused");
        QTest::addColumn<int>("activation");
        for (DType t : kNeuronTypes) {
            for (bool fused : {false, true}) {
                for (auto a : {sparse::NeuronActivation::ReGlu, sparse::NeuronActivation::DRelu, sparse::NeuronActivation::Relu}) {
                    if (a == sparse::NeuronActivation::Relu && fused)
                        continue; // covered through separate(); fused up-only needs a 2-row tensor
                    QTest::addRow("%s-%s-%d", dtypeName(t).data(), fused ? "fused" : "separate", int(a))
                        << int(t) << fused << int(a);
                }
            }
        }
    }

    void kernelsMatchMaskedReference()
    {
        QFETCH(int, type);
        QFETCH(bool, fused);
        QFETCH(int, activation);
        const DType t = DType(type);
        const auto act = sparse::NeuronActivation(activation);
        NeuronFixture f = makeNeurons(t, fused, act, 3);
        if (act == sparse::NeuronActivation::Relu) {
            f.weights = sparse::NeuronWeights::separate({}, {t, f.up.data(), kFf, kEmbd}, {t, f.down.data(), kFf, kEmbd}, act);
        }
        QVERIFY(f.weights.valid());
        const int tokens = 3;
        const std::vector<float> x = randomInput(tokens, 5);
        // Every third neuron, plus a per-token mask that drops some of those.
        std::vector<std::int32_t> ids;
        for (std::int32_t i = 0; i < kFf; i += 3)
            ids.push_back(i);
        std::vector<std::uint8_t> mask(std::size_t(tokens * kFf), 1);
        for (int tk = 0; tk < tokens; ++tk)
            for (std::int32_t i = tk; i < kFf; i += 7)
                mask[std::size_t(tk * kFf + i)] = 0;

        const std::vector<float> expected = reference(f, x, tokens, ids, mask);
        auto ffn = sparse::SparseFfn::create(kEmbd, 8, 2);
        QVERIFY(ffn.ok());
        cpu::ThreadPool pool(2);
        for (cpu::Isa isa : {cpu::Isa::Scalar, cpu::Isa::Avx2, cpu::Isa::Avx512}) {
            const sparse::NeuronKernels* k = sparse::neuronKernelsFor(isa);
            if (!k)
                continue;
            (*ffn)->setKernels(k);
            const sparse::FfnInput in = (*ffn)->prepareInput(t, x.data(), tokens);
            std::vector<float> out(x.size(), -1.0f);
            (*ffn)->run(pool, f.weights, in, tokens, ids.data(), std::int64_t(ids.size()), mask.data(), out.data());
            const double err = maxRelativeError(out, expected);
            QVERIFY2(err < tolerance(t), qPrintable(QStringLiteral("%1: relative error %2").arg(QString::fromLatin1(k->name)).arg(err)));
        }
    }

    // A prompt's two halves: SparseFfn::activations writes each (token, neuron) pair's activation
    // (bit for bit what run() records) and zero elsewhere, and DownProjection over them gives the
    // masked FFN, whichever way it adds the rows (tiles, each token's list, integer columns).
    void activationsThenDownProjection_data()
    {
        QTest::addColumn<int>("type");
        QTest::addColumn<bool>("fused");
        QTest::addColumn<int>("activation");
        QTest::addColumn<int>("tokens");
        QTest::addColumn<int>("every"); // every n-th neuron listed
        for (DType t : {DType::F32, DType::Q4_0, DType::Q8_0, DType::Q4_K}) {
            for (int tokens : {2, 12, 40}) {
                for (int every : {1, 4}) {
                    QTest::addRow("%s-fused-%d-1/%d", dtypeName(t).data(), tokens, every)
                        << int(t) << true << int(sparse::NeuronActivation::ReGlu) << tokens << every;
                    QTest::addRow("%s-up-only-%d-1/%d", dtypeName(t).data(), tokens, every)
                        << int(t) << false << int(sparse::NeuronActivation::Relu) << tokens << every;
                }
            }
        }
    }

    void activationsThenDownProjection()
    {
        QFETCH(int, type);
        QFETCH(bool, fused);
        QFETCH(int, activation);
        QFETCH(int, tokens);
        QFETCH(int, every);
        const DType t = DType(type);
        const auto act = sparse::NeuronActivation(activation);
        NeuronFixture f = makeNeurons(t, fused, act, 7);
        cpu::WeightMatrix down{t, f.down.data(), kFf, kEmbd};
        if (act == sparse::NeuronActivation::Relu)
            f.weights = sparse::NeuronWeights::separate({}, {t, f.up.data(), kFf, kEmbd}, down, act);
        else
            down.data = f.weights.down, down.rowStride = f.weights.stride;
        QVERIFY(f.weights.valid());
        const std::vector<float> x = randomInput(tokens, 9);
        std::vector<std::int32_t> ids;
        for (std::int32_t i = 1; i < kFf; i += every)
            ids.push_back(i);
        std::vector<std::uint8_t> mask(std::size_t(tokens * kFf), 1);
        for (int tk = 0; tk < tokens; ++tk)
            for (std::int32_t i = tk % 5; i < kFf; i += 5)
                mask[std::size_t(tk * kFf + i)] = 0;
        const std::vector<float> expected = reference(f, x, tokens, ids, mask);

        auto ffn = sparse::SparseFfn::create(kEmbd, tokens, 2);
        auto projection = sparse::DownProjection::create(2, kEmbd, tokens, kFf);
        QVERIFY(ffn.ok() && projection.ok());
        cpu::ThreadPool pool(2);
        const sparse::FfnInput in = (*ffn)->prepareInput(t, x.data(), tokens);
        std::vector<float> recorded(std::size_t(tokens * kFf), 0.0f);
        std::vector<float> out(x.size());
        (*ffn)->run(pool, f.weights, in, tokens, ids.data(), std::int64_t(ids.size()), mask.data(), out.data(),
                    recorded.data());
        std::vector<float> acts(std::size_t(tokens * kFf), -1.0f);
        (*ffn)->activations(pool, f.weights, in, tokens, ids.data(), std::int64_t(ids.size()), mask.data(), acts.data());
        QCOMPARE(acts, recorded);
        (*projection)->run(pool, down, acts.data(), tokens, out.data());
        // The integer columns round the rows to 8 bits as well.
        const double err = maxRelativeError(out, expected);
        QVERIFY2(err < tolerance(t) + (t == DType::F32 ? 0.0 : 0.015), qPrintable(QString::number(err)));
    }

    // Magnitude-sparse SwiGLU: silu(gate) comes computed, each neuron reads its up row, and an
    // activation under its floor (times the token's scale) skips the down row. Decode (one
    // token, paired down rows) and batches, on every ISA path.
    void gateGivenKernelsMatchReference_data()
    {
        QTest::addColumn<int>("type");
        QTest::addColumn<int>("tokens");
        for (DType t : kNeuronTypes) {
            for (int tokens : {1, 3})
                QTest::addRow("%s-%d", dtypeName(t).data(), tokens) << int(t) << tokens;
        }
    }

    void gateGivenKernelsMatchReference()
    {
        QFETCH(int, type);
        QFETCH(int, tokens);
        const DType t = DType(type);
        const auto act = sparse::NeuronActivation::GateGiven;
        NeuronFixture f = makeNeurons(t, false, act, 7);
        f.weights = sparse::NeuronWeights::separate({}, {t, f.up.data(), kFf, kEmbd}, {t, f.down.data(), kFf, kEmbd}, act);
        QVERIFY(f.weights.valid());
        const std::vector<float> x = randomInput(tokens, 9);
        std::vector<float> gates = randomInput(tokens, 10);
        gates.resize(std::size_t(tokens * kFf));
        std::vector<float> floors(static_cast<std::size_t>(kFf));
        for (std::int64_t i = 0; i < kFf; ++i)
            floors[std::size_t(i)] = 0.05f * float(i % 5); // some neurons have none
        const std::vector<float> scales = {2.0f, 0.5f, 1.0f};
        std::vector<std::int32_t> ids;
        for (std::int32_t i = 0; i < kFf; i += 2)
            ids.push_back(i);

        std::vector<float> expected(x.size(), 0.0f);
        int dropped = 0;
        for (int tk = 0; tk < tokens; ++tk) {
            for (std::int32_t i : ids) {
                double u = 0;
                for (std::int64_t c = 0; c < kEmbd; ++c)
                    u += double(f.upF[std::size_t(i * kEmbd + c)]) * x[std::size_t(tk * kEmbd + c)];
                const float a = gates[std::size_t(tk * kFf + i)] * float(u);
                if (std::fabs(a) < floors[std::size_t(i)] * scales[std::size_t(tk)]) {
                    ++dropped;
                    continue;
                }
                for (std::int64_t c = 0; c < kEmbd; ++c)
                    expected[std::size_t(tk * kEmbd + c)] += a * f.downF[std::size_t(i * kEmbd + c)];
            }
        }
        QVERIFY(dropped > 0);
        auto ffn = sparse::SparseFfn::create(kEmbd, 8, 2);
        QVERIFY(ffn.ok());
        cpu::ThreadPool pool(2);
        for (cpu::Isa isa : {cpu::Isa::Scalar, cpu::Isa::Avx2, cpu::Isa::Avx512}) {
            const sparse::NeuronKernels* k = sparse::neuronKernelsFor(isa);
            if (!k)
                continue;
            (*ffn)->setKernels(k);
            sparse::FfnInput in = (*ffn)->prepareInput(t, x.data(), tokens);
            in.gateActs = gates.data();
            in.activationFloor = floors.data();
            in.floorScale = scales.data();
            std::vector<float> out(x.size(), -1.0f);
            (*ffn)->run(pool, f.weights, in, tokens, ids.data(), std::int64_t(ids.size()), nullptr, out.data());
            const double err = maxRelativeError(out, expected);
            QVERIFY2(err < tolerance(t), qPrintable(QStringLiteral("%1: relative error %2").arg(QString::fromLatin1(k->name)).arg(err)));
        }
        // Without the silu values there is nothing to compute with: no output, no crash.
        sparse::FfnInput in = (*ffn)->prepareInput(t, x.data(), tokens);
        std::vector<float> out(x.size(), -1.0f);
        (*ffn)->run(pool, f.weights, in, tokens, ids.data(), std::int64_t(ids.size()), nullptr, out.data());
        QVERIFY(std::all_of(out.begin(), out.end(), [](float v) { return v == 0.0f; }));
    }

    // A prompt's down projection over neuron-major rows (sparse::DownProjection): column ranges
    // of 256 outputs (two, the second partial where the width allows), an odd number of neurons,
    // zero activations skipped; every ISA, the same result for one thread and two; K-quants
    // (no tile kernel) and types the neuron kernels do not read (IQ4_XS, BF16) through the
    // decoded scratch, and a width that is
    // not whole groups of 32 (F32, 72). Five tokens take the rows-per-thread path (whose sums
    // depend on the thread count), eleven the tiles (a full one and a partial one), or with one
    // activation in five non-zero (a predictor's masks) each token's list of rows. Rows a
    // fused tensor's stride apart (spacing 3) read as rows stored together.
    void downProjectionMatchesReference_data()
    {
        QTest::addColumn<int>("type");
        QTest::addColumn<int>("columns");
        QTest::addColumn<int>("tokens");
        QTest::addColumn<int>("spacing");
        QTest::addColumn<bool>("sparse");
        for (int tokens : {1, 5, 11}) {
            for (DType t : kNeuronTypes)
                QTest::addRow("%s-%d", dtypeName(t).data(), tokens) << int(t) << (t == DType::Q6_K ? 512 : 320) << tokens << 1 << false;
            QTest::addRow("Q4_K-%d", tokens) << int(DType::Q4_K) << 512 << tokens << 1 << false;
            QTest::addRow("Q5_K-%d", tokens) << int(DType::Q5_K) << 512 << tokens << 1 << false;
            QTest::addRow("IQ4_XS-%d", tokens) << int(DType::IQ4_XS) << 512 << tokens << 1 << false;
            QTest::addRow("BF16-%d", tokens) << int(DType::BF16) << 320 << tokens << 1 << false;
            QTest::addRow("F32-72-%d", tokens) << int(DType::F32) << 72 << tokens << 1 << false;
            QTest::addRow("Q4_0-strided-%d", tokens) << int(DType::Q4_0) << 320 << tokens << 3 << false;
            QTest::addRow("Q4_K-strided-%d", tokens) << int(DType::Q4_K) << 512 << tokens << 3 << false;
        }
        for (DType t : kNeuronTypes)
            QTest::addRow("%s-sparse", dtypeName(t).data()) << int(t) << (t == DType::Q6_K ? 512 : 320) << 11 << 1 << true;
        QTest::addRow("IQ4_XS-sparse") << int(DType::IQ4_XS) << 512 << 11 << 1 << true;
        QTest::addRow("Q4_K-strided-sparse") << int(DType::Q4_K) << 512 << 11 << 3 << true;
        QTest::addRow("F32-72-sparse") << int(DType::F32) << 72 << 11 << 1 << true;
    }

    void downProjectionMatchesReference()
    {
        QFETCH(int, type);
        QFETCH(int, columns);
        QFETCH(int, tokens);
        QFETCH(int, spacing);
        QFETCH(bool, sparse);
        const DownProjectionCase c = downProjectionCase(DType(type), 19, columns, tokens, spacing, sparse, 21);
        auto ffn = sparse::DownProjection::create(2, columns, 16, 19);
        QVERIFY(ffn.ok());
        // A few tokens over rows with integer row adds round their factors to bytes (axpyRowsInt8),
        // as Q8_0 rounds a dense product's activations.
        const bool rounded = tokens < sparse::kAxpyTileTokens && sparse::kScalarNeuronKernels.forType(DType(type))
                             && sparse::kScalarNeuronKernels.forType(DType(type))->axpyRowsInt8;
        checkDownProjection(**ffn, c, tokens, rounded ? 0.015 : 1e-5, tokens >= sparse::kAxpyTileTokens);
    }

    // Longer prompts over whole blocks of 32 rows take integer products over the rows requantized
    // by columns (ColumnKernels): every ISA's pack writes the scalar table's bytes (a column of
    // zeros included) and its products add the scalar sums to what the outputs held, over tiles
    // of tokens and the rest, leaving the outputs between groups alone.
    void columnKernelsMatchScalar()
    {
        constexpr std::int64_t rows = 64;
        constexpr std::size_t stride = 40; // floats between rows; the 16 columns start at 8
        constexpr int tokens = 19;
        constexpr std::int64_t yStride = 20;
        std::mt19937 rng(5);
        std::normal_distribution<float> normal(0.0f, 1.0f);
        std::vector<float> x(std::size_t(rows) * stride);
        for (float& v : x)
            v = normal(rng);
        for (std::int64_t i = 0; i < rows; ++i)
            x[std::size_t(i) * stride + 8 + 3] = 0.0f;
        // Each token's two blocks, the tokens side by side.
        std::vector<cpu::ActBlockQ8> acts(std::size_t(tokens) * 2);
        std::vector<float> token(rows);
        for (int t = 0; t < tokens; ++t) {
            for (float& v : token)
                v = normal(rng);
            cpu::ActBlockQ8 blocks[2];
            cpu::kScalarKernels.quantizeActivations(token.data(), blocks, rows);
            for (int b = 0; b < 2; ++b)
                acts[std::size_t(b * tokens + t)] = blocks[b];
        }
        const auto run = [&](const sparse::ColumnKernels& k, std::vector<std::uint8_t>& packed, std::vector<float>& y) {
            packed.assign(2 * sparse::kColumnBlockBytes, 0);
            y.assign(std::size_t(tokens * yStride), 0.5f);
            k.pack(x.data() + 8, stride, rows, packed.data());
            k.gemm(y.data(), yStride, acts.data(), tokens, tokens, packed.data(), 2);
        };
        std::vector<std::uint8_t> wantPacked;
        std::vector<float> want;
        run(sparse::kScalarNeuronKernels.columns, wantPacked, want);
        QVERIFY(std::any_of(want.begin(), want.end(), [](float v) { return std::fabs(v - 0.5f) > 1.0f; }));
        for (cpu::Isa isa : {cpu::Isa::Avx2, cpu::Isa::Avx512}) {
            const sparse::NeuronKernels* k = sparse::neuronKernelsFor(isa);
            if (!k)
                continue;
            std::vector<std::uint8_t> packed;
            std::vector<float> y;
            run(k->columns, packed, y);
            QVERIFY2(packed == wantPacked, k->name);
            QVERIFY2(maxRelativeError(y, want) < 1e-6, k->name);
            for (int t = 0; t < tokens; ++t)
                for (std::int64_t r = 16; r < yStride; ++r)
                    QCOMPARE(y[std::size_t(t * yStride + r)], 0.5f);
        }
    }

    // Through DownProjection: 544 neurons (blocks of rows and a partial one), 19 tokens, the
    // quantized types (float weights keep the float tiles), ranges of outputs split between
    // threads and partial ones (1344, 2560 outputs), strided rows, within what the activations'
    // and columns' rounding allows of the float reference (about that of Q8_0 activations); the
    // same for one thread and two, every ISA.
    void downProjectionByColumns_data()
    {
        QTest::addColumn<int>("type");
        QTest::addColumn<int>("columns");
        QTest::addColumn<int>("spacing");
        QTest::newRow("Q8_0") << int(DType::Q8_0) << 320 << 1;
        QTest::newRow("Q4_0") << int(DType::Q4_0) << 1344 << 1;
        QTest::newRow("Q4_K") << int(DType::Q4_K) << 512 << 1;
        QTest::newRow("Q5_K") << int(DType::Q5_K) << 2560 << 1;
        QTest::newRow("Q6_K") << int(DType::Q6_K) << 512 << 1;
        QTest::newRow("IQ4_XS") << int(DType::IQ4_XS) << 512 << 1;
        QTest::newRow("Q4_0-strided") << int(DType::Q4_0) << 320 << 3;
    }

    void downProjectionByColumns()
    {
        QFETCH(int, type);
        QFETCH(int, columns);
        QFETCH(int, spacing);
        constexpr int tokens = 19;
        const DownProjectionCase c = downProjectionCase(DType(type), 544, columns, tokens, spacing, false, 8);
        auto ffn = sparse::DownProjection::create(2, columns, 32, 544);
        QVERIFY(ffn.ok());
        checkDownProjection(**ffn, c, tokens, 0.015, true);
    }

    // The x86 Q4_0 kernels take 8 blocks at a time (scales gathered together) and finish with a
    // per-block tail: rows of 8, 10 and 64 blocks check both parts against the scalar table.
    void q4RowKernelsMatchScalarAcrossBlockGroups_data()
    {
        QTest::addColumn<int>("n");
        QTest::newRow("8 blocks") << 256;
        QTest::newRow("10 blocks") << 320;
        QTest::newRow("64 blocks") << 2048;
    }

    void q4RowKernelsMatchScalarAcrossBlockGroups()
    {
        QFETCH(int, n);
        std::mt19937 rng(11);
        std::normal_distribution<float> normal(0.0f, 1.0f);
        const std::size_t rb = rowBytes(DType::Q4_0, n);
        // Three rows back to back, as in the fused layout, plus the token.
        std::vector<std::uint8_t> rows(3 * rb);
        std::vector<float> values(static_cast<std::size_t>(n));
        for (int r = 0; r < 3; ++r) {
            for (float& v : values)
                v = normal(rng);
            cpu::quantizeRow(DType::Q4_0, values.data(), rows.data() + std::size_t(r) * rb, n);
        }
        for (float& v : values)
            v = normal(rng);
        std::vector<cpu::ActBlockQ8> xq(std::size_t(n / QK8_0));
        cpu::activeKernels().quantizeActivations(values.data(), xq.data(), n);
        const std::uint8_t* a = rows.data();
        const std::uint8_t* b = rows.data() + rb;
        const std::uint8_t* c = rows.data() + 2 * rb;

        const sparse::RowKernels& ref = sparse::kScalarNeuronKernels.q4_0;
        float expectedDot[2];
        ref.dot2(a, b, xq.data(), n, expectedDot);
        std::vector<float> expectedY(std::size_t(n), 0.5f);
        ref.axpy(expectedY.data(), 0.75f, a, n);
        const void* pair[2] = {b, c};
        const float pairScales[2] = {-1.25f, 2.0f};
        ref.axpyRows(expectedY.data(), pairScales, pair, 2, n);
        for (cpu::Isa isa : {cpu::Isa::Avx2, cpu::Isa::Avx512}) {
            const sparse::NeuronKernels* k = sparse::neuronKernelsFor(isa);
            if (!k)
                continue;
            const QString name = QString::fromLatin1(k->name);
            float dot[2];
            k->q4_0.dot2(a, b, xq.data(), n, dot);
            // Exact integer dots per block; only the float sums are ordered differently.
            for (int i = 0; i < 2; ++i)
                QVERIFY2(std::fabs(dot[i] - expectedDot[i]) <= 1e-4f * (1.0f + std::fabs(expectedDot[i])),
                         qPrintable(QStringLiteral("%1 dot2[%2]: %3 vs %4").arg(name).arg(i).arg(dot[i]).arg(expectedDot[i])));
            QVERIFY(std::fabs(k->q4_0.dot1(a, xq.data(), n) - expectedDot[0]) <= 1e-4f * (1.0f + std::fabs(expectedDot[0])));
            std::vector<float> y(std::size_t(n), 0.5f);
            k->q4_0.axpy(y.data(), 0.75f, a, n);
            k->q4_0.axpyRows(y.data(), pairScales, pair, 2, n);
            QVERIFY2(maxRelativeError(y, expectedY) < 1e-5, qPrintable(name));
        }
    }

    // A decoded token's rows go through axpyRows a group at a time: any count (a partial group,
    // one full, more than one) and row lengths with a partial block group or vector, against the
    // scalar table's one row at a time, for every type of every table.
    void axpyRowsMatchScalar_data()
    {
        QTest::addColumn<int>("type");
        QTest::addColumn<int>("n");
        for (DType t : kNeuronTypes) {
            const bool superBlocks = computeBlockElements(t) == cpu::QK_K;
            for (int n : superBlocks ? std::vector<int>{256, 768} : std::vector<int>{320, 2048})
                QTest::addRow("%s n=%d", dtypeName(t).data(), n) << int(t) << n;
        }
        QTest::addRow("F32 n=72") << int(DType::F32) << 72;
    }

    void axpyRowsMatchScalar()
    {
        QFETCH(int, type);
        QFETCH(int, n);
        const DType t = DType(type);
        constexpr int kRows = 2 * sparse::kAxpyRowsGroup + 3;
        const ScaledRows c = scaledRows(t, n, kRows, 5);
        const std::vector<const void*>& rows = c.rows;
        const std::vector<float>& scales = c.scales;
        const sparse::RowKernels* ref = sparse::kScalarNeuronKernels.forType(t);
        QVERIFY(ref && ref->axpyRows);
        for (int count : {1, 3, sparse::kAxpyRowsGroup, sparse::kAxpyRowsGroup + 1, kRows}) {
            std::vector<float> expected(std::size_t(n), 0.25f);
            for (int r = 0; r < count; ++r)
                ref->axpy(expected.data(), scales[std::size_t(r)], rows[std::size_t(r)], n);
            checkAddedRows({cpu::Isa::Scalar, cpu::Isa::Avx2, cpu::Isa::Avx512}, t, &sparse::RowKernels::axpyRows, c,
                           count, expected, 1e-5);
            if (QTest::currentTestFailed())
                return;
        }
    }

    // The integer variant rounds each group's factors to bytes: every table that has it gives the
    // scalar reference's result (the same rounding in the same order), and that result stays
    // within the rounding of the float one.
    void axpyRowsInt8MatchScalar_data()
    {
        QTest::addColumn<int>("type");
        QTest::addColumn<int>("n");
        for (int n : {256, 768})
            QTest::addRow("Q4_K n=%d", n) << int(DType::Q4_K) << n;
    }

    void axpyRowsInt8MatchScalar()
    {
        QFETCH(int, type);
        QFETCH(int, n);
        const DType t = DType(type);
        constexpr int kRows = sparse::kAxpyRowsInt8Pass + sparse::kAxpyRowsGroup + 3;
        const ScaledRows c = scaledRows(t, n, kRows, 9, 4); // rows of different sizes share a group
        const std::vector<const void*>& rows = c.rows;
        const std::vector<float>& scales = c.scales;
        const sparse::RowKernels* ref = sparse::kScalarNeuronKernels.forType(t);
        QVERIFY(ref && ref->axpyRowsInt8);
        for (int count : {1, 3, 5, sparse::kAxpyRowsGroup, sparse::kAxpyRowsGroup + 1, 21, sparse::kAxpyRowsInt8Pass, kRows}) {
            std::vector<float> exact(std::size_t(n), 0.25f);
            ref->axpyRows(exact.data(), scales.data(), rows.data(), count, n);
            std::vector<float> expected(std::size_t(n), 0.25f);
            ref->axpyRowsInt8(expected.data(), scales.data(), rows.data(), count, n);
            const double rounding = maxRelativeError(expected, exact);
            QVERIFY2(rounding > 0.0 && rounding < 0.015, qPrintable(QStringLiteral("%1 rows: %2").arg(count).arg(rounding)));
            checkAddedRows({cpu::Isa::Avx2, cpu::Isa::Avx512}, t, &sparse::RowKernels::axpyRowsInt8, c, count, expected,
                           1e-6);
            if (QTest::currentTestFailed())
                return;
        }
    }

    // A decoded token takes its own loop (down rows added in groups, one neuron left over for odd
    // counts): against the scalar table, for row lengths with and without a partial vector or
    // block group, odd and even active counts, gated and up-only FFNs.
    void decodeKernelsMatchScalar_data()
    {
        QTest::addColumn<int>("type");
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("active");
        QTest::addColumn<bool>("gated");
        for (DType t : {DType::F16, DType::Q4_0, DType::Q4_K, DType::Q6_K}) {
            const bool superBlocks = computeBlockElements(t) == cpu::QK_K;
            const std::vector<int> lengths = superBlocks ? std::vector<int>{256, 2048} : std::vector<int>{128, 2048, 224};
            for (int n : lengths) {
                for (int active : {1, 7, 8, 13, 40}) {
                    for (bool gated : {true, false})
                        QTest::addRow("%s n=%d active=%d %s", dtypeName(t).data(), n, active, gated ? "gated" : "up-only")
                            << int(t) << n << active << gated;
                }
            }
            if (!superBlocks)
                QTest::addRow("%s n=200", dtypeName(t).data()) << int(t) << (t == DType::F16 ? 200 : 192) << 9 << true;
        }
    }

    void decodeKernelsMatchScalar()
    {
        QFETCH(int, type);
        QFETCH(int, n);
        QFETCH(int, active);
        QFETCH(bool, gated);
        const DType t = DType(type);
        const std::int64_t nFf = 64;
        std::mt19937 rng(std::uint32_t(n * 131 + active));
        std::normal_distribution<float> normal(0.0f, 1.0f);
        const std::size_t rb = rowBytes(t, n);
        std::vector<std::uint8_t> gate(rb * nFf), up(rb * nFf), down(rb * nFf);
        std::vector<float> row(static_cast<std::size_t>(n));
        for (auto* m : {&gate, &up, &down}) {
            for (std::int64_t i = 0; i < nFf; ++i) {
                for (float& v : row)
                    v = normal(rng) * 0.1f;
                cpu::quantizeRow(t, row.data(), m->data() + std::size_t(i) * rb, n);
            }
        }
        const auto act = gated ? sparse::NeuronActivation::ReGlu : sparse::NeuronActivation::Relu;
        const auto w = sparse::NeuronWeights::separate(gated ? cpu::WeightMatrix{t, gate.data(), nFf, n} : cpu::WeightMatrix{},
                                                       {t, up.data(), nFf, n}, {t, down.data(), nFf, n}, act);
        QVERIFY(w.valid());
        // A token whose every neuron fires for the gated FFN (gate and up of one sign).
        std::vector<float> x(static_cast<std::size_t>(n));
        for (float& v : x)
            v = normal(rng);
        auto ffn = sparse::SparseFfn::create(n, 1, 1);
        QVERIFY(ffn.ok());
        const sparse::FfnInput in = (*ffn)->prepareInput(t, x.data(), 1);
        std::vector<std::int32_t> ids;
        for (int j = 0; j < active; ++j)
            ids.push_back(std::int32_t((j * 5) % nFf));
        std::sort(ids.begin(), ids.end());
        ids.erase(std::unique(ids.begin(), ids.end()), ids.end());

        std::vector<float> expected(static_cast<std::size_t>(n), 0.25f);
        std::vector<float> expectedActs(static_cast<std::size_t>(nFf), -7.0f);
        const std::uint64_t expectedRows = sparse::accumulateNeurons(sparse::kScalarNeuronKernels, w, in, 1, ids.data(),
                                                                     std::int64_t(ids.size()), nullptr, expected.data(),
                                                                     expectedActs.data());
        for (cpu::Isa isa : {cpu::Isa::Avx2, cpu::Isa::Avx512}) {
            const sparse::NeuronKernels* k = sparse::neuronKernelsFor(isa);
            if (!k)
                continue;
            std::vector<float> out(static_cast<std::size_t>(n), 0.25f);
            std::vector<float> acts(static_cast<std::size_t>(nFf), -7.0f);
            const std::uint64_t rows = sparse::accumulateNeurons(*k, w, in, 1, ids.data(), std::int64_t(ids.size()), nullptr,
                                                                 out.data(), acts.data());
            const QString name = QString::fromLatin1(k->name);
            QCOMPARE(rows, expectedRows);
            QVERIFY2(maxRelativeError(acts, expectedActs) < 1e-4, qPrintable(name));
            // Only the order of the sums differs.
            const double err = maxRelativeError(out, expected);
            QVERIFY2(err < 1e-5, qPrintable(QStringLiteral("%1: %2").arg(name).arg(err)));
        }
    }

    void threadsAgreeAndRunsRepeat_data()
    {
        QTest::addColumn<int>("type");
        for (DType t : kNeuronTypes)
            QTest::newRow(dtypeName(t).data()) << int(t);
    }

    void threadsAgreeAndRunsRepeat()
    {
        QFETCH(int, type);
        const DType t = DType(type);
        NeuronFixture f = makeNeurons(t, true, sparse::NeuronActivation::ReGlu, 9);
        const std::vector<float> x = randomInput(1, 13);
        std::vector<std::int32_t> all(kFf);
        for (std::int32_t i = 0; i < kFf; ++i)
            all[std::size_t(i)] = i;
        std::vector<float> first;
        for (int threads = 1; threads <= 3; ++threads) {
            cpu::ThreadPool pool(threads);
            auto ffn = sparse::SparseFfn::create(kEmbd, 1, threads);
            QVERIFY(ffn.ok());
            const sparse::FfnInput in = (*ffn)->prepareInput(t, x.data(), 1);
            std::vector<float> a(kEmbd), b(kEmbd);
            (*ffn)->run(pool, f.weights, in, 1, all.data(), kFf, nullptr, a.data());
            (*ffn)->run(pool, f.weights, in, 1, all.data(), kFf, nullptr, b.data());
            QCOMPARE(a, b); // bit for bit with a fixed thread count
            if (first.empty())
                first = a;
            else
                QVERIFY(maxRelativeError(a, first) < 1e-5);
        }
    }

    // The interleaved Q4_0 copy computes what the file's rows compute.
    void interleavedMatchesRowLayout()
    {
        constexpr std::int64_t e = 1024, ff = 40;
        const std::size_t rb = rowBytes(DType::Q4_0, e);
        std::vector<std::byte> data(3 * rb * ff);
        std::mt19937 rng(21);
        std::normal_distribution<float> normal(0.0f, 0.5f);
        std::vector<float> row(3 * e);
        for (std::int64_t i = 0; i < ff; ++i) {
            for (float& v : row)
                v = normal(rng);
            cpu::quantizeRow(DType::Q4_0, row.data(), data.data() + std::size_t(i) * 3 * rb, 3 * e);
        }
        const auto w = sparse::NeuronWeights::fused({DType::Q4_0, data.data(), ff, 3 * e}, e, sparse::NeuronActivation::ReGlu);
        if (!sparse::canInterleave(w))
            QSKIP("this machine has no interleaved Q4_0 kernel (AVX-512 VNNI)");
        auto copy = sparse::InterleavedNeurons::create(w);
        QVERIFY(copy.ok());
        QVERIFY((*copy)->weights().interleaved);
        QVERIFY(!sparse::canInterleave((*copy)->weights()));
        const int tokens = 3;
        std::vector<float> x(std::size_t(tokens * e));
        for (float& v : x)
            v = normal(rng);
        std::vector<std::int32_t> ids;
        for (std::int32_t i = 0; i < ff; i += 2)
            ids.push_back(i);
        std::vector<std::uint8_t> mask(std::size_t(tokens * ff), 1);
        mask[5] = 0;
        for (int threads = 1; threads <= 2; ++threads) {
            cpu::ThreadPool pool(threads);
            auto ffn = sparse::SparseFfn::create(e, tokens, threads);
            QVERIFY(ffn.ok());
            for (int n : {1, tokens}) {
                const sparse::FfnInput in = (*ffn)->prepareInput(DType::Q4_0, x.data(), n);
                QVERIFY(in.xi);
                const std::uint8_t* m = n == 1 ? nullptr : mask.data();
                std::vector<float> plain(std::size_t(n * e)), packed(std::size_t(n * e));
                (*ffn)->run(pool, w, in, n, ids.data(), std::int64_t(ids.size()), m, plain.data());
                (*ffn)->run(pool, (*copy)->weights(), in, n, ids.data(), std::int64_t(ids.size()), m, packed.data());
                // Same integer dots, same scales: only float summation order differs.
                QVERIFY2(maxRelativeError(packed, plain) < 1e-4, qPrintable(QString::number(maxRelativeError(packed, plain))));
            }
        }
    }

    void emptyAndInvalidInputsAreHarmless()
    {
        NeuronFixture f = makeNeurons(DType::Q4_0, true, sparse::NeuronActivation::ReGlu, 1);
        auto ffn = sparse::SparseFfn::create(kEmbd, 2, 2);
        QVERIFY(ffn.ok());
        cpu::ThreadPool pool(2);
        const std::vector<float> x = randomInput(1, 2);
        const sparse::FfnInput in = (*ffn)->prepareInput(DType::Q4_0, x.data(), 1);
        std::vector<float> out(kEmbd, 5.0f);
        (*ffn)->run(pool, f.weights, in, 1, nullptr, 0, nullptr, out.data());
        QCOMPARE(out, std::vector<float>(kEmbd, 0.0f));
        sparse::NeuronWeights broken = f.weights;
        broken.stride = 1;
        QVERIFY(!broken.valid());
        QVERIFY(!sparse::NeuronWeights::fused({DType::Q4_0, f.fusedData.data(), kFf, 2 * kEmbd}, kEmbd,
                                              sparse::NeuronActivation::ReGlu)
                     .valid());
        QVERIFY(!sparse::SparseFfn::create(0, 1, 1).ok());
    }

    // Whole models: every neuron predicted active equals the dense path, in both layouts.
    void allActiveEqualsDense_data()
    {
        QTest::addColumn<int>("type");
        for (DType t : kNeuronTypes)
            QTest::newRow(dtypeName(t).data()) << int(t);
    }

    void allActiveEqualsDense()
    {
        QFETCH(int, type);
        const DType t = DType(type);
        const std::string piPath = writeModel(t, synth::SparseLayout::PowerInfer, 0.8);
        const std::string hPath = writeModel(t, synth::SparseLayout::Hearth, 0.8);
        QVERIFY(!piPath.empty() && !hPath.empty());
        auto pi = Model::load(piPath);
        auto h = Model::load(hPath);
        QVERIFY2(pi.ok(), pi.message().c_str());
        QVERIFY2(h.ok(), h.message().c_str());
        QVERIFY((*pi)->info().sparse);
        QVERIFY((*h)->info().sparse);
        const std::vector<Token> tokens = {1, 17, 42, 99, 5, 250, 7};
        using Mode = model::LlamaForward::FfnMode;
        const float all = -std::numeric_limits<float>::infinity();
        const auto dense = runModel(llamaOf(*pi), tokens, 2, Mode::Dense, 0.0f, false);
        sparse::resetFfnTraffic();
        const auto piAll = runModel(llamaOf(*pi), tokens, 2, Mode::Sparse, all, false);
        QVERIFY(sparse::ffnTraffic().neurons > 0); // the neuron kernels ran, not a dense fallback
        const auto hAll = runModel(llamaOf(*h), tokens, 2, Mode::Sparse, all, false);
        const auto hDense = runModel(llamaOf(*h), tokens, 2, Mode::Dense, 0.0f, false);
        QVERIFY(!dense.empty());
        // The dense path quantizes the activation the same way, so only summation order differs.
        const double tol = t == DType::F32 || t == DType::F16 ? 1e-3 : 2e-2;
        QVERIFY2(maxRelativeError(piAll, dense) < tol, qPrintable(QString::number(maxRelativeError(piAll, dense))));
        QVERIFY2(maxRelativeError(hAll, dense) < tol, qPrintable(QString::number(maxRelativeError(hAll, dense))));
        QVERIFY2(maxRelativeError(hDense, dense) < tol, qPrintable(QString::number(maxRelativeError(hDense, dense))));
    }

    // Both layouts of the same synthetic model predict the same neurons and give the same logits;
    // prefill equals token-by-token decode, in both layouts: at 70 % each token needs about 30 %
    // of the neurons, which the dense products compute with each token's mask applied.
    void layoutsAgreeWhenSparse_data()
    {
        QTest::addColumn<int>("type");
        for (DType t : {DType::F16, DType::Q4_0, DType::Q4_K})
            QTest::newRow(dtypeName(t).data()) << int(t);
    }

    void layoutsAgreeWhenSparse()
    {
        QFETCH(int, type);
        const DType t = DType(type);
        auto pi = Model::load(writeModel(t, synth::SparseLayout::PowerInfer, 0.7));
        auto h = Model::load(writeModel(t, synth::SparseLayout::Hearth, 0.7));
        QVERIFY(pi.ok() && h.ok());
        const std::vector<Token> tokens = {1, 17, 42, 99, 5};
        using Mode = model::LlamaForward::FfnMode;
        const auto a = runModel(llamaOf(*pi), tokens, 2, Mode::Sparse, 0.0f, false);
        const auto b = runModel(llamaOf(*h), tokens, 2, Mode::Sparse, 0.0f, false);
        const auto c = runModel(llamaOf(*h), tokens, 2, Mode::Sparse, 0.0f, true);
        const auto d = runModel(llamaOf(*pi), tokens, 2, Mode::Sparse, 0.0f, true);
        const auto dense = runModel(llamaOf(*pi), tokens, 2, Mode::Dense, 0.0f, false);
        const double tol = t == DType::F16 ? 1e-3 : 2e-2;
        QVERIFY2(maxRelativeError(a, b) < tol, qPrintable(QString::number(maxRelativeError(a, b))));
        QVERIFY2(maxRelativeError(c, b) < tol, qPrintable(QString::number(maxRelativeError(c, b))));
        QVERIFY2(maxRelativeError(d, a) < tol, qPrintable(QString::number(maxRelativeError(d, a))));
        // And sparse really differs from dense (the predictor skips neurons that would fire).
        QVERIFY(maxRelativeError(a, dense) > tol);
    }

    void promptCopiesComputeThePrompt_data()
    {
        QTest::addColumn<int>("type");
        QTest::addColumn<int>("layout");
        for (DType t : {DType::Q4_0, DType::Q4_K}) {
            for (synth::SparseLayout l : {synth::SparseLayout::PowerInfer, synth::SparseLayout::Hearth})
                QTest::newRow(QStringLiteral("%1 %2")
                                  .arg(QLatin1String(dtypeName(t)))
                                  .arg(QLatin1String(l == synth::SparseLayout::Hearth ? "fused" : "PowerInfer"))
                                  .toLatin1()
                                  .constData())
                    << int(t) << int(l);
        }
    }

    // With LoadParams::sparsePromptCopies a prompt whose tokens use most neurons runs the dense
    // layout's kernels (gate and up interleaved, down by output in Q8_0) and computes what it
    // computed from the rows kept for decoding; decoded tokens do not use the copies.
    void promptCopiesComputeThePrompt()
    {
        QFETCH(int, type);
        QFETCH(int, layout);
        const std::string path = writeModel(DType(type), synth::SparseLayout(layout), 0.5);
        auto plain = Model::load(path);
        LoadParams withCopies;
        withCopies.sparsePromptCopies = true;
        auto copied = Model::load(path, withCopies);
        QVERIFY(plain.ok() && copied.ok());
        QCOMPARE((*plain)->info().promptCopyBytes, std::uint64_t(0));
        const model::LlamaModel& m = llamaOf(*copied);
        QVERIFY((*copied)->info().promptCopyBytes > 0);
        for (const model::LlamaLayerWeights& l : m.weights().layers) {
            QVERIFY(l.promptGate.packing != cpu::Packing::None);
            QCOMPARE(l.promptDown.rows, m.hyperParams().nEmbd);
            QCOMPARE(l.promptDown.type, DType::Q8_0);
        }
        const std::vector<Token> tokens = {1, 17, 42, 99, 5, 250, 7, 31};
        using Mode = model::LlamaForward::FfnMode;
        const auto prompt = runModel(llamaOf(*plain), tokens, 2, Mode::Sparse, 0.0f, true);
        const auto promptWithCopies = runModel(m, tokens, 2, Mode::Sparse, 0.0f, true);
        QVERIFY(!prompt.empty());
        QVERIFY2(maxRelativeError(prompt, promptWithCopies) < 2e-2,
                 qPrintable(QString::number(maxRelativeError(prompt, promptWithCopies))));
        QVERIFY(prompt != promptWithCopies); // the copies ran
        QCOMPARE(runModel(m, tokens, 2, Mode::Sparse, 0.0f, false),
                 runModel(llamaOf(*plain), tokens, 2, Mode::Sparse, 0.0f, false));
    }

    // PowerInfer's own greedy output on the same F16 files in its layout
    // (data/powerinfer_greedy.json says how it was made): the predictor selects the same neurons
    // in both engines, prompts included (each token its own), so the ids are the same.
    void greedyIdsEqualPowerInfer_data()
    {
        test::addReferenceRows(QStringLiteral(HEARTH_TEST_DATA_DIR "/powerinfer_greedy.json"), {"shape", "type"});
    }

    void greedyIdsEqualPowerInfer()
    {
        QFETCH(QJsonObject, reference);
        const auto type = synth::parseWeightType(reference.value(QLatin1String("type")).toString().toStdString());
        QVERIFY(type.ok());
        synth::SynthOptions o; // hearth-synth's defaults: seed 42, the shape's own vocabulary
        o.shape = *synth::shapeByName(reference.value(QLatin1String("shape")).toString().toStdString());
        o.type = *type;
        o.ffnActivation = "reglu";
        synth::SparseSynthOptions s;
        s.sparsity = float(reference.value(QLatin1String("sparsity")).toDouble()); // the tool's option is a float
        s.layout = synth::SparseLayout::PowerInfer;
        const std::string path = m_dir.filePath(QStringLiteral("powerinfer-%1.gguf").arg(QTest::currentDataTag())).toStdString();
        QVERIFY(synth::writeSparseSyntheticModel(o, s, path).ok());
        // The reference holds for these bytes only: a generator change must come with new ids.
        QCOMPARE(QString::fromLatin1(test::fileSha256(path).toHex()), reference.value(QLatin1String("sha256")).toString());

        auto model = Model::load(path);
        QVERIFY2(model.ok(), model.message().c_str());
        const std::vector<Token> prompt = test::referenceTokens(reference, "prompt");
        const std::vector<Token> expected = test::referenceTokens(reference, "ids");
        QCOMPARE(test::greedyIds(*model, prompt, int(expected.size())), expected);

        // The first logits after the prompt, each within 2e-3 x (1 + |logit|): PowerInfer rounds
        // the activations it hands between operations to F16, Hearth keeps them in floats.
        auto session = Session::create(*model, test::deviceSessionParams({}, 0, 512, 64));
        QVERIFY(session.ok() && (*session)->prefill(prompt).ok());
        const auto logits = (*session)->logits();
        const QJsonArray theirs = reference.value(QLatin1String("logits")).toArray();
        for (qsizetype i = 0; i < theirs.size(); ++i) {
            const double want = theirs.at(i).toDouble();
            QVERIFY2(std::abs(double(logits[std::size_t(i)]) - want) <= 2e-3 * (1.0 + std::abs(want)),
                     qPrintable(QStringLiteral("logit %1: %2, PowerInfer %3").arg(i).arg(logits[std::size_t(i)]).arg(want)));
        }
    }

    void modelThreadsAgreeAndRepeat()
    {
        auto m = Model::load(writeModel(DType::Q4_0, synth::SparseLayout::Hearth, 0.7));
        QVERIFY(m.ok());
        const std::vector<Token> tokens = {1, 3, 200, 45};
        using Mode = model::LlamaForward::FfnMode;
        const auto one = runModel(llamaOf(*m), tokens, 1, Mode::Sparse, 0.0f, false);
        for (int threads = 1; threads <= 3; ++threads) {
            const auto a = runModel(llamaOf(*m), tokens, threads, Mode::Sparse, 0.0f, false);
            const auto b = runModel(llamaOf(*m), tokens, threads, Mode::Sparse, 0.0f, false);
            QCOMPARE(a, b);
            QVERIFY2(maxRelativeError(a, one) < 1e-3, qPrintable(QString::number(maxRelativeError(a, one))));
        }
    }

    void truncatedSparseFileIsRejected()
    {
        const std::string path = writeModel(DType::F16, synth::SparseLayout::Hearth, 0.5);
        QFile file(QString::fromStdString(path));
        QVERIFY(file.open(QIODevice::ReadWrite));
        QVERIFY(file.resize(file.size() / 2));
        file.close();
        auto m = Model::load(path);
        QVERIFY(!m.ok());
        QVERIFY(!m.message().empty());
    }
};

QTEST_GUILESS_MAIN(TestSparse)
#include "tst_sparse.moc"
