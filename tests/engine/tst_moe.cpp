// SPDX-License-Identifier: MIT
// Mixtures of experts (Mixtral as a llama file, Qwen 3 MoE, Qwen 2 MoE with its shared expert,
// SmallThinker with its router before attention), each on its synthetic model:
// * the router picks what a plain sort picks, with the family's weights and gating;
// * the experts bind as views of the stacked tensors, and one layer's FFN equals a
//   double-precision reference over the file's own tensors, expert choices included;
// * prefill equals decode, and small batches equal one;
// * a mixture whose experts are all the same equals the dense model with that FFN;
// * a token reads only its chosen experts: poisoning the others changes nothing;
// * hearth-profile counts how often each expert is chosen, as a token-by-token count does;
// * SmallThinker's own pieces matter: the router before attention, the layers without RoPE;
// * experts on the (emulated) device, some or all, give the CPU's logits; the session places what
//   the VRAM plan shows; the most used experts go first; a device failure loses nothing.

#include "api/expert_offload_session.h"
#include "cpu/thread_pool.h"
#include "device/emulated_device.h"
#include "family_test_support.h"
#include "model/llama_forward.h"
#include "model/llama_model.h"
#include "model/moe_ffn.h"
#include "session_test_support.h"
#include "sparse/activation_profile.h"
#include "synth_test_support.h"
#include "synth/random.h"
#include "synth/synthetic_families.h"
#include "synth/synthetic_model.h"

#include <hearth/model.h>
#include <hearth/placement.h>
#include <hearth/session.h>

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <set>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

using namespace hearth;

namespace {

const std::vector<Token> kPrompt { 1, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54 };
const SessionParams kCpu = test::deviceSessionParams({}, 0, 256, 64);

const model::LlamaModel& llamaOf(const std::shared_ptr<const Model>& model)
{
    return dynamic_cast<const model::LlamaModel&>(*model);
}

std::vector<float> lastLogits(const std::shared_ptr<const Model>& model, const SessionParams& params = kCpu)
{
    return test::promptLogits(model, params, kPrompt);
}

// A neuron's output from its gate and up products: SwiGLU, SmallThinker's ReGLU, or gpt-oss's
// clamped SwiGLU (g = min(gate, 7), u = clamp(up, -7, 7), g sigmoid(1.702 g) (u + 1)).
double activate(model::FfnActivation a, double g, double u)
{
    switch (a) {
    case model::FfnActivation::ReGlu:
        return std::max(g, 0.0) * u;
    case model::FfnActivation::SwiGluOai:
        g = std::min(g, 7.0);
        return g / (1.0 + std::exp(-1.702 * g)) * (std::clamp(u, -7.0, 7.0) + 1.0);
    default:
        return g / (1.0 + std::exp(-g)) * u;
    }
}

// One expert's biases (gpt-oss): null where there are none.
struct ExpertBiases {
    const double* gate = nullptr;
    const double* up = nullptr;
    const double* down = nullptr;
};

// down . act(gate . x, up . x) (+ the biases) for one expert whose rows start at @p gateRow /
// @p downRow of the stacked (or single) tensors.
std::vector<double> gatedFfnRef(const test::RefMatrix& gate, const test::RefMatrix& up, const test::RefMatrix& down,
                                std::int64_t ff, std::int64_t gateRow, std::int64_t downRow, const std::vector<double>& x,
                                model::FfnActivation act = model::FfnActivation::SwiGlu, ExpertBiases biases = {})
{
    std::vector<double> hidden(static_cast<std::size_t>(ff));
    for (std::int64_t i = 0; i < ff; ++i) {
        double g = biases.gate ? biases.gate[i] : 0.0;
        double u = biases.up ? biases.up[i] : 0.0;
        for (std::size_t c = 0; c < x.size(); ++c) {
            g += gate.row(gateRow + i)[c] * x[c];
            u += up.row(gateRow + i)[c] * x[c];
        }
        hidden[std::size_t(i)] = activate(act, g, u);
    }
    std::vector<double> y(x.size());
    for (std::size_t o = 0; o < x.size(); ++o) {
        double s = biases.down ? biases.down[o] : 0.0;
        for (std::int64_t i = 0; i < ff; ++i)
            s += down.row(downRow + std::int64_t(o))[i] * hidden[std::size_t(i)];
        y[o] = s;
    }
    return y;
}

// Expert ids by router logit, most probable first, the lower id first among equals.
std::vector<int> rankedExperts(const std::vector<double>& logits)
{
    std::vector<int> order(logits.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return logits[std::size_t(a)] > logits[std::size_t(b)]; });
    return order;
}

// The share of @p m's pages in memory (mincore: for a file mapping, the page cache's).
double residentShare(const cpu::WeightMatrix& m)
{
    const auto page = std::uintptr_t(sysconf(_SC_PAGESIZE));
    const std::uintptr_t first = reinterpret_cast<std::uintptr_t>(m.data) / page * page;
    const std::uintptr_t end = reinterpret_cast<std::uintptr_t>(m.data) + cpu::rowStrideOf(m) * std::size_t(m.rows);
    std::vector<unsigned char> pages((end - first + page - 1) / page);
    if (mincore(reinterpret_cast<void*>(first), end - first, pages.data()) != 0)
        return -1.0;
    return double(std::count_if(pages.begin(), pages.end(), [](unsigned char p) { return p & 1; })) / double(pages.size());
}

// Writes @p path's pages to the disk and drops them from the page cache (those no process has
// mapped in); false when the calls fail.
bool dropFromPageCache(const std::string& path)
{
    const int fd = open(path.c_str(), O_RDONLY);
    if (fd < 0)
        return false;
    const bool dropped = fdatasync(fd) == 0 && posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) == 0;
    close(fd);
    return dropped;
}

} // namespace

class TestMoe : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    int m_files = 0;

    std::shared_ptr<const Model> writeAndLoad(const synth::SynthOptions& options, std::string* path = nullptr)
    {
        return test::writeAndLoad(m_dir, QStringLiteral("moe-%1.gguf").arg(++m_files), options, path);
    }

    QString newPath() { return m_dir.filePath(QStringLiteral("edited-%1.gguf").arg(++m_files)); }

    // Every family's tiny model: architecture, shape.
    static const std::vector<std::pair<const char*, const char*>>& mixtures()
    {
        static const std::vector<std::pair<const char*, const char*>> all = {
            { "llama", "mixtral-tiny" }, { "qwen3moe", "qwen3moe-tiny" }, { "qwen2moe", "qwen2moe-tiny" },
            { "smallthinker", "smallthinker-tiny" }, { "smallthinker", "smallthinker-tiny-sigmoid" },
            { "gpt-oss", "gpt-oss-tiny" }
        };
        return all;
    }

    static void addMixtures()
    {
        QTest::addColumn<QString>("architecture");
        QTest::addColumn<QString>("shape");
        for (const auto& [arch, shape] : mixtures())
            QTest::newRow(shape) << QString::fromLatin1(arch) << QString::fromLatin1(shape);
    }

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void registryKnowsTheMixtures()
    {
        std::vector<std::string> names;
        for (const ArchitectureName& a : supportedArchitectures())
            names.push_back(a.name);
        for (const char* name : { "qwen2moe", "qwen3moe", "smallthinker" })
            QVERIFY2(std::find(names.begin(), names.end(), name) != names.end(), name);
        QVERIFY(model::findArchitecture("qwen3moe")->llama.normalizeExpertWeights);
        QVERIFY(!model::findArchitecture("qwen2moe")->llama.normalizeExpertWeights);
        QVERIFY(model::findArchitecture("llama")->llama.normalizeExpertWeights); // Mixtral
        QVERIFY(model::findArchitecture("smallthinker")->llama.routerBeforeAttention);
    }

    void routingPicksTheMostProbable()
    {
        // Logits with a tie (experts 2 and 5) and one below every other.
        const std::vector<float> logits { 0.5f, -1.0f, 2.0f, 0.1f, -3.0f, 2.0f, 1.5f, -0.2f };
        std::vector<double> probs(logits.size());
        double sum = 0;
        for (std::size_t e = 0; e < logits.size(); ++e)
            sum += probs[e] = std::exp(double(logits[e]));
        for (double& p : probs)
            p /= sum;
        const std::vector<int> order = rankedExperts({ logits.begin(), logits.end() });
        for (const int used : { 1, 2, 3, 8 }) {
            for (const bool normalize : { false, true }) {
                std::vector<model::ExpertChoice> choices(static_cast<std::size_t>(used));
                model::routeToken(logits.data(), int(logits.size()), used, model::ExpertGating::Softmax, normalize,
                                  choices.data());
                double chosen = 0;
                for (int j = 0; j < used; ++j)
                    chosen += probs[std::size_t(order[std::size_t(j)])];
                for (int j = 0; j < used; ++j) {
                    const int expert = order[std::size_t(j)];
                    QCOMPARE(choices[std::size_t(j)].expert, expert);
                    const double expected = probs[std::size_t(expert)] / (normalize ? chosen : 1.0);
                    QVERIFY2(std::abs(choices[std::size_t(j)].weight - expected) < 1e-6,
                             qPrintable(QStringLiteral("used %1, choice %2: %3, expected %4")
                                            .arg(used).arg(j).arg(choices[std::size_t(j)].weight).arg(expected)));
                }
            }
        }
    }

    void otherGatings()
    {
        // Sigmoid: each chosen expert's own sigmoid; softmax of the chosen: over the k alone.
        const std::vector<float> logits { 0.5f, -1.0f, 2.0f, 0.1f };
        std::vector<model::ExpertChoice> choices(2);
        const auto sigmoid = [](double x) { return 1.0 / (1.0 + std::exp(-x)); };
        model::routeToken(logits.data(), 4, 2, model::ExpertGating::Sigmoid, false, choices.data());
        QCOMPARE(choices[0].expert, 2);
        QCOMPARE(choices[1].expert, 0);
        QVERIFY(std::abs(choices[0].weight - sigmoid(2.0)) < 1e-6);
        QVERIFY(std::abs(choices[1].weight - sigmoid(0.5)) < 1e-6);
        model::routeToken(logits.data(), 4, 2, model::ExpertGating::Sigmoid, true, choices.data());
        QVERIFY(std::abs(choices[0].weight - sigmoid(2.0) / (sigmoid(2.0) + sigmoid(0.5))) < 1e-6);
        model::routeToken(logits.data(), 4, 2, model::ExpertGating::SoftmaxOfChosen, false, choices.data());
        QVERIFY(std::abs(choices[0].weight - 1.0 / (1.0 + std::exp(-1.5))) < 1e-6);
        QVERIFY(std::abs(choices[0].weight + choices[1].weight - 1.0) < 1e-6);
        QVERIFY(!model::expertGatingFromGguf(0) && !model::expertGatingFromGguf(4));
    }

    void loadsTheExperts_data() { addMixtures(); }
    void loadsTheExperts()
    {
        QFETCH(QString, architecture);
        QFETCH(QString, shape);
        const auto model = writeAndLoad(test::familyOptions(architecture, shape));
        const model::HyperParams& hp = llamaOf(model).hyperParams();
        const synth::ModelShape s = *synth::shapeByName(architecture.toStdString(), shape.toStdString());
        QCOMPARE(hp.nExpert, s.expertCount);
        QCOMPARE(hp.nExpertUsed, s.expertUsedCount);
        QCOMPARE(hp.nFfExpert, s.expertWidth());
        for (const model::LlamaLayerWeights& layer : llamaOf(model).weights().layers) {
            QVERIFY(layer.moe.present());
            QVERIFY(!layer.gate.data && !layer.up.data && !layer.down.data);
            QCOMPARE(int(layer.moe.experts.size()), hp.nExpert);
            QCOMPARE(layer.moe.router.rows, std::int64_t(hp.nExpert));
            // Expert e's rows follow expert e - 1's in the stacked tensor (as mapped, before any
            // packed copy).
            const auto& e0 = layer.moe.experts[0];
            const auto& e1 = layer.moe.experts[1];
            QCOMPARE(e1.gate.rows, std::int64_t(hp.nFfExpert));
            QCOMPARE(e1.down.rows, std::int64_t(hp.nEmbd));
            QCOMPARE(e1.down.cols, std::int64_t(hp.nFfExpert));
            QCOMPARE(static_cast<const std::byte*>(e1.gate.data),
                     static_cast<const std::byte*>(e0.gate.data) + hp.nFfExpert * rowBytes(e0.gate.type, e0.gate.cols));
            QCOMPARE(layer.moe.shared.present(), s.sharedExpertFeedForwardSize > 0);
            QCOMPARE(layer.moe.sharedGate != nullptr, s.sharedExpertFeedForwardSize > 0);
        }
        QVERIFY(!model->info().architecture.empty());
    }

    void refusesBrokenMixtures_data()
    {
        QTest::addColumn<QString>("dropKey");
        QTest::addColumn<QString>("setKey");
        QTest::addColumn<int>("value");
        QTest::addColumn<QString>("message");
        QTest::newRow("no expert count") << "qwen3moe.expert_count" << "" << 0 << "qwen3moe.expert_count";
        QTest::newRow("more used than there are") << "qwen3moe.expert_used_count" << "qwen3moe.expert_used_count" << 9
                                                  << "expert_used_count has an implausible value 9";
        QTest::newRow("unknown gating") << "" << "qwen3moe.expert_gating_func" << 7 << "expert gating function 7";
        QTest::newRow("experts narrower than their tensors") << "qwen3moe.expert_feed_forward_length"
                                                             << "qwen3moe.expert_feed_forward_length" << 32
                                                             << "ffn_gate_exps.weight has shape";
    }
    void refusesBrokenMixtures()
    {
        QFETCH(QString, dropKey);
        QFETCH(QString, setKey);
        QFETCH(int, value);
        QFETCH(QString, message);
        std::string path;
        writeAndLoad(test::familyOptions(QStringLiteral("qwen3moe"), QStringLiteral("qwen3moe-tiny")), &path);
        const QString broken = newPath();
        QVERIFY(test::rewriteGguf(path, broken.toStdString(),
                                  [&](const std::string& key) { return key != dropKey.toStdString(); },
                                  [&](gguf::GgufWriter& w) {
                                      if (!setKey.isEmpty())
                                          w.setUInt32(setKey.toStdString(), std::uint32_t(value));
                                  },
                                  {}).ok());
        const auto model = Model::load(broken.toStdString());
        QVERIFY(!model.ok());
        QVERIFY2(model.message().find(message.toStdString()) != std::string::npos, model.message().c_str());
    }

    void ffnEqualsAReference_data()
    {
        QTest::addColumn<QString>("architecture");
        QTest::addColumn<QString>("shape");
        QTest::addColumn<int>("type");
        QTest::addColumn<double>("tolerance");
        for (const auto& [arch, shape] : mixtures()) {
            QTest::addRow("%s F32", shape) << QString::fromLatin1(arch) << QString::fromLatin1(shape) << int(DType::F32) << 1e-5;
            // Q8_0 weights meet activations rounded to 8 bits, as llama.cpp rounds them.
            QTest::addRow("%s Q8_0", shape) << QString::fromLatin1(arch) << QString::fromLatin1(shape) << int(DType::Q8_0) << 2e-2;
        }
    }
    void ffnEqualsAReference()
    {
        QFETCH(QString, architecture);
        QFETCH(QString, shape);
        QFETCH(int, type);
        QFETCH(double, tolerance);
        std::string path;
        const auto model = writeAndLoad(test::familyOptions(architecture, shape, DType(type)), &path);
        const model::HyperParams& hp = llamaOf(model).hyperParams();
        const model::MoeWeights& moe = llamaOf(model).weights().layers[1].moe;
        auto file = gguf::GgufFile::open(path);
        QVERIFY(file.ok());
        const auto tensor = [&](const char* name) { return test::readTensor(**file, std::string("blk.1.") + name); };
        const test::RefMatrix router = tensor("ffn_gate_inp.weight");
        const test::RefMatrix gate = tensor("ffn_gate_exps.weight");
        const test::RefMatrix up = tensor("ffn_up_exps.weight");
        const test::RefMatrix down = tensor("ffn_down_exps.weight");
        // gpt-oss's biases (empty matrices elsewhere).
        const test::RefMatrix routerBias = tensor("ffn_gate_inp.bias");
        const test::RefMatrix gateBias = tensor("ffn_gate_exps.bias");
        const test::RefMatrix upBias = tensor("ffn_up_exps.bias");
        const test::RefMatrix downBias = tensor("ffn_down_exps.bias");
        QCOMPARE(!routerBias.w.empty(), hp.flavour.expertBiases);

        // Rows of unit scale, as the FFN norm leaves them.
        const int tokens = 7;
        std::vector<float> input(std::size_t(tokens * hp.nEmbd));
        synth::SplitMix64 rng(7);
        for (float& v : input)
            v = rng.nextNormal();
        model::MoeFfn ffn;
        QVERIFY(ffn.reserve(hp, tokens).ok());
        cpu::ThreadPool pool(2);
        std::vector<float> out(input.size());
        for (const int n : { tokens, 1 }) { // a prompt, then a decoded token (the batch's first row)
            ffn.route(pool, moe, hp, input.data(), n);
            ffn.run(pool, moe, hp, input.data(), n, out.data());
            const auto choices = ffn.lastChoices();
            QCOMPARE(int(choices.size()), n * hp.nExpertUsed);
            for (int t = 0; t < n; ++t) {
                const std::vector<double> x(input.begin() + t * hp.nEmbd, input.begin() + (t + 1) * hp.nEmbd);
                std::vector<double> logits = test::matVec(router, x);
                for (std::size_t e = 0; e < routerBias.w.size(); ++e)
                    logits[e] += routerBias.w[e];
                const std::vector<int> order = rankedExperts(logits);
                // The gated weight of each expert: its softmax share of all (or of the chosen:
                // gpt-oss), or its sigmoid.
                const bool ofChosen = hp.expertGating == model::ExpertGating::SoftmaxOfChosen;
                double sum = 0;
                for (std::size_t e = 0; e < logits.size(); ++e) {
                    const auto rank = std::find(order.begin(), order.end(), int(e)) - order.begin();
                    if (!ofChosen || rank < hp.nExpertUsed)
                        sum += std::exp(logits[e] - logits[std::size_t(order[0])]);
                }
                const auto gated = [&](int e) {
                    const double l = logits[std::size_t(e)];
                    return hp.expertGating == model::ExpertGating::Sigmoid ? 1.0 / (1.0 + std::exp(-l))
                                                                           : std::exp(l - logits[std::size_t(order[0])]) / sum;
                };
                double chosen = 0;
                for (int j = 0; j < hp.nExpertUsed; ++j)
                    chosen += gated(order[std::size_t(j)]);
                std::vector<double> y(x.size(), 0.0);
                for (int j = 0; j < hp.nExpertUsed; ++j) {
                    const int e = order[std::size_t(j)];
                    QCOMPARE(choices[std::size_t(t * hp.nExpertUsed + j)].expert, e);
                    double w = gated(e);
                    if (hp.flavour.normalizeExpertWeights)
                        w /= chosen;
                    const ExpertBiases biases = gateBias.w.empty() ? ExpertBiases{}
                                                                   : ExpertBiases{gateBias.row(e), upBias.row(e), downBias.row(e)};
                    const auto expert = gatedFfnRef(gate, up, down, hp.nFfExpert, std::int64_t(e) * hp.nFfExpert,
                                                    std::int64_t(e) * hp.nEmbd, x, hp.ffnActivation, biases);
                    for (std::size_t o = 0; o < y.size(); ++o)
                        y[o] += w * expert[o];
                }
                if (moe.shared.present()) {
                    const test::RefMatrix sharedGate = tensor("ffn_gate_inp_shexp.weight");
                    double s = 0;
                    for (std::size_t c = 0; c < x.size(); ++c)
                        s += sharedGate.w[c] * x[c];
                    const auto shared = gatedFfnRef(tensor("ffn_gate_shexp.weight"), tensor("ffn_up_shexp.weight"),
                                                    tensor("ffn_down_shexp.weight"), hp.nFfSharedExpert, 0, 0, x);
                    for (std::size_t o = 0; o < y.size(); ++o)
                        y[o] += shared[o] / (1.0 + std::exp(-s));
                }
                const std::span<const float> row(out.data() + t * hp.nEmbd, std::size_t(hp.nEmbd));
                const double scale = std::max(1e-3, std::abs(*std::max_element(y.begin(), y.end(), [](double a, double b) {
                    return std::abs(a) < std::abs(b);
                })));
                const double error = test::maxAbsDiff(row, y) / scale;
                QVERIFY2(error < tolerance, qPrintable(QStringLiteral("token %1 of %2: error %3").arg(t).arg(n).arg(error)));
            }
        }
    }

    void prefillEqualsDecode_data()
    {
        QTest::addColumn<QString>("architecture");
        QTest::addColumn<QString>("shape");
        QTest::addColumn<int>("type");
        for (const auto& [arch, shape] : mixtures()) {
            QTest::addRow("%s F32", shape) << QString::fromLatin1(arch) << QString::fromLatin1(shape) << int(DType::F32);
            QTest::addRow("%s Q4_0", shape) << QString::fromLatin1(arch) << QString::fromLatin1(shape) << int(DType::Q4_0);
        }
    }
    void prefillEqualsDecode()
    {
        QFETCH(QString, architecture);
        QFETCH(QString, shape);
        QFETCH(int, type);
        const auto model = writeAndLoad(test::familyOptions(architecture, shape, DType(type)));
        const std::vector<float> batched = lastLogits(model);
        QVERIFY(!batched.empty());
        auto session = Session::create(model, kCpu);
        QVERIFY(session.ok());
        for (const Token t : kPrompt)
            QVERIFY((*session)->decode(t).ok());
        const double oneByOne = test::relativeError(batched, (*session)->logits());
        QVERIFY2(oneByOne < 1e-4, qPrintable(QString::number(oneByOne)));
        const double small = test::relativeError(batched, lastLogits(model, test::deviceSessionParams({}, 0, 256, 5)));
        QVERIFY2(small < 1e-4, qPrintable(QString::number(small)));
    }

    void identicalExpertsEqualTheDenseFfn()
    {
        // Every expert of a Mixtral file made a copy of expert 0: whatever the router picks, its
        // renormalised weights add up to one, so the layer is expert 0's FFN, which the dense
        // llama file of the same tensors computes without any routing.
        std::string path;
        writeAndLoad(test::familyOptions(QStringLiteral("llama"), QStringLiteral("mixtral-tiny")), &path);
        const QString same = newPath();
        const QString dense = newPath();
        const auto firstExpert = [](const gguf::TensorInfo& t) {
            return std::size_t(t.shape[0] * t.shape[1]) * sizeof(float);
        };
        QVERIFY(test::rewriteGguf(path, same.toStdString(), {}, {}, [&](const gguf::TensorInfo& t, test::TensorReplacement& r) {
            if (!t.name.ends_with("_exps.weight"))
                return true;
            r = { true, {}, t.type, t.shape, {} };
            const std::size_t one = firstExpert(t);
            for (std::int64_t e = 0; e < t.shape[2]; ++e)
                r.bytes.insert(r.bytes.end(), t.data, t.data + one);
            return true;
        }).ok());
        QVERIFY(test::rewriteGguf(path, dense.toStdString(),
                                  [](const std::string& key) { return key.find("expert_") == std::string::npos; }, {},
                                  [&](const gguf::TensorInfo& t, test::TensorReplacement& r) {
            if (t.name.ends_with("ffn_gate_inp.weight"))
                return false;
            if (!t.name.ends_with("_exps.weight"))
                return true;
            std::string name = t.name;
            name.replace(name.find("_exps"), 5, "");
            r = { true, name, t.type, { t.shape[0], t.shape[1] }, { t.data, t.data + firstExpert(t) } };
            return true;
        }).ok());
        auto mixture = Model::load(same.toStdString());
        auto plain = Model::load(dense.toStdString());
        QVERIFY2(mixture.ok(), mixture.message().c_str());
        QVERIFY2(plain.ok(), plain.message().c_str());
        QVERIFY(!llamaOf(*plain).hyperParams().mixtureOfExperts());
        const double error = test::relativeError(lastLogits(*mixture), lastLogits(*plain));
        QVERIFY2(error < 1e-5, qPrintable(QString::number(error)));
    }

    void readsOnlyTheChosenExperts_data() { addMixtures(); }
    void readsOnlyTheChosenExperts()
    {
        // One token goes to nExpertUsed experts per layer; NaN in every other expert's weights
        // must not reach the logits.
        QFETCH(QString, architecture);
        QFETCH(QString, shape);
        std::string path;
        const auto model = writeAndLoad(test::familyOptions(architecture, shape), &path);
        const model::HyperParams& hp = llamaOf(model).hyperParams();
        std::vector<std::set<int>> chosen(std::size_t(hp.nLayer));
        const auto run = [&](const std::shared_ptr<const Model>& m, bool record) {
            auto forward = model::LlamaForward::create(llamaOf(m), 64, 16, 2);
            if (!forward)
                qFatal("%s", forward.message().c_str());
            if (record) {
                (*forward)->setExpertObserver([](void* context, int layer, int, const model::ExpertActivity& activity) {
                    auto& sets = *static_cast<std::vector<std::set<int>>*>(context);
                    for (const model::ExpertChoice& c : activity.choices)
                        sets[std::size_t(layer)].insert(c.expert);
                }, &chosen);
            }
            std::vector<float> logits(std::size_t(hp.nVocab));
            const Token bos = 1;
            (*forward)->forward(&bos, 1, 0, logits.data(), false);
            return logits;
        };
        const std::vector<float> reference = run(model, true);
        for (const auto& set : chosen)
            QCOMPARE(int(set.size()), hp.nExpertUsed);

        const QString poisoned = newPath();
        QVERIFY(test::rewriteGguf(path, poisoned.toStdString(), {}, {}, [&](const gguf::TensorInfo& t, test::TensorReplacement& r) {
            if (!t.name.ends_with("_exps.weight"))
                return true;
            const int layer = std::stoi(t.name.substr(4));
            r = { true, {}, t.type, t.shape, { t.data, t.data + t.byteSize } };
            auto* values = reinterpret_cast<float*>(r.bytes.data());
            const std::size_t perExpert = std::size_t(t.shape[0] * t.shape[1]);
            for (std::int64_t e = 0; e < t.shape[2]; ++e) {
                if (!chosen[std::size_t(layer)].contains(int(e)))
                    std::fill_n(values + std::size_t(e) * perExpert, perExpert, std::nanf(""));
            }
            return true;
        }).ok());
        auto loaded = Model::load(poisoned.toStdString());
        QVERIFY2(loaded.ok(), loaded.message().c_str());
        const std::vector<float> after = run(*loaded, false);
        QVERIFY(std::all_of(after.begin(), after.end(), [](float v) { return std::isfinite(v); }));
        QCOMPARE(after, reference);
    }

    // Where memory is short (LoadParams::memoryBudgetBytes), what does not fit stays in the file
    // mapping, the routed experts first, and computes the same logits.
    void expertsStayMappedWhenMemoryIsShort()
    {
        std::string path;
        const auto packed = writeAndLoad(test::familyOptions(QStringLiteral("qwen3moe"), QStringLiteral("qwen3moe-tiny"),
                                                             DType::Q4_0), &path);
        const model::LlamaWeights& all = llamaOf(packed).weights();
        QCOMPARE(packed->info().bytesLeftMapped, std::uint64_t(0));
        QVERIFY(all.layers[0].moe.experts[0].gate.packing != cpu::Packing::None);
        QVERIFY(!all.readExpertsAhead);
        const std::vector<float> reference = lastLogits(packed);

        // Room for every matrix but the routed experts, then for nothing.
        std::uint64_t expertBytes = 0;
        for (const model::LlamaLayerWeights& l : all.layers) {
            for (const model::GatedFfnWeights& e : l.moe.experts) {
                for (const cpu::WeightMatrix* m : {&e.gate, &e.up, &e.down})
                    expertBytes += cpu::rowStrideOf(*m) * std::uint64_t(m->rows);
            }
        }
        // Less than one expert matrix over the rest: the allocations' alignment only.
        const std::uint64_t rest = all.packedBytes() - expertBytes + 1024;
        for (const std::uint64_t budget : {rest, std::uint64_t(1)}) {
            LoadParams params;
            params.memoryBudgetBytes = budget;
            auto loaded = Model::load(path, params);
            QVERIFY2(loaded.ok(), loaded.message().c_str());
            const model::LlamaWeights& w = llamaOf(*loaded).weights();
            QVERIFY((*loaded)->info().bytesLeftMapped >= expertBytes);
            QVERIFY(w.readExpertsAhead);
            for (const model::LlamaLayerWeights& l : w.layers) {
                QCOMPARE(l.moe.experts.back().down.packing, cpu::Packing::None);
                QCOMPARE(l.wq.packing == cpu::Packing::None, budget == 1);
            }
            const double error = test::relativeError(reference, lastLogits(*loaded));
            QVERIFY2(error < 1e-5, qPrintable(QString::number(error)));
        }
    }

    // The experts a router chooses are read from the disk before they are used: after the
    // file's pages are dropped from the page cache, asking for the chosen experts brings theirs
    // back, and not the others'.
    void chosenExpertsAreReadAhead()
    {
        std::string path;
        auto options = test::familyOptions(QStringLiteral("smallthinker"), QStringLiteral("smallthinker-tiny"), DType::F32);
        options.shape.expertFeedForwardSize = 1024; // experts of many pages each
        (void)writeAndLoad(options, &path);
        LoadParams params;
        params.memoryBudgetBytes = 1;
        auto loaded = Model::load(path, params);
        QVERIFY2(loaded.ok(), loaded.message().c_str());
        const model::LlamaModel& llama = llamaOf(*loaded);
        const model::HyperParams& hp = llama.hyperParams();
        const model::MoeWeights& moe = llama.weights().layers[0].moe;
        QVERIFY(llama.weights().readExpertsAhead);

        model::MoeFfn ffn;
        QVERIFY(ffn.reserve(hp, 1).ok());
        cpu::ThreadPool pool(1);
        std::vector<float> x(std::size_t(hp.nEmbd));
        for (std::size_t i = 0; i < x.size(); ++i)
            x[i] = std::sin(0.7f * float(i));
        ffn.route(pool, moe, hp, x.data(), 1);
        std::set<int> chosen;
        for (const model::ExpertChoice& c : ffn.lastChoices())
            chosen.insert(c.expert);
        QCOMPARE(int(chosen.size()), hp.nExpertUsed);

        const auto resident = [&](int e) { return residentShare(moe.experts[std::size_t(e)].up); };
        // Whatever loading read of the experts leaves this process's page tables first.
        for (const model::GatedFfnWeights& e : moe.experts) {
            for (const cpu::WeightMatrix* m : {&e.gate, &e.up, &e.down})
                cpu::releaseMappedPages(m->data, cpu::rowStrideOf(*m) * std::size_t(m->rows));
        }
        // The first drop may find pages still in writeback.
        for (int tries = 0; tries < 5 && resident(*chosen.begin()) > 0.0; ++tries) {
            if (!dropFromPageCache(path))
                QSKIP("the page cache cannot be dropped here");
        }
        if (resident(*chosen.begin()) > 0.5)
            QSKIP("this file system keeps the file's pages in memory");
        ffn.readChosenAhead(moe);
        // The reads are asynchronous: wait for every chosen expert (a loaded machine is slower).
        const auto allRead = [&] {
            return std::all_of(chosen.begin(), chosen.end(), [&](int e) { return resident(e) == 1.0; });
        };
        for (int wait = 0; wait < 500 && !allRead(); ++wait)
            QTest::qWait(10);
        for (int e = 0; e < hp.nExpert; ++e) {
            if (chosen.contains(e))
                QVERIFY2(resident(e) == 1.0, qPrintable(QString::number(resident(e))));
            else
                QVERIFY2(resident(e) < 1.0, qPrintable(QStringLiteral("expert %1: %2").arg(e).arg(resident(e))));
        }
    }

    void smallThinkerPiecesMatter()
    {
        const auto model = writeAndLoad(test::familyOptions(QStringLiteral("smallthinker"), QStringLiteral("smallthinker-tiny")));
        auto& hp = const_cast<model::HyperParams&>(llamaOf(model).hyperParams());
        QCOMPARE(hp.ffnActivation, model::FfnActivation::ReGlu);
        QCOMPARE(hp.expertGating, model::ExpertGating::Softmax);
        // Layers 0 and 4 see every key without RoPE; the others slide over 4096 keys and rotate.
        for (int l = 0; l < hp.nLayer; ++l) {
            QCOMPARE(hp.windowOf(l), l % 4 == 0 ? 0 : 4096);
            QCOMPARE(hp.rotates(l), l % 4 != 0);
        }
        const std::vector<float> reference = lastLogits(model);
        hp.flavour.routerBeforeAttention = false;
        QVERIFY2(test::relativeError(reference, lastLogits(model)) > 1e-3, "routing after attention changed nothing");
        hp.flavour.routerBeforeAttention = true;
        hp.noRopePeriod = 0;
        QVERIFY2(test::relativeError(reference, lastLogits(model)) > 1e-3, "RoPE on every layer changed nothing");
        hp.noRopePeriod = 4;
        QCOMPARE(lastLogits(model), reference);
    }

    // hearth-profile over a mixture: how often the router picks each expert and, where the
    // experts are ReLU-gated (SmallThinker), how often each of their neurons fires when picked;
    // both against the same windows run one token at a time.
    void profileCountsTheExperts_data()
    {
        QTest::addColumn<QString>("architecture");
        QTest::addColumn<QString>("shape");
        QTest::addColumn<bool>("reluExperts");
        QTest::newRow("qwen3moe (SwiGLU)") << QStringLiteral("qwen3moe") << QStringLiteral("qwen3moe-tiny") << false;
        QTest::newRow("smallthinker (ReGLU)") << QStringLiteral("smallthinker") << QStringLiteral("smallthinker-tiny") << true;
    }

    void profileCountsTheExperts()
    {
        QFETCH(QString, architecture);
        QFETCH(QString, shape);
        QFETCH(bool, reluExperts);
        std::string path;
        const auto model = writeAndLoad(test::familyOptions(architecture, shape), &path);
        const QString text = m_dir.filePath(QStringLiteral("text.txt"));
        std::string words;
        for (int i = 0; i < 20; ++i)
            words += "a small fire keeps the hearth warm while snow falls outside. ";
        {
            QFile f(text);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(words.data(), qint64(words.size()));
        }
        constexpr int window = 64;
        const QString out = m_dir.filePath(QStringLiteral("experts.hearth-stats.gguf"));
        QProcess p;
        p.start(QStringLiteral(HEARTH_BIN_DIR "/hearth-profile"),
                { "-m", QString::fromStdString(path), "-f", text, "-o", out, "-t", "2", "-c", QString::number(window) });
        QVERIFY(p.waitForFinished(120000));
        const QByteArray err = p.readAllStandardError();
        QVERIFY2(p.exitCode() == 0, err.constData());
        QVERIFY2(err.contains("2 of 8 experts per token"), err.constData());
        QCOMPARE(err.contains("inside an expert a neuron fires"), reluExperts);
        auto stats = sparse::loadStatsFile(out.toStdString(), sparse::StatsUnit::Experts);
        QVERIFY2(stats.ok(), stats.message().c_str());
        QVERIFY(!sparse::loadStatsFile(out.toStdString()).ok()); // not neuron statistics
        auto inside = sparse::loadStatsFile(out.toStdString(), sparse::StatsUnit::ExpertNeurons);
        QCOMPARE(inside.ok(), reluExperts); // SwiGLU neurons never output an exact zero

        // The same windows, one token at a time.
        const model::LlamaModel& m = llamaOf(model);
        const model::HyperParams& hp = m.hyperParams();
        const std::vector<Token> tokens = m.tokenizer().encode(words, false, false);
        struct Counts {
            std::vector<std::vector<double>> routed; // [layer][expert]
            std::vector<std::vector<double>> fired;  // [layer][expert * nFfExpert + neuron]
        } counts{std::vector<std::vector<double>>(std::size_t(hp.nLayer), std::vector<double>(std::size_t(hp.nExpert), 0.0)),
                 std::vector<std::vector<double>>(std::size_t(hp.nLayer),
                                                  std::vector<double>(std::size_t(hp.nExpert * hp.nFfExpert), 0.0))};
        auto f = model::LlamaForward::create(m, window, 1, 1);
        QVERIFY(f.ok());
        (*f)->setExpertObserver([](void* context, int layer, int, const model::ExpertActivity& activity) {
            auto& c = *static_cast<Counts*>(context);
            for (std::size_t i = 0; i < activity.choices.size(); ++i) {
                const auto e = std::size_t(activity.choices[i].expert);
                c.routed[std::size_t(layer)][e] += 1;
                const std::span<const float> acts = activity.of(i);
                for (std::size_t n = 0; n < acts.size(); ++n)
                    c.fired[std::size_t(layer)][e * acts.size() + n] += acts[n] != 0.0f ? 1 : 0;
            }
        }, &counts);
        std::vector<float> logits(std::size_t(hp.nVocab));
        double seen = 0;
        for (std::size_t pos = 0; pos < tokens.size();) {
            std::vector<Token> chunk = { m.tokenizer().bos() };
            const std::size_t take = std::min(tokens.size() - pos, std::size_t(window - 1));
            chunk.insert(chunk.end(), tokens.begin() + std::ptrdiff_t(pos), tokens.begin() + std::ptrdiff_t(pos + take));
            pos += take;
            for (std::size_t i = 0; i < chunk.size(); ++i)
                (*f)->forward(&chunk[i], 1, int(i), logits.data(), false);
            seen += double(chunk.size());
        }
        QCOMPARE(stats->layerCount(), std::size_t(hp.nLayer));
        for (int l = 0; l < hp.nLayer; ++l) {
            const auto freq = stats->layer(std::size_t(l));
            double sum = 0;
            for (int e = 0; e < hp.nExpert; ++e) {
                sum += freq[std::size_t(e)];
                // A batch and single tokens sum in different orders: a near tie may go the other way.
                const double expected = counts.routed[std::size_t(l)][std::size_t(e)] / seen;
                QVERIFY2(std::abs(freq[std::size_t(e)] - expected) <= 2.0 / seen + 1e-6,
                         qPrintable(QStringLiteral("layer %1 expert %2: %3 vs %4").arg(l).arg(e).arg(freq[std::size_t(e)]).arg(expected)));
            }
            QVERIFY(std::abs(sum - hp.nExpertUsed) < 1e-4); // every token picks exactly that many
        }
        if (!reluExperts)
            return;
        // Each neuron's frequency is over its expert's tokens; near ties and activations at the
        // edge of zero may move a few counts.
        QCOMPARE(inside->layerCount(), std::size_t(hp.nLayer));
        double worst = 0;
        double firing = 0;
        for (int l = 0; l < hp.nLayer; ++l) {
            const auto freq = inside->layer(std::size_t(l));
            QCOMPARE(freq.size(), std::size_t(hp.nExpert * hp.nFfExpert));
            for (std::size_t i = 0; i < freq.size(); ++i) {
                const double routed = counts.routed[std::size_t(l)][i / std::size_t(hp.nFfExpert)];
                const double expected = routed > 0 ? counts.fired[std::size_t(l)][i] / routed : 0.0;
                worst = std::max(worst, std::abs(double(freq[i]) - expected) * std::max(routed, 1.0));
                firing += freq[i];
            }
        }
        QVERIFY2(worst <= 2.0, qPrintable(QStringLiteral("%1 tokens apart").arg(worst)));
        // ReLU neurons do fire and do stay silent.
        const double mean = firing / double(hp.nLayer * hp.nExpert * hp.nFfExpert);
        QVERIFY2(mean > 0.1 && mean < 0.9, qPrintable(QString::number(mean)));
    }

    // The budgets of an emulated device at which the plan holds every layer's attention and
    // some but not all experts, and everything.
    static std::pair<std::uint64_t, std::uint64_t> partialAndFullBudgets(PlacementModel& planner)
    {
        PlacementRequest request = deviceRequest(std::uint64_t(1) << 30);
        auto full = planner.plan(request);
        if (!full || full->gpuExpertCount() != full->expertCount())
            return {0, 0};
        const std::uint64_t all = full->gpu.total();
        for (std::uint64_t b = all / 64; b < all; b += all / 64) {
            request.budgetBytes = b;
            auto plan = planner.plan(request);
            if (plan && plan->attentionLayersOnGpu() == int(plan->layers.size()) && plan->gpuExpertCount() > 0
                && plan->gpuExpertCount() < plan->expertCount() / 2)
                return {b, all};
        }
        return {0, all};
    }

    static PlacementRequest deviceRequest(std::uint64_t budget)
    {
        PlacementRequest request;
        request.budgetBytes = budget;
        request.emulatedDevice = true;
        request.contextLength = 256;
        request.batchSize = 64;
        request.kvCacheType = KvCacheType::F32; // as emulatedParams() asks
        return request;
    }

    static SessionParams emulatedParams(std::uint64_t budget)
    {
        return test::deviceSessionParams("emulated:" + std::to_string(budget), -1, 256, 64);
    }

    void expertsRunOnTheDevice_data() { addMixtures(); }
    void expertsRunOnTheDevice()
    {
        // With part of a mixture's experts on the (emulated) device and the rest on the CPU at
        // the same time, and with all of them there, a prompt and decoded tokens give the CPU's
        // logits (up to the order of sums), the session places what the VRAM plan shows, and
        // says so.
        QFETCH(QString, architecture);
        QFETCH(QString, shape);
        std::string path;
        const auto model = writeAndLoad(test::familyOptions(architecture, shape), &path);
        const model::HyperParams& hp = llamaOf(model).hyperParams();
        const auto greedy = [](int, std::span<const float> logits) {
            return Token(std::max_element(logits.begin(), logits.end()) - logits.begin());
        };
        const test::SessionRun cpu = test::runSession(model, kCpu, kPrompt, 6, greedy);
        QCOMPARE(cpu.logits.size(), std::size_t(7));

        auto planner = PlacementModel::fromFile(path);
        QVERIFY2(planner.ok(), planner.message().c_str());
        const auto [partial, full] = partialAndFullBudgets(*planner);
        QVERIFY2(partial > 0, "no budget holds only some experts");
        for (const std::uint64_t budget : {partial, full}) {
            auto plan = planner->plan(deviceRequest(budget));
            QVERIFY(plan.ok());
            QVERIFY(plan->mixtureOfExperts);
            const test::SessionRun run = test::runSession(model, emulatedParams(budget), kPrompt, 6, greedy);
            QVERIFY2(run.report.find(std::to_string(plan->gpuExpertCount()) + " of "
                                     + std::to_string(hp.nLayer * hp.nExpert) + " experts")
                         != std::string::npos,
                     run.report.c_str());
            QCOMPARE(run.tokens, cpu.tokens);
            QCOMPARE(run.logits.size(), cpu.logits.size());
            for (std::size_t i = 0; i < run.logits.size(); ++i)
                QVERIFY2(test::relativeError(run.logits[i], cpu.logits[i]) < 1e-4,
                         qPrintable(QStringLiteral("step %1: %2").arg(i).arg(test::relativeError(run.logits[i], cpu.logits[i]))));
            auto session = Session::create(model, emulatedParams(budget));
            QVERIFY(session.ok());
            const SessionPlacement placement = (*session)->placement();
            QVERIFY(placement.usesGpu());
            QCOMPARE(placement.gpuExperts, plan->gpuExpertCount());
            QCOMPARE(placement.experts, plan->expertCount());
            QCOMPARE(placement.gpuLayers, plan->attentionLayersOnGpu());
        }
    }

    void hotExpertsGoFirst()
    {
        // With hearth-profile's statistics beside the model, the plan puts the experts the router
        // picks most on the GPU, across layers; without them (or when asked), layer by layer, as
        // llama.cpp's --n-cpu-moe does. The session follows the statistics too.
        std::string path;
        const auto model = writeAndLoad(test::familyOptions(QStringLiteral("qwen3moe"), QStringLiteral("qwen3moe-tiny")), &path);
        const model::HyperParams& hp = llamaOf(model).hyperParams();
        // Expert (7 - l) of layer l is picked by every token, the others evenly.
        std::vector<std::vector<float>> freq(std::size_t(hp.nLayer));
        for (int l = 0; l < hp.nLayer; ++l) {
            freq[std::size_t(l)].assign(std::size_t(hp.nExpert), float(hp.nExpertUsed - 1) / float(hp.nExpert - 1));
            freq[std::size_t(l)][std::size_t(hp.nExpert - 1 - l)] = 1.0f;
        }
        auto layerByLayer = PlacementModel::fromFile(path);
        QVERIFY(layerByLayer.ok());
        QVERIFY(sparse::writeStatsFile(sparse::defaultStatsPath(path), freq, 1000, sparse::StatsUnit::Experts).ok());
        auto planner = PlacementModel::fromFile(path);
        QVERIFY(planner.ok());
        const auto [partial, full] = partialAndFullBudgets(*planner);
        QVERIFY(partial > 0);
        // The smallest budget with one expert per layer.
        std::uint64_t budget = partial;
        PlacementSummary hot;
        for (; budget < full; budget += 4096) {
            hot = *planner->plan(deviceRequest(budget));
            if (hot.gpuExpertCount() >= hp.nLayer)
                break;
        }
        QCOMPARE(hot.gpuExpertCount(), hp.nLayer);
        for (int l = 0; l < hp.nLayer; ++l)
            QCOMPARE(hot.layers[std::size_t(l)].gpuExperts, 1);
        const PlacementSummary byLayer = *layerByLayer->plan(deviceRequest(budget));
        QCOMPARE(byLayer.gpuExpertCount(), hp.nLayer);
        QCOMPARE(byLayer.layers[0].gpuExperts, std::min(hp.nExpert, hp.nLayer));
        PlacementRequest asked = deviceRequest(budget);
        asked.expertsByLayer = true;
        QCOMPARE(planner->plan(asked)->layers[0].gpuExperts, std::min(hp.nExpert, hp.nLayer));
        // The statistics say the hot experts run for every token: the plan expects more of a
        // token's work on the GPU than layer by layer does.
        QVERIFY(hot.tokensPerSecond > byLayer.tokensPerSecond);

        // The session places the same experts and still computes what the CPU does.
        const test::SessionRun cpu = test::runSession(model, kCpu, kPrompt, 3, [](int, std::span<const float> l) {
            return Token(std::max_element(l.begin(), l.end()) - l.begin());
        });
        const test::SessionRun run = test::runSession(model, emulatedParams(budget), kPrompt, 3, [](int, std::span<const float> l) {
            return Token(std::max_element(l.begin(), l.end()) - l.begin());
        });
        QVERIFY2(run.report.find(std::to_string(hp.nLayer) + " of ") != std::string::npos, run.report.c_str());
        QVERIFY2(run.report.find("expert statistics") == std::string::npos, run.report.c_str());
        QCOMPARE(run.tokens, cpu.tokens);
        SessionParams byLayerParams = emulatedParams(budget);
        byLayerParams.expertsByLayer = true;
        auto byLayerSession = Session::create(model, byLayerParams);
        QVERIFY(byLayerSession.ok());
        QVERIFY2((*byLayerSession)->placementReport().find("layer by layer, as asked") != std::string::npos,
                 (*byLayerSession)->placementReport().c_str());
        QCOMPARE((*byLayerSession)->placement().gpuExperts, byLayer.gpuExpertCount());
        QFile::remove(QString::fromStdString(sparse::defaultStatsPath(path)));
    }

    void deviceFailureHandsTheExpertsBack()
    {
        // A device that fails in the middle of a conversation: its experts (and attention) move
        // to the CPU, and the logits stay the CPU's.
        std::string path;
        const auto model = writeAndLoad(test::familyOptions(QStringLiteral("qwen2moe"), QStringLiteral("qwen2moe-tiny")), &path);
        const model::LlamaModel& llama = llamaOf(model);
        auto cpu = model::LlamaForward::create(llama, 64, 4, 2);
        auto mixed = model::LlamaForward::create(llama, 64, 4, 2);
        QVERIFY(cpu && mixed);
        auto owned = std::make_unique<device::EmulatedDevice>();
        device::EmulatedDevice* dev = owned.get();
        std::string report;
        auto offload = ExpertOffloadSession::create(llama, std::move(owned), kCpu, 64, 4, report);
        QVERIFY2(offload, report.c_str());
        QVERIFY(!offload->deviceExperts(0).empty());
        (*mixed)->setLayerOffload(offload.get());
        std::vector<float> want(std::size_t(llama.hyperParams().nVocab)), got(want.size());
        const auto step = [&](const std::vector<Token>& tokens, int start) {
            (*cpu)->forward(tokens.data(), int(tokens.size()), start, want.data(), false);
            (*mixed)->forward(tokens.data(), int(tokens.size()), start, got.data(), false);
            return test::relativeError(want, got);
        };
        QVERIFY(step({5, 6, 7, 8}, 0) < 1e-4);
        QVERIFY(step({9}, 4) < 1e-4);
        dev->injectOperationFailures(2);
        QVERIFY(step({10, 11}, 5) < 1e-4);
        QVERIFY(offload->deviceExperts(0).empty());
        QVERIFY2(offload->report().find("the device failed") != std::string::npos, offload->report().c_str());
        QVERIFY(!offload->placement().usesGpu());
        QVERIFY(step({12}, 7) < 1e-4);
    }
};

QTEST_GUILESS_MAIN(TestMoe)
#include "tst_moe.moc"
