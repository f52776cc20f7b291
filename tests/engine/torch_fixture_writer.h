// SPDX-License-Identifier: MIT
#pragma once

// Writes PyTorch checkpoints the way torch.save does (a stored zip archive holding data.pkl,
// byteorder, data/<key> storages and version), so tests can build predictor, activation and
// pytorch_model.bin fixtures without Python.

#include "convert/zip_archive.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace hearth::test {

using Bytes = std::vector<std::byte>;

inline void appendBytes(Bytes& out, const void* data, std::size_t size)
{
    const auto* p = static_cast<const std::byte*>(data);
    out.insert(out.end(), p, p + size);
}

template <typename U>
void appendLittle(Bytes& out, U value)
{
    for (std::size_t i = 0; i < sizeof(U); ++i) {
        out.push_back(static_cast<std::byte>((static_cast<std::uint64_t>(value) >> (8 * i)) & 0xffu));
    }
}

// Emits pickle opcodes by hand, as Python's pickler does for torch.save (protocol 2).
class PickleWriter {
public:
    PickleWriter& op(std::uint8_t opcode)
    {
        m_bytes.push_back(static_cast<std::byte>(opcode));
        return *this;
    }
    PickleWriter& raw(std::string_view text)
    {
        appendBytes(m_bytes, text.data(), text.size());
        return *this;
    }
    PickleWriter& proto(int version) { return op(0x80).op(static_cast<std::uint8_t>(version)); }
    PickleWriter& mark() { return op('('); }
    PickleWriter& str(std::string_view s)
    {
        op('X');
        appendLittle<std::uint32_t>(m_bytes, static_cast<std::uint32_t>(s.size()));
        return raw(s);
    }
    PickleWriter& integer(std::int64_t v)
    {
        if (v >= 0 && v < 256) {
            return op('K').op(static_cast<std::uint8_t>(v));
        }
        op('J');
        appendLittle<std::uint32_t>(m_bytes, static_cast<std::uint32_t>(v));
        return *this;
    }
    PickleWriter& global(std::string_view module, std::string_view name)
    {
        return op('c').raw(module).raw("\n").raw(name).raw("\n");
    }
    PickleWriter& intTuple(const std::vector<std::int64_t>& values)
    {
        mark();
        for (const std::int64_t v : values) {
            integer(v);
        }
        return op('t');
    }
    // torch._utils._rebuild_tensor_v2(('storage', torch.FloatStorage, key, 'cpu', numel), 0,
    //                                 shape, contiguous strides, False, OrderedDict())
    PickleWriter& floatTensor(std::string_view key, const std::vector<std::int64_t>& shape)
    {
        std::int64_t numel = 1;
        std::vector<std::int64_t> strides(shape.size());
        for (std::size_t i = shape.size(); i-- > 0;) {
            strides[i] = numel;
            numel *= shape[i];
        }
        global("torch._utils", "_rebuild_tensor_v2");
        mark();
        mark().str("storage").global("torch", "FloatStorage").str(key).str("cpu").integer(numel).op('t');
        op('Q'); // BINPERSID
        integer(0).intTuple(shape).intTuple(strides).op(0x89); // NEWFALSE
        global("collections", "OrderedDict").op(')').op('R');
        op('t');
        return op('R');
    }
    [[nodiscard]] const Bytes& bytes() const { return m_bytes; }

private:
    Bytes m_bytes;
};

// A stored zip archive with 64-byte aligned entries, as PyTorch writes them.
inline Bytes writeStoredZip(const std::vector<std::pair<std::string, Bytes>>& items)
{
    Bytes out;
    std::vector<std::uint32_t> offsets;
    for (const auto& [name, data] : items) {
        offsets.push_back(static_cast<std::uint32_t>(out.size()));
        const std::size_t headerEnd = out.size() + 30 + name.size() + 4;
        const std::size_t padding = (64 - headerEnd % 64) % 64;
        appendLittle<std::uint32_t>(out, 0x04034b50);
        appendLittle<std::uint16_t>(out, 20);
        appendLittle<std::uint16_t>(out, 0);
        appendLittle<std::uint16_t>(out, 0); // stored
        appendLittle<std::uint32_t>(out, 0);
        appendLittle<std::uint32_t>(out, convert::crc32(data));
        appendLittle<std::uint32_t>(out, static_cast<std::uint32_t>(data.size()));
        appendLittle<std::uint32_t>(out, static_cast<std::uint32_t>(data.size()));
        appendLittle<std::uint16_t>(out, static_cast<std::uint16_t>(name.size()));
        appendLittle<std::uint16_t>(out, static_cast<std::uint16_t>(4 + padding));
        appendBytes(out, name.data(), name.size());
        appendLittle<std::uint16_t>(out, 0x4246); // "FB": PyTorch's padding field
        appendLittle<std::uint16_t>(out, static_cast<std::uint16_t>(padding));
        out.resize(out.size() + padding, std::byte{'Z'});
        out.insert(out.end(), data.begin(), data.end());
    }
    const auto directoryOffset = static_cast<std::uint32_t>(out.size());
    for (std::size_t i = 0; i < items.size(); ++i) {
        const auto& [name, data] = items[i];
        appendLittle<std::uint32_t>(out, 0x02014b50);
        appendLittle<std::uint16_t>(out, 45);
        appendLittle<std::uint16_t>(out, 20);
        appendLittle<std::uint16_t>(out, 0);
        appendLittle<std::uint16_t>(out, 0);
        appendLittle<std::uint32_t>(out, 0);
        appendLittle<std::uint32_t>(out, convert::crc32(data));
        appendLittle<std::uint32_t>(out, static_cast<std::uint32_t>(data.size()));
        appendLittle<std::uint32_t>(out, static_cast<std::uint32_t>(data.size()));
        appendLittle<std::uint16_t>(out, static_cast<std::uint16_t>(name.size()));
        appendLittle<std::uint16_t>(out, 0);
        appendLittle<std::uint16_t>(out, 0);
        appendLittle<std::uint16_t>(out, 0);
        appendLittle<std::uint16_t>(out, 0);
        appendLittle<std::uint32_t>(out, 0);
        appendLittle<std::uint32_t>(out, offsets[i]);
        appendBytes(out, name.data(), name.size());
    }
    const auto directorySize = static_cast<std::uint32_t>(out.size() - directoryOffset);
    appendLittle<std::uint32_t>(out, 0x06054b50);
    appendLittle<std::uint16_t>(out, 0);
    appendLittle<std::uint16_t>(out, 0);
    appendLittle<std::uint16_t>(out, static_cast<std::uint16_t>(items.size()));
    appendLittle<std::uint16_t>(out, static_cast<std::uint16_t>(items.size()));
    appendLittle<std::uint32_t>(out, directorySize);
    appendLittle<std::uint32_t>(out, directoryOffset);
    appendLittle<std::uint16_t>(out, 0);
    return out;
}

struct FloatTensor {
    std::vector<std::int64_t> shape;
    std::vector<float> values; // row-major
};

inline Bytes checkpointArchive(const PickleWriter& pickle, const std::vector<Bytes>& storages)
{
    std::vector<std::pair<std::string, Bytes>> items;
    items.emplace_back("archive/data.pkl", pickle.bytes());
    items.emplace_back("archive/byteorder", Bytes{std::byte{'l'}, std::byte{'i'}, std::byte{'t'}, std::byte{'t'},
                                                  std::byte{'l'}, std::byte{'e'}});
    for (std::size_t i = 0; i < storages.size(); ++i) {
        items.emplace_back("archive/data/" + std::to_string(i), storages[i]);
    }
    items.emplace_back("archive/version", Bytes{std::byte{'3'}, std::byte{'\n'}});
    return writeStoredZip(items);
}

// torch.save(OrderedDict(name -> float32 tensor)).
inline Bytes torchStateDict(const std::map<std::string, FloatTensor>& tensors)
{
    PickleWriter p;
    p.proto(2).global("collections", "OrderedDict").op(')').op('R');
    p.mark();
    std::vector<Bytes> storages;
    for (const auto& [name, tensor] : tensors) {
        p.str(name).floatTensor(std::to_string(storages.size()), tensor.shape);
        Bytes data;
        appendBytes(data, tensor.values.data(), tensor.values.size() * sizeof(float));
        storages.push_back(std::move(data));
    }
    p.op('u').op('.');
    return checkpointArchive(p, storages);
}

// torch.save(one float32 tensor), as PowerInfer's activation_<n>.pt files are.
inline Bytes torchTensorFile(const FloatTensor& tensor)
{
    PickleWriter p;
    p.proto(2).floatTensor("0", tensor.shape).op('.');
    Bytes data;
    appendBytes(data, tensor.values.data(), tensor.values.size() * sizeof(float));
    return checkpointArchive(p, {data});
}

} // namespace hearth::test
