// SPDX-License-Identifier: MIT
// The ZIP reader under PyTorch checkpoints: any input indexes or fails with a message, and every
// entry's data lies inside the input.

#include "convert/zip_archive.h"
#include "fuzz_support.h"

#include <cstdint>

using namespace hearth;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const auto input = fuzz::bytes(data, size);
    auto archive = convert::ZipArchive::open(input);
    if (!fuzz::parsed(archive))
        return 0;
    std::uint64_t sum = 0;
    for (const convert::ZipEntry& entry : archive->entries()) {
        const auto bytes = archive->data(entry);
        fuzz::require(bytes.size() == entry.size);
        fuzz::require(bytes.empty() || (bytes.data() >= input.data() && bytes.data() + bytes.size() <= input.data() + input.size()));
        fuzz::require(archive->find(entry.name) != nullptr);
        if (entry.size <= 65536)
            fuzz::succeeded(archive->verifyChecksum(entry));
        sum += entry.size;
    }
    fuzz::consume(sum);
    return 0;
}
