// SPDX-License-Identifier: MIT
#pragma once

// How much memory the weights' repacked copies may take (cpu::PackedWeightStore::setLimit).
// Packed copies live in memory the kernel cannot reclaim, while a file mapping's pages come and
// go as needed: a model larger than the memory left packs what fits and reads the rest through
// the mapping (slower, but it runs where packing everything would have the process killed).

#include <hearth/model.h>

#include <cstdint>

namespace hearth::model {

// LoadParams::memoryBudgetBytes, or what the system has available less room for a session's
// KV cache and buffers (1 GiB and an eighth); SIZE_MAX where the system does not say.
[[nodiscard]] std::uint64_t packingLimit(const LoadParams& params);

} // namespace hearth::model
