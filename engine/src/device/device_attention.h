// SPDX-License-Identifier: MIT
#pragma once

// An attention block on a device: norm, Q/K/V products, RoPE, attention over the layer's own KV
// cache (which lives on the device) and the output product, for a batch of tokens at
// consecutive positions. Used by whole-layer offload (DenseOffload) and by hybrid sessions that
// keep the attention of some layers on the GPU while their FFN is split.
//
// The block's flavour is part of its parameters and weights, so one implementation serves every
// family: llama (RMSNorm, separate Q/K/V, "normal" RoPE), its relatives (Qwen 2 adds Q/K/V
// biases and NeoX RoPE, Qwen 3 an RMSNorm of every q and k head, gpt-oss attention sinks and an
// output bias), falcon (LayerNorm with bias,
// one fused QKV product, NeoX RoPE) and opt (LayerNorm with bias, separate Q/K/V/O with biases,
// no RoPE: its learned position embeddings are added to the input on the CPU, with the token
// embedding).
//
// A sliding-window layer's device cache keeps only the rows its window still needs (cacheRows()).
// The device's cache is the one that counts for the layer; the host cache can be kept as a mirror
// (the new K/V rows are copied back with each batch, a few KiB per token), so that the CPU can
// take the layer over at any position when the device fails, and truncating a session needs no
// device work: rows past the kept position are simply overwritten, on both sides.

#include "core/sliding_window.h"
#include "cpu/matmul.h"
#include "device/device.h"

#include <hearth/status.h>

#include <cstdint>
#include <memory>
#include <vector>

namespace hearth::device {

enum class NormKind {
    Rms,   // x / rms(x) * weight (llama)
    Layer, // (x - mean) / sd(x) * weight + bias (falcon, opt)
};

struct AttentionParams {
    std::int32_t nEmbd = 0;
    std::int32_t nHead = 0;
    std::int32_t nHeadKv = 0;
    std::int32_t headDim = 0;
    std::int32_t nRot = 0;
    float normEps = 1e-5f;
    float freqBase = 10000.0f;
    float freqScale = 1.0f;
    float attnFactor = 1.0f;         // LongRoPE's scale of q and k (AttentionOp::attnFactor)
    std::int32_t slidingWindow = 0;  // keys a query sees (AttentionOp::window); 0: all
    float scale = 0.0f;              // of q . k (AttentionOp::scale); 0: 1 / sqrt(headDim)
    float softCap = 0.0f;            // of the scores (AttentionOp::softCap); 0: none
    std::int32_t contextLength = 0;
    std::int32_t maxBatch = 1; // tokens one pass takes on the device; longer batches are split
    // The flavour (llama's by default).
    NormKind norm = NormKind::Rms;
    RopeStyle rope = RopeStyle::Normal;
    bool fusedQkv = false; // one product with rows [Q | K | V] (AttentionWeights::wqkv)
    bool halfCache = false; // the KV cache in F16 (AttentionOp::halfCache), as the session's host cache

    [[nodiscard]] std::int64_t qDim() const { return std::int64_t(nHead) * headDim; }
    [[nodiscard]] std::int64_t kvDim() const { return std::int64_t(nHeadKv) * headDim; }
    // Floats of one token's Q (and, fused, K and V) product.
    [[nodiscard]] std::int64_t qRow() const { return fusedQkv ? qDim() + 2 * kvDim() : qDim(); }
    // Rows of a layer's KV cache: every position, or with a sliding window the window's older
    // keys and a batch (positions take rows in turn, pos % rows), as the host cache keeps them.
    [[nodiscard]] std::int32_t cacheRows() const
    {
        return std::int32_t(slidingWindowRows(contextLength, slidingWindow, maxBatch));
    }
    // Bytes of one cached K or V element.
    [[nodiscard]] std::uint64_t cacheElementBytes() const { return halfCache ? 2 : 4; }
    [[nodiscard]] Status validate() const;
};

// Whether @p m, multiplied as MatmulOp does (@p transposed: a row per input), takes @p inputs
// values to @p outputs.
[[nodiscard]] inline bool mapsWidths(const cpu::WeightMatrix& m, std::int64_t inputs, std::int64_t outputs,
                                     bool transposed)
{
    return transposed ? m.rows == inputs && m.cols == outputs : m.rows == outputs && m.cols == inputs;
}

struct AttentionWeights {
    const float* norm = nullptr; // [nEmbd] attention norm
    cpu::WeightMatrix wq;        // nEmbd -> qDim (not with fusedQkv)
    cpu::WeightMatrix wk;        // nEmbd -> kvDim (not with fusedQkv)
    cpu::WeightMatrix wv;        // nEmbd -> kvDim (not with fusedQkv)
    cpu::WeightMatrix wo;        // qDim -> nEmbd
    cpu::WeightMatrix wqkv;      // nEmbd -> qDim + 2 kvDim, with fusedQkv only
    // wq, wk, wv and wo stored input-major, a row per input (magnitude-sparse files with input
    // sparsity): multiplied transposed.
    bool inputMajor = false;
    // Optional (null: none).
    const float* normBias = nullptr; // [nEmbd] LayerNorm bias
    const float* bq = nullptr;       // [qDim]
    const float* bk = nullptr;       // [kvDim]
    const float* bv = nullptr;       // [kvDim]
    const float* bo = nullptr;       // [nEmbd]
    const float* ropeFreqs = nullptr; // [nRot / 2] RoPE frequency divisors (Llama 3.1's rope_freqs)
    const float* qNorm = nullptr;     // [headDim] RMSNorm weight of every q head before RoPE (Qwen 3)
    const float* kNorm = nullptr;     // [headDim] of every k head (with qNorm)
    const float* sinks = nullptr;     // [nHead] attention sinks (gpt-oss, AttentionOp::sinks)
    // What a layer does differently from the others (Gemma's local and global layers,
    // SmallThinker's full-attention layers without RoPE, YaRN's scaling folded into ropeFreqs):
    // its sliding window (-1: AttentionParams::slidingWindow, 0: none), RoPE (0: the params'),
    // and whether it rotates.
    std::int32_t window = -1;
    float freqBase = 0.0f;
    float freqScale = 0.0f;
    float attnFactor = 0.0f;
    bool rotate = true;
};

// Per-batch work buffers shared by every attention layer of a model.
class AttentionScratch {
public:
    [[nodiscard]] static Result<std::unique_ptr<AttentionScratch>> create(Device& device, const AttentionParams& params,
                                                                          int maxTokens);
    ~AttentionScratch();
    AttentionScratch(const AttentionScratch&) = delete;
    AttentionScratch& operator=(const AttentionScratch&) = delete;

    [[nodiscard]] int maxTokens() const { return m_maxTokens; }
    // What the buffers for @p maxTokens tokens are charged on @p device.
    [[nodiscard]] static std::uint64_t bytesFor(const Device& device, const AttentionParams& params, int maxTokens);

private:
    friend class DeviceAttentionLayer;
    explicit AttentionScratch(Device& device)
        : m_device(device)
    {
    }
    Device& m_device;
    int m_maxTokens = 0;
    DeviceBuffer m_xn;     // [T][nEmbd] normalized input
    DeviceBuffer m_q;      // [T][qRow]: Q, or fused Q | K | V
    DeviceBuffer m_k;      // [T][kvDim]
    DeviceBuffer m_v;      // [T][kvDim]
    DeviceBuffer m_attn;   // [T][qDim] heads concatenated
    DeviceBuffer m_scores; // [nHead][contextLength], one token at a time
};

// Host rows the new K/V rows are copied to (the host cache's rows of the batch's first position,
// in the device cache's type).
struct KvMirror {
    void* k = nullptr;
    void* v = nullptr;
};

class DeviceAttentionLayer {
public:
    // Uploads the weights and allocates the KV cache. OutOfMemory when the budget is exhausted
    // (every buffer this call made is freed again).
    [[nodiscard]] static Result<std::unique_ptr<DeviceAttentionLayer>> create(Device& device, const AttentionParams& params,
                                                                              const AttentionWeights& weights);
    ~DeviceAttentionLayer();
    DeviceAttentionLayer(const DeviceAttentionLayer&) = delete;
    DeviceAttentionLayer& operator=(const DeviceAttentionLayer&) = delete;

    // Queues out = wo . attention(norm(x)) (+ bo) for @p n tokens (rows of nEmbd in device buffers x and
    // out) at positions [start, start + n), storing their K/V in the layer's cache and, when
    // @p mirror has pointers, copying those rows to it. n <= scratch.maxTokens().
    [[nodiscard]] Status enqueue(AttentionScratch& scratch, const DeviceBuffer& x, const DeviceBuffer& out, int n,
                                 int start, KvMirror mirror = {});

    [[nodiscard]] std::uint64_t deviceBytes() const;
    // What the layer's weights and cache will be charged on @p device.
    [[nodiscard]] static std::uint64_t bytesFor(const Device& device, const AttentionParams& params,
                                                const AttentionWeights& weights);

private:
    DeviceAttentionLayer(Device& device, const AttentionParams& params, const AttentionWeights& weights);
    void release();

    // Every buffer the layer owns, for freeing and counting.
    [[nodiscard]] std::vector<DeviceBuffer*> buffers();

    Device& m_device;
    AttentionParams m_p;
    DeviceBuffer m_norm, m_normBias;
    DeviceMatrix m_wq, m_wk, m_wv, m_wo, m_wqkv;
    bool m_inputMajor = false;           // AttentionWeights::inputMajor
    DeviceBuffer m_bq, m_bk, m_bv, m_bo; // empty when the model has none
    DeviceBuffer m_ropeFreqs;            // empty: plain RoPE frequencies
    DeviceBuffer m_qNorm, m_kNorm;       // empty without per-head q/k norms
    DeviceBuffer m_sinks;                // empty without attention sinks
    DeviceBuffer m_kCache, m_vCache;     // [cacheRows][kvDim] each
};

} // namespace hearth::device
