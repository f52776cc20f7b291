// SPDX-License-Identifier: MIT
// The safetensors reader: any input parses or fails with a message, and every tensor of a
// parsed file lies inside the input and holds exactly its shape's bytes.

#include "convert/safetensors_file.h"
#include "fuzz_support.h"

#include <cstdint>

using namespace hearth;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const auto input = fuzz::bytes(data, size);
    auto file = convert::SafetensorsFile::fromBytes(input);
    if (!fuzz::parsed(file))
        return 0;
    std::uint64_t sum = 0;
    for (const convert::SafetensorsTensor& tensor : file->tensors()) {
        fuzz::require(tensor.data.data() >= input.data() && tensor.data.data() + tensor.data.size() <= input.data() + input.size());
        fuzz::require(file->find(tensor.name) == &tensor);
        fuzz::require(tensor.elementCount() >= 0);
        if (!tensor.data.empty())
            sum += std::to_integer<unsigned>(tensor.data.front()) + std::to_integer<unsigned>(tensor.data.back());
        if (tensor.data.size() <= 4096)
            sum += tensor.toFloat().size();
    }
    fuzz::consume(sum);
    return 0;
}
