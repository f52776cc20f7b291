// SPDX-License-Identifier: MIT
#pragma once

// PowerInfer's side files: predictor folders (model_<layer>.pt, each a state dict with
// fc1.weight [h, n_embd] and fc2.weight [n_ff, h]) and activation statistics folders
// (activation_<layer>.pt, one 1-D tensor of n_ff counts). Files are ordered by the layer number
// in their name, never by a string sort (which puts 10 before 2).

#include "convert/torch_tensor.h"

#include <hearth/status.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hearth::convert {

struct PredictorLayer {
    TorchTensor fc1; // [hidden, n_embd]
    TorchTensor fc2; // [n_ff, hidden]
    [[nodiscard]] std::int64_t hidden() const { return fc1.shape().empty() ? 0 : fc1.shape()[0]; }
};

// Files "<prefix><n><suffix>" in @p folder ordered by n; every layer 0..count-1 exactly once.
[[nodiscard]] Result<std::vector<std::string>> layerFiles(const std::string& folder, const std::string& prefix,
                                                          const std::string& suffix);

// Opens and checks every predictor of a model with @p layers layers of @p nEmbd -> @p nFf.
[[nodiscard]] Result<std::vector<PredictorLayer>> loadPredictors(const std::string& folder, int layers,
                                                                 std::int64_t nEmbd, std::int64_t nFf);

// The "sparse_threshold" of the folder's config.json, which PowerInfer's converters copy into
// the file (powerinfer.sparse_threshold); nullopt without the file or the key. A config.json
// that is not JSON, or a threshold that is not a finite number, is InvalidFile.
[[nodiscard]] Result<std::optional<float>> predictorSparseThreshold(const std::string& folder);

// Reads activation counts, one vector of @p nFf per layer.
[[nodiscard]] Result<std::vector<std::vector<double>>> loadActivationCounts(const std::string& folder, int layers,
                                                                            std::int64_t nFf);

} // namespace hearth::convert
