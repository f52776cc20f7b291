// SPDX-License-Identifier: MIT
// The hybrid FFN executor on the emulated device: the split between device and CPU must not
// change the layer's output (budgets 0, partial, everything; F16 and Q4_0; several thread
// counts), a prompt's batch gives what its tokens give one by one, a device that cannot hold
// the plan leads to re-planning, and whole-layer dense offload matches the CPU forward pass's
// arithmetic.

#include "cpu/matmul.h"
#include "cpu/ops.h"
#include "cpu/quant.h"
#include "cpu/thread_pool.h"
#include "device/dense_offload.h"
#include "device/emulated_device.h"
#include "device/hybrid_ffn.h"
#include "device/hybrid_placement.h"
#include "sparse/placement_planner.h"
#include "sparse/sparse_ffn.h"
#include "device_test_support.h"

#include <QTest>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

using namespace hearth;
using namespace hearth::device;
using namespace hearth::test;

namespace {

// One layer's FFN weights, owned.
struct FfnFixture {
    std::vector<std::uint8_t> gate, up, down;
    FfnWeights weights;

    FfnFixture(DType type, std::int64_t nFF, std::int64_t nEmbd, std::uint32_t seed)
        : gate(randomMatrix(type, nFF, nEmbd, seed))
        , up(randomMatrix(type, nFF, nEmbd, seed + 1))
        , down(randomMatrix(type, nFF, nEmbd, seed + 2))
    {
        weights.gate = cpu::WeightMatrix{type, gate.data(), nFF, nEmbd};
        weights.up = cpu::WeightMatrix{type, up.data(), nFF, nEmbd};
        weights.downT = cpu::WeightMatrix{type, down.data(), nFF, nEmbd};
        weights.activation = Activation::ReGlu;
    }
};

// A random subset of [0, n) with about @p fraction of the ids, ascending.
std::vector<std::int32_t> randomSubset(std::int64_t n, double fraction, std::uint32_t seed)
{
    std::mt19937 rng(seed);
    std::bernoulli_distribution pick(fraction);
    std::vector<std::int32_t> out;
    for (std::int64_t i = 0; i < n; ++i) {
        if (pick(rng))
            out.push_back(std::int32_t(i));
    }
    return out;
}

// The FFN in double precision straight from dequantized rows: checks the CPU path itself.
std::vector<float> naiveFfn(const FfnWeights& w, const float* x, const std::vector<std::int32_t>& active)
{
    const std::int64_t n = w.nEmbd();
    std::vector<double> y(std::size_t(n), 0.0);
    std::vector<float> g(static_cast<std::size_t>(n));
    std::vector<float> u(static_cast<std::size_t>(n));
    std::vector<float> d(static_cast<std::size_t>(n));
    for (std::int32_t i : active) {
        cpu::getRow(w.gate, i, g.data());
        cpu::getRow(w.up, i, u.data());
        cpu::getRow(w.downT, i, d.data());
        double gd = 0;
        double ud = 0;
        for (std::int64_t c = 0; c < n; ++c) {
            gd += double(g[std::size_t(c)]) * x[c];
            ud += double(u[std::size_t(c)]) * x[c];
        }
        const double a = std::max(gd, 0.0) * ud;
        for (std::int64_t c = 0; c < n; ++c)
            y[std::size_t(c)] += a * d[std::size_t(c)];
    }
    return std::vector<float>(y.begin(), y.end());
}

} // namespace

class TestHybrid : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void splitKeepsOutput_data();
    void splitKeepsOutput();
    void promptMatchesTokenByToken_data();
    void promptMatchesTokenByToken();
    void rejectsBadInput();
    void allocationFailureLeavesNothing();
    void replansAfterAllocationFailure();
    void replansAfterInjectedFailure();
    void cpuOnlyWithoutDevice();
    void denseOffload();
    void denseOffloadPartialBudget();
};

void TestHybrid::splitKeepsOutput_data()
{
    QTest::addColumn<int>("type");
    QTest::addColumn<double>("hotFraction");
    QTest::addColumn<int>("threads");
    for (DType t : {DType::F16, DType::Q4_0, DType::Q4_K}) {
        for (double hot : {0.0, 0.4, 1.0}) {
            for (int threads : {1, 2, 3}) {
                const QByteArray name = QByteArray(dtypeName(t).data(), int(dtypeName(t).size())) + " hot "
                                        + QByteArray::number(hot) + " threads " + QByteArray::number(threads);
                QTest::newRow(name.constData()) << int(t) << hot << threads;
            }
        }
    }
}

void TestHybrid::splitKeepsOutput()
{
    QFETCH(int, type);
    QFETCH(double, hotFraction);
    QFETCH(int, threads);
    const std::int64_t nEmbd = 256; // a K-quant super-block
    const std::int64_t nFF = 512;
    FfnFixture f(DType(type), nFF, nEmbd, 100);
    cpu::ThreadPool pool(threads);

    std::vector<std::int32_t> hot;
    if (hotFraction >= 1.0) {
        hot.resize(std::size_t(nFF));
        std::iota(hot.begin(), hot.end(), 0);
    } else if (hotFraction > 0.0) {
        hot = randomSubset(nFF, hotFraction, 7);
    }

    EmulatedDevice device(EmulatedDeviceOptions{std::uint64_t(4) << 20, 256, 0, "test"});
    auto scratch = HybridFfnScratch::create(device, nEmbd, std::int64_t(hot.size()));
    QVERIFY(scratch.ok());
    auto hybrid = HybridFfnLayer::create(&device, scratch->get(), f.weights, hot);
    QVERIFY2(hybrid.ok(), hybrid.message().c_str());
    QCOMPARE((*hybrid)->hotCount(), std::int64_t(hot.size()));
    // Exact accounting: three row blocks and the id list.
    if (!hot.empty()) {
        const std::uint64_t rows = device.chargedBytes(std::uint64_t(rowBytes(DType(type), nEmbd)) * hot.size());
        QCOMPARE((*hybrid)->deviceBytes(), 3 * rows + device.chargedBytes(hot.size() * 4));
        QCOMPARE(device.usedBytes(), (*hybrid)->deviceBytes() + (*scratch)->bytes());
    }
    auto cpuOnly = HybridFfnLayer::create(nullptr, nullptr, f.weights, {});
    QVERIFY(cpuOnly.ok());

    for (int token = 0; token < 4; ++token) {
        const auto x = randomFloats(std::size_t(nEmbd), 200 + token);
        const auto active = randomSubset(nFF, 0.3, 300 + token);
        std::vector<float> want(static_cast<std::size_t>(nEmbd));
        std::vector<float> got(static_cast<std::size_t>(nEmbd));
        QVERIFY((*cpuOnly)->forward(pool, x.data(), active.data(), std::int64_t(active.size()), want.data()).ok());
        const std::uint64_t queuedBefore = device.operationsQueued();
        QVERIFY((*hybrid)->forward(pool, x.data(), active.data(), std::int64_t(active.size()), got.data()).ok());

        std::int64_t expectedOnDevice = 0;
        for (std::int32_t i : active)
            expectedOnDevice += std::binary_search(hot.begin(), hot.end(), i) ? 1 : 0;
        QCOMPARE((*hybrid)->lastStats().deviceNeurons, expectedOnDevice);
        QCOMPARE((*hybrid)->lastStats().hostNeurons, std::int64_t(active.size()) - expectedOnDevice);
        QCOMPARE(device.operationsQueued() > queuedBefore, expectedOnDevice > 0);

        if (hot.empty()) {
            // Nothing on the device: the very same arithmetic.
            QVERIFY(std::memcmp(got.data(), want.data(), got.size() * 4) == 0);
        } else {
            // The same products, summed in another order.
            QVERIFY2(maxRelativeError(got, want) < 1e-5f, qPrintable(QString::number(maxRelativeError(got, want))));
        }
        // And the CPU path is the FFN (quantized rows multiply Q8-quantized activations, hence the slack).
        const auto naive = naiveFfn(f.weights, x.data(), active);
        const float tolerance = DType(type) == DType::F16 ? 1e-4f : 3e-2f;
        QVERIFY2(maxRelativeError(want, naive) < tolerance, qPrintable(QString::number(maxRelativeError(want, naive))));
    }
}

void TestHybrid::promptMatchesTokenByToken_data()
{
    QTest::addColumn<int>("type");
    QTest::addColumn<double>("hotFraction");
    QTest::addColumn<int>("selection"); // 0: a mask per token, 1: some neurons for all, 2: every neuron
    for (DType t : {DType::F16, DType::Q4_0, DType::Q4_K}) {
        for (double hot : {0.0, 0.4, 1.0}) {
            for (int selection : {0, 1, 2}) {
                const QByteArray name = QByteArray(dtypeName(t).data(), int(dtypeName(t).size())) + " hot "
                                        + QByteArray::number(hot) + " selection " + QByteArray::number(selection);
                QTest::newRow(name.constData()) << int(t) << hot << selection;
            }
        }
    }
}

// A prompt of 7 tokens through scratch of 3 rows (three slices on the device), each token with
// its own neurons, against the same tokens one at a time on the CPU.
void TestHybrid::promptMatchesTokenByToken()
{
    QFETCH(int, type);
    QFETCH(double, hotFraction);
    QFETCH(int, selection);
    const std::int64_t nEmbd = 256;
    const std::int64_t nFF = 512;
    constexpr int tokens = 7;
    FfnFixture f(DType(type), nFF, nEmbd, 400);
    cpu::ThreadPool pool(2);
    std::vector<std::int32_t> hot;
    if (hotFraction >= 1.0) {
        hot.resize(std::size_t(nFF));
        std::iota(hot.begin(), hot.end(), 0);
    } else if (hotFraction > 0.0) {
        hot = randomSubset(nFF, hotFraction, 8);
    }
    EmulatedDevice device(EmulatedDeviceOptions{std::uint64_t(4) << 20, 256, 0, "test"});
    auto scratch = HybridFfnScratch::create(device, nEmbd, std::int64_t(hot.size()), 3);
    QVERIFY(scratch.ok());
    auto hybrid = HybridFfnLayer::create(&device, scratch->get(), f.weights, hot);
    QVERIFY2(hybrid.ok(), hybrid.message().c_str());
    auto cpuOnly = HybridFfnLayer::create(nullptr, nullptr, f.weights, {});
    QVERIFY(cpuOnly.ok());

    std::vector<std::int32_t> active(static_cast<std::size_t>(nFF));
    std::iota(active.begin(), active.end(), 0);
    if (selection == 1)
        active = randomSubset(nFF, 0.3, 9);
    std::vector<std::uint8_t> mask;
    if (selection == 0) {
        std::mt19937 rng(10);
        mask.resize(std::size_t(tokens) * std::size_t(nFF));
        for (auto& m : mask)
            m = std::uint8_t(rng() % 10 < 3);
    }
    const auto x = randomFloats(std::size_t(tokens * nEmbd), 11);
    std::vector<float> got(std::size_t(tokens * nEmbd));
    QVERIFY((*hybrid)->forwardBatch(pool, x.data(), tokens, active.data(), std::int64_t(active.size()),
                                    mask.empty() ? nullptr : mask.data(), got.data())
                .ok());
    std::int64_t coldPairs = 0;
    for (int t = 0; t < tokens; ++t) {
        std::vector<std::int32_t> ids;
        for (std::int32_t i : active) {
            if (mask.empty() || mask[std::size_t(t) * std::size_t(nFF) + std::size_t(i)]) {
                ids.push_back(i);
                coldPairs += std::binary_search(hot.begin(), hot.end(), i) ? 0 : 1;
            }
        }
        std::vector<float> want(static_cast<std::size_t>(nEmbd));
        QVERIFY((*cpuOnly)->forward(pool, x.data() + t * nEmbd, ids.data(), std::int64_t(ids.size()), want.data()).ok());
        const std::vector<float> row(got.begin() + t * nEmbd, got.begin() + (t + 1) * nEmbd);
        QVERIFY2(maxRelativeError(row, want) < 1e-5f,
                 qPrintable(QStringLiteral("token %1: %2").arg(t).arg(maxRelativeError(row, want))));
    }
    // What the CPU computes, which decides whether a prompt takes this path.
    const std::uint8_t* masks = mask.empty() ? nullptr : mask.data();
    QCOMPARE((*hybrid)->coldPairs(tokens, active.data(), std::int64_t(active.size()), masks), coldPairs);
}

void TestHybrid::rejectsBadInput()
{
    FfnFixture f(DType::F16, 64, 32, 1);
    EmulatedDevice device;
    auto scratch = HybridFfnScratch::create(device, 32, 8);
    QVERIFY(scratch.ok());
    QCOMPARE(HybridFfnLayer::create(&device, scratch->get(), f.weights, {3, 2}).code(), ErrorCode::InvalidArgument);
    QCOMPARE(HybridFfnLayer::create(&device, scratch->get(), f.weights, {64}).code(), ErrorCode::InvalidArgument);
    std::vector<std::int32_t> tooMany(9);
    std::iota(tooMany.begin(), tooMany.end(), 0);
    QCOMPARE(HybridFfnLayer::create(&device, scratch->get(), f.weights, tooMany).code(), ErrorCode::InvalidArgument);
    FfnWeights broken = f.weights;
    broken.up.rows = 63;
    QCOMPARE(HybridFfnLayer::create(&device, scratch->get(), broken, {}).code(), ErrorCode::InvalidArgument);

    auto layer = HybridFfnLayer::create(&device, scratch->get(), f.weights, {1, 5});
    QVERIFY(layer.ok());
    cpu::ThreadPool pool(1);
    std::vector<float> x(32, 1.0f);
    std::vector<float> y(32);
    const std::int32_t outOfRange[] = {1, 64};
    QCOMPARE((*layer)->forward(pool, x.data(), outOfRange, 2, y.data()).code(), ErrorCode::InvalidArgument);
    QCOMPARE((*layer)->forward(pool, x.data(), nullptr, 1, y.data()).code(), ErrorCode::InvalidArgument);
    QVERIFY((*layer)->forward(pool, x.data(), nullptr, 0, y.data()).ok());
    QCOMPARE(y, std::vector<float>(32, 0.0f));
}

void TestHybrid::allocationFailureLeavesNothing()
{
    FfnFixture f(DType::F16, 256, 64, 3);
    std::vector<std::int32_t> hot(200);
    std::iota(hot.begin(), hot.end(), 0);
    // Room for the scratch and about one and a half row blocks.
    EmulatedDevice device(EmulatedDeviceOptions{64 * 1024, 256, 0, "small"});
    auto scratch = HybridFfnScratch::create(device, 64, 200);
    QVERIFY(scratch.ok());
    const std::uint64_t before = device.usedBytes();
    auto layer = HybridFfnLayer::create(&device, scratch->get(), f.weights, hot);
    QVERIFY(!layer.ok());
    QCOMPARE(layer.code(), ErrorCode::OutOfMemory);
    QCOMPARE(device.usedBytes(), before);
}

namespace {

struct PlacementFixture {
    static constexpr std::int64_t nEmbd = 128;
    static constexpr std::int64_t nFF = 512;
    static constexpr std::int64_t nLayer = 2;
    std::vector<std::unique_ptr<FfnFixture>> ffn;
    std::vector<FfnWeights> weights;
    sparse::ModelShape shape;
    sparse::ActivationStats stats;

    PlacementFixture()
    {
        for (int l = 0; l < nLayer; ++l) {
            ffn.push_back(std::make_unique<FfnFixture>(DType::F16, nFF, nEmbd, 1000 + 10 * l));
            weights.push_back(ffn.back()->weights);
        }
        sparse::UniformShapeParams p;
        p.nLayer = nLayer;
        p.nEmbd = nEmbd;
        p.nHead = 4;
        p.nHeadKv = 4;
        p.nFF = nFF;
        p.nVocab = 256;
        p.predictorHidden = 32;
        p.weightType = DType::F16;
        shape = *sparse::uniformShape(p);
        std::vector<std::vector<float>> freq;
        std::mt19937 rng(5);
        std::uniform_real_distribution<float> u(0.0f, 1.0f);
        for (int l = 0; l < nLayer; ++l) {
            std::vector<float> v(static_cast<std::size_t>(nFF));
            for (float& x : v)
                x = u(rng) * u(rng);
            freq.push_back(std::move(v));
        }
        stats = *sparse::ActivationStats::fromFrequencies(std::move(freq));
    }

    static sparse::PlannerParams params(std::uint64_t budget)
    {
        sparse::PlannerParams p;
        p.budgetBytes = budget;
        p.contextLength = 64;
        p.batchSize = 1;
        p.reserveBytes = 0;
        p.workspaceBytes = 0;
        return p;
    }
};

} // namespace

void TestHybrid::replansAfterAllocationFailure()
{
    PlacementFixture fx;
    auto planner = sparse::PlacementPlanner::create(fx.shape, fx.stats);
    QVERIFY(planner.ok());
    const std::uint64_t promised = 600 * 1024;
    auto first = planner->plan(PlacementFixture::params(promised));
    QVERIFY(first.ok());
    QVERIFY(first->hotNeuronCount() > 0);

    // The device said 600 KiB but holds half of what the plan puts in FFN neurons.
    const std::uint64_t physical = first->gpu.ffn / 2;
    EmulatedDevice device(EmulatedDeviceOptions{promised, 256, physical, "liar"});
    auto placed = placeHybridFfn(&device, *planner, PlacementFixture::params(promised), fx.weights);
    QVERIFY2(placed.ok(), placed.message().c_str());
    QVERIFY(placed->attempts > 1);
    QCOMPARE(placed->notes.size(), std::size_t(placed->attempts - 1));
    QVERIFY(QString::fromStdString(placed->notes.front()).contains(QStringLiteral("re-planning")));
    QVERIFY(placed->budgetBytes < promised);
    QVERIFY(placed->plan.hotNeuronCount() < first->hotNeuronCount());
    QVERIFY(device.usedBytes() <= physical);
    std::int64_t hot = 0;
    for (const auto& layer : placed->layers)
        hot += layer->hotCount();
    QCOMPARE(hot, placed->plan.hotNeuronCount());
    for (const std::string& note : placed->notes)
        qInfo("%s", note.c_str());

    // The re-planned model computes what the CPU alone computes.
    cpu::ThreadPool pool(2);
    const auto x = randomFloats(std::size_t(PlacementFixture::nEmbd), 9);
    const auto active = randomSubset(PlacementFixture::nFF, 0.5, 10);
    for (std::size_t l = 0; l < placed->layers.size(); ++l) {
        auto cpuOnly = HybridFfnLayer::create(nullptr, nullptr, fx.weights[l], {});
        QVERIFY(cpuOnly.ok());
        std::vector<float> want(static_cast<std::size_t>(PlacementFixture::nEmbd));
        std::vector<float> got(want.size());
        QVERIFY((*cpuOnly)->forward(pool, x.data(), active.data(), std::int64_t(active.size()), want.data()).ok());
        QVERIFY(placed->layers[l]->forward(pool, x.data(), active.data(), std::int64_t(active.size()), got.data()).ok());
        QVERIFY(maxRelativeError(got, want) < 1e-5f);
    }
    placed = Status(ErrorCode::Cancelled, "released"); // frees everything
    QCOMPARE(device.usedBytes(), std::uint64_t(0));
}

void TestHybrid::replansAfterInjectedFailure()
{
    PlacementFixture fx;
    auto planner = sparse::PlacementPlanner::create(fx.shape, fx.stats);
    QVERIFY(planner.ok());
    const std::uint64_t budget = std::uint64_t(4) << 20; // everything fits
    EmulatedDevice device(EmulatedDeviceOptions{budget, 256, 0, "flaky"});
    device.injectAllocationFailures(1);
    auto placed = placeHybridFfn(&device, *planner, PlacementFixture::params(budget), fx.weights);
    QVERIFY2(placed.ok(), placed.message().c_str());
    QCOMPARE(placed->attempts, 2);
    QCOMPARE(placed->notes.size(), std::size_t(1));
    QVERIFY(QString::fromStdString(placed->notes.front()).contains(QStringLiteral("injected failure")));
    QCOMPARE(placed->budgetBytes, std::uint64_t(double(budget) * 0.8));
    QVERIFY(!placed->cpuOnly());

    // A device that fails every time ends CPU-only, still without an error.
    EmulatedDevice broken(EmulatedDeviceOptions{budget, 256, 0, "broken"});
    broken.injectAllocationFailures(1000);
    HybridPlacementOptions options;
    options.maxAttempts = 4;
    auto fallback = placeHybridFfn(&broken, *planner, PlacementFixture::params(budget), fx.weights, options);
    QVERIFY2(fallback.ok(), fallback.message().c_str());
    QVERIFY(fallback->cpuOnly());
    QCOMPARE(fallback->attempts, 4);
    QCOMPARE(fallback->plan.hotNeuronCount(), std::int64_t(0));
    QCOMPARE(fallback->layers.size(), std::size_t(PlacementFixture::nLayer));
    QVERIFY(QString::fromStdString(fallback->notes.back()).contains(QStringLiteral("CPU")));
}

void TestHybrid::cpuOnlyWithoutDevice()
{
    PlacementFixture fx;
    auto planner = sparse::PlacementPlanner::create(fx.shape, fx.stats);
    QVERIFY(planner.ok());
    auto placed = placeHybridFfn(nullptr, *planner, PlacementFixture::params(std::uint64_t(1) << 30), fx.weights);
    QVERIFY(placed.ok());
    QVERIFY(placed->cpuOnly());
    QCOMPARE(placed->attempts, 1);
    QVERIFY(placed->notes.empty());
    for (const auto& layer : placed->layers)
        QCOMPARE(layer->hotCount(), std::int64_t(0));
}

namespace {

struct DenseFixture {
    DenseModelParams p;
    std::vector<std::vector<std::uint8_t>> mats;
    std::vector<std::vector<float>> norms;
    std::vector<DenseLayerWeights> layers;

    explicit DenseFixture(int nLayer)
    {
        p.nEmbd = 64;
        p.nHead = 4;
        p.nHeadKv = 2;
        p.headDim = 16;
        p.nRot = 16;
        p.nFF = 96;
        p.contextLength = 16;
        p.activation = Activation::SwiGlu;
        mats.reserve(std::size_t(nLayer) * 7);
        for (int l = 0; l < nLayer; ++l) {
            auto mat = [&](DType t, std::int64_t rows, std::int64_t cols) {
                mats.push_back(randomMatrix(t, rows, cols, std::uint32_t(500 + mats.size())));
                return cpu::WeightMatrix{t, mats.back().data(), rows, cols};
            };
            DenseLayerWeights w;
            const std::int64_t q = p.nHead * p.headDim;
            const std::int64_t kv = p.nHeadKv * p.headDim;
            w.wq = mat(DType::F16, q, p.nEmbd);
            w.wk = mat(DType::Q8_0, kv, p.nEmbd);
            w.wv = mat(DType::F32, kv, p.nEmbd);
            w.wo = mat(DType::F16, p.nEmbd, q);
            w.gate = mat(DType::Q4_0, p.nFF, p.nEmbd);
            w.up = mat(DType::Q4_0, p.nFF, p.nEmbd);
            w.down = mat(DType::F16, p.nEmbd, p.nFF);
            norms.push_back(randomFloats(std::size_t(p.nEmbd), 900 + l, 0.1f));
            for (float& v : norms.back())
                v += 1.0f;
            w.norm = norms.back().data();
            w.ffnNorm = norms.back().data();
            layers.push_back(w);
        }
    }

    // One token through the layers with the CPU forward pass's steps (model/llama_forward.cpp).
    void cpuForward(std::vector<std::vector<float>>& kCache, std::vector<std::vector<float>>& vCache, float* x,
                    int pos, int count) const
    {
        cpu::ThreadPool pool(1);
        const int qDim = p.nHead * p.headDim;
        const int kvDim = p.nHeadKv * p.headDim;
        auto floats = [](std::int64_t n) { return std::vector<float>(static_cast<std::size_t>(n)); };
        std::vector<float> xn = floats(p.nEmbd), q = floats(qDim), k = floats(kvDim), v = floats(kvDim),
                           attn = floats(qDim), tmp = floats(p.nEmbd), g = floats(p.nFF), u = floats(p.nFF),
                           cosT = floats(p.nRot / 2), sinT = floats(p.nRot / 2), s = floats(pos + 1);
        cpu::ropeTables(pos, p.nRot, p.freqBase, p.freqScale, cosT.data(), sinT.data());
        for (int l = 0; l < count; ++l) {
            const DenseLayerWeights& w = layers[std::size_t(l)];
            cpu::rmsNorm(x, w.norm, p.normEps, p.nEmbd, xn.data());
            cpu::matmul(pool, w.wq, xn.data(), 1, q.data());
            cpu::matmul(pool, w.wk, xn.data(), 1, k.data());
            cpu::matmul(pool, w.wv, xn.data(), 1, v.data());
            cpu::ropeNormal(q.data(), p.nHead, p.headDim, p.nRot, cosT.data(), sinT.data());
            cpu::ropeNormal(k.data(), p.nHeadKv, p.headDim, p.nRot, cosT.data(), sinT.data());
            std::copy(k.begin(), k.end(), kCache[std::size_t(l)].begin() + pos * kvDim);
            std::copy(v.begin(), v.end(), vCache[std::size_t(l)].begin() + pos * kvDim);
            for (int h = 0; h < p.nHead; ++h) {
                const int off = (h / (p.nHead / p.nHeadKv)) * p.headDim;
                for (int j = 0; j <= pos; ++j)
                    s[std::size_t(j)] = cpu::dot(q.data() + h * p.headDim, kCache[std::size_t(l)].data() + j * kvDim + off,
                                                 p.headDim)
                                        * (1.0f / std::sqrt(float(p.headDim)));
                cpu::softmax(s.data(), pos + 1);
                std::fill_n(attn.data() + h * p.headDim, p.headDim, 0.0f);
                for (int j = 0; j <= pos; ++j)
                    cpu::axpy(attn.data() + h * p.headDim, s[std::size_t(j)],
                              vCache[std::size_t(l)].data() + j * kvDim + off, p.headDim);
            }
            cpu::matmul(pool, w.wo, attn.data(), 1, tmp.data());
            cpu::add(x, tmp.data(), p.nEmbd);
            cpu::rmsNorm(x, w.ffnNorm, p.normEps, p.nEmbd, xn.data());
            cpu::matmul(pool, w.gate, xn.data(), 1, g.data());
            cpu::matmul(pool, w.up, xn.data(), 1, u.data());
            cpu::swiglu(g.data(), u.data(), p.nFF);
            cpu::matmul(pool, w.down, g.data(), 1, tmp.data());
            cpu::add(x, tmp.data(), p.nEmbd);
        }
    }
};

} // namespace

void TestHybrid::denseOffload()
{
    DenseFixture fx(2);
    EmulatedDevice device(EmulatedDeviceOptions{std::uint64_t(8) << 20, 256, 0, "big"});
    auto offload = DenseOffload::create(device, fx.p, fx.layers);
    QVERIFY2(offload.ok(), offload.message().c_str());
    QCOMPARE((*offload)->offloadedLayers(), 2);
    QVERIFY((*offload)->limit().empty());

    const int kvDim = fx.p.nHeadKv * fx.p.headDim;
    std::vector<std::vector<float>> kc(2, std::vector<float>(std::size_t(kvDim * fx.p.contextLength)));
    std::vector<std::vector<float>> vc = kc;
    for (int pos = 0; pos < 4; ++pos) {
        auto x = randomFloats(std::size_t(fx.p.nEmbd), 40 + pos);
        auto want = x;
        fx.cpuForward(kc, vc, want.data(), pos, 2);
        QVERIFY((*offload)->forward(x.data(), pos).ok());
        QVERIFY2(maxRelativeError(x, want) < 1e-5f, qPrintable(QString::number(maxRelativeError(x, want))));
    }
    QCOMPARE((*offload)->forward(nullptr, 0).code(), ErrorCode::InvalidArgument);
    offload = Status(ErrorCode::Cancelled, "released");
    QCOMPARE(device.usedBytes(), std::uint64_t(0));
}

void TestHybrid::denseOffloadPartialBudget()
{
    DenseFixture fx(3);
    // Measure one layer's cost on a roomy device, then give room for scratch + one layer.
    std::uint64_t scratchAndOne = 0;
    {
        EmulatedDevice probe(EmulatedDeviceOptions{std::uint64_t(8) << 20, 256, 0, "probe"});
        auto one = DenseOffload::create(probe, fx.p, fx.layers, 1);
        QVERIFY(one.ok());
        QCOMPARE((*one)->offloadedLayers(), 1);
        scratchAndOne = probe.usedBytes();
    }
    EmulatedDevice device(EmulatedDeviceOptions{scratchAndOne + scratchAndOne / 4, 256, 0, "small"});
    auto offload = DenseOffload::create(device, fx.p, fx.layers);
    QVERIFY(offload.ok());
    QCOMPARE((*offload)->offloadedLayers(), 1);
    QVERIFY(QString::fromStdString((*offload)->limit()).contains(QStringLiteral("layer 1 does not fit")));
    QCOMPARE(device.usedBytes(), scratchAndOne); // the partial layer 1 was given back

    // The first layer on the device, then the rest on the CPU: same as all on the CPU.
    const int kvDim = fx.p.nHeadKv * fx.p.headDim;
    std::vector<std::vector<float>> kc(3, std::vector<float>(std::size_t(kvDim * fx.p.contextLength)));
    std::vector<std::vector<float>> vc = kc;
    auto x = randomFloats(std::size_t(fx.p.nEmbd), 77);
    auto want = x;
    fx.cpuForward(kc, vc, want.data(), 0, 1);
    QVERIFY((*offload)->forward(x.data(), 0).ok());
    QVERIFY(maxRelativeError(x, want) < 1e-5f);

    // No room even for the work buffers: zero layers, not an error.
    EmulatedDevice tiny(EmulatedDeviceOptions{1024, 256, 0, "tiny"});
    auto none = DenseOffload::create(tiny, fx.p, fx.layers);
    QVERIFY(none.ok());
    QCOMPARE((*none)->offloadedLayers(), 0);
    QVERIFY(!(*none)->limit().empty());
    QCOMPARE(tiny.usedBytes(), std::uint64_t(0));
}

QTEST_GUILESS_MAIN(TestHybrid)
#include "tst_hybrid.moc"
