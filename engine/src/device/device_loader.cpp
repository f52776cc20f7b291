// SPDX-License-Identifier: MIT
#include "device/device_loader.h"

#include "device/cuda_backend_api.h"
#include "device/cuda_device.h"
#include "device/shared_library.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

#ifdef _WIN32
#include <windows.h>
#endif

namespace hearth::device {

namespace fs = std::filesystem;

namespace {

#ifdef _WIN32
constexpr const char* kDriverLibrary = "nvcuda.dll";
#else
constexpr const char* kDriverLibrary = "libcuda.so.1";
#endif

fs::path executableDir()
{
    std::error_code ec;
#ifdef _WIN32
    wchar_t buffer[MAX_PATH] = {};
    const DWORD n = GetModuleFileNameW(nullptr, buffer, MAX_PATH);
    if (n == 0 || n == MAX_PATH)
        return {};
    return fs::path(buffer).parent_path();
#else
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    return ec ? fs::path() : exe.parent_path();
#endif
}

bool isFile(const std::string& path)
{
    std::error_code ec;
    return fs::is_regular_file(path, ec);
}

} // namespace

std::string DeviceLoader::moduleFileName()
{
#ifdef _WIN32
    return "hearth-cuda.dll";
#elif defined(__APPLE__)
    return "libhearth-cuda.so";
#else
    return "libhearth-cuda.so";
#endif
}

std::vector<std::string> DeviceLoader::searchPaths()
{
    std::vector<std::string> paths;
    if (const char* env = std::getenv("HEARTH_CUDA_MODULE"); env && *env)
        paths.emplace_back(env);
    const std::string name = moduleFileName();
    const fs::path exeDir = executableDir();
    if (!exeDir.empty()) {
        paths.push_back((exeDir / name).string());
        paths.push_back((exeDir.parent_path() / "lib" / "hearth" / name).lexically_normal().string());
    }
#ifdef HEARTH_INSTALL_PREFIX
    paths.push_back((fs::path(HEARTH_INSTALL_PREFIX) / "lib" / "hearth" / name).lexically_normal().string());
#endif
    return paths;
}

std::string DeviceLoader::findModule()
{
    for (const std::string& path : searchPaths()) {
        if (isFile(path))
            return path;
    }
    return {};
}

Result<std::unique_ptr<Device>> DeviceLoader::openCuda(const DeviceLoadOptions& options)
{
    std::string path = options.modulePath;
    if (path.empty()) {
        path = findModule();
        if (path.empty()) {
            std::string where;
            for (const std::string& p : searchPaths())
                where += (where.empty() ? "" : ", ") + p;
            return Status(ErrorCode::Unsupported,
                          "CUDA back end not installed (" + moduleFileName() + " not found in: " + where + ")");
        }
    } else if (!isFile(path)) {
        return Status(ErrorCode::Unsupported, "CUDA back end not found: " + path + " does not exist");
    }

    auto library = SharedLibrary::open(path);
    if (!library)
        return Status(ErrorCode::Unsupported, "CUDA back end unusable: " + library.message());
    auto entry = reinterpret_cast<HearthCudaBackendEntry>((*library)->symbol(HEARTH_CUDA_ENTRY_SYMBOL));
    if (!entry)
        return Status(ErrorCode::Unsupported,
                      path + " is not a Hearth CUDA module (no " + std::string(HEARTH_CUDA_ENTRY_SYMBOL) + ")");
    const HearthCudaBackendV1* api = entry();
    if (!api || api->abi_version != HEARTH_CUDA_ABI_VERSION || api->struct_size < HEARTH_CUDA_V1_BASE_SIZE)
        return Status(ErrorCode::Unsupported, path + " was built for another version of Hearth (CUDA module ABI "
                                                  + std::to_string(api ? api->abi_version : 0u) + ", expected "
                                                  + std::to_string(HEARTH_CUDA_ABI_VERSION) + ")");

    // Checked here rather than left to the CUDA runtime, whose error for a missing driver
    // ("CUDA driver version is insufficient") misleads people who have no driver at all.
    if (options.checkDriver && !SharedLibrary::systemLibraryAvailable(kDriverLibrary))
        return Status(ErrorCode::Unsupported, std::string("no CUDA device: no NVIDIA driver found (") + kDriverLibrary + ")");

    auto device = CudaDevice::open(std::move(*library), api, options.deviceIndex, options.budgetBytes);
    if (!device)
        return device.status();
    return std::unique_ptr<Device>(std::move(*device));
}

} // namespace hearth::device
