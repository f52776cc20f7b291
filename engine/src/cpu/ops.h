// SPDX-License-Identifier: MIT
#pragma once

// Elementwise and per-row operations of the forward pass: norms, rotary embeddings, softmax,
// FFN activations. They are a small share of the time next to the matrix products, so they are
// plain loops the compiler can vectorize, with no ISA dispatch.

#include <cmath>
#include <cstdint>

namespace hearth::cpu {

// out = x / sqrt(mean(x^2) + eps) * weight, over n elements. out may alias x.
void rmsNorm(const float* x, const float* weight, float eps, std::int64_t n, float* out);

// out = (x - mean) / sqrt(var + eps) * weight + bias; weight and bias may be null (1 and 0).
void layerNorm(const float* x, const float* weight, const float* bias, float eps, std::int64_t n, float* out);

// Rotary position embedding in llama.cpp's "normal" mode: adjacent pairs (x[2i], x[2i+1]) of
// each head rotate by the angle whose cos/sin are cosTable[i]/sinTable[i], for 2i < nRot.
// Dimensions past nRot are left alone. @p x holds nHeads heads of headDim floats.
void ropeNormal(float* x, int nHeads, int headDim, int nRot, const float* cosTable, const float* sinTable);

// Rotary embedding in GPT-NeoX style (llama.cpp's "neox" mode, used by falcon): within each
// head, x[i] and x[i + nRot/2] rotate together by the angle of cosTable[i]/sinTable[i], for
// i < nRot/2. Dimensions past nRot are left alone.
void ropeNeox(float* x, int nHeads, int headDim, int nRot, const float* cosTable, const float* sinTable);

// YaRN's blend of interpolated and original angles (rope.scaling.type "yarn"): rotated pair i
// keeps its unscaled angle below @p low, takes the interpolated one (times freqScale) above
// @p high, and a linear mix between; q and k then grow by 1 + 0.1 ln(1 / freqScale). As
// ggml's rope with ext_factor 1 (ggml_rope_yarn_corr_dims gives low and high).
struct YarnRamp {
    float low = 0.0f;
    float high = 0.0f;
};

// The ramp of a model trained on @p originalContext tokens at base @p freqBase, with the
// rotations per original context that bound it (YaRN's beta_fast and beta_slow, 32 and 1).
[[nodiscard]] YarnRamp yarnRamp(int nRot, int originalContext, float freqBase, float betaFast = 32.0f,
                                float betaSlow = 1.0f);

// What YaRN multiplies rotated pair @p i's unscaled angle by: @p freqScale where the pair is
// interpolated, 1 where it keeps its angle, a linear mix between.
[[nodiscard]] double yarnAngleScale(const YarnRamp& ramp, int i, float freqScale);
// What YaRN multiplies q and k by (through cos and sin) at @p freqScale.
[[nodiscard]] inline float yarnMagnitude(float freqScale)
{
    return 1.0f + 0.1f * std::log(1.0f / freqScale);
}

// Fills cosTable/sinTable (nRot / 2 each) for position @p pos:
// angle_i = pos * freqScale * freqBase^(-2i / nRot) / freqFactors[i]. @p freqFactors (nRot / 2
// values, or null for ones) is Llama 3.1's rope_freqs or Phi-3's LongRoPE factors: long-context
// frequency scaling. Both tables are multiplied by @p attnFactor (LongRoPE's magnitude
// correction, which scales q and k alike). With @p yarn, the angles and magnitudes are YaRN's.
void ropeTables(std::int64_t pos, int nRot, float freqBase, float freqScale, float* cosTable, float* sinTable,
                const float* freqFactors = nullptr, float attnFactor = 1.0f, const YarnRamp* yarn = nullptr);

// x[i] *= factor for n elements.
void scale(float* x, float factor, std::int64_t n);

// In-place numerically stable softmax over n elements.
void softmax(float* x, std::int64_t n);

// Gated FFN activations, in place on @p gate (n elements): gate = f(gate, up).
void swiglu(float* gate, const float* up, std::int64_t n); // silu(gate) * up
void silu(float* x, std::int64_t n);
// sqrt(mean(x^2)), summed in double as rmsNorm does.
[[nodiscard]] float rootMeanSquare(const float* x, std::int64_t n);
void reglu(float* gate, const float* up, std::int64_t n);  // relu(gate) * up
void drelu(float* gate, const float* up, std::int64_t n);  // relu(gate) * relu(up)
void geglu(float* gate, const float* up, std::int64_t n);  // gelu(gate) * up (gelu below)
// gpt-oss: g = min(gate, 7), u = clamp(up, -7, 7), g * sigmoid(1.702 g) * (u + 1) (ggml's swiglu_oai)
void swigluOai(float* gate, const float* up, std::int64_t n);
void relu2(float* gate, const float* up, std::int64_t n);  // relu(gate)^2 * up

void relu(float* x, std::int64_t n);
void gelu(float* x, std::int64_t n); // tanh approximation, as falcon and llama.cpp use

// y += x over n elements.
void add(float* y, const float* x, std::int64_t n);
// y += a * x over n elements.
void axpy(float* y, float a, const float* x, std::int64_t n);
// Dot product of two float vectors.
[[nodiscard]] float dot(const float* a, const float* b, std::int64_t n);

} // namespace hearth::cpu
