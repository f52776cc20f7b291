// SPDX-License-Identifier: MIT
#include "core/mapped_file.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>

#ifdef _WIN32
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <windows.h>
#else
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

namespace hearth {

#ifdef _WIN32

namespace {

std::string lastErrorMessage()
{
    const DWORD code = GetLastError();
    char* buffer = nullptr;
    const DWORD length = FormatMessageA(FORMAT_MESSAGE_ALLOCATE_BUFFER | FORMAT_MESSAGE_FROM_SYSTEM
                                            | FORMAT_MESSAGE_IGNORE_INSERTS,
                                        nullptr, code, 0, reinterpret_cast<LPSTR>(&buffer), 0, nullptr);
    std::string message = length && buffer ? std::string(buffer, length) : "error " + std::to_string(code);
    LocalFree(buffer);
    while (!message.empty() && (message.back() == '\n' || message.back() == '\r' || message.back() == '.')) {
        message.pop_back();
    }
    return message;
}

std::wstring widen(const std::string& utf8)
{
    if (utf8.empty()) {
        return {};
    }
    const int n = MultiByteToWideChar(CP_UTF8, 0, utf8.data(), static_cast<int>(utf8.size()), nullptr, 0);
    std::wstring wide(static_cast<std::size_t>(n), L'\0');
    MultiByteToWideChar(CP_UTF8, 0, utf8.data(), static_cast<int>(utf8.size()), wide.data(), n);
    return wide;
}

} // namespace

Result<std::unique_ptr<MappedFile>> MappedFile::open(const std::string& path)
{
    std::unique_ptr<MappedFile> file(new MappedFile);
    file->m_path = path;

    HANDLE handle = CreateFileW(widen(path).c_str(), GENERIC_READ, FILE_SHARE_READ, nullptr, OPEN_EXISTING,
                                FILE_ATTRIBUTE_NORMAL, nullptr);
    if (handle == INVALID_HANDLE_VALUE) {
        return Status(ErrorCode::IoError, "cannot open '" + path + "': " + lastErrorMessage());
    }
    file->m_fileHandle = handle;

    LARGE_INTEGER size{};
    if (!GetFileSizeEx(handle, &size)) {
        return Status(ErrorCode::IoError, "cannot get the size of '" + path + "': " + lastErrorMessage());
    }
    if (static_cast<unsigned long long>(size.QuadPart) > std::numeric_limits<std::size_t>::max()) {
        return Status(ErrorCode::IoError, "'" + path + "' is too large to map");
    }
    file->m_size = static_cast<std::size_t>(size.QuadPart);
    // Windows cannot map an empty file; an empty span describes it just as well.
    if (file->m_size == 0) {
        return file;
    }

    HANDLE mapping = CreateFileMappingW(handle, nullptr, PAGE_READONLY, 0, 0, nullptr);
    if (!mapping) {
        return Status(ErrorCode::IoError, "cannot map '" + path + "': " + lastErrorMessage());
    }
    file->m_mappingHandle = mapping;
    const void* view = MapViewOfFile(mapping, FILE_MAP_READ, 0, 0, 0);
    if (!view) {
        return Status(ErrorCode::IoError, "cannot map '" + path + "': " + lastErrorMessage());
    }
    file->m_data = static_cast<const std::byte*>(view);
    return file;
}

MappedFile::~MappedFile()
{
    if (m_data) {
        UnmapViewOfFile(m_data);
    }
    if (m_mappingHandle) {
        CloseHandle(static_cast<HANDLE>(m_mappingHandle));
    }
    if (m_fileHandle) {
        CloseHandle(static_cast<HANDLE>(m_fileHandle));
    }
}

void MappedFile::prefetch(std::size_t offset, std::size_t length) const
{
    if (offset >= m_size || length == 0) {
        return;
    }
    length = std::min(length, m_size - offset);
    WIN32_MEMORY_RANGE_ENTRY range{const_cast<std::byte*>(m_data) + offset, length};
    // Best effort: missing on old Windows versions and harmless to skip.
    PrefetchVirtualMemory(GetCurrentProcess(), 1, &range, 0);
}

bool MappedFile::lock() const
{
    if (m_size == 0) {
        return true;
    }
    return VirtualLock(const_cast<std::byte*>(m_data), m_size) != 0;
}

#else // POSIX

Result<std::unique_ptr<MappedFile>> MappedFile::open(const std::string& path)
{
    std::unique_ptr<MappedFile> file(new MappedFile);
    file->m_path = path;

    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return Status(ErrorCode::IoError, "cannot open '" + path + "': " + std::strerror(errno));
    }
    struct stat info {};
    if (::fstat(fd, &info) != 0) {
        const int error = errno;
        ::close(fd);
        return Status(ErrorCode::IoError, "cannot stat '" + path + "': " + std::strerror(error));
    }
    // open() succeeds on directories and devices; mapping them fails obscurely or hangs.
    if (!S_ISREG(info.st_mode)) {
        ::close(fd);
        return Status(ErrorCode::IoError, "'" + path + "' is not a regular file");
    }
    if (static_cast<unsigned long long>(info.st_size) > std::numeric_limits<std::size_t>::max()) {
        ::close(fd);
        return Status(ErrorCode::IoError, "'" + path + "' is too large to map");
    }
    file->m_size = static_cast<std::size_t>(info.st_size);
    // mmap rejects a zero length; an empty span describes an empty file just as well.
    if (file->m_size == 0) {
        ::close(fd);
        return file;
    }

    void* data = ::mmap(nullptr, file->m_size, PROT_READ, MAP_PRIVATE, fd, 0);
    const int error = errno;
    // The mapping keeps the file referenced; the descriptor is no longer needed.
    ::close(fd);
    if (data == MAP_FAILED) {
        file->m_size = 0;
        return Status(ErrorCode::IoError, "cannot map '" + path + "': " + std::strerror(error));
    }
    file->m_data = static_cast<const std::byte*>(data);
    return file;
}

MappedFile::~MappedFile()
{
    if (m_data) {
        ::munmap(const_cast<std::byte*>(m_data), m_size);
    }
}

void MappedFile::prefetch(std::size_t offset, std::size_t length) const
{
    if (!m_data || offset >= m_size || length == 0) {
        return;
    }
    length = std::min(length, m_size - offset);
    // madvise wants a page-aligned start; widen the range down to the page boundary.
    const long pageSize = ::sysconf(_SC_PAGESIZE);
    const std::size_t page = pageSize > 0 ? static_cast<std::size_t>(pageSize) : 4096;
    const std::size_t start = offset - offset % page;
    // A hint only: failure changes nothing but speed.
    (void)::madvise(const_cast<std::byte*>(m_data) + start, length + (offset - start), MADV_WILLNEED);
}

bool MappedFile::lock() const
{
    if (!m_data) {
        return true;
    }
    return ::mlock(m_data, m_size) == 0;
}

#endif

} // namespace hearth
