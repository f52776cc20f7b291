// SPDX-License-Identifier: MIT
#include "device/device.h"

#include <algorithm>
#include <cstdint>

namespace hearth::device {

std::uint64_t Device::chargedBytes(std::uint64_t bytes) const
{
    const std::uint64_t g = std::max<std::uint64_t>(info().granularity, 1);
    return (bytes == 0 ? 1 : (bytes - 1) / g + 1) * g;
}

Status Device::allocateEach(std::initializer_list<BufferRequest> requests)
{
    for (const BufferRequest& r : requests) {
        auto b = allocate(r.bytes, r.label);
        if (!b)
            return b.status();
        *r.buffer = *b;
    }
    return {};
}

Result<DeviceBuffer> Device::allocateAndUpload(const void* host, std::uint64_t bytes, const char* label)
{
    auto buffer = allocate(bytes, label);
    if (!buffer)
        return buffer.status();
    if (bytes > 0) {
        Status s = upload(*buffer, 0, host, bytes);
        if (s.ok())
            s = synchronize();
        if (!s.ok()) {
            free(*buffer);
            return s;
        }
    }
    return buffer;
}

Result<DeviceMatrix> Device::uploadMatrix(DType type, const void* data, std::int64_t rows, std::int64_t cols,
                                          const char* label)
{
    if (!isDeviceType(type) || rows <= 0 || cols <= 0 || !data)
        return Status(ErrorCode::InvalidArgument, std::string("cannot upload matrix ") + (label ? label : ""));
    if (cols % weightBlockElements(type) != 0)
        return Status(ErrorCode::InvalidArgument, std::string("rows are not whole blocks of their type: ") + (label ? label : ""));
    const std::uint64_t bytes = std::uint64_t(rowBytes(type, cols)) * std::uint64_t(rows);
    auto buffer = allocateAndUpload(data, bytes, label);
    if (!buffer)
        return buffer.status();
    return DeviceMatrix{type, *buffer, rows, cols};
}

} // namespace hearth::device
