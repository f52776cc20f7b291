// SPDX-License-Identifier: MIT
#include "convert/quantize_file.h"

#include "convert/output_file.h"
#include "convert/quantize_preset.h"
#include "cpu/quant.h"
#include "gguf/gguf_file.h"
#include "gguf/gguf_writer.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <system_error>
#include <thread>
#include <vector>
#include <span>

namespace hearth::convert {

namespace {

bool isNeuronTensor(const std::string& name)
{
    for (const char* suffix : {".ffn_gate.weight", ".ffn_up.weight", ".ffn_down_t.weight", ".ffn_neurons.weight"}) {
        if (name.ends_with(suffix))
            return true;
    }
    return false;
}

// A sparse file's neuron kernels read a layer's gate, up and neuron-major down rows (or its
// fused ffn_neurons rows) as one type (sparse/neuron_kernels.h), so where the preset mixes
// types within a layer's FFN (Q4_K_M's Q6_K down rows) all of them take the type it gives the
// up rows; that type must be one the kernels read.
Status unifySparseFfnTypes(const gguf::GgufFile& in, std::vector<DType>& types, QuantizationPreset preset)
{
    const auto& tensors = in.tensors();
    const bool sparse = in.find("hearth.sparse.layout") || std::any_of(tensors.begin(), tensors.end(), [](const gguf::TensorInfo& t) {
                            return t.name.find(".fc1.") != std::string::npos || t.name.ends_with(".ffn_down_t.weight");
                        });
    if (!sparse)
        return {};
    std::map<int, DType> upType; // by layer
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        if (tensors[i].name.ends_with(".ffn_up.weight") || tensors[i].name.ends_with(".ffn_neurons.weight"))
            upType[tensorLayer(tensors[i].name)] = types[i];
    }
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        if (!isNeuronTensor(tensors[i].name))
            continue;
        const auto layer = upType.find(tensorLayer(tensors[i].name));
        if (layer == upType.end())
            continue;
        if (!isComputeType(layer->second))
            return {ErrorCode::Unsupported, "a sparse model's FFN cannot be stored as " + std::string(dtypeName(layer->second))
                                                + " (" + std::string(presetName(preset)) + ", tensor " + tensors[i].name
                                                + "); choose Q4_K_M, Q5_K_M, Q6_K, Q4_0, Q8_0 or F16 for sparse models"};
        types[i] = layer->second;
    }
    return {};
}

// The rows of @p t in @p type into @p out, on all cores: rows are independent, so the bytes do
// not depend on how they are shared out (K-quant scale searches make this the slow part).
void reencodeRows(const gguf::TensorInfo& t, DType type, std::byte* out)
{
    const std::int64_t n = t.rowLength();
    const std::size_t inStride = rowBytes(t.type, n);
    const std::size_t outStride = rowBytes(type, n);
    auto work = [&](std::int64_t begin, std::int64_t end) {
        std::vector<float> row(static_cast<std::size_t>(n));
        for (std::int64_t r = begin; r < end; ++r) {
            const std::byte* source = t.data + std::size_t(r) * inStride;
            std::byte* target = out + std::size_t(r) * outStride;
            if (t.type == DType::F32) {
                cpu::quantizeRow(type, reinterpret_cast<const float*>(source), target, n);
            } else {
                cpu::dequantizeRow(t.type, source, row.data(), n);
                cpu::quantizeRow(type, row.data(), target, n);
            }
        }
    };
    const std::int64_t rows = t.rows();
    const auto threads = std::int64_t(std::clamp(std::thread::hardware_concurrency(), 1u, 16u));
    if (threads == 1 || rows < 2 * threads) {
        work(0, rows);
        return;
    }
    std::vector<std::thread> helpers;
    const std::int64_t share = (rows + threads - 1) / threads;
    for (std::int64_t begin = share; begin < rows; begin += share) {
        try {
            helpers.emplace_back(work, begin, std::min(rows, begin + share));
        } catch (const std::system_error&) {
            work(begin, std::min(rows, begin + share)); // no thread to be had: this one does it
        }
    }
    work(0, std::min(rows, share));
    for (std::thread& h : helpers) {
        h.join();
    }
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

    auto planned = planTensorTypes(in, options.preset);
    if (!planned) {
        return planned.status();
    }
    std::vector<DType>& types = *planned;
    HEARTH_TRY(unifySparseFfnTypes(in, types, options.preset));
    const auto& tensors = in.tensors();
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        if (types[i] != tensors[i].type && !isCpuWeightType(tensors[i].type)) {
            return {ErrorCode::Unsupported, "tensor " + tensors[i].name + " has type " + std::string(dtypeName(tensors[i].type))
                                                + ", which Hearth cannot read to re-encode"};
        }
    }

    std::uint64_t needed = in.dataOffset() + (1u << 20);
    std::uint64_t work = 0;
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        needed += rowBytes(types[i], tensors[i].rowLength()) * std::uint64_t(tensors[i].rows()) + 64;
        work += tensors[i].byteSize + 1;
    }
    HEARTH_TRY(checkFreeSpace(options.output, needed));

    // As llama-quantize writes it: the metadata in the input's order without the keys of split
    // files, then the quantization version and the file type; tensors by layer, then name.
    gguf::GgufWriter writer(in.magic(), in.alignment());
    for (const std::string& key : in.metadataKeys()) {
        if (key == "general.quantization_version" || key == "general.file_type" || key.rfind("split.", 0) == 0) {
            continue;
        }
        writer.setValue(key, *in.find(key));
    }
    writer.setUInt32("general.quantization_version", 2);
    writer.setUInt32("general.file_type", presetInfo(options.preset).fileType);
    const std::vector<std::size_t> order = llamaTensorOrder(in);
    for (std::size_t i : order) {
        writer.addTensor(tensors[i].name, types[i], tensors[i].shape);
    }
    HEARTH_TRY(writer.begin(partial));

    std::uint64_t done = 0;
    std::vector<std::byte> out;
    for (std::size_t i : order) {
        const gguf::TensorInfo& t = tensors[i];
        const DType type = types[i];
        if (type == t.type) {
            HEARTH_TRY(writer.writeTensorData(std::span<const std::byte>(t.data, t.byteSize)));
            ++report.copiedTensors;
        } else {
            out.resize(rowBytes(type, t.rowLength()) * std::size_t(t.rows()));
            reencodeRows(t, type, out.data());
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

Result<QuantizeReport> quantizeModelFile(const QuantizeOptions& options)
{
    if (options.input.empty() || options.output.empty()) {
        return Status(ErrorCode::InvalidArgument, "an input and an output file are needed");
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
