// SPDX-License-Identifier: MIT
#pragma once

// Re-encodes the weight matrices of a GGUF (or PWRI) model file with one of llama-quantize's
// presets (quantize_preset.h chooses each tensor's type), writing the file llama-quantize would
// write: metadata in the input's order with general.file_type and the quantization version
// last, tensors by layer and name. Norms and other 1-D tensors stay as they are, and so do
// PowerInfer predictors (fc1/fc2), which its kernels read as F16; the PWRI magic is kept.

#include "core/dtype.h"

#include <hearth/convert.h>
#include <hearth/model.h>
#include <hearth/status.h>

#include <cstdint>
#include <string>

namespace hearth::convert {

struct QuantizeOptions {
    std::string input;
    std::string output;
    QuantizationPreset preset = QuantizationPreset::Q4_K_M;
    ProgressCallback progress; // fraction done; returning false cancels
    bool verify = true;        // load the result and run a short prompt before renaming it
};

struct QuantizeReport {
    std::uint64_t inputBytes = 0;
    std::uint64_t outputBytes = 0;
    int convertedTensors = 0;
    int copiedTensors = 0;
};

[[nodiscard]] Result<QuantizeReport> quantizeModelFile(const QuantizeOptions& options);

} // namespace hearth::convert
