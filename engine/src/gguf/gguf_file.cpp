// SPDX-License-Identifier: MIT
#include "gguf/gguf_file.h"

#include "core/mapped_file.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>

namespace hearth::gguf {

static_assert(std::endian::native == std::endian::little,
              "the GGUF reader maps files in place and needs a little-endian host");

namespace {

constexpr std::uint32_t kMinVersion = 2;
constexpr std::uint32_t kMaxVersion = 3;
constexpr std::size_t kHeaderBytes = 4 + 4 + 8 + 8; // magic, version, tensor count, metadata count
// Smallest possible encodings, used to bound counts by the bytes left before allocating anything.
constexpr std::uint64_t kMinKeyValueBytes = 8 + 4 + 1;          // key length, type, one byte value
constexpr std::uint64_t kMinTensorInfoBytes = 8 + 4 + 8 + 4 + 8; // name length, n_dims, a dim, type, offset

// Printable rendering of four magic bytes for error messages.
std::string describeMagic(std::span<const std::byte> bytes)
{
    std::string out;
    for (std::byte b : bytes) {
        const auto c = static_cast<unsigned char>(b);
        if (c >= 0x20 && c < 0x7f) {
            out += static_cast<char>(c);
        } else {
            static constexpr char digits[] = "0123456789abcdef";
            out += "\\x";
            out += digits[c >> 4];
            out += digits[c & 15];
        }
    }
    return out;
}

bool isKnownValueType(std::uint32_t type)
{
    return type <= static_cast<std::uint32_t>(ValueType::Float64);
}

// Encoded size of a fixed-size value type, or 0 for strings and arrays.
std::uint64_t fixedSize(ValueType type)
{
    switch (type) {
    case ValueType::UInt8:
    case ValueType::Int8:
    case ValueType::Bool:
        return 1;
    case ValueType::UInt16:
    case ValueType::Int16:
        return 2;
    case ValueType::UInt32:
    case ValueType::Int32:
    case ValueType::Float32:
        return 4;
    case ValueType::UInt64:
    case ValueType::Int64:
    case ValueType::Float64:
        return 8;
    case ValueType::String:
    case ValueType::Array:
        return 0;
    }
    return 0;
}

std::uint64_t minEncodedSize(ValueType type)
{
    if (type == ValueType::String) {
        return 8; // the length
    }
    if (type == ValueType::Array) {
        return 4 + 8; // element type and count
    }
    return fixedSize(type);
}

bool isSignedInteger(ValueType type)
{
    return type == ValueType::Int8 || type == ValueType::Int16 || type == ValueType::Int32
        || type == ValueType::Int64;
}

bool isUnsignedInteger(ValueType type)
{
    return type == ValueType::UInt8 || type == ValueType::UInt16 || type == ValueType::UInt32
        || type == ValueType::UInt64;
}

// What is being read, for error messages: a prefix and a subject joined only when an error is
// reported, so the hot path over large vocabularies builds no strings.
struct What {
    What(const char* subject)
        : subject(subject)
    {
    }
    What(const std::string& subject)
        : subject(subject)
    {
    }
    What(std::string_view prefix, const std::string& subject)
        : prefix(prefix)
        , subject(subject)
    {
    }
    [[nodiscard]] std::string str() const { return std::string(prefix) + std::string(subject); }

    std::string_view prefix;
    std::string_view subject;
};

// Bounds-checked little-endian reader over the file bytes.
class Reader {
public:
    explicit Reader(std::span<const std::byte> bytes)
        : m_bytes(bytes)
    {
    }

    [[nodiscard]] std::size_t offset() const { return m_pos; }
    [[nodiscard]] std::uint64_t remaining() const { return m_bytes.size() - m_pos; }
    [[nodiscard]] std::span<const std::byte> bytes() const { return m_bytes; }

    [[nodiscard]] Status truncated(std::uint64_t wanted, What what) const
    {
        return Status(ErrorCode::InvalidFile,
                      "unexpected end of file reading " + what.str() + " at offset " + std::to_string(m_pos) + " (needs "
                          + std::to_string(wanted) + " bytes, " + std::to_string(remaining())
                          + " left; file is truncated or corrupt)");
    }

    template <typename T>
    [[nodiscard]] Status read(T& out, What what)
    {
        if (remaining() < sizeof(T)) {
            return truncated(sizeof(T), what);
        }
        std::memcpy(&out, m_bytes.data() + m_pos, sizeof(T));
        m_pos += sizeof(T);
        return {};
    }

    [[nodiscard]] Status skip(std::uint64_t n, What what)
    {
        if (remaining() < n) {
            return truncated(n, what);
        }
        m_pos += static_cast<std::size_t>(n);
        return {};
    }

    [[nodiscard]] Status readString(std::string& out, const std::string& what)
    {
        const std::size_t start = m_pos;
        std::uint64_t length = 0;
        HEARTH_TRY(read(length, What("the length of ", what)));
        // Checked before allocating: a hostile length must not become a huge allocation.
        if (length > remaining()) {
            return Status(ErrorCode::InvalidFile,
                          what + " at offset " + std::to_string(start) + " claims " + std::to_string(length)
                              + " bytes but only " + std::to_string(remaining()) + " remain in the file");
        }
        out.assign(reinterpret_cast<const char*>(m_bytes.data() + m_pos), static_cast<std::size_t>(length));
        m_pos += static_cast<std::size_t>(length);
        return {};
    }

    [[nodiscard]] Status skipString(const std::string& what)
    {
        const std::size_t start = m_pos;
        std::uint64_t length = 0;
        HEARTH_TRY(read(length, What("the length of ", what)));
        if (length > remaining()) {
            return Status(ErrorCode::InvalidFile,
                          what + " at offset " + std::to_string(start) + " claims " + std::to_string(length)
                              + " bytes but only " + std::to_string(remaining()) + " remain in the file");
        }
        m_pos += static_cast<std::size_t>(length);
        return {};
    }

private:
    std::span<const std::byte> m_bytes;
    std::size_t m_pos = 0;
};

Status readValueType(Reader& reader, ValueType& out, const std::string& what)
{
    const std::size_t start = reader.offset();
    std::uint32_t raw = 0;
    HEARTH_TRY(reader.read(raw, What("the type of ", what)));
    if (!isKnownValueType(raw)) {
        return Status(ErrorCode::InvalidFile,
                      what + ": unknown value type " + std::to_string(raw) + " at offset " + std::to_string(start));
    }
    out = static_cast<ValueType>(raw);
    return {};
}

// Reads and checks an array's element count against the bytes left.
Status readArrayCount(Reader& reader, ValueType elementType, std::uint64_t& count, const std::string& what)
{
    const std::size_t start = reader.offset();
    HEARTH_TRY(reader.read(count, What("the element count of ", what)));
    const std::uint64_t minSize = minEncodedSize(elementType);
    if (count > reader.remaining() / minSize) {
        return Status(ErrorCode::InvalidFile,
                      what + " at offset " + std::to_string(start) + " claims " + std::to_string(count) + " elements of type "
                          + std::string(valueTypeName(elementType)) + " but only "
                          + std::to_string(reader.remaining()) + " bytes remain in the file");
    }
    return {};
}

// Validates one value without keeping it (elements of nested arrays).
Status skipValue(Reader& reader, ValueType type, int depth, const std::string& what)
{
    if (type == ValueType::String) {
        return reader.skipString(what);
    }
    if (type != ValueType::Array) {
        return reader.skip(fixedSize(type), what);
    }
    if (depth > kMaxArrayNesting) {
        return Status(ErrorCode::InvalidFile,
                      what + " nests arrays deeper than " + std::to_string(kMaxArrayNesting) + " levels at offset "
                          + std::to_string(reader.offset()));
    }
    ValueType elementType{};
    HEARTH_TRY(readValueType(reader, elementType, what));
    std::uint64_t count = 0;
    HEARTH_TRY(readArrayCount(reader, elementType, count, what));
    if (elementType != ValueType::String && elementType != ValueType::Array) {
        // count * size <= remaining was checked by readArrayCount.
        return reader.skip(count * fixedSize(elementType), what);
    }
    for (std::uint64_t i = 0; i < count; ++i) {
        HEARTH_TRY(skipValue(reader, elementType, depth + 1, what));
    }
    return {};
}

template <typename T>
Status readElements(Reader& reader, std::uint64_t count, std::vector<std::int64_t>& out, const std::string& what)
{
    out.reserve(static_cast<std::size_t>(count));
    for (std::uint64_t i = 0; i < count; ++i) {
        T v{};
        HEARTH_TRY(reader.read(v, what));
        out.push_back(static_cast<std::int64_t>(v));
    }
    return {};
}

template <typename T>
Status readFloatElements(Reader& reader, std::uint64_t count, std::vector<double>& out, const std::string& what)
{
    out.reserve(static_cast<std::size_t>(count));
    for (std::uint64_t i = 0; i < count; ++i) {
        T v{};
        HEARTH_TRY(reader.read(v, what));
        out.push_back(static_cast<double>(v));
    }
    return {};
}

Status readArray(Reader& reader, ArrayValue& out, const std::string& what)
{
    HEARTH_TRY(readValueType(reader, out.elementType, "array elements of " + what));
    std::uint64_t count = 0;
    HEARTH_TRY(readArrayCount(reader, out.elementType, count, what));
    switch (out.elementType) {
    case ValueType::UInt8:
        return readElements<std::uint8_t>(reader, count, out.ints, what);
    case ValueType::Int8:
        return readElements<std::int8_t>(reader, count, out.ints, what);
    case ValueType::UInt16:
        return readElements<std::uint16_t>(reader, count, out.ints, what);
    case ValueType::Int16:
        return readElements<std::int16_t>(reader, count, out.ints, what);
    case ValueType::UInt32:
        return readElements<std::uint32_t>(reader, count, out.ints, what);
    case ValueType::Int32:
        return readElements<std::int32_t>(reader, count, out.ints, what);
    case ValueType::UInt64:
        // Kept bit for bit: values above INT64_MAX read back as negative int64.
        return readElements<std::uint64_t>(reader, count, out.ints, what);
    case ValueType::Int64:
        return readElements<std::int64_t>(reader, count, out.ints, what);
    case ValueType::Bool: {
        out.ints.reserve(static_cast<std::size_t>(count));
        for (std::uint64_t i = 0; i < count; ++i) {
            std::uint8_t v = 0;
            HEARTH_TRY(reader.read(v, what));
            out.ints.push_back(v != 0 ? 1 : 0);
        }
        return {};
    }
    case ValueType::Float32:
        return readFloatElements<float>(reader, count, out.floats, what);
    case ValueType::Float64:
        return readFloatElements<double>(reader, count, out.floats, what);
    case ValueType::String:
        out.strings.reserve(static_cast<std::size_t>(count));
        for (std::uint64_t i = 0; i < count; ++i) {
            std::string s;
            HEARTH_TRY(reader.readString(s, what));
            out.strings.push_back(std::move(s));
        }
        return {};
    case ValueType::Array: {
        const std::size_t start = reader.offset();
        for (std::uint64_t i = 0; i < count; ++i) {
            HEARTH_TRY(skipValue(reader, ValueType::Array, 2, what));
        }
        out.nestedCount = count;
        const auto raw = reader.bytes().subspan(start, reader.offset() - start);
        out.nestedRaw.assign(raw.begin(), raw.end());
        return {};
    }
    }
    return Status(ErrorCode::Internal, "unhandled array element type in " + what);
}

// Reads one scalar of file type Wire and stores it widened to Stored (uint64, int64 or double).
template <typename Wire, typename Stored>
Status readScalar(Reader& reader, Value& out, const std::string& what)
{
    Wire v{};
    HEARTH_TRY(reader.read(v, what));
    out.data = static_cast<Stored>(v);
    return {};
}

Status readValue(Reader& reader, ValueType type, Value& out, const std::string& what)
{
    out.type = type;
    switch (type) {
    case ValueType::UInt8:
        return readScalar<std::uint8_t, std::uint64_t>(reader, out, what);
    case ValueType::Int8:
        return readScalar<std::int8_t, std::int64_t>(reader, out, what);
    case ValueType::UInt16:
        return readScalar<std::uint16_t, std::uint64_t>(reader, out, what);
    case ValueType::Int16:
        return readScalar<std::int16_t, std::int64_t>(reader, out, what);
    case ValueType::UInt32:
        return readScalar<std::uint32_t, std::uint64_t>(reader, out, what);
    case ValueType::Int32:
        return readScalar<std::int32_t, std::int64_t>(reader, out, what);
    case ValueType::UInt64:
        return readScalar<std::uint64_t, std::uint64_t>(reader, out, what);
    case ValueType::Int64:
        return readScalar<std::int64_t, std::int64_t>(reader, out, what);
    case ValueType::Float32:
        return readScalar<float, double>(reader, out, what);
    case ValueType::Float64:
        return readScalar<double, double>(reader, out, what);
    case ValueType::Bool: {
        std::uint8_t v = 0;
        HEARTH_TRY(reader.read(v, what));
        out.data = v != 0;
        return {};
    }
    case ValueType::String: {
        std::string s;
        HEARTH_TRY(reader.readString(s, what));
        out.data = std::move(s);
        return {};
    }
    case ValueType::Array: {
        ArrayValue array;
        HEARTH_TRY(readArray(reader, array, what));
        out.data = std::move(array);
        return {};
    }
    }
    return Status(ErrorCode::Internal, "unhandled value type in " + what);
}

// Stores a * b in @p out unless it overflows.
bool mulOverflows(std::uint64_t a, std::uint64_t b, std::uint64_t& out)
{
    if (b != 0 && a > std::numeric_limits<std::uint64_t>::max() / b) {
        return true;
    }
    out = a * b;
    return false;
}

std::uint32_t byteSwap(std::uint32_t v)
{
    return (v >> 24) | ((v >> 8) & 0xff00u) | ((v << 8) & 0xff0000u) | (v << 24);
}

} // namespace

std::string_view valueTypeName(ValueType type)
{
    switch (type) {
    case ValueType::UInt8:
        return "uint8";
    case ValueType::Int8:
        return "int8";
    case ValueType::UInt16:
        return "uint16";
    case ValueType::Int16:
        return "int16";
    case ValueType::UInt32:
        return "uint32";
    case ValueType::Int32:
        return "int32";
    case ValueType::Float32:
        return "float32";
    case ValueType::Bool:
        return "bool";
    case ValueType::String:
        return "string";
    case ValueType::Array:
        return "array";
    case ValueType::UInt64:
        return "uint64";
    case ValueType::Int64:
        return "int64";
    case ValueType::Float64:
        return "float64";
    }
    return "unknown";
}

std::size_t ArrayValue::size() const
{
    switch (elementType) {
    case ValueType::String:
        return strings.size();
    case ValueType::Float32:
    case ValueType::Float64:
        return floats.size();
    case ValueType::Array:
        return static_cast<std::size_t>(nestedCount);
    default:
        return ints.size();
    }
}

std::int64_t TensorInfo::elementCount() const
{
    std::int64_t n = 1;
    for (std::int64_t d : shape) {
        n *= d;
    }
    return n;
}

std::int64_t TensorInfo::rows() const
{
    std::int64_t n = 1;
    for (std::size_t i = 1; i < shape.size(); ++i) {
        n *= shape[i];
    }
    return n;
}

GgufFile::~GgufFile() = default;

Result<std::unique_ptr<GgufFile>> GgufFile::open(const std::string& path)
{
    auto mapping = MappedFile::open(path);
    if (!mapping) {
        return mapping.status();
    }
    std::unique_ptr<GgufFile> file(new GgufFile);
    file->m_mapping = std::move(mapping.value());
    file->m_bytes = file->m_mapping->bytes();
    if (Status status = file->parseAll(); !status) {
        return Status(status.code(), "'" + path + "': " + status.message());
    }
    return file;
}

Result<std::unique_ptr<GgufFile>> GgufFile::parse(std::span<const std::byte> bytes)
{
    std::unique_ptr<GgufFile> file(new GgufFile);
    file->m_bytes = bytes;
    HEARTH_TRY(file->parseAll());
    return file;
}

Status GgufFile::parseAll()
{
    Reader reader(m_bytes);
    if (m_bytes.size() < 4) {
        return Status(ErrorCode::InvalidFile,
                      "not a GGUF file: only " + std::to_string(m_bytes.size()) + " bytes long");
    }
    const auto magic = m_bytes.first(4);
    if (std::memcmp(magic.data(), "GGUF", 4) == 0) {
        m_magic = Magic::Gguf;
    } else if (std::memcmp(magic.data(), "PWRI", 4) == 0) {
        m_magic = Magic::PowerInfer;
    } else {
        return Status(ErrorCode::InvalidFile,
                      "not a GGUF file: starts with '" + describeMagic(magic) + "' instead of 'GGUF' or 'PWRI'");
    }
    HEARTH_TRY(reader.skip(4, "the magic"));
    if (m_bytes.size() < kHeaderBytes) {
        return Status(ErrorCode::InvalidFile,
                      "GGUF header is truncated: the file is " + std::to_string(m_bytes.size()) + " bytes, the header needs "
                          + std::to_string(kHeaderBytes));
    }

    HEARTH_TRY(reader.read(m_version, "the version"));
    if (m_version < kMinVersion || m_version > kMaxVersion) {
        const std::uint32_t swapped = byteSwap(m_version);
        if (swapped >= 1 && swapped <= kMaxVersion) {
            return Status(ErrorCode::Unsupported,
                          "GGUF file is big-endian (version field reads " + std::to_string(m_version)
                              + ", byte-swapped " + std::to_string(swapped) + "); only little-endian files are supported");
        }
        if (m_version == 1) {
            return Status(ErrorCode::Unsupported,
                          "GGUF version 1 (32-bit counts) is not supported; convert the model again with a current "
                          "converter (versions 2 and 3 are supported)");
        }
        return Status(ErrorCode::Unsupported,
                      "GGUF version " + std::to_string(m_version) + " is not supported (versions 2 and 3 are)");
    }

    std::uint64_t tensorCount = 0;
    std::uint64_t keyValueCount = 0;
    HEARTH_TRY(reader.read(tensorCount, "the tensor count"));
    HEARTH_TRY(reader.read(keyValueCount, "the metadata count"));
    if (keyValueCount > reader.remaining() / kMinKeyValueBytes) {
        return Status(ErrorCode::InvalidFile,
                      "header claims " + std::to_string(keyValueCount) + " metadata entries but only "
                          + std::to_string(reader.remaining()) + " bytes follow the header");
    }
    if (tensorCount > reader.remaining() / kMinTensorInfoBytes) {
        return Status(ErrorCode::InvalidFile,
                      "header claims " + std::to_string(tensorCount) + " tensors but only "
                          + std::to_string(reader.remaining()) + " bytes follow the header");
    }

    for (std::uint64_t i = 0; i < keyValueCount; ++i) {
        const std::size_t entryOffset = reader.offset();
        std::string key;
        HEARTH_TRY(reader.readString(key, "the key of metadata entry " + std::to_string(i)));
        const std::string what = "metadata '" + key + "'";
        ValueType type{};
        HEARTH_TRY(readValueType(reader, type, what));
        Value value;
        HEARTH_TRY(readValue(reader, type, value, what));
        m_metadataKeys.push_back(key);
        if (!m_metadata.emplace(std::move(key), std::move(value)).second) {
            return Status(ErrorCode::InvalidFile,
                          "duplicate " + what + " (entry " + std::to_string(i) + " at offset " + std::to_string(entryOffset) + ")");
        }
    }

    m_alignment = 32;
    if (const Value* alignment = find("general.alignment")) {
        const bool isInteger = isUnsignedInteger(alignment->type) || isSignedInteger(alignment->type);
        const std::optional<std::int64_t> a = getInt("general.alignment");
        if (!isInteger || !a) {
            return Status(ErrorCode::InvalidFile,
                          "general.alignment must be an unsigned integer, found "
                              + std::string(valueTypeName(alignment->type)));
        }
        if (*a <= 0 || !std::has_single_bit(static_cast<std::uint64_t>(*a))) {
            return Status(ErrorCode::InvalidFile,
                          "general.alignment is " + std::to_string(*a) + "; it must be a non-zero power of two");
        }
        m_alignment = static_cast<std::uint64_t>(*a);
    }

    m_tensors.reserve(static_cast<std::size_t>(tensorCount));
    for (std::uint64_t i = 0; i < tensorCount; ++i) {
        const std::size_t infoOffset = reader.offset();
        TensorInfo info;
        HEARTH_TRY(reader.readString(info.name, "the name of tensor " + std::to_string(i)));
        const std::string what = "tensor '" + info.name + "'";
        std::uint32_t nDims = 0;
        HEARTH_TRY(reader.read(nDims, What("the dimension count of ", what)));
        if (nDims == 0 || nDims > static_cast<std::uint32_t>(kMaxDims)) {
            return Status(ErrorCode::InvalidFile,
                          what + " has " + std::to_string(nDims) + " dimensions (1 to " + std::to_string(kMaxDims)
                              + " allowed) at offset " + std::to_string(infoOffset));
        }
        info.shape.resize(nDims);
        for (std::uint32_t d = 0; d < nDims; ++d) {
            std::uint64_t dim = 0;
            HEARTH_TRY(reader.read(dim, "dimension " + std::to_string(d) + " of " + what));
            if (dim > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
                return Status(ErrorCode::InvalidFile,
                              "dimension " + std::to_string(d) + " of " + what + " is " + std::to_string(dim)
                                  + ", beyond the largest valid size");
            }
            info.shape[d] = static_cast<std::int64_t>(dim);
        }
        std::uint32_t typeId = 0;
        HEARTH_TRY(reader.read(typeId, What("the type of ", what)));
        HEARTH_TRY(reader.read(info.offset, What("the data offset of ", what)));

        const auto traits = dtypeTraits(typeId);
        if (!traits) {
            return Status(ErrorCode::Unsupported, what + " has unknown tensor type id " + std::to_string(typeId));
        }
        info.type = static_cast<DType>(typeId);

        std::uint64_t elements = 1;
        for (std::int64_t dim : info.shape) {
            if (mulOverflows(elements, static_cast<std::uint64_t>(dim), elements)
                || elements > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
                return Status(ErrorCode::InvalidFile, what + " has too many elements (the shape's product overflows)");
            }
        }
        if (info.shape[0] % traits->blockElements != 0) {
            return Status(ErrorCode::InvalidFile,
                          what + " has rows of " + std::to_string(info.shape[0]) + " elements, not a multiple of the "
                              + std::string(traits->name) + " block size " + std::to_string(traits->blockElements));
        }
        if (mulOverflows(elements / traits->blockElements, traits->blockBytes, info.byteSize)) {
            return Status(ErrorCode::InvalidFile, what + " is too large (its byte size overflows)");
        }
        if (info.offset % m_alignment != 0) {
            return Status(ErrorCode::InvalidFile,
                          what + " has data offset " + std::to_string(info.offset) + ", not a multiple of the alignment "
                              + std::to_string(m_alignment));
        }
        if (!m_tensorIndex.emplace(info.name, m_tensors.size()).second) {
            return Status(ErrorCode::InvalidFile,
                          "duplicate " + what + " (tensor " + std::to_string(i) + " at offset " + std::to_string(infoOffset) + ")");
        }
        m_tensors.push_back(std::move(info));
    }

    // The data section starts at the header's end rounded up to the alignment.
    const std::uint64_t headerEnd = reader.offset();
    const std::uint64_t padding = (m_alignment - headerEnd % m_alignment) % m_alignment;
    if (headerEnd > std::numeric_limits<std::uint64_t>::max() - padding) {
        return Status(ErrorCode::InvalidFile, "data section offset overflows");
    }
    m_dataOffset = headerEnd + padding;
    const std::uint64_t fileSize = m_bytes.size();
    const std::uint64_t dataSize = m_dataOffset < fileSize ? fileSize - m_dataOffset : 0;
    for (TensorInfo& info : m_tensors) {
        if (info.offset > dataSize || info.byteSize > dataSize - info.offset) {
            return Status(ErrorCode::InvalidFile,
                          "tensor '" + info.name + "' (" + std::string(dtypeName(info.type))
                              + ") extends past the end of the file: it is truncated (offset " + std::to_string(info.offset)
                              + ", size " + std::to_string(info.byteSize) + ", data section starts at "
                              + std::to_string(m_dataOffset) + ", file " + std::to_string(fileSize) + " bytes)");
        }
        // Zero-sized tensors may sit at the very end; keep the pointer inside (or one past) the span.
        info.data = m_bytes.data() + static_cast<std::size_t>(std::min(fileSize, m_dataOffset + info.offset));
    }
    return {};
}

const Value* GgufFile::find(std::string_view key) const
{
    const auto it = m_metadata.find(key);
    return it == m_metadata.end() ? nullptr : &it->second;
}

std::optional<std::string> GgufFile::getString(std::string_view key) const
{
    const Value* v = find(key);
    if (!v || v->type != ValueType::String) {
        return std::nullopt;
    }
    return std::get<std::string>(v->data);
}

std::optional<std::int64_t> GgufFile::getInt(std::string_view key) const
{
    const Value* v = find(key);
    if (!v) {
        return std::nullopt;
    }
    if (const auto* i = std::get_if<std::int64_t>(&v->data)) {
        return *i;
    }
    if (const auto* u = std::get_if<std::uint64_t>(&v->data)) {
        if (*u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
            return std::nullopt;
        }
        return static_cast<std::int64_t>(*u);
    }
    return std::nullopt;
}

std::optional<double> GgufFile::getFloat(std::string_view key) const
{
    const Value* v = find(key);
    if (!v) {
        return std::nullopt;
    }
    if (const auto* d = std::get_if<double>(&v->data)) {
        return *d;
    }
    if (const auto* i = std::get_if<std::int64_t>(&v->data)) {
        return static_cast<double>(*i);
    }
    if (const auto* u = std::get_if<std::uint64_t>(&v->data)) {
        return static_cast<double>(*u);
    }
    return std::nullopt;
}

std::optional<bool> GgufFile::getBool(std::string_view key) const
{
    const Value* v = find(key);
    if (!v || v->type != ValueType::Bool) {
        return std::nullopt;
    }
    return std::get<bool>(v->data);
}

const ArrayValue* GgufFile::getArray(std::string_view key) const
{
    const Value* v = find(key);
    if (!v) {
        return nullptr;
    }
    return std::get_if<ArrayValue>(&v->data);
}

const TensorInfo* GgufFile::findTensor(std::string_view name) const
{
    const auto it = m_tensorIndex.find(name);
    return it == m_tensorIndex.end() ? nullptr : &m_tensors[it->second];
}

} // namespace hearth::gguf
