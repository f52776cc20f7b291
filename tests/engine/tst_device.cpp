// SPDX-License-Identifier: MIT
// The device layer on the emulated device: budget accounting, copies, every operation against
// the CPU code it stands for, argument checks, and the CUDA module loader's failure messages.

#include "cpu/matmul.h"
#include "cpu/ops.h"
#include "cpu/quant.h"
#include "cpu/thread_pool.h"
#include "device/device_loader.h"
#include "device/emulated_device.h"
#include "device/screened_ffn.h"
#include "device/reference_ops.h"
#include "sparse/predictor.h"
#include "device_test_support.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

using namespace hearth;
using namespace hearth::device;
using namespace hearth::test;

namespace {

// Downloads @p n floats (synchronously).
std::vector<float> fetch(Device& d, const DeviceBuffer& b, std::size_t n)
{
    std::vector<float> out(n);
    if (!d.download(b, 0, out.data(), n * 4).ok() || !d.synchronize().ok())
        return {};
    return out;
}

DeviceBuffer put(Device& d, const void* data, std::size_t bytes)
{
    auto b = d.allocateAndUpload(data, bytes, "test data");
    return b ? *b : DeviceBuffer{};
}

DeviceBuffer scratch(Device& d, std::size_t bytes)
{
    auto b = d.allocate(bytes, "test scratch");
    return b ? *b : DeviceBuffer{};
}

bool sameFloats(const std::vector<float>& a, const std::vector<float>& b)
{
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * 4) == 0;
}

} // namespace

class TestDevice : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void budgetAccounting();
    void budgetNeverThrows();
    void physicalCapacityAndInjectedFailures();
    void copies();
    void matmul_data();
    void matmul();
    void rowsDotAndDown_data();
    void rowsDotAndDown();
    void activate();
    void screenedNeurons();
    void predictor();
    void rmsNormAndAdd();
    void attention();
    void badArguments();
    void loaderModuleAbsent();
    void loaderBogusFile();
    void loaderModuleWithoutSymbol();
    void loaderRealModuleWithoutGpu();
    void cudaDeviceThroughStandInModule();
};

void TestDevice::budgetAccounting()
{
    EmulatedDevice d(EmulatedDeviceOptions{10 * 1024, 256, 0, "test"});
    QCOMPARE(d.budgetBytes(), std::uint64_t(10 * 1024));
    QCOMPARE(d.usedBytes(), std::uint64_t(0));
    auto a = d.allocate(100, "a");
    QVERIFY(a.ok());
    QCOMPARE(a->charged, std::uint64_t(256));
    QCOMPARE(d.usedBytes(), std::uint64_t(256));
    auto b = d.allocate(1024, "b");
    QVERIFY(b.ok());
    QCOMPARE(b->charged, std::uint64_t(1024));
    auto c = d.allocate(0, "c"); // a distinct buffer still costs one unit
    QVERIFY(c.ok());
    QCOMPARE(d.usedBytes(), std::uint64_t(256 + 1024 + 256));
    QCOMPARE(d.chargedBytes(1025), std::uint64_t(1280));

    // Exactly the rest fits; one byte more does not.
    const std::uint64_t rest = d.availableBytes();
    auto tooBig = d.allocate(rest + 1, "too big");
    QVERIFY(!tooBig.ok());
    QCOMPARE(tooBig.code(), ErrorCode::OutOfMemory);
    QVERIFY(QString::fromStdString(tooBig.message()).contains(QStringLiteral("too big")));
    QCOMPARE(d.usedBytes(), std::uint64_t(256 + 1024 + 256));
    auto exact = d.allocate(rest, "exact");
    QVERIFY(exact.ok());
    QCOMPARE(d.usedBytes(), d.budgetBytes());
    QCOMPARE(d.allocate(1, "one more").code(), ErrorCode::OutOfMemory);

    // Freeing returns the budget, once: a stale copy of the handle frees nothing.
    const DeviceBuffer stale = *exact;
    d.free(*exact);
    DeviceBuffer staleCopy = stale;
    d.free(staleCopy);
    QVERIFY(exact->empty());
    QCOMPARE(d.availableBytes(), rest);
    d.free(*a);
    d.free(*b);
    d.free(*c);
    QCOMPARE(d.usedBytes(), std::uint64_t(0));
    QCOMPARE(d.liveAllocations(), std::size_t(0));
    QCOMPARE(d.peakBytes(), d.budgetBytes());
    DeviceBuffer empty;
    d.free(empty); // harmless
}

void TestDevice::budgetNeverThrows()
{
    EmulatedDevice d(EmulatedDeviceOptions{1 << 20, 256, 0, "test"});
    for (std::uint64_t bytes : {~std::uint64_t(0), ~std::uint64_t(0) - 255, std::uint64_t(1) << 63, std::uint64_t(1 << 20) + 1}) {
        auto r = d.allocate(bytes, "huge");
        QVERIFY(!r.ok());
        QCOMPARE(r.code(), ErrorCode::OutOfMemory);
    }
    QCOMPARE(d.usedBytes(), std::uint64_t(0));
}

void TestDevice::physicalCapacityAndInjectedFailures()
{
    // The device promised 1 MiB but holds 8 KiB: within the budget, still out of memory.
    EmulatedDevice d(EmulatedDeviceOptions{1 << 20, 256, 8192, "liar"});
    auto a = d.allocate(6000, "first");
    QVERIFY(a.ok());
    auto b = d.allocate(4000, "second");
    QVERIFY(!b.ok());
    QCOMPARE(b.code(), ErrorCode::OutOfMemory);
    QVERIFY(QString::fromStdString(b.message()).contains(QStringLiteral("out of memory")));
    QCOMPARE(d.usedBytes(), a->charged); // the failed one was not charged

    d.injectAllocationFailures(2);
    QCOMPARE(d.allocate(16, "x").code(), ErrorCode::OutOfMemory);
    QCOMPARE(d.allocate(16, "y").code(), ErrorCode::OutOfMemory);
    auto c = d.allocate(16, "z");
    QVERIFY(c.ok());
    d.free(*a);
    d.free(*c);
    QCOMPARE(d.usedBytes(), std::uint64_t(0));
}

void TestDevice::copies()
{
    EmulatedDevice d;
    std::vector<float> host = randomFloats(1000, 1);
    auto b = d.allocate(4000, "copy");
    QVERIFY(b.ok());
    QVERIFY(d.upload(*b, 0, host.data(), 2000).ok());
    QVERIFY(d.upload(*b, 2000, host.data() + 500, 2000).ok());
    std::vector<float> back(1000, -1.0f);
    QVERIFY(d.download(*b, 0, back.data(), 4000).ok());
    QVERIFY(d.synchronize().ok());
    QVERIFY(sameFloats(back, host));
    QVERIFY(d.operationsQueued() >= 3);
    // Out of range: refused before anything is queued.
    QCOMPARE(d.upload(*b, 3999, host.data(), 2).code(), ErrorCode::InvalidArgument);
    QCOMPARE(d.download(*b, 4001, back.data(), 0).code(), ErrorCode::InvalidArgument);
    QCOMPARE(d.upload(*b, 0, nullptr, 4).code(), ErrorCode::InvalidArgument);
    QCOMPARE(d.upload(DeviceBuffer{}, 0, host.data(), 4).code(), ErrorCode::InvalidArgument);
    d.free(*b);
}

void TestDevice::matmul_data()
{
    QTest::addColumn<int>("type");
    QTest::addColumn<int>("tokens");
    for (DType t : {DType::F32, DType::F16, DType::Q4_0, DType::Q8_0}) {
        for (int tokens : {1, 3}) {
            const QByteArray name = QByteArray(dtypeName(t).data(), int(dtypeName(t).size())) + " x" + QByteArray::number(tokens);
            QTest::newRow(name.constData()) << int(t) << tokens;
        }
    }
}

void TestDevice::matmul()
{
    QFETCH(int, type);
    QFETCH(int, tokens);
    const auto t = DType(type);
    const std::int64_t rows = 96;
    const std::int64_t cols = 256;
    const auto w = randomMatrix(t, rows, cols, 7);
    const auto x = randomFloats(std::size_t(cols * tokens), 8);
    std::vector<float> want(std::size_t(rows * tokens));
    cpu::ThreadPool pool(2);
    cpu::matmul(pool, cpu::WeightMatrix{t, w.data(), rows, cols}, x.data(), tokens, want.data());

    EmulatedDevice d;
    auto m = d.uploadMatrix(t, w.data(), rows, cols, "w");
    QVERIFY(m.ok());
    DeviceBuffer dx = put(d, x.data(), x.size() * 4);
    DeviceBuffer dy = scratch(d, want.size() * 4);
    QVERIFY(d.matmul(MatmulOp{&*m, dx, dy, tokens}).ok());
    const auto got = fetch(d, dy, want.size());
    // Same kernels, split differently over threads: equal up to float reassociation at most.
    QVERIFY2(maxRelativeError(got, want) < 1e-6f, qPrintable(QString::number(maxRelativeError(got, want))));
}

void TestDevice::rowsDotAndDown_data()
{
    QTest::addColumn<int>("type");
    for (DType t : {DType::F32, DType::F16, DType::Q4_0, DType::Q8_0})
        QTest::newRow(std::string(dtypeName(t)).c_str()) << int(t);
}

void TestDevice::rowsDotAndDown()
{
    QFETCH(int, type);
    const auto t = DType(type);
    const std::int64_t nFF = 200;
    const std::int64_t nEmbd = 128;
    const auto w = randomMatrix(t, nFF, nEmbd, 11);
    const auto x = randomFloats(std::size_t(nEmbd), 12);
    const std::vector<std::int32_t> index = {199, 0, 5, 6, 7, 100, 42, 43, 150};
    const auto count = std::int64_t(index.size());
    const cpu::WeightMatrix hw{t, w.data(), nFF, nEmbd};

    // rowsDot equals the dense product's rows.
    std::vector<float> dense(static_cast<std::size_t>(nFF));
    cpu::ThreadPool pool(1);
    cpu::matmul(pool, hw, x.data(), 1, dense.data());
    std::vector<float> wantRows;
    for (std::int32_t i : index)
        wantRows.push_back(dense[std::size_t(i)]);

    // downAccumulate equals getRow + axpy in index order, exactly.
    const auto act = randomFloats(index.size(), 13);
    std::vector<float> wantDown(std::size_t(nEmbd), 0.0f);
    std::vector<float> row(static_cast<std::size_t>(nEmbd));
    for (std::size_t j = 0; j < index.size(); ++j) {
        cpu::getRow(hw, index[j], row.data());
        cpu::axpy(wantDown.data(), act[j], row.data(), nEmbd);
    }

    EmulatedDevice d;
    auto m = d.uploadMatrix(t, w.data(), nFF, nEmbd, "w");
    QVERIFY(m.ok());
    DeviceBuffer dx = put(d, x.data(), x.size() * 4);
    DeviceBuffer di = put(d, index.data(), index.size() * 4);
    DeviceBuffer da = put(d, act.data(), act.size() * 4);
    DeviceBuffer dy = scratch(d, index.size() * 4);
    DeviceBuffer dd = scratch(d, std::size_t(nEmbd) * 4);
    QVERIFY(d.rowsDot(RowsDotOp{&*m, dx, di, count, dy}).ok());
    const auto gotRows = fetch(d, dy, index.size());
    QVERIFY2(maxRelativeError(gotRows, wantRows) < 1e-6f, qPrintable(QString::number(maxRelativeError(gotRows, wantRows))));

    QVERIFY(d.downAccumulate(DownAccumulateOp{&*m, da, di, count, dd, false}).ok());
    QVERIFY(sameFloats(fetch(d, dd, std::size_t(nEmbd)), wantDown));
    // accumulate = true adds a second pass on top.
    QVERIFY(d.downAccumulate(DownAccumulateOp{&*m, da, di, count, dd, true}).ok());
    auto twice = wantDown;
    for (std::size_t j = 0; j < index.size(); ++j) {
        cpu::getRow(hw, index[j], row.data());
        cpu::axpy(twice.data(), act[j], row.data(), nEmbd);
    }
    QVERIFY(sameFloats(fetch(d, dd, std::size_t(nEmbd)), twice));
    // count 0 clears (or keeps) y.
    QVERIFY(d.downAccumulate(DownAccumulateOp{&*m, da, di, 0, dd, false}).ok());
    QVERIFY(sameFloats(fetch(d, dd, std::size_t(nEmbd)), std::vector<float>(std::size_t(nEmbd), 0.0f)));
}

void TestDevice::activate()
{
    const std::size_t n = 333;
    const auto gate = randomFloats(n, 21);
    const auto up = randomFloats(n, 22);
    EmulatedDevice d;
    DeviceBuffer du = put(d, up.data(), n * 4);
    for (const Activation kind : {Activation::SwiGlu, Activation::ReGlu, Activation::DRelu, Activation::Relu2,
                                  Activation::SwiGluOai}) {
        auto want = gate;
        switch (kind) {
        case Activation::SwiGlu:
            cpu::swiglu(want.data(), up.data(), std::int64_t(n));
            break;
        case Activation::ReGlu:
            cpu::reglu(want.data(), up.data(), std::int64_t(n));
            break;
        case Activation::DRelu:
            cpu::drelu(want.data(), up.data(), std::int64_t(n));
            break;
        case Activation::SwiGluOai: // gpt-oss's, clamped
            cpu::swigluOai(want.data(), up.data(), std::int64_t(n));
            break;
        default:
            cpu::relu2(want.data(), up.data(), std::int64_t(n));
        }
        DeviceBuffer dg = put(d, gate.data(), n * 4);
        QVERIFY(d.activate(ActivateOp{kind, dg, du, std::int64_t(n)}).ok());
        QVERIFY(sameFloats(fetch(d, dg, n), want));
        d.free(dg);
    }
    QCOMPARE(d.activate(ActivateOp{Activation(int(kLastActivation) + 1), du, du, 1}).code(), ErrorCode::InvalidArgument);

    // Floors: three tokens of 111 neurons, each neuron its two floors, each token its scale; a
    // neuron is kept when its silu and its activation both reach theirs.
    const std::int64_t width = 111;
    std::vector<float> gateFloor(static_cast<std::size_t>(width)), activationFloor(static_cast<std::size_t>(width));
    for (std::int64_t j = 0; j < width; ++j) {
        gateFloor[std::size_t(j)] = 0.1f * float(j % 5);
        activationFloor[std::size_t(j)] = 0.05f * float(j % 3);
    }
    const std::vector<float> scale = {0.5f, 1.0f, 2.0f};
    DeviceBuffer dgf = put(d, gateFloor.data(), std::size_t(width) * 4);
    DeviceBuffer daf = put(d, activationFloor.data(), std::size_t(width) * 4);
    DeviceBuffer ds = put(d, scale.data(), scale.size() * 4);
    DeviceBuffer dg = put(d, gate.data(), n * 4);
    ActivateOp floored{Activation::SwiGlu, dg, du, std::int64_t(n)};
    floored.gateFloor = dgf;
    floored.activationFloor = daf;
    floored.floorScale = ds;
    floored.floorWidth = width;
    QVERIFY(d.activate(floored).ok());
    auto silu = gate;
    cpu::silu(silu.data(), std::int64_t(n));
    auto want = gate;
    cpu::swiglu(want.data(), up.data(), std::int64_t(n));
    std::size_t kept = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const float s = scale[i / std::size_t(width)];
        const std::size_t j = i % std::size_t(width);
        const bool keep = std::fabs(silu[i]) >= gateFloor[j] * s && std::fabs(want[i]) >= activationFloor[j] * s;
        want[i] = keep ? want[i] : 0.0f;
        kept += keep ? 1 : 0;
    }
    QVERIFY(kept > n / 5 && kept < n * 4 / 5);
    QVERIFY(sameFloats(fetch(d, dg, n), want));
    // Whole rows, a gated kind and no mask.
    floored.floorWidth = 100;
    QCOMPARE(d.activate(floored).code(), ErrorCode::InvalidArgument);
    floored.floorWidth = width;
    floored.kind = Activation::Relu;
    QCOMPARE(d.activate(floored).code(), ErrorCode::InvalidArgument);
}

// A magnitude-sparse layer's first neurons on the device: all of them computed, each kept only
// over its floors in units of its token's scale, against the same sums taken here; one token, and
// five through a scratch of two rows (three slices).
void TestDevice::screenedNeurons()
{
    const std::int64_t nEmbd = 64;
    const std::int64_t nFF = 96;
    const std::int64_t hot = 48;
    const auto embd = static_cast<std::size_t>(nEmbd);
    for (const DType type : {DType::F32, DType::Q8_0}) {
        const auto gate = randomMatrix(type, nFF, nEmbd, 41);
        const auto up = randomMatrix(type, nFF, nEmbd, 42);
        const auto down = randomMatrix(type, nFF, nEmbd, 43);
        std::vector<float> gateFloor(static_cast<std::size_t>(nFF)), activationFloor(static_cast<std::size_t>(nFF));
        for (std::int64_t i = 0; i < nFF; ++i) {
            gateFloor[std::size_t(i)] = 0.05f * float(i % 4);
            activationFloor[std::size_t(i)] = 0.03f * float(i % 3);
        }
        device::ScreenedFfnWeights w;
        w.gate = {type, gate.data(), nFF, nEmbd};
        w.up = {type, up.data(), nFF, nEmbd};
        w.downT = {type, down.data(), nFF, nEmbd};
        w.gateFloor = gateFloor.data();
        w.activationFloor = activationFloor.data();
        for (const int tokens : {1, 5}) {
            const auto x = randomFloats(std::size_t(tokens) * embd, 44);
            std::vector<float> scales(static_cast<std::size_t>(tokens));
            for (int t = 0; t < tokens; ++t)
                scales[std::size_t(t)] = 1.0f + 0.25f * float(t);
            std::vector<float> want(std::size_t(tokens) * embd, 0.0f);
            std::vector<float> g(static_cast<std::size_t>(nFF)), u(static_cast<std::size_t>(nFF)), row(embd);
            cpu::ThreadPool pool(1);
            int kept = 0;
            for (int t = 0; t < tokens; ++t) {
                cpu::matmul(pool, w.gate, x.data() + std::size_t(t) * embd, 1, g.data());
                cpu::matmul(pool, w.up, x.data() + std::size_t(t) * embd, 1, u.data());
                const float scale = scales[std::size_t(t)];
                for (std::int64_t i = 0; i < hot; ++i) {
                    const float part = g[std::size_t(i)] / (1.0f + std::exp(-g[std::size_t(i)]));
                    const float a = part * u[std::size_t(i)];
                    if (std::fabs(part) < gateFloor[std::size_t(i)] * scale || std::fabs(a) < activationFloor[std::size_t(i)] * scale)
                        continue;
                    ++kept;
                    cpu::getRow(w.downT, i, row.data());
                    cpu::axpy(want.data() + std::size_t(t) * embd, a, row.data(), nEmbd);
                }
            }
            QVERIFY(kept > tokens * hot / 5 && kept < tokens * hot);

            EmulatedDevice d;
            auto scratch = device::HybridFfnScratch::create(d, nEmbd, hot, 2);
            QVERIFY(scratch.ok());
            auto layer = device::ScreenedFfnLayer::create(d, **scratch, w, hot);
            QVERIFY2(layer.ok(), layer.message().c_str());
            QCOMPARE((*layer)->hot(), hot);
            std::vector<float> y(want.size(), 0.25f);
            QVERIFY((*layer)->queue(x.data(), tokens, scales.data()).ok());
            QVERIFY((*layer)->addTo(y.data(), tokens).ok());
            for (float& v : y)
                v -= 0.25f;
            QVERIFY2(maxRelativeError(y, want) < 1e-4f, qPrintable(QString::number(maxRelativeError(y, want))));
            // More neurons than the scratch holds.
            QCOMPARE(device::ScreenedFfnLayer::create(d, **scratch, w, hot + 1).status().code(), ErrorCode::InvalidArgument);
        }
    }
}

void TestDevice::predictor()
{
    const std::int64_t nEmbd = 64;
    const std::int64_t hidden = 32;
    const std::int64_t nFF = 300;
    const auto fc1 = randomMatrix(DType::F16, hidden, nEmbd, 31);
    const auto fc2 = randomMatrix(DType::F16, nFF, hidden, 32);
    const auto x = randomFloats(std::size_t(nEmbd), 33);
    EmulatedDevice d;
    auto m1 = d.uploadMatrix(DType::F16, fc1.data(), hidden, nEmbd, "fc1");
    auto m2 = d.uploadMatrix(DType::F16, fc2.data(), nFF, hidden, "fc2");
    QVERIFY(m1.ok() && m2.ok());
    PredictorOp op;
    op.fc1 = &*m1;
    op.fc2 = &*m2;
    op.x = put(d, x.data(), x.size() * 4);
    op.hidden = scratch(d, std::size_t(hidden) * 4);
    op.logits = scratch(d, std::size_t(nFF) * 4);
    op.active = scratch(d, std::size_t(nFF) * 4);
    op.activeCount = scratch(d, 4);
    op.threshold = 0.05f;

    // PowerInfer's form, then Hearth's linear one (no ReLU between fc1 and fc2), then the linear
    // one with a bias (fitted to a LayerNorm's output), against the host's sparse::predict.
    const auto bias = randomFloats(std::size_t(nFF), 34, 0.5f);
    const DeviceBuffer deviceBias = put(d, bias.data(), bias.size() * 4);
    std::vector<std::int32_t> previous;
    for (const auto& [relu, biased] : {std::pair{true, false}, std::pair{false, false}, std::pair{false, true}}) {
        cpu::ThreadPool pool(1);
        const sparse::PredictorWeights host{cpu::WeightMatrix{DType::F16, fc1.data(), hidden, nEmbd},
                                            cpu::WeightMatrix{DType::F16, fc2.data(), nFF, hidden}, relu,
                                            biased ? bias.data() : nullptr};
        std::vector<float> h(static_cast<std::size_t>(hidden));
        std::vector<float> logits(static_cast<std::size_t>(nFF));
        sparse::predict(pool, host, x.data(), 1, h.data(), logits.data());
        std::vector<std::int32_t> want;
        for (std::int64_t i = 0; i < nFF; ++i) {
            if (logits[std::size_t(i)] >= op.threshold)
                want.push_back(std::int32_t(i));
        }
        QVERIFY(!want.empty() && std::int64_t(want.size()) < nFF);
        QVERIFY(want != previous);
        previous = want;

        op.relu = relu;
        op.bias = biased ? deviceBias : DeviceBuffer{};
        QVERIFY(d.predictor(op).ok());
        std::int32_t count = -1;
        std::vector<std::int32_t> active(std::size_t(nFF), -1);
        QVERIFY(d.download(op.activeCount, 0, &count, 4).ok());
        QVERIFY(d.download(op.active, 0, active.data(), std::uint64_t(nFF) * 4).ok());
        QVERIFY(d.synchronize().ok());
        QCOMPARE(count, std::int32_t(want.size()));
        active.resize(std::size_t(count));
        QCOMPARE(active, want);
        QVERIFY(sameFloats(fetch(d, op.logits, std::size_t(nFF)), logits));
    }

    PredictorOp bad = op;
    bad.fc2 = &*m1; // widths do not chain
    QCOMPARE(d.predictor(bad).code(), ErrorCode::InvalidArgument);
    bad = op;
    bad.bias = slice(deviceBias, 0, std::uint64_t(nFF - 1) * 4); // a bias too short
    QCOMPARE(d.predictor(bad).code(), ErrorCode::InvalidArgument);
}

void TestDevice::rmsNormAndAdd()
{
    const std::int64_t n = 96;
    const std::int64_t tokens = 3;
    const auto x = randomFloats(std::size_t(n * tokens), 41, 3.0f);
    const auto w = randomFloats(std::size_t(n), 42);
    std::vector<float> want(x.size());
    for (std::int64_t t = 0; t < tokens; ++t)
        cpu::rmsNorm(x.data() + t * n, w.data(), 1e-5f, n, want.data() + t * n);
    EmulatedDevice d;
    DeviceBuffer dx = put(d, x.data(), x.size() * 4);
    DeviceBuffer dw = put(d, w.data(), w.size() * 4);
    DeviceBuffer dout = scratch(d, x.size() * 4);
    QVERIFY(d.rmsNorm(RmsNormOp{dx, dw, 1e-5f, n, tokens, dout}).ok());
    QVERIFY(sameFloats(fetch(d, dout, x.size()), want));

    QVERIFY(d.add(AddOp{dout, dx, n * tokens}).ok());
    cpu::add(want.data(), x.data(), n * tokens);
    QVERIFY(sameFloats(fetch(d, dout, x.size()), want));
}

void TestDevice::attention()
{
    // Grouped-query: 4 query heads over 2 KV heads, partial rotary width.
    const int nHead = 4;
    const int nHeadKv = 2;
    const int hd = 16;
    const int nRot = 12;
    const int capacity = 8;
    const int kvDim = nHeadKv * hd;
    EmulatedDevice d;
    DeviceBuffer kCache = scratch(d, std::size_t(capacity * kvDim) * 4);
    DeviceBuffer vCache = scratch(d, std::size_t(capacity * kvDim) * 4);
    DeviceBuffer scores = scratch(d, std::size_t(nHead * capacity) * 4);
    DeviceBuffer out = scratch(d, std::size_t(nHead * hd) * 4);
    std::vector<float> refK(std::size_t(capacity * kvDim));
    std::vector<float> refV(std::size_t(capacity * kvDim));

    for (int pos = 0; pos < 5; ++pos) {
        auto q = randomFloats(std::size_t(nHead * hd), 50 + pos);
        auto k = randomFloats(std::size_t(kvDim), 60 + pos);
        const auto v = randomFloats(std::size_t(kvDim), 70 + pos);
        AttentionOp op;
        op.q = put(d, q.data(), q.size() * 4);
        op.k = put(d, k.data(), k.size() * 4);
        op.v = put(d, v.data(), v.size() * 4);
        op.kCache = kCache;
        op.vCache = vCache;
        op.scores = scores;
        op.out = out;
        op.pos = pos;
        op.capacity = capacity;
        op.nHead = nHead;
        op.nHeadKv = nHeadKv;
        op.headDim = hd;
        op.nRot = nRot;
        op.freqBase = 10000.0f;
        op.freqScale = 1.0f;
        QVERIFY(d.attention(op).ok());
        QVERIFY(d.synchronize().ok()); // the uploads read q, k and v, which change below

        // The forward pass's own steps (model/llama_forward.cpp).
        std::vector<float> cosT(nRot / 2);
        std::vector<float> sinT(nRot / 2);
        cpu::ropeTables(pos, nRot, 10000.0f, 1.0f, cosT.data(), sinT.data());
        cpu::ropeNormal(q.data(), nHead, hd, nRot, cosT.data(), sinT.data());
        cpu::ropeNormal(k.data(), nHeadKv, hd, nRot, cosT.data(), sinT.data());
        std::memcpy(refK.data() + pos * kvDim, k.data(), std::size_t(kvDim) * 4);
        std::memcpy(refV.data() + pos * kvDim, v.data(), std::size_t(kvDim) * 4);
        std::vector<float> want(std::size_t(nHead * hd), 0.0f);
        std::vector<float> s(std::size_t(pos + 1));
        for (int h = 0; h < nHead; ++h) {
            const int off = (h / (nHead / nHeadKv)) * hd;
            for (int j = 0; j <= pos; ++j)
                s[std::size_t(j)] = cpu::dot(q.data() + h * hd, refK.data() + j * kvDim + off, hd) / std::sqrt(float(hd));
            cpu::softmax(s.data(), pos + 1);
            for (int j = 0; j <= pos; ++j)
                cpu::axpy(want.data() + h * hd, s[std::size_t(j)], refV.data() + j * kvDim + off, hd);
        }
        const auto got = fetch(d, out, want.size());
        QVERIFY2(maxRelativeError(got, want) < 1e-6f, qPrintable(QString::number(maxRelativeError(got, want))));
        const std::size_t filled = std::size_t((pos + 1) * kvDim); // rows past pos are undefined
        QVERIFY(sameFloats(fetch(d, kCache, filled), std::vector<float>(refK.begin(), refK.begin() + std::ptrdiff_t(filled))));
        QVERIFY(sameFloats(fetch(d, op.q, q.size()), q)); // rotated in place
        d.free(op.q);
        d.free(op.k);
        d.free(op.v);
    }
    AttentionOp bad;
    bad.nHead = 3;
    bad.nHeadKv = 2;
    bad.headDim = 4;
    bad.capacity = 4;
    QCOMPARE(d.attention(bad).code(), ErrorCode::InvalidArgument);
    bad.nHead = 4;
    bad.pos = 4; // past the cache
    QCOMPARE(d.attention(bad).code(), ErrorCode::InvalidArgument);
}

void TestDevice::badArguments()
{
    EmulatedDevice d;
    const auto w = randomMatrix(DType::F16, 8, 64, 1);
    auto m = d.uploadMatrix(DType::F16, w.data(), 8, 64, "w");
    QVERIFY(m.ok());
    DeviceBuffer small = scratch(d, 16);
    DeviceBuffer big = scratch(d, 4096);
    QCOMPARE(d.matmul(MatmulOp{&*m, small, big, 1}).code(), ErrorCode::InvalidArgument);
    QCOMPARE(d.matmul(MatmulOp{&*m, big, small, 1}).code(), ErrorCode::InvalidArgument);
    QCOMPARE(d.matmul(MatmulOp{nullptr, big, big, 1}).code(), ErrorCode::InvalidArgument);
    QCOMPARE(d.matmul(MatmulOp{&*m, big, big, 0}).code(), ErrorCode::InvalidArgument);
    QCOMPARE(d.rowsDot(RowsDotOp{&*m, big, small, 5, big}).code(), ErrorCode::InvalidArgument);
    QCOMPARE(d.rowsDot(RowsDotOp{&*m, big, big, -1, big}).code(), ErrorCode::InvalidArgument);
    DeviceMatrix iq2 = *m;
    iq2.type = DType::IQ2_XXS; // a type the CPU does not compute either
    QCOMPARE(d.matmul(MatmulOp{&iq2, big, big, 1}).code(), ErrorCode::Unsupported);
    DeviceMatrix lying = *m;
    lying.rows = 1000; // more rows than the buffer holds
    QCOMPARE(d.matmul(MatmulOp{&lying, big, big, 1}).code(), ErrorCode::InvalidArgument);
    QCOMPARE(d.uploadMatrix(DType::Q4_0, w.data(), 2, 48, "odd").code(), ErrorCode::InvalidArgument);
    QVERIFY(d.synchronize().ok());
}

void TestDevice::loaderModuleAbsent()
{
    const QByteArray saved = qgetenv("HEARTH_CUDA_MODULE");
    qunsetenv("HEARTH_CUDA_MODULE");
    const auto paths = DeviceLoader::searchPaths();
    QVERIFY(paths.size() >= 2);
    QVERIFY(QString::fromStdString(paths[1]).endsWith(QStringLiteral("lib/hearth/") + QString::fromStdString(DeviceLoader::moduleFileName())));
    qputenv("HEARTH_CUDA_MODULE", "/nonexistent/libhearth-cuda.so");
    QCOMPARE(QString::fromStdString(DeviceLoader::searchPaths().front()), QStringLiteral("/nonexistent/libhearth-cuda.so"));
    if (saved.isEmpty())
        qunsetenv("HEARTH_CUDA_MODULE");
    else
        qputenv("HEARTH_CUDA_MODULE", saved);

    DeviceLoadOptions options;
    options.modulePath = "/nonexistent/libhearth-cuda.so";
    auto r = DeviceLoader::openCuda(options);
    QVERIFY(!r.ok());
    QCOMPARE(r.code(), ErrorCode::Unsupported);
    QVERIFY2(QString::fromStdString(r.message()).contains(QStringLiteral("does not exist")), r.message().c_str());
}

void TestDevice::loaderBogusFile()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("libhearth-cuda.so"));
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("this is not a shared library\n");
    f.close();
    DeviceLoadOptions options;
    options.modulePath = path.toStdString();
    auto r = DeviceLoader::openCuda(options);
    QVERIFY(!r.ok());
    QCOMPARE(r.code(), ErrorCode::Unsupported);
    QVERIFY2(QString::fromStdString(r.message()).contains(QStringLiteral("cannot load")), r.message().c_str());
}

void TestDevice::loaderModuleWithoutSymbol()
{
    DeviceLoadOptions options;
    options.modulePath = HEARTH_TEST_STUB_MODULE;
    auto r = DeviceLoader::openCuda(options);
    QVERIFY(!r.ok());
    QCOMPARE(r.code(), ErrorCode::Unsupported);
    QVERIFY2(QString::fromStdString(r.message()).contains(QStringLiteral("is not a Hearth CUDA module (no hearth_cuda_backend_v1)")),
             r.message().c_str());
}

void TestDevice::loaderRealModuleWithoutGpu()
{
    const QString module = QStringLiteral(HEARTH_TEST_CUDA_MODULE);
    if (module.isEmpty() || !QFile::exists(module))
        QSKIP("the CUDA module is not built here (no CUDA toolkit)");
    DeviceLoadOptions options;
    options.modulePath = module.toStdString();
    options.budgetBytes = std::uint64_t(1) << 30;
    auto r = DeviceLoader::openCuda(options);
    if (r.ok()) {
        // A machine with a GPU: the module must describe it.
        QVERIFY(!(*r)->info().name.empty());
        QVERIFY((*r)->info().totalBytes > 0);
        QCOMPARE((*r)->info().backend, std::string("cuda"));
        return;
    }
    const QString message = QString::fromStdString(r.message());
    qInfo("CUDA module refused cleanly: %s", qPrintable(message));
    QCOMPARE(r.code(), ErrorCode::Unsupported);
    QVERIFY2(message.contains(QStringLiteral("no CUDA device")), qPrintable(message));
}

void TestDevice::cudaDeviceThroughStandInModule()
{
    // The C function table, CudaDevice's accounting and error mapping, without a GPU.
    DeviceLoadOptions options;
    options.modulePath = HEARTH_TEST_FAKE_MODULE;
    options.checkDriver = false;
    auto opened = DeviceLoader::openCuda(options);
    QVERIFY2(opened.ok(), opened.message().c_str());
    Device& d = **opened;
    const std::uint64_t mib = 1 << 20;
    QCOMPARE(d.info().backend, std::string("cuda"));
    QCOMPARE(d.info().name, std::string("Stand-in GPU"));
    QCOMPARE(d.info().totalBytes, 1024 * mib);
    QCOMPARE(d.info().freeBytes, 768 * mib);
    // "auto": free less 256 MiB, plus the module's own buffers, which are charged at once.
    QCOMPARE(d.budgetBytes(), 512 * mib + mib);
    QCOMPARE(d.usedBytes(), mib);

    auto b = d.allocate(1000, "small");
    QVERIFY(b.ok());
    QCOMPARE(d.usedBytes(), mib + 1024);
    const auto host = randomFloats(250, 3);
    std::vector<float> back(250);
    QVERIFY(d.upload(*b, 0, host.data(), 1000).ok());
    QVERIFY(d.download(*b, 0, back.data(), 1000).ok());
    QVERIFY(d.synchronize().ok());
    QVERIFY(sameFloats(back, host));
    QCOMPARE(d.upload(*b, 1, host.data(), 1000).code(), ErrorCode::InvalidArgument);

    // Within the budget, refused by the device: out of memory, nothing charged.
    auto big = d.allocate(2 * mib, "big");
    QCOMPARE(big.code(), ErrorCode::OutOfMemory);
    QVERIFY2(QString::fromStdString(big.message()).contains(QStringLiteral("big")), big.message().c_str());
    QCOMPARE(d.usedBytes(), mib + 1024);

    // Errors from the module keep its message.
    DeviceMatrix m{DType::F32, *b, 2, 125};
    auto y = d.allocate(8, "y");
    QVERIFY(y.ok());
    const Status s = d.matmul(MatmulOp{&m, *b, *y, 1});
    QCOMPARE(s.code(), ErrorCode::Unsupported);
    QVERIFY2(QString::fromStdString(s.message()).contains(QStringLiteral("stand-in")), s.message().c_str());
    d.free(*b);
    d.free(*y);
    QCOMPARE(d.usedBytes(), mib);

    // A budget smaller than the module's own buffers, and a GPU that is not there.
    options.budgetBytes = 4096;
    QCOMPARE(DeviceLoader::openCuda(options).code(), ErrorCode::OutOfMemory);
    options.budgetBytes = 0;
    options.deviceIndex = 1;
    auto second = DeviceLoader::openCuda(options);
    QCOMPARE(second.code(), ErrorCode::Unsupported);
    QVERIFY2(QString::fromStdString(second.message()).contains(QStringLiteral("no CUDA device #1")), second.message().c_str());
}

QTEST_GUILESS_MAIN(TestDevice)
#include "tst_device.moc"
