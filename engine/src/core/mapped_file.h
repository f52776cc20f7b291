// SPDX-License-Identifier: MIT
#pragma once

// A read-only memory mapping of a whole file (mmap on POSIX, MapViewOfFile on Windows).

#include <hearth/status.h>

#include <cstddef>
#include <memory>
#include <span>
#include <string>

namespace hearth {

class MappedFile {
public:
    static Result<std::unique_ptr<MappedFile>> open(const std::string& path);
    ~MappedFile();
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    [[nodiscard]] std::span<const std::byte> bytes() const { return {m_data, m_size}; }
    [[nodiscard]] const std::string& path() const { return m_path; }
    // Hints the kernel to read the range ahead (weights about to be used).
    void prefetch(std::size_t offset, std::size_t length) const;
    // Pins the mapping in RAM; false when the OS refuses (limits), which is not an error.
    bool lock() const;

private:
    MappedFile() = default;
    std::string m_path;
    const std::byte* m_data = nullptr;
    std::size_t m_size = 0;
#ifdef _WIN32
    void* m_fileHandle = nullptr;
    void* m_mappingHandle = nullptr;
#endif
};

} // namespace hearth
