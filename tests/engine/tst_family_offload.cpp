// SPDX-License-Identifier: MIT
// Falcon and OPT layers on the emulated device standing in for a GPU: whole-layer offload of
// dense files (prompt batches and decoded tokens, any number of layers on the device, GELU and
// ReLU, both falcon layouts) and the attention and predictors of sparse files beside their hybrid
// FFN give the CPU-only logits; a device that fails mid-conversation hands its layers back with
// nothing lost; the placement planner counts the families' attention and stays within budget.

#include "api/dense_offload_session.h"
#include "api/hybrid_device_layers.h"
#include "device/cuda_backend_api.h"
#include "device/cuda_device.h"
#include "device/emulated_device.h"
#include "gguf/gguf_file.h"
#include "model/falcon_forward.h"
#include "model/falcon_model.h"
#include "model/opt_forward.h"
#include "model/opt_model.h"
#include "session_test_support.h"
#include "sparse/activation_profile.h"
#include "sparse/model_shape.h"
#include "sparse/placement_planner.h"
#include "synth/synthetic_families.h"
#include "synth/synthetic_sparse.h"

#include <hearth/model.h>
#include <hearth/session.h>

#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

using namespace hearth;
using namespace hearth::test;

namespace {

constexpr int kLayers = 4;
constexpr int kContext = 40;
constexpr int kBatch = 4;
constexpr int kPromptTokens = 11; // more than two batches

constexpr int kConversationSteps = 14;

SessionParams params(const std::string& device, double budgetGiB = -1)
{
    return deviceSessionParams(device, budgetGiB, kContext, kBatch);
}

std::string emulated(std::uint64_t bytes)
{
    return "emulated:" + std::to_string(bytes);
}

// The CPU-only logits' tolerance: the device multiplies Q4_0 weights from the file's rows, the
// CPU from an interleaved copy, so sums differ in the last bit (as in the llama tests).
double toleranceFor(DType type)
{
    return type == DType::Q4_0 ? 2e-2 : 1e-4;
}

// Runs the conversation on @p p and compares it with @p reference; returns the report, or empty
// (with a warning) when they differ.
std::string check(const std::shared_ptr<const Model>& model, const SessionParams& p,
                  const std::vector<std::vector<float>>& reference, double tolerance)
{
    auto session = Session::create(model, p);
    if (!session) {
        qWarning("%s", session.message().c_str());
        return {};
    }
    const std::string report = (*session)->placementReport();
    const auto run = converse(**session, kPromptTokens);
    if (run.size() != reference.size()) {
        qWarning("the conversation stopped after %zu of %zu steps (%s)", run.size(), reference.size(), report.c_str());
        return {};
    }
    for (std::size_t i = 0; i < run.size(); ++i) {
        const double err = relativeError(reference[i], run[i]);
        if (err > tolerance) {
            qWarning("logits of step %zu differ by %g (relative): %s", i, err, report.c_str());
            return {};
        }
    }
    return report;
}

// The forward pass of a falcon or opt model.
std::unique_ptr<model::FamilyForward> familyForward(const Model& m)
{
    if (const auto* f = dynamic_cast<const model::FalconModel*>(&m)) {
        auto made = model::FalconForward::create(*f, kContext, kBatch, 2);
        return made ? std::unique_ptr<model::FamilyForward>(std::move(made).value()) : nullptr;
    }
    if (const auto* o = dynamic_cast<const model::OptModel*>(&m)) {
        auto made = model::OptForward::create(*o, kContext, kBatch, 2);
        return made ? std::unique_ptr<model::FamilyForward>(std::move(made).value()) : nullptr;
    }
    return nullptr;
}

// Two forward passes of one model, the second with a layer offload: step() runs a batch
// through both and returns the relative error between their logits (every row of the batch).
struct ForwardPair {
    explicit ForwardPair(const Model& m)
        : cpu(familyForward(m))
        , mixed(familyForward(m))
    {
        if (cpu) {
            want.resize(std::size_t(cpu->vocabSize()) * kBatch);
            got.resize(want.size());
        }
    }
    [[nodiscard]] bool valid() const { return cpu && mixed; }
    double step(const std::vector<Token>& tokens, int start)
    {
        cpu->forward(tokens.data(), int(tokens.size()), start, want.data(), true);
        mixed->forward(tokens.data(), int(tokens.size()), start, got.data(), true);
        return relativeError(want, got);
    }

    std::unique_ptr<model::FamilyForward> cpu;
    std::unique_ptr<model::FamilyForward> mixed;
    std::vector<float> want, got;
};

// A CUDA module built before the falcon/opt entries: its table ends at `add`. Host memory stands
// in for the GPU; the operations only count their calls.
namespace older {

int calls = 0;
int create(int, HearthCudaContext** ctx, char*, size_t)
{
    static int token = 0;
    *ctx = reinterpret_cast<HearthCudaContext*>(&token);
    return HEARTH_CUDA_OK;
}
void destroy(HearthCudaContext*) {}
const char* lastError(const HearthCudaContext*)
{
    return "";
}
int deviceInfo(HearthCudaContext*, char* name, size_t size, uint64_t* total, uint64_t* free)
{
    std::snprintf(name, size, "older module");
    *total = *free = std::uint64_t(1) << 30;
    return HEARTH_CUDA_OK;
}
uint64_t internalBytes(const HearthCudaContext*)
{
    return 0;
}
int allocate(HearthCudaContext*, uint64_t bytes, void** ptr)
{
    *ptr = std::malloc(std::size_t(bytes));
    return *ptr ? HEARTH_CUDA_OK : HEARTH_CUDA_OUT_OF_MEMORY;
}
void release(HearthCudaContext*, void* ptr)
{
    std::free(ptr);
}
int copy(HearthCudaContext*, void* dst, const void* src, uint64_t bytes)
{
    std::memcpy(dst, src, std::size_t(bytes));
    return HEARTH_CUDA_OK;
}
int synchronize(HearthCudaContext*)
{
    return HEARTH_CUDA_OK;
}
int rmsNorm(HearthCudaContext*, const float*, const float*, float, int64_t, int64_t, float*)
{
    ++calls;
    return HEARTH_CUDA_OK;
}
int attention(HearthCudaContext*, const HearthCudaAttention*)
{
    ++calls;
    return HEARTH_CUDA_OK;
}
// Past the table's struct_size: a call is a bug.
int layerNorm(HearthCudaContext*, const float*, const float*, const float*, float, int64_t, int64_t, float*)
{
    calls += 100;
    return HEARTH_CUDA_OK;
}

HearthCudaBackendV1 table()
{
    HearthCudaBackendV1 t{};
    t.abi_version = HEARTH_CUDA_ABI_VERSION;
    t.struct_size = HEARTH_CUDA_V1_BASE_SIZE;
    t.create = create;
    t.destroy = destroy;
    t.last_error = lastError;
    t.device_info = deviceInfo;
    t.internal_bytes = internalBytes;
    t.alloc = allocate;
    t.free = release;
    t.upload = copy;
    t.download = copy;
    t.synchronize = synchronize;
    t.rms_norm = rmsNorm;
    t.attention = attention;
    return t;
}

} // namespace older

} // namespace

class TestFamilyOffload : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    int m_files = 0;

    static synth::SynthOptions options(const std::string& arch, const std::string& shape, DType type,
                                       const std::string& activation)
    {
        synth::SynthOptions o;
        o.architecture = arch;
        o.shape = *synth::shapeByName(arch, shape);
        o.shape.layerCount = kLayers;
        o.type = type;
        o.ffnActivation = activation;
        o.seed = 13;
        return o;
    }

    std::shared_ptr<const Model> load(const std::string& path)
    {
        auto model = Model::load(path);
        if (!model) {
            qWarning("%s", model.message().c_str());
            return nullptr;
        }
        return *model;
    }

    std::shared_ptr<const Model> writeDense(const synth::SynthOptions& o)
    {
        const std::string path = m_dir.filePath(QStringLiteral("dense%1.gguf").arg(++m_files)).toStdString();
        const Status st = synth::writeSyntheticModel(o, path);
        if (!st.ok()) {
            qWarning("%s", st.message().c_str());
            return nullptr;
        }
        return load(path);
    }

    std::shared_ptr<const Model> writeSparse(const synth::SynthOptions& o)
    {
        const std::string path = writeSparsePath(o);
        return path.empty() ? nullptr : load(path);
    }

    std::string writeSparsePath(const synth::SynthOptions& o)
    {
        synth::SparseSynthOptions s;
        s.sparsity = 0.7;
        s.layout = synth::SparseLayout::PowerInfer;
        s.predictorHidden = 32;
        const std::string path = m_dir.filePath(QStringLiteral("sparse%1.gguf").arg(++m_files)).toStdString();
        const Status st = synth::writeSparseSyntheticModel(o, s, path);
        if (!st.ok()) {
            qWarning("%s", st.message().c_str());
            return {};
        }
        return path;
    }

    static void addArchRows()
    {
        QTest::addColumn<QString>("arch");
        QTest::newRow("falcon") << QStringLiteral("falcon");
        QTest::newRow("opt") << QStringLiteral("opt");
    }

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void denseWholeLayers_data()
    {
        QTest::addColumn<QString>("arch");
        QTest::addColumn<QString>("shape");
        QTest::addColumn<QString>("activation");
        QTest::addColumn<int>("type");
        QTest::newRow("falcon-relu-F32") << QStringLiteral("falcon") << QStringLiteral("falcon-tiny")
                                         << QStringLiteral("relu") << int(DType::F32);
        QTest::newRow("falcon-gelu-F16") << QStringLiteral("falcon") << QStringLiteral("falcon-tiny")
                                         << QStringLiteral("gelu") << int(DType::F16);
        QTest::newRow("falcon-gelu-Q4_0") << QStringLiteral("falcon") << QStringLiteral("falcon-tiny")
                                         << QStringLiteral("gelu") << int(DType::Q4_0);
        QTest::newRow("falcon-gqa-relu-F16") << QStringLiteral("falcon") << QStringLiteral("falcon-tiny-gqa")
                                         << QStringLiteral("relu") << int(DType::F16);
        QTest::newRow("opt-F32") << QStringLiteral("opt") << QStringLiteral("opt-tiny")
                                         << QStringLiteral("relu") << int(DType::F32);
        QTest::newRow("opt-F16") << QStringLiteral("opt") << QStringLiteral("opt-tiny")
                                         << QStringLiteral("relu") << int(DType::F16);
        QTest::newRow("opt-Q4_0") << QStringLiteral("opt") << QStringLiteral("opt-tiny")
                                         << QStringLiteral("relu") << int(DType::Q4_0);
    }

    // Budgets that hold no layer, each count of layers and every layer give the CPU-only
    // logits over a conversation (batched prompts, decoded tokens, truncation, reset, a full
    // context), and the report names the count.
    void denseWholeLayers()
    {
        QFETCH(QString, arch);
        QFETCH(QString, shape);
        QFETCH(QString, activation);
        QFETCH(int, type);
        const auto model = writeDense(options(arch.toStdString(), shape.toStdString(), DType(type),
                                              activation.toStdString()));
        QVERIFY(model);
        QVERIFY(!model->info().sparse);
        const double tolerance = toleranceFor(DType(type));

        auto cpu = Session::create(model, params("", 0));
        QVERIFY2(cpu.ok(), cpu.message().c_str());
        const auto reference = converse(**cpu, kPromptTokens);
        QCOMPARE(int(reference.size()), kConversationSteps);

        const std::string zero = check(model, params(emulated(1 << 30), 0), reference, tolerance);
        QVERIFY2(zero.starts_with("CPU only: ") && zero.find("budget is 0") != std::string::npos, zero.c_str());

        const std::string all = check(model, params(emulated(1 << 30)), reference, tolerance);
        QVERIFY2(all.starts_with("GPU Hearth emulated device: "), all.c_str());
        QCOMPARE(offloadedLayers(all), kLayers);
        QVERIFY2(all.find("and the output head") != std::string::npos, all.c_str()); // LayerNorm's head too

        // Budgets growing by a sixth from 16 KiB: every count of layers shows up at some point.
        std::vector<bool> seen(kLayers + 1, false);
        for (std::uint64_t bytes = 16 * 1024; bytes < (std::uint64_t(1) << 26); bytes += bytes / 6) {
            auto session = Session::create(model, params(emulated(bytes)));
            QVERIFY(session.ok());
            const std::string report = (*session)->placementReport();
            const int k = std::max(0, offloadedLayers(report));
            if (seen[std::size_t(k)])
                continue;
            seen[std::size_t(k)] = true;
            if (k == 0)
                QVERIFY2(report.starts_with("CPU only: ") && report.find("holds no whole layer") != std::string::npos,
                         report.c_str());
            else if (k < kLayers)
                QVERIFY2(report.find("the rest run on the CPU: layer " + std::to_string(k) + " does not fit")
                             != std::string::npos,
                         report.c_str());
            const std::string checked = check(model, params(emulated(bytes)), reference, tolerance);
            QVERIFY2(checked == report, qPrintable(QStringLiteral("budget %1 bytes: %2").arg(bytes).arg(report.c_str())));
        }
        QVERIFY(std::all_of(seen.begin(), seen.end(), [](bool s) { return s; }));
    }

    void halfCachesOnTheDevice_data() { addArchRows(); }

    // Sessions keep their KV caches in F16 by default, on the device too (falcon's fused QKV rows,
    // opt's biases): whole layers there give the logits of a CPU session with the same cache over
    // a conversation.
    void halfCachesOnTheDevice()
    {
        QFETCH(QString, arch);
        const auto model = writeDense(options(arch.toStdString(), arch.toStdString() + "-tiny", DType::F16,
                                              arch == QLatin1String("falcon") ? "gelu" : "relu"));
        QVERIFY(model);
        SessionParams cpuParams = params("", 0);
        cpuParams.kvCache = KvCacheType::F16;
        auto cpu = Session::create(model, cpuParams);
        QVERIFY2(cpu.ok(), cpu.message().c_str());
        const auto reference = converse(**cpu, kPromptTokens);
        SessionParams onDevice = params(emulated(1 << 30));
        onDevice.kvCache = KvCacheType::F16;
        const std::string report = check(model, onDevice, reference, 1e-4);
        QCOMPARE(offloadedLayers(report), kLayers);
        auto session = Session::create(model, onDevice);
        QVERIFY(session.ok());
        QCOMPARE((*session)->kvCacheType(), KvCacheType::F16);
    }

    void denseDeviceFailure_data() { addArchRows(); }

    // A device that fails in the middle of a conversation: the failed batch and everything after
    // run on the CPU from the mirrored KV rows, no logit changes, and rewinding over positions the
    // device computed works.
    void denseDeviceFailure()
    {
        QFETCH(QString, arch);
        const std::string a = arch.toStdString();
        const auto model = writeDense(options(a, a + "-tiny", DType::F16, "relu"));
        QVERIFY(model);
        ForwardPair pair(*model);
        QVERIFY(pair.valid());
        auto owned = std::make_unique<device::EmulatedDevice>();
        device::EmulatedDevice* dev = owned.get();
        std::string report;
        auto offload = DenseOffloadSession::create(*model, std::move(owned), kContext, kBatch, false, report);
        QVERIFY2(offload, report.c_str());
        QCOMPARE(offload->wholeLayers(), kLayers);
        pair.mixed->setLayerOffload(offload.get());
        const auto step = [&](const std::vector<Token>& tokens, int start) { return pair.step(tokens, start); };
        QVERIFY(step({5, 6, 7, 8}, 0) <= 1e-4);
        QVERIFY(step({9}, 4) <= 1e-4);
        QVERIFY(step({10, 11}, 5) <= 1e-4);
        dev->injectOperationFailures(3);
        QVERIFY(step({12}, 7) <= 1e-4);
        QCOMPARE(offload->wholeLayers(), 0);
        QVERIFY2(offload->report().find("the device failed") != std::string::npos, offload->report().c_str());
        QVERIFY(step({13, 14}, 8) <= 1e-4);
        QVERIFY(step({15, 16, 17}, 3) <= 1e-4); // rewind over positions the device computed
        QVERIFY(step({18}, 6) <= 1e-4);
    }

    void sparseHybridSessions_data()
    {
        QTest::addColumn<QString>("arch");
        QTest::addColumn<int>("type");
        for (const char* arch : {"falcon", "opt"})
            for (DType t : {DType::F32, DType::F16, DType::Q4_0})
                QTest::newRow((std::string(arch) + "-" + std::string(dtypeName(t))).c_str())
                    << QString::fromLatin1(arch) << int(t);
    }

    // Sparse files: attention (with its KV cache) and predictors on the device beside the hot
    // neurons. Budgets of 0, of part of the plan and of all of it give the CPU-only logits; as
    // the budget grows, attention layers and hot neurons on the device only grow.
    void sparseHybridSessions()
    {
        QFETCH(QString, arch);
        QFETCH(int, type);
        const std::string a = arch.toStdString();
        const auto model = writeSparse(options(a, a + "-tiny", DType(type), "relu"));
        QVERIFY(model && model->info().sparse);
        // Q4_0: the last-bit differences of the device's products (see toleranceFor) can move a
        // predictor logit across the threshold late in a long conversation, which switches a
        // neuron on or off: a visible, bounded step.
        const double tolerance = DType(type) == DType::Q4_0 ? 5e-2 : toleranceFor(DType(type));

        auto cpu = Session::create(model, params("", 0));
        QVERIFY2(cpu.ok(), cpu.message().c_str());
        const auto reference = converse(**cpu, kPromptTokens);
        QCOMPARE(int(reference.size()), kConversationSteps);

        const std::string zero = check(model, params(emulated(1 << 30), 0), reference, tolerance);
        QVERIFY2(zero.find("budget is 0") != std::string::npos, zero.c_str());

        const std::string all = check(model, params(emulated(1 << 30)), reference, tolerance);
        QVERIFY2(all.starts_with("GPU "), all.c_str());
        QCOMPARE(deviceLayerCounts(all), std::make_tuple(kLayers, kLayers, kLayers));
        const auto [hotAll, totalAll] = hotCounts(all);
        QVERIFY2(totalAll > 0 && hotAll == totalAll, all.c_str());

        // Growing budgets: monotone placement, and a partial one runs the conversation. (The plan
        // places every layer's attention before any neuron, and a session without hot neurons
        // stays on the CPU, so a partial attention placement is layerChoices' to check.)
        int lastAttention = 0;
        long long lastHot = 0;
        bool partialFfn = false;
        for (std::uint64_t bytes = 8 * 1024; bytes < (std::uint64_t(1) << 24); bytes += bytes / 6) {
            auto session = Session::create(model, params(emulated(bytes)));
            QVERIFY(session.ok());
            const std::string report = (*session)->placementReport();
            if (report.starts_with("CPU only: "))
                continue;
            const auto [attention, layers, predictors] = deviceLayerCounts(report);
            const auto [hot, total] = hotCounts(report);
            QVERIFY2(attention >= 0 && hot >= 0, report.c_str());
            QVERIFY2(attention >= lastAttention && hot >= lastHot, report.c_str());
            lastAttention = attention;
            lastHot = hot;
            if (partialFfn || hot == 0 || hot == total)
                continue;
            partialFfn = true;
            // The same placement (the GPU index note differs: the first session wrote the cache).
            const std::string checked = check(model, params(emulated(bytes)), reference, tolerance);
            QVERIFY2(!checked.empty() && deviceLayerCounts(checked) == deviceLayerCounts(report)
                         && hotCounts(checked) == hotCounts(report),
                     qPrintable(QStringLiteral("budget %1 bytes: %2").arg(bytes).arg(report.c_str())));
        }
        QVERIFY(partialFfn);
    }

    void layerChoices_data()
    {
        QTest::addColumn<QString>("arch");
        QTest::addColumn<QList<bool>>("attention");
        QTest::addColumn<QList<bool>>("predictor");
        for (const char* arch : {"falcon", "opt"}) {
            const QString a = QString::fromLatin1(arch);
            QTest::newRow((std::string(arch) + " attention only").c_str())
                << a << QList<bool>{true, true, true, true} << QList<bool>{};
            QTest::newRow((std::string(arch) + " predictors only").c_str())
                << a << QList<bool>{} << QList<bool>{true, true, true, true};
            QTest::newRow((std::string(arch) + " some of each").c_str())
                << a << QList<bool>{true, false, true, false} << QList<bool>{false, true, true, false};
        }
    }

    // Any choice of layers for the device's attention and predictors gives the CPU's logits
    // over batched prompts, decoded tokens and a rewind.
    void layerChoices()
    {
        QFETCH(QString, arch);
        QFETCH(QList<bool>, attention);
        QFETCH(QList<bool>, predictor);
        const std::string a = arch.toStdString();
        const auto model = writeSparse(options(a, a + "-tiny", DType::F16, "relu"));
        QVERIFY(model);
        device::EmulatedDevice dev;
        std::vector<std::string> notes;
        const std::vector<bool> onAttention(attention.begin(), attention.end());
        const std::vector<bool> onPredictor(predictor.begin(), predictor.end());
        auto layers = HybridDeviceLayers::create(dev, *model, {onAttention, onPredictor}, kContext, kBatch, notes);
        QVERIFY(layers);
        QCOMPARE(layers->attentionLayers(), int(std::count(onAttention.begin(), onAttention.end(), true)));
        QCOMPARE(layers->predictorLayers(), int(std::count(onPredictor.begin(), onPredictor.end(), true)));
        ForwardPair pair(*model);
        QVERIFY(pair.valid());
        pair.mixed->setLayerOffload(layers.get());
        const auto step = [&](const std::vector<Token>& tokens, int start) { return pair.step(tokens, start); };
        QVERIFY(step({3, 40, 77, 120}, 0) <= 1e-4);
        QVERIFY(step({9, 18, 27}, 4) <= 1e-4);
        for (int pos = 7; pos < 14; ++pos)
            QVERIFY(step({Token(10 + 13 * pos)}, pos) <= 1e-4);
        QVERIFY(step({50, 51}, 10) <= 1e-4); // rewind
        QVERIFY(step({52}, 12) <= 1e-4);
        QVERIFY(layers->summary().find("failed") == std::string::npos);
    }

    void hybridDeviceFailure_data() { addArchRows(); }

    // Attention and predictors of every layer on a device that fails mid-conversation: the CPU
    // takes over from the mirrored KV rows with the same logits.
    void hybridDeviceFailure()
    {
        QFETCH(QString, arch);
        const std::string a = arch.toStdString();
        const auto model = writeSparse(options(a, a + "-tiny", DType::F16, "relu"));
        QVERIFY(model);
        device::EmulatedDevice dev;
        std::vector<std::string> notes;
        const std::vector<bool> every(kLayers, true);
        auto layers = HybridDeviceLayers::create(dev, *model, {every, every}, kContext, kBatch, notes);
        QVERIFY(layers);
        QCOMPARE(layers->attentionLayers(), kLayers);
        QCOMPARE(layers->predictorLayers(), kLayers);
        ForwardPair pair(*model);
        QVERIFY(pair.valid());
        QVERIFY(pair.mixed->sparseCapable());
        pair.mixed->setLayerOffload(layers.get());
        const auto step = [&](const std::vector<Token>& tokens, int start) { return pair.step(tokens, start); };
        QVERIFY(step({5, 6, 7}, 0) <= 1e-4);
        QVERIFY(step({8}, 3) <= 1e-4);
        QVERIFY(step({9}, 4) <= 1e-4);
        dev.injectOperationFailures(2);
        QVERIFY(step({10}, 5) <= 1e-4);
        QVERIFY(!layers->hasAttention(0));
        QVERIFY2(layers->summary().find("the device failed") != std::string::npos, layers->summary().c_str());
        QVERIFY(step({11, 12}, 6) <= 1e-4);
        QVERIFY(step({13, 14}, 2) <= 1e-4); // rewind over positions the device computed
        QVERIFY(step({15}, 4) <= 1e-4);
    }

    // A module whose table predates LayerNorm, bias adds and the rotary styles still runs what it
    // has; the new operations answer Unsupported instead of reading past its table (so a session
    // hands those layers to the CPU). The entries past struct_size are never read, even when the
    // memory behind the table holds something.
    void olderCudaModule()
    {
        HearthCudaBackendV1 t = older::table();
        t.layer_norm = older::layerNorm; // past struct_size: must not be called
        auto opened = device::CudaDevice::open(nullptr, &t, 0, std::uint64_t(1) << 20);
        QVERIFY2(opened.ok(), opened.message().c_str());
        device::Device& d = **opened;
        auto x = d.allocate(64 * 4, "x");
        auto w = d.allocate(64 * 4, "w");
        auto kv = d.allocate(64 * 4 * 4, "cache");
        QVERIFY(x.ok() && w.ok() && kv.ok());
        older::calls = 0;
        QVERIFY(d.rmsNorm(device::RmsNormOp{*x, *w, 1e-5f, 64, 1, *x}).ok());
        QCOMPARE(older::calls, 1);
        const Status ln = d.layerNorm(device::LayerNormOp{*x, *w, {}, 1e-5f, 64, 1, *x});
        QCOMPARE(ln.code(), ErrorCode::Unsupported);
        QCOMPARE(d.biasAdd(device::BiasAddOp{*x, *w, 64, 1}).code(), ErrorCode::Unsupported);
        device::AttentionOp a;
        a.q = a.out = *x;
        a.k = a.v = *w;
        a.kCache = a.vCache = a.scores = *kv;
        a.capacity = 4;
        a.nHead = a.nHeadKv = 1;
        a.headDim = 64;
        a.nRot = 64;
        QVERIFY(d.attention(a).ok()); // llama's rotary style: the old entry
        QCOMPARE(older::calls, 2);
        a.rope = device::RopeStyle::Neox;
        QCOMPARE(d.attention(a).code(), ErrorCode::Unsupported);
        QCOMPARE(older::calls, 2);
        for (auto* b : {&*x, &*w, &*kv})
            d.free(*b);
    }

    void plannerCountsAttention_data() { addArchRows(); }

    // The families' attention tensors (falcon: fused QKV and output; opt: q/k/v/o and their
    // biases) are attention bytes, and the planner places them within the budget, layer by
    // layer as the budget grows, before the hot neurons take the rest.
    void plannerCountsAttention()
    {
        QFETCH(QString, arch);
        const std::string a = arch.toStdString();
        const std::string path = writeSparsePath(options(a, a + "-tiny", DType::Q8_0, "relu"));
        QVERIFY(!path.empty());
        auto file = gguf::GgufFile::open(path);
        QVERIFY2(file.ok(), file.message().c_str());
        auto shape = sparse::shapeFromGguf(**file);
        QVERIFY2(shape.ok(), shape.message().c_str());
        std::uint64_t expected = 0;
        for (const gguf::TensorInfo& t : (*file)->tensors()) {
            if (t.name.starts_with("blk.0.attn_") && t.name.find("norm") == std::string::npos)
                expected += t.byteSize;
        }
        QVERIFY(expected > 0);
        QCOMPARE(shape->layers[0].attentionBytes, expected);
        QCOMPARE(shape->layers[0].attentionTensors, a == "falcon" ? 2u : 8u);
        QVERIFY(shape->layers[0].kvBytesPerToken > 0);

        auto stats = sparse::loadStatsFile(sparse::defaultStatsPath(path));
        QVERIFY2(stats.ok(), stats.message().c_str());
        auto planner = sparse::PlacementPlanner::create(*shape, *stats);
        QVERIFY2(planner.ok(), planner.message().c_str());
        int lastAttention = 0;
        std::int64_t lastHot = 0;
        bool partial = false;
        for (std::uint64_t budget = 4 * 1024; budget < (std::uint64_t(1) << 24); budget += budget / 5) {
            sparse::PlannerParams p;
            p.budgetBytes = budget;
            p.contextLength = kContext;
            p.batchSize = kBatch;
            p.reserveBytes = 0;
            p.workspaceBytes = 0;
            auto plan = planner->plan(p);
            QVERIFY2(plan.ok(), plan.message().c_str());
            QVERIFY(plan->gpu.total() <= budget);
            const int attention = int(std::count_if(plan->layers.begin(), plan->layers.end(),
                                                    [](const sparse::LayerPlacement& l) { return l.attentionOnGpu; }));
            QVERIFY(attention >= lastAttention);
            QVERIFY(plan->hotNeuronCount() >= lastHot);
            for (const sparse::LayerPlacement& l : plan->layers) {
                if (l.attentionOnGpu)
                    QCOMPARE(l.bytes.attention, expected);
            }
            partial = partial || (attention > 0 && attention < kLayers);
            lastAttention = attention;
            lastHot = plan->hotNeuronCount();
        }
        QVERIFY(partial);
        QCOMPARE(lastAttention, kLayers);
    }
};

QTEST_GUILESS_MAIN(TestFamilyOffload)
#include "tst_family_offload.moc"
