// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// Planning where a model's layers and FFN neurons live under a VRAM budget, before (or without)
/// loading it: the numbers behind the VRAM slider, the fit badges and the catalog.
///
/// A PlacementModel is built from a GGUF/PWRI file (its tensor table only; no weights are read)
/// or from catalog numbers. plan() then answers, for a budget, context and batch size: per layer
/// whether attention runs on the GPU and how many FFN neurons are hot there; every byte the GPU
/// will hold, by kind; the RAM the rest needs; the expected decode speed; and whether it fits.
///
/// The plan counts what Hearth's sessions do on a device: the KV cache there in F16 (F32 when
/// asked for), whole layers for dense files, single neurons for sparse ones, attention and then
/// experts for mixtures of experts, the output matrix once every token's fixed work is there. A
/// session given the same budget, context and batch places what the plan says.
///
/// Re-planning is fast (well under a millisecond for a 70B shape after the first call), so a UI
/// may call plan() on every slider step. A PlacementModel is not thread-safe: use one per thread.

#include <hearth/session.h>
#include <hearth/status.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace hearth {

/// A model described by its hyper-parameters, as a catalog lists them.
struct ModelDescription
{
    std::string architecture = "llama"; ///< general.architecture (supportedArchitectures())
    std::uint64_t parameterCount = 0; ///< informative only; the shape numbers drive the sizes
    int layerCount = 32;
    int embeddingSize = 4096;
    int headCount = 32;
    int kvHeadCount = 0; ///< 0: the same as headCount (no grouped-query attention)
    int headDim = 0;     ///< 0: embeddingSize / headCount (Qwen 3 and Gemma have heads of their own size)
    /// Keys a sliding-window layer sees (0: none), and which layers slide: 0, every one; p, all
    /// but each p-th (Gemma 3: 1024 and 6), as in the GGUF files.
    int slidingWindow = 0;
    int slidingWindowPeriod = 0;
    int feedForwardSize = 11008;
    /// A mixture of experts (Qwen3-30B-A3B: 128 experts, 8 per token, 768 neurons each); 0
    /// experts: a dense FFN of feedForwardSize neurons.
    int expertCount = 0;
    int expertsUsed = 0;
    int expertFeedForwardSize = 0;
    int vocabSize = 32000;
    std::string quantization = "Q4_0"; ///< weight type ("Q6_K") or llama-quantize preset ("Q4_K_M": its base type)
    /// Ships per-layer predictors (a PowerInfer-style file): neurons can be placed one by one.
    bool sparse = true;
    int predictorHidden = 1024; ///< predictor fc1 width; ignored when not sparse
};

/// The default share of FFN neurons assumed inactive per token when a sparse model comes without
/// activation statistics (the low end of what ReLU-fied LLaMA models report).
constexpr double kDefaultAssumedSparsity = 0.7;

/// What to plan for.
struct PlacementRequest
{
    std::uint64_t budgetBytes = 0; ///< GPU memory the placement may use, everything counted
    int contextLength = 4096;
    int batchSize = 256; ///< prompt tokens per forward pass, as SessionParams::batchSize (scratch scales with it)
    /// RAM available to the model; 0: not checked. What the GPU does not hold must fit here.
    std::uint64_t hostMemoryBytes = 0;
    /// RAM the rest of the process and the desktop keep using while the model runs.
    std::uint64_t hostReserveBytes = std::uint64_t(512) << 20;
    double cpuBandwidthGBs = 20.0; ///< the machine's measured memory bandwidth, GB/s
    double gpuBandwidthGBs = 400.0; ///< the GPU's memory bandwidth, GB/s
    bool dense = false; ///< place whole layers even when the model is sparse
    /// Plan for the emulated device (SessionParams::deviceOverride "emulated:<bytes>"), which needs
    /// no CUDA context or cuBLAS workspace, instead of a GPU.
    bool emulatedDevice = false;
    /// A mixture's experts layer by layer, as llama.cpp's --n-cpu-moe places them, instead of
    /// the most used first: for comparisons.
    bool expertsByLayer = false;
    /// How the session will store keys and values (SessionParams::kvCache): a session that uses
    /// the GPU keeps them in F16 there and in RAM, or F32 when asked for (no Q8_0 on the GPU).
    KvCacheType kvCacheType = KvCacheType::F16;
};

/// One layer's placement.
struct LayerPlacementSummary
{
    bool attentionOnGpu = false; ///< attention weights and this layer's KV cache
    std::int64_t hotNeurons = 0; ///< FFN neurons on the GPU
    std::int64_t feedForwardSize = 0; ///< all FFN neurons of the layer (the rest run on the CPU)
    /// Expected share of the layer's neuron activations the GPU computes, in [0, 1]. Above the
    /// neuron share for sparse models: the hot neurons are the ones that fire most.
    double gpuActivationShare = 0;
    /// A mixture of experts: the layer's routed experts, how many of them are on the GPU (the
    /// ones the router picks most), and whether its shared expert is. hotNeurons counts their
    /// neurons.
    int expertCount = 0;
    int gpuExperts = 0;
    bool sharedExpertOnGpu = false;
};

/// GPU memory by kind, in bytes.
struct GpuMemoryBreakdown
{
    /// Attention, FFN neurons (with their index), predictors, norms, output, allocation padding.
    std::uint64_t weights = 0;
    std::uint64_t kvCache = 0;
    std::uint64_t scratch = 0; ///< activation buffers of one forward pass
    std::uint64_t workspace = 0; ///< cuBLAS workspace
    std::uint64_t reserve = 0; ///< CUDA context, module images, allocator slack
    [[nodiscard]] std::uint64_t total() const { return weights + kvCache + scratch + workspace + reserve; }
};

/// The planner's answer, in plain numbers.
struct PlacementSummary
{
    bool sparse = false; ///< neurons placed one by one (else whole layers)
    std::vector<LayerPlacementSummary> layers;
    bool outputOnGpu = false; ///< the output matrix (and the final norm) on the GPU
    GpuMemoryBreakdown gpu;
    std::uint64_t budgetBytes = 0;
    std::uint64_t modelBytes = 0; ///< every weight byte of the model
    std::uint64_t hostBytes = 0; ///< RAM needed: weights off the GPU, the host KV cache, reserve
    std::uint64_t hostKvCache = 0; ///< the host KV cache alone (Session::kvCacheBytesAt)
    double tokensPerSecond = 0; ///< expected decode speed (memory-bound estimate)
    /// The GPU part is within the budget and, when hostMemoryBytes was given, the rest fits in RAM.
    bool fits = true;
    bool fitsInRam = true;
    /// Why not everything is on the GPU, or why it does not fit; empty when fully on the GPU.
    /// Not translated (logs, tooltips); front ends word their own from the fields.
    std::string reason;
    /// The model is a mixture of experts: layers place their attention and then experts, the
    /// most used first (with statistics beside the model), or layer by layer.
    bool mixtureOfExperts = false;
    bool expertsByLayer = false; ///< as asked (PlacementRequest::expertsByLayer)

    [[nodiscard]] int attentionLayersOnGpu() const;
    [[nodiscard]] std::int64_t hotNeuronCount() const;
    [[nodiscard]] std::int64_t neuronCount() const;
    [[nodiscard]] int gpuExpertCount() const;
    [[nodiscard]] int expertCount() const;
    /// Nothing on the GPU (no budget, or below the fixed costs).
    [[nodiscard]] bool cpuOnly() const { return gpu.total() == 0; }
    /// Every layer, every neuron and the output head on the GPU.
    [[nodiscard]] bool fullyOnGpu() const;
};

/// A model ready for planning. Cheap to move; holds the shape and ranked statistics.
class PlacementModel
{
public:
    /// Reads the tensor table of a GGUF or PowerInfer (PWRI) file; weights are not touched.
    /// @p assumedSparsity is used for a sparse file when no statistics are set (see below).
    [[nodiscard]] static Result<PlacementModel> fromFile(
        const std::string& path, double assumedSparsity = kDefaultAssumedSparsity);
    /// From catalog numbers. For a sparse model, @p assumedSparsity (the share of FFN neurons
    /// inactive per token, e.g. a model card's reported sparsity) shapes synthetic statistics: a
    /// power law, as measured activations follow, with that mean.
    [[nodiscard]] static Result<PlacementModel> fromDescription(
        const ModelDescription& description, double assumedSparsity = kDefaultAssumedSparsity);

    PlacementModel(PlacementModel&&) noexcept;
    PlacementModel& operator=(PlacementModel&&) noexcept;
    ~PlacementModel();

    /// Measured per-neuron activation frequencies in [0, 1], one vector of n_ff values per layer
    /// (e.g. PowerInfer's activation_<layer>.pt counts divided by the calibration tokens).
    [[nodiscard]] Status setActivationFrequencies(std::vector<std::vector<float>> perLayer);

    [[nodiscard]] Result<PlacementSummary> plan(const PlacementRequest& request);

    [[nodiscard]] const std::string& architecture() const;
    [[nodiscard]] const std::string& weightType() const;
    [[nodiscard]] int layerCount() const;
    /// Placement by neuron is possible: predictors, or a magnitude-sparse file that screens its
    /// neurons with its statistics beside it.
    [[nodiscard]] bool sparseCapable() const;
    /// A SwiGLU model made sparse by thresholds (sparsifyModel, SparsifyMethod::Magnitude): it
    /// skips neurons on the CPU; its most kept neurons go to the GPU when sparseCapable(), else
    /// whole layers.
    [[nodiscard]] bool magnitudeSparse() const;
    /// Every weight byte (what the file or download roughly weighs).
    [[nodiscard]] std::uint64_t weightBytes() const;

private:
    struct Impl;
    explicit PlacementModel(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> m_impl;
};

/// The neuron placement sessions cache beside a sparse model file (PowerInfer's
/// "<model>.generated.gpuidx"); it goes stale, and may go, with the model.
[[nodiscard]] std::string placementCachePath(const std::string& modelPath);

} // namespace hearth
