// SPDX-License-Identifier: MIT
// What the VRAM panel plans (PlacementModel, from the file's tensor table) is what a session then
// places on a device given the same budget: whole layers of dense files, hot neurons of sparse
// ones, for every family and over a sweep of budgets from nothing to everything. The emulated
// device stands in for the GPU (PlacementRequest::emulatedDevice).

#include "session_test_support.h"
#include "synth/synthetic_families.h"
#include "synth/synthetic_model.h"
#include "synth/synthetic_sparse.h"

#include <hearth/model.h>
#include <hearth/placement.h>
#include <hearth/session.h>

#include <QTemporaryDir>
#include <QTest>

#include <cstdint>
#include <set>
#include <string>

using namespace hearth;

namespace {

constexpr int kContext = 64;
constexpr int kBatch = 16;
constexpr int kSteps = 48;

} // namespace

class TestPlanMatchesPlacement : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    int m_files = 0;

    // A synthetic file of @p arch / @p shape in Q4_0 with @p layers layers; sparse (with
    // predictors) or dense. Empty on failure.
    std::string write(const std::string& arch, const std::string& shape, int layers, bool sparse)
    {
        synth::SynthOptions o;
        o.architecture = arch;
        o.shape = *synth::shapeByName(arch, shape);
        o.shape.layerCount = layers;
        o.type = DType::Q4_0;
        o.seed = 5;
        // Sparse llama files use a ReLU-family FFN; falcon and opt files a ReLU.
        if (arch != "llama" && arch != "qwen3" && arch != "gemma3")
            o.ffnActivation = "relu";
        else if (sparse)
            o.ffnActivation = "reglu";
        const std::string path = m_dir.filePath(QStringLiteral("m%1.gguf").arg(++m_files)).toStdString();
        Status st;
        if (sparse) {
            synth::SparseSynthOptions s;
            s.sparsity = 0.7;
            s.predictorHidden = 32;
            st = synth::writeSparseSyntheticModel(o, s, path);
        } else {
            st = synth::writeSyntheticModel(o, path);
        }
        if (!st.ok()) {
            qWarning("%s", st.message().c_str());
            return {};
        }
        return path;
    }

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void sessionsPlaceWhatThePanelPlans_data()
    {
        QTest::addColumn<QString>("arch");
        QTest::addColumn<QString>("shape");
        QTest::addColumn<int>("layers");
        QTest::addColumn<bool>("sparse");
        QTest::newRow("llama dense") << "llama" << "tiny-256" << 6 << false;
        QTest::newRow("llama sparse") << "llama" << "tiny-256" << 6 << true;
        QTest::newRow("qwen3 dense (wide heads)") << "qwen3" << "qwen3-tiny" << 4 << false;
        QTest::newRow("gemma3 dense (windows)") << "gemma3" << "gemma3-tiny" << 12 << false;
        QTest::newRow("falcon dense") << "falcon" << "falcon-tiny" << 4 << false;
        QTest::newRow("falcon sparse") << "falcon" << "falcon-tiny" << 4 << true;
        QTest::newRow("opt dense") << "opt" << "opt-tiny" << 4 << false;
    }

    void sessionsPlaceWhatThePanelPlans()
    {
        QFETCH(QString, arch);
        QFETCH(QString, shape);
        QFETCH(int, layers);
        QFETCH(bool, sparse);
        const std::string path = write(arch.toStdString(), shape.toStdString(), layers, sparse);
        QVERIFY(!path.empty());
        auto model = Model::load(path);
        QVERIFY2(model.ok(), model.message().c_str());
        auto planner = PlacementModel::fromFile(path);
        QVERIFY2(planner.ok(), planner.message().c_str());
        QCOMPARE(planner->sparseCapable(), sparse);

        PlacementRequest request;
        request.contextLength = kContext;
        request.batchSize = kBatch;
        request.emulatedDevice = true;
        // Everything's size, then a sweep below it.
        request.budgetBytes = std::uint64_t(1) << 30;
        auto all = planner->plan(request);
        QVERIFY(all.ok());
        QVERIFY(all->fullyOnGpu());
        const std::uint64_t full = all->gpu.total();

        std::set<std::int64_t> seen;
        for (int step = 0; step <= kSteps; ++step) {
            request.budgetBytes = full * std::uint64_t(step) / kSteps;
            // Every cache type the user can pick, in turn: the RAM the plan counts is the session's.
            request.kvCacheType = step % 3 == 0 ? KvCacheType::F16 : step % 3 == 1 ? KvCacheType::Q8_0 : KvCacheType::F32;
            auto plan = planner->plan(request);
            QVERIFY2(plan.ok(), plan.message().c_str());

            SessionParams p = test::deviceSessionParams(
                request.budgetBytes > 0 ? "emulated:" + std::to_string(request.budgetBytes) : std::string(),
                request.budgetBytes > 0 ? -1.0 : 0.0, kContext, kBatch);
            p.kvCache = request.kvCacheType;
            auto session = Session::create(*model, p);
            QVERIFY2(session.ok(), session.message().c_str());
            const SessionPlacement placed = (*session)->placement();
            const std::string where = "budget " + std::to_string(request.budgetBytes) + ": plan \"" + plan->reason
                                      + "\", session \"" + (*session)->placementReport() + "\"";
            if (sparse) {
                QVERIFY2(placed.hotNeurons == plan->hotNeuronCount(), where.c_str());
                seen.insert(placed.hotNeurons);
            } else {
                QVERIFY2(placed.gpuLayers == plan->attentionLayersOnGpu(), where.c_str());
                seen.insert(placed.gpuLayers);
            }
            QCOMPARE(placed.usesGpu(), !plan->cpuOnly() && (sparse ? plan->hotNeuronCount() > 0 : true));
            QVERIFY2(plan->hostKvCache == (*session)->kvCacheBytesAt(kContext),
                     (where + ": host KV " + std::to_string(plan->hostKvCache) + " planned, "
                      + std::to_string((*session)->kvCacheBytesAt(kContext)) + " in "
                      + std::string(kvCacheTypeName((*session)->kvCacheType())))
                         .c_str());
        }
        // The sweep crossed more than the two ends.
        QVERIFY2(seen.size() >= 3, std::to_string(seen.size()).c_str());
    }
};

QTEST_GUILESS_MAIN(TestPlanMatchesPlacement)
#include "tst_plan_matches_placement.moc"
