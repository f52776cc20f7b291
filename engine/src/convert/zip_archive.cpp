// SPDX-License-Identifier: MIT
#include "convert/zip_archive.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>

namespace hearth::convert {

namespace {

constexpr std::uint32_t kLocalHeaderSignature = 0x04034b50;
constexpr std::uint32_t kCentralHeaderSignature = 0x02014b50;
constexpr std::uint32_t kEndOfCentralDirectorySignature = 0x06054b50;
constexpr std::uint32_t kZip64EndSignature = 0x06064b50;
constexpr std::uint32_t kZip64LocatorSignature = 0x07064b50;
constexpr std::size_t kEndOfCentralDirectorySize = 22;
constexpr std::size_t kZip64LocatorSize = 20;
constexpr std::size_t kZip64EndSize = 56;
constexpr std::size_t kCentralHeaderSize = 46;
constexpr std::size_t kLocalHeaderSize = 30;
constexpr std::uint16_t kZip64ExtraId = 0x0001;

Status corrupt(const std::string& what)
{
    return Status(ErrorCode::InvalidFile, "not a valid zip archive: " + what);
}

// Bounds-checked little-endian reads from a span; every read says whether it fit.
class Reader {
public:
    explicit Reader(std::span<const std::byte> bytes)
        : m_bytes(bytes)
    {
    }

    [[nodiscard]] bool fits(std::uint64_t offset, std::uint64_t length) const
    {
        return offset <= m_bytes.size() && length <= m_bytes.size() - offset;
    }

    template <typename U>
    [[nodiscard]] U read(std::uint64_t offset) const
    {
        U value = 0;
        for (std::size_t i = 0; i < sizeof(U); ++i) {
            value |= static_cast<U>(static_cast<U>(std::to_integer<unsigned>(m_bytes[offset + i])) << (8 * i));
        }
        return value;
    }

    [[nodiscard]] std::string_view text(std::uint64_t offset, std::size_t length) const
    {
        return {reinterpret_cast<const char*>(m_bytes.data() + offset), length};
    }

    [[nodiscard]] std::size_t size() const { return m_bytes.size(); }

private:
    std::span<const std::byte> m_bytes;
};

struct Directory {
    std::uint64_t entryCount = 0;
    std::uint64_t offset = 0;
    std::uint64_t size = 0;
};

// Finds the end-of-central-directory record: it sits at the end, followed only by an archive
// comment of up to 64 KiB, so search backwards and accept a candidate whose comment length
// reaches exactly to the end of the file (a signature inside the comment does not).
Result<std::uint64_t> findEndOfCentralDirectory(const Reader& in)
{
    if (in.size() < kEndOfCentralDirectorySize) {
        return corrupt("the file is too short (" + std::to_string(in.size()) + " bytes)");
    }
    const std::uint64_t last = in.size() - kEndOfCentralDirectorySize;
    const std::uint64_t first = last > 0xffff ? last - 0xffff : 0;
    for (std::uint64_t pos = last + 1; pos-- > first;) {
        if (in.read<std::uint32_t>(pos) != kEndOfCentralDirectorySignature) {
            continue;
        }
        const std::uint16_t commentLength = in.read<std::uint16_t>(pos + 20);
        if (pos + kEndOfCentralDirectorySize + commentLength == in.size()) {
            return pos;
        }
    }
    return corrupt("no end-of-central-directory record");
}

Result<Directory> readDirectoryLocation(const Reader& in)
{
    auto eocdOrError = findEndOfCentralDirectory(in);
    if (!eocdOrError) {
        return eocdOrError.status();
    }
    const std::uint64_t eocd = *eocdOrError;
    const std::uint16_t diskNumber = in.read<std::uint16_t>(eocd + 4);
    const std::uint16_t directoryDisk = in.read<std::uint16_t>(eocd + 6);
    const std::uint16_t entriesOnDisk = in.read<std::uint16_t>(eocd + 8);
    Directory dir;
    dir.entryCount = in.read<std::uint16_t>(eocd + 10);
    dir.size = in.read<std::uint32_t>(eocd + 12);
    dir.offset = in.read<std::uint32_t>(eocd + 16);

    // ZIP64: fields that overflowed hold all ones and the real values live in the ZIP64 record,
    // found through the locator right before the classic record.
    const bool needsZip64 = dir.entryCount == 0xffff || dir.size == 0xffffffff || dir.offset == 0xffffffff;
    const bool hasLocator = eocd >= kZip64LocatorSize
        && in.read<std::uint32_t>(eocd - kZip64LocatorSize) == kZip64LocatorSignature;
    if (hasLocator) {
        const std::uint64_t locator = eocd - kZip64LocatorSize;
        const std::uint64_t record = in.read<std::uint64_t>(locator + 8);
        if (in.read<std::uint32_t>(locator + 16) > 1) {
            return Status(ErrorCode::Unsupported, "multi-volume zip archives are not supported");
        }
        if (!in.fits(record, kZip64EndSize) || record + kZip64EndSize > locator) {
            return corrupt("the ZIP64 end-of-directory offset points outside the file");
        }
        if (in.read<std::uint32_t>(record) != kZip64EndSignature) {
            return corrupt("bad ZIP64 end-of-directory signature");
        }
        if (in.read<std::uint32_t>(record + 16) != 0 || in.read<std::uint32_t>(record + 20) != 0) {
            return Status(ErrorCode::Unsupported, "multi-volume zip archives are not supported");
        }
        dir.entryCount = in.read<std::uint64_t>(record + 32);
        dir.size = in.read<std::uint64_t>(record + 40);
        dir.offset = in.read<std::uint64_t>(record + 48);
        if (in.read<std::uint64_t>(record + 24) != dir.entryCount) {
            return Status(ErrorCode::Unsupported, "multi-volume zip archives are not supported");
        }
    } else if (needsZip64) {
        return corrupt("the end-of-directory record needs a ZIP64 record, and there is none");
    } else if (diskNumber != 0 || directoryDisk != 0 || entriesOnDisk != dir.entryCount) {
        return Status(ErrorCode::Unsupported, "multi-volume zip archives are not supported");
    }
    if (!in.fits(dir.offset, dir.size) || dir.offset + dir.size > eocd) {
        return corrupt("the central directory (offset " + std::to_string(dir.offset) + ", "
                       + std::to_string(dir.size) + " bytes) lies outside the file");
    }
    // Each entry takes at least a fixed header, which bounds the count a hostile file can claim.
    if (dir.entryCount > dir.size / kCentralHeaderSize) {
        return corrupt("the central directory claims " + std::to_string(dir.entryCount)
                       + " entries, more than fit in it");
    }
    return dir;
}

// Applies the ZIP64 extra field to the sizes and offset that overflowed 32 bits.
Status applyZip64Extra(const Reader& in, std::uint64_t extra, std::uint16_t extraLength, std::uint64_t& size,
                       std::uint64_t& compressedSize, std::uint64_t& localOffset)
{
    const bool wantSize = size == 0xffffffff;
    const bool wantCompressed = compressedSize == 0xffffffff;
    const bool wantOffset = localOffset == 0xffffffff;
    std::uint64_t pos = extra;
    const std::uint64_t end = extra + extraLength;
    while (pos + 4 <= end) {
        const std::uint16_t id = in.read<std::uint16_t>(pos);
        const std::uint16_t length = in.read<std::uint16_t>(pos + 2);
        pos += 4;
        if (pos + length > end) {
            return corrupt("an extra field runs past its header");
        }
        if (id == kZip64ExtraId) {
            std::uint64_t field = pos;
            const auto take = [&](std::uint64_t& value) {
                if (field + 8 > pos + length) {
                    return false;
                }
                value = in.read<std::uint64_t>(field);
                field += 8;
                return true;
            };
            if ((wantSize && !take(size)) || (wantCompressed && !take(compressedSize))
                || (wantOffset && !take(localOffset))) {
                return corrupt("a ZIP64 extra field is too short");
            }
            return {};
        }
        pos += length;
    }
    if (wantSize || wantCompressed || wantOffset) {
        return corrupt("an entry needs a ZIP64 extra field, and there is none");
    }
    return {};
}

} // namespace

Result<ZipArchive> ZipArchive::open(std::span<const std::byte> bytes)
{
    const Reader in(bytes);
    auto dirOrError = readDirectoryLocation(in);
    if (!dirOrError) {
        return dirOrError.status();
    }
    const Directory dir = *dirOrError;

    ZipArchive archive;
    archive.m_bytes = bytes;
    archive.m_entries.reserve(static_cast<std::size_t>(dir.entryCount));
    std::uint64_t pos = dir.offset;
    const std::uint64_t directoryEnd = dir.offset + dir.size;
    for (std::uint64_t i = 0; i < dir.entryCount; ++i) {
        if (pos + kCentralHeaderSize > directoryEnd) {
            return corrupt("the central directory is truncated");
        }
        if (in.read<std::uint32_t>(pos) != kCentralHeaderSignature) {
            return corrupt("bad central directory signature at offset " + std::to_string(pos));
        }
        const std::uint16_t flags = in.read<std::uint16_t>(pos + 8);
        const std::uint16_t method = in.read<std::uint16_t>(pos + 10);
        const std::uint32_t crc = in.read<std::uint32_t>(pos + 16);
        std::uint64_t compressedSize = in.read<std::uint32_t>(pos + 20);
        std::uint64_t size = in.read<std::uint32_t>(pos + 24);
        const std::uint16_t nameLength = in.read<std::uint16_t>(pos + 28);
        const std::uint16_t extraLength = in.read<std::uint16_t>(pos + 30);
        const std::uint16_t commentLength = in.read<std::uint16_t>(pos + 32);
        std::uint64_t localOffset = in.read<std::uint32_t>(pos + 42);
        const std::uint64_t variable = std::uint64_t{nameLength} + extraLength + commentLength;
        if (pos + kCentralHeaderSize + variable > directoryEnd) {
            return corrupt("a central directory entry runs past the directory");
        }
        std::string name(in.text(pos + kCentralHeaderSize, nameLength));
        HEARTH_TRY(applyZip64Extra(in, pos + kCentralHeaderSize + nameLength, extraLength, size, compressedSize,
                                   localOffset));
        pos += kCentralHeaderSize + variable;

        if (flags & 0x1) {
            return Status(ErrorCode::Unsupported, "zip entry '" + name + "' is encrypted");
        }
        if (method != 0) {
            return Status(ErrorCode::Unsupported, "zip entry '" + name + "' is compressed (method "
                                                      + std::to_string(method)
                                                      + "); compressed entries are not supported");
        }
        if (compressedSize != size) {
            return corrupt("stored entry '" + name + "' has different compressed and plain sizes");
        }

        // The local header repeats the name and (unless a data descriptor follows) the sizes;
        // a mismatch means two readers could see two different archives.
        if (!in.fits(localOffset, kLocalHeaderSize) || localOffset + kLocalHeaderSize > dir.offset) {
            return corrupt("the local header of '" + name + "' lies outside the file");
        }
        if (in.read<std::uint32_t>(localOffset) != kLocalHeaderSignature) {
            return corrupt("bad local header signature for '" + name + "'");
        }
        const std::uint16_t localMethod = in.read<std::uint16_t>(localOffset + 8);
        const std::uint64_t localCompressed = in.read<std::uint32_t>(localOffset + 18);
        const std::uint64_t localSize = in.read<std::uint32_t>(localOffset + 22);
        const std::uint16_t localNameLength = in.read<std::uint16_t>(localOffset + 26);
        const std::uint16_t localExtraLength = in.read<std::uint16_t>(localOffset + 28);
        const std::uint64_t dataOffset = localOffset + kLocalHeaderSize + localNameLength + localExtraLength;
        if (localMethod != method || localNameLength != nameLength
            || in.text(localOffset + kLocalHeaderSize, std::min<std::size_t>(nameLength, in.size() - localOffset - kLocalHeaderSize)) != name) {
            return corrupt("the local header of '" + name + "' does not match the central directory");
        }
        const bool hasDescriptor = (in.read<std::uint16_t>(localOffset + 6) & 0x8) != 0;
        const bool localSizesKnown = !(hasDescriptor && localSize == 0 && localCompressed == 0)
            && localSize != 0xffffffff && localCompressed != 0xffffffff;
        if (localSizesKnown && (localSize != size || localCompressed != compressedSize)) {
            return corrupt("the local header of '" + name + "' gives a different size");
        }
        if (!in.fits(dataOffset, size) || dataOffset + size > dir.offset) {
            return corrupt("the data of '" + name + "' lies outside the file");
        }

        if (archive.m_index.count(name) != 0) {
            return corrupt("duplicate entry '" + name + "'");
        }
        archive.m_index.emplace(name, archive.m_entries.size());
        archive.m_entries.push_back({std::move(name), dataOffset, size, crc});
    }
    return archive;
}

const ZipEntry* ZipArchive::find(std::string_view name) const
{
    const auto it = m_index.find(std::string(name));
    return it == m_index.end() ? nullptr : &m_entries[it->second];
}

std::span<const std::byte> ZipArchive::data(const ZipEntry& entry) const
{
    return m_bytes.subspan(static_cast<std::size_t>(entry.dataOffset), static_cast<std::size_t>(entry.size));
}

Status ZipArchive::verifyChecksum(const ZipEntry& entry) const
{
    if (crc32(data(entry)) != entry.crc32) {
        return corrupt("the checksum of '" + entry.name + "' does not match its data");
    }
    return {};
}

std::uint32_t crc32(std::span<const std::byte> data, std::uint32_t crc)
{
    static const std::array<std::uint32_t, 256> table = [] {
        std::array<std::uint32_t, 256> t{};
        for (std::uint32_t i = 0; i < 256; ++i) {
            std::uint32_t c = i;
            for (int k = 0; k < 8; ++k) {
                c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
            }
            t[i] = c;
        }
        return t;
    }();
    crc = ~crc;
    for (const std::byte b : data) {
        crc = table[(crc ^ std::to_integer<std::uint32_t>(b)) & 0xffu] ^ (crc >> 8);
    }
    return ~crc;
}

} // namespace hearth::convert
