// SPDX-License-Identifier: MIT
#pragma once

// What every fuzz target shares: the input as bytes or text, and the one rule for failures
// (each must say why). A target aborts on anything it finds wrong; the sanitizers catch the rest.

#include <hearth/status.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string_view>

namespace hearth::fuzz {

inline std::span<const std::byte> bytes(const std::uint8_t* data, std::size_t size)
{
    return {reinterpret_cast<const std::byte*>(data), size};
}

inline std::string_view text(const std::uint8_t* data, std::size_t size)
{
    return {reinterpret_cast<const char*>(data), size};
}

/// Aborts unless @p condition holds: a finding for the fuzzer.
inline void require(bool condition)
{
    if (!condition)
        std::abort();
}

/// A failed parse is fine; a failure without a message is a finding.
template <typename T>
bool parsed(const Result<T>& result)
{
    require(result.ok() || !result.message().empty());
    return result.ok();
}

inline bool succeeded(const Status& status)
{
    require(status.ok() || !status.message().empty());
    return status.ok();
}

/// Keeps computed values from being optimised away.
inline void consume(std::uint64_t value)
{
    volatile std::uint64_t sink = value;
    (void)sink;
}

} // namespace hearth::fuzz
