// SPDX-License-Identifier: MIT
#pragma once

// The weights of a Hugging Face model folder, whichever way they are stored: safetensors
// (model.safetensors, or shards named by model.safetensors.index.json) or PyTorch pickles
// (pytorch_model.bin, or shards named by pytorch_model.bin.index.json) read with the safe
// unpickler. Every shard stays memory-mapped; a tensor is converted to float only on request.

#include "convert/element_type.h"
#include "convert/safetensors_index.h"
#include "convert/torch_tensor.h"

#include <hearth/status.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace hearth::convert {

struct CheckpointTensorInfo {
    ElementType dtype = ElementType::F32;
    std::vector<std::int64_t> shape; // PyTorch order: shape.back() is contiguous
};

class HfCheckpoint {
public:
    // Opens the weights in @p folder; an error names what is missing or broken.
    [[nodiscard]] static Result<HfCheckpoint> open(const std::string& folder);

    [[nodiscard]] const std::string& format() const { return m_format; } // "safetensors" or "pytorch"
    [[nodiscard]] std::vector<std::string> names() const;
    // Shape and type of @p name, or nullptr when the checkpoint lacks it.
    [[nodiscard]] const CheckpointTensorInfo* find(std::string_view name) const;
    // The elements of @p name as floats, row-major.
    [[nodiscard]] Result<std::vector<float>> read(std::string_view name) const;

private:
    std::string m_format;
    std::shared_ptr<SafetensorsIndex> m_safetensors;
    std::map<std::string, TorchTensor, std::less<>> m_torch;
    std::map<std::string, CheckpointTensorInfo, std::less<>> m_info;
};

} // namespace hearth::convert
