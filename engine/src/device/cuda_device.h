// SPDX-License-Identifier: MIT
#pragma once

// The Device interface over libhearth-cuda.so's C function table. Made by DeviceLoader, which
// keeps the module loaded for as long as any CudaDevice uses it. Budget accounting happens here,
// on the engine's side, with the same MemoryBudget as the emulated device; the bytes the module
// holds for itself (cuBLAS workspace, conversion scratch) are charged when the device opens.

#include "device/cuda_backend_api.h"
#include "device/device.h"
#include "device/memory_budget.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>

namespace hearth::device {

class SharedLibrary;

class CudaDevice final : public Device {
public:
    // @p budgetBytes 0 means the free memory less a 256 MiB margin (the "auto" budget).
    [[nodiscard]] static Result<std::unique_ptr<CudaDevice>> open(std::shared_ptr<SharedLibrary> library,
                                                                  const HearthCudaBackendV1* api, int deviceIndex,
                                                                  std::uint64_t budgetBytes);
    ~CudaDevice() override;

    [[nodiscard]] const DeviceInfo& info() const override { return m_info; }
    [[nodiscard]] std::uint64_t usedBytes() const override { return m_budget->used(); }

    [[nodiscard]] Result<DeviceBuffer> allocate(std::uint64_t bytes, const char* label) override;
    void free(DeviceBuffer& buffer) override;
    [[nodiscard]] Status upload(const DeviceBuffer& buffer, std::uint64_t offset, const void* host,
                                std::uint64_t bytes) override;
    [[nodiscard]] Status download(const DeviceBuffer& buffer, std::uint64_t offset, void* host,
                                  std::uint64_t bytes) override;
    [[nodiscard]] Status synchronize() override;

    [[nodiscard]] Status matmul(const MatmulOp& op) override;
    [[nodiscard]] Status rowsDot(const RowsDotOp& op) override;
    [[nodiscard]] Status downAccumulate(const DownAccumulateOp& op) override;
    [[nodiscard]] Status activate(const ActivateOp& op) override;
    [[nodiscard]] Status predictor(const PredictorOp& op) override;
    [[nodiscard]] Status rmsNorm(const RmsNormOp& op) override;
    [[nodiscard]] Status attention(const AttentionOp& op) override;
    [[nodiscard]] Status add(const AddOp& op) override;
    [[nodiscard]] Status layerNorm(const LayerNormOp& op) override;
    [[nodiscard]] Status biasAdd(const BiasAddOp& op) override;

private:
    CudaDevice() = default;
    [[nodiscard]] Status check(int code, const char* what) const;
    // The table entry at @p offset when the module has it (see cuda_backend_api.h), else null.
    template <typename Fn>
    [[nodiscard]] Fn optional(Fn HearthCudaBackendV1::*entry, std::size_t offset) const
    {
        return m_api->struct_size >= offset + sizeof(Fn) ? m_api->*entry : nullptr;
    }

    std::shared_ptr<SharedLibrary> m_library;
    const HearthCudaBackendV1* m_api = nullptr;
    HearthCudaContext* m_ctx = nullptr;
    DeviceInfo m_info;
    std::unique_ptr<MemoryBudget> m_budget;
    std::uint64_t m_internalCharged = 0;
    std::mutex m_idMutex;
    std::uint64_t m_nextId = 1;
    // Live buffers by id, freed with the device: the CUDA primary context outlives a CudaDevice.
    std::unordered_map<std::uint64_t, void*> m_live;
};

} // namespace hearth::device
