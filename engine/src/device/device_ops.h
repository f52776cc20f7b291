// SPDX-License-Identifier: MIT
#pragma once

// Arguments of the device operations. Every vector is F32 and every index I32 unless noted;
// buffers are used from byte 0 and must be large enough (checked before queuing).

#include "device/device_buffer.h"

#include <cstdint>

namespace hearth::device {

// y[t][r] = W[r] . x[t] for every row r and t < tokens (x: tokens x cols, y: tokens x rows).
// transposed: y[t][c] = sum over rows r, in order, of x[t][r] * W[r][c] (x: tokens x rows,
// y: tokens x cols): the down projection of neuron-major rows (ffn_down_t) over a batch.
struct MatmulOp {
    const DeviceMatrix* w = nullptr;
    DeviceBuffer x;
    DeviceBuffer y;
    std::int64_t tokens = 1;
    bool transposed = false;
};

// y[j] = W[index[j]] . x for j < count: the gate/up rows of the predicted-active hot neurons.
// Weights F32, F16, Q4_0 or Q8_0; indices are rows of W. Index values live in device memory and
// are not checked there: callers pass rows that exist (the hybrid executor builds them itself).
struct RowsDotOp {
    const DeviceMatrix* w = nullptr;
    DeviceBuffer x;
    DeviceBuffer index;
    std::int64_t count = 0;
    DeviceBuffer y;
};

// y[e] = sum over j < count, in order, of act[j] * W[index[j]][e]: the down projection over the
// selected neurons, W neuron-major (one row of y's length per neuron). accumulate adds to y
// instead of overwriting it. Deterministic: the sum order is fixed.
struct DownAccumulateOp {
    const DeviceMatrix* w = nullptr;
    DeviceBuffer act;
    DeviceBuffer index;
    std::int64_t count = 0;
    DeviceBuffer y;
    bool accumulate = false;
};

// The FFN activations. The gated ones (values of model::FfnActivation): gate[i] = f(gate[i], up[i]);
// SwiGluOai is gpt-oss's: min(g, 7) * sigmoid(1.702 min(g, 7)) * (clamp(u, -7, 7) + 1), as
// cpu::swigluOai computes it.
// The plain ones of falcon and opt (up-only FFNs) read gate alone and ignore up: Relu, and Gelu
// in the tanh approximation written as x / (1 + exp(-2u)), u = sqrt(2/pi) (x + 0.044715 x^3),
// exactly as the CPU's dense FFN computes it. GeGlu (Gemma) is gelu(gate) * up with the GELU
// written as 0.5 x (1 + tanh(u)), as cpu::geglu computes it.
enum class Activation : int { SwiGlu = 0, ReGlu = 1, DRelu = 2, Relu2 = 3, Relu = 4, Gelu = 5, GeGlu = 6, SwiGluOai = 7 };

// The last kind, for range checks.
inline constexpr Activation kLastActivation = Activation::SwiGluOai;

[[nodiscard]] constexpr bool isGated(Activation a)
{
    return a == Activation::SwiGlu || a == Activation::ReGlu || a == Activation::DRelu || a == Activation::Relu2
           || a == Activation::GeGlu || a == Activation::SwiGluOai;
}

// mask (optional, n bytes): gate[i] = 0 where mask[i] is 0, whatever f gives: the neurons a
// prompt's token does not use, as its decode would skip them.
// Floors (optional, gated kinds but SwiGluOai; floorWidth > 0 divides n): with w = floorWidth, gate[i] = 0
// unless |g(gate[i])| >= gateFloor[i % w] * floorScale[i / w] and |f(gate[i], up[i])| >=
// activationFloor[i % w] * floorScale[i / w], g the activation's gate part (silu for SwiGLU, ReLU
// for the ReLU kinds, squared for ReLU², the GELU for GeGLU): a magnitude-sparse layer's neurons
// (w of them per token), thresholded in units of each token's residual as the CPU does.
struct ActivateOp {
    Activation kind = Activation::ReGlu;
    DeviceBuffer gate;
    DeviceBuffer up;
    std::int64_t n = 0;
    DeviceBuffer mask;
    DeviceBuffer gateFloor;       // [floorWidth] F32
    DeviceBuffer activationFloor; // [floorWidth] F32
    DeviceBuffer floorScale;      // [n / floorWidth] F32
    std::int64_t floorWidth = 0;  // 0: no floors
};

// The sparsity predictor: logits = fc2 . ReLU(fc1 . x) (without the ReLU when relu is false:
// sparse::PredictorWeights::relu), plus bias (fc2.rows floats) when there is one; active =
// ascending ids with logit >= threshold, count written
// to activeCount (one I32). hidden (fc1.rows floats) and logits (fc2.rows floats) are scratch the
// caller owns; active holds fc2.rows I32.
struct PredictorOp {
    const DeviceMatrix* fc1 = nullptr;
    const DeviceMatrix* fc2 = nullptr;
    DeviceBuffer x;
    float threshold = 0.0f;
    DeviceBuffer hidden;
    DeviceBuffer logits;
    DeviceBuffer active;
    DeviceBuffer activeCount;
    bool relu = true;
    DeviceBuffer bias; // empty: none
};

// out[t] = x[t] / sqrt(mean(x[t]^2) + eps) * weight, over tokens rows of n. out may be x.
struct RmsNormOp {
    DeviceBuffer x;
    DeviceBuffer weight;
    float eps = 1e-5f;
    std::int64_t n = 0;
    std::int64_t tokens = 1;
    DeviceBuffer out;
};

// out[t] = (x[t] - mean) / sqrt(var + eps) * weight + bias over tokens rows of n (LayerNorm, with
// mean and variance accumulated in double as on the CPU). out may be x.
struct LayerNormOp {
    DeviceBuffer x;
    DeviceBuffer weight;
    DeviceBuffer bias;
    float eps = 1e-5f;
    std::int64_t n = 0;
    std::int64_t tokens = 1;
    DeviceBuffer out;
};

// y[t][i] += bias[i] for i < n, t < tokens: a projection's bias over a batch.
struct BiasAddOp {
    DeviceBuffer y;
    DeviceBuffer bias;
    std::int64_t n = 0;
    std::int64_t tokens = 1;
};

// Rotary position embeddings: llama's "normal" pairs (x[2i], x[2i+1]), GPT-NeoX halves
// (x[i], x[i + nRot/2]; falcon), or none (opt, whose positions are learned embeddings added to
// the input).
enum class RopeStyle : int { Normal = 0, Neox = 1, None = 2 };

// One decoded token's attention at position pos: rotates q and k (RoPE of the given style, its
// cos and sin scaled by attnFactor), stores k and v in the cache ([capacity][nHeadKv * headDim]
// F32 each, or F16 halves with halfCache; position p takes row p % capacity, so a sliding-window layer's cache holds only its
// last capacity >= window positions), then out = softmax(cap(q . K[lo..pos] * scale)) .
// V[lo..pos] per head (grouped-query heads share a KV head), lo = 0, or pos - window + 1 with a
// sliding window; cap(s) = softCap * tanh(s / softCap) with a soft-cap (Gemma 2), else s. With
// sinks (gpt-oss), head h's softmax also takes sinks[h] as a score whose value is zero: it
// takes its share of the sum and adds nothing. q is rotated in place. scores holds
// nHead * capacity floats of scratch.
struct AttentionOp {
    DeviceBuffer q;
    DeviceBuffer k;
    DeviceBuffer v;
    DeviceBuffer kCache;
    DeviceBuffer vCache;
    DeviceBuffer scores;
    DeviceBuffer out;
    std::int32_t pos = 0;
    std::int32_t capacity = 0; // rows of the cache
    std::int32_t nHead = 0;
    std::int32_t nHeadKv = 0;
    std::int32_t headDim = 0;
    std::int32_t nRot = 0;
    float freqBase = 10000.0f;
    float freqScale = 1.0f;
    DeviceBuffer freqFactors; // nRot / 2 floats dividing the angles, or empty (Llama 3.1's rope_freqs)
    float attnFactor = 1.0f;  // LongRoPE's magnitude correction (Phi-3)
    std::int32_t window = 0;  // sliding window: the keys a query sees; 0: all
    RopeStyle rope = RopeStyle::Normal;
    float scale = 0.0f;   // of q . k; 0: 1 / sqrt(headDim)
    float softCap = 0.0f; // 0: none
    // The cache holds F16 halves: k and v are stored rounded (after RoPE), as a CPU session's
    // F16 cache stores them, and widened again as they are read.
    bool halfCache = false;
    DeviceBuffer sinks; // [nHead] F32 attention sinks, or empty
};

// y[i] += x[i] for i < n.
struct AddOp {
    DeviceBuffer y;
    DeviceBuffer x;
    std::int64_t n = 0;
};

} // namespace hearth::device
