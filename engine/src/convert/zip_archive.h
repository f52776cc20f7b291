// SPDX-License-Identifier: MIT
#pragma once

// A read-only view of a ZIP archive held in memory (usually a file mapping). Only stored
// (uncompressed) entries can be read, which is what torch.save writes: tensor data then lies in
// the mapping as is and needs no copy. Every offset and size in the archive is checked against
// the buffer before use, and the central directory is cross-checked with each local header.

#include <hearth/status.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace hearth::convert {

struct ZipEntry {
    std::string name;
    std::uint64_t dataOffset = 0; // first byte of the entry's data within the archive
    std::uint64_t size = 0;       // bytes of data (stored entries: compressed == uncompressed)
    std::uint32_t crc32 = 0;      // as recorded in the central directory
};

class ZipArchive {
public:
    // Indexes the archive in @p bytes, which must outlive the archive.
    [[nodiscard]] static Result<ZipArchive> open(std::span<const std::byte> bytes);

    [[nodiscard]] const std::vector<ZipEntry>& entries() const { return m_entries; }
    // The entry called @p name, or nullptr.
    [[nodiscard]] const ZipEntry* find(std::string_view name) const;
    // The entry's bytes, inside the buffer given to open().
    [[nodiscard]] std::span<const std::byte> data(const ZipEntry& entry) const;
    // Compares the entry's data with its recorded CRC-32; meant for small entries (it reads all of it).
    [[nodiscard]] Status verifyChecksum(const ZipEntry& entry) const;

private:
    std::span<const std::byte> m_bytes;
    std::vector<ZipEntry> m_entries;
    std::unordered_map<std::string, std::size_t> m_index;
};

// CRC-32 (IEEE 802.3, as in ZIP and PNG) of @p data, continuing from @p crc.
[[nodiscard]] std::uint32_t crc32(std::span<const std::byte> data, std::uint32_t crc = 0);

} // namespace hearth::convert
