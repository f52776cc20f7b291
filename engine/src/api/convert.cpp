// SPDX-License-Identifier: MIT
// The public conversion API: a thin layer over convert::convertHfModel,
// convert::quantizeModelFile and convert::sparsifyModelFile that keeps their private types (DType, HfConfig, ...) out of front
// ends, refuses to replace files unless asked, and sizes the output before anything is written.

#include <hearth/convert.h>

#include "convert/hf_checkpoint.h"
#include "convert/hf_config.h"
#include "convert/hf_to_gguf.h"
#include "convert/predictor_import.h"
#include "convert/quantize_file.h"
#include "convert/quantize_preset.h"
#include "convert/sparsify_file.h"
#include "convert/tokenizer_import.h"
#include "core/dtype.h"
#include "gguf/gguf_file.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <system_error>

namespace hearth {

namespace {

// Header slack: metadata other than the vocabulary, tensor records, alignment.
constexpr std::uint64_t kHeaderSlack = std::uint64_t(1) << 20;
// Per tensor: its record in the header and padding to the 32-byte (at most 64) alignment.
constexpr std::uint64_t kPerTensor = 64;

DType toDType(WeightType type)
{
    switch (type) {
    case WeightType::F32: return DType::F32;
    case WeightType::F16: return DType::F16;
    case WeightType::Q8_0: return DType::Q8_0;
    case WeightType::Q4_0: return DType::Q4_0;
    }
    return DType::F16;
}

bool exists(const std::string& path)
{
    std::error_code ec;
    return std::filesystem::exists(path, ec);
}

// The type the converter gives a matrix with rows of @p rowLength (hf_to_gguf.cpp's rule:
// quantized types need whole blocks per row, otherwise F16).
// Whether rows of @p rowLength hold whole blocks of @p type, which quantized types need.
bool wholeBlocks(DType type, std::int64_t rowLength)
{
    const auto traits = dtypeTraits(static_cast<std::uint32_t>(type));
    return traits && rowLength % traits->blockElements == 0;
}

DType matrixType(DType wanted, std::int64_t rowLength)
{
    return wholeBlocks(wanted, rowLength) ? wanted : DType::F16;
}

// Bytes of a GGUF-order [rowLength, rows] matrix of @p type, with its record.
std::uint64_t matrixBytes(DType type, std::int64_t rowLength, std::int64_t rows)
{
    return std::uint64_t(rowBytes(type, rowLength)) * std::uint64_t(rows) + kPerTensor;
}

Status refuseExisting(const std::string& path)
{
    return {ErrorCode::InvalidArgument, "'" + path + "' already exists (set overwrite to replace it)"};
}

Result<ConversionEstimate> estimate(const ConvertParams& params)
{
    if (params.modelFolder.empty()) {
        return Status(ErrorCode::InvalidArgument, "a model folder is needed");
    }
    auto config = convert::HfConfig::load(params.modelFolder);
    if (!config) {
        return config.status();
    }
    const convert::HfConfig& c = *config;
    auto vocab = convert::importTokenizer(params.modelFolder);
    if (!vocab) {
        return vocab.status();
    }
    auto checkpoint = convert::HfCheckpoint::open(params.modelFolder);
    if (!checkpoint) {
        return checkpoint.status();
    }
    const bool sparse = !params.predictorFolder.empty();
    std::int64_t predictorHidden = 0;
    if (sparse) {
        auto predictors = convert::loadPredictors(params.predictorFolder, c.layerCount, c.hiddenSize,
                                                  c.intermediateSize);
        if (!predictors) {
            return predictors.status();
        }
        for (const convert::PredictorLayer& layer : *predictors) {
            predictorHidden = std::max(predictorHidden, layer.hidden());
        }
    }
    ConversionEstimate e;
    if (!params.activationFolder.empty()) {
        // Reads only the counts (n_ff floats per layer); cheap next to the weights.
        auto counts = convert::loadActivationCounts(params.activationFolder, c.layerCount, c.intermediateSize);
        if (!counts) {
            return counts.status();
        }
        e.statisticsBytes = kHeaderSlack / 16
            + std::uint64_t(c.layerCount) * (std::uint64_t(c.intermediateSize) * sizeof(float) + 128);
    }

    // Every checkpoint tensor is written once (renamed, permuted, transposed or regrouped, never
    // split or merged), matrices in the chosen type and vectors as F32; summing over the
    // checkpoint keeps this right for every architecture the converter knows. A matrix is counted
    // in its larger orientation, since sparse files store the down projection transposed.
    const DType type = toDType(params.type);
    std::uint64_t bytes = 0;
    for (const std::string& name : checkpoint->names()) {
        const convert::CheckpointTensorInfo* info = checkpoint->find(name);
        if (info == nullptr || info->shape.empty()) {
            continue;
        }
        std::int64_t cols = info->shape.back();
        std::int64_t rows = 1;
        for (std::size_t i = 0; i + 1 < info->shape.size(); ++i) {
            rows *= info->shape[i];
        }
        if (info->shape.size() == 1) {
            bytes += std::uint64_t(cols) * sizeof(float) + kPerTensor;
        } else {
            bytes += std::max(matrixBytes(matrixType(type, cols), cols, rows), matrixBytes(matrixType(type, rows), rows, cols));
        }
    }
    if (sparse) {
        const DType predictorType = type == DType::F32 ? DType::F32 : DType::F16;
        const std::int64_t embd = c.hiddenSize;
        const std::int64_t ff = c.intermediateSize;
        bytes += std::uint64_t(c.layerCount)
            * (matrixBytes(predictorType, embd, predictorHidden) + matrixBytes(predictorType, predictorHidden, ff));
    }
    const std::int64_t nVocab = c.vocabSize;
    // The vocabulary is padded to vocab_size with short "[PAD<i>]" tokens.
    for (const std::string& token : vocab->tokens) {
        bytes += token.size() + 16;
    }
    if (vocab->tokens.size() < std::size_t(nVocab)) {
        bytes += (std::size_t(nVocab) - vocab->tokens.size()) * 32;
    }
    for (const std::string& merge : vocab->merges) {
        bytes += merge.size() + 8;
    }
    e.outputBytes = bytes + kHeaderSlack;
    e.architecture = c.ggufArchitecture;
    e.sourceFormat = checkpoint->format();
    e.layerCount = c.layerCount;
    e.sparse = sparse;
    return e;
}

} // namespace

std::string_view weightTypeName(WeightType type)
{
    switch (type) {
    case WeightType::F32: return "F32";
    case WeightType::F16: return "F16";
    case WeightType::Q8_0: return "Q8_0";
    case WeightType::Q4_0: return "Q4_0";
    }
    return "F16";
}

std::optional<WeightType> weightTypeFromName(std::string_view name)
{
    std::string upper(name);
    for (char& ch : upper) {
        ch = char(std::toupper(static_cast<unsigned char>(ch)));
    }
    for (WeightType type : {WeightType::F32, WeightType::F16, WeightType::Q8_0, WeightType::Q4_0}) {
        if (weightTypeName(type) == upper) {
            return type;
        }
    }
    return std::nullopt;
}

std::string statisticsPathFor(const std::string& output)
{
    return convert::statsPathFor(output);
}

std::vector<std::string> convertibleModelTypes()
{
    return convert::convertibleModelTypes();
}

Result<ConversionEstimate> estimateConversion(const ConvertParams& params)
{
    return estimate(params);
}

Result<ConversionReport> convertModel(const ConvertParams& params)
{
    if (params.modelFolder.empty() || params.output.empty()) {
        return Status(ErrorCode::InvalidArgument, "a model folder and an output file are needed");
    }
    if (!params.overwrite) {
        if (exists(params.output)) {
            return refuseExisting(params.output);
        }
        if (!params.activationFolder.empty() && exists(statisticsPathFor(params.output))) {
            return refuseExisting(statisticsPathFor(params.output));
        }
    }
    convert::ConvertOptions options;
    options.modelFolder = params.modelFolder;
    options.predictorFolder = params.predictorFolder;
    options.activationFolder = params.activationFolder;
    options.output = params.output;
    options.type = toDType(params.type);
    options.sparseThreshold = params.sparseThreshold;
    options.progress = params.progress;
    options.verify = params.verify;
    auto converted = convert::convertHfModel(options);
    if (!converted) {
        return converted.status();
    }
    ConversionReport report;
    report.output = converted->output;
    report.statisticsOutput = converted->statsOutput;
    report.bytesWritten = converted->bytesWritten;
    report.tensorCount = converted->tensorCount;
    report.sparse = converted->sparse;
    return report;
}

Result<ConversionEstimate> estimateQuantization(const QuantizeParams& params)
{
    if (params.input.empty()) {
        return Status(ErrorCode::InvalidArgument, "an input file is needed");
    }
    auto opened = gguf::GgufFile::open(params.input);
    if (!opened) {
        return opened.status();
    }
    const gguf::GgufFile& in = **opened;
    const auto architecture = in.getString("general.architecture");
    if (!architecture) {
        return Status(ErrorCode::InvalidFile, "'" + params.input + "' is not a model file (no general.architecture)");
    }
    auto types = convert::planTensorTypes(in, params.preset);
    if (!types) {
        return types.status();
    }
    ConversionEstimate e;
    std::uint64_t bytes = in.dataOffset() + kHeaderSlack;
    bool sparse = false;
    for (std::size_t i = 0; i < in.tensors().size(); ++i) {
        const gguf::TensorInfo& t = in.tensors()[i];
        bytes += matrixBytes((*types)[i], t.rowLength(), t.rows());
        sparse = sparse || t.name.find(".fc1.") != std::string::npos;
    }
    e.outputBytes = bytes;
    e.architecture = *architecture;
    e.sourceFormat = "gguf";
    const std::int64_t layers = in.getInt(e.architecture + ".block_count").value_or(0);
    e.layerCount = layers > 0 && layers < (1 << 20) ? int(layers) : 0;
    e.sparse = sparse;
    return e;
}

Result<ConversionReport> quantizeModel(const QuantizeParams& params)
{
    if (params.input.empty() || params.output.empty()) {
        return Status(ErrorCode::InvalidArgument, "an input and an output file are needed");
    }
    if (!params.overwrite && exists(params.output)) {
        return refuseExisting(params.output);
    }
    convert::QuantizeOptions options;
    options.input = params.input;
    options.output = params.output;
    options.preset = params.preset;
    options.progress = params.progress;
    options.verify = params.verify;
    auto quantized = convert::quantizeModelFile(options);
    if (!quantized) {
        return quantized.status();
    }
    ConversionReport report;
    report.output = params.output;
    report.bytesWritten = quantized->outputBytes;
    report.tensorCount = quantized->convertedTensors + quantized->copiedTensors;
    return report;
}

std::string_view builtinCalibrationText()
{
    return convert::calibrationText();
}

Status checkSparsifiable(const std::string& path)
{
    auto file = gguf::GgufFile::open(path);
    if (!file)
        return file.status();
    return convert::checkSparsifiable(**file, path);
}

Result<SparsifyReport> sparsifyModel(const SparsifyParams& params)
{
    if (!params.overwrite && !params.output.empty()) {
        for (const std::string& path : {params.output, statisticsPathFor(params.output)}) {
            if (exists(path))
                return refuseExisting(path);
        }
    }
    return convert::sparsifyModelFile(params);
}

} // namespace hearth
