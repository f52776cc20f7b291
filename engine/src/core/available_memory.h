// SPDX-License-Identifier: MIT
#pragma once

// How much more memory this process may fill before the kernel has to take it from something it
// needs, or a memory cgroup's limit (a container, systemd's MemoryMax) kills it:
//
//   const std::uint64_t room = availableMemoryBytes(); // 0: unknown
//
// The smaller of /proc/meminfo's MemAvailable and, inside a memory cgroup (v2 or v1), its limit
// less what the group holds beyond reclaimable file pages.

#include <cstdint>
#include <string>

namespace hearth {

// @p root: where /proc and /sys are found (tests give a folder of their own).
[[nodiscard]] std::uint64_t availableMemoryBytes(const std::string& root = "/");

} // namespace hearth
