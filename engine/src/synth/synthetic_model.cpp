// SPDX-License-Identifier: MIT
#include "synth/synthetic_model.h"

#include "cpu/quant.h"
#include "gguf/gguf_writer.h"
#include "model/architecture.h"
#include "synth/random.h"
#include "synth/synthetic_families.h"
#include "synth/synthetic_sparse.h"
#include "synth/synthetic_vocab.h"

#include <sys/statvfs.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <span>

namespace hearth::synth {

namespace {

// A Zephyr-style template (TinyLlama-Chat's): role markers are plain text, so it works with
// any vocabulary, and a turn ends with EOS.
constexpr const char* kChatTemplate =
    "{% for message in messages %}"
    "{{ '<|' + message['role'] + '|>\n' + message['content'] + eos_token + '\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|assistant|>\n' }}{% endif %}";

// Rows are generated and converted this many floats at a time, whatever the model size.
constexpr std::int64_t kBlockElements = std::int64_t{1} << 20;

std::uint32_t fileTypeOf(DType type)
{
    // llama.cpp's llama_ftype: ALL_F32, MOSTLY_F16, MOSTLY_Q4_0, MOSTLY_Q8_0.
    switch (type) {
    case DType::F32: return 0;
    case DType::F16: return 1;
    case DType::Q4_0: return 2;
    case DType::Q8_0: return 7;
    case DType::MXFP4: return 38; // MOSTLY_MXFP4_MOE
    default: return 0;
    }
}

std::uint64_t tensorBytes(const SynthTensor& t)
{
    std::int64_t rows = 1;
    for (std::size_t i = 1; i < t.shape.size(); ++i)
        rows *= t.shape[i];
    return static_cast<std::uint64_t>(rowBytes(t.type, t.shape[0])) * static_cast<std::uint64_t>(rows);
}

std::string lowerCase(std::string s)
{
    for (char& c : s)
        c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    return s;
}

// Phi-3's LongRoPE magnitude correction: sqrt(1 + ln(scale) / ln(original context)).
float longRopeAttnFactor(const ModelShape& s)
{
    const double scale = double(s.contextLength) / double(s.longRopeOriginalContext);
    return scale <= 1.0 ? 1.0f : float(std::sqrt(1.0 + std::log(scale) / std::log(double(s.longRopeOriginalContext))));
}

// LongRoPE factors: 1 for the fastest pairs, rising to @p top for the slowest.
std::vector<float> longRopeFactors(int pairs, float top)
{
    std::vector<float> f(static_cast<std::size_t>(pairs));
    for (int i = 0; i < pairs; ++i)
        f[std::size_t(i)] = 1.0f + (top - 1.0f) * float(i) / float(std::max(1, pairs - 1));
    return f;
}

// "llama, bamboo, qwen2, ...": the architectures the generator writes.
std::string knownArchitectureList()
{
    std::string list;
    for (const model::Architecture* a : model::architectures())
        list += (list.empty() ? "" : ", ") + std::string(a->name);
    return list;
}

void declareMetadata(gguf::GgufWriter& writer, const SynthOptions& options, const SyntheticVocab& vocab)
{
    const ModelShape& s = options.shape;
    const std::string& arch = options.architecture;
    const auto key = [&arch](const char* name) { return arch + "." + name; };
    writer.setString("general.architecture", arch);
    writer.setString("general.name", "hearth-synth " + s.name + " " + lowerCase(std::string(dtypeName(options.type))));
    writer.setUInt32("general.file_type", fileTypeOf(options.type));
    if (options.type == DType::Q4_0 || options.type == DType::Q8_0)
        writer.setUInt32("general.quantization_version", 2);
    writer.setUInt32(key("context_length"), static_cast<std::uint32_t>(s.contextLength));
    writer.setUInt32(key("embedding_length"), static_cast<std::uint32_t>(s.embeddingSize));
    writer.setUInt32(key("block_count"), static_cast<std::uint32_t>(s.layerCount));
    writer.setUInt32(key("feed_forward_length"), static_cast<std::uint32_t>(s.feedForwardSize));
    writer.setUInt32(key("rope.dimension_count"), static_cast<std::uint32_t>(s.headDim()));
    writer.setFloat32(key("rope.freq_base"), s.ropeFreqBase);
    writer.setUInt32(key("attention.head_count"), static_cast<std::uint32_t>(s.headCount));
    writer.setUInt32(key("attention.head_count_kv"), static_cast<std::uint32_t>(s.kvHeadCount));
    if (s.keyLength > 0) {
        writer.setUInt32(key("attention.key_length"), static_cast<std::uint32_t>(s.keyLength));
        writer.setUInt32(key("attention.value_length"), static_cast<std::uint32_t>(s.keyLength));
    }
    if (s.attnSoftCap > 0)
        writer.setFloat32(key("attn_logit_softcapping"), s.attnSoftCap);
    if (s.finalSoftCap > 0)
        writer.setFloat32(key("final_logit_softcapping"), s.finalSoftCap);
    if (s.slidingWindow > 0)
        writer.setUInt32(key("attention.sliding_window"), static_cast<std::uint32_t>(s.slidingWindow));
    if (s.ropeLinearFactor > 0) {
        writer.setString(key("rope.scaling.type"), "linear");
        writer.setFloat32(key("rope.scaling.factor"), s.ropeLinearFactor);
    }
    if (s.ropeYarnFactor > 0) {
        writer.setString(key("rope.scaling.type"), "yarn");
        writer.setFloat32(key("rope.scaling.factor"), s.ropeYarnFactor);
        writer.setUInt32(key("rope.scaling.original_context_length"), static_cast<std::uint32_t>(s.yarnOriginalContext));
    }
    if (s.longRopeOriginalContext > 0) {
        writer.setUInt32(key("rope.scaling.original_context_length"), static_cast<std::uint32_t>(s.longRopeOriginalContext));
        writer.setFloat32(key("rope.scaling.attn_factor"), longRopeAttnFactor(s));
    }
    if (s.expertCount > 0) {
        writer.setUInt32(key("expert_count"), static_cast<std::uint32_t>(s.expertCount));
        writer.setUInt32(key("expert_used_count"), static_cast<std::uint32_t>(s.expertUsedCount));
        if (s.expertFeedForwardSize > 0)
            writer.setUInt32(key("expert_feed_forward_length"), static_cast<std::uint32_t>(s.expertFeedForwardSize));
        if (s.sharedExpertFeedForwardSize > 0)
            writer.setUInt32(key("expert_shared_feed_forward_length"),
                             static_cast<std::uint32_t>(s.sharedExpertFeedForwardSize));
        if (s.expertGating > 0)
            writer.setUInt32(key("expert_gating_func"), static_cast<std::uint32_t>(s.expertGating));
    }
    writer.setFloat32(key("attention.layer_norm_rms_epsilon"), s.rmsNormEpsilon);
    writer.setUInt32(key("vocab_size"), static_cast<std::uint32_t>(s.vocabSize));
    writer.setString("hearth.ffn_activation", options.ffnActivation);
    writer.setUInt64("hearth.synth.seed", options.seed);

    writer.setString("tokenizer.ggml.model", "llama");
    writer.setStringArray("tokenizer.ggml.tokens", vocab.tokens);
    writer.setFloat32Array("tokenizer.ggml.scores", vocab.scores);
    writer.setInt32Array("tokenizer.ggml.token_type", vocab.types);
    writer.setUInt32("tokenizer.ggml.unknown_token_id", SyntheticVocab::kUnk);
    writer.setUInt32("tokenizer.ggml.bos_token_id", SyntheticVocab::kBos);
    writer.setUInt32("tokenizer.ggml.eos_token_id", SyntheticVocab::kEos);
    writer.setBool("tokenizer.ggml.add_bos_token", true);
    writer.setBool("tokenizer.ggml.add_eos_token", false);
    writer.setString("tokenizer.chat_template", options.chatTemplate.empty() ? kChatTemplate : options.chatTemplate);
}

// Generates and converts one tensor row block by row block, handing the bytes to the writer.
class TensorStream {
public:
    TensorStream(gguf::GgufWriter& writer, std::uint64_t seed)
        : m_writer(writer)
        , m_seed(seed)
    {
    }

    Status write(const SynthTensor& t, std::size_t tensorIndex, const std::function<bool(std::uint64_t)>& advance)
    {
        const std::int64_t rowLength = t.shape[0];
        std::int64_t rows = 1;
        for (std::size_t i = 1; i < t.shape.size(); ++i)
            rows *= t.shape[i];
        const std::size_t bytesPerRow = rowBytes(t.type, rowLength);
        const std::int64_t rowsPerBlock = std::max<std::int64_t>(1, kBlockElements / rowLength);
        const std::uint64_t tensorSeed = mixSeed(m_seed, tensorIndex + 1);

        // GgufWriter::writeTensorData takes one tensor's bytes in one call, so the converted
        // tensor is gathered here (the largest, Llama-2-7B's F16 embedding, is 262 MB); the
        // float rows themselves never exceed one block.
        m_data.resize(bytesPerRow * static_cast<std::size_t>(rows));
        m_floats.resize(static_cast<std::size_t>(rowsPerBlock * rowLength));

        for (std::int64_t row0 = 0; row0 < rows; row0 += rowsPerBlock) {
            const std::int64_t blockRows = std::min(rowsPerBlock, rows - row0);
            for (std::int64_t r = 0; r < blockRows; ++r) {
                SplitMix64 rng(mixSeed(tensorSeed, static_cast<std::uint64_t>(row0 + r)));
                float* x = m_floats.data() + r * rowLength;
                const float mean = t.rowMeans.empty() ? t.mean : t.rowMeans[std::size_t(row0 + r)];
                for (std::int64_t i = 0; i < rowLength; ++i)
                    x[i] = t.values.empty() ? mean + t.stddev * rng.nextNormal() : t.values[std::size_t((row0 + r) * rowLength + i)];
                std::byte* out = m_data.data() + static_cast<std::size_t>(row0 + r) * bytesPerRow;
                if (t.type == DType::F32)
                    std::memcpy(out, x, bytesPerRow);
                else
                    cpu::quantizeRow(t.type, x, out, rowLength);
            }
            if (advance && !advance(static_cast<std::uint64_t>(blockRows) * bytesPerRow))
                return {ErrorCode::Cancelled, "generation cancelled"};
        }
        return m_writer.writeTensorData(std::span<const std::byte>(m_data.data(), m_data.size()));
    }

private:
    gguf::GgufWriter& m_writer;
    std::uint64_t m_seed;
    std::vector<std::byte> m_data;
    std::vector<float> m_floats;
};

Status checkFreeSpace(const std::string& path, std::uint64_t needed)
{
    std::filesystem::path dir = std::filesystem::path(path).parent_path();
    if (dir.empty())
        dir = ".";
    struct statvfs fs {};
    if (::statvfs(dir.c_str(), &fs) != 0)
        return {ErrorCode::IoError, "cannot access the output folder '" + dir.string() + "': " + std::strerror(errno)};
    const std::uint64_t available = static_cast<std::uint64_t>(fs.f_bavail) * fs.f_frsize;
    if (available < needed) {
        auto mib = [](std::uint64_t b) { return std::to_string((b + (1u << 20) - 1) >> 20); };
        return {ErrorCode::IoError, "not enough disk space in '" + dir.string() + "': the model needs " + mib(needed)
                                        + " MiB, " + mib(available) + " MiB are free"};
    }
    return {};
}

} // namespace

Status validateOptions(const SynthOptions& options)
{
    if (isFamilyArchitecture(options.architecture))
        return validateFamilyOptions(options);
    const model::Architecture* arch = model::findArchitecture(options.architecture);
    if (!arch || arch->block != model::BlockKind::Llama)
        return {ErrorCode::InvalidArgument, "unknown architecture '" + options.architecture + "' (use "
                                                + knownArchitectureList() + ")"};
    HEARTH_TRY(options.shape.validate());
    if (!isCpuWeightType(options.type))
        return {ErrorCode::InvalidArgument, "the weight type must be one Hearth computes with (f32, f16, q8_0, q4_k, ...)"};
    const auto block = std::int64_t(dtypeTraits(std::uint32_t(options.type))->blockElements);
    if (options.shape.embeddingSize % block != 0 || options.shape.feedForwardSize % block != 0
        || options.shape.expertWidth() % block != 0 || options.shape.sharedExpertFeedForwardSize % block != 0)
        return {ErrorCode::InvalidArgument, std::string(dtypeName(options.type)) + " needs rows of whole " + std::to_string(block)
                                                + "-weight blocks; use a shape such as tiny-256"};
    const std::string& a = options.ffnActivation;
    if (!model::parseFfnActivation(a))
        return {ErrorCode::InvalidArgument, "FFN activation must be swiglu, reglu, drelu, relu2, geglu or swiglu-oai, not '" + a + "'"};
    if (options.activationSparsity != 0.0) {
        if (!(options.activationSparsity > 0.0 && options.activationSparsity < 1.0))
            return {ErrorCode::InvalidArgument, "the activation sparsity must be in (0, 1)"};
        if (a != "reglu" && a != "drelu" && a != "relu2")
            return {ErrorCode::InvalidArgument, "activation sparsity needs a ReLU FFN (reglu, drelu or relu2)"};
        if (options.shape.expertCount > 0 || arch->llama.fusedGateUp)
            return {ErrorCode::InvalidArgument, "activation sparsity needs separate ffn_gate and ffn_up matrices"};
    }
    return {};
}

std::vector<SynthTensor> plannedTensors(const SynthOptions& options)
{
    if (isFamilyArchitecture(options.architecture))
        return plannedFamilyTensors(options);
    const ModelShape& s = options.shape;
    const model::Architecture* arch = model::findArchitecture(options.architecture);
    const model::LlamaBlockFlavour flavour = arch ? arch->llama : model::LlamaBlockFlavour{};
    const std::int64_t embd = s.embeddingSize;
    const std::int64_t ff = s.feedForwardSize;
    const std::int64_t q = s.qEmbeddingSize();
    const std::int64_t kv = s.kvEmbeddingSize();
    const std::int64_t head = s.headDim();
    const std::int64_t vocab = s.vocabSize;
    const DType w = options.type;
    // std ~ 1/sqrt(n_in) keeps every matrix-vector product near unit scale, so activations stay
    // sane through any number of layers (RMSNorm renormalises the residual stream anyway).
    auto scale = [](std::int64_t nIn) { return 1.0f / std::sqrt(static_cast<float>(nIn)); };
    constexpr float kNormSpread = 0.05f; // norms near 1, but not all equal

    // Activation locality: the shared offset of the embeddings (see activationLocalityGateMeans).
    const bool locality = options.activationSparsity > 0.0;
    std::vector<SynthTensor> t;
    t.push_back({"token_embd.weight", {embd, vocab}, w, locality ? 1.0f : 0.0f, 1.0f});
    for (int l = 0; l < s.layerCount; ++l) {
        const std::string p = "blk." + std::to_string(l) + ".";
        t.push_back({p + "attn_norm.weight", {embd}, DType::F32, 1.0f, kNormSpread});
        if (flavour.fusedGateUp) {
            // Phi-3 fuses its products: Q | K | V in one matrix, gate | up in another.
            t.push_back({p + "attn_qkv.weight", {embd, q + 2 * kv}, w, 0.0f, scale(embd)});
        } else {
            t.push_back({p + "attn_q.weight", {embd, q}, w, 0.0f, scale(embd)});
            t.push_back({p + "attn_k.weight", {embd, kv}, w, 0.0f, scale(embd)});
            t.push_back({p + "attn_v.weight", {embd, kv}, w, 0.0f, scale(embd)});
        }
        t.push_back({p + "attn_output.weight", {q, embd}, w, 0.0f, scale(q)});
        if (flavour.outputBias)
            t.push_back({p + "attn_output.bias", {embd}, DType::F32, 0.0f, 0.1f});
        if (flavour.attentionSinks)
            t.push_back({p + "attn_sinks.weight", {s.headCount}, DType::F32, 0.0f, 1.0f});
        if (flavour.qkvBias) {
            // Qwen's biases are large next to the products (some k biases reach tens).
            t.push_back({p + "attn_q.bias", {q}, DType::F32, 0.0f, 0.5f});
            t.push_back({p + "attn_k.bias", {kv}, DType::F32, 0.0f, 0.5f});
            t.push_back({p + "attn_v.bias", {kv}, DType::F32, 0.0f, 0.5f});
        }
        if (flavour.qkNorm) {
            t.push_back({p + "attn_q_norm.weight", {head}, DType::F32, 1.0f, kNormSpread});
            t.push_back({p + "attn_k_norm.weight", {head}, DType::F32, 1.0f, kNormSpread});
        }
        if (flavour.postNorms)
            t.push_back({p + "post_attention_norm.weight", {embd}, DType::F32, 1.0f, kNormSpread});
        t.push_back({p + std::string(flavour.ffnNorm) + ".weight", {embd}, DType::F32, 1.0f, kNormSpread});
        if (s.expertCount > 0) {
            // The router stays F32, as llama-quantize keeps it; the experts are stacked.
            const std::int64_t experts = s.expertCount;
            const std::int64_t width = s.expertWidth();
            const std::int64_t shared = s.sharedExpertFeedForwardSize;
            t.push_back({p + "ffn_gate_inp.weight", {embd, experts}, DType::F32, 0.0f, scale(embd)});
            t.push_back({p + "ffn_gate_exps.weight", {embd, width, experts}, w, 0.0f, scale(embd)});
            t.push_back({p + "ffn_up_exps.weight", {embd, width, experts}, w, 0.0f, scale(embd)});
            t.push_back({p + "ffn_down_exps.weight", {width, embd, experts}, w, 0.0f, scale(width)});
            if (flavour.expertBiases) {
                t.push_back({p + "ffn_gate_inp.bias", {experts}, DType::F32, 0.0f, 0.5f});
                t.push_back({p + "ffn_gate_exps.bias", {width, experts}, DType::F32, 0.0f, 0.1f});
                t.push_back({p + "ffn_up_exps.bias", {width, experts}, DType::F32, 0.0f, 0.1f});
                t.push_back({p + "ffn_down_exps.bias", {embd, experts}, DType::F32, 0.0f, 0.1f});
            }
            if (shared > 0) {
                t.push_back({p + "ffn_gate_inp_shexp.weight", {embd}, DType::F32, 0.0f, scale(embd)});
                t.push_back({p + "ffn_gate_shexp.weight", {embd, shared}, w, 0.0f, scale(embd)});
                t.push_back({p + "ffn_up_shexp.weight", {embd, shared}, w, 0.0f, scale(embd)});
                t.push_back({p + "ffn_down_shexp.weight", {shared, embd}, w, 0.0f, scale(shared)});
            }
        } else {
            if (flavour.fusedGateUp) {
                t.push_back({p + "ffn_up.weight", {embd, 2 * ff}, w, 0.0f, scale(embd)});
            } else {
                t.push_back({p + "ffn_gate.weight", {embd, ff}, w, 0.0f, scale(embd)});
                if (locality)
                    t.back().rowMeans = activationLocalityGateMeans(embd, ff, options.activationSparsity,
                                                                    mixSeed(options.seed, std::uint64_t(l)));
                t.push_back({p + "ffn_up.weight", {embd, ff}, w, 0.0f, scale(embd)});
            }
            t.push_back({p + "ffn_down.weight", {ff, embd}, w, 0.0f, scale(ff)});
        }
        if (flavour.postNorms)
            t.push_back({p + "post_ffw_norm.weight", {embd}, DType::F32, 1.0f, kNormSpread});
    }
    t.push_back({"output_norm.weight", {embd}, DType::F32, 1.0f, kNormSpread});
    if (!s.tiedOutput)
        t.push_back({"output.weight", {embd, vocab}, w, 0.0f, scale(embd)});
    if (s.longRopeOriginalContext > 0) {
        const int pairs = s.headDim() / 2;
        t.push_back({"rope_factors_short.weight", {pairs}, DType::F32, 0.0f, 0.0f, longRopeFactors(pairs, 1.5f)});
        t.push_back({"rope_factors_long.weight", {pairs}, DType::F32, 0.0f, 0.0f, longRopeFactors(pairs, 8.0f)});
    }
    if (s.llama3Rope.factor > 0) {
        std::vector<float> factors = model::llama3RopeFactors(s.headDim(), s.ropeFreqBase, s.llama3Rope);
        const auto n = std::int64_t(factors.size());
        t.push_back({"rope_freqs.weight", {n}, DType::F32, 0.0f, 0.0f, std::move(factors)});
    }
    return t;
}

std::uint64_t estimatedFileSize(const SynthOptions& options)
{
    std::uint64_t total = 0;
    const auto tensors = plannedTensors(options);
    for (const auto& t : tensors)
        total += tensorBytes(t) + 32 /* alignment */ + t.name.size() + 64 /* tensor info */;
    // Vocabulary: string length prefix + text (at most ~12 bytes) + score + type per token.
    total += static_cast<std::uint64_t>(options.shape.vocabSize) * (8 + 16 + 4 + 4);
    if (isFamilyArchitecture(options.architecture))
        total += static_cast<std::uint64_t>(options.shape.vocabSize) * (8 + 32); // BPE merges
    return total + 64 * 1024; // the other metadata, generously
}

Result<DType> parseWeightType(const std::string& name)
{
    const std::string n = lowerCase(name);
    std::string known;
    for (DType t : {DType::F32, DType::F16, DType::BF16, DType::Q8_0, DType::Q6_K, DType::Q5_K, DType::Q5_1, DType::Q5_0,
                    DType::Q4_K, DType::Q4_1, DType::Q4_0, DType::IQ4_XS, DType::IQ4_NL, DType::MXFP4, DType::Q3_K,
                    DType::Q2_K}) {
        const std::string typeName = lowerCase(std::string(dtypeName(t)));
        if (n == typeName)
            return t;
        known += (known.empty() ? "" : ", ") + typeName;
    }
    return Result<DType>(ErrorCode::InvalidArgument, "unknown weight type '" + name + "' (use " + known + ")");
}

void declareSyntheticMetadata(gguf::GgufWriter& writer, const SynthOptions& options)
{
    declareMetadata(writer, options, SyntheticVocab::build(options.shape.vocabSize));
}

Status writeSyntheticModel(const SynthOptions& options, const std::string& path, const SynthProgress& progress)
{
    HEARTH_TRY(validateOptions(options));
    if (path.empty())
        return {ErrorCode::InvalidArgument, "no output file given"};
    const std::uint64_t expected = estimatedFileSize(options);
    HEARTH_TRY(checkFreeSpace(path, expected));

    const std::vector<SynthTensor> tensors = plannedTensors(options);
    std::uint64_t dataBytes = 0;
    for (const auto& t : tensors)
        dataBytes += tensorBytes(t);

    gguf::GgufWriter writer;
    if (isFamilyArchitecture(options.architecture))
        declareFamilyMetadata(writer, options);
    else
        declareMetadata(writer, options, SyntheticVocab::build(options.shape.vocabSize));
    for (const auto& t : tensors)
        writer.addTensor(t.name, t.type, t.shape);

    const std::string partial = path + ".part";
    auto fail = [&](Status status) {
        std::error_code ec;
        std::filesystem::remove(partial, ec);
        return status;
    };
    if (Status s = writer.begin(partial); !s.ok())
        return fail(s);

    std::uint64_t done = 0;
    auto advance = [&](std::uint64_t bytes) {
        done += bytes;
        return !progress || progress(done, dataBytes);
    };
    TensorStream stream(writer, options.seed);
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        if (Status s = stream.write(tensors[i], i, advance); !s.ok())
            return fail(s);
    }
    if (Status s = writer.finish(); !s.ok())
        return fail(s);

    std::error_code ec;
    std::filesystem::rename(partial, path, ec);
    if (ec)
        return fail({ErrorCode::IoError, "cannot rename '" + partial + "' to '" + path + "': " + ec.message()});
    return {};
}

} // namespace hearth::synth
