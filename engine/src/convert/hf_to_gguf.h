// SPDX-License-Identifier: MIT
#pragma once

// Hugging Face model folder (llama family, Gemma 2 and 3, Falcon, OPT; hf_config.h) -> GGUF
// file that Hearth (and llama.cpp / PowerInfer) load. Falcon and OPT follow llama.cpp's tensor
// names: Falcon's fused QKV rows are regrouped to [Q | K | V], OPT's position table keeps its two
// extra rows. Gemma's norm weights get its + 1, as llama.cpp's converter adds it.
//
// Dense output: a GGUF llama (or bamboo) file. With a predictor folder: PowerInfer's sparse
// layout (PWRI magic, blk.N.fc1/fc2 predictors, blk.N.ffn_down_t neuron-major down projection,
// powerinfer.sparse_threshold). With an activation folder: a statistics file beside the output,
// statsPathFor(output), holding F32 tensors blk.N.ffn_freq = count / (largest count of the
// model), the normalisation ActivationStats::fromCounts uses when the token total is unknown.
//
// Q and K projections are reordered from Hugging Face's rotate-half layout (dimension i pairs
// with i + d/2 within a head) to GGUF's interleaved one (2i pairs with 2i + 1).

#include "core/dtype.h"

#include <hearth/model.h>
#include <hearth/status.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hearth::convert {

struct ConvertOptions {
    std::string modelFolder;
    std::string predictorFolder;  // optional: PowerInfer predictors (model_<n>.pt)
    std::string activationFolder; // optional: PowerInfer statistics (activation_<n>.pt)
    std::string output;
    DType type = DType::F16;      // matrices and token_embd; norms stay F32, predictors F16 (F32 for f32)
    // powerinfer.sparse_threshold; unset: the predictor folder's config.json says, else 0
    std::optional<float> sparseThreshold;
    ProgressCallback progress;    // fraction done; returning false cancels
    bool verify = true;           // load the result and run a short prompt before renaming it
};

struct ConvertReport {
    std::string output;
    std::string statsOutput; // empty without an activation folder
    std::uint64_t bytesWritten = 0;
    int tensorCount = 0;
    bool sparse = false;
    float sparseThreshold = 0.0f; // what a sparse file records
};

// Where the statistics file of @p output goes: "m.gguf" -> "m.hearth-stats.gguf".
[[nodiscard]] std::string statsPathFor(const std::string& output);

// Reorders the rows of a [rows, cols] projection from rotate-half to interleaved order, per
// head of rows / heads rows (llama.cpp's permute of q_proj / k_proj).
[[nodiscard]] std::vector<float> permuteForRope(const std::vector<float>& weights, int heads, std::int64_t rows,
                                                std::int64_t cols);

// Regroups Falcon's fused query_key_value rows ([rows, cols] of (heads + 2 kvHeads) * headDim
// rows) from Hugging Face's per-KV-head groups [q.., k, v] to GGUF's [all Q | all K | all V].
[[nodiscard]] std::vector<float> falconQkvToGguf(const std::vector<float>& weights, int heads, int kvHeads,
                                                 std::int64_t headDim, std::int64_t cols);

[[nodiscard]] Result<ConvertReport> convertHfModel(const ConvertOptions& options);

} // namespace hearth::convert
