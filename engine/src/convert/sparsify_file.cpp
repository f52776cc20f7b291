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
#include "model/llama_forward.h"
#include "model/llama_model.h"
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
#include <mutex>
#include <new>
#include <numeric>
#include <span>
#include <system_error>
#include <thread>

namespace hearth::convert {

Status checkSparsifiable(const gguf::GgufFile& file, const std::string& path)
{
    const std::string name = quotedFileName(path);
    const std::string architecture = file.getString("general.architecture").value_or("");
    const model::Architecture* known = model::findArchitecture(architecture);
    if (!known || known->block != model::BlockKind::Llama)
        return {ErrorCode::Unsupported, name + ": predictors are fitted to the llama-block families (llama, bamboo, ...), not '"
                                            + architecture + "'"};
    if (file.findTensor("blk.0.fc1.weight") || file.findTensor("blk.0.ffn_neurons.weight"))
        return {ErrorCode::InvalidArgument, name + " is sparse already: it has predictors"};
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
    case model::FfnActivation::GeGlu: break;
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

// The FFN rows of every layer become rows of one fused tensor, which needs one type, the same in
// every layer, that the neuron kernels read.
Status checkFfnTypes(const model::LlamaModel& m, const std::string& name)
{
    const model::LlamaWeights& w = m.weights();
    for (std::size_t l = 0; l < w.layers.size(); ++l) {
        const model::LlamaLayerWeights& lw = w.layers[l];
        if (!lw.gate.data || !lw.up.data || !lw.down.data || lw.downTransposed || !lw.ffnNorm)
            return {ErrorCode::Unsupported, name + ": layer " + std::to_string(l) + " has no separate gate, up and down matrices"};
        const DType type = lw.gate.type;
        if (lw.up.type != type || lw.down.type != type || type != w.layers[0].gate.type)
            return {ErrorCode::Unsupported, name + ": layer " + std::to_string(l) + " stores its FFN matrices in different "
                                                   "types; re-quantize the file to one type first (hearth-quantize)"};
        HEARTH_TRY(checkNeuronType(name + ", layer " + std::to_string(l), type));
    }
    return {};
}

// Records every layer's predictor input and firing neurons, into the training or the held-out
// samples as the window in flight says, without the window's first CalibrationWindows::skip()
// tokens.
struct Recorder {
    std::vector<sparse::LayerSamples>* target = nullptr;
    int skip = 0;
    std::int64_t nEmbd = 0;
    std::int64_t nFf = 0;

    static void observe(void* context, int layer, int n, const float* acts, const float* residual)
    {
        const auto* r = static_cast<const Recorder*>(context);
        if (n > r->skip)
            (*r->target)[std::size_t(layer)].add(residual + r->skip * r->nEmbd, acts + r->skip * r->nFf, n - r->skip);
    }
};

// The FFN matrices' type and shape, the same in every layer.
struct Layout {
    DType type;
    std::int64_t nEmbd;
    std::int64_t nFf;
};

// One layer's result: its predictor and, on the held-out windows, how it does.
struct LayerFit {
    sparse::FittedPredictor predictor;
    sparse::PredictorQuality heldOut;
    std::vector<float> frequencies;  // per neuron, in the input file's order
    std::vector<std::int32_t> order; // the input's neurons by descending frequency
};

// Fits layer @p l's predictor to @p training, measures it on @p heldOut, and frees both.
Status fitLayer(const model::LlamaModel& llama, int l, const Layout& layout, const sparse::PredictorFitOptions& options,
                sparse::LayerSamples& training, sparse::LayerSamples& heldOut, LayerFit& out)
{
    const gguf::TensorInfo* gateTensor = llama.file().findTensor("blk." + std::to_string(l) + ".ffn_gate.weight");
    if (!gateTensor)
        return {ErrorCode::Unsupported, "layer " + std::to_string(l) + " has no ffn_gate tensor"};
    const float* norm = llama.weights().layers[std::size_t(l)].ffnNorm;
    std::vector<float> gate;
    try {
        gate.resize(std::size_t(layout.nEmbd * layout.nFf));
    } catch (const std::bad_alloc&) {
        return {ErrorCode::OutOfMemory, "not enough memory to fit a predictor"};
    }
    const std::size_t row = rowBytes(layout.type, layout.nEmbd);
    for (std::int64_t i = 0; i < layout.nFf; ++i) {
        float* g = gate.data() + i * layout.nEmbd;
        cpu::dequantizeRow(layout.type, gateTensor->data + std::size_t(i) * row, g, layout.nEmbd);
        for (std::int64_t j = 0; j < layout.nEmbd; ++j)
            g[j] *= norm[j];
    }
    auto fit = sparse::fitPredictor(gate, training, options);
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
Status fitLayers(const model::LlamaModel& llama, const Layout& layout, sparse::PredictorFitOptions options,
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
            const Status s = fitLayer(llama, l, layout, options, training[std::size_t(l)], heldOut[std::size_t(l)],
                                      fits[std::size_t(l)]);
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

// The model's weight bytes a decoded token reads, dense and with the fitted predictors.
double expectedSpeedup(const model::LlamaWeights& w, const std::vector<LayerFit>& fits)
{
    double dense = matrixBytes(w.output);
    double sparse = dense;
    for (std::size_t l = 0; l < w.layers.size(); ++l) {
        const model::LlamaLayerWeights& lw = w.layers[l];
        const double attention = matrixBytes(lw.wq) + matrixBytes(lw.wk) + matrixBytes(lw.wv) + matrixBytes(lw.wo);
        const double ffn = matrixBytes(lw.gate) + matrixBytes(lw.up) + matrixBytes(lw.down);
        const sparse::PredictorQuality& q = fits[l].heldOut;
        const sparse::FittedPredictor& p = fits[l].predictor;
        // Gate and up rows of every predicted neuron; the down row only where it fired.
        const double rows = 2.0 / 3.0 * q.predictedShare + 1.0 / 3.0 * q.firedShare * q.recall;
        dense += attention + ffn;
        const DType type = predictorType(p.nEmbd, p.hidden);
        const double predictor = double(rowBytes(type, p.nEmbd)) * double(p.hidden) + double(rowBytes(type, p.hidden)) * double(p.nFf);
        sparse += attention + ffn * rows + predictor;
    }
    return sparse > 0 ? dense / sparse : 0.0;
}

// blk.N.ffn_neurons: neuron order[k]'s gate row, up row and (transposed) down row as row k.
Result<std::vector<std::byte>> fusedNeurons(const gguf::GgufFile& in, int layer, const Layout& s,
                                            const std::vector<std::int32_t>& order)
{
    const std::string p = "blk." + std::to_string(layer) + ".";
    const gguf::TensorInfo* gate = in.findTensor(p + "ffn_gate.weight");
    const gguf::TensorInfo* up = in.findTensor(p + "ffn_up.weight");
    const gguf::TensorInfo* down = in.findTensor(p + "ffn_down.weight");
    const std::size_t row = rowBytes(s.type, s.nEmbd);
    std::vector<std::byte> out(3 * row * std::size_t(s.nFf));
    for (std::int64_t k = 0; k < s.nFf; ++k) {
        const auto i = std::size_t(order[std::size_t(k)]);
        std::byte* target = out.data() + 3 * row * std::size_t(k);
        std::memcpy(target, gate->data + i * row, row);
        std::memcpy(target + row, up->data + i * row, row);
    }
    HEARTH_TRY(writeTransposed(*down, s.type, s.nEmbd, s.nFf, order, out.data() + 2 * row, 3 * row));
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

Status writeSparseFile(const gguf::GgufFile& in, const std::string& path, const Layout& s, double recall,
                       const std::vector<LayerFit>& fits, const SparsifyParams& params)
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
    writer.setFloat32("hearth.sparse.recall", float(recall));

    // The input's tensors in its order, each layer's FFN replaced where its gate was.
    struct Item {
        const gguf::TensorInfo* copy = nullptr;
        int layer = -1; // >= 0: the layer's fused neurons and predictor
    };
    std::vector<Item> items;
    for (const gguf::TensorInfo& t : in.tensors()) {
        int layer = -1;
        std::string kind;
        if (t.name.rfind("blk.", 0) == 0) {
            const std::size_t dot = t.name.find('.', 4);
            layer = std::atoi(t.name.substr(4, dot - 4).c_str());
            kind = dot == std::string::npos ? "" : t.name.substr(dot + 1);
        }
        if (kind == "ffn_gate.weight") {
            const std::string p = "blk." + std::to_string(layer) + ".";
            const std::int64_t hidden = fits[std::size_t(layer)].predictor.hidden;
            writer.addTensor(p + "ffn_neurons.weight", s.type, {3 * s.nEmbd, s.nFf});
            writer.addTensor(p + "fc1.weight", predictorType(s.nEmbd, hidden), {s.nEmbd, hidden});
            writer.addTensor(p + "fc2.weight", predictorType(s.nEmbd, hidden), {hidden, s.nFf});
            items.push_back({nullptr, layer});
        } else if (kind != "ffn_up.weight" && kind != "ffn_down.weight") {
            writer.addTensor(t.name, t.type, t.shape);
            items.push_back({&t, -1});
        }
    }
    HEARTH_TRY(writer.begin(path));
    for (std::size_t k = 0; k < items.size(); ++k) {
        const Item& item = items[k];
        if (item.copy) {
            HEARTH_TRY(writer.writeTensorData(std::span<const std::byte>(item.copy->data, item.copy->byteSize)));
        } else {
            const std::vector<std::int32_t>& order = fits[std::size_t(item.layer)].order;
            const sparse::FittedPredictor& p = fits[std::size_t(item.layer)].predictor;
            auto neurons = fusedNeurons(in, item.layer, s, order);
            if (!neurons)
                return neurons.status();
            HEARTH_TRY(writer.writeTensorData(*neurons));
            const DType type = predictorType(s.nEmbd, p.hidden);
            HEARTH_TRY(writer.writeTensorData(encodeRows(type, p.fc1.data(), p.hidden, s.nEmbd)));
            // fc2's rows follow the neurons.
            std::vector<float> fc2(p.fc2.size());
            for (std::size_t r = 0; r < order.size(); ++r)
                std::copy_n(p.fc2.data() + std::size_t(order[r]) * std::size_t(p.hidden), p.hidden,
                            fc2.data() + r * std::size_t(p.hidden));
            HEARTH_TRY(writer.writeTensorData(encodeRows(type, fc2.data(), s.nFf, p.hidden)));
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
    const auto& llama = static_cast<const model::LlamaModel&>(*model::ArchitectureModel::of(*loaded));
    HEARTH_TRY(checkFfnTypes(llama, quotedFileName(params.input)));
    const model::HyperParams& hp = llama.hyperParams();
    const Layout layout{llama.weights().layers[0].gate.type, hp.nEmbd, hp.nFf};
    auto windows = CalibrationWindows::cut(llama, params);
    if (!windows)
        return windows.status();

    // 1. Record.
    std::vector<sparse::LayerSamples> training(std::size_t(hp.nLayer), sparse::LayerSamples(hp.nEmbd, hp.nFf));
    std::vector<sparse::LayerSamples> heldOut = training;
    {
        auto forward = model::LlamaForward::create(llama, windows->window, windows->window, params.threads);
        if (!forward)
            return forward.status();
        model::LlamaForward& f = **forward;
        f.setFfnMode(model::LlamaForward::FfnMode::Dense);
        Recorder recorder{nullptr, windows->skip(), hp.nEmbd, hp.nFf};
        f.setActivationObserver(&Recorder::observe, &recorder);
        HEARTH_TRY(runCalibration(f, *windows, params, 0.0f, kRecorded,
                                  [&](bool held) { recorder.target = held ? &heldOut : &training; }));
    }

    // 2. Fit.
    const auto fitStart = std::chrono::steady_clock::now();
    const int rank = params.predictorRank > 0 ? params.predictorRank : int(std::max<std::int64_t>(16, hp.nEmbd / 8));
    std::vector<LayerFit> fits(std::size_t(hp.nLayer));
    const double recall = params.recall > 0.0 ? params.recall : 0.99;
    HEARTH_TRY(fitLayers(llama, layout, {rank, recall}, params, training, heldOut, fits));
    const double fitSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - fitStart).count();

    // 3. Write the model and its statistics.
    std::uint64_t needed = llama.file().bytes().size() + (std::uint64_t(1) << 20);
    for (const LayerFit& fit : fits)
        needed += 2 * (fit.predictor.fc1.size() + fit.predictor.fc2.size()) + 4 * std::uint64_t(hp.nFf);
    HEARTH_TRY(checkFreeSpace(params.output, needed));
    HEARTH_TRY(writeSparseFile(llama.file(), partial, layout, recall, fits, params));
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
    result.expectedSpeedup = expectedSpeedup(llama.weights(), fits);
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
    if (static_cast<const model::LlamaModel&>(*known).hyperParams().ffnActivation == model::FfnActivation::SwiGlu)
        return sparsifyByMagnitude(params, std::move(loaded).value(), partial);
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
