// SPDX-License-Identifier: MIT
#pragma once

// The quantization presets of llama.cpp's llama-quantize ("Q4_K_M", "IQ4_XS", ...) and the
// type each of a model's tensors gets under one, rule for rule as llama-quantize chooses it
// without an importance matrix: the output matrix in Q6_K, more bits for attn_v and ffn_down in
// the layers use_more_bits() picks, and a 32-weight type where a row is no whole number of
// 256-weight super-blocks. Files quantized with the same preset from the same input are then
// the same files.
//
//     auto plan = planTensorTypes(file, QuantizationPreset::Q4_K_M); // a DType per tensor, file order

#include "core/dtype.h"
#include "gguf/gguf_file.h"

#include <hearth/convert.h>
#include <hearth/status.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hearth::convert {

struct PresetInfo {
    QuantizationPreset preset;
    DType baseType;         // the type of most matrices
    std::uint32_t fileType; // general.file_type (llama.h's LLAMA_FTYPE_MOSTLY_*)
    bool quantized;         // false for F32/F16/BF16: every weight in baseType, no mix
};

[[nodiscard]] const PresetInfo& presetInfo(QuantizationPreset preset);

// Whether llama-quantize re-encodes a tensor of this name and shape at all (weights of two or
// more dimensions that are no norm, router, position or token-type embedding, convolution or
// RWKV mixing weight). PowerInfer predictors (fc1, fc2) stay too: its kernels read them as F16.
[[nodiscard]] bool isQuantizableWeight(const std::string& name, const std::vector<std::int64_t>& shape);

// The type of every tensor of @p file under @p preset, in the file's tensor order; tensors that
// stay as they are keep their own type. InvalidArgument when a row cannot be stored in any
// type the preset allows (llama-quantize's "unsupported tensor size").
[[nodiscard]] Result<std::vector<DType>> planTensorTypes(const gguf::GgufFile& file, QuantizationPreset preset);

// The layer N of a tensor named "blk.N....", or -1.
[[nodiscard]] int tensorLayer(const std::string& name);

// The order in which llama-quantize writes a file's tensors: by layer number ("blk.N."; the
// others first), then by name. Indices into file.tensors().
[[nodiscard]] std::vector<std::size_t> llamaTensorOrder(const gguf::GgufFile& file);

} // namespace hearth::convert
