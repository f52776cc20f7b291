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

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
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
                    if (gated * u >= (*r->thresholds)[L])
                        s.ofKept.add(screen);
                }
            }
        }
    }
};

// The Euclidean norm of every column of ffn_down (row-major: nEmbd rows of nFf).
std::vector<float> downColumnNorms(const cpu::WeightMatrix& down)
{
    std::vector<double> squares(std::size_t(down.cols), 0.0);
    std::vector<float> row(std::size_t(down.cols));
    const std::size_t bytes = rowBytes(down.type, down.cols);
    for (std::int64_t r = 0; r < down.rows; ++r) {
        cpu::dequantizeRow(down.type, static_cast<const std::uint8_t*>(down.data) + std::size_t(r) * bytes, row.data(),
                           down.cols);
        for (std::size_t i = 0; i < row.size(); ++i)
            squares[i] += double(row[i]) * double(row[i]);
    }
    std::vector<float> norms(squares.size());
    for (std::size_t i = 0; i < norms.size(); ++i)
        norms[i] = float(std::sqrt(squares[i]));
    return norms;
}

// The thresholds go per layer, per neuron (see sparsifyByMagnitude).
Status writeMagnitudeFile(const model::LlamaModel& llama, const std::string& path,
                          const std::vector<std::vector<float>>& gateThresholds,
                          const std::vector<std::vector<float>>& activationThresholds, const SparsifyParams& params)
{
    const gguf::GgufFile& in = llama.file();
    const model::HyperParams& hp = llama.hyperParams();
    gguf::GgufWriter writer(gguf::Magic::Gguf, in.alignment());
    for (const std::string& key : in.metadataKeys()) {
        if (key.rfind("split.", 0) != 0)
            writer.setValue(key, *in.find(key));
    }
    writer.setString("hearth.sparse.layout", "magnitude");
    writer.setFloat32("hearth.sparse.target_sparsity", float(params.targetSparsity));
    // Each ffn_down becomes ffn_down_t, in the up rows' type (the neuron kernels read both with
    // one table), followed by the layer's two threshold vectors.
    struct Item {
        const gguf::TensorInfo* tensor;
        int layer; // >= 0: the layer whose ffn_down this is
    };
    std::vector<Item> items;
    for (const gguf::TensorInfo& t : in.tensors()) {
        const std::size_t suffix = t.name.rfind(".ffn_down.weight");
        if (t.name.rfind("blk.", 0) != 0 || suffix == std::string::npos) {
            writer.addTensor(t.name, t.type, t.shape);
            items.push_back({&t, -1});
            continue;
        }
        const int layer = std::atoi(t.name.c_str() + 4);
        const std::string p = t.name.substr(0, suffix);
        writer.addTensor(p + ".ffn_down_t.weight", llama.weights().layers[std::size_t(layer)].up.type, {hp.nEmbd, hp.nFf});
        writer.addTensor(p + ".ffn_gate_threshold", DType::F32, {hp.nFf});
        writer.addTensor(p + ".ffn_act_threshold", DType::F32, {hp.nFf});
        items.push_back({&t, layer});
    }
    HEARTH_TRY(writer.begin(path));
    for (std::size_t k = 0; k < items.size(); ++k) {
        const Item& item = items[k];
        if (item.layer >= 0) {
            const DType type = llama.weights().layers[std::size_t(item.layer)].up.type;
            std::vector<std::byte> rows;
            try {
                rows.resize(rowBytes(type, hp.nEmbd) * std::size_t(hp.nFf));
            } catch (const std::bad_alloc&) {
                return {ErrorCode::OutOfMemory, "not enough memory to transpose the down projection"};
            }
            HEARTH_TRY(writeNeuronMajorDown(*item.tensor, type, hp.nEmbd, hp.nFf, {}, rows.data(), rowBytes(type, hp.nEmbd)));
            HEARTH_TRY(writer.writeTensorData(rows));
            for (const auto* thresholds : {&gateThresholds, &activationThresholds}) {
                const std::vector<float>& layer = (*thresholds)[std::size_t(item.layer)];
                HEARTH_TRY(writer.writeTensorData(std::as_bytes(std::span<const float>(layer))));
            }
        } else {
            HEARTH_TRY(writer.writeTensorData(std::span<const std::byte>(item.tensor->data, item.tensor->byteSize)));
        }
        if (!reportSparsifyProgress(params, kRecorded + (kWritten - kRecorded) * float(k + 1) / float(items.size())))
            return sparsifyCancelled();
    }
    return writer.finish();
}

// Weight bytes a decoded token reads, dense over sparse: the gate always, up rows for the
// neurons the gate lets through, down rows for those whose activation is kept.
double expectedSpeedup(const model::LlamaWeights& w, const std::vector<SparsifyLayerReport>& layers)
{
    double dense = matrixBytes(w.output);
    double sparse = dense;
    for (std::size_t l = 0; l < w.layers.size(); ++l) {
        const model::LlamaLayerWeights& lw = w.layers[l];
        const double common = matrixBytes(lw.wq) + matrixBytes(lw.wk) + matrixBytes(lw.wv) + matrixBytes(lw.wo)
                              + matrixBytes(lw.gate);
        dense += common + matrixBytes(lw.up) + matrixBytes(lw.down);
        // ffn_down_t has up's type and shape.
        sparse += common + matrixBytes(lw.up) * (layers[l].predictedShare + layers[l].firedShare);
    }
    return sparse > 0 ? dense / sparse : 0.0;
}

} // namespace

Result<SparsifyReport> sparsifyByMagnitude(const SparsifyParams& params, std::shared_ptr<const Model> loaded,
                                           const std::string& partial)
{
    const auto start = std::chrono::steady_clock::now();
    const auto& llama = static_cast<const model::LlamaModel&>(*model::ArchitectureModel::of(*loaded));
    HEARTH_TRY(checkMagnitudeFfn(llama, quotedFileName(params.input)));
    const model::HyperParams& hp = llama.hyperParams();
    auto windows = CalibrationWindows::cut(llama, params);
    if (!windows)
        return windows.status();

    // 1. Record the scores of the training windows, and choose each layer's threshold; then
    // the screens, and choose the screen's threshold that keeps params.recall of the neurons
    // whose score passes. The held-out windows only measure.
    std::vector<std::vector<float>> downNorms(std::size_t(hp.nLayer));
    std::vector<std::vector<float>> meanUp(std::size_t(hp.nLayer));
    std::vector<float> scoreThresholds(std::size_t(hp.nLayer));
    std::vector<ScoreRecorder::Screens> training;
    std::vector<ScoreRecorder::Screens> heldOut;
    try {
        std::vector<ScoreRecorder::Scores> scores(std::size_t(hp.nLayer));
        for (int l = 0; l < hp.nLayer; ++l) {
            downNorms[std::size_t(l)] = downColumnNorms(llama.weights().layers[std::size_t(l)].down);
            scores[std::size_t(l)].upSums.assign(std::size_t(hp.nFf), 0.0);
        }
        auto forward = model::LlamaForward::create(llama, windows->window, windows->window, params.threads);
        if (!forward)
            return forward.status();
        model::LlamaForward& f = **forward;
        f.setFfnMode(model::LlamaForward::FfnMode::Dense);
        ScoreRecorder recorder{nullptr, nullptr, &downNorms, &meanUp, &scoreThresholds, windows->skip(), hp.nEmbd, hp.nFf};
        f.setGateObserver(&ScoreRecorder::observe, &recorder);
        HEARTH_TRY(runCalibration(f, *windows, params, 0.0f, kRecorded / 2,
                                  [&](bool held) { recorder.scores = held ? nullptr : &scores; }));
        const double tokens = double(windows->tokenCount() - windows->heldOutTokenCount());
        for (int l = 0; l < hp.nLayer; ++l) {
            const auto L = std::size_t(l);
            scoreThresholds[L] = scores[L].scores.quantile(params.targetSparsity);
            for (const double sum : scores[L].upSums)
                meanUp[L].push_back(float(sum / tokens));
        }
        scores.clear();
        training.resize(std::size_t(hp.nLayer));
        heldOut.resize(std::size_t(hp.nLayer));
        recorder.scores = nullptr;
        HEARTH_TRY(runCalibration(f, *windows, params, kRecorded / 2, kRecorded,
                                  [&](bool held) { recorder.screens = held ? &heldOut : &training; }));
    } catch (const std::bad_alloc&) {
        return Status(ErrorCode::OutOfMemory, "not enough memory for the calibration statistics");
    }

    // 2. The thresholds, per neuron, in units of the residual's root mean square: an activation
    // is dropped below activation[i], and the up row is not even read when the gate alone is
    // below gate[i].
    SparsifyReport result;
    result.method = SparsifyMethod::Magnitude;
    result.output = params.output;
    const double recall = params.recall > 0.0 ? params.recall : 0.95;
    std::vector<std::vector<float>> gateThresholds(std::size_t(hp.nLayer));
    std::vector<std::vector<float>> activationThresholds(std::size_t(hp.nLayer));
    for (int l = 0; l < hp.nLayer; ++l) {
        const auto L = std::size_t(l);
        const float score = scoreThresholds[L];
        // No threshold, no screen: every neuron runs, exactly as in the dense model.
        const float screen = score > 0.0f ? training[L].ofKept.quantile(1.0 - recall) : 0.0f;
        // A neuron that adds nothing (a zero down column, or up never seen non-zero) is skipped.
        const float never = std::numeric_limits<float>::max();
        for (std::int64_t i = 0; i < hp.nFf; ++i) {
            const float norm = downNorms[L][std::size_t(i)];
            const float up = meanUp[L][std::size_t(i)];
            activationThresholds[L].push_back(score <= 0.0f ? 0.0f : norm > 0.0f ? score / norm : never);
            gateThresholds[L].push_back(screen <= 0.0f ? 0.0f : norm > 0.0f && up > 0.0f ? screen / (norm * up) : never);
        }
        SparsifyLayerReport layer;
        layer.scoreThreshold = score;
        layer.recall = 1.0 - heldOut[L].ofKept.shareBelow(screen);
        layer.predictedShare = 1.0 - heldOut[L].all.shareBelow(screen);
        layer.firedShare = (1.0 - heldOut[L].scores.shareBelow(score)) * layer.recall;
        result.layers.push_back(layer);
    }
    result.heldOutTokens = windows->heldOutTokenCount();
    result.calibrationTokens = windows->tokenCount() - result.heldOutTokens;
    result.expectedSpeedup = expectedSpeedup(llama.weights(), result.layers);

    // 3. Write.
    HEARTH_TRY(checkFreeSpace(params.output, llama.file().bytes().size() + (std::uint64_t(1) << 20)));
    HEARTH_TRY(writeMagnitudeFile(llama, partial, gateThresholds, activationThresholds, params));
    loaded.reset(); // the input's mapping is no longer needed

    // 4. Check.
    HEARTH_TRY(checkAndCommit(params, *windows, partial, {}, kWritten, result));
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
}

} // namespace hearth::convert
