// SPDX-License-Identifier: MIT
#pragma once

// A device in host memory. Work runs on the device's own worker thread, in order, with the CPU
// reference kernels, so callers see the same asynchrony as on a GPU: a queued operation
// overlaps with whatever the calling thread does until synchronize(). Budget accounting is the
// same MemoryBudget the CUDA back end uses.
//
// For tests it can misbehave on purpose: a physical capacity below the budget (a device that
// reported more free memory than it has, or fragmentation) and injected allocation failures.

#include "device/device.h"
#include "device/memory_budget.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>

namespace hearth::device {

struct EmulatedDeviceOptions {
    std::uint64_t budgetBytes = std::uint64_t(1) << 30;
    std::uint64_t granularity = 256;
    // Real capacity; allocations past it fail although the budget allows them. 0 = the budget.
    std::uint64_t physicalBytes = 0;
    std::string name = "Hearth emulated device";
    // > 0: every operation after this many fails, as a GPU that stops working mid-session.
    std::uint64_t operationsBeforeFailure = 0;
};

class EmulatedDevice final : public Device {
public:
    explicit EmulatedDevice(EmulatedDeviceOptions options = {});
    ~EmulatedDevice() override;

    [[nodiscard]] const DeviceInfo& info() const override { return m_info; }
    [[nodiscard]] std::uint64_t usedBytes() const override { return m_budget.used(); }
    [[nodiscard]] std::uint64_t peakBytes() const { return m_budget.peak(); }
    [[nodiscard]] std::size_t liveAllocations() const;

    // The next @p count allocations fail with ErrorCode::OutOfMemory.
    void injectAllocationFailures(int count) { m_injectedFailures = count; }
    // The next @p count operations fail when they run (reported by synchronize()), as a GPU
    // that hits an error in a kernel or a copy.
    void injectOperationFailures(int count) { m_injectedOpFailures = count; }
    // Operations queued so far (each op and copy counts one).
    [[nodiscard]] std::uint64_t operationsQueued() const { return m_queued; }

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
    void enqueue(std::function<void()> work);
    void run();
    void waitIdle();

    DeviceInfo m_info;
    MemoryBudget m_budget;
    std::uint64_t m_physical;
    std::uint64_t m_physicalUsed = 0;
    std::atomic<int> m_injectedFailures{0};
    std::atomic<int> m_injectedOpFailures{0};
    std::atomic<std::uint64_t> m_queued{0};
    std::uint64_t m_operationsBeforeFailure = 0;
    std::uint64_t m_nextId = 1;
    // Live buffers by id, freed with the device (as a GPU context frees its memory).
    std::unordered_map<std::uint64_t, void*> m_live;

    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    std::condition_variable m_idle;
    std::deque<std::function<void()>> m_queue;
    bool m_busy = false;
    Status m_error; // first failure since the last synchronize()
    bool m_stop = false;
    std::thread m_worker;
};

} // namespace hearth::device
