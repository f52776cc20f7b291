// SPDX-License-Identifier: MIT
#pragma once

// Where hot FFN neurons (and, for dense files, whole layers) are computed. Two back ends share
// this interface: CudaDevice (a real GPU through libhearth-cuda.so) and EmulatedDevice (host
// memory and a worker thread), so the split between CPU and device, the merge, the memory budget
// and the fallbacks run the same code on machines without a GPU.
//
// Memory: every allocation is charged against a budget, rounded up to the allocation
// granularity the placement planner assumes; one past the budget fails with
// ErrorCode::OutOfMemory. Nothing here throws.
//
// Work: operations are queued on the device's one stream and run in order, asynchronously to the
// calling thread. A call only validates its arguments (a bad argument returns an error at once);
// failures while running are reported by the next synchronize(). Host memory passed to upload()
// and download() must stay valid (and unchanged) until synchronize() returns. A device is driven
// from one thread at a time.

#include "core/dtype.h"
#include "device/device_buffer.h"
#include "device/device_ops.h"

#include <hearth/status.h>

#include <cstdint>
#include <initializer_list>
#include <string>

namespace hearth::device {

struct DeviceInfo {
    std::string backend;            // "emulated", "cuda"
    std::string name;               // e.g. "NVIDIA GeForce RTX 4090"
    std::uint64_t totalBytes = 0;   // as the device reports
    std::uint64_t freeBytes = 0;    // when the device was opened
    std::uint64_t budgetBytes = 0;  // what Hearth may allocate
    std::uint64_t granularity = 256; // allocations are rounded up to this
};

class Device {
public:
    virtual ~Device() = default;

    [[nodiscard]] virtual const DeviceInfo& info() const = 0;

    // Budget accounting (bytes as charged, i.e. rounded up to the granularity).
    [[nodiscard]] virtual std::uint64_t usedBytes() const = 0;
    [[nodiscard]] std::uint64_t budgetBytes() const { return info().budgetBytes; }
    [[nodiscard]] std::uint64_t availableBytes() const
    {
        return usedBytes() >= budgetBytes() ? 0 : budgetBytes() - usedBytes();
    }
    // What an allocation of @p bytes is charged.
    [[nodiscard]] std::uint64_t chargedBytes(std::uint64_t bytes) const;

    // A fresh buffer (contents undefined). @p label names it in error messages.
    [[nodiscard]] virtual Result<DeviceBuffer> allocate(std::uint64_t bytes, const char* label) = 0;
    // Returns the buffer's bytes to the budget. Waits for queued work first; freeing an empty
    // handle does nothing.
    virtual void free(DeviceBuffer& buffer) = 0;

    // Host -> device and device -> host copies of @p bytes at byte @p offset of @p buffer.
    [[nodiscard]] virtual Status upload(const DeviceBuffer& buffer, std::uint64_t offset, const void* host,
                                        std::uint64_t bytes) = 0;
    [[nodiscard]] virtual Status download(const DeviceBuffer& buffer, std::uint64_t offset, void* host,
                                          std::uint64_t bytes) = 0;

    // Waits for every queued operation; returns the first failure since the last call.
    [[nodiscard]] virtual Status synchronize() = 0;

    // The operations (device_ops.h documents each one).
    [[nodiscard]] virtual Status matmul(const MatmulOp& op) = 0;
    [[nodiscard]] virtual Status rowsDot(const RowsDotOp& op) = 0;
    [[nodiscard]] virtual Status downAccumulate(const DownAccumulateOp& op) = 0;
    [[nodiscard]] virtual Status activate(const ActivateOp& op) = 0;
    [[nodiscard]] virtual Status predictor(const PredictorOp& op) = 0;
    [[nodiscard]] virtual Status rmsNorm(const RmsNormOp& op) = 0;
    [[nodiscard]] virtual Status attention(const AttentionOp& op) = 0;
    [[nodiscard]] virtual Status add(const AddOp& op) = 0;
    [[nodiscard]] virtual Status layerNorm(const LayerNormOp& op) = 0;
    [[nodiscard]] virtual Status biasAdd(const BiasAddOp& op) = 0;

    // One buffer for each request, in order. At the first failure its error comes back; the
    // buffers made before stay in their requests' places, for their owner to free.
    struct BufferRequest {
        DeviceBuffer* buffer;
        std::uint64_t bytes;
        const char* label;
    };
    [[nodiscard]] Status allocateEach(std::initializer_list<BufferRequest> requests);
    // Allocates and uploads in one step; returns once the data is on the device (it
    // synchronizes), so @p host may go away right after. For weights, not per-token data.
    [[nodiscard]] Result<DeviceBuffer> allocateAndUpload(const void* host, std::uint64_t bytes, const char* label);
    [[nodiscard]] Result<DeviceMatrix> uploadMatrix(DType type, const void* data, std::int64_t rows, std::int64_t cols,
                                                    const char* label);
};

} // namespace hearth::device
