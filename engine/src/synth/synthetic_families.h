// SPDX-License-Identifier: MIT
#pragma once

// The falcon and opt variants of the synthetic model generator (SynthOptions::architecture).
// synthetic_model.cpp writes every architecture's file; these supply what differs: shapes,
// checks, tensors and metadata (byte-level BPE vocabulary included).

#include "synth/synthetic_model.h"

#include <string_view>
#include <vector>

namespace hearth::gguf {
class GgufWriter;
}

namespace hearth::synth {

// "falcon" and "opt"; "llama" is synthetic_model.cpp's own.
[[nodiscard]] bool isFamilyArchitecture(std::string_view architecture);

// The shapes known for @p architecture ("falcon-tiny", "falcon-1b", ..., "opt-125m", ...).
[[nodiscard]] std::vector<ModelShape> familyShapes(std::string_view architecture);
// A shape by name: the architecture's own, or for "llama" synth::shapeByName.
[[nodiscard]] Result<ModelShape> shapeByName(std::string_view architecture, std::string_view name);

[[nodiscard]] Status validateFamilyOptions(const SynthOptions& options);
[[nodiscard]] std::vector<SynthTensor> plannedFamilyTensors(const SynthOptions& options);
// Every metadata key of a falcon/opt file, vocabulary included.
void declareFamilyMetadata(gguf::GgufWriter& writer, const SynthOptions& options);

// The tokenizer.* keys of a byte-level BPE vocabulary of @p vocabSize tokens in @p architecture's
// style, and a plain-text chat template.
void declareBpeVocabulary(gguf::GgufWriter& writer, const std::string& architecture, int vocabSize);

// Per architecture (synthetic_falcon.cpp, synthetic_opt.cpp).
[[nodiscard]] std::vector<SynthTensor> plannedFalconTensors(const SynthOptions& options);
void declareFalconMetadata(gguf::GgufWriter& writer, const SynthOptions& options);
[[nodiscard]] std::vector<SynthTensor> plannedOptTensors(const SynthOptions& options);
void declareOptMetadata(gguf::GgufWriter& writer, const SynthOptions& options);

} // namespace hearth::synth
