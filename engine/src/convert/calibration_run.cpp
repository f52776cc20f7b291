// SPDX-License-Identifier: MIT
#include "convert/calibration_run.h"

#include "api/perplexity.h"
#include "convert/output_file.h"
#include "convert/sparsify_file.h"
#include "cpu/quant.h"
#include "gguf/gguf_file.h"
#include "model/architecture_forward.h"
#include "model/llama_forward.h"
#include "model/llama_model.h"

#include <hearth/session.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <new>

namespace hearth::convert {

Status sparsifyCancelled()
{
    return {ErrorCode::Cancelled, "making the model sparse was cancelled"};
}

bool reportSparsifyProgress(const SparsifyParams& params, float fraction)
{
    return !params.progress || params.progress(std::clamp(fraction, 0.0f, 1.0f));
}

std::string quotedFileName(const std::string& path)
{
    // Built in place: GCC 12 warns falsely (-Wrestrict) of "'" + name + "'".
    std::string name = std::filesystem::path(path).filename().string();
    name.insert(name.begin(), '\'');
    name.push_back('\'');
    return name;
}

Status checkNeuronType(const std::string& name, DType type)
{
    if (isComputeType(type))
        return {};
    return {ErrorCode::Unsupported, name + ": the sparse FFN reads F32, F16, Q8_0, Q4_0, Q4_K, Q5_K and Q6_K rows, not "
                                        + std::string(dtypeName(type))
                                        + "; re-quantize the file to Q4_K_M or Q8_0 first (hearth-quantize)"};
}

Status writeTransposed(const gguf::TensorInfo& matrix, DType type, std::int64_t rows, std::int64_t cols,
                       const std::vector<std::int32_t>& order, std::byte* out, std::size_t stride)
{
    std::vector<float> m; // rows of cols
    std::vector<float> column;
    try {
        m.resize(std::size_t(rows * cols));
        column.resize(std::size_t(rows));
    } catch (const std::bad_alloc&) {
        return {ErrorCode::OutOfMemory, "not enough memory to transpose " + matrix.name};
    }
    const std::size_t inRow = rowBytes(matrix.type, cols);
    for (std::int64_t r = 0; r < rows; ++r)
        cpu::dequantizeRow(matrix.type, matrix.data + std::size_t(r) * inRow, m.data() + r * cols, cols);
    for (std::int64_t k = 0; k < cols; ++k) {
        const auto i = std::size_t(order.empty() ? k : order[std::size_t(k)]);
        for (std::int64_t e = 0; e < rows; ++e)
            column[std::size_t(e)] = m[std::size_t(e * cols) + i];
        cpu::quantizeRow(type, column.data(), out + std::size_t(k) * stride, rows);
    }
    return {};
}

Result<CalibrationWindows> CalibrationWindows::cut(const model::LlamaModel& llama, const SparsifyParams& params)
{
    return cut(llama, llama.hyperParams().nCtxTrain, params);
}

Result<CalibrationWindows> CalibrationWindows::cut(const Model& model, int trainedContext, const SparsifyParams& params)
{
    CalibrationWindows c;
    const std::string_view text = params.calibrationText.empty() ? calibrationText() : params.calibrationText;
    c.tokens = model.tokenizer().encode(std::string(text), false, false);
    if (params.maxTokens > 0 && c.tokens.size() > std::size_t(params.maxTokens))
        c.tokens.resize(std::size_t(params.maxTokens));
    c.bos = model.tokenizer().bos();
    c.window = std::min(kCalibrationWindow, std::max(8, trainedContext));
    c.perWindow = c.window - c.skip();
    c.windows = int(c.tokens.size()) / c.perWindow;
    if (c.windows < kMinimumWindows)
        return Status(ErrorCode::InvalidArgument,
                      "the calibration text is too short: it has " + std::to_string(c.tokens.size()) + " tokens, and at least "
                          + std::to_string(kMinimumWindows * c.perWindow) + " are needed");
    return c;
}

std::vector<Token> CalibrationWindows::heldOutTokens() const
{
    std::vector<Token> out;
    for (int w = 0; w < windows; ++w) {
        if (heldOut(w)) {
            // Whole windows, BOS first: perplexity chunks of `window` tokens then line up with
            // them and never join two unrelated windows' text.
            if (bos != InvalidToken)
                out.push_back(bos);
            const auto first = tokens.begin() + std::ptrdiff_t(w) * perWindow;
            out.insert(out.end(), first, first + perWindow);
        }
    }
    return out;
}

int CalibrationWindows::heldOutTokenCount() const
{
    int count = 0;
    for (int w = 0; w < windows; ++w)
        count += heldOut(w) ? perWindow : 0;
    return count;
}

namespace {

// Runs @p forward (a LlamaForward or an ArchitectureForward: the same forward()) over every window.
template <typename Forward>
Status calibrate(Forward& forward, int vocabSize, const CalibrationWindows& windows, const SparsifyParams& params,
                 float progressFrom, float progressTo, const std::function<void(bool heldOut)>& beforeWindow)
{
    std::vector<float> logits(static_cast<std::size_t>(vocabSize));
    std::vector<Token> chunk;
    try {
        for (int w = 0; w < windows.windows; ++w) {
            beforeWindow(CalibrationWindows::heldOut(w));
            const auto first = windows.tokens.begin() + std::ptrdiff_t(w) * windows.perWindow;
            chunk.clear();
            if (windows.bos != InvalidToken)
                chunk.push_back(windows.bos);
            chunk.insert(chunk.end(), first, first + windows.perWindow);
            forward.forward(chunk.data(), int(chunk.size()), 0, logits.data(), false);
            const float done = float(w + 1) / float(windows.windows);
            if (!reportSparsifyProgress(params, progressFrom + (progressTo - progressFrom) * done))
                return sparsifyCancelled();
        }
    } catch (const std::bad_alloc&) {
        return {ErrorCode::OutOfMemory, "not enough memory for the calibration samples; use fewer tokens"};
    }
    return {};
}

} // namespace

Status runCalibration(model::LlamaForward& forward, const CalibrationWindows& windows, const SparsifyParams& params,
                      float progressFrom, float progressTo, const std::function<void(bool heldOut)>& beforeWindow)
{
    return calibrate(forward, forward.model().hyperParams().nVocab, windows, params, progressFrom, progressTo,
                     beforeWindow);
}

Status runCalibration(model::ArchitectureForward& forward, int vocabSize, const CalibrationWindows& windows,
                      const SparsifyParams& params, float progressFrom, float progressTo,
                      const std::function<void(bool heldOut)>& beforeWindow)
{
    return calibrate(forward, vocabSize, windows, params, progressFrom, progressTo, beforeWindow);
}

namespace {

// The perplexity of @p tokens under the model at @p path, in chunks of @p window; @p progress sees
// the share of chunks done and may cancel.
Result<double> heldOutPerplexity(const std::string& path, std::span<const Token> tokens, int window, int threads,
                                 const std::function<bool(float)>& progress)
{
    auto model = Model::load(path);
    if (!model)
        return model.status();
    SessionParams params;
    params.contextLength = window;
    params.batchSize = window;
    params.threads = threads;
    params.vramBudgetGiB = 0;
    auto session = Session::create(*model, params);
    if (!session)
        return session.status();
    auto result = computePerplexity(**session, tokens, 0,
                                    [&progress](int done, int total, double) { return progress(float(done) / float(total)); });
    if (!result)
        return result.code() == ErrorCode::Cancelled ? sparsifyCancelled() : result.status();
    return result->perplexity;
}

} // namespace

Status checkAndCommit(const SparsifyParams& params, const CalibrationWindows& windows, const std::string& partial,
                      const std::string& partialStats, float progressFrom, SparsifyReport& report)
{
    HEARTH_TRY(verifyModelFile(partial));
    const float checked = progressFrom + 0.02f;
    const float denseDone = checked + (1.0f - checked) / 2.0f;
    if (!reportSparsifyProgress(params, checked))
        return sparsifyCancelled();
    const auto between = [&params](float from, float to) {
        return [&params, from, to](float f) { return reportSparsifyProgress(params, from + (to - from) * f); };
    };
    const std::vector<Token> heldOut = windows.heldOutTokens();
    auto dense = heldOutPerplexity(params.input, heldOut, windows.window, params.threads, between(checked, denseDone));
    if (!dense)
        return dense.code() == ErrorCode::Cancelled ? dense.status()
                                                    : Status(dense.code(), "the dense model's perplexity: " + dense.message());
    auto sparse = heldOutPerplexity(partial, heldOut, windows.window, params.threads, between(denseDone, 0.99f));
    if (!sparse)
        return sparse.code() == ErrorCode::Cancelled ? sparse.status()
                                                     : Status(sparse.code(), "the sparse model's perplexity: " + sparse.message());
    report.densePerplexity = *dense;
    report.sparsePerplexity = *sparse;
    if (!(*sparse <= *dense * (1.0 + params.perplexityBound))) {
        char message[320];
        std::snprintf(message, sizeof message,
                      "the sparse model reads the held-out text with perplexity %.3f against the dense model's %.3f "
                      "(+%.1f%%, more than the +%.1f%% allowed); %s",
                      *sparse, *dense, 100.0 * (*sparse / *dense - 1.0), 100.0 * params.perplexityBound,
                      report.method == SparsifyMethod::Magnitude ? "ask for a lower target sparsity"
                                                                 : "ask for a higher recall or a larger predictor rank");
        return {ErrorCode::QualityTooLow, message};
    }
    if (!reportSparsifyProgress(params, 1.0f))
        return sparsifyCancelled();
    if (!partialStats.empty())
        HEARTH_TRY(commitFile(partialStats, report.statisticsOutput));
    return commitFile(partial, params.output);
}

} // namespace hearth::convert
