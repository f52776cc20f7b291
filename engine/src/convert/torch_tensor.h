// SPDX-License-Identifier: MIT
#pragma once

// One tensor of a PyTorch checkpoint, with its data resolved: a pointer into the file mapping
// when the tensor is a contiguous little-endian view, otherwise an owned, compacted copy.

#include "convert/element_type.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace hearth::convert {

class TorchTensor {
public:
    TorchTensor() = default;

    [[nodiscard]] ElementType dtype() const { return m_dtype; }
    [[nodiscard]] const std::vector<std::int64_t>& shape() const { return m_shape; }
    // Strides of the view in the file, in elements (the data() below is always row-major).
    [[nodiscard]] const std::vector<std::int64_t>& strides() const { return m_strides; }
    // Offset of the view into its storage, in elements.
    [[nodiscard]] std::int64_t storageOffset() const { return m_storageOffset; }
    [[nodiscard]] std::int64_t elementCount() const;
    // True when data() points into the file itself rather than at a copy.
    [[nodiscard]] bool isMapped() const { return m_owned.empty() && elementCount() > 0; }

    // Row-major little-endian bytes: elementCount() * elementSize(dtype()).
    [[nodiscard]] std::span<const std::byte> data() const;
    // The elements converted to float.
    [[nodiscard]] std::vector<float> toFloat() const;

    // For TorchCheckpoint: a view of @p storage (a storage's bytes) kept alive by @p owner. The
    // view must lie inside the storage and hold no more elements than it. Copies the elements
    // when the view is not contiguous or when @p bigEndian storage must be byte-swapped.
    static TorchTensor fromStorage(ElementType dtype, std::vector<std::int64_t> shape,
                                   std::vector<std::int64_t> strides, std::int64_t storageOffset,
                                   std::span<const std::byte> storage, bool bigEndian,
                                   std::shared_ptr<const void> owner);

private:
    ElementType m_dtype = ElementType::F32;
    std::vector<std::int64_t> m_shape;
    std::vector<std::int64_t> m_strides;
    std::int64_t m_storageOffset = 0;
    std::span<const std::byte> m_mapped; // used when m_owned is empty
    std::vector<std::byte> m_owned;
    std::shared_ptr<const void> m_owner; // keeps the mapping alive while data() points into it
};

} // namespace hearth::convert
