// SPDX-License-Identifier: MIT
#pragma once

// A model stored as several safetensors shards with a model.safetensors.index.json whose
// "weight_map" names the shard of every tensor (Hugging Face's layout), or as a single
// model.safetensors.

#include "convert/safetensors_file.h"

#include <hearth/status.h>

#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace hearth::convert {

class SafetensorsIndex {
public:
    // Opens the index file and every shard it names (shards lie beside the index).
    [[nodiscard]] static Result<SafetensorsIndex> open(const std::string& indexPath);
    // Opens a model folder: model.safetensors.index.json if present, else model.safetensors.
    [[nodiscard]] static Result<SafetensorsIndex> openFolder(const std::string& folder);

    [[nodiscard]] const std::vector<SafetensorsFile>& shards() const { return m_shards; }
    // Tensor names in the index's order.
    [[nodiscard]] const std::vector<std::string>& names() const { return m_names; }
    [[nodiscard]] const SafetensorsTensor* find(std::string_view name) const;

private:
    std::vector<SafetensorsFile> m_shards;
    std::vector<std::string> m_names;
    // Name -> (shard, position in the shard's tensors()); indices survive copies and moves.
    std::unordered_map<std::string, std::pair<std::size_t, std::size_t>> m_tensors;
};

} // namespace hearth::convert
