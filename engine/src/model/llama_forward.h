// SPDX-License-Identifier: MIT
#pragma once

// The llama-family forward pass over a batch of tokens at consecutive positions. Prompt
// processing and decoding are the same code: a batch of N tokens goes through each weight
// matrix together; decode is N = 1. Every buffer is allocated at creation, so a decoded token
// allocates nothing.

#include "cpu/matmul.h"
#include "cpu/ops.h"
#include "model/kv_cache.h"
#include "model/layer_offload.h"
#include "model/moe_ffn.h"
#include "sparse/neuron_selection.h"
#include "sparse/neuron_weights.h"

#include <hearth/status.h>
#include <hearth/tokenizer.h>

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <utility>
#include <vector>

namespace hearth::cpu {
class ThreadPool;
}

namespace hearth::sparse {
class SparseFfn;
class InterleavedNeurons;
class DownProjection;
}

namespace hearth::model {

class LlamaModel;

class LlamaForward {
public:
    // @p threads <= 0: one per physical core. @p maxBatch is the most tokens one forward() takes.
    // @p cache: F32 keeps every bit (comparisons); sessions take the user's choice, F16 by default.
    static Result<std::unique_ptr<LlamaForward>> create(const LlamaModel& model, int contextLength, int maxBatch,
                                                       int threads, KvCache::Type cache = KvCache::Type::F32);
    ~LlamaForward();

    [[nodiscard]] int contextLength() const { return m_cache->capacity(); }
    [[nodiscard]] const KvCache& kvCache() const { return *m_cache; }
    [[nodiscard]] int maxBatch() const { return m_maxBatch; }
    [[nodiscard]] int threads() const;
    [[nodiscard]] const LlamaModel& model() const { return m_model; }

    // Runs @p n tokens (1 <= n <= maxBatch, ids checked by the caller) at positions
    // [start, start + n) and stores their K/V in the cache; start + n <= contextLength.
    // Writes n rows of vocabulary logits to @p logits when @p allLogits, else only the last row.
    void forward(const Token* tokens, int n, int start, float* logits, bool allLogits);

    // How the FFN runs in a model with predictors. Sparse (the default for such models): only
    // the neurons the predictor expects to fire. Dense: every neuron (comparisons, profiling).
    // Sparse by default for files with predictors; SessionParams::denseFfn selects Dense.
    enum class FfnMode { Sparse, Dense };
    void setFfnMode(FfnMode mode) { m_ffnMode = mode; }
    [[nodiscard]] FfnMode ffnMode() const { return m_ffnMode; }
    [[nodiscard]] bool sparseCapable() const;
    // Overrides the file's powerinfer.sparse_threshold (-infinity: every neuron predicted active).
    void setSparseThreshold(float threshold) { m_threshold = threshold; }
    [[nodiscard]] float sparseThreshold() const { return m_threshold; }

    // Sees every layer's FFN activations of a batch: acts is n x nFf, neuron i of token t fired
    // when acts[t * nFf + i] != 0; residual (n x nEmbd) is the stream before the FFN norm, what a
    // predictor reads. Only the dense FFN mode reports all neurons; in sparse mode neurons
    // predicted inactive read as 0. Null switches it off.
    using ActivationObserver = void (*)(void* context, int layer, int n, const float* acts, const float* residual);
    void setActivationObserver(ActivationObserver observer, void* context)
    {
        m_observer = observer;
        m_observerContext = context;
    }

    // Sees every layer's gate and up projections (n x nFf each, before the activation) where the
    // dense FFN computes them, and the residual stream before the FFN norm (n x nEmbd): what
    // magnitude sparsity calibrates its thresholds on. Null switches it off.
    using GateObserver = void (*)(void* context, int layer, int n, const float* gate, const float* up,
                                  const float* residual);
    void setGateObserver(GateObserver observer, void* context)
    {
        m_gateObserver = observer;
        m_gateObserverContext = context;
    }

    // Sees the inputs of every layer's projections (n rows of the input's width) before they
    // are multiplied: the attention's normalized input (to q, k and v, nEmbd), the heads'
    // output (to wo, qDim) and the FFN's normalized input (to gate and up, nEmbd). What input
    // sparsity calibrates its thresholds on. Null switches it off.
    enum class ProjectionInput { Attention, AttentionOutput, Ffn };
    using InputObserver = void (*)(void* context, int layer, ProjectionInput input, int n, const float* x);
    void setInputObserver(InputObserver observer, void* context)
    {
        m_inputObserver = observer;
        m_inputObserverContext = context;
    }

    // Sees what every mixture-of-experts layer did for a batch: the experts each token chose and
    // their neurons' activations (hearth-profile counts both). Null switches it off.
    using ExpertObserver = void (*)(void* context, int layer, int n, const ExpertActivity& activity);
    void setExpertObserver(ExpertObserver observer, void* context)
    {
        m_expertObserver = observer;
        m_expertObserverContext = context;
    }

    // Computes the sparse FFN somewhere else (the hybrid CPU/device path lives in the api
    // layer, so this library needs no device code). Called in sparse mode with the FFN-normalized
    // input and the predicted-active neurons; returning false makes the layer take the CPU path,
    // so a failing device never loses a token.
    class DecodeFfn {
    public:
        virtual ~DecodeFfn() = default;
        // One decoded token.
        [[nodiscard]] virtual bool run(cpu::ThreadPool& pool, int layer, const float* xn, const std::int32_t* active,
                                       std::int64_t count, float* y) = 0;
        // A prompt's @p tokens rows: @p active the neurons any token uses, @p mask (tokens x n_ff,
        // null: every token uses every one of them) each token's. The default takes none.
        [[nodiscard]] virtual bool runBatch(cpu::ThreadPool& /*pool*/, int /*layer*/, const float* /*xn*/,
                                            int /*tokens*/, const std::int32_t* /*active*/, std::int64_t /*count*/,
                                            const std::uint8_t* /*mask*/, float* /*y*/)
        {
            return false;
        }
        // A magnitude-sparse layer's first neurons elsewhere (device/screened_ffn.h): how many
        // (0: none), and for @p tokens rows, start them on the normalized inputs @p xn with the
        // residual's root mean square per token, @p scales, then wait and add their output to
        // @p y. False: the CPU computes them (queue), or must compute them again (add).
        [[nodiscard]] virtual std::int64_t screenedHot(int /*layer*/) const { return 0; }
        [[nodiscard]] virtual bool queueScreened(int /*layer*/, const float* /*xn*/, int /*tokens*/,
                                                 const float* /*scales*/)
        {
            return false;
        }
        [[nodiscard]] virtual bool addScreened(int /*layer*/, float* /*y*/, int /*tokens*/) { return false; }
    };
    // Null switches it off. @p ffn must outlive every later forward().
    void setDecodeFfn(DecodeFfn* ffn) { m_decodeFfn = ffn; }

    // Runs parts of the layers somewhere else (model/layer_offload.h); the name is kept for the
    // code written against it here.
    using LayerOffload = model::LayerOffload;
    // Null switches it off. @p offload must outlive every later forward(). Device layers copy
    // their K/V rows back, so the cache takes the device's type; when that memory cannot be had,
    // the offload stays off and the CPU computes every layer.
    void setLayerOffload(LayerOffload* offload)
    {
        m_offload = offload && m_cache->useType(offload->cacheType()).ok() ? offload : nullptr;
    }

private:
    LlamaForward(const LlamaModel& model, int maxBatch, int threads);
    // Attention of heads [begin, end) for the batch in flight; KV heads [begin, end), their
    // query heads together, for a decoded token.
    void attention(int layer, std::int64_t begin, std::int64_t end, int threadIndex);
    // m_tmp = the attention block of layer @p l for the batch (before the residual add).
    void cpuAttentionBlock(int l, int n, int start);
    // m_x = the embeddings of @p tokens (scaled, for the families that scale them).
    void embed(const Token* tokens, int n);
    // m_tmp[t] = RMSNorm(m_tmp[t]) * @p weight for the batch's rows: Gemma's post-norms; none
    // for a null weight.
    void postNorm(const float* weight, int n);
    // The FFN paths below read m_xn, the batch's FFN-normalized input, which forward() computes
    // once per layer.
    // The FFN through the neuron kernels (sparse mode, and every mode for fused files).
    // Returns false when the layer has to take the dense path instead.
    bool neuronFfn(int layer, int n);
    // m_tmp = the FFN of layer @p layer over every neuron by the dense products, for the batch;
    // @p mask (optional, [n][nFf]) zeroes the activations of the neurons it leaves out.
    void denseFfn(int layer, int n, const std::uint8_t* mask);
    // The gate, up and down matrices the dense path of layer @p layer reads: the file's, or
    // strided views of a fused neuron tensor's rows (whose down rows are neuron-major).
    struct DenseFfnMatrices {
        cpu::WeightMatrix gate, up, down;
        bool downTransposed = false;
    };
    [[nodiscard]] DenseFfnMatrices denseFfnMatrices(int layer) const;
    // The FFN of a magnitude-sparse layer in sparse mode: a decoded token runs only the neurons
    // whose |silu(gate)| passes the layer's threshold; a prompt zeroes the others.
    bool magnitudeFfn(int layer, int n);
    // Runs input-major products (sparse/input_sparsity.h) over @p x, n rows of @p width: in
    // sparse mode the inputs below @p thresholds are dropped (zeroed in x) first.
    void inputMajorProducts(const float* thresholds, float* x, std::int64_t width, int n,
                            std::initializer_list<std::pair<const cpu::WeightMatrix&, float*>> products);
    Status initNeuronFfn(); // predictors, neuron views and buffers of sparse files

    const LlamaModel& m_model;
    int m_maxBatch;
    std::unique_ptr<cpu::ThreadPool> m_pool;
    std::unique_ptr<KvCache> m_cache;

    // State of the batch in flight, read by the parallel sections (which capture only `this`,
    // so that std::function needs no allocation).
    int m_batchStart = 0;
    int m_batchLayer = 0;
    int m_batchTokens = 0;

    // Scratch, B = maxBatch rows each.
    std::vector<float> m_x;      // [B][nEmbd] residual stream
    std::vector<float> m_xn;     // [B][nEmbd] normalized input of a block
    std::vector<float> m_tmp;    // [B][nEmbd] block output before the residual add
    std::vector<float> m_residualScales; // [B] each token's residual RMS (magnitude-sparse floors)
    std::vector<float> m_q;      // [B][qDim]
    std::vector<float> m_k;      // [B][kvDim]
    std::vector<float> m_v;      // [B][kvDim]
    std::vector<float> m_attn;   // [B][qDim] attention output, heads concatenated
    std::vector<float> m_gate;   // [B][nFf] gate projection, then the activation
    std::vector<float> m_up;     // [B][nFf]
    const float* m_ropeFactors = nullptr; // the RoPE frequency divisors of this context length, or null
    // YaRN's ramps of the global and the local layers' bases (HyperParams::ropeYarn).
    std::optional<cpu::YarnRamp> m_yarn;
    std::optional<cpu::YarnRamp> m_yarnLocal;
    std::vector<float> m_cos;    // [B][nRot / 2] rotary tables per token; then the local layers' [B][nRot / 2]
    std::vector<float> m_sin;    // the same for sin
    std::vector<float> m_scores; // [threads][contextLength] attention scores per thread
    // Only for models with a neuron-major down projection (PowerInfer's ffn_down_t).
    std::unique_ptr<sparse::DownProjection> m_downProjection;
    // Only for models with predictors:
    FfnMode m_ffnMode = FfnMode::Dense;
    float m_threshold = 0.0f;
    ActivationObserver m_observer = nullptr;
    ExpertObserver m_expertObserver = nullptr;
    GateObserver m_gateObserver = nullptr;
    InputObserver m_inputObserver = nullptr;
    void* m_inputObserverContext = nullptr;
    void* m_gateObserverContext = nullptr;
    void* m_expertObserverContext = nullptr;
    void* m_observerContext = nullptr;
    DecodeFfn* m_decodeFfn = nullptr;
    LayerOffload* m_offload = nullptr;
    std::unique_ptr<MoeFfn> m_moe; // mixtures of experts only
    std::unique_ptr<sparse::SparseFfn> m_sparseFfn;
    std::vector<sparse::NeuronWeights> m_neurons; // per layer
    std::vector<std::unique_ptr<sparse::InterleavedNeurons>> m_interleaved; // Q4_0 copies, per layer
    sparse::NeuronSelection m_selection;
};

} // namespace hearth::model
