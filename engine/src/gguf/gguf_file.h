// SPDX-License-Identifier: MIT
#pragma once

// Reader for GGUF v2/v3 files and PowerInfer's "PWRI" variant, over a memory mapping.
//
// Every count, length, offset and tensor extent is checked against the file size before use:
// a truncated or hostile file produces an error message, never an out-of-bounds read.

#include "core/dtype.h"

#include <hearth/status.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace hearth {
class MappedFile;
}

namespace hearth::gguf {

enum class ValueType : std::uint32_t {
    UInt8 = 0,
    Int8 = 1,
    UInt16 = 2,
    Int16 = 3,
    UInt32 = 4,
    Int32 = 5,
    Float32 = 6,
    Bool = 7,
    String = 8,
    Array = 9,
    UInt64 = 10,
    Int64 = 11,
    Float64 = 12,
};

enum class Magic { Gguf, PowerInfer };

[[nodiscard]] std::string_view valueTypeName(ValueType type);

// Limits of what the reader accepts. Nested arrays deeper than this are rejected rather than
// recursed into, so a hostile file cannot exhaust the stack.
constexpr int kMaxArrayNesting = 8;
constexpr int kMaxDims = 4;

// An array value. Numeric elements are widened, the original type kept in elementType:
// integers and bools to int64 (uint64 elements bit for bit, so values above INT64_MAX read
// back negative), floats to double; strings are copied.
struct ArrayValue {
    ValueType elementType = ValueType::UInt8;
    std::vector<std::int64_t> ints;    // integer and bool elements
    std::vector<double> floats;        // float elements
    std::vector<std::string> strings;  // string elements
    // Nested arrays are valid GGUF but unused by any model: they are validated, their element
    // count kept and their encoded elements kept verbatim so GgufWriter::setValue can copy them.
    std::uint64_t nestedCount = 0;
    std::vector<std::byte> nestedRaw;
    [[nodiscard]] std::size_t size() const;
    bool operator==(const ArrayValue&) const = default;
};

// A scalar or array value. Signed integers are held as int64, unsigned ones as uint64, floats
// as double, then bool, string, ArrayValue; `type` is the type in the file.
struct Value {
    ValueType type = ValueType::UInt8;
    std::variant<std::int64_t, std::uint64_t, double, bool, std::string, ArrayValue> data;
    bool operator==(const Value&) const = default;
};

struct TensorInfo {
    std::string name;
    std::vector<std::int64_t> shape; // GGUF order: shape[0] is the contiguous (row) dimension
    DType type = DType::F32;
    std::uint64_t offset = 0;        // relative to the start of the data section
    std::uint64_t byteSize = 0;
    const std::byte* data = nullptr; // inside the mapping; valid while the GgufFile lives

    [[nodiscard]] std::int64_t elementCount() const;
    [[nodiscard]] std::int64_t rows() const;       // product of shape[1..]
    [[nodiscard]] std::int64_t rowLength() const { return shape.empty() ? 1 : shape[0]; }
};

class GgufFile {
public:
    // Maps and parses @p path.
    static Result<std::unique_ptr<GgufFile>> open(const std::string& path);
    // Parses a buffer the caller keeps alive (fuzzing, tests).
    static Result<std::unique_ptr<GgufFile>> parse(std::span<const std::byte> bytes);
    ~GgufFile();

    [[nodiscard]] Magic magic() const { return m_magic; }
    [[nodiscard]] std::uint32_t version() const { return m_version; }
    [[nodiscard]] std::uint64_t alignment() const { return m_alignment; }
    // Offset of the tensor data section from the start of the file.
    [[nodiscard]] std::uint64_t dataOffset() const { return m_dataOffset; }
    [[nodiscard]] std::span<const std::byte> bytes() const { return m_bytes; }
    [[nodiscard]] const MappedFile* mapping() const { return m_mapping.get(); }

    [[nodiscard]] const std::map<std::string, Value, std::less<>>& metadata() const { return m_metadata; }
    // The metadata keys in the order the file stores them (a copy that keeps the order keeps
    // the file's bytes).
    [[nodiscard]] const std::vector<std::string>& metadataKeys() const { return m_metadataKeys; }
    [[nodiscard]] const Value* find(std::string_view key) const;

    // Typed getters: nullopt when the key is missing or has an incompatible type.
    [[nodiscard]] std::optional<std::string> getString(std::string_view key) const;
    [[nodiscard]] std::optional<std::int64_t> getInt(std::string_view key) const;   // any integer type that fits int64
    [[nodiscard]] std::optional<double> getFloat(std::string_view key) const;       // float or integer
    [[nodiscard]] std::optional<bool> getBool(std::string_view key) const;
    [[nodiscard]] const ArrayValue* getArray(std::string_view key) const;

    [[nodiscard]] const std::vector<TensorInfo>& tensors() const { return m_tensors; }
    [[nodiscard]] const TensorInfo* findTensor(std::string_view name) const;

private:
    GgufFile() = default;
    Status parseAll();

    std::unique_ptr<MappedFile> m_mapping;
    std::span<const std::byte> m_bytes;
    Magic m_magic = Magic::Gguf;
    std::uint32_t m_version = 0;
    std::uint64_t m_alignment = 32;
    std::uint64_t m_dataOffset = 0;
    std::map<std::string, Value, std::less<>> m_metadata;
    std::vector<std::string> m_metadataKeys;
    std::vector<TensorInfo> m_tensors;
    std::map<std::string, std::size_t, std::less<>> m_tensorIndex;
};

} // namespace hearth::gguf
