// SPDX-License-Identifier: MIT
#pragma once

// Whole-layer offload for plain dense files, llama.cpp style: the attention (with its KV cache)
// and the FFN of the first k layers live on the device and a decoded token runs through them
// there; the remaining layers stay on the CPU. k is as many layers as the budget holds.
//
// The block's shape comes with the parameters: llama's sequential block with a gated FFN
// (x += attn(norm(x)); x += down(act(gate, up)); Gemma normalizes both outputs once more before
// adding them), opt's sequential block with LayerNorms and an
// up-only FFN with biases (x += attn(LN1(x)); x += down(ReLU(up LN2(x) + b)) + b), and falcon's
// parallel block (x += attn(LN(x)) + ffn(LN(x))).
//
// A call takes a batch of tokens at consecutive positions (a prompt, or one decoded token); the
// residual stream goes up once before the first device layer and comes back once after the
// last. Each layer's KV cache lives on the device; the new rows can be mirrored into the host
// cache (see device_attention.h) so the CPU can take over at any position.

#include "cpu/matmul.h"
#include "device/device.h"
#include "device/device_attention.h"

#include <hearth/status.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace hearth::device {

// A layer's attention weights (AttentionWeights: norm, wq, wk, wv, wo, ...) plus its FFN.
struct DenseLayerWeights : AttentionWeights {
    const float* ffnNorm = nullptr; // [nEmbd] (falcon without its own FFN norm: the attention's)
    cpu::WeightMatrix gate;         // nEmbd -> nFF; empty for the up-only FFNs (Relu, Gelu)
    cpu::WeightMatrix up;           // nEmbd -> nFF
    cpu::WeightMatrix down;         // nFF -> nEmbd (as stored by llama.cpp: nEmbd rows of nFF)
    // Input-major storage, multiplied transposed: gate and up as nEmbd rows of nFF, down as nFF
    // rows of nEmbd (ffn_down_t). Magnitude-sparse files keep them so for the CPU's sparse
    // kernels; on the device every neuron is computed all the same.
    bool gateUpInputMajor = false;
    bool downNeuronMajor = false;
    // Optional (null: none).
    const float* ffnNormBias = nullptr; // [nEmbd] LayerNorm bias
    const float* upBias = nullptr;      // [nFF]
    const float* downBias = nullptr;    // [nEmbd]
    // RMSNorms of the attention's and of the FFN's output before each residual add (Gemma).
    const float* attnPostNorm = nullptr; // [nEmbd]
    const float* ffnPostNorm = nullptr;  // [nEmbd]
};

// The attention's shape (AttentionParams, whose norm kind the FFN norm shares) plus the FFN's.
struct DenseModelParams : AttentionParams {
    std::int32_t nFF = 0;
    // Gated kinds read gate and up; Relu and Gelu make an up-only FFN.
    Activation activation = Activation::SwiGlu;
    bool parallelBlock = false; // falcon: attention and FFN both read the layer input
};

class DenseOffload {
public:
    // Uploads layers 0, 1, ... of @p layers while they fit the device's budget (weights, KV cache
    // and the shared scratch). offloadedLayers() says how many made it; 0 is not an error.
    // @p maxLayers caps k (-1: as many as fit).
    [[nodiscard]] static Result<std::unique_ptr<DenseOffload>> create(Device& device, const DenseModelParams& params,
                                                                      const std::vector<DenseLayerWeights>& layers,
                                                                      int maxLayers = -1);
    ~DenseOffload();
    DenseOffload(const DenseOffload&) = delete;
    DenseOffload& operator=(const DenseOffload&) = delete;

    [[nodiscard]] int offloadedLayers() const { return int(m_layers.size()); }
    // Why the count stopped where it did (empty when every layer fit).
    [[nodiscard]] const std::string& limit() const { return m_limit; }

    // Device bytes of the layers and the scratch.
    [[nodiscard]] std::uint64_t deviceBytes() const;

    // Runs the offloaded layers for one token at @p pos on @p x (nEmbd floats, in and out).
    [[nodiscard]] Status forward(float* x, std::int32_t pos);
    // Runs them for @p n tokens at positions [start, start + n) on @p x (n rows of nEmbd, in and
    // out). @p mirrors, when not null, holds offloadedLayers() host rows for position start
    // that receive the new K/V rows of each layer. On failure x is undefined.
    [[nodiscard]] Status forward(float* x, int n, int start, const KvMirror* mirrors);

private:
    struct Layer {
        std::unique_ptr<DeviceAttentionLayer> attention;
        DeviceBuffer ffnNorm, ffnNormBias, upBias, downBias, attnPostNorm, ffnPostNorm;
        DeviceMatrix gate, up, down;
        bool gateUpInputMajor = false;
        bool downNeuronMajor = false;
        // Every buffer besides the attention's, for freeing (Layer) and counting (const Layer).
        template <typename Self>
        [[nodiscard]] static auto buffers(Self& l)
        {
            return std::array{&l.ffnNorm,     &l.ffnNormBias, &l.upBias,  &l.downBias, &l.attnPostNorm,
                              &l.ffnPostNorm, &l.gate.data,   &l.up.data, &l.down.data};
        }
    };
    explicit DenseOffload(Device& device)
        : m_device(device)
    {
    }
    [[nodiscard]] Status uploadLayer(const DenseLayerWeights& w, Layer& layer);
    void freeLayer(Layer& layer);
    void freeScratch();
    // Queues out = FFN(in) of @p l for @p count rows.
    [[nodiscard]] Status enqueueFfn(Layer& l, const DeviceBuffer& in, const DeviceBuffer& out, int count);
    [[nodiscard]] Status enqueueNorm(const Layer& l, const DeviceBuffer& x, const DeviceBuffer& out, int count);
    // Queues the RMSNorm of @p x in place with @p weight, when the layer has one.
    [[nodiscard]] Status enqueuePostNorm(const DeviceBuffer& weight, const DeviceBuffer& x, int count);
    // Queues forward()'s work without waiting for it.
    [[nodiscard]] Status enqueueForward(float* x, int n, int start, const KvMirror* mirrors);

    Device& m_device;
    DenseModelParams m_p;
    int m_batch = 1; // rows of the scratch buffers
    std::vector<Layer> m_layers;
    std::string m_limit;
    // Scratch, shared by the layers: B = m_batch rows each.
    std::unique_ptr<AttentionScratch> m_attnScratch;
    DeviceBuffer m_x;    // [B][nEmbd] residual stream
    DeviceBuffer m_xn;   // [B][nEmbd] FFN input
    DeviceBuffer m_tmp;  // [B][nEmbd] block output
    DeviceBuffer m_ffnOut; // [B][nEmbd] FFN output of a parallel block
    DeviceBuffer m_gate; // [B][nFF], gated FFNs only
    DeviceBuffer m_up;   // [B][nFF]
};

} // namespace hearth::device
