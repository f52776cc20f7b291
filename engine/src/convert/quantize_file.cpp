// SPDX-License-Identifier: MIT
#include "convert/quantize_file.h"

#include "convert/output_file.h"
#include "cpu/quant.h"
#include "gguf/gguf_file.h"
#include "gguf/gguf_writer.h"

#include <filesystem>
#include <span>

namespace hearth::convert {

namespace {

std::uint32_t fileTypeOf(DType type)
{
    switch (type) {
    case DType::F16: return 1;
    case DType::Q4_0: return 2;
    case DType::Q8_0: return 7;
    default: return 0;
    }
}

bool endsWith(const std::string& s, std::string_view suffix)
{
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The type a tensor gets in the output: @p target when it is a weight matrix Hearth can
// re-encode with whole blocks per row, its own type otherwise.
DType outputType(const gguf::TensorInfo& t, DType target)
{
    if (!isQuantizableWeight(t.name, t.shape) || !isComputeType(t.type)) {
        return t.type;
    }
    const auto traits = dtypeTraits(static_cast<std::uint32_t>(target));
    if (!traits || t.shape[0] % traits->blockElements != 0) {
        return t.type;
    }
    return target;
}

Status quantizeInto(const QuantizeOptions& options, const std::string& partial, QuantizeReport& report)
{
    auto opened = gguf::GgufFile::open(options.input);
    if (!opened) {
        return opened.status();
    }
    const gguf::GgufFile& in = **opened;
    report.inputBytes = in.bytes().size();
    if (!in.getString("general.architecture")) {
        return {ErrorCode::InvalidFile, "'" + options.input + "' is not a model file (no general.architecture)"};
    }

    std::uint64_t needed = in.dataOffset() + (1u << 20);
    std::uint64_t work = 0;
    for (const gguf::TensorInfo& t : in.tensors()) {
        const DType type = outputType(t, options.type);
        needed += rowBytes(type, t.rowLength()) * std::uint64_t(t.rows()) + 64;
        work += t.byteSize + 1;
    }
    HEARTH_TRY(checkFreeSpace(options.output, needed));

    gguf::GgufWriter writer(in.magic(), in.alignment());
    for (const auto& [key, value] : in.metadata()) {
        writer.setValue(key, value);
    }
    writer.setUInt32("general.file_type", fileTypeOf(options.type));
    if (options.type == DType::Q4_0 || options.type == DType::Q8_0) {
        writer.setUInt32("general.quantization_version", 2);
    }
    for (const gguf::TensorInfo& t : in.tensors()) {
        writer.addTensor(t.name, outputType(t, options.type), t.shape);
    }
    HEARTH_TRY(writer.begin(partial));

    std::uint64_t done = 0;
    std::vector<float> row;
    std::vector<std::byte> out;
    for (const gguf::TensorInfo& t : in.tensors()) {
        const DType type = outputType(t, options.type);
        if (type == t.type) {
            HEARTH_TRY(writer.writeTensorData(std::span<const std::byte>(t.data, t.byteSize)));
            ++report.copiedTensors;
        } else {
            const std::int64_t n = t.rowLength();
            const std::size_t inStride = rowBytes(t.type, n);
            const std::size_t outStride = rowBytes(type, n);
            row.resize(std::size_t(n));
            out.resize(outStride * std::size_t(t.rows()));
            for (std::int64_t r = 0; r < t.rows(); ++r) {
                cpu::dequantizeRow(t.type, t.data + std::size_t(r) * inStride, row.data(), n);
                cpu::quantizeRow(type, row.data(), out.data() + std::size_t(r) * outStride, n);
            }
            HEARTH_TRY(writer.writeTensorData(out));
            ++report.convertedTensors;
        }
        done += t.byteSize + 1;
        if (options.progress && !options.progress(0.9f * float(double(done) / double(work ? work : 1)))) {
            return {ErrorCode::Cancelled, "quantization was cancelled"};
        }
    }
    HEARTH_TRY(writer.finish());
    opened->reset(); // unmap the input before the result is loaded

    if (options.verify) {
        // Loading is the last tenth of the progress bar.
        const ProgressCallback loading = [&options](float f) {
            return !options.progress || options.progress(0.9f + 0.099f * f);
        };
        HEARTH_TRY(verifyModelFile(partial, loading));
    }
    if (options.progress && !options.progress(1.0f)) {
        return {ErrorCode::Cancelled, "quantization was cancelled"};
    }
    HEARTH_TRY(commitFile(partial, options.output));
    std::error_code ec;
    report.outputBytes = std::filesystem::file_size(options.output, ec);
    return {};
}

} // namespace

bool isQuantizableWeight(const std::string& name, const std::vector<std::int64_t>& shape)
{
    std::size_t dims = shape.size();
    while (dims > 1 && shape[dims - 1] == 1) {
        --dims;
    }
    if (dims != 2 || !endsWith(name, ".weight")) {
        return false;
    }
    if (name.find("norm") != std::string::npos) {
        return false;
    }
    // PowerInfer's predictors stay in their type (F16): its kernels expect that.
    return !endsWith(name, ".fc1.weight") && !endsWith(name, ".fc2.weight");
}

Result<QuantizeReport> quantizeModelFile(const QuantizeOptions& options)
{
    if (options.input.empty() || options.output.empty()) {
        return Status(ErrorCode::InvalidArgument, "an input and an output file are needed");
    }
    if (!isComputeType(options.type)) {
        return Status(ErrorCode::InvalidArgument, "the output type must be f32, f16, q8_0 or q4_0");
    }
    std::error_code ec;
    if (std::filesystem::equivalent(options.input, options.output, ec)) {
        return Status(ErrorCode::InvalidArgument, "the output must not be the input file");
    }
    const std::string partial = partialPath(options.output);
    QuantizeReport report;
    Status status = quantizeInto(options, partial, report);
    if (!status.ok()) {
        discardFile(partial);
        return status;
    }
    return report;
}

} // namespace hearth::convert
