// SPDX-License-Identifier: MIT
#include "convert/torch_tensor.h"

#include <cstdint>
#include <cstring>
#include <utility>

namespace hearth::convert {

std::int64_t TorchTensor::elementCount() const
{
    std::int64_t count = 1;
    for (const std::int64_t dim : m_shape) {
        count *= dim;
    }
    return count;
}

std::span<const std::byte> TorchTensor::data() const
{
    return m_owned.empty() ? m_mapped : std::span<const std::byte>(m_owned);
}

std::vector<float> TorchTensor::toFloat() const
{
    const auto bytes = data();
    return convertToFloat(m_dtype, bytes.data(), bytes.size() / elementSize(m_dtype));
}

TorchTensor TorchTensor::fromStorage(ElementType dtype, std::vector<std::int64_t> shape,
                                     std::vector<std::int64_t> strides, std::int64_t storageOffset,
                                     std::span<const std::byte> storage, bool bigEndian,
                                     std::shared_ptr<const void> owner)
{
    // The caller (the Unpickler) has checked that the view lies inside the storage and that
    // its element count does not overflow.
    TorchTensor t;
    t.m_dtype = dtype;
    t.m_shape = std::move(shape);
    t.m_strides = std::move(strides);
    t.m_storageOffset = storageOffset;
    const std::size_t esize = elementSize(dtype);
    const auto count = static_cast<std::size_t>(t.elementCount());
    if (count == 0) {
        return t;
    }

    // Row-major contiguity; dimensions of size 1 may carry any stride.
    bool contiguous = true;
    std::int64_t expected = 1;
    for (std::size_t d = t.m_shape.size(); d-- > 0;) {
        if (t.m_shape[d] != 1 && t.m_strides[d] != expected) {
            contiguous = false;
            break;
        }
        expected *= t.m_shape[d];
    }
    const std::byte* base = storage.data() + static_cast<std::size_t>(storageOffset) * esize;
    if (contiguous && !bigEndian) {
        t.m_mapped = {base, count * esize};
        t.m_owner = std::move(owner);
        return t;
    }

    // Gather the view into a compact copy, walking the index like an odometer.
    t.m_owned.resize(count * esize);
    std::vector<std::int64_t> index(t.m_shape.size(), 0);
    std::int64_t offset = 0; // in elements, relative to base
    for (std::size_t i = 0; i < count; ++i) {
        std::memcpy(t.m_owned.data() + i * esize, base + static_cast<std::size_t>(offset) * esize, esize);
        for (std::size_t d = t.m_shape.size(); d-- > 0;) {
            if (++index[d] < t.m_shape[d]) {
                offset += t.m_strides[d];
                break;
            }
            offset -= (t.m_shape[d] - 1) * t.m_strides[d];
            index[d] = 0;
        }
    }
    if (bigEndian && esize > 1) {
        for (std::size_t i = 0; i < count; ++i) {
            std::byte* element = t.m_owned.data() + i * esize;
            for (std::size_t a = 0, b = esize - 1; a < b; ++a, --b) {
                std::swap(element[a], element[b]);
            }
        }
    }
    return t;
}

} // namespace hearth::convert
