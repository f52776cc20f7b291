// SPDX-License-Identifier: MIT
#pragma once

// A pickle interpreter that never runs code. Python's pickle calls any function a file names;
// this one knows the opcodes torch.save emits (protocols 2 to 5) and a short list of globals
// needed to rebuild tensors and (ordered) dicts. Any other global, any call of something that is
// not on the list, and any malformed or truncated stream is an error value, never a crash.

#include "convert/pickle_value.h"

#include <hearth/status.h>

#include <cstddef>
#include <span>

namespace hearth::convert {

struct UnpicklerLimits {
    std::size_t maxStack = 1u << 20;     // values on the stack and the mark stack together
    std::size_t maxMemo = 1u << 20;      // memo entries
    std::size_t maxNesting = 64;         // containers inside containers in the result
    std::size_t maxTensorRank = 16;      // dimensions of one tensor
};

// Interprets the pickle in @p data (the contents of data.pkl) and returns the value STOP leaves.
[[nodiscard]] Result<PickleValue> unpickle(std::span<const std::byte> data, const UnpicklerLimits& limits = {});

} // namespace hearth::convert
