// SPDX-License-Identifier: MIT
#include "core/available_memory.h"

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

namespace hearth {

namespace {

// The first number in @p path, or nothing ("max", a missing file).
std::optional<std::uint64_t> readNumber(const std::string& path)
{
    std::ifstream in(path);
    std::uint64_t value = 0;
    if (in >> value)
        return value;
    return std::nullopt;
}

// The value of @p key ("key value" lines: memory.stat) or of "key: value kB" (/proc/meminfo, in
// bytes when @p kilobytes).
std::optional<std::uint64_t> readKey(const std::string& path, const std::string& key, bool kilobytes)
{
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream fields(line);
        std::string name;
        std::uint64_t value = 0;
        if (fields >> name >> value && (name == key || name == key + ":"))
            return kilobytes ? value * 1024 : value;
    }
    return std::nullopt;
}

// The memory cgroup's room: limit - (usage - file pages), or nothing outside a limited group.
std::optional<std::uint64_t> cgroupRoom(const std::string& root)
{
    std::ifstream groups(root + "proc/self/cgroup");
    std::string line;
    while (std::getline(groups, line)) {
        // "0::/path" (v2) or "N:memory:/path" (v1).
        const std::size_t first = line.find(':');
        const std::size_t second = line.find(':', first + 1);
        if (first == std::string::npos || second == std::string::npos)
            continue;
        const std::string controllers = line.substr(first + 1, second - first - 1);
        const std::string path = line.substr(second + 1);
        std::optional<std::uint64_t> limit, usage, files;
        if (controllers.empty()) {
            const std::string dir = root + "sys/fs/cgroup" + path;
            usage = readNumber(dir + "/memory.current");
            files = readKey(dir + "/memory.stat", "file", false);
            // The group's own limit or a parent's, whichever is lower.
            for (std::string up = path; !up.empty(); up = up.substr(0, up.rfind('/'))) {
                if (const auto max = readNumber(root + "sys/fs/cgroup" + up + "/memory.max"))
                    limit = std::min(*max, limit.value_or(*max));
            }
        } else if (controllers == "memory") {
            const std::string dir = root + "sys/fs/cgroup/memory" + path;
            // hierarchical_memory_limit: the lowest limit on the way up.
            limit = readKey(dir + "/memory.stat", "hierarchical_memory_limit", false);
            if (!limit)
                limit = readNumber(dir + "/memory.limit_in_bytes");
            usage = readNumber(dir + "/memory.usage_in_bytes");
            files = readKey(dir + "/memory.stat", "total_cache", false);
        } else {
            continue;
        }
        // v1 says "no limit" with a number near 2^63.
        if (!limit || !usage || *limit >= (std::uint64_t(1) << 62))
            continue;
        const std::uint64_t held = *usage - std::min(*usage, files.value_or(0));
        return *limit > held ? *limit - held : 0;
    }
    return std::nullopt;
}

} // namespace

std::uint64_t availableMemoryBytes(const std::string& root)
{
#if defined(__linux__)
    const std::string base = root.ends_with('/') ? root : root + "/";
    const std::optional<std::uint64_t> system = readKey(base + "proc/meminfo", "MemAvailable", true);
    const std::optional<std::uint64_t> group = cgroupRoom(base);
    if (system && group)
        return std::min(*system, *group);
    return system ? *system : group.value_or(0);
#else
    (void)root;
    return 0;
#endif
}

} // namespace hearth
