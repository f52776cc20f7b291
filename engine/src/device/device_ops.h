// SPDX-License-Identifier: MIT
#pragma once

// Arguments of the device operations. Every vector is F32 and every index I32 unless noted;
// buffers are used from byte 0 and must be large enough (checked before queuing).

#include "device/device_buffer.h"

#include <cstdint>

namespace hearth::device {

// y[t][r] = W[r] . x[t] for every row r and t < tokens (x: tokens x cols, y: tokens x rows).
// Weights F32, F16, Q4_0 or Q8_0.
struct MatmulOp {
    const DeviceMatrix* w = nullptr;
    DeviceBuffer x;
    DeviceBuffer y;
    std::int64_t tokens = 1;
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

// The gated FFN activations (values of model::FfnActivation): gate[i] = f(gate[i], up[i]).
enum class Activation : int { SwiGlu = 0, ReGlu = 1, DRelu = 2, Relu2 = 3 };

struct ActivateOp {
    Activation kind = Activation::ReGlu;
    DeviceBuffer gate;
    DeviceBuffer up;
    std::int64_t n = 0;
};

// The sparsity predictor: logits = fc2 . ReLU(fc1 . x); active = ascending ids with
// logit >= threshold, count written to activeCount (one I32). hidden (fc1.rows floats) and
// logits (fc2.rows floats) are scratch the caller owns; active holds fc2.rows I32.
struct PredictorOp {
    const DeviceMatrix* fc1 = nullptr;
    const DeviceMatrix* fc2 = nullptr;
    DeviceBuffer x;
    float threshold = 0.0f;
    DeviceBuffer hidden;
    DeviceBuffer logits;
    DeviceBuffer active;
    DeviceBuffer activeCount;
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

// One decoded token's attention at position pos: rotates q and k (llama "normal" RoPE), stores
// k and v at pos in the cache ([capacity][nHeadKv * headDim] F32 each), then
// out = softmax(q . K[0..pos] / sqrt(headDim)) . V[0..pos] per head (grouped-query heads share
// a KV head). q is rotated in place. scores holds nHead * capacity floats of scratch.
struct AttentionOp {
    DeviceBuffer q;
    DeviceBuffer k;
    DeviceBuffer v;
    DeviceBuffer kCache;
    DeviceBuffer vCache;
    DeviceBuffer scores;
    DeviceBuffer out;
    std::int32_t pos = 0;
    std::int32_t capacity = 0;
    std::int32_t nHead = 0;
    std::int32_t nHeadKv = 0;
    std::int32_t headDim = 0;
    std::int32_t nRot = 0;
    float freqBase = 10000.0f;
    float freqScale = 1.0f;
};

// y[i] += x[i] for i < n.
struct AddOp {
    DeviceBuffer y;
    DeviceBuffer x;
    std::int64_t n = 0;
};

} // namespace hearth::device
