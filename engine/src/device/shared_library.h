// SPDX-License-Identifier: MIT
#pragma once

// A dynamically loaded library (dlopen / LoadLibrary). The handle is released when the last
// owner lets go, but on POSIX the code stays mapped (RTLD_NODELETE): see open().

#include <hearth/status.h>

#include <memory>
#include <string>

namespace hearth::device {

class SharedLibrary {
public:
    // Loads @p path with its symbols kept local. The error carries the loader's own message.
    [[nodiscard]] static Result<std::shared_ptr<SharedLibrary>> open(const std::string& path);
    ~SharedLibrary();
    SharedLibrary(const SharedLibrary&) = delete;
    SharedLibrary& operator=(const SharedLibrary&) = delete;

    // The address of @p name, or nullptr.
    [[nodiscard]] void* symbol(const char* name) const;
    [[nodiscard]] const std::string& path() const { return m_path; }

    // True when a system library (e.g. "libcuda.so.1") can be loaded; it is unloaded again.
    [[nodiscard]] static bool systemLibraryAvailable(const std::string& name);

private:
    SharedLibrary() = default;
    void* m_handle = nullptr;
    std::string m_path;
};

} // namespace hearth::device
