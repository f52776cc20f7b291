// SPDX-License-Identifier: MIT
#include "device/emulated_device.h"

#include "device/byte_format.h"
#include "device/op_checks.h"
#include "device/reference_ops.h"

#include <cstdint>
#include <cstring>
#include <exception>
#include <new>
#include <stdexcept>
#include <utility>

namespace hearth::device {

namespace {

constexpr std::size_t kAlignment = 64;

} // namespace

EmulatedDevice::EmulatedDevice(EmulatedDeviceOptions options)
    : m_budget(options.budgetBytes, options.granularity)
    , m_physical(options.physicalBytes ? options.physicalBytes : options.budgetBytes)
    , m_operationsBeforeFailure(options.operationsBeforeFailure)
{
    m_info.backend = "emulated";
    m_info.name = options.name;
    m_info.totalBytes = m_physical;
    m_info.freeBytes = m_physical;
    m_info.budgetBytes = options.budgetBytes;
    m_info.granularity = m_budget.granularity();
    m_worker = std::thread([this] { run(); });
}

EmulatedDevice::~EmulatedDevice()
{
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_wake.notify_all();
    m_worker.join();
    for (const auto& [id, ptr] : m_live)
        ::operator delete(ptr, std::align_val_t(kAlignment));
}

std::size_t EmulatedDevice::liveAllocations() const
{
    std::lock_guard lock(m_mutex);
    return m_live.size();
}

void EmulatedDevice::run()
{
    for (;;) {
        std::function<void()> work;
        {
            std::unique_lock lock(m_mutex);
            m_wake.wait(lock, [this] { return m_stop || !m_queue.empty(); });
            if (m_queue.empty()) {
                return; // stopping with nothing left to do
            }
            work = std::move(m_queue.front());
            m_queue.pop_front();
            m_busy = true;
        }
        // The reference ops allocate small vectors; a failure must not escape the thread.
        try {
            work();
        } catch (const std::bad_alloc& e) {
            std::lock_guard lock(m_mutex);
            if (m_error.ok())
                m_error = Status(ErrorCode::OutOfMemory, std::string("emulated device: ") + e.what());
        } catch (const std::exception& e) { // an injected failure
            std::lock_guard lock(m_mutex);
            if (m_error.ok())
                m_error = Status(ErrorCode::Internal, std::string("emulated device: ") + e.what());
        }
        {
            std::lock_guard lock(m_mutex);
            m_busy = false;
            if (m_queue.empty())
                m_idle.notify_all();
        }
    }
}

void EmulatedDevice::enqueue(std::function<void()> work)
{
    const std::uint64_t queued = ++m_queued;
    if (m_operationsBeforeFailure > 0 && queued > m_operationsBeforeFailure) {
        work = [] { throw std::runtime_error("the emulated device stopped working"); };
    } else if (m_injectedOpFailures.load() > 0) {
        --m_injectedOpFailures;
        work = [] { throw std::runtime_error("injected operation failure"); };
    }
    {
        std::lock_guard lock(m_mutex);
        m_queue.push_back(std::move(work));
    }
    m_wake.notify_one();
}

void EmulatedDevice::waitIdle()
{
    std::unique_lock lock(m_mutex);
    m_idle.wait(lock, [this] { return m_queue.empty() && !m_busy; });
}

Status EmulatedDevice::synchronize()
{
    waitIdle();
    std::lock_guard lock(m_mutex);
    return std::exchange(m_error, Status());
}

Result<DeviceBuffer> EmulatedDevice::allocate(std::uint64_t bytes, const char* label)
{
    const char* name = label ? label : "a buffer";
    if (m_injectedFailures.load() > 0) {
        --m_injectedFailures;
        return Status(ErrorCode::OutOfMemory, std::string("device allocation failed for ") + name + " ("
                                                  + formatBytes(bytes) + "): injected failure");
    }
    auto charged = m_budget.reserve(bytes, label);
    if (!charged)
        return charged.status();
    void* ptr = nullptr;
    {
        std::lock_guard lock(m_mutex);
        if (*charged > m_physical - std::min(m_physical, m_physicalUsed)) {
            m_budget.release(*charged);
            return Status(ErrorCode::OutOfMemory, std::string("device allocation failed for ") + name + " ("
                                                      + formatBytes(bytes) + "): the device is out of memory");
        }
        m_physicalUsed += *charged;
    }
    ptr = ::operator new(std::size_t(*charged), std::align_val_t(kAlignment), std::nothrow);
    if (!ptr) {
        std::lock_guard lock(m_mutex);
        m_physicalUsed -= *charged;
        m_budget.release(*charged);
        return Status(ErrorCode::OutOfMemory, std::string("host memory exhausted allocating ") + name);
    }
    std::lock_guard lock(m_mutex);
    const std::uint64_t id = m_nextId++;
    try {
        m_live.emplace(id, ptr);
    } catch (const std::bad_alloc&) {
        ::operator delete(ptr, std::align_val_t(kAlignment));
        m_physicalUsed -= *charged;
        m_budget.release(*charged);
        return Status(ErrorCode::OutOfMemory, std::string("host memory exhausted allocating ") + name);
    }
    return DeviceBuffer{ptr, bytes, *charged, id};
}

void EmulatedDevice::free(DeviceBuffer& buffer)
{
    if (buffer.empty())
        return;
    waitIdle(); // queued work may still read it
    {
        std::lock_guard lock(m_mutex);
        const auto it = m_live.find(buffer.id);
        if (it == m_live.end() || it->second != buffer.ptr)
            return; // not this device's buffer (or freed twice through a copy of the handle)
        m_live.erase(it);
        m_physicalUsed -= std::min(m_physicalUsed, buffer.charged);
    }
    ::operator delete(buffer.ptr, std::align_val_t(kAlignment));
    m_budget.release(buffer.charged);
    buffer = DeviceBuffer{};
}

Status EmulatedDevice::upload(const DeviceBuffer& buffer, std::uint64_t offset, const void* host, std::uint64_t bytes)
{
    HEARTH_TRY(checkRange(buffer, offset, bytes, host));
    if (bytes == 0)
        return {};
    auto* dst = static_cast<std::uint8_t*>(buffer.ptr) + offset;
    enqueue([dst, host, bytes] { std::memcpy(dst, host, std::size_t(bytes)); });
    return {};
}

Status EmulatedDevice::download(const DeviceBuffer& buffer, std::uint64_t offset, void* host, std::uint64_t bytes)
{
    HEARTH_TRY(checkRange(buffer, offset, bytes, host));
    if (bytes == 0)
        return {};
    const auto* src = static_cast<const std::uint8_t*>(buffer.ptr) + offset;
    enqueue([src, host, bytes] { std::memcpy(host, src, std::size_t(bytes)); });
    return {};
}

// Each op is copied (with the matrices it points at) so the caller's structs may go away.
Status EmulatedDevice::matmul(const MatmulOp& op)
{
    HEARTH_TRY(checkOp(op));
    enqueue([op = op, w = *op.w]() mutable {
        op.w = &w;
        reference::matmul(op);
    });
    return {};
}

Status EmulatedDevice::rowsDot(const RowsDotOp& op)
{
    HEARTH_TRY(checkOp(op));
    if (op.count == 0)
        return {};
    enqueue([op = op, w = *op.w]() mutable {
        op.w = &w;
        reference::rowsDot(op);
    });
    return {};
}

Status EmulatedDevice::downAccumulate(const DownAccumulateOp& op)
{
    HEARTH_TRY(checkOp(op));
    enqueue([op = op, w = *op.w]() mutable {
        op.w = &w;
        reference::downAccumulate(op);
    });
    return {};
}

Status EmulatedDevice::activate(const ActivateOp& op)
{
    HEARTH_TRY(checkOp(op));
    enqueue([op] { reference::activate(op); });
    return {};
}

Status EmulatedDevice::predictor(const PredictorOp& op)
{
    HEARTH_TRY(checkOp(op));
    enqueue([op = op, fc1 = *op.fc1, fc2 = *op.fc2]() mutable {
        op.fc1 = &fc1;
        op.fc2 = &fc2;
        (void)reference::predictor(op);
    });
    return {};
}

Status EmulatedDevice::rmsNorm(const RmsNormOp& op)
{
    HEARTH_TRY(checkOp(op));
    enqueue([op] { reference::rmsNorm(op); });
    return {};
}

Status EmulatedDevice::attention(const AttentionOp& op)
{
    HEARTH_TRY(checkOp(op));
    enqueue([op] { reference::attention(op); });
    return {};
}

Status EmulatedDevice::add(const AddOp& op)
{
    HEARTH_TRY(checkOp(op));
    if (op.n == 0)
        return {};
    enqueue([op] { reference::add(op); });
    return {};
}

Status EmulatedDevice::layerNorm(const LayerNormOp& op)
{
    HEARTH_TRY(checkOp(op));
    enqueue([op] { reference::layerNorm(op); });
    return {};
}

Status EmulatedDevice::biasAdd(const BiasAddOp& op)
{
    HEARTH_TRY(checkOp(op));
    if (op.n == 0 || op.tokens == 0)
        return {};
    enqueue([op] { reference::biasAdd(op); });
    return {};
}

} // namespace hearth::device
