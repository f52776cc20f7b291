// SPDX-License-Identifier: MIT
#include "device/shared_library.h"

#ifdef _WIN32
#include <windows.h>
#else
#include <dlfcn.h>
#endif

namespace hearth::device {

namespace {

#ifdef _WIN32
std::string lastWindowsError()
{
    char buffer[512] = {};
    FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, nullptr, GetLastError(), 0, buffer,
                   sizeof(buffer), nullptr);
    return buffer;
}
#endif

} // namespace

Result<std::shared_ptr<SharedLibrary>> SharedLibrary::open(const std::string& path)
{
    std::shared_ptr<SharedLibrary> lib(new SharedLibrary());
    lib->m_path = path;
#ifdef _WIN32
    lib->m_handle = LoadLibraryA(path.c_str());
    if (!lib->m_handle)
        return Status(ErrorCode::IoError, "cannot load " + path + ": " + lastWindowsError());
#else
    dlerror();
    // Never unloaded: the CUDA runtime linked into the back end registers exit handlers and
    // driver callbacks that must not outlive its code.
    lib->m_handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (!lib->m_handle) {
        const char* error = dlerror();
        return Status(ErrorCode::IoError, "cannot load " + path + ": " + (error ? error : "unknown error"));
    }
#endif
    return lib;
}

SharedLibrary::~SharedLibrary()
{
    if (!m_handle)
        return;
#ifdef _WIN32
    FreeLibrary(static_cast<HMODULE>(m_handle));
#else
    dlclose(m_handle);
#endif
}

void* SharedLibrary::symbol(const char* name) const
{
    if (!m_handle)
        return nullptr;
#ifdef _WIN32
    return reinterpret_cast<void*>(GetProcAddress(static_cast<HMODULE>(m_handle), name));
#else
    return dlsym(m_handle, name);
#endif
}

bool SharedLibrary::systemLibraryAvailable(const std::string& name)
{
#ifdef _WIN32
    HMODULE handle = LoadLibraryA(name.c_str());
    if (!handle)
        return false;
    FreeLibrary(handle);
    return true;
#else
    void* handle = dlopen(name.c_str(), RTLD_LAZY | RTLD_LOCAL);
    if (!handle)
        return false;
    dlclose(handle);
    return true;
#endif
}

} // namespace hearth::device
