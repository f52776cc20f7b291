// SPDX-License-Identifier: MIT
#pragma once

// Small helpers shared by hearth-gpu-check and hearth-hybrid-bench: random data, comparisons,
// JSON output. Plain C++ (no Qt), so the GPU checks build on machines without it.

#include "core/dtype.h"

#include <cstdint>
#include <string>
#include <vector>

namespace hearth::gpucheck {

[[nodiscard]] std::vector<float> randomFloats(std::size_t n, std::uint32_t seed, float scale = 1.0f);
// rows x cols of @p type from random floats with standard deviation 1/sqrt(cols).
[[nodiscard]] std::vector<std::uint8_t> randomMatrix(DType type, std::int64_t rows, std::int64_t cols,
                                                     std::uint32_t seed);
// max |got - want| / max |want|.
[[nodiscard]] double relativeError(const std::vector<float>& got, const std::vector<float>& want);
[[nodiscard]] std::string jsonEscape(const std::string& text);
// Writes @p text to @p path, creating the folder; false on failure.
bool writeFile(const std::string& path, const std::string& text);

} // namespace hearth::gpucheck
