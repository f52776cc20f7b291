// SPDX-License-Identifier: MIT
#pragma once

// Handles to device memory. A handle is a plain value: the Device that made it frees it.

#include "core/dtype.h"

#include <cstdint>

namespace hearth::device {

struct DeviceBuffer {
    void* ptr = nullptr;        // device address (host address on the emulated device)
    std::uint64_t bytes = 0;    // as requested
    std::uint64_t charged = 0;  // as counted against the budget
    std::uint64_t id = 0;       // unique per device, 0 = empty

    [[nodiscard]] bool empty() const { return id == 0; }
    template <typename T>
    [[nodiscard]] T* as() const
    {
        return static_cast<T*>(ptr);
    }
};

// @p bytes of @p buffer from byte @p offset, as a handle the operations accept (rows of a batch,
// positions of a cache). It shares the buffer's id and is never freed itself; the caller keeps
// the range inside the buffer.
[[nodiscard]] inline DeviceBuffer slice(const DeviceBuffer& buffer, std::uint64_t offset, std::uint64_t bytes)
{
    return DeviceBuffer{static_cast<std::uint8_t*>(buffer.ptr) + offset, bytes, 0, buffer.id};
}

// A row-major weight matrix in device memory, laid out as in GGUF (see cpu::WeightMatrix).
struct DeviceMatrix {
    DType type = DType::F32;
    DeviceBuffer data;
    std::int64_t rows = 0;
    std::int64_t cols = 0;
};

} // namespace hearth::device
