// SPDX-License-Identifier: MIT
#pragma once

// Writes GGUF v3 files (or PowerInfer "PWRI" ones) for tools and tests. Tensors are streamed:
// metadata and tensor descriptions are declared first, then each tensor's bytes are written in
// declaration order, so multi-gigabyte models never need to be held in memory.

#include "core/dtype.h"
#include "gguf/gguf_file.h"

#include <hearth/status.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace hearth::gguf {

// Setters and addTensor() never fail on their own: a bad key, value or shape is remembered and
// reported by begin(). Setting a key twice keeps the last value at the first one's position.
// "general.alignment" is the writer's own: setting it (a non-zero power of two) changes the
// alignment, so copying a file's metadata keeps its layout; a non-default alignment is written
// even when nobody sets it.
class GgufWriter {
public:
    explicit GgufWriter(Magic magic = Magic::Gguf, std::uint64_t alignment = 32);
    ~GgufWriter();
    GgufWriter(const GgufWriter&) = delete;
    GgufWriter& operator=(const GgufWriter&) = delete;

    void setString(const std::string& key, const std::string& value);
    void setUInt32(const std::string& key, std::uint32_t value);
    void setInt32(const std::string& key, std::int32_t value);
    void setUInt64(const std::string& key, std::uint64_t value);
    void setFloat32(const std::string& key, float value);
    void setBool(const std::string& key, bool value);
    void setStringArray(const std::string& key, const std::vector<std::string>& values);
    void setFloat32Array(const std::string& key, const std::vector<float>& values);
    void setInt32Array(const std::string& key, const std::vector<std::int32_t>& values);
    // Any value as read by GgufFile (copying metadata between files).
    void setValue(const std::string& key, const Value& value);

    // Declares a tensor; shape in GGUF order (shape[0] contiguous).
    void addTensor(const std::string& name, DType type, const std::vector<std::int64_t>& shape);

    // Writes header, metadata and tensor infos to @p path (the file is created or truncated).
    Status begin(const std::string& path);
    // Writes the next declared tensor's data; @p bytes must be exactly its size.
    Status writeTensorData(std::span<const std::byte> bytes);
    // Pads, flushes and closes; checks every declared tensor was written. After any error the
    // partial file is removed (also when the writer is destroyed before finish()).
    Status finish();

    // Layout, known once every tensor is declared: bytes of a declared tensor's data and its
    // offset from the start of the data section (0 for unknown names).
    [[nodiscard]] std::uint64_t tensorSize(const std::string& name) const;
    [[nodiscard]] std::uint64_t tensorOffset(const std::string& name) const;

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

} // namespace hearth::gguf
