// SPDX-License-Identifier: MIT
#pragma once

// Byte counts for log lines and error messages ("1.50 GiB (1610612736 bytes)").

#include <cstdint>
#include <string>

namespace hearth::device {

[[nodiscard]] std::string formatBytes(std::uint64_t bytes);

} // namespace hearth::device
