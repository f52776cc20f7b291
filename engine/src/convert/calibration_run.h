// SPDX-License-Identifier: MIT
#pragma once

// What both ways of making a model sparse (sparsify_file.h: predictors for ReLU models,
// magnitude_sparsify.h: thresholds for SwiGLU models) do alike:
//
//   auto windows = CalibrationWindows::cut(llama, params);       // the text, in windows
//   runCalibration(forward, *windows, params, 0.0f, 0.35f, pointObserversAt);
//   ... write the partial file ...
//   checkAndCommit(params, *windows, partial, {}, 0.8f, report); // perplexity bound, rename
//
// The text is cut into windows of kCalibrationWindow tokens that each start a fresh context with
// BOS; every kHeldOutEvery-th window is held out, and what the report says of quality is
// measured on those.

#include "cpu/matmul.h"

#include <hearth/convert.h>
#include <hearth/tokenizer.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace hearth::gguf {
struct TensorInfo;
}

namespace hearth::model {
class ArchitectureForward;
class LlamaForward;
class LlamaModel;
} // namespace hearth::model

namespace hearth::convert {

// Tokens per calibration window (BOS included).
inline constexpr int kCalibrationWindow = 128;
inline constexpr int kHeldOutEvery = 5;
// Perplexity needs two windows' worth of held-out text.
inline constexpr int kMinimumWindows = 3 * kHeldOutEvery;

struct CalibrationWindows {
    std::vector<Token> tokens; // the text's tokens, windows x perWindow of them used
    Token bos = InvalidToken;
    int window = 0;            // tokens per forward pass, BOS included
    int perWindow = 0;         // text tokens per window
    int windows = 0;

    // The text of @p params (or the built-in one) in @p llama's tokens; InvalidArgument when it
    // is too short.
    static Result<CalibrationWindows> cut(const model::LlamaModel& llama, const SparsifyParams& params);
    // The same for any model, @p trainedContext its training context (the windows fit in it).
    static Result<CalibrationWindows> cut(const Model& model, int trainedContext, const SparsifyParams& params);

    [[nodiscard]] static bool heldOut(int window) { return window % kHeldOutEvery == kHeldOutEvery - 1; }
    // Leading tokens of a window that observers should leave out: decoding never sees BOS, and
    // its residual is unlike any other.
    [[nodiscard]] int skip() const { return bos != InvalidToken ? 1 : 0; }
    // The held-out windows, each as the forward pass saw it (BOS first).
    [[nodiscard]] std::vector<Token> heldOutTokens() const;
    [[nodiscard]] int heldOutTokenCount() const;
    [[nodiscard]] int tokenCount() const { return windows * perWindow; }
};

// The bytes of a bound matrix (0 for an absent one): what the expected speed-ups count.
[[nodiscard]] inline double matrixBytes(const cpu::WeightMatrix& m)
{
    return m.data ? double(rowBytes(m.type, m.cols)) * double(m.rows) : 0.0;
}

// Ok when the neuron kernels read rows of @p type (isComputeType), else why not, for
// @p name (a file, a layer), with what to do about it.
[[nodiscard]] Status checkNeuronType(const std::string& name, DType type);

// Writes @p matrix (@p rows rows of @p cols, as stored) transposed in @p type: its column
// order[k] (k where @p order is empty) as row k, of @p rows elements, at out + k * stride. Makes
// the neuron-major ffn_down_t from ffn_down (rows nEmbd, cols nFf) and the input-major
// projections of input sparsity. Exact for F32 and F16, re-quantized for block types, as
// PowerInfer's ffn_down_t is. OutOfMemory for the float copy.
[[nodiscard]] Status writeTransposed(const gguf::TensorInfo& matrix, DType type, std::int64_t rows, std::int64_t cols,
                                     const std::vector<std::int32_t>& order, std::byte* out, std::size_t stride);

// "making the model sparse was cancelled"
[[nodiscard]] Status sparsifyCancelled();
// Reports @p fraction to params.progress; false: cancel.
[[nodiscard]] bool reportSparsifyProgress(const SparsifyParams& params, float fraction);
// 'name.gguf', for messages.
[[nodiscard]] std::string quotedFileName(const std::string& path);

// Runs @p forward over every window, calling @p beforeWindow(heldOut) first (to point the
// observers at the training or held-out samples); progress goes from @p progressFrom to
// @p progressTo.
[[nodiscard]] Status runCalibration(model::LlamaForward& forward, const CalibrationWindows& windows,
                                    const SparsifyParams& params, float progressFrom, float progressTo,
                                    const std::function<void(bool heldOut)>& beforeWindow);
// The same for the other families' forward passes (@p vocabSize: the logits' width).
[[nodiscard]] Status runCalibration(model::ArchitectureForward& forward, int vocabSize, const CalibrationWindows& windows,
                                    const SparsifyParams& params, float progressFrom, float progressTo,
                                    const std::function<void(bool heldOut)>& beforeWindow);

// The partial file at @p partial must load and answer and read the held-out text within
// params.perplexityBound of the input (report.densePerplexity, .sparsePerplexity are set); then
// it (and @p partialStats, unless empty) take their final names. Progress from @p progressFrom.
[[nodiscard]] Status checkAndCommit(const SparsifyParams& params, const CalibrationWindows& windows,
                                    const std::string& partial, const std::string& partialStats, float progressFrom,
                                    SparsifyReport& report);

} // namespace hearth::convert
