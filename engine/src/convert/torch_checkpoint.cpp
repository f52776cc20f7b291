// SPDX-License-Identifier: MIT
#include "convert/torch_checkpoint.h"

#include "core/mapped_file.h"

#include <cstdint>
#include <limits>

namespace hearth::convert {

namespace {

bool startsWith(std::span<const std::byte> bytes, std::string_view magic)
{
    if (bytes.size() < magic.size()) {
        return false;
    }
    for (std::size_t i = 0; i < magic.size(); ++i) {
        if (bytes[i] != static_cast<std::byte>(magic[i])) {
            return false;
        }
    }
    return true;
}

std::string_view asText(std::span<const std::byte> bytes)
{
    return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

std::string_view trimmed(std::string_view text)
{
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) {
        text.remove_suffix(1);
    }
    return text;
}

} // namespace

Result<TorchCheckpoint> TorchCheckpoint::open(const std::string& path, const UnpicklerLimits& limits)
{
    auto file = MappedFile::open(path);
    if (!file) {
        return file.status();
    }
    std::shared_ptr<const MappedFile> mapping(std::move(*file));
    auto checkpoint = parse(mapping->bytes(), mapping, limits);
    if (!checkpoint) {
        return Status(checkpoint.code(), "'" + path + "': " + checkpoint.message());
    }
    return checkpoint;
}

Result<TorchCheckpoint> TorchCheckpoint::fromBytes(std::span<const std::byte> bytes, const UnpicklerLimits& limits)
{
    return parse(bytes, nullptr, limits);
}

Result<TorchCheckpoint> TorchCheckpoint::parse(std::span<const std::byte> bytes, std::shared_ptr<const void> owner,
                                               const UnpicklerLimits& limits)
{
    if (!startsWith(bytes, "PK\x03\x04")) {
        if (startsWith(bytes, "\x80")) {
            return Status(ErrorCode::Unsupported, "this is a legacy (before PyTorch 1.6) checkpoint; only the zip "
                                                  "format of torch.save is supported");
        }
        return Status(ErrorCode::InvalidFile, "not a PyTorch checkpoint (no zip signature)");
    }
    auto archive = ZipArchive::open(bytes);
    if (!archive) {
        return archive.status();
    }

    TorchCheckpoint checkpoint;
    checkpoint.m_owner = std::move(owner);
    checkpoint.m_archive = std::move(*archive);

    // torch.save puts everything in one top-level folder, named after the file by older
    // versions and "archive" by newer ones; data.pkl in it is the object.
    const ZipEntry* pickle = nullptr;
    for (const ZipEntry& entry : checkpoint.m_archive.entries()) {
        const std::size_t slash = entry.name.find('/');
        if (slash == std::string::npos || entry.name.compare(slash, std::string::npos, "/data.pkl") != 0) {
            continue;
        }
        if (pickle != nullptr) {
            return Status(ErrorCode::InvalidFile, "the checkpoint holds more than one data.pkl");
        }
        pickle = &entry;
        checkpoint.m_prefix = entry.name.substr(0, slash);
    }
    if (pickle == nullptr) {
        return Status(ErrorCode::InvalidFile, "the archive has no data.pkl; it is not a PyTorch checkpoint");
    }
    HEARTH_TRY(checkpoint.m_archive.verifyChecksum(*pickle));

    if (const ZipEntry* order = checkpoint.m_archive.find(checkpoint.m_prefix + "/byteorder")) {
        const std::string_view text = trimmed(asText(checkpoint.m_archive.data(*order)));
        if (text == "big") {
            checkpoint.m_bigEndian = true;
        } else if (text != "little") {
            return Status(ErrorCode::InvalidFile, "unknown byte order in the checkpoint");
        }
    }

    auto root = unpickle(checkpoint.m_archive.data(*pickle), limits);
    if (!root) {
        return root.status();
    }
    checkpoint.m_root = std::move(*root);
    return checkpoint;
}

Result<TorchTensor> TorchCheckpoint::tensor(const PickleValue& value) const
{
    if (!value.is(PickleValue::Kind::Tensor) || !value.tensorRef() || !value.tensorRef()->storage) {
        return Status(ErrorCode::InvalidArgument, "the value is a " + std::string(value.typeName()) + ", not a tensor");
    }
    const PickleTensor& t = *value.tensorRef();
    const PickleStorage& storage = *t.storage;
    const std::string name = m_prefix + "/data/" + storage.key;
    const ZipEntry* entry = m_archive.find(name);
    if (entry == nullptr) {
        return Status(ErrorCode::InvalidFile, "the checkpoint lacks the storage '" + name + "'");
    }
    const std::size_t esize = elementSize(storage.type);
    if (static_cast<std::uint64_t>(storage.numel) > entry->size / esize) {
        return Status(ErrorCode::InvalidFile, "the storage '" + name + "' is shorter than its "
                                                  + std::to_string(storage.numel) + " elements");
    }
    // The Unpickler checked that the view stays inside the storage; a view with more elements
    // than its storage repeats some (stride 0), which no checkpoint needs and which could ask
    // for an arbitrarily large copy.
    std::int64_t count = 1;
    for (const std::int64_t dim : t.shape) {
        if (dim != 0 && count > storage.numel / dim) {
            return Status(ErrorCode::Unsupported, "a tensor in '" + name + "' repeats elements of its storage");
        }
        count *= dim;
    }
    if (count > storage.numel && count != 0) {
        return Status(ErrorCode::Unsupported, "a tensor in '" + name + "' repeats elements of its storage");
    }
    return TorchTensor::fromStorage(storage.type, t.shape, t.strides, t.storageOffset, m_archive.data(*entry),
                                    m_bigEndian, m_owner);
}

Status TorchCheckpoint::collect(const PickleValue& value, const std::string& prefix,
                                std::map<std::string, TorchTensor>& out) const
{
    for (const auto& [key, item] : value.dictItems()) {
        if (!key.is(PickleValue::Kind::String)) {
            continue; // not a parameter name
        }
        const std::string name = prefix.empty() ? key.text() : prefix + "." + key.text();
        if (item.is(PickleValue::Kind::Tensor)) {
            auto tensor = this->tensor(item);
            if (!tensor) {
                return tensor.status();
            }
            out.insert_or_assign(name, std::move(*tensor));
        } else if (item.is(PickleValue::Kind::Dict)) {
            HEARTH_TRY(collect(item, name, out));
        }
        // Other values (an epoch counter, optimizer settings) are not tensors: skipped.
    }
    return {};
}

Result<std::map<std::string, TorchTensor>> TorchCheckpoint::stateDict() const
{
    std::map<std::string, TorchTensor> out;
    if (m_root.is(PickleValue::Kind::Tensor)) {
        auto tensor = this->tensor(m_root);
        if (!tensor) {
            return tensor.status();
        }
        out.emplace(std::string(), std::move(*tensor));
        return out;
    }
    if (!m_root.is(PickleValue::Kind::Dict)) {
        return Status(ErrorCode::InvalidFile, "the checkpoint holds a " + std::string(m_root.typeName())
                                                  + ", not a state dict or a tensor");
    }
    HEARTH_TRY(collect(m_root, std::string(), out));
    return out;
}

Result<std::map<std::string, TorchTensor>> readStateDict(const std::string& path)
{
    auto checkpoint = TorchCheckpoint::open(path);
    if (!checkpoint) {
        return checkpoint.status();
    }
    auto tensors = checkpoint->stateDict();
    if (!tensors) {
        return Status(tensors.code(), "'" + path + "': " + tensors.message());
    }
    return tensors;
}

} // namespace hearth::convert
