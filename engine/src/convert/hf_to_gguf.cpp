// SPDX-License-Identifier: MIT
#include "convert/hf_to_gguf.h"

#include "convert/hf_checkpoint.h"
#include "convert/hf_config.h"
#include "convert/output_file.h"
#include "convert/predictor_import.h"
#include "convert/tokenizer_import.h"
#include "cpu/quant.h"
#include "gguf/gguf_writer.h"

#include <cstring>
#include <filesystem>
#include <functional>

namespace hearth::convert {

namespace {

// One tensor of the output: its GGUF name, type and shape, and how to compute its floats
// (row-major, shape[0] contiguous).
struct PlannedTensor {
    std::string name;
    DType type = DType::F32;
    std::vector<std::int64_t> shape; // GGUF order
    std::function<Result<std::vector<float>>()> values;

    [[nodiscard]] std::int64_t rows() const { return shape.size() > 1 ? shape[1] : 1; }
    [[nodiscard]] std::uint64_t bytes() const { return rowBytes(type, shape[0]) * std::uint64_t(rows()); }
};

std::string shapeText(const std::vector<std::int64_t>& shape)
{
    std::string s = "[";
    for (std::size_t i = 0; i < shape.size(); ++i) {
        s += (i ? ", " : "") + std::to_string(shape[i]);
    }
    return s + "]";
}

std::uint32_t fileTypeOf(DType type)
{
    // llama.cpp's llama_ftype: ALL_F32, MOSTLY_F16, MOSTLY_Q4_0, MOSTLY_Q8_0.
    switch (type) {
    case DType::F16: return 1;
    case DType::Q4_0: return 2;
    case DType::Q8_0: return 7;
    default: return 0;
    }
}

// The type a matrix with rows of @p rowLength gets: quantized types need whole blocks, so
// rows that are not fall back to F16 (as llama.cpp's converter does).
DType matrixType(DType wanted, std::int64_t rowLength)
{
    const auto traits = dtypeTraits(static_cast<std::uint32_t>(wanted));
    return traits && rowLength % traits->blockElements == 0 ? wanted : DType::F16;
}

std::vector<float> transposed(const std::vector<float>& w, std::int64_t rows, std::int64_t cols)
{
    std::vector<float> out(w.size());
    for (std::int64_t r = 0; r < rows; ++r) {
        for (std::int64_t c = 0; c < cols; ++c) {
            out[std::size_t(c * rows + r)] = w[std::size_t(r * cols + c)];
        }
    }
    return out;
}

class Planner {
public:
    Planner(const HfCheckpoint& checkpoint, DType type)
        : m_checkpoint(checkpoint)
        , m_type(type)
    {
    }

    // A checkpoint tensor of PyTorch shape [rows, cols] (or [rows] for a vector), checked now so
    // a mismatch fails before anything is written. @p transform rewrites its floats.
    Status add(const std::string& ggufName, const std::string& hfName, std::vector<std::int64_t> hfShape,
               std::function<std::vector<float>(std::vector<float>)> transform = {}, bool transpose = false)
    {
        const CheckpointTensorInfo* info = m_checkpoint.find(hfName);
        if (info == nullptr) {
            return {ErrorCode::InvalidFile, "the checkpoint lacks tensor '" + hfName + "'"};
        }
        std::vector<std::int64_t> actual = info->shape;
        if (actual != hfShape) {
            return {ErrorCode::InvalidFile, "tensor '" + hfName + "' has shape " + shapeText(actual) + ", config.json implies "
                                                + shapeText(hfShape)};
        }
        if (info->dtype != ElementType::F32 && info->dtype != ElementType::F16 && info->dtype != ElementType::BF16
            && info->dtype != ElementType::F64) {
            return {ErrorCode::Unsupported, "tensor '" + hfName + "' has type " + std::string(elementTypeName(info->dtype))
                                                + "; only floating-point checkpoints can be converted"};
        }
        PlannedTensor t;
        t.name = ggufName;
        if (hfShape.size() == 1) {
            t.shape = {hfShape[0]};
            t.type = DType::F32;
        } else {
            t.shape = transpose ? std::vector<std::int64_t>{hfShape[0], hfShape[1]}
                                : std::vector<std::int64_t>{hfShape[1], hfShape[0]};
            t.type = matrixType(m_type, t.shape[0]);
        }
        const HfCheckpoint* checkpoint = &m_checkpoint;
        t.values = [checkpoint, hfName, transform, transpose, hfShape]() -> Result<std::vector<float>> {
            auto values = checkpoint->read(hfName);
            if (!values) {
                return values.status();
            }
            std::vector<float> out = std::move(*values);
            if (transform) {
                out = transform(std::move(out));
            }
            if (transpose) {
                out = transposed(out, hfShape[0], hfShape[1]);
            }
            return out;
        };
        m_tensors.push_back(std::move(t));
        return {};
    }

    void addPredictor(const std::string& name, const TorchTensor* tensor, DType type)
    {
        PlannedTensor t;
        t.name = name;
        t.type = type;
        t.shape = {tensor->shape()[1], tensor->shape()[0]};
        t.values = [tensor]() -> Result<std::vector<float>> { return tensor->toFloat(); };
        m_tensors.push_back(std::move(t));
    }

    [[nodiscard]] std::vector<PlannedTensor>& tensors() { return m_tensors; }

private:
    const HfCheckpoint& m_checkpoint;
    DType m_type;
    std::vector<PlannedTensor> m_tensors;
};

void declareModelMetadata(gguf::GgufWriter& writer, const HfConfig& c, const ConvertOptions& options, bool sparse)
{
    const std::string p = c.ggufArchitecture + ".";
    writer.setString("general.architecture", c.ggufArchitecture);
    std::string name = c.name.empty() ? std::filesystem::path(options.modelFolder).filename().string() : c.name;
    if (name.empty()) {
        name = std::filesystem::path(options.modelFolder).parent_path().filename().string();
    }
    writer.setString("general.name", name);
    writer.setUInt32("general.file_type", fileTypeOf(options.type));
    if (options.type == DType::Q4_0 || options.type == DType::Q8_0) {
        writer.setUInt32("general.quantization_version", 2);
    }
    writer.setUInt32(p + "context_length", std::uint32_t(c.contextLength));
    writer.setUInt32(p + "embedding_length", std::uint32_t(c.hiddenSize));
    writer.setUInt32(p + "block_count", std::uint32_t(c.layerCount));
    writer.setUInt32(p + "feed_forward_length", std::uint32_t(c.intermediateSize));
    writer.setUInt32(p + "rope.dimension_count", std::uint32_t(c.headDim()));
    writer.setFloat32(p + "rope.freq_base", c.ropeTheta);
    if (c.ropeLinearFactor > 0.0f) {
        writer.setString(p + "rope.scaling.type", "linear");
        writer.setFloat32(p + "rope.scaling.factor", c.ropeLinearFactor);
    }
    writer.setUInt32(p + "attention.head_count", std::uint32_t(c.headCount));
    writer.setUInt32(p + "attention.head_count_kv", std::uint32_t(c.kvHeadCount));
    writer.setFloat32(p + "attention.layer_norm_rms_epsilon", c.rmsNormEps);
    writer.setUInt32(p + "vocab_size", std::uint32_t(c.vocabSize));
    writer.setString("hearth.ffn_activation", c.ffnActivation);
    if (sparse) {
        writer.setFloat32("powerinfer.sparse_threshold", options.sparseThreshold);
    }
}

// Writes the statistics file; the caller renames it into place.
Status writeStats(const std::string& path, const std::vector<std::vector<double>>& counts)
{
    double largest = 0.0;
    for (const auto& layer : counts) {
        for (const double c : layer) {
            largest = std::max(largest, c);
        }
    }
    gguf::GgufWriter writer;
    writer.setString("general.architecture", "hearth.activation_stats");
    writer.setUInt32("hearth.activation_stats.block_count", std::uint32_t(counts.size()));
    writer.setString("hearth.activation_stats.normalisation", "count / largest count of the model");
    writer.setFloat32("hearth.activation_stats.largest_count", float(largest));
    for (std::size_t l = 0; l < counts.size(); ++l) {
        writer.addTensor("blk." + std::to_string(l) + ".ffn_freq", DType::F32, {std::int64_t(counts[l].size())});
    }
    HEARTH_TRY(writer.begin(path));
    for (const auto& layer : counts) {
        std::vector<float> freq(layer.size());
        for (std::size_t i = 0; i < layer.size(); ++i) {
            freq[i] = largest > 0 ? float(layer[i] / largest) : 0.0f;
        }
        HEARTH_TRY(writer.writeTensorData(std::as_bytes(std::span<const float>(freq))));
    }
    return writer.finish();
}

Status convertInto(const ConvertOptions& options, const std::string& partial, const std::string& statsPartial,
                   ConvertReport& report)
{
    auto config = HfConfig::load(options.modelFolder);
    if (!config) {
        return config.status();
    }
    const HfConfig& c = *config;
    auto vocab = importTokenizer(options.modelFolder);
    if (!vocab) {
        return vocab.status();
    }
    if (vocab->tokens.size() > std::size_t(c.vocabSize)) {
        return {ErrorCode::InvalidFile, "the tokenizer has " + std::to_string(vocab->tokens.size())
                                            + " tokens but the model's vocab_size is " + std::to_string(c.vocabSize)};
    }
    vocab->padTo(std::size_t(c.vocabSize));

    auto checkpoint = HfCheckpoint::open(options.modelFolder);
    if (!checkpoint) {
        return checkpoint.status();
    }
    const bool sparse = !options.predictorFolder.empty();
    std::vector<PredictorLayer> predictors;
    if (sparse) {
        auto loaded = loadPredictors(options.predictorFolder, c.layerCount, c.hiddenSize, c.intermediateSize);
        if (!loaded) {
            return loaded.status();
        }
        predictors = std::move(*loaded);
    }
    std::vector<std::vector<double>> counts;
    if (!options.activationFolder.empty()) {
        auto loaded = loadActivationCounts(options.activationFolder, c.layerCount, c.intermediateSize);
        if (!loaded) {
            return loaded.status();
        }
        counts = std::move(*loaded);
    }

    // Plan and check every tensor before writing a byte.
    const std::int64_t embd = c.hiddenSize;
    const std::int64_t ff = c.intermediateSize;
    const std::int64_t kv = c.kvDim();
    const std::int64_t nVocab = c.vocabSize;
    Planner plan(*checkpoint, options.type);
    HEARTH_TRY(plan.add("token_embd.weight", "model.embed_tokens.weight", {nVocab, embd}));
    for (int l = 0; l < c.layerCount; ++l) {
        const std::string g = "blk." + std::to_string(l) + ".";
        const std::string h = "model.layers." + std::to_string(l) + ".";
        const int heads = c.headCount;
        const int kvHeads = c.kvHeadCount;
        HEARTH_TRY(plan.add(g + "attn_norm.weight", h + "input_layernorm.weight", {embd}));
        HEARTH_TRY(plan.add(g + "attn_q.weight", h + "self_attn.q_proj.weight", {embd, embd},
                            [heads, embd](std::vector<float> w) { return permuteForRope(w, heads, embd, embd); }));
        HEARTH_TRY(plan.add(g + "attn_k.weight", h + "self_attn.k_proj.weight", {kv, embd},
                            [kvHeads, kv, embd](std::vector<float> w) { return permuteForRope(w, kvHeads, kv, embd); }));
        HEARTH_TRY(plan.add(g + "attn_v.weight", h + "self_attn.v_proj.weight", {kv, embd}));
        HEARTH_TRY(plan.add(g + "attn_output.weight", h + "self_attn.o_proj.weight", {embd, embd}));
        HEARTH_TRY(plan.add(g + "ffn_norm.weight", h + "post_attention_layernorm.weight", {embd}));
        HEARTH_TRY(plan.add(g + "ffn_gate.weight", h + "mlp.gate_proj.weight", {ff, embd}));
        HEARTH_TRY(plan.add(g + "ffn_up.weight", h + "mlp.up_proj.weight", {ff, embd}));
        if (sparse) {
            // Neuron-major: row i holds neuron i's n_embd output weights.
            HEARTH_TRY(plan.add(g + "ffn_down_t.weight", h + "mlp.down_proj.weight", {embd, ff}, {}, true));
            const DType predictorType = options.type == DType::F32 ? DType::F32 : DType::F16;
            plan.addPredictor(g + "fc1.weight", &predictors[std::size_t(l)].fc1, predictorType);
            plan.addPredictor(g + "fc2.weight", &predictors[std::size_t(l)].fc2, predictorType);
        } else {
            HEARTH_TRY(plan.add(g + "ffn_down.weight", h + "mlp.down_proj.weight", {embd, ff}));
        }
    }
    HEARTH_TRY(plan.add("output_norm.weight", "model.norm.weight", {embd}));
    if (checkpoint->find("lm_head.weight") != nullptr) {
        HEARTH_TRY(plan.add("output.weight", "lm_head.weight", {nVocab, embd}));
    } else if (!c.tieWordEmbeddings) {
        return {ErrorCode::InvalidFile, "the checkpoint lacks 'lm_head.weight' and config.json does not tie it to the "
                                        "embeddings"};
    }

    std::uint64_t dataBytes = 0;
    for (const PlannedTensor& t : plan.tensors()) {
        dataBytes += t.bytes() + 64;
    }
    std::uint64_t vocabBytes = 0;
    for (const std::string& token : vocab->tokens) {
        vocabBytes += token.size() + 16;
    }
    for (const std::string& merge : vocab->merges) {
        vocabBytes += merge.size() + 8;
    }
    std::uint64_t statsBytes = 0;
    for (const auto& layer : counts) {
        statsBytes += layer.size() * 4 + 128;
    }
    HEARTH_TRY(checkFreeSpace(options.output, dataBytes + vocabBytes + statsBytes + (1u << 20)));

    gguf::GgufWriter writer(sparse ? gguf::Magic::PowerInfer : gguf::Magic::Gguf);
    declareModelMetadata(writer, c, options, sparse);
    vocab->writeTo(writer);
    for (const PlannedTensor& t : plan.tensors()) {
        writer.addTensor(t.name, t.type, t.shape);
    }
    HEARTH_TRY(writer.begin(partial));

    // The write takes ~90% of the time; loading and running the result the rest.
    std::uint64_t done = 0;
    std::vector<std::byte> bytes;
    for (const PlannedTensor& t : plan.tensors()) {
        auto values = t.values();
        if (!values) {
            return values.status();
        }
        const std::int64_t rowLength = t.shape[0];
        if (values->size() != std::size_t(rowLength * t.rows())) {
            return {ErrorCode::InvalidFile, "tensor '" + t.name + "' has the wrong number of elements"};
        }
        bytes.resize(t.bytes());
        const std::size_t stride = rowBytes(t.type, rowLength);
        for (std::int64_t r = 0; r < t.rows(); ++r) {
            cpu::quantizeRow(t.type, values->data() + r * rowLength, bytes.data() + std::size_t(r) * stride, rowLength);
        }
        HEARTH_TRY(writer.writeTensorData(bytes));
        done += t.bytes() + 64;
        if (options.progress && !options.progress(0.9f * float(double(done) / double(dataBytes)))) {
            return {ErrorCode::Cancelled, "the conversion was cancelled"};
        }
    }
    HEARTH_TRY(writer.finish());
    report.tensorCount = int(plan.tensors().size());
    report.sparse = sparse;

    if (!counts.empty()) {
        HEARTH_TRY(writeStats(statsPartial, counts));
    }
    if (options.verify) {
        // Loading is the last tenth of the progress bar.
        const ProgressCallback loading = [&options](float f) {
            return !options.progress || options.progress(0.9f + 0.099f * f);
        };
        HEARTH_TRY(verifyModelFile(partial, loading));
    }
    if (options.progress && !options.progress(1.0f)) {
        return {ErrorCode::Cancelled, "the conversion was cancelled"};
    }
    if (!counts.empty()) {
        HEARTH_TRY(commitFile(statsPartial, statsPathFor(options.output)));
        report.statsOutput = statsPathFor(options.output);
    }
    HEARTH_TRY(commitFile(partial, options.output));
    std::error_code ec;
    report.bytesWritten = std::filesystem::file_size(options.output, ec);
    report.output = options.output;
    return {};
}

} // namespace

std::string statsPathFor(const std::string& output)
{
    std::string base = output;
    constexpr std::string_view ext = ".gguf";
    if (base.size() > ext.size() && base.compare(base.size() - ext.size(), ext.size(), ext) == 0) {
        base.resize(base.size() - ext.size());
    }
    return base + ".hearth-stats.gguf";
}

std::vector<float> permuteForRope(const std::vector<float>& weights, int heads, std::int64_t rows, std::int64_t cols)
{
    // Within each head of d rows, HF's row j * d/2 + i (i < d/2, j in {0, 1}) becomes row 2i + j.
    std::vector<float> out(weights.size());
    const std::int64_t d = rows / heads;
    const std::int64_t half = d / 2;
    for (std::int64_t h = 0; h < heads; ++h) {
        for (std::int64_t i = 0; i < half; ++i) {
            for (std::int64_t j = 0; j < 2; ++j) {
                const float* from = weights.data() + (h * d + j * half + i) * cols;
                float* to = out.data() + (h * d + 2 * i + j) * cols;
                std::memcpy(to, from, std::size_t(cols) * sizeof(float));
            }
        }
    }
    return out;
}

Result<ConvertReport> convertHfModel(const ConvertOptions& options)
{
    if (options.modelFolder.empty() || options.output.empty()) {
        return Status(ErrorCode::InvalidArgument, "a model folder and an output file are needed");
    }
    if (!isComputeType(options.type)) {
        return Status(ErrorCode::InvalidArgument, "the output type must be f32, f16, q8_0 or q4_0");
    }
    const std::string partial = partialPath(options.output);
    const std::string statsPartial = partialPath(statsPathFor(options.output));
    ConvertReport report;
    Status status = convertInto(options, partial, statsPartial, report);
    if (!status.ok()) {
        discardFile(partial);
        discardFile(statsPartial);
        return status;
    }
    return report;
}

} // namespace hearth::convert
