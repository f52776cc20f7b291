// SPDX-License-Identifier: MIT
// Writes the binary seeds of the fuzz targets into <folder>/<target>/: valid files that reach
// every part of each reader (for GGUF: all value types, nested arrays, tensor types, alignments,
// both magics; for PyTorch: zip64, state dicts, single tensors), so mutations start from deep
// inside the format. The text seeds (templates, JSON) are kept in tests/fuzz/corpus/ instead.

#include "../engine/torch_fixture_writer.h"
#include "gguf/gguf_writer.h"

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
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

bool writeFile(const std::string& path, const std::vector<std::byte>& bytes)
{
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    if (!out) {
        std::fprintf(stderr, "%s: cannot write\n", path.c_str());
        return false;
    }
    return true;
}

std::vector<std::byte> text(const std::string& s)
{
    const auto* p = reinterpret_cast<const std::byte*>(s.data());
    return {p, p + s.size()};
}

std::vector<std::byte> safetensors(const std::string& header, std::size_t dataBytes)
{
    std::vector<std::byte> out;
    hearth::test::appendLittle(out, static_cast<std::uint64_t>(header.size()));
    hearth::test::appendBytes(out, header.data(), header.size());
    for (std::size_t i = 0; i < dataBytes; ++i)
        out.push_back(static_cast<std::byte>(i * 7));
    return out;
}

bool writeSafetensorsSeeds(const std::string& dir)
{
    bool ok = writeFile(dir + "/two.safetensors",
                        safetensors(R"({"__metadata__":{"format":"pt"},"a":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]},)"
                                    R"("b":{"dtype":"F16","shape":[3],"data_offsets":[16,22]}})",
                                    22));
    ok &= writeFile(dir + "/types.safetensors",
                    safetensors(R"({"x":{"dtype":"BF16","shape":[1],"data_offsets":[0,2]},"y":{"dtype":"I64","shape":[1],"data_offsets":[2,10]},)"
                                R"("z":{"dtype":"U8","shape":[0],"data_offsets":[10,10]}})",
                                10));
    return ok;
}

// A SentencePiece ModelProto: pieces (field 1), a trainer spec with special ids (2), a normalizer (3).
std::vector<std::byte> sentencePiece()
{
    std::vector<std::byte> out;
    const auto varint = [](std::vector<std::byte>& b, std::uint64_t v) {
        while (v >= 0x80) {
            b.push_back(static_cast<std::byte>((v & 0x7f) | 0x80));
            v >>= 7;
        }
        b.push_back(static_cast<std::byte>(v));
    };
    const auto field = [&](std::vector<std::byte>& b, int number, const std::vector<std::byte>& body) {
        varint(b, static_cast<std::uint64_t>(number) << 3 | 2);
        varint(b, body.size());
        b.insert(b.end(), body.begin(), body.end());
    };
    int index = 0;
    for (const char* piece : {"<unk>", "<s>", "</s>", "<0x41>", "\xe2\x96\x81", "\xe2\x96\x81" "a", "b"}) {
        std::vector<std::byte> p;
        field(p, 1, text(piece));
        varint(p, 2 << 3 | 5); // score, fixed32
        const float score = -static_cast<float>(index);
        hearth::test::appendBytes(p, &score, sizeof score);
        varint(p, 3 << 3 | 0); // type
        varint(p, index == 0 ? 2 : index < 3 ? 3 : index == 3 ? 6 : 1);
        field(out, 1, p);
        ++index;
    }
    std::vector<std::byte> trainer;
    for (const auto& [number, id] : {std::pair(40, 0), std::pair(41, 1), std::pair(42, 2), std::pair(43, -1)}) {
        varint(trainer, static_cast<std::uint64_t>(number) << 3);
        varint(trainer, static_cast<std::uint64_t>(static_cast<std::int64_t>(id)));
    }
    field(out, 2, trainer);
    std::vector<std::byte> normalizer;
    varint(normalizer, 3 << 3);
    varint(normalizer, 1);
    field(out, 3, normalizer);
    return out;
}

bool writeTorchSeeds(const std::string& zipDir, const std::string& torchDir)
{
    using namespace hearth::test;
    const FloatTensor small{{2, 3}, {1, 2, 3, 4, 5, 6}};
    const Bytes stateDict = torchStateDict({{"fc1.weight", small}, {"fc2.weight", FloatTensor{{3}, {7, 8, 9}}}});
    const Bytes single = torchTensorFile(FloatTensor{{4}, {0.5f, 1.5f, 2.5f, 3.5f}});
    bool ok = writeFile(torchDir + "/state_dict.pt", stateDict) && writeFile(torchDir + "/tensor.pt", single);
    ok &= writeFile(zipDir + "/state_dict.zip", stateDict);
    ok &= writeFile(zipDir + "/zip64.zip", writeZip({{"archive/data.pkl", {std::byte{0x80}, std::byte{2}, std::byte{'.'}}}, {"archive/version", text("3\n")}}, true));
    return ok;
}

bool writeGgufSeeds(const std::string& dir)
{
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
    return ok;
}

} // namespace

int main(int argc, char** argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s <corpus-root>\n", argv[0]);
        return 2;
    }
    const std::string root = argv[1];
    for (const char* target : {"gguf", "safetensors", "zip", "torch", "sentencepiece"})
        std::filesystem::create_directories(root + "/" + target);
    bool ok = writeGgufSeeds(root + "/gguf");
    ok &= writeSafetensorsSeeds(root + "/safetensors");
    ok &= writeTorchSeeds(root + "/zip", root + "/torch");
    ok &= writeFile(root + "/sentencepiece/tiny.model", sentencePiece());
    return ok ? 0 : 1;
}
