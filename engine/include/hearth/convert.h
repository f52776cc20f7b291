// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// Making model files: a Hugging Face model folder (safetensors or PyTorch .bin shards,
/// config.json, tokenizer.json or tokenizer.model), optionally with PowerInfer's predictor folder
/// (model_<n>.pt) and activation statistics (activation_<n>.pt), becomes a GGUF file Hearth and
/// PowerInfer both load; an existing GGUF file is re-encoded as Q4_0 or Q8_0.
///
/// PyTorch files go through a restricted unpickler that rebuilds tensors only: no code in a
/// checkpoint runs. Each call checks the disk has room, writes "<output>.part", optionally loads
/// the result and runs a short prompt, and only then renames it to the output, so a failed or
/// cancelled call leaves no file under the output's name. Nothing throws; errors are values with
/// messages meant for people.
///
/// Calls block for as long as the work takes (minutes for a 7B model): run them on a worker
/// thread and cancel through the progress callback.

#include <hearth/model.h>
#include <hearth/status.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hearth {

/// How the weight matrices of an output file are stored. Norms stay F32 and predictors F16
/// whatever is chosen; matrices whose rows are not whole quantization blocks fall back to F16.
enum class WeightType {
    F32,
    F16,
    Q8_0, ///< 8.5 bits per weight, close to F16 quality
    Q4_0, ///< 4.5 bits per weight
};

/// "F32", "F16", "Q8_0", "Q4_0".
[[nodiscard]] std::string_view weightTypeName(WeightType type);
/// The type named @p name (case-insensitive, "q4_0" or "Q4_0"); nullopt for anything else.
[[nodiscard]] std::optional<WeightType> weightTypeFromName(std::string_view name);

/// A Hugging Face folder to convert: the llama family (Llama, Mistral, Bamboo) and whatever
/// else the converter supports (hf_config.h lists them); others fail with Unsupported.
struct ConvertParams {
    std::string modelFolder;      ///< config.json, tokenizer and weights
    std::string predictorFolder;  ///< optional: PowerInfer predictors; makes a sparse (PWRI) file
    std::string activationFolder; ///< optional: statistics, written to statisticsPathFor(output)
    std::string output;           ///< the GGUF file to write
    WeightType type = WeightType::F16;
    /// powerinfer.sparse_threshold of a sparse file; unset: the "sparse_threshold" of the
    /// predictor folder's config.json (as PowerInfer's converters copy it), else 0.
    std::optional<float> sparseThreshold;
    ProgressCallback progress;    ///< optional: fraction done; returning false cancels
    /// Load the result and evaluate a short prompt before it takes the output's name.
    bool verify = true;
    /// Replace an existing output (and statistics) file. Off: such a call fails with
    /// InvalidArgument before anything is read or written.
    bool overwrite = false;
};

/// llama.cpp's llama-quantize presets. A preset is a mix: most matrices take its base type,
/// the output matrix Q6_K, and the K-quant "_M" presets give attn_v and ffn_down more bits in
/// the first, last and every third layer, rule for rule as llama-quantize does, so the same
/// input makes the same file (without an importance matrix).
enum class QuantizationPreset {
    F32,
    F16,
    BF16,
    Q8_0,   ///< 8.5 bits per weight, close to F16 quality
    Q6_K,   ///< 6.6 bits
    Q5_K_M, ///< 5.7 bits
    Q5_K_S,
    Q4_K_M, ///< 4.9 bits, the common choice
    Q4_K_S,
    Q4_0,   ///< 4.5 bits; PowerInfer's sparse files use it
    IQ4_XS, ///< 4.3 bits, for small GPUs
    Q3_K_M, ///< 3.9 bits
    Q2_K,   ///< 3.4 bits, for when nothing else fits
    Q4_1,   ///< 5.0 bits, the older formats some downloads still use
    Q5_0,   ///< 5.5 bits
    Q5_1,   ///< 6.0 bits
};

/// "Q4_K_M", as llama-quantize spells it.
[[nodiscard]] std::string_view presetName(QuantizationPreset preset);
/// The preset named @p name (case-insensitive); nullopt for anything else.
[[nodiscard]] std::optional<QuantizationPreset> presetFromName(std::string_view name);

/// A GGUF file to re-encode.
struct QuantizeParams {
    std::string input;
    std::string output; ///< must differ from input
    QuantizationPreset preset = QuantizationPreset::Q4_K_M;
    ProgressCallback progress; ///< optional: fraction done; returning false cancels
    bool verify = true;        ///< as ConvertParams::verify
    bool overwrite = false;    ///< as ConvertParams::overwrite
};

/// What a conversion or quantization will write, known before it starts. The sizes are upper
/// bounds within a MiB or so of what is written; the disk needs totalBytes() free.
struct ConversionEstimate {
    std::uint64_t outputBytes = 0;     ///< the model file
    std::uint64_t statisticsBytes = 0; ///< the statistics file (0 without an activation folder)
    std::string architecture;          ///< GGUF architecture of the result: "llama", "bamboo", ...
    std::string sourceFormat;          ///< "safetensors", "pytorch" or "gguf"
    int layerCount = 0;
    bool sparse = false; ///< the result carries predictors (PowerInfer's PWRI layout)

    [[nodiscard]] std::uint64_t totalBytes() const { return outputBytes + statisticsBytes; }
};

/// What a finished call wrote.
struct ConversionReport {
    std::string output;
    std::string statisticsOutput; ///< empty when no statistics file was written
    std::uint64_t bytesWritten = 0; ///< size of the model file
    int tensorCount = 0;
    bool sparse = false;
};

/// Where the statistics of a model file go: "m.gguf" -> "m.hearth-stats.gguf".
[[nodiscard]] std::string statisticsPathFor(const std::string& output);

/// Reads config.json, the tokenizer, the checkpoint's tensor table and the predictors' headers
/// (no weights) and says what convertModel() would write. Fails with the same message
/// convertModel() would give for a missing config.json, an unsupported architecture, or a
/// hostile or truncated checkpoint. Disk space is not checked here.
/// The Hugging Face model types (config.json's model_type) convertModel() takes: "llama",
/// "mistral", "bamboo", "qwen2", "qwen3", "falcon", "opt", ...
[[nodiscard]] std::vector<std::string> convertibleModelTypes();

[[nodiscard]] Result<ConversionEstimate> estimateConversion(const ConvertParams& params);
[[nodiscard]] Result<ConversionReport> convertModel(const ConvertParams& params);

/// Reads @p params.input's tensor table and says what quantizeModel() would write.
[[nodiscard]] Result<ConversionEstimate> estimateQuantization(const QuantizeParams& params);
[[nodiscard]] Result<ConversionReport> quantizeModel(const QuantizeParams& params);

/// A dense model to make sparse; the model runs over a calibration text first.
/// * ReLU models (ReluLLaMA, ProSparse, a Bamboo or relu2 file without predictors): a predictor
///   is fitted to every layer's activations, and the result is written in Hearth's fused sparse
///   layout with its statistics (SparsifyMethod::Predictors).
/// * SwiGLU models (llama, mistral, qwen2, qwen3): no neuron is ever exactly zero, so each
///   layer gets the threshold on a neuron's output below which targetSparsity of the calibration
///   tokens' outputs fall; decoding drops those, reads the down rows of the others only, and the
///   up rows only of the neurons whose gate alone could reach the threshold
///   (SparsifyMethod::Magnitude).
/// The text is cut into windows; every fifth window is held out, and the recall, precision,
/// sparsity and perplexity reported are measured on those.
struct SparsifyParams {
    std::string input;
    std::string output;            ///< must differ from input
    std::string calibrationText;   ///< empty: builtinCalibrationText()
    int maxTokens = 4096;          ///< of the text used, at most
    /// ReLU: the share of the neurons that fire the predictors must select (0: 0.99).
    /// SwiGLU: the share of the neurons over their threshold that the screen on the gate alone
    /// must let through; the others are not read at all (0: 0.95).
    double recall = 0;
    double targetSparsity = 0.4;   ///< SwiGLU models: the share of neurons a decoded token skips
    /// SwiGLU models: the share of the inputs of the attention's projections and of the FFN's
    /// gate and up that a decoded token drops, reading none of their weights (0: those
    /// projections stay dense, with a screen on the gate). Files whose q/k/v or gate/up are fused
    /// (Phi-3) keep those dense. Costs quality sooner than the FFN's neurons (on the small
    /// stories260K with targetSparsity 0.4: 20 % of the inputs +4 % perplexity, 40 % +21 %), and
    /// prompts run through float kernels (about a fifth of the dense file's prompt speed).
    double inputSparsity = 0;
    int predictorRank = 0;         ///< 0: n_embd / 8 (the linear predictor's hidden size)
    /// Refuse (ErrorCode::QualityTooLow) a result whose held-out perplexity exceeds the dense
    /// model's by more than this share.
    double perplexityBound = 0.05;
    int threads = 0;               ///< 0: one per physical core
    ProgressCallback progress;     ///< optional: fraction done; returning false cancels
    bool overwrite = false;        ///< as ConvertParams::overwrite
};

enum class SparsifyMethod {
    Predictors, ///< fitted predictors (ReLU models)
    Magnitude,  ///< per-layer thresholds on |silu(gate)| (SwiGLU models)
};

/// One layer on the held-out text.
struct SparsifyLayerReport {
    double recall = 0;          ///< neurons that fired and were predicted / neurons that fired
    double precision = 0;       ///< neurons that fired and were predicted / neurons predicted
    double predictedShare = 0;  ///< neurons computed / all, per token (predicted, or above the threshold)
    double firedShare = 0;      ///< neurons that fired / all, per token (1 for SwiGLU)
    /// Magnitude: a neuron whose output is smaller than this share of the residual stream's
    /// root mean square is dropped.
    float scoreThreshold = 0;
    /// Magnitude with input sparsity: the shares of the inputs a token keeps, per token, of the
    /// attention's q/k/v, of its output projection and of the FFN's gate/up (1: dense).
    double attentionInputShare = 1;
    double attentionOutputShare = 1;
    double ffnInputShare = 1;
};

struct SparsifyReport {
    SparsifyMethod method = SparsifyMethod::Predictors;
    std::string output;
    std::string statisticsOutput; ///< empty where none is written (Magnitude)
    std::vector<SparsifyLayerReport> layers;
    int calibrationTokens = 0;   ///< the predictors were fitted (or the thresholds chosen) on these
    int heldOutTokens = 0;       ///< and measured on these
    int predictorHidden = 0;     ///< Predictors only
    double densePerplexity = 0;  ///< on the held-out tokens
    double sparsePerplexity = 0;
    /// Weight bytes a decoded token reads in the dense file over those in the sparse one (the
    /// predictors included): the decode speed-up where memory bandwidth is the limit.
    double expectedSpeedup = 0;
    /// Magnitude: the input sparsity applied (0: none; SparsifyParams::inputSparsity).
    double inputSparsity = 0;
    double fitSeconds = 0;       ///< of which fitting the predictors
    double seconds = 0;
};

/// The English text hearth-sparsify and the app calibrate on unless given another (some 3000
/// words of prose, dialogue, instructions, lists and code).
[[nodiscard]] std::string_view builtinCalibrationText();
/// Reads @p path's header only and says whether sparsifyModel() could work on it: Ok, or why not
/// (a GeGLU FFN, predictors already present, a K-quant FFN, ...), in the words sparsifyModel()
/// would use.
[[nodiscard]] Status checkSparsifiable(const std::string& path);
[[nodiscard]] Result<SparsifyReport> sparsifyModel(const SparsifyParams& params);

} // namespace hearth
