// SPDX-License-Identifier: MIT
// model.safetensors.index.json: the input is the index, beside two real shards. Any index opens
// or fails with a message; shard names never reach outside the folder.

#include "convert/safetensors_index.h"
#include "fuzz_support.h"

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

using namespace hearth;

namespace {

// A shard with one F32 tensor of two elements.
std::string shard(const std::string& tensor)
{
    const std::string header = R"({"__metadata__":{"format":"pt"},")" + tensor + R"(":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
    std::string out(8, '\0');
    for (int i = 0; i < 8; ++i)
        out[std::size_t(i)] = static_cast<char>((header.size() >> (8 * i)) & 0xff);
    return out + header + std::string(8, '\x01');
}

const std::filesystem::path& folder()
{
    static const std::filesystem::path dir = [] {
        std::filesystem::path d = std::filesystem::temp_directory_path() / ("hearth-fuzz-index-" + std::to_string(getpid()));
        std::filesystem::create_directories(d);
        std::ofstream(d / "model-00001-of-00002.safetensors", std::ios::binary) << shard("a.weight");
        std::ofstream(d / "model-00002-of-00002.safetensors", std::ios::binary) << shard("b.weight");
        return d;
    }();
    return dir;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::filesystem::path index = folder() / "model.safetensors.index.json";
    {
        std::ofstream out(index, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    }
    auto opened = convert::SafetensorsIndex::open(index.string());
    if (fuzz::parsed(opened)) {
        for (const std::string& name : opened->names())
            fuzz::require(opened->find(name) != nullptr);
        fuzz::require(opened->shards().size() <= 2);
    }
    return 0;
}
