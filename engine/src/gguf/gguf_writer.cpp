// SPDX-License-Identifier: MIT
#include "gguf/gguf_writer.h"

#include <bit>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <set>

namespace hearth::gguf {

namespace {

constexpr std::uint32_t kVersion = 3;
constexpr std::size_t kWriteBuffer = 1 << 20;
constexpr char kAlignmentKey[] = "general.alignment";

// Little-endian encoder for header bytes.
class Encoder {
public:
    template <typename T>
    void put(T value)
    {
        const auto* p = reinterpret_cast<const std::byte*>(&value);
        m_bytes.insert(m_bytes.end(), p, p + sizeof(T));
    }
    void putString(const std::string& s)
    {
        put<std::uint64_t>(s.size());
        const auto* p = reinterpret_cast<const std::byte*>(s.data());
        m_bytes.insert(m_bytes.end(), p, p + s.size());
    }
    void putType(ValueType type) { put<std::uint32_t>(static_cast<std::uint32_t>(type)); }
    void putRaw(std::span<const std::byte> raw) { m_bytes.insert(m_bytes.end(), raw.begin(), raw.end()); }

    std::vector<std::byte>& bytes() { return m_bytes; }

private:
    std::vector<std::byte> m_bytes;
};

// Encodes @p bits as an integer or float of @p type (fixed-size types only).
void putScalar(Encoder& e, ValueType type, std::uint64_t bits, double real)
{
    switch (type) {
    case ValueType::UInt8:
    case ValueType::Int8:
    case ValueType::Bool:
        e.put(static_cast<std::uint8_t>(bits));
        break;
    case ValueType::UInt16:
    case ValueType::Int16:
        e.put(static_cast<std::uint16_t>(bits));
        break;
    case ValueType::UInt32:
    case ValueType::Int32:
        e.put(static_cast<std::uint32_t>(bits));
        break;
    case ValueType::UInt64:
    case ValueType::Int64:
        e.put(bits);
        break;
    case ValueType::Float32:
        e.put(static_cast<float>(real));
        break;
    case ValueType::Float64:
        e.put(real);
        break;
    case ValueType::String:
    case ValueType::Array:
        break;
    }
}

bool isFloatType(ValueType t)
{
    return t == ValueType::Float32 || t == ValueType::Float64;
}

std::uint64_t alignUp(std::uint64_t n, std::uint64_t alignment)
{
    return (n + alignment - 1) / alignment * alignment;
}

} // namespace

struct GgufWriter::Impl {
    struct Entry {
        std::string key;
        std::vector<std::byte> encoded; // value type followed by the value
    };
    struct Tensor {
        std::string name;
        DType type = DType::F32;
        std::vector<std::int64_t> shape;
        std::uint64_t size = 0;
        std::uint64_t offset = 0;
    };

    Magic magic = Magic::Gguf;
    std::uint64_t alignment = 32;
    std::vector<Entry> metadata;
    std::vector<Tensor> tensors;
    std::string declarationError; // first problem found by a setter or addTensor
    bool layoutDone = false;

    std::string path;
    std::FILE* file = nullptr;
    std::size_t nextTensor = 0;
    std::uint64_t dataWritten = 0; // bytes of the data section written so far
    bool begun = false;
    bool finished = false;
    bool failed = false;

    void remember(std::string error)
    {
        if (declarationError.empty()) {
            declarationError = std::move(error);
        }
    }

    void set(const std::string& key, Encoder&& encoded)
    {
        if (begun) {
            remember("metadata '" + key + "' set after begin()");
            return;
        }
        if (key.empty()) {
            remember("a metadata key is empty");
            return;
        }
        for (Entry& entry : metadata) {
            if (entry.key == key) {
                entry.encoded = std::move(encoded.bytes());
                return;
            }
        }
        metadata.push_back({key, std::move(encoded.bytes())});
    }

    Status layout()
    {
        if (!declarationError.empty()) {
            return Status(ErrorCode::InvalidArgument, declarationError);
        }
        if (alignment == 0 || !std::has_single_bit(alignment)) {
            return Status(ErrorCode::InvalidArgument,
                          "alignment " + std::to_string(alignment) + " is not a non-zero power of two");
        }
        if (layoutDone) {
            return {};
        }
        std::set<std::string, std::less<>> names;
        std::uint64_t offset = 0;
        for (Tensor& t : tensors) {
            const std::string what = "tensor '" + t.name + "'";
            if (!names.insert(t.name).second) {
                return Status(ErrorCode::InvalidArgument, "duplicate " + what);
            }
            if (t.shape.empty() || t.shape.size() > static_cast<std::size_t>(kMaxDims)) {
                return Status(ErrorCode::InvalidArgument,
                              what + " has " + std::to_string(t.shape.size()) + " dimensions (1 to "
                                  + std::to_string(kMaxDims) + " allowed)");
            }
            const auto traits = dtypeTraits(static_cast<std::uint32_t>(t.type));
            if (!traits) {
                return Status(ErrorCode::InvalidArgument, what + " has an unknown type");
            }
            std::uint64_t elements = 1;
            for (std::int64_t d : t.shape) {
                if (d < 0) {
                    return Status(ErrorCode::InvalidArgument, what + " has a negative dimension");
                }
                const auto ud = static_cast<std::uint64_t>(d);
                if (ud != 0 && elements > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) / ud) {
                    return Status(ErrorCode::InvalidArgument, what + " has too many elements");
                }
                elements *= ud;
            }
            if (t.shape[0] % traits->blockElements != 0) {
                return Status(ErrorCode::InvalidArgument,
                              what + " has rows of " + std::to_string(t.shape[0]) + " elements, not a multiple of the "
                                  + std::string(traits->name) + " block size " + std::to_string(traits->blockElements));
            }
            const std::uint64_t blocks = elements / traits->blockElements;
            if (blocks > std::numeric_limits<std::uint64_t>::max() / 2 / traits->blockBytes) {
                return Status(ErrorCode::InvalidArgument, what + " is too large");
            }
            t.size = blocks * traits->blockBytes;
            t.offset = offset;
            offset = alignUp(offset + t.size, alignment);
        }
        layoutDone = true;
        return {};
    }

    Status ioError(const std::string& action, int error)
    {
        failed = true;
        closeAndRemove();
        return Status(ErrorCode::IoError, "cannot " + action + " '" + path + "': " + std::strerror(error));
    }

    Status write(const void* data, std::size_t size)
    {
        if (size == 0) {
            return {};
        }
        errno = 0;
        if (std::fwrite(data, 1, size, file) != size) {
            return ioError("write", errno ? errno : EIO);
        }
        return {};
    }

    Status writeZeros(std::uint64_t count)
    {
        static constexpr std::byte zeros[256] = {};
        while (count > 0) {
            const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(count, sizeof(zeros)));
            HEARTH_TRY(write(zeros, n));
            count -= n;
        }
        return {};
    }

    void closeAndRemove()
    {
        if (file) {
            std::fclose(file);
            file = nullptr;
        }
        // Only a regular file we made is ours to delete: writing to /dev/full or a pipe is legal.
        std::error_code error;
        if (!path.empty() && std::filesystem::is_regular_file(path, error)) {
            std::filesystem::remove(path, error);
        }
    }

    const Tensor* findTensor(const std::string& name) const
    {
        for (const Tensor& t : tensors) {
            if (t.name == name) {
                return &t;
            }
        }
        return nullptr;
    }
};

GgufWriter::GgufWriter(Magic magic, std::uint64_t alignment)
    : d(std::make_unique<Impl>())
{
    d->magic = magic;
    d->alignment = alignment;
}

GgufWriter::~GgufWriter()
{
    if (d->file) {
        // Never finished: what is on disk is not a valid file.
        d->closeAndRemove();
    }
}

void GgufWriter::setString(const std::string& key, const std::string& value)
{
    Value v;
    v.type = ValueType::String;
    v.data = value;
    setValue(key, v);
}

void GgufWriter::setUInt32(const std::string& key, std::uint32_t value)
{
    setValue(key, Value{ValueType::UInt32, std::uint64_t{value}});
}

void GgufWriter::setInt32(const std::string& key, std::int32_t value)
{
    setValue(key, Value{ValueType::Int32, std::int64_t{value}});
}

void GgufWriter::setUInt64(const std::string& key, std::uint64_t value)
{
    setValue(key, Value{ValueType::UInt64, value});
}

void GgufWriter::setFloat32(const std::string& key, float value)
{
    setValue(key, Value{ValueType::Float32, static_cast<double>(value)});
}

void GgufWriter::setBool(const std::string& key, bool value)
{
    setValue(key, Value{ValueType::Bool, value});
}

void GgufWriter::setStringArray(const std::string& key, const std::vector<std::string>& values)
{
    ArrayValue array;
    array.elementType = ValueType::String;
    array.strings = values;
    setValue(key, Value{ValueType::Array, std::move(array)});
}

void GgufWriter::setFloat32Array(const std::string& key, const std::vector<float>& values)
{
    ArrayValue array;
    array.elementType = ValueType::Float32;
    array.floats.assign(values.begin(), values.end());
    setValue(key, Value{ValueType::Array, std::move(array)});
}

void GgufWriter::setInt32Array(const std::string& key, const std::vector<std::int32_t>& values)
{
    ArrayValue array;
    array.elementType = ValueType::Int32;
    array.ints.assign(values.begin(), values.end());
    setValue(key, Value{ValueType::Array, std::move(array)});
}

void GgufWriter::setValue(const std::string& key, const Value& value)
{
    const std::string what = "metadata '" + key + "'";
    Encoder e;
    e.putType(value.type);

    if (value.type == ValueType::String) {
        const auto* s = std::get_if<std::string>(&value.data);
        if (!s) {
            d->remember(what + " is declared a string but holds another kind of value");
            return;
        }
        e.putString(*s);
    } else if (value.type == ValueType::Array) {
        const auto* a = std::get_if<ArrayValue>(&value.data);
        if (!a) {
            d->remember(what + " is declared an array but holds another kind of value");
            return;
        }
        e.putType(a->elementType);
        switch (a->elementType) {
        case ValueType::String:
            e.put<std::uint64_t>(a->strings.size());
            for (const std::string& s : a->strings) {
                e.putString(s);
            }
            break;
        case ValueType::Array:
            e.put<std::uint64_t>(a->nestedCount);
            e.putRaw(a->nestedRaw);
            break;
        case ValueType::Float32:
        case ValueType::Float64:
            e.put<std::uint64_t>(a->floats.size());
            for (double f : a->floats) {
                putScalar(e, a->elementType, 0, f);
            }
            break;
        default:
            e.put<std::uint64_t>(a->ints.size());
            for (std::int64_t i : a->ints) {
                putScalar(e, a->elementType, static_cast<std::uint64_t>(i), 0);
            }
            break;
        }
    } else {
        std::uint64_t bits = 0;
        double real = 0;
        if (const auto* i = std::get_if<std::int64_t>(&value.data)) {
            bits = static_cast<std::uint64_t>(*i);
            real = static_cast<double>(*i);
        } else if (const auto* u = std::get_if<std::uint64_t>(&value.data)) {
            bits = *u;
            real = static_cast<double>(*u);
        } else if (const auto* f = std::get_if<double>(&value.data)) {
            if (!isFloatType(value.type)) {
                d->remember(what + " is declared " + std::string(valueTypeName(value.type)) + " but holds a float");
                return;
            }
            real = *f;
        } else if (const auto* b = std::get_if<bool>(&value.data)) {
            bits = *b ? 1 : 0;
            real = bits;
        } else {
            d->remember(what + " is declared " + std::string(valueTypeName(value.type))
                        + " but holds a string or an array");
            return;
        }
        if (static_cast<std::uint32_t>(value.type) > static_cast<std::uint32_t>(ValueType::Float64)) {
            d->remember(what + " has an unknown value type");
            return;
        }
        putScalar(e, value.type, bits, real);

        if (key == kAlignmentKey) {
            if (isFloatType(value.type) || value.type == ValueType::Bool) {
                d->remember("general.alignment must be an unsigned integer");
                return;
            }
            // Validated in begin(); the value written is always the writer's own uint32.
            d->alignment = bits;
            d->layoutDone = false;
            return;
        }
    }
    if (key == kAlignmentKey) {
        d->remember("general.alignment must be an unsigned integer");
        return;
    }
    d->set(key, std::move(e));
}

void GgufWriter::addTensor(const std::string& name, DType type, const std::vector<std::int64_t>& shape)
{
    if (d->begun) {
        d->remember("tensor '" + name + "' declared after begin()");
        return;
    }
    Impl::Tensor t;
    t.name = name;
    t.type = type;
    t.shape = shape;
    d->tensors.push_back(std::move(t));
    d->layoutDone = false;
}

std::uint64_t GgufWriter::tensorSize(const std::string& name) const
{
    if (!d->layout()) {
        return 0;
    }
    const Impl::Tensor* t = d->findTensor(name);
    return t ? t->size : 0;
}

std::uint64_t GgufWriter::tensorOffset(const std::string& name) const
{
    if (!d->layout()) {
        return 0;
    }
    const Impl::Tensor* t = d->findTensor(name);
    return t ? t->offset : 0;
}

Status GgufWriter::begin(const std::string& path)
{
    if (d->begun) {
        return Status(ErrorCode::InvalidArgument, "begin() called twice");
    }
    HEARTH_TRY(d->layout());
    if (d->alignment > std::numeric_limits<std::uint32_t>::max()) {
        return Status(ErrorCode::InvalidArgument, "alignment " + std::to_string(d->alignment) + " does not fit in uint32");
    }

    Encoder header;
    header.putRaw(std::as_bytes(std::span(d->magic == Magic::PowerInfer ? "PWRI" : "GGUF", 4)));
    header.put<std::uint32_t>(kVersion);
    header.put<std::uint64_t>(d->tensors.size());
    const bool writeAlignment = d->alignment != 32;
    header.put<std::uint64_t>(d->metadata.size() + (writeAlignment ? 1 : 0));
    if (writeAlignment) {
        header.putString(kAlignmentKey);
        header.putType(ValueType::UInt32);
        header.put<std::uint32_t>(static_cast<std::uint32_t>(d->alignment));
    }
    for (const Impl::Entry& entry : d->metadata) {
        header.putString(entry.key);
        header.putRaw(entry.encoded);
    }
    for (const Impl::Tensor& t : d->tensors) {
        header.putString(t.name);
        header.put<std::uint32_t>(static_cast<std::uint32_t>(t.shape.size()));
        for (std::int64_t dim : t.shape) {
            header.put<std::uint64_t>(static_cast<std::uint64_t>(dim));
        }
        header.put<std::uint32_t>(static_cast<std::uint32_t>(t.type));
        header.put<std::uint64_t>(t.offset);
    }
    const std::uint64_t padding = alignUp(header.bytes().size(), d->alignment) - header.bytes().size();

    d->path = path;
    errno = 0;
    d->file = std::fopen(path.c_str(), "wb");
    if (!d->file) {
        const int error = errno ? errno : EIO;
        d->failed = true;
        return Status(ErrorCode::IoError, "cannot create '" + path + "': " + std::strerror(error));
    }
    d->begun = true;
    std::setvbuf(d->file, nullptr, _IOFBF, kWriteBuffer);
    HEARTH_TRY(d->write(header.bytes().data(), header.bytes().size()));
    HEARTH_TRY(d->writeZeros(padding));
    return {};
}

Status GgufWriter::writeTensorData(std::span<const std::byte> bytes)
{
    if (!d->begun || d->finished) {
        return Status(ErrorCode::InvalidArgument, "writeTensorData() outside begin() ... finish()");
    }
    if (d->failed) {
        return Status(ErrorCode::IoError, "an earlier write to '" + d->path + "' failed");
    }
    if (d->nextTensor >= d->tensors.size()) {
        return Status(ErrorCode::InvalidArgument, "more tensor data written than tensors declared");
    }
    const Impl::Tensor& t = d->tensors[d->nextTensor];
    if (bytes.size() != t.size) {
        return Status(ErrorCode::InvalidArgument,
                      "tensor '" + t.name + "' needs " + std::to_string(t.size) + " bytes, got "
                          + std::to_string(bytes.size()));
    }
    HEARTH_TRY(d->write(bytes.data(), bytes.size()));
    const std::uint64_t end = alignUp(t.offset + t.size, d->alignment);
    HEARTH_TRY(d->writeZeros(end - (t.offset + t.size)));
    d->dataWritten = end;
    ++d->nextTensor;
    return {};
}

Status GgufWriter::finish()
{
    if (!d->begun || d->finished) {
        return Status(ErrorCode::InvalidArgument, "finish() without begin()");
    }
    if (d->failed) {
        return Status(ErrorCode::IoError, "an earlier write to '" + d->path + "' failed");
    }
    if (d->nextTensor != d->tensors.size()) {
        const std::string missing = d->tensors[d->nextTensor].name;
        d->failed = true;
        d->closeAndRemove();
        return Status(ErrorCode::InvalidArgument,
                      "finish() before the data of tensor '" + missing + "' was written ("
                          + std::to_string(d->tensors.size() - d->nextTensor) + " missing)");
    }
    errno = 0;
    if (std::fflush(d->file) != 0) {
        return d->ioError("write", errno ? errno : EIO);
    }
    std::FILE* file = d->file;
    d->file = nullptr;
    errno = 0;
    if (std::fclose(file) != 0) {
        return d->ioError("close", errno ? errno : EIO);
    }
    d->finished = true;
    return {};
}

} // namespace hearth::gguf
