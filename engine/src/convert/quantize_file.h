// SPDX-License-Identifier: MIT
#pragma once

// Re-encodes the weight matrices of a GGUF (or PWRI) model file in another type. Every 2-D
// ".weight" tensor is converted, token_embd included; norms and other 1-D tensors stay as
// they are, and so do PowerInfer predictors (fc1/fc2), which its kernels read as F16. All
// metadata is copied, general.file_type updated, and the PWRI magic kept.

#include "core/dtype.h"

#include <hearth/model.h>
#include <hearth/status.h>

#include <cstdint>
#include <string>

namespace hearth::convert {

struct QuantizeOptions {
    std::string input;
    std::string output;
    DType type = DType::Q4_0;  // F16, Q8_0 or Q4_0 (F32 too, to expand a file)
    ProgressCallback progress; // fraction done; returning false cancels
    bool verify = true;        // load the result and run a short prompt before renaming it
};

struct QuantizeReport {
    std::uint64_t inputBytes = 0;
    std::uint64_t outputBytes = 0;
    int convertedTensors = 0;
    int copiedTensors = 0;
};

// Whether quantizeModelFile converts a tensor of this name and shape (GGUF order).
[[nodiscard]] bool isQuantizableWeight(const std::string& name, const std::vector<std::int64_t>& shape);

[[nodiscard]] Result<QuantizeReport> quantizeModelFile(const QuantizeOptions& options);

} // namespace hearth::convert
