// SPDX-License-Identifier: MIT
// libFuzzer entry point for the GGUF reader: any input must parse or fail with a message, and a
// parsed file's tensor data must lie inside the input.

#include "gguf/gguf_file.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    using namespace hearth::gguf;
    const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
    auto parsed = GgufFile::parse(bytes);
    if (!parsed) {
        if (parsed.message().empty()) {
            std::abort(); // every failure must say why
        }
        return 0;
    }
    const GgufFile& file = **parsed;
    if (file.alignment() == 0 || (file.alignment() & (file.alignment() - 1)) != 0) {
        std::abort();
    }
    std::uint64_t sum = 0;
    for (const auto& [key, value] : file.metadata()) {
        sum += key.size() + static_cast<std::uint32_t>(value.type);
        if (const ArrayValue* array = file.getArray(key)) {
            sum += array->size();
        }
        sum += file.getInt(key).value_or(0);
    }
    for (const TensorInfo& tensor : file.tensors()) {
        const auto* begin = reinterpret_cast<const std::uint8_t*>(tensor.data);
        if (begin < data || begin > data + size || tensor.byteSize > static_cast<std::uint64_t>(data + size - begin)) {
            std::abort();
        }
        // Reading the first and last byte lets AddressSanitizer confirm the extent.
        if (tensor.byteSize > 0) {
            sum += begin[0] + begin[tensor.byteSize - 1];
        }
        if (file.findTensor(tensor.name) != &tensor) {
            std::abort();
        }
    }
    // Keeps the reads above from being optimised away.
    volatile std::uint64_t sink = sum;
    (void)sink;
    return 0;
}
