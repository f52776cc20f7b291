// SPDX-License-Identifier: MIT
#pragma once

// Making a dense model sparse (hearth/convert.h: sparsifyModel, hearth-sparsify). SwiGLU models
// go to magnitude_sparsify.h; ReLU models get predictors:
//
// 1. The model runs densely over the calibration text in windows of kCalibrationWindow tokens,
//    and each layer's FFN records its predictor input (llama-block families: the residual
//    before the FFN norm; falcon and opt: the LayerNorm's output, sparse/predictor.h) and which
//    neurons fired. Every fifth window is held out.
// 2. Each layer gets a predictor fitted on the other windows (sparse/predictor_fit.h; affine,
//    with a bias, for falcon and opt) and is measured on the held-out ones.
// 3. The output is the input file with each layer's FFN matrices (ffn_gate, ffn_up, ffn_down)
//    replaced by Hearth's fused ffn_neurons (neurons by descending frequency, down rows
//    transposed from ffn_down: exact for F32 and F16, re-quantized for Q8_0 and Q4_0 as
//    PowerInfer's ffn_down_t is; OPT's up bias in the same order), and fc1/fc2 in Q8_0 (F16 for
//    sizes that are not whole blocks, fc2.bias in F32); beside it the statistics file.
// 4. It must load and answer, and its held-out perplexity must stay within the caller's bound
//    of the dense model's; only then do the files take their names.

#include <hearth/convert.h>

#include <string>
#include <string_view>

namespace hearth::gguf {
class GgufFile;
}

namespace hearth::convert {

// The text calibration.txt holds (generated into the library at build time).
[[nodiscard]] std::string_view calibrationText();

// What the file's header says against making it sparse (the architecture, predictors already
// there, a mixture of experts, a GeGLU or GELU FFN); Ok when nothing does.
[[nodiscard]] Status checkSparsifiable(const gguf::GgufFile& file, const std::string& path);

[[nodiscard]] Result<SparsifyReport> sparsifyModelFile(const SparsifyParams& params);

} // namespace hearth::convert
