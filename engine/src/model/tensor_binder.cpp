// SPDX-License-Identifier: MIT
#include "model/tensor_binder.h"

#include "cpu/quant.h"
#include "gguf/gguf_file.h"

#include <cstdint>

namespace hearth::model {

namespace {

std::string shapeString(const std::vector<std::int64_t>& shape)
{
    std::string s = "[";
    for (std::size_t i = 0; i < shape.size(); ++i)
        s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

} // namespace

TensorBinder::TensorBinder(const gguf::GgufFile& file, const ProgressCallback& progress, std::size_t expected)
    : m_file(file)
    , m_progress(progress)
    , m_expected(expected ? expected : 1)
{
}

bool TensorBinder::has(const std::string& name) const
{
    return m_file.findTensor(name) != nullptr;
}

Status TensorBinder::matrix(const std::string& name, std::int64_t cols, std::int64_t rows, cpu::WeightMatrix& out)
{
    const gguf::TensorInfo* t = nullptr;
    HEARTH_TRY(find(name, {cols, rows}, t));
    out = {t->type, t->data, rows, cols};
    return tick(*t);
}

Status TensorBinder::stackedMatrices(const std::string& name, std::int64_t cols, std::int64_t rows, std::int64_t count,
                                     cpu::WeightMatrix& out)
{
    const gguf::TensorInfo* t = nullptr;
    HEARTH_TRY(find(name, {cols, rows, count}, t));
    out = {t->type, t->data, rows * count, cols};
    return tick(*t);
}

Status TensorBinder::vector(const std::string& name, std::int64_t n, const float*& out,
                            std::vector<std::vector<float>>& converted)
{
    const gguf::TensorInfo* t = nullptr;
    HEARTH_TRY(find(name, {n}, t));
    if (t->type == DType::F32) {
        out = reinterpret_cast<const float*>(t->data);
    } else {
        auto& v = converted.emplace_back(std::size_t(n));
        cpu::dequantizeRow(t->type, t->data, v.data(), n);
        out = v.data();
    }
    return tick(*t);
}

Status TensorBinder::stackedVectors(const std::string& name, std::int64_t n, std::int64_t count, const float*& out,
                                    std::vector<std::vector<float>>& converted)
{
    const gguf::TensorInfo* t = nullptr;
    HEARTH_TRY(find(name, {n, count}, t));
    if (t->type == DType::F32) {
        out = reinterpret_cast<const float*>(t->data);
    } else {
        auto& v = converted.emplace_back(std::size_t(n * count));
        for (std::int64_t i = 0; i < count; ++i)
            cpu::dequantizeRow(t->type, reinterpret_cast<const std::uint8_t*>(t->data) + rowBytes(t->type, n) * std::size_t(i),
                               v.data() + i * n, n);
        out = v.data();
    }
    return tick(*t);
}

Status TensorBinder::predictor(const std::string& prefix, std::int64_t nEmbd, std::int64_t nFf,
                               sparse::PredictorWeights& out)
{
    if (!has(prefix + "fc1.weight") && !has(prefix + "fc2.weight"))
        return {};
    // The hidden size comes from fc1 and may differ per layer.
    const gguf::TensorInfo* fc1 = m_file.findTensor(prefix + "fc1.weight");
    const std::int64_t hidden = fc1 && fc1->shape.size() >= 2 ? fc1->shape[1] : 0;
    if (hidden <= 0 || hidden > (1 << 20))
        return {ErrorCode::InvalidFile, "tensor " + prefix + "fc1.weight has an implausible shape"};
    const std::string activation = m_file.getString(sparse::kPredictorActivationKey).value_or("relu");
    if (activation != "relu" && activation != "identity")
        return {ErrorCode::InvalidFile, std::string(sparse::kPredictorActivationKey) + " is \"" + activation
                                            + "\"; Hearth knows \"relu\" and \"identity\""};
    out.relu = activation == "relu";
    const std::string input = m_file.getString(sparse::kPredictorInputKey).value_or("residual");
    if (input != "residual" && input != "ffn_input")
        return {ErrorCode::InvalidFile, std::string(sparse::kPredictorInputKey) + " is \"" + input
                                            + "\"; Hearth knows \"residual\" and \"ffn_input\""};
    out.readsFfnInput = input == "ffn_input";
    HEARTH_TRY(matrix(prefix + "fc1.weight", nEmbd, hidden, out.fc1));
    HEARTH_TRY(matrix(prefix + "fc2.weight", hidden, nFf, out.fc2));
    if (!has(prefix + "fc2.bias"))
        return {};
    // Written by Hearth alone, in F32: read in place.
    const gguf::TensorInfo* bias = nullptr;
    HEARTH_TRY(find(prefix + "fc2.bias", {nFf}, bias));
    if (bias->type != DType::F32)
        return {ErrorCode::InvalidFile, "tensor " + prefix + "fc2.bias is not F32"};
    out.bias = reinterpret_cast<const float*>(bias->data);
    return tick(*bias);
}

DType TensorBinder::dominantType() const
{
    DType dominant = DType::F32;
    std::uint64_t most = 0;
    for (const auto& [type, bytes] : m_bytesPerType) {
        if (bytes > most) {
            most = bytes;
            dominant = type;
        }
    }
    return dominant;
}

Status TensorBinder::find(const std::string& name, const std::vector<std::int64_t>& shape,
                          const gguf::TensorInfo*& out) const
{
    const gguf::TensorInfo* t = m_file.findTensor(name);
    if (!t)
        return {ErrorCode::InvalidFile, "tensor " + name + " is missing"};
    // Some writers pad shapes with trailing 1s; ignore those.
    std::vector<std::int64_t> actual = t->shape;
    while (actual.size() > shape.size() && actual.back() == 1)
        actual.pop_back();
    if (actual != shape)
        return {ErrorCode::InvalidFile,
                "tensor " + name + " has shape " + shapeString(t->shape) + ", expected " + shapeString(shape)};
    if (!isCpuWeightType(t->type))
        return {ErrorCode::Unsupported,
                "tensor " + name + " has type " + std::string(dtypeName(t->type)) + ", which Hearth cannot compute with"};
    const auto traits = dtypeTraits(std::uint32_t(t->type));
    if (!traits || shape[0] % traits->blockElements != 0)
        return {ErrorCode::InvalidFile, "tensor " + name + " has rows that are not whole blocks"};
    const std::uint64_t needed = rowBytes(t->type, shape[0]) * std::uint64_t(t->rows());
    if (!t->data || t->byteSize < needed)
        return {ErrorCode::InvalidFile, "tensor " + name + " (" + std::string(dtypeName(t->type)) + ") is truncated: "
                                            + std::to_string(t->data ? t->byteSize : 0) + " of " + std::to_string(needed)
                                            + " bytes"};
    out = t;
    return {};
}

Status TensorBinder::tick(const gguf::TensorInfo& t)
{
    m_bytesPerType[t.type] += t.byteSize;
    m_parameters += std::uint64_t(t.elementCount());
    ++m_done;
    if (m_progress && !m_progress(float(m_done) / float(m_expected)))
        return {ErrorCode::Cancelled, "loading was cancelled"};
    return {};
}

} // namespace hearth::model
