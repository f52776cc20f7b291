// SPDX-License-Identifier: MIT
#include "convert/magnitude_sparsify.h"

#include "convert/calibration_run.h"
#include "convert/output_file.h"
#include "cpu/ops.h"
#include "cpu/quant.h"
#include "gguf/gguf_file.h"
#include "gguf/gguf_writer.h"
#include "model/llama_forward.h"
#include "model/llama_model.h"
#include "sparse/activation_profile.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <initializer_list>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <span>
#include <new>

namespace hearth::convert {

namespace {

float fromBits(std::uint32_t bits)
{
    return std::bit_cast<float>(bits);
}

} // namespace

float MagnitudeHistogram::quantile(double share) const
{
    if (m_total == 0 || share <= 0.0)
        return 0.0f;
    const double target = std::min(share, 1.0) * double(m_total);
    double below = 0.0;
    for (std::size_t b = 0; b < kBins; ++b) {
        const double here = double(m_counts[b]);
        if (below + here >= target && here > 0.0) {
            const float lower = fromBits(std::uint32_t(b) << kShift);
            const float upper = fromBits(std::uint32_t(b + 1) << kShift);
            return lower + (upper - lower) * float((target - below) / here);
        }
        below += here;
    }
    return fromBits(0x7f800000u); // every value below infinity
}

double MagnitudeHistogram::shareBelow(float value) const
{
    if (m_total == 0 || !(value > 0.0f))
        return 0.0;
    const std::uint32_t bits = std::bit_cast<std::uint32_t>(value) & 0x7fffffffu;
    const std::size_t bin = std::min<std::size_t>(bits >> kShift, kBins - 1);
    double below = 0.0;
    for (std::size_t b = 0; b < bin; ++b)
        below += double(m_counts[b]);
    const float lower = fromBits(std::uint32_t(bin) << kShift);
    const float upper = fromBits(std::uint32_t(bin + 1) << kShift);
    const double within = upper > lower ? double((value - lower) / (upper - lower)) : 0.0;
    return (below + double(m_counts[bin]) * std::clamp(within, 0.0, 1.0)) / double(m_total);
}

namespace {

// Progress: recording, writing, then checking the result.
constexpr float kRecorded = 0.6f;
constexpr float kWritten = 0.8f;

// The gate is read densely, by any kernel; up and down rows by the neuron kernels, which need
// one type they read for both.
Status checkMagnitudeFfn(const model::LlamaModel& m, const std::string& name)
{
    const model::LlamaWeights& w = m.weights();
    for (std::size_t l = 0; l < w.layers.size(); ++l) {
        const model::LlamaLayerWeights& lw = w.layers[l];
        const std::string layer = name + ", layer " + std::to_string(l);
        if (!lw.gate.data || !lw.up.data || !lw.down.data || lw.downTransposed || !lw.ffnNorm)
            return {ErrorCode::Unsupported, layer + " has no separate gate, up and down matrices"};
        HEARTH_TRY(checkNeuronType(layer, lw.up.type));
    }
    return {};
}

// A neuron's score is |silu(gate) * up| times the norm of its down column over the residual's
// root mean square: about the share of the stream the neuron adds. Its screen is the same with
// its mean |up| in place of up, known before its up row is read.
struct ScoreRecorder {
    // What the first pass gathers (training windows only).
    struct Scores {
        MagnitudeHistogram scores;
        std::vector<double> upSums; // per neuron
    };
    // What the second pass gathers, with the score threshold known.
    struct Screens {
        MagnitudeHistogram ofKept; // the screens of the neurons whose score passes
        MagnitudeHistogram all;
        MagnitudeHistogram scores;
    };
    std::vector<Scores>* scores = nullptr;   // first pass; null: a held-out window
    std::vector<Screens>* screens = nullptr; // second pass
    // Second pass, every window: how often each neuron's score passes ([layer][neuron]), the
    // frequencies the statistics file holds.
    std::vector<std::vector<std::uint32_t>>* kept = nullptr;
    const std::vector<std::vector<float>>* downNorms = nullptr; // [layer][neuron]
    const std::vector<std::vector<float>>* meanUp = nullptr;    // [layer][neuron], second pass
    const std::vector<float>* thresholds = nullptr;             // [layer], second pass
    int skip = 0;
    std::int64_t nEmbd = 0;
    std::int64_t nFf = 0;

    static void observe(void* context, int layer, int n, const float* gate, const float* up, const float* residual)
    {
        const auto* r = static_cast<const ScoreRecorder*>(context);
        const auto L = std::size_t(layer);
        const float* norm = (*r->downNorms)[L].data();
        for (int t = r->skip; t < n; ++t) {
            const std::size_t row = std::size_t(t) * std::size_t(r->nFf);
            const float scale = cpu::rootMeanSquare(residual + std::size_t(t) * std::size_t(r->nEmbd), r->nEmbd);
            const float inverse = scale > 0.0f ? 1.0f / scale : 0.0f;
            for (std::int64_t i = 0; i < r->nFf; ++i) {
                const float g = gate[row + std::size_t(i)];
                const float u = std::fabs(up[row + std::size_t(i)]);
                const float gated = std::fabs(g / (1.0f + std::exp(-g))) * norm[i] * inverse;
                if (r->scores) {
                    (*r->scores)[L].scores.add(gated * u);
                    (*r->scores)[L].upSums[std::size_t(i)] += u;
                } else if (r->screens) {
                    Screens& s = (*r->screens)[L];
                    const float screen = gated * (*r->meanUp)[L][std::size_t(i)];
                    s.all.add(screen);
                    s.scores.add(gated * u);
                    if (gated * u >= (*r->thresholds)[L]) {
                        s.ofKept.add(screen);
                        ++(*r->kept)[L][std::size_t(i)];
                    }
                }
            }
        }
    }
};

// The Euclidean norm of every column of @p matrices together (each row-major, rows of the same
// number of columns): the weights input i feeds into, for input i.
std::vector<float> columnNorms(std::initializer_list<const cpu::WeightMatrix*> matrices)
{
    const std::int64_t cols = (*matrices.begin())->cols;
    std::vector<double> squares(std::size_t(cols), 0.0);
    std::vector<float> row(static_cast<std::size_t>(cols));
    for (const cpu::WeightMatrix* m : matrices) {
        const std::size_t bytes = cpu::rowStrideOf(*m);
        for (std::int64_t r = 0; r < m->rows; ++r) {
            cpu::dequantizeRow(m->type, static_cast<const std::uint8_t*>(m->data) + std::size_t(r) * bytes, row.data(), cols);
            for (std::size_t i = 0; i < row.size(); ++i)
                squares[i] += double(row[i]) * double(row[i]);
        }
    }
    std::vector<float> norms(squares.size());
    for (std::size_t i = 0; i < norms.size(); ++i)
        norms[i] = float(std::sqrt(squares[i]));
    return norms;
}

// Input sparsity (sparse/input_sparsity.h): which projections take it, and the scores of their
// inputs, |x_i| * ||column i|| / rms(x), per layer and input, training and held-out windows apart.
using ProjectionInput = model::LlamaForward::ProjectionInput;
constexpr std::size_t kProjectionInputs = 3;

struct InputRecorder {
    struct Layer {
        std::array<std::vector<float>, kProjectionInputs> norms; // empty: the input stays dense
        std::array<MagnitudeHistogram, kProjectionInputs> training;
        std::array<MagnitudeHistogram, kProjectionInputs> heldOut;
    };
    std::vector<Layer> layers;
    bool heldOutWindow = false;
    int skip = 0;

    static void observe(void* context, int layer, ProjectionInput input, int n, const float* x)
    {
        auto* r = static_cast<InputRecorder*>(context);
        Layer& l = r->layers[std::size_t(layer)];
        const auto k = std::size_t(input);
        const std::vector<float>& norms = l.norms[k];
        MagnitudeHistogram& h = r->heldOutWindow ? l.heldOut[k] : l.training[k];
        const auto width = std::int64_t(norms.size());
        for (int t = r->skip; t < n && width > 0; ++t) {
            const float* row = x + std::size_t(t) * std::size_t(width);
            const float scale = cpu::rootMeanSquare(row, width);
            const float inverse = scale > 0.0f ? 1.0f / scale : 0.0f;
            for (std::int64_t i = 0; i < width; ++i)
                h.add(std::fabs(row[i]) * inverse * norms[std::size_t(i)]);
        }
    }
};

// The projections whose inputs @p share of a token drops: separate q/k/v and gate/up tensors
// only (fused ones keep their layout).
struct InputMajorParts {
    bool attention = false;
    bool gateUp = false;
};

InputMajorParts inputMajorParts(const model::LlamaModel& llama, double share)
{
    if (share <= 0.0)
        return {};
    const gguf::GgufFile& f = llama.file();
    return {f.findTensor("blk.0.attn_q.weight") != nullptr, f.findTensor("blk.0.ffn_gate.weight") != nullptr};
}

// The type an input-major copy of a @p type matrix is written in, rows of @p width: its own
// where the rows hold whole blocks, else Q8_0 or F32.
DType inputMajorType(DType type, std::int64_t width)
{
    if (isComputeType(type) && width % computeBlockElements(type) == 0)
        return type;
    return width % computeBlockElements(DType::Q8_0) == 0 ? DType::Q8_0 : DType::F32;
}

// Per layer, the thresholds the file stores (model_loader.cpp): ffn_act_threshold always,
// ffn_gate_threshold with the gate screen, the inputs' with input sparsity.
struct LayerThresholds {
    std::vector<float> gate, activation;             // [nFf]
    std::vector<float> attnInput, attnOutput, ffnInput; // [nEmbd], [qDim], [nEmbd]
};

// @p order[l] (empty: as they are) is the order layer l's neurons are written in: their gate and
// up rows, their ffn_down_t rows and their thresholds.
Status writeMagnitudeFile(const model::LlamaModel& llama, const std::string& path,
                          const std::vector<LayerThresholds>& thresholds,
                          const std::vector<std::vector<std::int32_t>>& order, InputMajorParts parts,
                          const SparsifyParams& params)
{
    const gguf::GgufFile& in = llama.file();
    gguf::GgufWriter writer(gguf::Magic::Gguf, in.alignment());
    for (const std::string& key : in.metadataKeys()) {
        if (key.rfind("split.", 0) != 0)
            writer.setValue(key, *in.find(key));
    }
    writer.setString("hearth.sparse.layout", "magnitude");
    writer.setFloat32("hearth.sparse.target_sparsity", float(params.targetSparsity));
    // Each tensor is copied, or written transposed under its name with "_t" (ffn_down always,
    // neuron-major; the input-major projections), or is a layer's thresholds.
    struct Item {
        const gguf::TensorInfo* tensor = nullptr;
        bool transposed = false;
        DType type = DType::F32;
        std::int64_t rows = 0, cols = 0;        // of the tensor as stored
        const std::vector<float>* values = nullptr; // thresholds
        const std::vector<std::int32_t>* order = nullptr; // the rows' (or transposed, columns') order
    };
    std::vector<Item> items;
    const auto transposedName = [](const std::string& name, std::size_t suffix) {
        return name.substr(0, suffix) + "_t.weight";
    };
    for (const gguf::TensorInfo& t : in.tensors()) {
        const std::size_t suffix = t.name.rfind(".weight");
        const std::size_t dot = t.name.find('.', 4);
        const std::string role = t.name.rfind("blk.", 0) == 0 && suffix != std::string::npos && dot < suffix
                                     ? t.name.substr(dot + 1, suffix - dot - 1)
                                     : std::string();
        const bool down = role == "ffn_down";
        const bool attention = parts.attention && (role == "attn_q" || role == "attn_k" || role == "attn_v" || role == "attn_output");
        const bool gateUp = parts.gateUp && (role == "ffn_gate" || role == "ffn_up");
        const int layer = role.empty() ? -1 : std::atoi(t.name.c_str() + 4);
        const std::vector<std::int32_t>* neuronOrder =
            layer >= 0 && std::size_t(layer) < order.size() && !order[std::size_t(layer)].empty()
                ? &order[std::size_t(layer)]
                : nullptr;
        if (!down && !attention && !gateUp) {
            writer.addTensor(t.name, t.type, t.shape);
            items.push_back({&t});
            if (role == "ffn_gate" || role == "ffn_up")
                items.back().order = neuronOrder;
            continue;
        }
        const model::LlamaLayerWeights& lw = llama.weights().layers[std::size_t(layer)];
        const std::int64_t cols = t.shape[0];
        const std::int64_t rows = t.shape[1];
        // With the gate screen the neuron kernels read up and down rows with one table: down
        // takes up's type.
        const DType type = down && !parts.gateUp ? lw.up.type : inputMajorType(t.type, rows);
        writer.addTensor(transposedName(t.name, suffix), type, {rows, cols});
        items.push_back({&t, true, type, rows, cols, nullptr, down ? neuronOrder : nullptr});
        const LayerThresholds& th = thresholds[std::size_t(layer)];
        const std::string p = t.name.substr(0, dot + 1);
        std::vector<std::pair<std::string, const std::vector<float>*>> vectors;
        if (down) {
            vectors.push_back({p + "ffn_act_threshold", &th.activation});
            vectors.push_back(parts.gateUp ? std::pair{p + "ffn_input_threshold", &th.ffnInput}
                                           : std::pair{p + "ffn_gate_threshold", &th.gate});
        } else if (role == "attn_output") {
            vectors.push_back({p + "attn_input_threshold", &th.attnInput});
            vectors.push_back({p + "attn_output_threshold", &th.attnOutput});
        }
        for (const auto& [name, values] : vectors) {
            writer.addTensor(name, DType::F32, {std::int64_t(values->size())});
            items.push_back({nullptr, false, DType::F32, 0, 0, values});
        }
    }
    HEARTH_TRY(writer.begin(path));
    for (std::size_t k = 0; k < items.size(); ++k) {
        const Item& item = items[k];
        if (item.values) {
            HEARTH_TRY(writer.writeTensorData(std::as_bytes(std::span<const float>(*item.values))));
        } else if (item.transposed) {
            std::vector<std::byte> rows;
            try {
                rows.resize(rowBytes(item.type, item.rows) * std::size_t(item.cols));
            } catch (const std::bad_alloc&) {
                return {ErrorCode::OutOfMemory, "not enough memory to transpose " + item.tensor->name};
            }
            HEARTH_TRY(writeTransposed(*item.tensor, item.type, item.rows, item.cols,
                                       item.order ? *item.order : std::vector<std::int32_t>(), rows.data(),
                                       rowBytes(item.type, item.rows)));
            HEARTH_TRY(writer.writeTensorData(rows));
        } else if (item.order) {
            // Whole rows in the neurons' order: exact for every type.
            const std::size_t row = item.tensor->byteSize / item.order->size();
            std::vector<std::byte> rows;
            try {
                rows.resize(item.tensor->byteSize);
            } catch (const std::bad_alloc&) {
                return {ErrorCode::OutOfMemory, "not enough memory to reorder " + item.tensor->name};
            }
            for (std::size_t k = 0; k < item.order->size(); ++k)
                std::memcpy(rows.data() + k * row, item.tensor->data + std::size_t((*item.order)[k]) * row, row);
            HEARTH_TRY(writer.writeTensorData(rows));
        } else {
            HEARTH_TRY(writer.writeTensorData(std::span<const std::byte>(item.tensor->data, item.tensor->byteSize)));
        }
        if (!reportSparsifyProgress(params, kRecorded + (kWritten - kRecorded) * float(k + 1) / float(items.size())))
            return sparsifyCancelled();
    }
    return writer.finish();
}

// Weight bytes a decoded token reads, dense over sparse: the gate always, unless input-major,
// up rows for the neurons the gate lets through (all with input-major gate/up, of their kept
// inputs), down rows for those whose activation is kept, the attention's of its kept inputs.
double expectedSpeedup(const model::LlamaWeights& w, const std::vector<SparsifyLayerReport>& layers, InputMajorParts parts)
{
    double dense = matrixBytes(w.output);
    double sparse = dense;
    for (std::size_t l = 0; l < w.layers.size(); ++l) {
        const model::LlamaLayerWeights& lw = w.layers[l];
        const SparsifyLayerReport& r = layers[l];
        const double qkv = matrixBytes(lw.wq) + matrixBytes(lw.wk) + matrixBytes(lw.wv);
        const double gateUp = matrixBytes(lw.gate) + matrixBytes(lw.up);
        dense += qkv + matrixBytes(lw.wo) + gateUp + matrixBytes(lw.down);
        sparse += qkv * r.attentionInputShare + matrixBytes(lw.wo) * r.attentionOutputShare;
        // ffn_down_t has up's type and shape with the gate screen.
        sparse += parts.gateUp ? gateUp * r.ffnInputShare + matrixBytes(lw.down) * r.firedShare
                                        : matrixBytes(lw.gate) + matrixBytes(lw.up) * (r.predictedShare + r.firedShare);
    }
    return sparse > 0 ? dense / sparse : 0.0;
}

} // namespace

Result<SparsifyReport> sparsifyByMagnitude(const SparsifyParams& params, std::shared_ptr<const Model> loaded,
                                           const std::string& partial, const std::string& partialStats)
{
    const auto start = std::chrono::steady_clock::now();
    const auto& llama = static_cast<const model::LlamaModel&>(*model::ArchitectureModel::of(*loaded));
    HEARTH_TRY(checkMagnitudeFfn(llama, quotedFileName(params.input)));
    const model::HyperParams& hp = llama.hyperParams();
    auto windows = CalibrationWindows::cut(llama, params);
    if (!windows)
        return windows.status();
    const double inputShare = params.inputSparsity;
    const InputMajorParts parts = inputMajorParts(llama, inputShare);

    // 1. Record the scores of the training windows, and choose each layer's threshold; then,
    // with the gate screen, the screens, and choose the screen's threshold that keeps
    // params.recall of the neurons whose score passes. The held-out windows only measure.
    std::vector<std::vector<float>> downNorms(std::size_t(hp.nLayer));
    std::vector<std::vector<float>> meanUp(std::size_t(hp.nLayer));
    std::vector<float> scoreThresholds(std::size_t(hp.nLayer));
    std::vector<ScoreRecorder::Screens> training;
    std::vector<ScoreRecorder::Screens> heldOut;
    InputRecorder inputs;
    // Input-major gate/up layers have no screen: one pass records everything, the held-out
    // windows' scores apart.
    std::vector<ScoreRecorder::Scores> heldOutScores(parts.gateUp ? std::size_t(hp.nLayer) : 0);
    std::vector<std::vector<std::uint32_t>> kept;
    try {
        std::vector<ScoreRecorder::Scores> scores(std::size_t(hp.nLayer));
        for (ScoreRecorder::Scores& h : heldOutScores)
            h.upSums.assign(std::size_t(hp.nFf), 0.0);
        inputs.layers.resize(std::size_t(hp.nLayer));
        inputs.skip = windows->skip();
        for (int l = 0; l < hp.nLayer; ++l) {
            const model::LlamaLayerWeights& lw = llama.weights().layers[std::size_t(l)];
            downNorms[std::size_t(l)] = columnNorms({&lw.down});
            scores[std::size_t(l)].upSums.assign(std::size_t(hp.nFf), 0.0);
            auto& norms = inputs.layers[std::size_t(l)].norms;
            if (parts.attention) {
                norms[std::size_t(ProjectionInput::Attention)] = columnNorms({&lw.wq, &lw.wk, &lw.wv});
                norms[std::size_t(ProjectionInput::AttentionOutput)] = columnNorms({&lw.wo});
            }
            if (parts.gateUp)
                norms[std::size_t(ProjectionInput::Ffn)] = columnNorms({&lw.gate, &lw.up});
        }
        auto forward = model::LlamaForward::create(llama, windows->window, windows->window, params.threads);
        if (!forward)
            return forward.status();
        model::LlamaForward& f = **forward;
        f.setFfnMode(model::LlamaForward::FfnMode::Dense);
        ScoreRecorder recorder{nullptr, nullptr, nullptr, &downNorms, &meanUp, &scoreThresholds, windows->skip(), hp.nEmbd, hp.nFf};
        f.setGateObserver(&ScoreRecorder::observe, &recorder);
        if (parts.attention || parts.gateUp)
            f.setInputObserver(&InputRecorder::observe, &inputs);
        const float firstPass = parts.gateUp ? kRecorded : kRecorded / 2;
        HEARTH_TRY(runCalibration(f, *windows, params, 0.0f, firstPass, [&](bool held) {
            recorder.scores = !held ? &scores : parts.gateUp ? &heldOutScores : nullptr;
            inputs.heldOutWindow = held;
        }));
        const double tokens = double(windows->tokenCount() - windows->heldOutTokenCount());
        for (int l = 0; l < hp.nLayer; ++l) {
            const auto L = std::size_t(l);
            scoreThresholds[L] = scores[L].scores.quantile(params.targetSparsity);
            for (const double sum : scores[L].upSums)
                meanUp[L].push_back(float(sum / tokens));
        }
        scores.clear();
        if (!parts.gateUp) {
            training.resize(std::size_t(hp.nLayer));
            heldOut.resize(std::size_t(hp.nLayer));
            kept.assign(std::size_t(hp.nLayer), std::vector<std::uint32_t>(std::size_t(hp.nFf), 0));
            recorder.kept = &kept;
            recorder.scores = nullptr;
            f.setInputObserver(nullptr, nullptr);
            HEARTH_TRY(runCalibration(f, *windows, params, firstPass, kRecorded,
                                      [&](bool held) { recorder.screens = held ? &heldOut : &training; }));
        }
    } catch (const std::bad_alloc&) {
        return Status(ErrorCode::OutOfMemory, "not enough memory for the calibration statistics");
    }

    // 2. The thresholds, per neuron or input. The neurons' are in units of the residual's root
    // mean square: an activation is dropped below activation[i], and (with the screen) the up
    // row is not even read when the gate alone is below gate[i]. The inputs' are in units of
    // their own vector's (sparse/input_sparsity.h).
    SparsifyReport result;
    result.method = SparsifyMethod::Magnitude;
    result.output = params.output;
    result.inputSparsity = parts.attention || parts.gateUp ? inputShare : 0.0;
    const double recall = params.recall > 0.0 ? params.recall : 0.95;
    // A neuron or input that adds nothing (a zero column, or up never seen non-zero) is skipped.
    const float never = std::numeric_limits<float>::max();
    std::vector<LayerThresholds> thresholds(std::size_t(hp.nLayer));
    for (int l = 0; l < hp.nLayer; ++l) {
        const auto L = std::size_t(l);
        LayerThresholds& th = thresholds[L];
        const float score = scoreThresholds[L];
        SparsifyLayerReport layer;
        layer.scoreThreshold = score;
        for (std::int64_t i = 0; i < hp.nFf; ++i) {
            const float norm = downNorms[L][std::size_t(i)];
            th.activation.push_back(score <= 0.0f ? 0.0f : norm > 0.0f ? score / norm : never);
        }
        if (parts.gateUp) {
            // Every neuron is computed from the kept inputs; the activations are then thresholded.
            layer.recall = 1.0;
            layer.predictedShare = 1.0;
            layer.firedShare = 1.0 - heldOutScores[L].scores.shareBelow(score);
        } else {
            // No threshold, no screen: every neuron runs, exactly as in the dense model.
            const float screen = score > 0.0f ? training[L].ofKept.quantile(1.0 - recall) : 0.0f;
            for (std::int64_t i = 0; i < hp.nFf; ++i) {
                const float norm = downNorms[L][std::size_t(i)];
                const float up = meanUp[L][std::size_t(i)];
                th.gate.push_back(screen <= 0.0f ? 0.0f : norm > 0.0f && up > 0.0f ? screen / (norm * up) : never);
            }
            layer.recall = 1.0 - heldOut[L].ofKept.shareBelow(screen);
            layer.predictedShare = 1.0 - heldOut[L].all.shareBelow(screen);
            layer.firedShare = (1.0 - heldOut[L].scores.shareBelow(score)) * layer.recall;
        }
        InputRecorder::Layer& in = inputs.layers[L];
        const auto inputThresholds = [&](ProjectionInput input, std::vector<float>& out, double& keptShare) {
            const auto k = std::size_t(input);
            if (in.norms[k].empty())
                return;
            const float tau = in.training[k].quantile(inputShare);
            for (const float norm : in.norms[k])
                out.push_back(tau <= 0.0f ? 0.0f : norm > 0.0f ? tau / norm : never);
            keptShare = 1.0 - in.heldOut[k].shareBelow(tau);
        };
        inputThresholds(ProjectionInput::Attention, th.attnInput, layer.attentionInputShare);
        inputThresholds(ProjectionInput::AttentionOutput, th.attnOutput, layer.attentionOutputShare);
        inputThresholds(ProjectionInput::Ffn, th.ffnInput, layer.ffnInputShare);
        result.layers.push_back(layer);
    }
    inputs.layers.clear();

    // With the gate screen, each layer's neurons go into the file most kept first, and their
    // frequencies beside it (the statistics file): the hot ones are then the first rows, which
    // the placement can hand to a device as one block. A stable order: without thresholds (every
    // neuron kept) the file keeps the input's order, and so its logits bit for bit.
    std::vector<std::vector<std::int32_t>> order(kept.size());
    std::vector<std::vector<float>> frequencies(kept.size());
    const double observed = double(windows->tokenCount()); // the observers leave out each window's BOS
    for (std::size_t l = 0; l < kept.size(); ++l) {
        std::vector<std::int32_t>& o = order[l];
        o.resize(std::size_t(hp.nFf));
        std::iota(o.begin(), o.end(), 0);
        std::stable_sort(o.begin(), o.end(), [&](std::int32_t a, std::int32_t b) { return kept[l][std::size_t(a)] > kept[l][std::size_t(b)]; });
        for (const std::int32_t i : o)
            frequencies[l].push_back(observed > 0 ? float(std::min(1.0, double(kept[l][std::size_t(i)]) / observed)) : 0.0f);
        LayerThresholds& th = thresholds[l];
        const auto reorder = [&](std::vector<float>& values) {
            std::vector<float> sorted;
            for (const std::int32_t i : o)
                sorted.push_back(values[std::size_t(i)]);
            values = std::move(sorted);
        };
        reorder(th.gate);
        reorder(th.activation);
    }
    result.heldOutTokens = windows->heldOutTokenCount();
    result.calibrationTokens = windows->tokenCount() - result.heldOutTokens;
    result.expectedSpeedup = expectedSpeedup(llama.weights(), result.layers, parts);

    // 3. Write.
    HEARTH_TRY(checkFreeSpace(params.output, llama.file().bytes().size() + (std::uint64_t(1) << 20)));
    HEARTH_TRY(writeMagnitudeFile(llama, partial, thresholds, order, parts, params));
    if (!frequencies.empty()) {
        HEARTH_TRY(sparse::writeStatsFile(partialStats, frequencies, std::uint64_t(observed)));
        result.statisticsOutput = sparse::defaultStatsPath(params.output);
    }
    loaded.reset(); // the input's mapping is no longer needed

    // 4. Check.
    HEARTH_TRY(checkAndCommit(params, *windows, partial, frequencies.empty() ? std::string() : partialStats, kWritten,
                              result));
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
}

} // namespace hearth::convert
