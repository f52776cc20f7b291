// SPDX-License-Identifier: MIT
// A stand-in for libhearth-cuda.so that needs no GPU: the C function table over host memory, so
// tst_device can drive CudaDevice and DeviceLoader's success path. Copies work; compute
// operations answer "unsupported"; allocations above 1 MiB fail as out of memory.

#include "device/cuda_backend_api.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

struct HearthCudaContext {
    char lastError[128];
};

namespace {

constexpr uint64_t kTotal = uint64_t(1) << 30;
constexpr uint64_t kFree = uint64_t(768) << 20;
constexpr uint64_t kInternal = uint64_t(1) << 20;
constexpr uint64_t kLargestAllocation = uint64_t(1) << 20;

int unsupported(HearthCudaContext* ctx)
{
    std::snprintf(ctx->lastError, sizeof(ctx->lastError), "not available in the stand-in module");
    return HEARTH_CUDA_UNSUPPORTED;
}

int create(int deviceIndex, HearthCudaContext** ctx, char* message, size_t size)
{
    if (deviceIndex != 0) {
        std::snprintf(message, size, "no CUDA device #%d (1 present)", deviceIndex);
        return HEARTH_CUDA_NO_DEVICE;
    }
    *ctx = static_cast<HearthCudaContext*>(std::calloc(1, sizeof(HearthCudaContext)));
    return *ctx ? HEARTH_CUDA_OK : HEARTH_CUDA_OUT_OF_MEMORY;
}

void destroy(HearthCudaContext* ctx)
{
    std::free(ctx);
}

const char* lastError(const HearthCudaContext* ctx)
{
    return ctx->lastError;
}

int deviceInfo(HearthCudaContext*, char* name, size_t size, uint64_t* total, uint64_t* freeBytes)
{
    std::snprintf(name, size, "Stand-in GPU");
    *total = kTotal;
    *freeBytes = kFree;
    return HEARTH_CUDA_OK;
}

uint64_t internalBytes(const HearthCudaContext*)
{
    return kInternal;
}

int allocate(HearthCudaContext* ctx, uint64_t bytes, void** ptr)
{
    *ptr = bytes <= kLargestAllocation ? std::malloc(bytes) : nullptr;
    if (!*ptr) {
        std::snprintf(ctx->lastError, sizeof(ctx->lastError), "out of memory");
        return HEARTH_CUDA_OUT_OF_MEMORY;
    }
    return HEARTH_CUDA_OK;
}

void release(HearthCudaContext*, void* ptr)
{
    std::free(ptr);
}

int copy(HearthCudaContext*, void* dst, const void* src, uint64_t bytes)
{
    std::memcpy(dst, src, bytes);
    return HEARTH_CUDA_OK;
}

int synchronize(HearthCudaContext*)
{
    return HEARTH_CUDA_OK;
}

int matmul(HearthCudaContext* ctx, const HearthCudaMatrix*, const float*, int64_t, float*)
{
    return unsupported(ctx);
}
int rowsDot(HearthCudaContext* ctx, const HearthCudaMatrix*, const float*, const int32_t*, int64_t, float*)
{
    return unsupported(ctx);
}
int downAccumulate(HearthCudaContext* ctx, const HearthCudaMatrix*, const float*, const int32_t*, int64_t, float*, int)
{
    return unsupported(ctx);
}
int activate(HearthCudaContext* ctx, int, float*, const float*, const uint8_t*, int64_t)
{
    return unsupported(ctx);
}
int predictor(HearthCudaContext* ctx, const HearthCudaMatrix*, const HearthCudaMatrix*, const float*, float, float*,
              float*, int32_t*, int32_t*)
{
    return unsupported(ctx);
}
int rmsNorm(HearthCudaContext* ctx, const float*, const float*, float, int64_t, int64_t, float*)
{
    return unsupported(ctx);
}
int attention(HearthCudaContext* ctx, const HearthCudaAttention*)
{
    return unsupported(ctx);
}
int add(HearthCudaContext* ctx, float*, const float*, int64_t)
{
    return unsupported(ctx);
}

const HearthCudaBackendV1 kTable = {HEARTH_CUDA_ABI_VERSION,
                                    sizeof(HearthCudaBackendV1),
                                    create,
                                    destroy,
                                    lastError,
                                    deviceInfo,
                                    internalBytes,
                                    allocate,
                                    release,
                                    copy,
                                    copy,
                                    synchronize,
                                    matmul,
                                    rowsDot,
                                    downAccumulate,
                                    activate,
                                    predictor,
                                    rmsNorm,
                                    attention,
                                    add};

} // namespace

#if defined(_WIN32)
#define HEARTH_TEST_EXPORT __declspec(dllexport)
#else
#define HEARTH_TEST_EXPORT __attribute__((visibility("default")))
#endif

extern "C" HEARTH_TEST_EXPORT const HearthCudaBackendV1* hearth_cuda_backend_v1()
{
    return &kTable;
}
