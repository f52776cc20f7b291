// SPDX-License-Identifier: MIT
#include "cuda/cuda_kernels.cuh"
#include "cuda/weight_blocks.cuh"

#include <algorithm>
#include <cfloat>
#include <cstdint>
#include <type_traits>

namespace hearth::cuda {

namespace {

constexpr int kSliceThreads = 256;

__device__ __forceinline__ float warpSum(float v)
{
    for (int offset = kWarp / 2; offset > 0; offset /= 2)
        v += __shfl_xor_sync(0xffffffffu, v, offset);
    return v;
}

template <std::uint32_t Type>
__global__ void rowDotKernel(const std::uint8_t* w, std::uint64_t rowBytes, std::int64_t cols, const float* x,
                             std::int64_t xStride, const std::int32_t* index, std::int64_t count, float* y,
                             std::int64_t yStride)
{
    const int lane = threadIdx.x % kWarp;
    const std::int64_t j = std::int64_t(blockIdx.x) * kRowsPerBlock + threadIdx.x / kWarp;
    if (j >= count)
        return; // whole warps leave together: count is per warp
    const std::int64_t t = blockIdx.y;
    const std::int64_t r = index ? index[j] : j;
    const float sum = warpSum(laneDot<Type>(w + r * rowBytes, cols, x + t * xStride, lane));
    if (lane == 0)
        y[t * yStride + j] = sum;
}

template <std::uint32_t Type>
__global__ void downKernel(const std::uint8_t* w, std::uint64_t rowBytes, std::int64_t cols, const float* act,
                           const std::int32_t* index, std::int64_t count, float* y, bool accumulate)
{
    const std::int64_t e = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (e >= cols)
        return;
    float sum = accumulate ? y[e] : 0.0f;
    for (std::int64_t j = 0; j < count; ++j) {
        const float a = act[j];
        if (a != 0.0f)
            sum += a * elementAt<Type>(w + (index ? std::int64_t(index[j]) : j) * rowBytes, e);
    }
    y[e] = sum;
}

// Chunk blockIdx.y of the neuron list into partial[blockIdx.y][e].
template <std::uint32_t Type>
__global__ void downChunkKernel(const std::uint8_t* w, std::uint64_t rowBytes, std::int64_t cols, const float* act,
                                const std::int32_t* index, std::int64_t count, std::int64_t chunkSize, float* partial)
{
    const std::int64_t e = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (e >= cols)
        return;
    const std::int64_t begin = std::int64_t(blockIdx.y) * chunkSize;
    const std::int64_t end = begin + chunkSize < count ? begin + chunkSize : count;
    float sum = 0.0f;
    for (std::int64_t j = begin; j < end; ++j) {
        const float a = act[j];
        if (a != 0.0f)
            sum += a * elementAt<Type>(w + (index ? std::int64_t(index[j]) : j) * rowBytes, e);
    }
    partial[std::int64_t(blockIdx.y) * cols + e] = sum;
}

__global__ void downReduceKernel(const float* partial, int chunks, std::int64_t cols, float* y, bool accumulate)
{
    const std::int64_t e = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (e >= cols)
        return;
    float sum = accumulate ? y[e] : 0.0f;
    for (int c = 0; c < chunks; ++c)
        sum += partial[std::int64_t(c) * cols + e];
    y[e] = sum;
}

// Rows of a weight matrix as F16, row-major, for cuBLAS: out[r * cols + c] = W[r][c]. Index is
// 32-bit for the tiles the prompt path dequantizes (a 64-bit division per weight costs several
// times a 32-bit one), 64-bit for anything larger.
template <std::uint32_t Type, typename Index>
__global__ void dequantizeKernel(const std::uint8_t* w, std::uint64_t rowBytes, Index cols, Index total, __half* out)
{
    const Index i = Index(blockIdx.x) * Index(blockDim.x) + Index(threadIdx.x);
    if (i >= total)
        return;
    const Index row = i / cols;
    out[i] = __float2half(elementAt<Type>(w + std::uint64_t(row) * rowBytes, std::int64_t(i - row * cols)));
}

// The gated kinds (0-3, 6 and 7): f(g, u), and in @p part the gate's own factor (silu, ReLU,
// ReLU², or the GELU written as cpu::geglu computes it), which magnitude-sparse floors compare
// (not for 7, gpt-oss's clamped SwiGLU, written as cpu::swigluOai computes it).
__device__ inline float gatedActivation(int kind, float g, float u, float& part)
{
    const float r = fmaxf(g, 0.0f);
    switch (kind) {
    case 0: // swiglu
        part = g / (1.0f + expf(-g));
        return part * u;
    case 1: // reglu
        part = r;
        return r * u;
    case 2: // drelu
        part = r;
        return r * fmaxf(u, 0.0f);
    case 3: // relu2
        part = r * r;
        return part * u;
    case 7: { // swiglu_oai
        const float c = fminf(g, 7.0f);
        part = c / (1.0f + expf(1.702f * -c));
        return part * (fminf(fmaxf(u, -7.0f), 7.0f) + 1.0f);
    }
    default: { // 6: geglu
        const float k = 0.7978845608028654f;
        part = 0.5f * g * (1.0f + tanhf(k * g * (1.0f + 0.044715f * g * g)));
        return part * u;
    }
    }
}

__global__ void activateKernel(int kind, float* gate, const float* up, const std::uint8_t* mask, std::int64_t n)
{
    const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    if (mask && !mask[i]) {
        gate[i] = 0.0f;
        return;
    }
    const float g = gate[i];
    if (kind == 4) { // relu
        gate[i] = fmaxf(g, 0.0f);
    } else if (kind == 5) { // gelu, tanh approximation written as the CPU's dense FFN computes it
        const float k = 0.7978845608028654f;
        const float t = k * g * (1.0f + 0.044715f * g * g);
        gate[i] = g / (1.0f + expf(-2.0f * t));
    } else {
        float part;
        gate[i] = gatedActivation(kind, g, up[i], part);
    }
}

// A gated activation whose result is kept only above two floors in units of the token's scale
// (device::ActivateOp's floors): the gate part against gateFloor, the result against
// activationFloor. Kinds 0-3 and 6.
__global__ void activateFlooredKernel(int kind, float* gate, const float* up, const float* gateFloor,
                                      const float* activationFloor, const float* scale, std::int64_t width,
                                      std::int64_t n)
{
    const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float part;
    const float result = gatedActivation(kind, gate[i], up[i], part);
    const std::int64_t j = i % width;
    const float s = scale[i / width];
    gate[i] = fabsf(part) >= gateFloor[j] * s && fabsf(result) >= activationFloor[j] * s ? result : 0.0f;
}

__global__ void reluKernel(float* x, std::int64_t n)
{
    const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = fmaxf(x[i], 0.0f);
}

__global__ void addKernel(float* y, const float* x, std::int64_t n)
{
    const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] += x[i];
}

__global__ void biasAddKernel(float* y, const float* bias, std::int64_t n, std::int64_t total)
{
    const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < total)
        y[i] += bias[i % n];
}

__global__ void toHalfKernel(const float* x, __half* out, std::int64_t n)
{
    const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = __float2half_rn(x[i]);
}

// One block: each thread takes a contiguous run, counts, an exclusive scan over the counts
// places each run, and the runs are written in order, so ids come out ascending.
constexpr int kCompactThreads = 1024;
__global__ void compactKernel(const float* logits, std::int64_t n, float threshold, std::int32_t* active,
                              std::int32_t* count)
{
    __shared__ std::int32_t offsets[kCompactThreads];
    const int t = threadIdx.x;
    const std::int64_t begin = n * t / kCompactThreads;
    const std::int64_t end = n * (t + 1) / kCompactThreads;
    std::int32_t mine = 0;
    for (std::int64_t i = begin; i < end; ++i)
        mine += logits[i] >= threshold ? 1 : 0;
    offsets[t] = mine;
    __syncthreads();
    // Hillis-Steele inclusive scan.
    for (int step = 1; step < kCompactThreads; step *= 2) {
        const std::int32_t add = t >= step ? offsets[t - step] : 0;
        __syncthreads();
        offsets[t] += add;
        __syncthreads();
    }
    std::int32_t out = offsets[t] - mine;
    for (std::int64_t i = begin; i < end; ++i) {
        if (logits[i] >= threshold)
            active[out++] = std::int32_t(i);
    }
    if (t == kCompactThreads - 1)
        *count = offsets[t];
}

constexpr int kNormThreads = 256;

// The sum over the block of every thread's @p value (double, as the CPU's norms accumulate),
// returned to all threads. @p partial is the block's shared scratch; it may be reused after.
__device__ double blockSum(double value, double* partial)
{
    partial[threadIdx.x] = value;
    __syncthreads();
    for (int s = kNormThreads / 2; s > 0; s /= 2) {
        if (threadIdx.x < s)
            partial[threadIdx.x] += partial[threadIdx.x + s];
        __syncthreads();
    }
    const double sum = partial[0];
    __syncthreads(); // everyone has read partial[0] before it is reused
    return sum;
}

__global__ void rmsNormKernel(const float* x, const float* weight, float eps, std::int64_t n, float* out)
{
    __shared__ double partial[kNormThreads];
    const float* row = x + std::int64_t(blockIdx.x) * n;
    float* o = out + std::int64_t(blockIdx.x) * n;
    double sum = 0.0;
    for (std::int64_t i = threadIdx.x; i < n; i += kNormThreads)
        sum += double(row[i]) * double(row[i]);
    const float scale = float(1.0 / sqrt(blockSum(sum, partial) / double(n) + double(eps)));
    for (std::int64_t i = threadIdx.x; i < n; i += kNormThreads)
        o[i] = row[i] * scale * weight[i];
}

// LayerNorm of one row per block: the mean, then the variance around it (two passes, in double,
// as the CPU's layerNorm).
__global__ void layerNormKernel(const float* x, const float* weight, const float* bias, float eps, std::int64_t n,
                                float* out)
{
    __shared__ double partial[kNormThreads];
    const float* row = x + std::int64_t(blockIdx.x) * n;
    float* o = out + std::int64_t(blockIdx.x) * n;
    double sum = 0.0;
    for (std::int64_t i = threadIdx.x; i < n; i += kNormThreads)
        sum += double(row[i]);
    const double mean = blockSum(sum, partial) / double(n);
    double var = 0.0;
    for (std::int64_t i = threadIdx.x; i < n; i += kNormThreads) {
        const double d = double(row[i]) - mean;
        var += d * d;
    }
    const float scale = float(1.0 / sqrt(blockSum(var, partial) / double(n) + double(eps)));
    const float m = float(mean);
    for (std::int64_t i = threadIdx.x; i < n; i += kNormThreads) {
        float v = (row[i] - m) * scale * weight[i];
        if (bias)
            v += bias[i];
        o[i] = v;
    }
}

// Element @p i of a KV cache row base, floats or halves.
__device__ __forceinline__ float loadCache(const void* base, std::int64_t i, int half)
{
    return half ? __half2float(static_cast<const __half*>(base)[i]) : static_cast<const float*>(base)[i];
}

__device__ __forceinline__ void storeCache(void* base, std::int64_t i, float value, int half)
{
    if (half)
        static_cast<__half*>(base)[i] = __float2half_rn(value);
    else
        static_cast<float*>(base)[i] = value;
}

// RoPE on q (in place) and k (llama "normal" pairs or GPT-NeoX halves; none for style 2), k and v
// stored into the cache row of pos: k rotated first, so a half cache rounds the rotated key, as
// the CPU's F16 cache does.
__global__ void ropeStoreKernel(AttentionArgs a)
{
    const int half = a.nRot / 2;
    const int kvDim = a.nHeadKv * a.headDim;
    const double p = double(a.pos) * double(a.freqScale);
    const std::int64_t row = std::int64_t(a.pos % a.capacity) * kvDim;
    // Every element as it is; the rotated pairs are overwritten below.
    for (int i = threadIdx.x; i < kvDim; i += blockDim.x) {
        storeCache(a.kCache, row + i, a.k[i], a.halfCache);
        storeCache(a.vCache, row + i, a.v[i], a.halfCache);
    }
    __syncthreads();
    if (a.ropeStyle == 2)
        return;
    const bool neox = a.ropeStyle == 1;
    const int pairsQ = a.nHead * half;
    const int pairsK = a.nHeadKv * half;
    for (int item = threadIdx.x; item < pairsQ + pairsK; item += blockDim.x) {
        const bool isQ = item < pairsQ;
        const int local = isQ ? item : item - pairsQ;
        const int h = local / half;
        const int i = local % half;
        double theta = p * pow(double(a.freqBase), -2.0 * i / double(a.nRot));
        if (a.freqFactors)
            theta /= double(a.freqFactors[i]);
        const float c = float(cos(theta)) * a.attnFactor;
        const float s = float(sin(theta)) * a.attnFactor;
        const std::int64_t i0 = std::int64_t(h) * a.headDim + (neox ? i : 2 * i);
        const std::int64_t i1 = std::int64_t(h) * a.headDim + (neox ? i + half : 2 * i + 1);
        const float x0 = isQ ? a.q[i0] : a.k[i0];
        const float x1 = isQ ? a.q[i1] : a.k[i1];
        if (isQ) {
            a.q[i0] = x0 * c - x1 * s;
            a.q[i1] = x0 * s + x1 * c;
        } else {
            storeCache(a.kCache, row + i0, x0 * c - x1 * s, a.halfCache);
            storeCache(a.kCache, row + i1, x0 * s + x1 * c, a.halfCache);
        }
    }
}

constexpr int kAttnThreads = 256;
__global__ void attentionKernel(AttentionArgs a)
{
    __shared__ float reduceF[kAttnThreads];
    __shared__ double reduceD[kAttnThreads];
    const int h = blockIdx.x;
    const int group = a.nHead / a.nHeadKv;
    const int kvDim = a.nHeadKv * a.headDim;
    const int kvOffset = (h / group) * a.headDim;
    const float scale = a.scale;
    const float* q = a.q + std::int64_t(h) * a.headDim;
    float* scores = a.scores + std::int64_t(h) * a.capacity;
    const int n = a.pos + 1;
    const int first = a.window > 0 ? max(0, a.pos - a.window + 1) : 0; // a sliding window's first key

    // Key j lives in row j % capacity; its score in scores[j - first].
    float localMax = -FLT_MAX;
    for (int j = first + threadIdx.x; j < n; j += kAttnThreads) {
        const std::int64_t k = std::int64_t(j % a.capacity) * kvDim + kvOffset;
        float s = 0.0f;
        for (int d = 0; d < a.headDim; ++d)
            s += q[d] * loadCache(a.kCache, k + d, a.halfCache);
        s *= scale;
        if (a.softCap > 0.0f)
            s = a.softCap * tanhf(s / a.softCap);
        scores[j - first] = s;
        localMax = fmaxf(localMax, s);
    }
    reduceF[threadIdx.x] = localMax;
    __syncthreads();
    for (int s = kAttnThreads / 2; s > 0; s /= 2) {
        if (threadIdx.x < s)
            reduceF[threadIdx.x] = fmaxf(reduceF[threadIdx.x], reduceF[threadIdx.x + s]);
        __syncthreads();
    }
    // A sink takes part in the maximum and the sum, and weighs no value.
    const float sink = a.sinks ? a.sinks[h] : -FLT_MAX;
    const float maxValue = fmaxf(reduceF[0], sink);
    double localSum = a.sinks && threadIdx.x == 0 ? double(expf(sink - maxValue)) : 0.0;
    for (int j = first + threadIdx.x; j < n; j += kAttnThreads) {
        const float e = expf(scores[j - first] - maxValue);
        scores[j - first] = e;
        localSum += e;
    }
    reduceD[threadIdx.x] = localSum;
    __syncthreads();
    for (int s = kAttnThreads / 2; s > 0; s /= 2) {
        if (threadIdx.x < s)
            reduceD[threadIdx.x] += reduceD[threadIdx.x + s];
        __syncthreads();
    }
    const float inv = float(1.0 / reduceD[0]);
    for (int d = threadIdx.x; d < a.headDim; d += kAttnThreads) {
        float acc = 0.0f;
        for (int j = first; j < n; ++j)
            acc += scores[j - first] * inv * loadCache(a.vCache, std::int64_t(j % a.capacity) * kvDim + kvOffset + d, a.halfCache);
        a.out[std::int64_t(h) * a.headDim + d] = acc;
    }
}

unsigned blocksFor(std::int64_t n, int threads)
{
    return unsigned((n + threads - 1) / threads);
}

// Calls @p f with std::integral_constant<std::uint32_t, type> (isWeightType(type) holds).
template <typename F>
void withType(std::uint32_t type, F&& f)
{
    switch (type) {
#define HEARTH_WEIGHT_TYPE(T)                            \
    case T:                                              \
        f(std::integral_constant<std::uint32_t, T>{});   \
        break;
        HEARTH_WEIGHT_TYPE(kF32)
        HEARTH_WEIGHT_TYPE(kF16)
        HEARTH_WEIGHT_TYPE(kBF16)
        HEARTH_WEIGHT_TYPE(kQ4_0)
        HEARTH_WEIGHT_TYPE(kQ4_1)
        HEARTH_WEIGHT_TYPE(kQ5_0)
        HEARTH_WEIGHT_TYPE(kQ5_1)
        HEARTH_WEIGHT_TYPE(kQ8_0)
        HEARTH_WEIGHT_TYPE(kIQ4_NL)
        HEARTH_WEIGHT_TYPE(kMXFP4)
        HEARTH_WEIGHT_TYPE(kQ2_K)
        HEARTH_WEIGHT_TYPE(kQ3_K)
        HEARTH_WEIGHT_TYPE(kQ4_K)
        HEARTH_WEIGHT_TYPE(kQ5_K)
        HEARTH_WEIGHT_TYPE(kQ6_K)
        HEARTH_WEIGHT_TYPE(kIQ4_XS)
#undef HEARTH_WEIGHT_TYPE
    default:
        break; // the back end refuses other types before launching (isWeightType)
    }
}

} // namespace

void launchRowDot(std::uint32_t type, const void* w, std::uint64_t rowBytes, std::int64_t cols, const float* x,
                  std::int64_t xStride, const std::int32_t* index, std::int64_t count, float* y, std::int64_t yStride,
                  std::int64_t tokens, cudaStream_t stream)
{
    const auto* wb = static_cast<const std::uint8_t*>(w);
    // gridDim.y holds at most 65535 tokens; longer batches go in slices.
    constexpr std::int64_t kMaxTokens = 65535;
    for (std::int64_t t0 = 0; t0 < tokens; t0 += kMaxTokens) {
        const dim3 grid(blocksFor(count, kRowsPerBlock), unsigned(std::min(kMaxTokens, tokens - t0)));
        const dim3 block(kRowsPerBlock * kWarp);
        const float* xs = x + t0 * xStride;
        float* ys = y + t0 * yStride;
        withType(type, [&](auto t) {
            rowDotKernel<decltype(t)::value><<<grid, block, 0, stream>>>(wb, rowBytes, cols, xs, xStride, index, count, ys,
                                                                         yStride);
        });
    }
}

void launchDownAccumulate(std::uint32_t type, const void* w, std::uint64_t rowBytes, std::int64_t cols,
                          const float* act, const std::int32_t* index, std::int64_t count, float* y, bool accumulate,
                          float* scratch, std::size_t scratchFloats, cudaStream_t stream)
{
    const unsigned slices = blocksFor(cols, kSliceThreads);
    const auto* wb = static_cast<const std::uint8_t*>(w);
    // Enough blocks to fill a large GPU (~4 per SM on 132 SMs), at least 64 neurons per chunk.
    constexpr std::int64_t kMinChunk = 64;
    constexpr std::int64_t kTargetBlocks = 512;
    std::int64_t chunks = std::min<std::int64_t>(count / kMinChunk, (kTargetBlocks + slices - 1) / slices);
    chunks = std::min<std::int64_t>(chunks, scratch && cols > 0 ? std::int64_t(scratchFloats) / cols : 0);
    chunks = std::min<std::int64_t>(chunks, 65535); // gridDim.y
    if (chunks <= 1) {
        withType(type, [&](auto t) {
            downKernel<decltype(t)::value><<<slices, kSliceThreads, 0, stream>>>(wb, rowBytes, cols, act, index, count, y,
                                                                                 accumulate);
        });
        return;
    }
    const std::int64_t chunkSize = (count + chunks - 1) / chunks;
    chunks = (count + chunkSize - 1) / chunkSize;
    const dim3 grid(slices, unsigned(chunks));
    withType(type, [&](auto t) {
        downChunkKernel<decltype(t)::value><<<grid, kSliceThreads, 0, stream>>>(wb, rowBytes, cols, act, index, count,
                                                                                chunkSize, scratch);
    });
    downReduceKernel<<<slices, kSliceThreads, 0, stream>>>(scratch, int(chunks), cols, y, accumulate);
}

void launchDequantize(std::uint32_t type, const void* w, std::uint64_t rowBytes, std::int64_t cols, std::int64_t rows,
                      __half* out, cudaStream_t stream)
{
    const std::int64_t total = rows * cols;
    const auto* wb = static_cast<const std::uint8_t*>(w);
    withType(type, [&](auto t) {
        if (total < (std::int64_t(1) << 31))
            dequantizeKernel<decltype(t)::value, std::uint32_t><<<blocksFor(total, 256), 256, 0, stream>>>(
                wb, rowBytes, std::uint32_t(cols), std::uint32_t(total), out);
        else
            dequantizeKernel<decltype(t)::value, std::int64_t>
                <<<blocksFor(total, 256), 256, 0, stream>>>(wb, rowBytes, cols, total, out);
    });
}

void launchActivate(int kind, float* gate, const float* up, const std::uint8_t* mask, std::int64_t n,
                    cudaStream_t stream)
{
    activateKernel<<<blocksFor(n, 256), 256, 0, stream>>>(kind, gate, up, mask, n);
}

void launchActivateFloored(int kind, float* gate, const float* up, const float* gateFloor, const float* activationFloor,
                           const float* scale, std::int64_t width, std::int64_t n, cudaStream_t stream)
{
    activateFlooredKernel<<<blocksFor(n, 256), 256, 0, stream>>>(kind, gate, up, gateFloor, activationFloor, scale,
                                                                 width, n);
}

void launchRelu(float* x, std::int64_t n, cudaStream_t stream)
{
    reluKernel<<<blocksFor(n, 256), 256, 0, stream>>>(x, n);
}

void launchAdd(float* y, const float* x, std::int64_t n, cudaStream_t stream)
{
    addKernel<<<blocksFor(n, 256), 256, 0, stream>>>(y, x, n);
}

void launchBiasAdd(float* y, const float* bias, std::int64_t n, std::int64_t tokens, cudaStream_t stream)
{
    const std::int64_t total = n * tokens;
    biasAddKernel<<<blocksFor(total, 256), 256, 0, stream>>>(y, bias, n, total);
}

void launchLayerNorm(const float* x, const float* weight, const float* bias, float eps, std::int64_t n,
                     std::int64_t tokens, float* out, cudaStream_t stream)
{
    layerNormKernel<<<unsigned(tokens), kNormThreads, 0, stream>>>(x, weight, bias, eps, n, out);
}

void launchToHalf(const float* x, __half* out, std::int64_t n, cudaStream_t stream)
{
    toHalfKernel<<<blocksFor(n, 256), 256, 0, stream>>>(x, out, n);
}

void launchCompact(const float* logits, std::int64_t n, float threshold, std::int32_t* active, std::int32_t* count,
                   cudaStream_t stream)
{
    compactKernel<<<1, kCompactThreads, 0, stream>>>(logits, n, threshold, active, count);
}

void launchRmsNorm(const float* x, const float* weight, float eps, std::int64_t n, std::int64_t tokens, float* out,
                   cudaStream_t stream)
{
    rmsNormKernel<<<unsigned(tokens), kNormThreads, 0, stream>>>(x, weight, eps, n, out);
}

void launchAttention(const AttentionArgs& a, cudaStream_t stream)
{
    ropeStoreKernel<<<1, 256, 0, stream>>>(a);
    attentionKernel<<<unsigned(a.nHead), kAttnThreads, 0, stream>>>(a);
}

} // namespace hearth::cuda
