// CUDA back end module, loaded at run time with dlopen/LoadLibrary.
//
// This translation unit exports a C entry point so the engine never links against the CUDA
// runtime: a machine without an NVIDIA driver simply fails to load the module and runs CPU-only.

#include <cuda_runtime.h>

#include <cstdio>

namespace {

__global__ void scaleKernel(float* data, float factor, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        data[i] *= factor;
    }
}

} // namespace

extern "C" {

// Returns the number of usable CUDA devices, or a negative CUDA error code.
int hearth_cuda_device_count()
{
    int count = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    return err == cudaSuccess ? count : -static_cast<int>(err);
}

// Self-check used by tests/gpu: scales n floats on the device and copies them back.
int hearth_cuda_selftest_scale(float* host, int n, float factor)
{
    float* device = nullptr;
    if (cudaMalloc(&device, sizeof(float) * n) != cudaSuccess) {
        return -1;
    }
    cudaMemcpy(device, host, sizeof(float) * n, cudaMemcpyHostToDevice);
    scaleKernel<<<(n + 255) / 256, 256>>>(device, factor, n);
    const cudaError_t err = cudaMemcpy(host, device, sizeof(float) * n, cudaMemcpyDeviceToHost);
    cudaFree(device);
    return err == cudaSuccess ? 0 : -2;
}

} // extern "C"
