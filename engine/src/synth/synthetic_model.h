// SPDX-License-Identifier: MIT
#pragma once

// Deterministic random llama-shaped GGUF models for tests and benchmarks. Same options, same
// bytes: weights come from a fixed-seed generator per (seed, tensor, row), never from the
// clock or from std distributions whose output differs between standard libraries.

#include "core/dtype.h"
#include "synth/model_shape.h"

#include <hearth/status.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace hearth::gguf {
class GgufWriter;
}

namespace hearth::synth {

struct SynthOptions {
    std::string architecture = "llama"; // a registered architecture (falcon, opt: synthetic_families.h)
    ModelShape shape;
    DType type = DType::F16;            // token_embd and every matrix; norms stay F32
    std::string ffnActivation = "swiglu"; // "swiglu", "reglu", "drelu" or "relu2" (hearth.ffn_activation);
                                          // falcon: "gelu" or "relu"; opt: "relu"
    std::uint64_t seed = 42;
    std::string chatTemplate;           // tokenizer.chat_template; empty: the family's usual one
    // A dense ReLU FFN (reglu, drelu, relu2) whose neurons fire with power-law frequencies of
    // this mean sparsity, as trained ReLU models do, instead of about half of them for every
    // token: the embeddings share an offset and each gate row leans towards or away from it.
    // 0: plain random weights. The file has no predictors (hearth-sparsify makes them).
    double activationSparsity = 0.0;
};

// One tensor the generator will write, in file order.
struct SynthTensor {
    std::string name;
    std::vector<std::int64_t> shape; // GGUF order: shape[0] is the row length
    DType type = DType::F32;
    float mean = 0.0f;               // values are mean + stddev * N(0, 1)
    float stddev = 0.0f;
    std::vector<float> values;       // or exactly these (F32 only)
    std::vector<float> rowMeans;     // optional: row r's mean instead of `mean`
};

// Called after each row block with the bytes written so far and the total. Return false to cancel.
using SynthProgress = std::function<bool(std::uint64_t done, std::uint64_t total)>;

[[nodiscard]] Status validateOptions(const SynthOptions& options);
[[nodiscard]] std::vector<SynthTensor> plannedTensors(const SynthOptions& options);
// Upper bound of the file size (tensor data is exact; metadata and padding are generous).
[[nodiscard]] std::uint64_t estimatedFileSize(const SynthOptions& options);
// The dtype for "f32", "f16", "q8_0", "q4_0" (case-insensitive), or InvalidArgument.
[[nodiscard]] Result<DType> parseWeightType(const std::string& name);

// The metadata of a synthetic model (architecture, shape, tokenizer), for writers of variants
// such as synthetic_sparse.cpp.
void declareSyntheticMetadata(gguf::GgufWriter& writer, const SynthOptions& options);

// Writes the model to @p path. The data goes to "<path>.part" first and is renamed at the end,
// so an interrupted run never leaves a file that looks complete. Fails with IoError before
// writing anything when the file system lacks the space.
[[nodiscard]] Status writeSyntheticModel(const SynthOptions& options, const std::string& path,
                                         const SynthProgress& progress = {});

} // namespace hearth::synth
