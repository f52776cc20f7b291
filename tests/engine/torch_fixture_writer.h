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
    PickleWriter& shortStr(std::string_view s)
    {
        op(0x8c).op(static_cast<std::uint8_t>(s.size()));
        return raw(s);
    }
    PickleWriter& integer(std::int64_t v)
    {
        if (v >= 0 && v < 256) {
            return op('K').op(static_cast<std::uint8_t>(v));
        }
        if (v >= 0 && v < 65536) {
            op('M');
            appendLittle<std::uint16_t>(m_bytes, static_cast<std::uint16_t>(v));
            return *this;
        }
        if (v >= INT32_MIN && v <= INT32_MAX) {
            op('J');
            appendLittle<std::uint32_t>(m_bytes, static_cast<std::uint32_t>(v));
            return *this;
        }
        op(0x8a).op(8);
        appendLittle<std::uint64_t>(m_bytes, static_cast<std::uint64_t>(v));
        return *this;
    }
    PickleWriter& global(std::string_view module, std::string_view name)
    {
        op('c').raw(module).raw("\n").raw(name).raw("\n");
        return *this;
    }
    PickleWriter& put(std::uint8_t index) { return op('q').op(index); }
    PickleWriter& get(std::uint8_t index) { return op('h').op(index); }
    PickleWriter& tuple() { return op('t'); }
    PickleWriter& emptyTuple() { return op(')'); }
    PickleWriter& emptyDict() { return op('}'); }
    PickleWriter& emptyList() { return op(']'); }
    PickleWriter& reduce() { return op('R'); }
    PickleWriter& setItems() { return op('u'); }
    PickleWriter& stop() { return op('.'); }

    PickleWriter& intTuple(const std::vector<std::int64_t>& values)
    {
        mark();
        for (const std::int64_t v : values) {
            integer(v);
        }
        return tuple();
    }

    // torch._utils._rebuild_tensor_v2(('storage', torch.<storageClass>, key, 'cpu', numel),
    //                                 offset, shape, strides, False, OrderedDict())
    PickleWriter& tensor(std::string_view storageClass, std::string_view key, std::int64_t numel, std::int64_t offset,
                   const std::vector<std::int64_t>& shape, const std::vector<std::int64_t>& strides)
    {
        global("torch._utils", "_rebuild_tensor_v2");
        mark();
        mark().str("storage").global("torch", storageClass).str(key).str("cpu").integer(numel).tuple();
        op('Q'); // BINPERSID
        integer(offset).intTuple(shape).intTuple(strides).op(0x89); // NEWFALSE
        global("collections", "OrderedDict").emptyTuple().reduce();
        tuple();
        return reduce();
    }

    // A float32 tensor with contiguous strides over the whole of storage @p key.
    PickleWriter& floatTensor(std::string_view key, const std::vector<std::int64_t>& shape)
    {
        std::int64_t numel = 1;
        std::vector<std::int64_t> strides(shape.size());
        for (std::size_t i = shape.size(); i-- > 0;) {
            strides[i] = numel;
            numel *= shape[i];
        }
        return tensor("FloatStorage", key, numel, 0, shape, strides);
    }

    [[nodiscard]] const Bytes& bytes() const { return m_bytes; }

private:
    Bytes m_bytes;
};

struct ZipItem {
    std::string name;
    Bytes data;
    std::uint16_t method = 0;
};

// Writes stored entries like PyTorch's writer: data aligned to 64 bytes with padding in the
// local extra field, optionally with ZIP64 records.
inline Bytes writeZip(const std::vector<ZipItem>& items, bool zip64 = false)
{
    Bytes out;
    std::vector<std::uint64_t> offsets;
    for (const ZipItem& item : items) {
        offsets.push_back(out.size());
        const std::size_t headerEnd = out.size() + 30 + item.name.size() + 4;
        const std::size_t padding = (64 - headerEnd % 64) % 64;
        appendLittle<std::uint32_t>(out, 0x04034b50);
        appendLittle<std::uint16_t>(out, zip64 ? 45 : 20);
        appendLittle<std::uint16_t>(out, 0);
        appendLittle<std::uint16_t>(out, item.method);
        appendLittle<std::uint32_t>(out, 0); // time, date
        appendLittle<std::uint32_t>(out, convert::crc32(item.data));
        appendLittle<std::uint32_t>(out, static_cast<std::uint32_t>(item.data.size()));
        appendLittle<std::uint32_t>(out, static_cast<std::uint32_t>(item.data.size()));
        appendLittle<std::uint16_t>(out, static_cast<std::uint16_t>(item.name.size()));
        appendLittle<std::uint16_t>(out, static_cast<std::uint16_t>(4 + padding));
        appendBytes(out, item.name.data(), item.name.size());
        appendLittle<std::uint16_t>(out, 0x4246); // "FB": padding, as PyTorch writes
        appendLittle<std::uint16_t>(out, static_cast<std::uint16_t>(padding));
        out.resize(out.size() + padding, std::byte{'Z'});
        out.insert(out.end(), item.data.begin(), item.data.end());
    }
    const std::uint64_t directoryOffset = out.size();
    for (std::size_t i = 0; i < items.size(); ++i) {
        const ZipItem& item = items[i];
        appendLittle<std::uint32_t>(out, 0x02014b50);
        appendLittle<std::uint16_t>(out, 45);
        appendLittle<std::uint16_t>(out, zip64 ? 45 : 20);
        appendLittle<std::uint16_t>(out, 0);
        appendLittle<std::uint16_t>(out, item.method);
        appendLittle<std::uint32_t>(out, 0);
        appendLittle<std::uint32_t>(out, convert::crc32(item.data));
        appendLittle<std::uint32_t>(out, zip64 ? 0xffffffffu : static_cast<std::uint32_t>(item.data.size()));
        appendLittle<std::uint32_t>(out, zip64 ? 0xffffffffu : static_cast<std::uint32_t>(item.data.size()));
        appendLittle<std::uint16_t>(out, static_cast<std::uint16_t>(item.name.size()));
        appendLittle<std::uint16_t>(out, zip64 ? 28 : 0);
        appendLittle<std::uint16_t>(out, 0); // comment
        appendLittle<std::uint16_t>(out, 0); // disk
        appendLittle<std::uint16_t>(out, 0);
        appendLittle<std::uint32_t>(out, 0);
        appendLittle<std::uint32_t>(out, zip64 ? 0xffffffffu : static_cast<std::uint32_t>(offsets[i]));
        appendBytes(out, item.name.data(), item.name.size());
        if (zip64) {
            appendLittle<std::uint16_t>(out, 0x0001);
            appendLittle<std::uint16_t>(out, 24);
            appendLittle<std::uint64_t>(out, item.data.size());
            appendLittle<std::uint64_t>(out, item.data.size());
            appendLittle<std::uint64_t>(out, offsets[i]);
        }
    }
    const std::uint64_t directorySize = out.size() - directoryOffset;
    if (zip64) {
        const std::uint64_t recordOffset = out.size();
        appendLittle<std::uint32_t>(out, 0x06064b50);
        appendLittle<std::uint64_t>(out, 44);
        appendLittle<std::uint16_t>(out, 45);
        appendLittle<std::uint16_t>(out, 45);
        appendLittle<std::uint32_t>(out, 0);
        appendLittle<std::uint32_t>(out, 0);
        appendLittle<std::uint64_t>(out, items.size());
        appendLittle<std::uint64_t>(out, items.size());
        appendLittle<std::uint64_t>(out, directorySize);
        appendLittle<std::uint64_t>(out, directoryOffset);
        appendLittle<std::uint32_t>(out, 0x07064b50);
        appendLittle<std::uint32_t>(out, 0);
        appendLittle<std::uint64_t>(out, recordOffset);
        appendLittle<std::uint32_t>(out, 1);
    }
    appendLittle<std::uint32_t>(out, 0x06054b50);
    appendLittle<std::uint16_t>(out, 0);
    appendLittle<std::uint16_t>(out, 0);
    appendLittle<std::uint16_t>(out, zip64 ? 0xffff : static_cast<std::uint16_t>(items.size()));
    appendLittle<std::uint16_t>(out, zip64 ? 0xffff : static_cast<std::uint16_t>(items.size()));
    appendLittle<std::uint32_t>(out, zip64 ? 0xffffffffu : static_cast<std::uint32_t>(directorySize));
    appendLittle<std::uint32_t>(out, zip64 ? 0xffffffffu : static_cast<std::uint32_t>(directoryOffset));
    appendLittle<std::uint16_t>(out, 0);
    return out;
}

struct FloatTensor {
    std::vector<std::int64_t> shape;
    std::vector<float> values; // row-major
};

inline Bytes checkpointArchive(const PickleWriter& pickle, const std::vector<Bytes>& storages)
{
    std::vector<ZipItem> items;
    items.push_back({"archive/data.pkl", pickle.bytes()});
    items.push_back({"archive/byteorder", Bytes{std::byte{'l'}, std::byte{'i'}, std::byte{'t'}, std::byte{'t'},
                                                std::byte{'l'}, std::byte{'e'}}});
    for (std::size_t i = 0; i < storages.size(); ++i) {
        items.push_back({"archive/data/" + std::to_string(i), storages[i]});
    }
    items.push_back({"archive/version", Bytes{std::byte{'3'}, std::byte{'\n'}}});
    return writeZip(items);
}

// torch.save(OrderedDict(name -> float32 tensor)).
inline Bytes torchStateDict(const std::map<std::string, FloatTensor>& tensors)
{
    PickleWriter p;
    p.proto(2).global("collections", "OrderedDict").emptyTuple().reduce();
    p.mark();
    std::vector<Bytes> storages;
    for (const auto& [name, tensor] : tensors) {
        p.str(name).floatTensor(std::to_string(storages.size()), tensor.shape);
        Bytes data;
        appendBytes(data, tensor.values.data(), tensor.values.size() * sizeof(float));
        storages.push_back(std::move(data));
    }
    p.setItems().stop();
    return checkpointArchive(p, storages);
}

// torch.save(one float32 tensor), as PowerInfer's activation_<n>.pt files are.
inline Bytes torchTensorFile(const FloatTensor& tensor)
{
    PickleWriter p;
    p.proto(2).floatTensor("0", tensor.shape).stop();
    Bytes data;
    appendBytes(data, tensor.values.data(), tensor.values.size() * sizeof(float));
    return checkpointArchive(p, {data});
}

} // namespace hearth::test
