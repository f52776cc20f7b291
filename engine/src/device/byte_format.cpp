// SPDX-License-Identifier: MIT
#include "device/byte_format.h"

#include <cstdint>
#include <cstdio>

namespace hearth::device {

std::string formatBytes(std::uint64_t bytes)
{
    static const char* const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
    double value = double(bytes);
    int unit = 0;
    while (value >= 1024.0 && unit < 4) {
        value /= 1024.0;
        ++unit;
    }
    char text[64];
    if (unit == 0)
        std::snprintf(text, sizeof(text), "%llu bytes", static_cast<unsigned long long>(bytes));
    else
        std::snprintf(text, sizeof(text), "%.2f %s (%llu bytes)", value, units[unit],
                      static_cast<unsigned long long>(bytes));
    return text;
}

} // namespace hearth::device
