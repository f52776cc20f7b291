// SPDX-License-Identifier: MIT
// CUDA back end module, loaded at run time with dlopen/LoadLibrary.
//
// This translation unit implements the C function table of device/cuda_backend_api.h, so the
// engine never links against the CUDA runtime: a machine without an NVIDIA driver simply fails
// to open a context and runs CPU-only. Everything runs on one stream per context; F16/F32
// products with more than one token, and quantized ones with a prompt's worth of tokens
// (dequantized to F16 a tile at a time), go to cuBLAS, everything else to the kernels in
// cuda_kernels.cu.

#include "cuda/cuda_kernels.cuh"
#include "device/cuda_backend_api.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <new>
#include <string>
#include <vector>

using namespace hearth::cuda;

namespace {

// Bytes the context holds on the GPU for itself; reported through internal_bytes so the engine
// charges them to the budget.
constexpr std::size_t kCublasWorkspaceBytes = std::size_t(4) << 20;
// 16 MiB of scratch: activations converted to F16 for cuBLAS, or the down projection's partial
// sums (as floats). Both are used in stream order, never at once.
constexpr std::size_t kScratchBytes = std::size_t(16) << 20;
constexpr std::size_t kHalfScratchElements = kScratchBytes / sizeof(__half);
// 32 MiB for a tile of quantized weight rows dequantized to F16, for prompts through cuBLAS.
constexpr std::size_t kTileBytes = std::size_t(32) << 20;
constexpr std::size_t kTileElements = kTileBytes / sizeof(__half);
// From this many tokens a quantized product is dequantized in tiles and multiplied by cuBLAS;
// below it the row kernel, which reads the weights once per token (from L2 after the first),
// costs less than writing and reading the F16 tile.
constexpr std::int64_t kTiledGemmMinTokens = 16;
// Pinned host staging, so that small copies stay asynchronous.
constexpr std::size_t kPinnedBytes = std::size_t(8) << 20;

struct PendingCopy {
    void* dst;
    const void* src;
    std::size_t bytes;
};

} // namespace

struct HearthCudaContext {
    int device = 0;
    cudaStream_t stream = nullptr;
    cublasHandle_t cublas = nullptr;
    void* workspace = nullptr;
    __half* halfScratch = nullptr;     // kScratchBytes: F16 activations or float partial sums
    __half* weightTile = nullptr;      // kTileBytes: dequantized weight rows
    std::uint8_t* pinned = nullptr;
    std::size_t pinnedUsed = 0;
    std::vector<PendingCopy> pending; // pinned -> pageable copies done at synchronize
    std::string lastError;
};

namespace {

void writeMessage(char* out, std::size_t size, const std::string& text)
{
    if (out && size > 0)
        std::snprintf(out, size, "%s", text.c_str());
}

int fail(HearthCudaContext* ctx, int code, const std::string& message)
{
    if (ctx)
        ctx->lastError = message;
    return code;
}

int cudaFail(HearthCudaContext* ctx, cudaError_t err, const char* what)
{
    const int code = err == cudaErrorMemoryAllocation ? HEARTH_CUDA_OUT_OF_MEMORY : HEARTH_CUDA_FAILED;
    return fail(ctx, code, std::string(what) + ": " + cudaGetErrorString(err));
}

// After queuing kernels: launch errors (bad configuration, no kernel image for this GPU).
int launched(HearthCudaContext* ctx, const char* what)
{
    const cudaError_t err = cudaGetLastError();
    return err == cudaSuccess ? HEARTH_CUDA_OK : cudaFail(ctx, err, what);
}

int cublasFail(HearthCudaContext* ctx, cublasStatus_t status, const char* what)
{
    return fail(ctx, status == CUBLAS_STATUS_ALLOC_FAILED ? HEARTH_CUDA_OUT_OF_MEMORY : HEARTH_CUDA_FAILED,
                std::string(what) + ": cuBLAS status " + std::to_string(int(status)));
}

void destroyContext(HearthCudaContext* ctx)
{
    if (!ctx)
        return;
    cudaSetDevice(ctx->device);
    if (ctx->stream)
        cudaStreamSynchronize(ctx->stream);
    if (ctx->cublas)
        cublasDestroy(ctx->cublas);
    cudaFree(ctx->workspace);
    cudaFree(ctx->halfScratch);
    cudaFree(ctx->weightTile);
    if (ctx->pinned)
        cudaFreeHost(ctx->pinned);
    if (ctx->stream)
        cudaStreamDestroy(ctx->stream);
    delete ctx;
}

// --- table entries ---

int create(int deviceIndex, HearthCudaContext** out, char* message, std::size_t messageSize)
{
    if (!out)
        return HEARTH_CUDA_INVALID_ARGUMENT;
    *out = nullptr;
    int count = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    if (err == cudaErrorInsufficientDriver || err == cudaErrorNoDevice || (err == cudaSuccess && count == 0)) {
        cudaGetLastError();
        if (err == cudaErrorInsufficientDriver) {
            writeMessage(message, messageSize,
                         "no CUDA device: the NVIDIA driver is missing or older than this build of CUDA needs");
            return HEARTH_CUDA_NO_DRIVER;
        }
        writeMessage(message, messageSize, "no CUDA device found");
        return HEARTH_CUDA_NO_DEVICE;
    }
    if (err != cudaSuccess) {
        cudaGetLastError();
        writeMessage(message, messageSize, std::string("no CUDA device: ") + cudaGetErrorString(err));
        return HEARTH_CUDA_NO_DEVICE;
    }
    if (deviceIndex < 0 || deviceIndex >= count) {
        writeMessage(message, messageSize,
                     "no CUDA device #" + std::to_string(deviceIndex) + " (" + std::to_string(count) + " present)");
        return HEARTH_CUDA_NO_DEVICE;
    }
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, deviceIndex) != cudaSuccess) {
        writeMessage(message, messageSize, "cannot query CUDA device #" + std::to_string(deviceIndex));
        return HEARTH_CUDA_FAILED;
    }
    if (prop.major * 10 + prop.minor < 75) {
        writeMessage(message, messageSize,
                     std::string(prop.name) + " (compute capability " + std::to_string(prop.major) + "."
                         + std::to_string(prop.minor) + ") is older than the 7.5 this build needs");
        return HEARTH_CUDA_UNSUPPORTED;
    }

    auto* ctx = new (std::nothrow) HearthCudaContext();
    if (!ctx)
        return HEARTH_CUDA_OUT_OF_MEMORY;
    ctx->device = deviceIndex;
    auto bail = [&](int code, const std::string& text) {
        writeMessage(message, messageSize, text);
        destroyContext(ctx);
        return code;
    };
    cudaError_t e = cudaSetDevice(deviceIndex);
    if (e == cudaSuccess)
        e = cudaStreamCreateWithFlags(&ctx->stream, cudaStreamNonBlocking);
    if (e == cudaSuccess)
        e = cudaMalloc(&ctx->workspace, kCublasWorkspaceBytes);
    if (e == cudaSuccess)
        e = cudaMalloc(reinterpret_cast<void**>(&ctx->halfScratch), kScratchBytes);
    if (e == cudaSuccess)
        e = cudaMalloc(reinterpret_cast<void**>(&ctx->weightTile), kTileBytes);
    if (e == cudaSuccess)
        e = cudaMallocHost(reinterpret_cast<void**>(&ctx->pinned), kPinnedBytes);
    if (e != cudaSuccess)
        return bail(e == cudaErrorMemoryAllocation ? HEARTH_CUDA_OUT_OF_MEMORY : HEARTH_CUDA_FAILED,
                    std::string("cannot set up the CUDA context: ") + cudaGetErrorString(e));
    cublasStatus_t s = cublasCreate(&ctx->cublas);
    if (s == CUBLAS_STATUS_SUCCESS)
        s = cublasSetStream(ctx->cublas, ctx->stream);
    if (s == CUBLAS_STATUS_SUCCESS)
        s = cublasSetWorkspace(ctx->cublas, ctx->workspace, kCublasWorkspaceBytes);
    if (s == CUBLAS_STATUS_SUCCESS)
        s = cublasSetMathMode(ctx->cublas, CUBLAS_DEFAULT_MATH);
    if (s != CUBLAS_STATUS_SUCCESS)
        return bail(HEARTH_CUDA_FAILED, "cannot set up cuBLAS: status " + std::to_string(int(s)));
    *out = ctx;
    return HEARTH_CUDA_OK;
}

const char* lastError(const HearthCudaContext* ctx)
{
    return ctx ? ctx->lastError.c_str() : "";
}

int deviceInfo(HearthCudaContext* ctx, char* name, std::size_t nameSize, std::uint64_t* total, std::uint64_t* freeBytes)
{
    cudaSetDevice(ctx->device);
    cudaDeviceProp prop{};
    cudaError_t err = cudaGetDeviceProperties(&prop, ctx->device);
    if (err != cudaSuccess)
        return cudaFail(ctx, err, "cudaGetDeviceProperties");
    writeMessage(name, nameSize, prop.name);
    std::size_t f = 0;
    std::size_t t = 0;
    err = cudaMemGetInfo(&f, &t);
    if (err != cudaSuccess)
        return cudaFail(ctx, err, "cudaMemGetInfo");
    if (total)
        *total = t;
    if (freeBytes)
        *freeBytes = f;
    return HEARTH_CUDA_OK;
}

std::uint64_t internalBytes(const HearthCudaContext*)
{
    return kCublasWorkspaceBytes + kScratchBytes + kTileBytes;
}

int allocate(HearthCudaContext* ctx, std::uint64_t bytes, void** ptr)
{
    cudaSetDevice(ctx->device);
    const cudaError_t err = cudaMalloc(ptr, std::max<std::uint64_t>(bytes, 1));
    if (err != cudaSuccess) {
        cudaGetLastError(); // an allocation failure is not sticky; clear it
        *ptr = nullptr;
        return cudaFail(ctx, err, "cudaMalloc");
    }
    return HEARTH_CUDA_OK;
}

void release(HearthCudaContext* ctx, void* ptr)
{
    cudaSetDevice(ctx->device);
    cudaFree(ptr);
}

int upload(HearthCudaContext* ctx, void* dst, const void* src, std::uint64_t bytes)
{
    cudaSetDevice(ctx->device);
    const void* from = src;
    if (bytes <= kPinnedBytes - ctx->pinnedUsed) {
        // Through pinned memory: the host copy is done now, the transfer later.
        std::memcpy(ctx->pinned + ctx->pinnedUsed, src, bytes);
        from = ctx->pinned + ctx->pinnedUsed;
        ctx->pinnedUsed += (bytes + 255) & ~std::uint64_t(255);
        ctx->pinnedUsed = std::min(ctx->pinnedUsed, kPinnedBytes);
    }
    const cudaError_t err = cudaMemcpyAsync(dst, from, bytes, cudaMemcpyHostToDevice, ctx->stream);
    return err == cudaSuccess ? HEARTH_CUDA_OK : cudaFail(ctx, err, "upload");
}

int download(HearthCudaContext* ctx, void* dst, const void* src, std::uint64_t bytes)
{
    cudaSetDevice(ctx->device);
    cudaError_t err;
    if (bytes <= kPinnedBytes - ctx->pinnedUsed) {
        std::uint8_t* staging = ctx->pinned + ctx->pinnedUsed;
        ctx->pinnedUsed = std::min(ctx->pinnedUsed + ((bytes + 255) & ~std::uint64_t(255)), kPinnedBytes);
        err = cudaMemcpyAsync(staging, src, bytes, cudaMemcpyDeviceToHost, ctx->stream);
        if (err == cudaSuccess)
            ctx->pending.push_back(PendingCopy{dst, staging, std::size_t(bytes)});
    } else {
        err = cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, ctx->stream);
    }
    return err == cudaSuccess ? HEARTH_CUDA_OK : cudaFail(ctx, err, "download");
}

int synchronize(HearthCudaContext* ctx)
{
    cudaSetDevice(ctx->device);
    const cudaError_t err = cudaStreamSynchronize(ctx->stream);
    if (err == cudaSuccess) {
        for (const PendingCopy& c : ctx->pending)
            std::memcpy(c.dst, c.src, c.bytes);
    }
    ctx->pending.clear();
    ctx->pinnedUsed = 0;
    return err == cudaSuccess ? HEARTH_CUDA_OK : cudaFail(ctx, err, "synchronize");
}

int checkMatrix(HearthCudaContext* ctx, const HearthCudaMatrix* w)
{
    if (!w || !w->data || w->rows <= 0 || w->cols <= 0)
        return fail(ctx, HEARTH_CUDA_INVALID_ARGUMENT, "bad weight matrix");
    if (!isWeightType(w->type))
        return fail(ctx, HEARTH_CUDA_UNSUPPORTED, "weight type " + std::to_string(w->type) + " is not supported");
    return HEARTH_CUDA_OK;
}

int matmul(HearthCudaContext* ctx, const HearthCudaMatrix* w, const float* x, std::int64_t tokens, float* y)
{
    if (int rc = checkMatrix(ctx, w))
        return rc;
    cudaSetDevice(ctx->device);
    const bool dense = w->type == kF32 || w->type == kF16;
    const bool blas = tokens >= (dense ? 2 : kTiledGemmMinTokens) && w->rows <= INT_MAX
                      && w->cols <= std::int64_t(std::min(kHalfScratchElements, kTileElements));
    if (!blas) {
        // Decode (one token) is memory-bound: the warp-per-row kernel reads W once at full
        // float precision of x.
        launchRowDot(w->type, w->data, w->row_bytes, w->cols, x, w->cols, nullptr, w->rows, y, w->rows, tokens,
                     ctx->stream);
        return launched(ctx, "matmul");
    }
    const int m = int(w->rows);
    const int k = int(w->cols);
    const float one = 1.0f;
    const float zero = 0.0f;
    if (w->type == kF32) {
        // Row-major W (rows x cols) is column-major W^T: y^T = op_T(W^T) x^T.
        for (std::int64_t t0 = 0; t0 < tokens; t0 += INT_MAX) {
            const int n = int(std::min<std::int64_t>(tokens - t0, INT_MAX));
            const cublasStatus_t s = cublasSgemm(ctx->cublas, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &one,
                                                 static_cast<const float*>(w->data), k, x + t0 * k, k, &zero,
                                                 y + t0 * m, m);
            if (s != CUBLAS_STATUS_SUCCESS)
                return cublasFail(ctx, s, "cublasSgemm");
        }
        return launched(ctx, "matmul");
    }
    // The activations are converted to F16 in chunks that fit the scratch; F16 weights are
    // multiplied as they are, quantized ones dequantized to F16 a tile of rows at a time. One
    // cublasGemmEx per chunk and tile, with F32 accumulation and output.
    const std::int64_t chunk = std::int64_t(kHalfScratchElements) / k;
    const int tileRows = dense ? m : int(std::min<std::int64_t>(m, std::int64_t(kTileElements) / k));
    for (std::int64_t t0 = 0; t0 < tokens; t0 += chunk) {
        const int n = int(std::min(chunk, tokens - t0));
        launchToHalf(x + t0 * k, ctx->halfScratch, std::int64_t(n) * k, ctx->stream);
        for (int r0 = 0; r0 < m; r0 += tileRows) {
            const int rows = std::min(tileRows, m - r0);
            const void* a = w->data;
            if (!dense) {
                launchDequantize(w->type, static_cast<const std::uint8_t*>(w->data) + std::uint64_t(r0) * w->row_bytes,
                                 w->row_bytes, k, rows, ctx->weightTile, ctx->stream);
                a = ctx->weightTile;
            }
            const cublasStatus_t s = cublasGemmEx(ctx->cublas, CUBLAS_OP_T, CUBLAS_OP_N, rows, n, k, &one, a,
                                                  CUDA_R_16F, k, ctx->halfScratch, CUDA_R_16F, k, &zero,
                                                  y + t0 * m + r0, CUDA_R_32F, m, CUBLAS_COMPUTE_32F,
                                                  CUBLAS_GEMM_DEFAULT);
            if (s != CUBLAS_STATUS_SUCCESS)
                return cublasFail(ctx, s, "cublasGemmEx");
        }
    }
    return launched(ctx, "matmul");
}

int matmulTransposed(HearthCudaContext* ctx, const HearthCudaMatrix* w, const float* x, std::int64_t tokens, float* y)
{
    if (int rc = checkMatrix(ctx, w))
        return rc;
    if (tokens <= 0)
        return HEARTH_CUDA_OK;
    cudaSetDevice(ctx->device);
    if (tokens == 1) {
        // A decoded token is memory-bound: every row added once, as the hybrid FFN's down
        // projection adds its neurons (no index: all rows in order), at full float precision.
        launchDownAccumulate(w->type, w->data, w->row_bytes, w->cols, x, nullptr, w->rows, y, false,
                             reinterpret_cast<float*>(ctx->halfScratch), kScratchBytes / sizeof(float), ctx->stream);
        return launched(ctx, "matmul_transposed");
    }
    if (w->rows > std::int64_t(kHalfScratchElements) || w->cols > std::int64_t(kTileElements))
        return fail(ctx, HEARTH_CUDA_UNSUPPORTED, "matmul_transposed: matrix too large for the conversion scratch");
    // Row-major W (rows x cols) is column-major (cols x rows, ld cols), and x (tokens x rows) is
    // column-major (rows x tokens, ld rows): y^T = W^T x^T is cuBLAS's plain product.
    const int m = int(w->cols);
    const int k = int(w->rows);
    const float one = 1.0f;
    const float zero = 0.0f;
    if (w->type == kF32) {
        for (std::int64_t t0 = 0; t0 < tokens; t0 += INT_MAX) {
            const int n = int(std::min<std::int64_t>(tokens - t0, INT_MAX));
            const cublasStatus_t s = cublasSgemm(ctx->cublas, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one,
                                                 static_cast<const float*>(w->data), m, x + t0 * k, k, &zero,
                                                 y + t0 * m, m);
            if (s != CUBLAS_STATUS_SUCCESS)
                return cublasFail(ctx, s, "cublasSgemm");
        }
        return launched(ctx, "matmul_transposed");
    }
    // As matmul: the activations in F16 chunks, quantized weights dequantized a tile of rows at a
    // time; here each tile is a slice of the sum over rows, so the tiles after the first add to y.
    const bool dense = w->type == kF16;
    const std::int64_t chunk = std::int64_t(kHalfScratchElements) / k;
    const int tileRows = dense ? k : int(std::min<std::int64_t>(k, std::int64_t(kTileElements) / m));
    for (std::int64_t t0 = 0; t0 < tokens; t0 += chunk) {
        const int n = int(std::min(chunk, tokens - t0));
        launchToHalf(x + t0 * k, ctx->halfScratch, std::int64_t(n) * k, ctx->stream);
        for (int r0 = 0; r0 < k; r0 += tileRows) {
            const int rows = std::min(tileRows, k - r0);
            const void* a = w->data;
            if (!dense) {
                launchDequantize(w->type, static_cast<const std::uint8_t*>(w->data) + std::uint64_t(r0) * w->row_bytes,
                                 w->row_bytes, m, rows, ctx->weightTile, ctx->stream);
                a = ctx->weightTile;
            }
            const cublasStatus_t s = cublasGemmEx(ctx->cublas, CUBLAS_OP_N, CUBLAS_OP_N, m, n, rows, &one, a,
                                                  CUDA_R_16F, m, ctx->halfScratch + r0, CUDA_R_16F, k,
                                                  r0 == 0 ? &zero : &one, y + t0 * m, CUDA_R_32F, m,
                                                  CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
            if (s != CUBLAS_STATUS_SUCCESS)
                return cublasFail(ctx, s, "cublasGemmEx");
        }
    }
    return launched(ctx, "matmul_transposed");
}

int rowsDot(HearthCudaContext* ctx, const HearthCudaMatrix* w, const float* x, const std::int32_t* index,
            std::int64_t count, float* y)
{
    if (int rc = checkMatrix(ctx, w))
        return rc;
    if (count <= 0)
        return HEARTH_CUDA_OK;
    cudaSetDevice(ctx->device);
    launchRowDot(w->type, w->data, w->row_bytes, w->cols, x, w->cols, index, count, y, count, 1, ctx->stream);
    return launched(ctx, "rowsDot");
}

int downAccumulate(HearthCudaContext* ctx, const HearthCudaMatrix* w, const float* act, const std::int32_t* index,
                   std::int64_t count, float* y, int accumulate)
{
    if (int rc = checkMatrix(ctx, w))
        return rc;
    cudaSetDevice(ctx->device);
    launchDownAccumulate(w->type, w->data, w->row_bytes, w->cols, act, index, std::max<std::int64_t>(count, 0), y,
                         accumulate != 0, reinterpret_cast<float*>(ctx->halfScratch), kScratchBytes / sizeof(float),
                         ctx->stream);
    return launched(ctx, "downAccumulate");
}

int activate(HearthCudaContext* ctx, int kind, float* gate, const float* up, const std::uint8_t* mask, std::int64_t n)
{
    // 0-3, 6 and 7 gated (they read up), 4 ReLU and 5 GELU (gate alone).
    const bool gated = kind <= 3 || kind >= 6;
    if (kind < 0 || kind > 7 || (gated && !up && n > 0))
        return fail(ctx, HEARTH_CUDA_INVALID_ARGUMENT, "unknown activation");
    if (n <= 0)
        return HEARTH_CUDA_OK;
    cudaSetDevice(ctx->device);
    launchActivate(kind, gate, up, mask, n, ctx->stream);
    return launched(ctx, "activate");
}

int activateFloored(HearthCudaContext* ctx, int kind, float* gate, const float* up, const float* gateFloor,
                    const float* activationFloor, const float* scale, std::int64_t width, std::int64_t n)
{
    const bool gated = kind <= 3 || kind == 6;
    if (kind < 0 || !gated || width <= 0 || n < 0 || n % width != 0 || (n > 0 && (!up || !gateFloor || !activationFloor || !scale)))
        return fail(ctx, HEARTH_CUDA_INVALID_ARGUMENT, "floors need a gated activation, whole rows and their floors");
    if (n == 0)
        return HEARTH_CUDA_OK;
    cudaSetDevice(ctx->device);
    launchActivateFloored(kind, gate, up, gateFloor, activationFloor, scale, width, n, ctx->stream);
    return launched(ctx, "activateFloored");
}

// logits = fc2 . f(fc1 . x) + bias, f ReLU or (@p relu false) nothing, bias optional; the active
// ids compacted.
int predictWith(bool relu, const float* bias, HearthCudaContext* ctx, const HearthCudaMatrix* fc1,
                const HearthCudaMatrix* fc2, const float* x, float threshold, float* hidden, float* logits,
                std::int32_t* active, std::int32_t* activeCount)
{
    if (int rc = checkMatrix(ctx, fc1))
        return rc;
    if (int rc = checkMatrix(ctx, fc2))
        return rc;
    if (fc2->cols != fc1->rows)
        return fail(ctx, HEARTH_CUDA_INVALID_ARGUMENT, "predictor: fc1/fc2 widths differ");
    cudaSetDevice(ctx->device);
    launchRowDot(fc1->type, fc1->data, fc1->row_bytes, fc1->cols, x, fc1->cols, nullptr, fc1->rows, hidden, fc1->rows,
                 1, ctx->stream);
    if (relu)
        launchRelu(hidden, fc1->rows, ctx->stream);
    launchRowDot(fc2->type, fc2->data, fc2->row_bytes, fc2->cols, hidden, fc2->cols, nullptr, fc2->rows, logits,
                 fc2->rows, 1, ctx->stream);
    if (bias)
        launchBiasAdd(logits, bias, fc2->rows, 1, ctx->stream);
    launchCompact(logits, fc2->rows, threshold, active, activeCount, ctx->stream);
    return launched(ctx, "predictor");
}

int predictor(HearthCudaContext* ctx, const HearthCudaMatrix* fc1, const HearthCudaMatrix* fc2, const float* x,
              float threshold, float* hidden, float* logits, std::int32_t* active, std::int32_t* activeCount)
{
    return predictWith(true, nullptr, ctx, fc1, fc2, x, threshold, hidden, logits, active, activeCount);
}

int predictorLinear(HearthCudaContext* ctx, const HearthCudaMatrix* fc1, const HearthCudaMatrix* fc2, const float* x,
                    float threshold, float* hidden, float* logits, std::int32_t* active, std::int32_t* activeCount)
{
    return predictWith(false, nullptr, ctx, fc1, fc2, x, threshold, hidden, logits, active, activeCount);
}

int predictorBiased(HearthCudaContext* ctx, const HearthCudaMatrix* fc1, const HearthCudaMatrix* fc2, const float* x,
                    int relu, const float* bias, float threshold, float* hidden, float* logits, std::int32_t* active,
                    std::int32_t* activeCount)
{
    if (!bias || (relu != 0 && relu != 1))
        return fail(ctx, HEARTH_CUDA_INVALID_ARGUMENT, "predictor: bad bias or form");
    return predictWith(relu == 1, bias, ctx, fc1, fc2, x, threshold, hidden, logits, active, activeCount);
}

int rmsNorm(HearthCudaContext* ctx, const float* x, const float* weight, float eps, std::int64_t n,
            std::int64_t tokens, float* out)
{
    if (n <= 0 || tokens <= 0)
        return fail(ctx, HEARTH_CUDA_INVALID_ARGUMENT, "rmsNorm: bad shape");
    cudaSetDevice(ctx->device);
    launchRmsNorm(x, weight, eps, n, tokens, out, ctx->stream);
    return launched(ctx, "rmsNorm");
}

int attentionSinks(HearthCudaContext* ctx, const HearthCudaAttention* a, int ropeStyle, const float* sinks)
{
    if (!a || a->n_head <= 0 || a->n_head_kv <= 0 || a->n_head % a->n_head_kv != 0 || a->pos < 0 || a->capacity <= 0
        || (a->pos >= a->capacity && (a->window <= 0 || a->window > a->capacity)) || a->n_rot < 0 || a->n_rot > a->head_dim || ropeStyle < 0 || ropeStyle > 2
        || a->window < 0 || !(a->attn_factor > 0.0f) || !(a->scale >= 0.0f) || !(a->soft_cap >= 0.0f))
        return fail(ctx, HEARTH_CUDA_INVALID_ARGUMENT, "attention: bad arguments");
    cudaSetDevice(ctx->device);
    const AttentionArgs args{a->q,   a->k,        a->v,      a->k_cache,   a->v_cache,  a->scores, a->out,
                             a->pos, a->capacity, a->n_head, a->n_head_kv, a->head_dim, a->n_rot,  a->freq_base,
                             a->freq_scale, ropeStyle, a->freq_factors, a->attn_factor, a->window,
                             a->scale > 0.0f ? a->scale : 1.0f / sqrtf(float(a->head_dim)), a->soft_cap,
                             a->half_cache, sinks};
    launchAttention(args, ctx->stream);
    return launched(ctx, "attention");
}

int attentionRope(HearthCudaContext* ctx, const HearthCudaAttention* a, int ropeStyle)
{
    return attentionSinks(ctx, a, ropeStyle, nullptr);
}

int attention(HearthCudaContext* ctx, const HearthCudaAttention* a)
{
    return attentionSinks(ctx, a, 0, nullptr);
}

int layerNorm(HearthCudaContext* ctx, const float* x, const float* weight, const float* bias, float eps,
              std::int64_t n, std::int64_t tokens, float* out)
{
    if (n <= 0 || tokens <= 0 || !x || !weight || !out)
        return fail(ctx, HEARTH_CUDA_INVALID_ARGUMENT, "layerNorm: bad arguments");
    cudaSetDevice(ctx->device);
    launchLayerNorm(x, weight, bias, eps, n, tokens, out, ctx->stream);
    return launched(ctx, "layerNorm");
}

int biasAdd(HearthCudaContext* ctx, float* y, const float* bias, std::int64_t n, std::int64_t tokens)
{
    if (n < 0 || tokens < 0)
        return fail(ctx, HEARTH_CUDA_INVALID_ARGUMENT, "biasAdd: bad shape");
    if (n == 0 || tokens == 0)
        return HEARTH_CUDA_OK;
    cudaSetDevice(ctx->device);
    launchBiasAdd(y, bias, n, tokens, ctx->stream);
    return launched(ctx, "biasAdd");
}

int add(HearthCudaContext* ctx, float* y, const float* x, std::int64_t n)
{
    if (n <= 0)
        return HEARTH_CUDA_OK;
    cudaSetDevice(ctx->device);
    launchAdd(y, x, n, ctx->stream);
    return launched(ctx, "add");
}

const HearthCudaBackendV1 kTable = {
    HEARTH_CUDA_ABI_VERSION,
    sizeof(HearthCudaBackendV1),
    create,
    destroyContext,
    lastError,
    deviceInfo,
    internalBytes,
    allocate,
    release,
    upload,
    download,
    synchronize,
    matmul,
    rowsDot,
    downAccumulate,
    activate,
    predictor,
    rmsNorm,
    attention,
    add,
    layerNorm,
    biasAdd,
    attentionRope,
    matmulTransposed,
    predictorLinear,
    predictorBiased,
    activateFloored,
    attentionSinks,
};

} // namespace

extern "C" {

#if defined(_WIN32)
__declspec(dllexport)
#else
__attribute__((visibility("default")))
#endif
const HearthCudaBackendV1* hearth_cuda_backend_v1()
{
    return &kTable;
}

} // extern "C"
