// SPDX-License-Identifier: MIT
#pragma once

// The CUDA kernels of the back end. Written for correctness and determinism first: every sum has
// a fixed order (warp shuffles in a fixed tree, loops in index order), no floating-point atomics,
// so a run is reproducible bit for bit on one GPU.

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace hearth::cuda {

// GGUF type ids the kernels handle.
enum WeightType : std::uint32_t {
    kF32 = 0,
    kF16 = 1,
    kQ4_0 = 2,
    kQ4_1 = 3,
    kQ5_0 = 6,
    kQ5_1 = 7,
    kQ8_0 = 8,
    kQ2_K = 10,
    kQ3_K = 11,
    kQ4_K = 12,
    kQ5_K = 13,
    kQ6_K = 14,
    kIQ4_NL = 20,
    kIQ4_XS = 23,
    kBF16 = 30,
    kMXFP4 = 39,
};

// Whether the kernels read rows of @p type.
inline bool isWeightType(std::uint32_t type)
{
    switch (type) {
    case kF32:
    case kF16:
    case kQ4_0:
    case kQ4_1:
    case kQ5_0:
    case kQ5_1:
    case kQ8_0:
    case kQ2_K:
    case kQ3_K:
    case kQ4_K:
    case kQ5_K:
    case kQ6_K:
    case kIQ4_NL:
    case kIQ4_XS:
    case kBF16:
    case kMXFP4:
        return true;
    default:
        return false;
    }
}

constexpr int kWarp = 32;
constexpr int kRowsPerBlock = 8; // warps per block in the row kernels

// y[t * yStride + j] = W[index ? index[j] : j] . x[t * xStride] for j < count, t < gridDim.y.
// One warp per output row; its lanes split each block so that its loads are contiguous.
void launchRowDot(std::uint32_t type, const void* w, std::uint64_t rowBytes, std::int64_t cols, const float* x,
                  std::int64_t xStride, const std::int32_t* index, std::int64_t count, float* y, std::int64_t yStride,
                  std::int64_t tokens, cudaStream_t stream);

// y[e] (+)= sum_j act[j] * W[index[j]][e]: one thread per output element, one block per slice of
// 256 elements. Long lists are cut into chunks of neurons summed into @p scratch
// ([chunks][cols] floats, at most scratchFloats) by separate blocks, then the chunks are added
// in chunk order: more blocks for a short output, and still one fixed order of the sums.
void launchDownAccumulate(std::uint32_t type, const void* w, std::uint64_t rowBytes, std::int64_t cols,
                          const float* act, const std::int32_t* index, std::int64_t count, float* y, bool accumulate,
                          float* scratch, std::size_t scratchFloats, cudaStream_t stream);

// Rows 0..rows-1 of W as F16 into out (rows x cols, row-major): the prompt path multiplies
// quantized weights with cuBLAS, a tile of rows at a time.
void launchDequantize(std::uint32_t type, const void* w, std::uint64_t rowBytes, std::int64_t cols, std::int64_t rows,
                      __half* out, cudaStream_t stream);

// kind as device::Activation: 0-3 and 6 gated (read up), 4 ReLU, 5 GELU (gate alone; up may be null).
void launchActivate(int kind, float* gate, const float* up, const std::uint8_t* mask, std::int64_t n,
                    cudaStream_t stream);
// The gated kinds with device::ActivateOp's floors (no mask): gate[i] = f(gate[i], up[i]) where
// its gate part and it pass gateFloor[i % width] and activationFloor[i % width] times
// scale[i / width], else 0.
void launchActivateFloored(int kind, float* gate, const float* up, const float* gateFloor, const float* activationFloor,
                           const float* scale, std::int64_t width, std::int64_t n, cudaStream_t stream);
// y[t * n + i] += bias[i] for t < tokens.
void launchBiasAdd(float* y, const float* bias, std::int64_t n, std::int64_t tokens, cudaStream_t stream);
// LayerNorm over tokens rows of n, one block per row, mean and variance in double as on the CPU;
// bias may be null.
void launchLayerNorm(const float* x, const float* weight, const float* bias, float eps, std::int64_t n,
                     std::int64_t tokens, float* out, cudaStream_t stream);
void launchRelu(float* x, std::int64_t n, cudaStream_t stream);
void launchAdd(float* y, const float* x, std::int64_t n, cudaStream_t stream);
void launchToHalf(const float* x, __half* out, std::int64_t n, cudaStream_t stream);
// Ascending ids i < n with logits[i] >= threshold into active, their number into *count.
void launchCompact(const float* logits, std::int64_t n, float threshold, std::int32_t* active, std::int32_t* count,
                   cudaStream_t stream);
void launchRmsNorm(const float* x, const float* weight, float eps, std::int64_t n, std::int64_t tokens, float* out,
                   cudaStream_t stream);

struct AttentionArgs {
    float* q;
    const float* k;
    const float* v;
    void* kCache; // floats, or halves with halfCache
    void* vCache;
    float* scores;
    float* out;
    int pos, capacity, nHead, nHeadKv, headDim, nRot;
    float freqBase, freqScale;
    int ropeStyle; // 0 llama pairs, 1 GPT-NeoX halves, 2 none
    const float* freqFactors; // nRot / 2 divisors of the angles, or null
    float attnFactor;         // scale of cos and sin (LongRoPE)
    int window;               // keys of positions (pos - window, pos]; 0: all
    float scale;              // of q . k
    float softCap;            // scores become softCap * tanh(score / softCap); 0: none
    int halfCache;            // the caches hold F16
    const float* sinks;       // nHead scores that join each head's softmax with no value, or null
};
void launchAttention(const AttentionArgs& a, cudaStream_t stream);

} // namespace hearth::cuda
