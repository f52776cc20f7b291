// SPDX-License-Identifier: MIT
#include "convert/sparsify_file.h"

#include "convert/calibration_run.h"
#include "convert/magnitude_sparsify.h"
#include "convert/output_file.h"
#include "cpu/quant.h"
#include "cpu/thread_pool.h"
#include "gguf/gguf_file.h"
#include "gguf/gguf_writer.h"
#include "model/architecture.h"
#include "model/falcon_forward.h"
#include "model/falcon_model.h"
#include "model/llama_forward.h"
#include "model/llama_model.h"
#include "model/opt_forward.h"
#include "model/opt_model.h"
#include "sparse/activation_profile.h"
#include "sparse/predictor.h"

#if HEARTH_HAVE_PREDICTOR_FIT
#include "sparse/predictor_fit.h"
#endif

#include <hearth/session.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <mutex>
#include <new>
#include <numeric>
#include <span>
#include <system_error>
#include <thread>
#include <utility>

namespace hearth::convert {

Status checkSparsifiable(const gguf::GgufFile& file, const std::string& path)
{
    const std::string name = quotedFileName(path);
    const std::string architecture = file.getString("general.architecture").value_or("");
    const model::Architecture* known = model::findArchitecture(architecture);
    if (!known)
        return {ErrorCode::Unsupported, name + ": Hearth does not know the architecture '" + architecture + "'"};
    if (file.findTensor("blk.0.fc1.weight") || file.findTensor("blk.0.ffn_neurons.weight"))
        return {ErrorCode::InvalidArgument, name + " is sparse already: it has predictors"};
    if (known->block != model::BlockKind::Llama) {
        // Falcon and OPT: an up/down FFN, ReLU (OPT, ReluFalcon) or GELU (Falcon).
        if (file.findTensor("blk.0.ffn_down_t.weight"))
            return {ErrorCode::InvalidArgument, name + " is sparse already"};
        if (known->block == model::BlockKind::Falcon) {
            const auto activation = model::falconActivation(file);
            if (!activation)
                return activation.status();
            if (*activation != model::DenseActivation::Relu)
                return {ErrorCode::Unsupported, name + " has a GELU FFN; Hearth makes ReLU models (with fitted "
                                                       "predictors) and SwiGLU models (with magnitude thresholds) sparse"};
        }
        const gguf::TensorInfo* up = file.findTensor("blk.0.ffn_up.weight");
        return up ? checkNeuronType(name, up->type) : Status();
    }
    auto hp = model::HyperParams::fromGguf(file);
    if (!hp)
        return hp.status();
    if (hp->mixtureOfExperts())
        return {ErrorCode::Unsupported, name + " is a mixture of experts, whose routing already chooses what runs"};
    if (file.getString("hearth.sparse.layout") || file.findTensor("blk.0.ffn_down_t.weight"))
        return {ErrorCode::InvalidArgument, name + " is sparse already"};
    // Predictors read the gate rows by neuron; magnitude sparsity reads the gate densely and the
    // up and down rows by neuron.
    const gguf::TensorInfo* byNeuron = file.findTensor(hp->ffnActivation == model::FfnActivation::SwiGlu
                                                           ? "blk.0.ffn_up.weight"
                                                           : "blk.0.ffn_gate.weight");
    switch (hp->ffnActivation) {
    case model::FfnActivation::ReGlu:
    case model::FfnActivation::DRelu:
    case model::FfnActivation::Relu2:
    case model::FfnActivation::SwiGlu:
        return byNeuron ? checkNeuronType(name, byNeuron->type) : Status();
    case model::FfnActivation::GeGlu:
    case model::FfnActivation::SwiGluOai: break;
    }
    return {ErrorCode::Unsupported,
            name + " has a " + std::string(model::ffnActivationName(hp->ffnActivation))
                + " FFN; Hearth makes ReLU models (with fitted predictors) and SwiGLU models (with "
                  "magnitude thresholds) sparse"};
}

#if HEARTH_HAVE_PREDICTOR_FIT

namespace {

// Progress: recording, fitting, writing, then checking the result.
constexpr float kRecorded = 0.35f;
constexpr float kFitted = 0.65f;
constexpr float kWritten = 0.8f;

// The FFN matrices' type and shape, the same in every layer, and the form of the sparse file.
struct Layout {
    DType type = DType::F32;
    std::int64_t nEmbd = 0;
    std::int64_t nFf = 0;
    bool gated = true; // llama-block: a neuron is a gate, an up and a down row; falcon/opt: up and down

    // The gateless families (falcon, opt) normalize the FFN input with a LayerNorm: their
    // predictors read that input and add a bias (sparse/predictor.h).
    [[nodiscard]] bool affine() const { return !gated; }

    // The input tensor whose place the layer's fused neurons and predictor take.
    [[nodiscard]] const char* firstRows() const { return gated ? "ffn_gate.weight" : "ffn_up.weight"; }
    [[nodiscard]] std::int64_t rowsPerNeuron() const { return gated ? 3 : 2; }
};

// Where one layer's neurons take their pre-activation from: @p rows (the gate, or the up rows
// where there is no gate) times @p scale (llama's FFN norm: its predictor reads the residual,
// and RMSNorm's positive divisor keeps every sign) plus @p bias (OPT's up bias).
struct NeuronSource {
    const gguf::TensorInfo* rows = nullptr;
    const float* scale = nullptr; // [nEmbd]; null: none
    const float* bias = nullptr;  // [nFf]; null: none
};

// Checks that every layer's FFN rows can become rows of one fused tensor (one type, the same in
// every layer, that the neuron kernels read) and says where each layer's neurons come from.
Status checkFfnLayer(const std::string& name, int l, DType first, std::initializer_list<const cpu::WeightMatrix*> matrices)
{
    for (const cpu::WeightMatrix* m : matrices) {
        if (!m->data)
            return {ErrorCode::Unsupported, name + ": layer " + std::to_string(l) + " has no separate FFN matrices"};
        if (m->type != first)
            return {ErrorCode::Unsupported, name + ": layer " + std::to_string(l) + " stores its FFN matrices in different "
                                                   "types; re-quantize the file to one type first (hearth-quantize)"};
    }
    return checkNeuronType(name + ", layer " + std::to_string(l), first);
}

template <typename FamilyModel>
Result<std::vector<NeuronSource>> familySources(const FamilyModel& m, const std::string& name, Layout& layout)
{
    const auto& layers = m.weights().layers;
    layout = {layers.front().ffn.up.type, m.hyperParams().nEmbd, m.hyperParams().nFf, false};
    std::vector<NeuronSource> sources;
    for (std::size_t l = 0; l < layers.size(); ++l) {
        const model::UpDownFfn& ffn = layers[l].ffn;
        if (ffn.fusedNeurons || ffn.downTransposed || ffn.activation != model::DenseActivation::Relu)
            return Status(ErrorCode::Unsupported, name + ": layer " + std::to_string(l) + " has no dense ReLU FFN");
        HEARTH_TRY(checkFfnLayer(name, int(l), layout.type, {&ffn.up, &ffn.down}));
        sources.push_back({m.file().findTensor("blk." + std::to_string(l) + ".ffn_up.weight"), nullptr, ffn.upBias});
    }
    return sources;
}

Result<std::vector<NeuronSource>> neuronSources(const model::ArchitectureModel& known, const std::string& name,
                                                Layout& layout)
{
    switch (known.architecture().block) {
    case model::BlockKind::Falcon:
        return familySources(static_cast<const model::FalconModel&>(known), name, layout);
    case model::BlockKind::Opt:
        return familySources(static_cast<const model::OptModel&>(known), name, layout);
    case model::BlockKind::Llama: break;
    }
    const auto& llama = static_cast<const model::LlamaModel&>(known);
    const model::LlamaWeights& w = llama.weights();
    layout = {w.layers[0].gate.type, llama.hyperParams().nEmbd, llama.hyperParams().nFf, true};
    std::vector<NeuronSource> sources;
    for (std::size_t l = 0; l < w.layers.size(); ++l) {
        const model::LlamaLayerWeights& lw = w.layers[l];
        if (lw.downTransposed || !lw.ffnNorm)
            return Status(ErrorCode::Unsupported, name + ": layer " + std::to_string(l) + " has no separate FFN matrices");
        HEARTH_TRY(checkFfnLayer(name, int(l), layout.type, {&lw.gate, &lw.up, &lw.down}));
        sources.push_back({llama.file().findTensor("blk." + std::to_string(l) + ".ffn_gate.weight"), lw.ffnNorm, nullptr});
    }
    return sources;
}

// Records every layer's predictor input and firing neurons, into the training or the held-out
// samples as the window in flight says, without the window's first CalibrationWindows::skip()
// tokens.
struct Recorder {
    std::vector<sparse::LayerSamples>* target = nullptr;
    int skip = 0;
    std::int64_t nEmbd = 0;
    std::int64_t nFf = 0;

    static void observe(void* context, int layer, int n, const float* acts, const float* input)
    {
        const auto* r = static_cast<const Recorder*>(context);
        if (n > r->skip)
            (*r->target)[std::size_t(layer)].add(input + r->skip * r->nEmbd, acts + r->skip * r->nFf, n - r->skip);
    }
};

// Falcon and opt: the forward pass's FFN hook computes each layer densely and records its
// normalized input with the activations.
template <typename Forward, typename FamilyModel>
Status recordFamily(const FamilyModel& m, const CalibrationWindows& windows, const SparsifyParams& params,
                    Recorder& recorder, std::vector<sparse::LayerSamples>& training,
                    std::vector<sparse::LayerSamples>& heldOut)
{
    auto forward = Forward::create(m, windows.window, windows.window, params.threads);
    if (!forward)
        return forward.status();
    Forward& f = **forward;
    const model::HyperParams& hp = m.hyperParams();
    model::DenseFfn dense;
    HEARTH_TRY(dense.reserve(windows.window, int(hp.nFf), int(hp.nEmbd), f.threadPool().size(), false));
    f.setFfnHook([&](const model::FfnBatch& b) {
        dense.run(f.threadPool(), m.weights().layers[std::size_t(b.layer)].ffn, b.input, b.tokens, b.out);
        Recorder::observe(&recorder, b.layer, b.tokens, dense.activations(), b.input);
    });
    return runCalibration(f, hp.nVocab, windows, params, 0.0f, kRecorded,
                          [&](bool held) { recorder.target = held ? &heldOut : &training; });
}

Status record(const model::ArchitectureModel& known, const CalibrationWindows& windows, const SparsifyParams& params,
              std::vector<sparse::LayerSamples>& training, std::vector<sparse::LayerSamples>& heldOut)
{
    const std::int64_t nEmbd = training.front().nEmbd();
    Recorder recorder{nullptr, windows.skip(), nEmbd, training.front().nFf()};
    switch (known.architecture().block) {
    case model::BlockKind::Falcon:
        return recordFamily<model::FalconForward>(static_cast<const model::FalconModel&>(known), windows, params,
                                                  recorder, training, heldOut);
    case model::BlockKind::Opt:
        return recordFamily<model::OptForward>(static_cast<const model::OptModel&>(known), windows, params, recorder,
                                               training, heldOut);
    case model::BlockKind::Llama: break;
    }
    auto forward = model::LlamaForward::create(static_cast<const model::LlamaModel&>(known), windows.window,
                                               windows.window, params.threads);
    if (!forward)
        return forward.status();
    model::LlamaForward& f = **forward;
    f.setFfnMode(model::LlamaForward::FfnMode::Dense);
    f.setActivationObserver(&Recorder::observe, &recorder);
    return runCalibration(f, windows, params, 0.0f, kRecorded,
                          [&](bool held) { recorder.target = held ? &heldOut : &training; });
}

// One layer's result: its predictor and, on the held-out windows, how it does.
struct LayerFit {
    sparse::FittedPredictor predictor;
    sparse::PredictorQuality heldOut;
    std::vector<float> frequencies;  // per neuron, in the input file's order
    std::vector<std::int32_t> order; // the input's neurons by descending frequency
};

// Fits layer @p l's predictor to @p training, measures it on @p heldOut, and frees both.
Status fitLayer(const NeuronSource& source, int l, const Layout& layout, sparse::PredictorFitOptions options,
                sparse::LayerSamples& training, sparse::LayerSamples& heldOut, LayerFit& out)
{
    if (!source.rows)
        return {ErrorCode::Unsupported, "layer " + std::to_string(l) + " has no " + layout.firstRows() + " tensor"};
    std::vector<float> rows;
    try {
        rows.resize(std::size_t(layout.nEmbd * layout.nFf));
    } catch (const std::bad_alloc&) {
        return {ErrorCode::OutOfMemory, "not enough memory to fit a predictor"};
    }
    const std::size_t row = rowBytes(layout.type, layout.nEmbd);
    for (std::int64_t i = 0; i < layout.nFf; ++i) {
        float* g = rows.data() + i * layout.nEmbd;
        cpu::dequantizeRow(layout.type, source.rows->data + std::size_t(i) * row, g, layout.nEmbd);
        for (std::int64_t j = 0; source.scale && j < layout.nEmbd; ++j)
            g[j] *= source.scale[j];
    }
    options.affine = layout.affine();
    if (source.bias)
        options.bias = std::span<const float>(source.bias, std::size_t(layout.nFf));
    auto fit = sparse::fitPredictor(rows, training, options);
    if (!fit)
        return {fit.code(), "layer " + std::to_string(l) + ": " + fit.message()};
    out.predictor = std::move(fit).value();
    out.heldOut = sparse::measurePredictor(out.predictor, heldOut);

    // Frequencies over every recorded token; neurons then go by descending frequency.
    const std::vector<std::uint64_t> counts = training.firingCounts();
    const std::vector<std::uint64_t> heldCounts = heldOut.firingCounts();
    const double total = double(training.tokens() + heldOut.tokens());
    out.frequencies.resize(counts.size());
    for (std::size_t i = 0; i < counts.size(); ++i)
        out.frequencies[i] = float(double(counts[i] + heldCounts[i]) / total);
    out.order.resize(counts.size());
    std::iota(out.order.begin(), out.order.end(), 0);
    std::stable_sort(out.order.begin(), out.order.end(), [&out](std::int32_t a, std::int32_t b) {
        return out.frequencies[std::size_t(a)] > out.frequencies[std::size_t(b)];
    });
    training = sparse::LayerSamples(layout.nEmbd, layout.nFf);
    heldOut = sparse::LayerSamples(layout.nEmbd, layout.nFf);
    return {};
}

// Every layer's fit, one layer per thread at a time (a fit is single-threaded and independent
// of the others, so the bytes do not depend on the thread count). This thread only waits,
// reports progress and passes a cancel on.
Status fitLayers(const std::vector<NeuronSource>& sources, const Layout& layout, sparse::PredictorFitOptions options,
                 const SparsifyParams& params, std::vector<sparse::LayerSamples>& training,
                 std::vector<sparse::LayerSamples>& heldOut, std::vector<LayerFit>& fits)
{
    const int layers = int(fits.size());
    std::atomic<bool> stop{false};
    std::atomic<int> next{0};
    std::mutex mutex;
    std::condition_variable changed;
    int done = 0;
    Status failure;
    options.cancel = &stop;
    const auto work = [&]() {
        for (int l = next++; l < layers && !stop.load(); l = next++) {
            const Status s = fitLayer(sources[std::size_t(l)], l, layout, options, training[std::size_t(l)],
                                      heldOut[std::size_t(l)], fits[std::size_t(l)]);
            const std::lock_guard<std::mutex> lock(mutex);
            if (!s.ok() && failure.ok()) {
                failure = s;
                stop.store(true);
            }
            ++done;
            changed.notify_one();
        }
    };
    const int threads = std::clamp(params.threads > 0 ? params.threads : cpu::ThreadPool::physicalCoreCount(), 1, layers);
    std::vector<std::thread> workers;
    try {
        for (int t = 0; t < threads; ++t)
            workers.emplace_back(work);
    } catch (const std::system_error&) {
        if (workers.empty())
            work(); // no thread to be had: this one does it all
    }
    bool cancelledHere = false;
    {
        std::unique_lock<std::mutex> lock(mutex);
        int reported = -1;
        while (done < layers && !stop.load()) {
            if (done != reported) {
                reported = done;
                lock.unlock();
                const bool goOn = reportSparsifyProgress(params, kRecorded + (kFitted - kRecorded) * float(reported) / float(layers));
                lock.lock();
                if (!goOn) {
                    cancelledHere = true;
                    stop.store(true);
                    break;
                }
            }
            changed.wait_for(lock, std::chrono::milliseconds(200));
        }
    }
    for (std::thread& w : workers)
        w.join();
    if (cancelledHere)
        return sparsifyCancelled();
    HEARTH_TRY(failure);
    return reportSparsifyProgress(params, kFitted) ? Status() : sparsifyCancelled();
}

// Predictors are read in full for every token, so their bytes count as much as the neurons
// they save: Q8_0 (half of F16's bytes) where the rows are whole blocks, else F16.
DType predictorType(std::int64_t nEmbd, std::int64_t hidden)
{
    return nEmbd % 32 == 0 && hidden % 32 == 0 ? DType::Q8_0 : DType::F16;
}

// "blk.N.rest" as {N, rest}; {-1, ""} for tensors outside the layers.
std::pair<int, std::string> layerTensor(const std::string& name)
{
    if (name.rfind("blk.", 0) != 0)
        return {-1, ""};
    const std::size_t dot = name.find('.', 4);
    return {std::atoi(name.substr(4, dot - 4).c_str()), dot == std::string::npos ? "" : name.substr(dot + 1)};
}

// The model's weight bytes a decoded token reads, dense and with the fitted predictors: every
// matrix but the embeddings (one row a token); of the FFN, the gate and up rows of every
// predicted neuron and the down row only where it fired.
double expectedSpeedup(const gguf::GgufFile& in, const std::vector<LayerFit>& fits)
{
    const bool tied = !in.findTensor("output.weight");
    double dense = 0;
    double sparse = 0;
    for (const gguf::TensorInfo& t : in.tensors()) {
        if (t.shape.size() < 2 || t.name == "position_embd.weight" || (t.name == "token_embd.weight" && !tied))
            continue;
        const auto [layer, kind] = layerTensor(t.name);
        const double bytes = double(t.byteSize);
        dense += bytes;
        if (layer < 0 || layer >= int(fits.size())) {
            sparse += bytes;
            continue;
        }
        const sparse::PredictorQuality& q = fits[std::size_t(layer)].heldOut;
        if (kind == "ffn_gate.weight" || kind == "ffn_up.weight")
            sparse += bytes * q.predictedShare;
        else if (kind == "ffn_down.weight")
            sparse += bytes * q.firedShare * q.recall;
        else
            sparse += bytes;
    }
    for (const LayerFit& fit : fits) {
        const sparse::FittedPredictor& p = fit.predictor;
        const DType type = predictorType(p.nEmbd, p.hidden);
        sparse += double(rowBytes(type, p.nEmbd)) * double(p.hidden) + double(rowBytes(type, p.hidden)) * double(p.nFf);
    }
    return sparse > 0 ? dense / sparse : 0.0;
}

// blk.N.ffn_neurons: neuron order[k]'s gate row (gated layouts), up row and (transposed) down
// row as row k.
Result<std::vector<std::byte>> fusedNeurons(const gguf::GgufFile& in, int layer, const Layout& s,
                                            const std::vector<std::int32_t>& order)
{
    const std::string p = "blk." + std::to_string(layer) + ".";
    std::vector<const gguf::TensorInfo*> rows;
    if (s.gated)
        rows.push_back(in.findTensor(p + "ffn_gate.weight"));
    rows.push_back(in.findTensor(p + "ffn_up.weight"));
    const gguf::TensorInfo* down = in.findTensor(p + "ffn_down.weight");
    const std::size_t row = rowBytes(s.type, s.nEmbd);
    const std::size_t stride = std::size_t(s.rowsPerNeuron()) * row;
    std::vector<std::byte> out(stride * std::size_t(s.nFf));
    for (std::int64_t k = 0; k < s.nFf; ++k) {
        const auto i = std::size_t(order[std::size_t(k)]);
        for (std::size_t r = 0; r < rows.size(); ++r)
            std::memcpy(out.data() + stride * std::size_t(k) + r * row, rows[r]->data + i * row, row);
    }
    HEARTH_TRY(writeTransposed(*down, s.type, s.nEmbd, s.nFf, order, out.data() + rows.size() * row, stride));
    return out;
}

// @p rows rows of @p cols floats in @p type.
std::vector<std::byte> encodeRows(DType type, const float* values, std::int64_t rows, std::int64_t cols)
{
    const std::size_t row = rowBytes(type, cols);
    std::vector<std::byte> out(row * std::size_t(rows));
    for (std::int64_t r = 0; r < rows; ++r)
        cpu::quantizeRow(type, values + r * cols, out.data() + std::size_t(r) * row, cols);
    return out;
}

// @p values[order[k]] as element k, in F32.
std::vector<std::byte> reorderedFloats(const float* values, const std::vector<std::int32_t>& order)
{
    std::vector<std::byte> out(order.size() * sizeof(float));
    for (std::size_t k = 0; k < order.size(); ++k)
        std::memcpy(out.data() + k * sizeof(float), values + order[k], sizeof(float));
    return out;
}

Status writeSparseFile(const gguf::GgufFile& in, const std::string& path, const Layout& s, double recall,
                       const std::vector<NeuronSource>& sources, const std::vector<LayerFit>& fits,
                       const SparsifyParams& params)
{
    gguf::GgufWriter writer(gguf::Magic::Gguf, in.alignment());
    for (const std::string& key : in.metadataKeys()) {
        if (key.rfind("split.", 0) != 0)
            writer.setValue(key, *in.find(key));
    }
    writer.setFloat32("powerinfer.sparse_threshold", sparse::kFittedThreshold);
    writer.setString("hearth.sparse.layout", "neuron-fused");
    writer.setString("hearth.sparse.neuron_order", "frequency");
    writer.setString("hearth.sparse.predictor", "fitted");
    writer.setString(sparse::kPredictorActivationKey, "identity"); // fc2 · (fc1 · x): predictor_fit.h
    if (s.affine())
        writer.setString(sparse::kPredictorInputKey, "ffn_input");
    writer.setFloat32("hearth.sparse.recall", float(recall));

    // The input's tensors in its order, each layer's FFN matrices replaced where the first of
    // them was, OPT's up bias in the neurons' order.
    enum class What { Copy, Neurons, UpBias };
    struct Item {
        What what = What::Copy;
        const gguf::TensorInfo* copy = nullptr;
        int layer = -1;
    };
    std::vector<Item> items;
    for (const gguf::TensorInfo& t : in.tensors()) {
        const auto [layer, kind] = layerTensor(t.name);
        const std::string p = "blk." + std::to_string(layer) + ".";
        if (kind == s.firstRows()) {
            const std::int64_t hidden = fits[std::size_t(layer)].predictor.hidden;
            writer.addTensor(p + "ffn_neurons.weight", s.type, {s.rowsPerNeuron() * s.nEmbd, s.nFf});
            writer.addTensor(p + "fc1.weight", predictorType(s.nEmbd, hidden), {s.nEmbd, hidden});
            writer.addTensor(p + "fc2.weight", predictorType(s.nEmbd, hidden), {hidden, s.nFf});
            if (s.affine())
                writer.addTensor(p + "fc2.bias", DType::F32, {s.nFf});
            items.push_back({What::Neurons, nullptr, layer});
        } else if (kind == "ffn_up.bias" && layer < int(sources.size()) && sources[std::size_t(layer)].bias) {
            writer.addTensor(t.name, DType::F32, {s.nFf});
            items.push_back({What::UpBias, nullptr, layer});
        } else if (kind != "ffn_up.weight" && kind != "ffn_down.weight") {
            writer.addTensor(t.name, t.type, t.shape);
            items.push_back({What::Copy, &t, -1});
        }
    }
    HEARTH_TRY(writer.begin(path));
    for (std::size_t k = 0; k < items.size(); ++k) {
        const Item& item = items[k];
        if (item.what == What::Copy) {
            HEARTH_TRY(writer.writeTensorData(std::span<const std::byte>(item.copy->data, item.copy->byteSize)));
        } else if (item.what == What::UpBias) {
            const LayerFit& fit = fits[std::size_t(item.layer)];
            HEARTH_TRY(writer.writeTensorData(reorderedFloats(sources[std::size_t(item.layer)].bias, fit.order)));
        } else {
            const std::vector<std::int32_t>& order = fits[std::size_t(item.layer)].order;
            const sparse::FittedPredictor& p = fits[std::size_t(item.layer)].predictor;
            auto neurons = fusedNeurons(in, item.layer, s, order);
            if (!neurons)
                return neurons.status();
            HEARTH_TRY(writer.writeTensorData(*neurons));
            const DType type = predictorType(s.nEmbd, p.hidden);
            HEARTH_TRY(writer.writeTensorData(encodeRows(type, p.fc1.data(), p.hidden, s.nEmbd)));
            // fc2's rows and the bias follow the neurons.
            std::vector<float> fc2(p.fc2.size());
            for (std::size_t r = 0; r < order.size(); ++r)
                std::copy_n(p.fc2.data() + std::size_t(order[r]) * std::size_t(p.hidden), p.hidden,
                            fc2.data() + r * std::size_t(p.hidden));
            HEARTH_TRY(writer.writeTensorData(encodeRows(type, fc2.data(), s.nFf, p.hidden)));
            if (s.affine())
                HEARTH_TRY(writer.writeTensorData(reorderedFloats(p.bias.data(), order)));
        }
        if (!reportSparsifyProgress(params, kFitted + (kWritten - kFitted) * float(k + 1) / float(items.size())))
            return sparsifyCancelled();
    }
    return writer.finish();
}

Result<SparsifyReport> sparsifyWithPredictors(const SparsifyParams& params, std::shared_ptr<const Model> loaded,
                                              const std::string& partial, const std::string& partialStats)
{
    const auto start = std::chrono::steady_clock::now();
    const model::ArchitectureModel& known = *model::ArchitectureModel::of(*loaded);
    Layout layout;
    auto sources = neuronSources(known, quotedFileName(params.input), layout);
    if (!sources)
        return sources.status();
    const model::HyperParams& hp = known.hyperParams();
    auto windows = CalibrationWindows::cut(*loaded, hp.nCtxTrain, params);
    if (!windows)
        return windows.status();

    // 1. Record.
    std::vector<sparse::LayerSamples> training(std::size_t(hp.nLayer), sparse::LayerSamples(hp.nEmbd, hp.nFf));
    std::vector<sparse::LayerSamples> heldOut = training;
    HEARTH_TRY(record(known, *windows, params, training, heldOut));

    // 2. Fit.
    const auto fitStart = std::chrono::steady_clock::now();
    const int rank = params.predictorRank > 0 ? params.predictorRank : int(std::max<std::int64_t>(16, hp.nEmbd / 8));
    std::vector<LayerFit> fits(std::size_t(hp.nLayer));
    const double recall = params.recall > 0.0 ? params.recall : 0.99;
    HEARTH_TRY(fitLayers(*sources, layout, {rank, recall}, params, training, heldOut, fits));
    const double fitSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - fitStart).count();

    // 3. Write the model and its statistics.
    std::uint64_t needed = known.file().bytes().size() + (std::uint64_t(1) << 20);
    for (const LayerFit& fit : fits)
        needed += 2 * (fit.predictor.fc1.size() + fit.predictor.fc2.size()) + 8 * std::uint64_t(hp.nFf);
    HEARTH_TRY(checkFreeSpace(params.output, needed));
    HEARTH_TRY(writeSparseFile(known.file(), partial, layout, recall, *sources, fits, params));
    std::vector<std::vector<float>> frequencies(fits.size());
    for (std::size_t l = 0; l < fits.size(); ++l) {
        for (const std::int32_t i : fits[l].order)
            frequencies[l].push_back(fits[l].frequencies[std::size_t(i)]);
    }
    HEARTH_TRY(sparse::writeStatsFile(partialStats, frequencies, std::uint64_t(windows->tokenCount())));

    SparsifyReport result;
    result.method = SparsifyMethod::Predictors;
    result.output = params.output;
    result.statisticsOutput = sparse::defaultStatsPath(params.output);
    for (const LayerFit& fit : fits)
        result.layers.push_back({fit.heldOut.recall, fit.heldOut.precision, fit.heldOut.predictedShare, fit.heldOut.firedShare});
    result.heldOutTokens = windows->heldOutTokenCount();
    result.calibrationTokens = windows->tokenCount() - result.heldOutTokens;
    result.predictorHidden = int(fits.front().predictor.hidden);
    result.expectedSpeedup = expectedSpeedup(known.file(), fits);
    result.fitSeconds = fitSeconds;
    loaded.reset(); // the input's mapping is no longer needed

    // 4. Check it: it loads and answers, and the held-out text reads about as well as before.
    HEARTH_TRY(checkAndCommit(params, *windows, partial, partialStats, kWritten, result));
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
}


} // namespace

#endif

namespace {

Result<SparsifyReport> sparsify(const SparsifyParams& params, const std::string& partial, const std::string& partialStats)
{
    auto loaded = Model::load(params.input);
    if (!loaded)
        return loaded.status();
    const model::ArchitectureModel* known = model::ArchitectureModel::of(**loaded);
    if (!known)
        return Status(ErrorCode::Internal, "the loaded model has no architecture");
    HEARTH_TRY(checkSparsifiable(known->file(), params.input));
    if (known->architecture().block == model::BlockKind::Llama
        && known->hyperParams().ffnActivation == model::FfnActivation::SwiGlu)
        return sparsifyByMagnitude(params, std::move(loaded).value(), partial, partialStats);
#if HEARTH_HAVE_PREDICTOR_FIT
    return sparsifyWithPredictors(params, std::move(loaded).value(), partial, partialStats);
#else
    (void)partialStats;
    return Status(ErrorCode::Unsupported, "this build of Hearth cannot fit predictors (it was built without Eigen)");
#endif
}

} // namespace

Result<SparsifyReport> sparsifyModelFile(const SparsifyParams& params)
{
    if (params.input.empty() || params.output.empty())
        return Status(ErrorCode::InvalidArgument, "an input and an output file are needed");
    std::error_code ec;
    if (std::filesystem::equivalent(params.input, params.output, ec))
        return Status(ErrorCode::InvalidArgument, "the output must not be the input file");
    if (!(params.recall >= 0.0 && params.recall <= 1.0))
        return Status(ErrorCode::InvalidArgument, "the recall must be in (0, 1]");
    if (!(params.targetSparsity >= 0.0 && params.targetSparsity < 1.0))
        return Status(ErrorCode::InvalidArgument, "the target sparsity must be in [0, 1)");
    if (!(params.perplexityBound >= 0.0))
        return Status(ErrorCode::InvalidArgument, "the perplexity bound must not be negative");
    const std::string partial = partialPath(params.output);
    const std::string partialStats = partialPath(sparse::defaultStatsPath(params.output));
    auto result = sparsify(params, partial, partialStats);
    if (!result) {
        discardFile(partial);
        discardFile(partialStats);
    }
    return result;
}

} // namespace hearth::convert
