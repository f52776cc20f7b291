// SPDX-License-Identifier: MIT
#include "convert/hf_to_gguf.h"

#include "convert/hf_checkpoint.h"
#include "convert/hf_config.h"
#include "convert/output_file.h"
#include "convert/predictor_import.h"
#include "convert/tokenizer_import.h"
#include "cpu/quant.h"
#include "gguf/gguf_writer.h"
#include "model/architecture.h"
#include "sparse/activation_profile.h"

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <functional>
#include <numeric>

namespace hearth::convert {

namespace {

// One tensor of the output: its GGUF name, type and shape, and how to compute its floats
// (row-major, shape[0] contiguous).
struct PlannedTensor {
    std::string name;
    DType type = DType::F32;
    std::vector<std::int64_t> shape; // GGUF order
    std::function<Result<std::vector<float>>()> values;

    // Rows of shape[0] values: every dimension past the first (a mixture's stacked experts have two).
    [[nodiscard]] std::int64_t rows() const
    {
        return std::accumulate(shape.begin() + 1, shape.end(), std::int64_t(1), std::multiplies<>());
    }
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
        HEARTH_TRY(check(hfName, hfShape));
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

    // A mixture's experts as one tensor (llama.cpp's ffn_*_exps): @p hfNames' matrices, each of
    // PyTorch shape @p hfShape, one after the other.
    Status addStacked(const std::string& ggufName, const std::vector<std::string>& hfNames,
                      const std::vector<std::int64_t>& hfShape)
    {
        for (const std::string& hfName : hfNames)
            HEARTH_TRY(check(hfName, hfShape));
        PlannedTensor t;
        t.name = ggufName;
        t.shape = {hfShape[1], hfShape[0], std::int64_t(hfNames.size())};
        t.type = matrixType(m_type, t.shape[0]);
        const HfCheckpoint* checkpoint = &m_checkpoint;
        t.values = [checkpoint, hfNames]() -> Result<std::vector<float>> {
            std::vector<float> out;
            for (const std::string& hfName : hfNames) {
                auto values = checkpoint->read(hfName);
                if (!values)
                    return values.status();
                out.insert(out.end(), values->begin(), values->end());
            }
            return out;
        };
        m_tensors.push_back(std::move(t));
        return {};
    }

    // A checkpoint tensor kept in F32 whatever the file's type, as llama-quantize keeps it (a
    // router), or, of PyTorch shape [1, n], as a vector of n (Qwen 2 MoE's shared expert gate).
    Status addF32(const std::string& ggufName, const std::string& hfName, std::vector<std::int64_t> hfShape)
    {
        HEARTH_TRY(add(ggufName, hfName, hfShape));
        PlannedTensor& t = m_tensors.back();
        t.type = DType::F32;
        if (hfShape.size() == 2 && hfShape[0] == 1)
            t.shape = {hfShape[1]};
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

    // A tensor computed from config.json alone (F32).
    void addComputed(const std::string& name, std::vector<float> values)
    {
        PlannedTensor t;
        t.name = name;
        t.shape = {std::int64_t(values.size())};
        t.values = [values = std::move(values)]() -> Result<std::vector<float>> { return values; };
        m_tensors.push_back(std::move(t));
    }

    [[nodiscard]] std::vector<PlannedTensor>& tensors() { return m_tensors; }

private:
    // Whether the checkpoint has @p hfName in @p hfShape, in a floating-point type.
    Status check(const std::string& hfName, const std::vector<std::int64_t>& hfShape) const
    {
        const CheckpointTensorInfo* info = m_checkpoint.find(hfName);
        if (info == nullptr) {
            return {ErrorCode::InvalidFile, "the checkpoint lacks tensor '" + hfName + "'"};
        }
        if (info->shape != hfShape) {
            return {ErrorCode::InvalidFile, "tensor '" + hfName + "' has shape " + shapeText(info->shape)
                                                + ", config.json implies " + shapeText(hfShape)};
        }
        if (info->dtype != ElementType::F32 && info->dtype != ElementType::F16 && info->dtype != ElementType::BF16
            && info->dtype != ElementType::F64) {
            return {ErrorCode::Unsupported, "tensor '" + hfName + "' has type " + std::string(elementTypeName(info->dtype))
                                                + "; only floating-point checkpoints can be converted"};
        }
        return {};
    }

    const HfCheckpoint& m_checkpoint;
    DType m_type;
    std::vector<PlannedTensor> m_tensors;
};

// @p sparseThreshold: set for a sparse file.
void declareModelMetadata(gguf::GgufWriter& writer, const HfConfig& c, const ConvertOptions& options,
                          std::optional<float> sparseThreshold)
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
    writer.setUInt32(p + "attention.head_count", std::uint32_t(c.headCount));
    if (c.upDownFfn()) {
        // The keys llama.cpp's falcon converter writes, and Hearth's for opt (opt_model.cpp).
        if (c.ggufArchitecture == "falcon") {
            writer.setUInt32(p + "attention.head_count_kv", std::uint32_t(c.kvHeadCount));
            writer.setFloat32(p + "rope.freq_base", c.ropeTheta);
        }
        writer.setFloat32(p + "attention.layer_norm_epsilon", c.layerNormEps);
    } else {
        writer.setUInt32(p + "rope.dimension_count", std::uint32_t(c.rotaryDims()));
        if (c.slidingWindow > 0) {
            writer.setUInt32(p + "attention.sliding_window", std::uint32_t(c.slidingWindow));
        }
        if (!c.longRopeShort.empty()) {
            writer.setUInt32(p + "rope.scaling.original_context_length", std::uint32_t(c.originalContextLength));
            writer.setFloat32(p + "rope.scaling.attn_factor", c.longRopeAttnFactor());
        }
        writer.setFloat32(p + "rope.freq_base", c.ropeTheta);
        if (c.ropeLocalTheta > 0.0f) {
            writer.setFloat32(p + "rope.freq_base_swa", c.ropeLocalTheta);
        }
        if (c.attnSoftCap > 0.0f) {
            writer.setFloat32(p + "attn_logit_softcapping", c.attnSoftCap);
        }
        if (c.finalSoftCap > 0.0f) {
            writer.setFloat32(p + "final_logit_softcapping", c.finalSoftCap);
        }
        if (c.ropeLinearFactor > 0.0f) {
            writer.setString(p + "rope.scaling.type", "linear");
            writer.setFloat32(p + "rope.scaling.factor", c.ropeLinearFactor);
        }
        writer.setUInt32(p + "attention.head_count_kv", std::uint32_t(c.kvHeadCount));
        if (c.qDim() != c.hiddenSize) {
            writer.setUInt32(p + "attention.key_length", std::uint32_t(c.headDim()));
            writer.setUInt32(p + "attention.value_length", std::uint32_t(c.headDim()));
        }
        writer.setFloat32(p + "attention.layer_norm_rms_epsilon", c.rmsNormEps);
        writer.setUInt32(p + "vocab_size", std::uint32_t(c.vocabSize));
    }
    if (c.expertCount > 0) {
        writer.setUInt32(p + "expert_count", std::uint32_t(c.expertCount));
        writer.setUInt32(p + "expert_used_count", std::uint32_t(c.expertsUsed));
        if (c.ggufArchitecture != "llama")
            writer.setUInt32(p + "expert_feed_forward_length", std::uint32_t(c.expertWidth));
        if (c.sharedExpertWidth > 0)
            writer.setUInt32(p + "expert_shared_feed_forward_length", std::uint32_t(c.sharedExpertWidth));
    }
    writer.setString("hearth.ffn_activation", c.ffnActivation);
    if (sparseThreshold) {
        writer.setFloat32("powerinfer.sparse_threshold", *sparseThreshold);
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

// The FFN down projection of a layer: as is, or neuron-major with the predictor for sparse files.
Status planDown(Planner& plan, const std::string& g, const std::string& hfName, const HfConfig& c,
                const std::vector<PredictorLayer>& predictors, int layer, DType type)
{
    const std::int64_t embd = c.hiddenSize;
    const std::int64_t ff = c.intermediateSize;
    if (predictors.empty()) {
        return plan.add(g + "ffn_down.weight", hfName, {embd, ff});
    }
    // Neuron-major: row i holds neuron i's n_embd output weights.
    HEARTH_TRY(plan.add(g + "ffn_down_t.weight", hfName, {embd, ff}, {}, true));
    const DType predictorType = type == DType::F32 ? DType::F32 : DType::F16;
    plan.addPredictor(g + "fc1.weight", &predictors[std::size_t(layer)].fc1, predictorType);
    plan.addPredictor(g + "fc2.weight", &predictors[std::size_t(layer)].fc2, predictorType);
    return {};
}

// Where a checkpoint keeps the text model: its layers and embeddings under `model`, the output
// matrix at `head`. A multimodal Gemma 3 checkpoint as Google published it says
// "language_model.model." and "language_model.lm_head.weight", re-saved by newer transformers
// "model.language_model." and "lm_head.weight".
struct TextModelNames {
    std::string model = "model.";
    std::string head = "lm_head.weight";
};

TextModelNames textModelNames(const HfConfig& c, const HfCheckpoint& checkpoint)
{
    if (!c.multimodal)
        return {};
    if (checkpoint.find("model.language_model.embed_tokens.weight") != nullptr)
        return {"model.language_model.", "lm_head.weight"};
    return {"language_model.model.", "language_model.lm_head.weight"};
}

// The output matrix of the llama family and Falcon: the checkpoint's lm_head (at @p head), or
// none when config.json ties the output to the embeddings (the loader then reuses token_embd).
Status planOutputHead(Planner& plan, const HfConfig& c, const HfCheckpoint& checkpoint,
                      const std::string& head = "lm_head.weight")
{
    if (checkpoint.find(head) != nullptr) {
        return plan.add("output.weight", head, {std::int64_t(c.vocabSize), std::int64_t(c.hiddenSize)});
    }
    if (!c.tieWordEmbeddings) {
        return {ErrorCode::InvalidFile, "the checkpoint lacks 'lm_head.weight' and config.json does not tie it to the "
                                        "embeddings"};
    }
    return {};
}

// A mixture's FFN in layer prefix @p g from Hugging Face layer prefix @p h: the router, the
// experts stacked (Mixtral's w1, w3, w2; Qwen's gate, up and down projections) and Qwen 2 MoE's
// shared expert with its gate.
Status planExperts(Planner& plan, const HfConfig& c, const std::string& g, const std::string& h)
{
    const std::int64_t embd = c.hiddenSize;
    const std::int64_t width = c.expertWidth;
    const bool mixtral = c.ggufArchitecture == "llama";
    const std::string moe = h + (mixtral ? "block_sparse_moe." : "mlp.");
    HEARTH_TRY(plan.addF32(g + "ffn_gate_inp.weight", moe + "gate.weight", {c.expertCount, embd}));
    const auto experts = [&](const char* mixtralName, const char* qwenName) {
        std::vector<std::string> names;
        for (int e = 0; e < c.expertCount; ++e)
            names.push_back(moe + "experts." + std::to_string(e) + "." + (mixtral ? mixtralName : qwenName) + ".weight");
        return names;
    };
    HEARTH_TRY(plan.addStacked(g + "ffn_gate_exps.weight", experts("w1", "gate_proj"), {width, embd}));
    HEARTH_TRY(plan.addStacked(g + "ffn_up_exps.weight", experts("w3", "up_proj"), {width, embd}));
    HEARTH_TRY(plan.addStacked(g + "ffn_down_exps.weight", experts("w2", "down_proj"), {embd, width}));
    if (c.sharedExpertWidth == 0)
        return {};
    const std::int64_t shared = c.sharedExpertWidth;
    HEARTH_TRY(plan.addF32(g + "ffn_gate_inp_shexp.weight", moe + "shared_expert_gate.weight", {1, embd}));
    HEARTH_TRY(plan.add(g + "ffn_gate_shexp.weight", moe + "shared_expert.gate_proj.weight", {shared, embd}));
    HEARTH_TRY(plan.add(g + "ffn_up_shexp.weight", moe + "shared_expert.up_proj.weight", {shared, embd}));
    return plan.add(g + "ffn_down_shexp.weight", moe + "shared_expert.down_proj.weight", {embd, shared});
}

Status planLlama(Planner& plan, const HfConfig& c, const HfCheckpoint& checkpoint,
                 const std::vector<PredictorLayer>& predictors, DType type)
{
    const std::int64_t embd = c.hiddenSize;
    const std::int64_t ff = c.intermediateSize;
    const std::int64_t q = c.qDim();
    const std::int64_t kv = c.kvDim();
    const std::int64_t nVocab = c.vocabSize;
    const model::Architecture* arch = model::findArchitecture(c.ggufArchitecture);
    const model::LlamaBlockFlavour flavour = arch ? arch->llama : model::LlamaBlockFlavour{};
    // llama's GGUF files rotate adjacent pairs, so its Q and K rows are permuted from Hugging
    // Face's halves; the NeoX families keep the checkpoint's order.
    const bool permute = flavour.rope == model::RopeStyle::Normal;
    // Gemma's RMSNorms scale by 1 + w; GGUF files store the factor.
    const float normOffset = c.normOffset;
    const auto addNorm = [&plan, normOffset](const std::string& gguf, const std::string& hf, std::int64_t size) {
        if (normOffset == 0.0f)
            return plan.add(gguf, hf, {size});
        return plan.add(gguf, hf, {size}, [normOffset](std::vector<float> w) {
            for (float& v : w)
                v += normOffset;
            return w;
        });
    };
    const TextModelNames names = textModelNames(c, checkpoint);
    const std::string& m = names.model;
    HEARTH_TRY(plan.add("token_embd.weight", m + "embed_tokens.weight", {nVocab, embd}));
    for (int l = 0; l < c.layerCount; ++l) {
        const std::string g = "blk." + std::to_string(l) + ".";
        const std::string h = m + "layers." + std::to_string(l) + ".";
        const int heads = c.headCount;
        const int kvHeads = c.kvHeadCount;
        HEARTH_TRY(addNorm(g + "attn_norm.weight", h + "input_layernorm.weight", embd));
        if (flavour.fusedGateUp) {
            // Phi-3 stores Q | K | V as one matrix, as its GGUF files do.
            HEARTH_TRY(plan.add(g + "attn_qkv.weight", h + "self_attn.qkv_proj.weight", {q + 2 * kv, embd}));
        } else if (permute) {
            HEARTH_TRY(plan.add(g + "attn_q.weight", h + "self_attn.q_proj.weight", {q, embd},
                                [heads, q, embd](std::vector<float> w) { return permuteForRope(w, heads, q, embd); }));
            HEARTH_TRY(plan.add(g + "attn_k.weight", h + "self_attn.k_proj.weight", {kv, embd},
                                [kvHeads, kv, embd](std::vector<float> w) { return permuteForRope(w, kvHeads, kv, embd); }));
        } else {
            HEARTH_TRY(plan.add(g + "attn_q.weight", h + "self_attn.q_proj.weight", {q, embd}));
            HEARTH_TRY(plan.add(g + "attn_k.weight", h + "self_attn.k_proj.weight", {kv, embd}));
        }
        if (!flavour.fusedGateUp)
            HEARTH_TRY(plan.add(g + "attn_v.weight", h + "self_attn.v_proj.weight", {kv, embd}));
        HEARTH_TRY(plan.add(g + "attn_output.weight", h + "self_attn.o_proj.weight", {embd, q}));
        if (flavour.qkvBias) {
            HEARTH_TRY(plan.add(g + "attn_q.bias", h + "self_attn.q_proj.bias", {q}));
            HEARTH_TRY(plan.add(g + "attn_k.bias", h + "self_attn.k_proj.bias", {kv}));
            HEARTH_TRY(plan.add(g + "attn_v.bias", h + "self_attn.v_proj.bias", {kv}));
        }
        if (flavour.qkNorm) {
            HEARTH_TRY(addNorm(g + "attn_q_norm.weight", h + "self_attn.q_norm.weight", c.headDim()));
            HEARTH_TRY(addNorm(g + "attn_k_norm.weight", h + "self_attn.k_norm.weight", c.headDim()));
        }
        if (flavour.postNorms) {
            // Gemma: a norm before and after each of attention and FFN.
            HEARTH_TRY(addNorm(g + "post_attention_norm.weight", h + "post_attention_layernorm.weight", embd));
            HEARTH_TRY(addNorm(g + "ffn_norm.weight", h + "pre_feedforward_layernorm.weight", embd));
            HEARTH_TRY(addNorm(g + "post_ffw_norm.weight", h + "post_feedforward_layernorm.weight", embd));
        } else {
            HEARTH_TRY(addNorm(g + "ffn_norm.weight", h + "post_attention_layernorm.weight", embd));
        }
        if (c.expertCount > 0) {
            HEARTH_TRY(planExperts(plan, c, g, h));
        } else if (flavour.fusedGateUp) {
            // The gate's rows, then the up projection's, as Phi-3's GGUF files keep them.
            HEARTH_TRY(plan.add(g + "ffn_up.weight", h + "mlp.gate_up_proj.weight", {2 * ff, embd}));
        } else {
            HEARTH_TRY(plan.add(g + "ffn_gate.weight", h + "mlp.gate_proj.weight", {ff, embd}));
            HEARTH_TRY(plan.add(g + "ffn_up.weight", h + "mlp.up_proj.weight", {ff, embd}));
        }
        if (c.expertCount == 0)
            HEARTH_TRY(planDown(plan, g, h + "mlp.down_proj.weight", c, predictors, l, type));
    }
    HEARTH_TRY(addNorm("output_norm.weight", m + "norm.weight", embd));
    if (c.llama3Rope.factor > 0.0f)
        plan.addComputed("rope_freqs.weight", model::llama3RopeFactors(c.headDim(), c.ropeTheta, c.llama3Rope));
    if (!c.longRopeShort.empty()) {
        const std::size_t pairs = std::size_t(c.rotaryDims() / 2);
        if (c.longRopeShort.size() != pairs || c.longRopeLong.size() != pairs)
            return {ErrorCode::InvalidFile, "the longrope factors are not one per rotated pair (" + std::to_string(pairs) + ")"};
        plan.addComputed("rope_factors_short.weight", c.longRopeShort);
        plan.addComputed("rope_factors_long.weight", c.longRopeLong);
    }
    return planOutputHead(plan, c, checkpoint, names.head);
}

Status planFalcon(Planner& plan, const HfConfig& c, const HfCheckpoint& checkpoint,
                  const std::vector<PredictorLayer>& predictors, DType type)
{
    const std::int64_t embd = c.hiddenSize;
    const std::int64_t ff = c.intermediateSize;
    const std::int64_t nVocab = c.vocabSize;
    const std::int64_t qkvRows = std::int64_t(c.headCount + 2 * c.kvHeadCount) * c.headDim();
    HEARTH_TRY(plan.add("token_embd.weight", "transformer.word_embeddings.weight", {nVocab, embd}));
    // Two LayerNorms per layer (ln_attn for attention, ln_mlp for the FFN) in Falcon-40B's new
    // decoder architecture; one shared input_layernorm otherwise.
    const bool twoNorms = checkpoint.find("transformer.h.0.ln_attn.weight") != nullptr;
    const int heads = c.headCount;
    const int kvHeads = c.kvHeadCount;
    const std::int64_t headDim = c.headDim();
    for (int l = 0; l < c.layerCount; ++l) {
        const std::string g = "blk." + std::to_string(l) + ".";
        const std::string h = "transformer.h." + std::to_string(l) + ".";
        const std::string norm = twoNorms ? "ln_attn" : "input_layernorm";
        HEARTH_TRY(plan.add(g + "attn_norm.weight", h + norm + ".weight", {embd}));
        HEARTH_TRY(plan.add(g + "attn_norm.bias", h + norm + ".bias", {embd}));
        if (twoNorms) {
            HEARTH_TRY(plan.add(g + "attn_norm_2.weight", h + "ln_mlp.weight", {embd}));
            HEARTH_TRY(plan.add(g + "attn_norm_2.bias", h + "ln_mlp.bias", {embd}));
        }
        HEARTH_TRY(plan.add(g + "attn_qkv.weight", h + "self_attention.query_key_value.weight", {qkvRows, embd},
                            [heads, kvHeads, headDim, embd](std::vector<float> w) {
                                return falconQkvToGguf(w, heads, kvHeads, headDim, embd);
                            }));
        HEARTH_TRY(plan.add(g + "attn_output.weight", h + "self_attention.dense.weight", {embd, embd}));
        HEARTH_TRY(plan.add(g + "ffn_up.weight", h + "mlp.dense_h_to_4h.weight", {ff, embd}));
        HEARTH_TRY(planDown(plan, g, h + "mlp.dense_4h_to_h.weight", c, predictors, l, type));
    }
    HEARTH_TRY(plan.add("output_norm.weight", "transformer.ln_f.weight", {embd}));
    HEARTH_TRY(plan.add("output_norm.bias", "transformer.ln_f.bias", {embd}));
    return planOutputHead(plan, c, checkpoint);
}

Status planOpt(Planner& plan, const HfConfig& c, const HfCheckpoint& checkpoint,
               const std::vector<PredictorLayer>& predictors, DType type)
{
    const std::int64_t embd = c.hiddenSize;
    const std::int64_t ff = c.intermediateSize;
    const std::int64_t nVocab = c.vocabSize;
    // OPTForCausalLM checkpoints name the decoder "model.decoder."; some older ones "decoder.".
    const std::string d = checkpoint.find("model.decoder.embed_tokens.weight") != nullptr ? "model.decoder." : "decoder.";
    HEARTH_TRY(plan.add("token_embd.weight", d + "embed_tokens.weight", {nVocab, embd}));
    // Hugging Face's table has two rows more than the context (OPT's offset of 2, which the
    // loader infers from the row count).
    HEARTH_TRY(plan.add("position_embd.weight", d + "embed_positions.weight", {std::int64_t(c.contextLength) + 2, embd}));
    for (int l = 0; l < c.layerCount; ++l) {
        const std::string g = "blk." + std::to_string(l) + ".";
        const std::string h = d + "layers." + std::to_string(l) + ".";
        HEARTH_TRY(plan.add(g + "attn_norm.weight", h + "self_attn_layer_norm.weight", {embd}));
        HEARTH_TRY(plan.add(g + "attn_norm.bias", h + "self_attn_layer_norm.bias", {embd}));
        for (const auto& [gguf, hf] : {std::pair{"attn_q", "q_proj"}, std::pair{"attn_k", "k_proj"},
                                       std::pair{"attn_v", "v_proj"}, std::pair{"attn_output", "out_proj"}}) {
            HEARTH_TRY(plan.add(g + gguf + ".weight", h + "self_attn." + hf + ".weight", {embd, embd}));
            HEARTH_TRY(plan.add(g + gguf + ".bias", h + "self_attn." + hf + ".bias", {embd}));
        }
        HEARTH_TRY(plan.add(g + "ffn_norm.weight", h + "final_layer_norm.weight", {embd}));
        HEARTH_TRY(plan.add(g + "ffn_norm.bias", h + "final_layer_norm.bias", {embd}));
        HEARTH_TRY(plan.add(g + "ffn_up.weight", h + "fc1.weight", {ff, embd}));
        HEARTH_TRY(plan.add(g + "ffn_up.bias", h + "fc1.bias", {ff}));
        HEARTH_TRY(planDown(plan, g, h + "fc2.weight", c, predictors, l, type));
        HEARTH_TRY(plan.add(g + "ffn_down.bias", h + "fc2.bias", {embd}));
    }
    HEARTH_TRY(plan.add("output_norm.weight", d + "final_layer_norm.weight", {embd}));
    HEARTH_TRY(plan.add("output_norm.bias", d + "final_layer_norm.bias", {embd}));
    // OPT ties the output to the embeddings; a checkpoint with its own lm_head keeps it.
    if (!c.tieWordEmbeddings && checkpoint.find("lm_head.weight") != nullptr) {
        return plan.add("output.weight", "lm_head.weight", {nVocab, embd});
    }
    return {};
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
    if (c.ggufArchitecture == "falcon" && vocab->model == "gpt2") {
        vocab->pre = "falcon"; // Falcon splits digits and punctuation its own way (llama.cpp's "falcon")
    }

    auto checkpoint = HfCheckpoint::open(options.modelFolder);
    if (!checkpoint) {
        return checkpoint.status();
    }
    const bool sparse = !options.predictorFolder.empty();
    if (c.expertCount > 0 && (sparse || !options.activationFolder.empty())) {
        return {ErrorCode::Unsupported, "PowerInfer's predictor and activation folders are for dense FFNs, not for a "
                                        "mixture of experts"};
    }
    std::vector<PredictorLayer> predictors;
    std::optional<float> threshold;
    if (sparse) {
        auto loaded = loadPredictors(options.predictorFolder, c.layerCount, c.hiddenSize, c.intermediateSize);
        if (!loaded) {
            return loaded.status();
        }
        predictors = std::move(*loaded);
        // An explicit threshold wins over the one the predictors were trained with.
        auto trained = predictorSparseThreshold(options.predictorFolder);
        if (!trained) {
            return trained.status();
        }
        threshold = options.sparseThreshold.value_or(trained->value_or(0.0f));
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
    Planner plan(*checkpoint, options.type);
    if (c.ggufArchitecture == "falcon") {
        HEARTH_TRY(planFalcon(plan, c, *checkpoint, predictors, options.type));
    } else if (c.ggufArchitecture == "opt") {
        HEARTH_TRY(planOpt(plan, c, *checkpoint, predictors, options.type));
    } else {
        HEARTH_TRY(planLlama(plan, c, *checkpoint, predictors, options.type));
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
    declareModelMetadata(writer, c, options, threshold);
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
    report.sparseThreshold = threshold.value_or(0.0f);

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
    return sparse::defaultStatsPath(output);
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

std::vector<float> falconQkvToGguf(const std::vector<float>& weights, int heads, int kvHeads, std::int64_t headDim,
                                   std::int64_t cols)
{
    // Hugging Face groups the fused rows per KV head: [q_0 .. q_{g-1}, k, v] with g = heads /
    // kvHeads query heads per group (multi-query: one group; falcon-rw: one query per group).
    std::vector<float> out(weights.size());
    const int group = heads / kvHeads;
    const std::size_t headBytes = std::size_t(headDim * cols) * sizeof(float);
    auto src = [&](int g, int slot) { return weights.data() + (std::int64_t(g) * (group + 2) + slot) * headDim * cols; };
    for (int g = 0; g < kvHeads; ++g) {
        for (int j = 0; j < group; ++j)
            std::memcpy(out.data() + (std::int64_t(g) * group + j) * headDim * cols, src(g, j), headBytes);
        std::memcpy(out.data() + (std::int64_t(heads) + g) * headDim * cols, src(g, group), headBytes);
        std::memcpy(out.data() + (std::int64_t(heads) + kvHeads + g) * headDim * cols, src(g, group + 1), headBytes);
    }
    return out;
}

Result<ConvertReport> convertHfModel(const ConvertOptions& options)
{
    if (options.modelFolder.empty() || options.output.empty()) {
        return Status(ErrorCode::InvalidArgument, "a model folder and an output file are needed");
    }
    if (options.type != DType::F32 && options.type != DType::F16 && options.type != DType::Q8_0 && options.type != DType::Q4_0) {
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
