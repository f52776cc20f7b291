// SPDX-License-Identifier: MIT
// Writes a small seed corpus for fuzz_gguf into the folder given as the only argument: valid
// files that reach every part of the reader (all value types, nested arrays, tensor types,
// alignments, both magics), so mutations start from deep inside the format.

#include "gguf/gguf_writer.h"

#include <cstdio>
#include <string>
#include <vector>

using namespace hearth;
using namespace hearth::gguf;

namespace {

bool writeSeed(const std::string& path, GgufWriter& writer, const std::vector<std::size_t>& tensorBytes)
{
    Status status = writer.begin(path);
    for (std::size_t i = 0; status.ok() && i < tensorBytes.size(); ++i) {
        std::vector<std::byte> data(tensorBytes[i]);
        for (std::size_t j = 0; j < data.size(); ++j) {
            data[j] = static_cast<std::byte>(j * 37 + i);
        }
        status = writer.writeTensorData(data);
    }
    if (status.ok()) {
        status = writer.finish();
    }
    if (!status.ok()) {
        std::fprintf(stderr, "%s: %s\n", path.c_str(), status.message().c_str());
        return false;
    }
    return true;
}

} // namespace

int main(int argc, char** argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s <corpus-dir>\n", argv[0]);
        return 2;
    }
    const std::string dir = argv[1];
    bool ok = true;

    {
        GgufWriter w;
        w.setString("general.architecture", "llama");
        w.setUInt32("llama.block_count", 1);
        w.setFloat32("llama.attention.layer_norm_rms_epsilon", 1e-5f);
        w.setBool("tokenizer.ggml.add_bos_token", true);
        w.setStringArray("tokenizer.ggml.tokens", {"<unk>", "<s>", "</s>", "\xe2\x96\x81" "a"});
        w.setFloat32Array("tokenizer.ggml.scores", {0.f, 0.f, 0.f, -1.f});
        w.setInt32Array("tokenizer.ggml.token_type", {2, 3, 3, 1});
        w.addTensor("token_embd.weight", DType::F32, {4, 4});
        w.addTensor("blk.0.ffn_up.weight", DType::Q4_0, {32, 2});
        w.addTensor("blk.0.ffn_down.weight", DType::Q8_0, {32, 1});
        w.addTensor("output_norm.weight", DType::F16, {4});
        w.addTensor("ids", DType::I32, {3});
        ok &= writeSeed(dir + "/model.gguf", w, {64, 36, 34, 8, 12});
    }
    {
        GgufWriter w(Magic::PowerInfer, 64);
        w.setValue("u8", Value{ValueType::UInt8, std::uint64_t{1}});
        w.setValue("i8", Value{ValueType::Int8, std::int64_t{-1}});
        w.setValue("u16", Value{ValueType::UInt16, std::uint64_t{2}});
        w.setValue("i16", Value{ValueType::Int16, std::int64_t{-2}});
        w.setValue("i64", Value{ValueType::Int64, std::int64_t{-3}});
        w.setUInt64("u64", 3);
        w.setValue("f64", Value{ValueType::Float64, 0.5});
        ArrayValue nested;
        nested.elementType = ValueType::Array;
        nested.nestedCount = 1;
        // One inner array: uint16 {7}.
        nested.nestedRaw = {std::byte{2}, std::byte{0}, std::byte{0}, std::byte{0}, std::byte{1}, std::byte{0},
                            std::byte{0}, std::byte{0}, std::byte{0}, std::byte{0}, std::byte{0}, std::byte{0},
                            std::byte{7}, std::byte{0}};
        w.setValue("nested", Value{ValueType::Array, nested});
        w.addTensor("blk.0.fc1.weight", DType::F32, {2, 2, 1, 1});
        ok &= writeSeed(dir + "/powerinfer.gguf", w, {16});
    }
    {
        GgufWriter w(Magic::Gguf, 1);
        w.addTensor("a", DType::F16, {1});
        w.addTensor("b", DType::F32, {0});
        ok &= writeSeed(dir + "/unaligned.gguf", w, {2, 0});
    }
    {
        GgufWriter w;
        ok &= writeSeed(dir + "/empty.gguf", w, {});
    }
    return ok ? 0 : 1;
}
