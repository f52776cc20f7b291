// SPDX-License-Identifier: MIT
#include "sparse/model_shape.h"

#include "core/sliding_window.h"
#include "cpu/weight_pack.h"
#include "gguf/gguf_file.h"
#include "sparse/byte_math.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>

namespace hearth::sparse {

namespace {

// Far beyond any real model, small enough that sums of a few of them never overflow uint64.
constexpr std::uint64_t kMaxBytes = std::uint64_t(1) << 50;
constexpr std::int64_t kMaxWidth = std::int64_t(1) << 30;
constexpr std::int64_t kMaxLayers = 4096;

std::uint64_t bytesOf(DType type, std::int64_t rowLength, std::int64_t rows)
{
    return static_cast<std::uint64_t>(rowBytes(type, rowLength)) * static_cast<std::uint64_t>(rows);
}

// "blk.12.ffn_up.weight" -> (12, "ffn_up.weight"); nullopt for global tensors.
std::optional<std::pair<std::int64_t, std::string_view>> splitLayerName(std::string_view name)
{
    constexpr std::string_view prefix = "blk.";
    if (!name.starts_with(prefix)) {
        return std::nullopt;
    }
    name.remove_prefix(prefix.size());
    const auto dot = name.find('.');
    if (dot == std::string_view::npos || dot == 0) {
        return std::nullopt;
    }
    std::int64_t layer = -1;
    const auto [ptr, ec] = std::from_chars(name.data(), name.data() + dot, layer);
    if (ec != std::errc() || ptr != name.data() + dot || layer < 0 || layer >= kMaxLayers) {
        return std::nullopt;
    }
    return std::pair{layer, name.substr(dot + 1)};
}

} // namespace

bool ModelShape::hasPredictors() const
{
    return !layers.empty()
        && std::all_of(layers.begin(), layers.end(), [](const LayerShape& l) { return l.predictorBytes > 0; });
}

bool ModelShape::screensNeurons() const
{
    return magnitudeSparse && !layers.empty()
        && std::all_of(layers.begin(), layers.end(), [](const LayerShape& l) { return l.screenBytes > 0; });
}

bool ModelShape::mixtureOfExperts() const
{
    return std::any_of(layers.begin(), layers.end(), [](const LayerShape& l) { return l.activeFF > 0; });
}

std::int64_t ModelShape::maxFF() const
{
    std::int64_t m = 0;
    for (const LayerShape& l : layers) {
        m = std::max(m, l.nFF);
    }
    return m;
}

std::int64_t ModelShape::maxPredictorHidden() const
{
    std::int64_t m = 0;
    for (const LayerShape& l : layers) {
        m = std::max(m, l.predictorHidden);
    }
    return m;
}

std::uint64_t ModelShape::totalWeightBytes() const
{
    std::uint64_t total = embeddingBytes + outputBytes;
    for (const LayerShape& l : layers) {
        total += l.attentionBytes + l.normBytes + l.predictorBytes + l.neuronBytes * static_cast<std::uint64_t>(l.nFF);
    }
    return total;
}

Status ModelShape::validate() const
{
    if (layers.empty() || static_cast<std::int64_t>(layers.size()) > kMaxLayers) {
        return Status(ErrorCode::InvalidArgument,
                      "a model needs 1 to " + std::to_string(kMaxLayers) + " layers, not " + std::to_string(layers.size()));
    }
    for (std::int64_t v : {nVocab, nEmbd, nEmbdKv, nEmbdQ, nHead}) {
        if (v < 0 || v > kMaxWidth) {
            return Status(ErrorCode::InvalidArgument, "a model width is out of range: " + std::to_string(v));
        }
    }
    if (embeddingBytes > kMaxBytes || outputBytes > kMaxBytes) {
        return Status(ErrorCode::InvalidArgument, "embedding or output size out of range");
    }
    for (std::size_t i = 0; i < layers.size(); ++i) {
        const LayerShape& l = layers[i];
        const std::string where = "layer " + std::to_string(i) + ": ";
        if (l.nFF < 0 || l.nFF > std::numeric_limits<std::int32_t>::max()) {
            return Status(ErrorCode::InvalidArgument, where + "FFN width out of range: " + std::to_string(l.nFF));
        }
        if (l.predictorHidden < 0 || l.predictorHidden > kMaxWidth) {
            return Status(ErrorCode::InvalidArgument, where + "predictor width out of range");
        }
        if (l.attentionBytes > kMaxBytes || l.normBytes > kMaxBytes || l.predictorBytes > kMaxBytes
            || l.kvBytesPerToken > kMaxBytes || l.attentionTensors > 64 || l.ffnTensors > 8) {
            return Status(ErrorCode::InvalidArgument, where + "a size is out of range");
        }
        if (l.expertCount < 0 || l.sharedFF < 0 || l.sharedFF > l.nFF
            || (l.expertCount > 0 && (l.nFF - l.sharedFF) % l.expertCount != 0)) {
            return Status(ErrorCode::InvalidArgument, where + "the experts do not divide the FFN");
        }
        if (l.neuronBytes > kMaxBytes / static_cast<std::uint64_t>(std::max<std::int64_t>(l.nFF, 1))) {
            return Status(ErrorCode::InvalidArgument, where + "FFN size out of range");
        }
    }
    return {};
}

std::uint64_t LayerShape::kvBytes(std::int64_t contextLength, std::int64_t batchSize) const
{
    const std::int64_t rows = slidingWindowRows(std::max<std::int64_t>(contextLength, 0), slidingWindow, batchSize);
    return satMul(kvBytesPerToken, static_cast<std::uint64_t>(rows));
}

Result<ModelShape> uniformShape(const UniformShapeParams& p)
{
    if (p.nLayer < 1 || p.nLayer > kMaxLayers || p.nEmbd < 1 || p.nEmbd > kMaxWidth || p.nHead < 1
        || p.nHeadKv < 1 || p.nHeadKv > p.nHead || p.headDim < 0 || p.headDim > kMaxWidth
        || (p.headDim == 0 && p.nEmbd % p.nHead != 0) || p.nFF < 0 || p.nFF > kMaxWidth
        || p.nVocab < 0 || p.nVocab > kMaxWidth || p.predictorHidden < 0 || p.predictorHidden > kMaxWidth
        || p.expertCount < 0 || p.expertCount > 1 << 16 || p.expertsUsed < 0 || p.expertsUsed > p.expertCount
        || (p.expertCount > 0 && (p.expertsUsed == 0 || p.expertFF <= 0 || p.expertFF > kMaxWidth))) {
        return Status(ErrorCode::InvalidArgument, "inconsistent model hyper-parameters");
    }
    const auto traits = dtypeTraits(static_cast<std::uint32_t>(p.weightType));
    const auto kvTraits = dtypeTraits(static_cast<std::uint32_t>(p.kvType));
    if (!traits || !kvTraits || p.nEmbd % traits->blockElements != 0 || kvTraits->blockElements != 1) {
        return Status(ErrorCode::InvalidArgument, "the embedding width does not suit the weight or KV type");
    }
    const std::int64_t headDim = p.headDim > 0 ? p.headDim : p.nEmbd / p.nHead;
    const std::int64_t nEmbdQ = headDim * p.nHead;
    const std::int64_t nEmbdKv = headDim * p.nHeadKv;
    if (nEmbdQ > kMaxWidth || nEmbdQ % traits->blockElements != 0)
        return Status(ErrorCode::InvalidArgument, "the attention width does not suit the weight type");

    ModelShape shape;
    shape.architecture = p.architecture;
    shape.weightType = std::string(dtypeName(p.weightType));
    shape.kvType = std::string(dtypeName(p.kvType));
    shape.nVocab = p.nVocab;
    shape.nEmbd = p.nEmbd;
    shape.nEmbdKv = nEmbdKv;
    shape.nEmbdQ = nEmbdQ;
    shape.nHead = p.nHead;
    shape.embeddingBytes = bytesOf(p.weightType, p.nEmbd, p.nVocab);
    shape.outputBytes = bytesOf(p.weightType, p.nEmbd, p.nVocab) + bytesOf(DType::F32, p.nEmbd, 1);

    LayerShape layer;
    // Q, K and V take rows of n_embd; the output takes rows of the heads' width.
    layer.attentionBytes = bytesOf(p.weightType, p.nEmbd, nEmbdQ + 2 * nEmbdKv) + bytesOf(p.weightType, nEmbdQ, p.nEmbd);
    layer.normBytes = 2 * bytesOf(DType::F32, p.nEmbd, 1);
    if (p.predictorHidden > 0) {
        // fc1 is (n_embd -> h), fc2 is (h -> n_ff); PowerInfer files keep predictors in F16/F32,
        // and fc2's rows of h elements need not suit a block type: assume F16.
        layer.predictorHidden = p.predictorHidden;
        layer.predictorBytes = bytesOf(DType::F16, p.nEmbd, p.predictorHidden) + bytesOf(DType::F16, p.predictorHidden, p.nFF);
    }
    layer.ffnTensors = p.gatedFfn ? 3 : 2;
    layer.neuronBytes = static_cast<std::uint64_t>(rowBytes(p.weightType, p.nEmbd)) * layer.ffnTensors;
    layer.nFF = p.nFF;
    if (p.expertCount > 0) {
        layer.nFF = p.expertCount * p.expertFF;
        layer.activeFF = p.expertsUsed * p.expertFF;
        layer.expertCount = p.expertCount;
        layer.normBytes += bytesOf(DType::F32, p.nEmbd, p.expertCount); // the router
    }
    layer.kvBytesPerToken = 2 * bytesOf(p.kvType, nEmbdKv, 1);
    shape.layers.assign(static_cast<std::size_t>(p.nLayer), layer);
    HEARTH_TRY(shape.validate());
    return shape;
}

Result<ModelShape> shapeFromGguf(const gguf::GgufFile& file)
{
    ModelShape shape;
    shape.architecture = file.getString("general.architecture").value_or("");
    const std::string arch = shape.architecture;

    struct Acc {
        LayerShape shape;
        std::uint64_t ffnBytes = 0;
        std::uint32_t attentionTensors = 0;
        std::uint32_t ffnTensors = 0;
        std::int64_t nFF = -1;
        std::int64_t sharedFF = 0; // a mixture's shared expert
        std::int64_t fusedRowLength = 0; // ffn_neurons: elements per neuron
        std::uint64_t gateRowBytes = 0;  // a separate ffn_gate's rows
    };
    std::vector<Acc> acc;
    bool tiedOutput = true;
    std::int64_t fusedQkvRows = 0;
    for (const gguf::TensorInfo& t : file.tensors()) {
        // Every matrix but the embedding (read by row) may be packed for the CPU's kernels; a
        // stack of experts is packed expert by expert, which for whole groups comes to the same.
        if (t.name != "token_embd.weight" && t.shape.size() >= 2)
            shape.hostLayoutBytes += cpu::interleavedExtraBytes(t.type, t.rows(), t.rowLength());
        const auto parts = splitLayerName(t.name);
        if (!parts) {
            if (t.name == "token_embd.weight") {
                shape.embeddingBytes += t.byteSize;
                shape.nEmbd = t.rowLength();
                shape.nVocab = t.rows();
            } else {
                // output.weight, output_norm.*, rope tables: everything else global is placed with
                // the output matrix, which over-counts a few KiB at worst.
                shape.outputBytes += t.byteSize;
                if (t.name == "output.weight") {
                    tiedOutput = false;
                }
            }
            continue;
        }
        const auto [index, rest] = *parts;
        if (acc.size() <= static_cast<std::size_t>(index)) {
            acc.resize(static_cast<std::size_t>(index) + 1);
        }
        Acc& a = acc[static_cast<std::size_t>(index)];
        if (rest.find("norm") != std::string_view::npos) {
            a.shape.normBytes += t.byteSize;
        } else if (rest.starts_with("attn_")) {
            a.shape.attentionBytes += t.byteSize;
            ++a.attentionTensors;
            // Magnitude-sparse files store input-major transposes ("_t": a row per input).
            if (rest == "attn_k.weight" || rest == "attn_k_t.weight") {
                shape.nEmbdKv = std::max(shape.nEmbdKv, rest == "attn_k.weight" ? t.rows() : t.rowLength());
            } else if (rest == "attn_q.weight" || rest == "attn_q_t.weight") {
                shape.nEmbdQ = std::max(shape.nEmbdQ, rest == "attn_q.weight" ? t.rows() : t.rowLength());
            } else if (rest == "attn_qkv.weight") {
                fusedQkvRows = std::max(fusedQkvRows, t.rows());
            }
        } else if (rest.starts_with("fc1.") || rest.starts_with("fc2.")) {
            a.shape.predictorBytes += t.byteSize;
            if (rest == "fc1.weight") {
                a.shape.predictorHidden = t.rows();
            }
        } else if (rest.starts_with("ffn_")) {
            a.ffnBytes += t.byteSize;
            if (rest.ends_with(".weight")) {
                ++a.ffnTensors;
            }
            if (rest == "ffn_up.weight" || rest == "ffn_up_exps.weight") {
                a.nFF = t.rows(); // a mixture's experts: all of them, one after the other
                if (rest == "ffn_up_exps.weight")
                    a.shape.expertCount = t.shape.size() == 3 ? t.shape[2] : 1;
            } else if (rest == "ffn_up_t.weight") {
                a.nFF = t.rowLength();
            } else if (rest == "ffn_neurons.weight") {
                a.nFF = t.rows(); // Hearth's fused layout: a neuron's rows side by side
                a.fusedRowLength = t.rowLength();
            } else if (rest == "ffn_up_shexp.weight") {
                a.sharedFF = t.rows();
            } else if (rest == "ffn_gate.weight" && t.rows() > 0) {
                a.gateRowBytes = t.byteSize / std::uint64_t(t.rows());
            }
        } else {
            a.shape.normBytes += t.byteSize; // small per-layer extras travel with the norms
        }
    }
    if (tiedOutput) {
        // The GPU needs its own copy of a tied output matrix.
        shape.outputBytes += shape.embeddingBytes;
    }
    if (acc.empty()) {
        return Status(ErrorCode::InvalidFile, "the file has no blk.N tensors");
    }
    if (const auto blocks = file.getInt(arch + ".block_count"); blocks && *blocks != static_cast<std::int64_t>(acc.size())) {
        return Status(ErrorCode::InvalidFile,
                      "the file declares " + std::to_string(*blocks) + " layers but has tensors for " + std::to_string(acc.size()));
    }
    shape.nHead = file.getInt(arch + ".attention.head_count").value_or(0);
    if (shape.nEmbdKv == 0 && shape.nHead > 0) {
        // Fused QKV (falcon): derive the KV width from the head counts.
        const std::int64_t kvHeads = file.getInt(arch + ".attention.head_count_kv").value_or(shape.nHead);
        shape.nEmbdKv = shape.nEmbd / shape.nHead * kvHeads;
    }
    if (shape.nEmbdQ == 0)
        shape.nEmbdQ = fusedQkvRows > 2 * shape.nEmbdKv ? fusedQkvRows - 2 * shape.nEmbdKv : shape.nEmbd;
    shape.kvType = "F16";
    shape.magnitudeSparse = file.getString("hearth.sparse.layout").value_or("") == "magnitude";
    for (std::size_t i = 0; i < acc.size(); ++i) {
        Acc& a = acc[i];
        if (a.nFF <= 0) {
            return Status(ErrorCode::InvalidFile, "layer " + std::to_string(i) + " has no ffn_up or ffn_neurons tensor");
        }
        a.nFF += a.sharedFF;
        a.shape.nFF = a.nFF;
        a.shape.sharedFF = a.sharedFF;
        // Down is stored transposed in PowerInfer files so each neuron is a row; for a plain
        // ffn_down the column split is not exact in block types, so round up.
        a.shape.neuronBytes = (a.ffnBytes + static_cast<std::uint64_t>(a.nFF) - 1) / static_cast<std::uint64_t>(a.nFF);
        a.shape.attentionTensors = std::max<std::uint32_t>(a.attentionTensors, 1);
        a.shape.ffnTensors = std::max<std::uint32_t>(a.ffnTensors, 1);
        if (a.fusedRowLength > 0 && shape.nEmbd > 0) // the device keeps each row kind apart
            a.shape.ffnTensors = std::uint32_t(std::max<std::int64_t>(a.fusedRowLength / shape.nEmbd, 1));
        a.shape.kvBytesPerToken = 2 * 2 * static_cast<std::uint64_t>(std::max<std::int64_t>(shape.nEmbdKv, 0));
        // A magnitude-sparse layer with the gate screen reads every neuron's gate row.
        if (shape.magnitudeSparse)
            a.shape.screenBytes = a.gateRowBytes;
        shape.layers.push_back(a.shape);
    }
    if (const auto* up = file.findTensor("blk.0.ffn_up.weight")) {
        shape.weightType = std::string(dtypeName(up->type));
    } else if (const auto* upT = file.findTensor("blk.0.ffn_up_t.weight")) {
        shape.weightType = std::string(dtypeName(upT->type));
    } else if (const auto* neurons = file.findTensor("blk.0.ffn_neurons.weight")) {
        shape.weightType = std::string(dtypeName(neurons->type));
    }
    HEARTH_TRY(shape.validate());
    return shape;
}

} // namespace hearth::sparse
