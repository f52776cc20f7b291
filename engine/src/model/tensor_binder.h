// SPDX-License-Identifier: MIT
#pragma once

// Finds a model's tensors by name, checks shape and type, and counts what it has bound for
// load progress and the model's statistics. Shared by the falcon and opt loaders.

#include "core/dtype.h"
#include "cpu/matmul.h"
#include "sparse/predictor.h"

#include <hearth/model.h>
#include <hearth/status.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace hearth::gguf {
class GgufFile;
struct TensorInfo;
}

namespace hearth::model {

class TensorBinder {
public:
    // @p expected: the number of tensors that will be bound (for progress).
    TensorBinder(const gguf::GgufFile& file, const ProgressCallback& progress, std::size_t expected);

    [[nodiscard]] bool has(const std::string& name) const;

    // A matrix of ggml shape [cols, rows] (rows outputs of cols inputs).
    Status matrix(const std::string& name, std::int64_t cols, std::int64_t rows, cpu::WeightMatrix& out);
    // @p count matrices of [cols, rows] stacked in one tensor of ggml shape [cols, rows, count]
    // (a mixture's experts), bound as one matrix of count * rows rows.
    Status stackedMatrices(const std::string& name, std::int64_t cols, std::int64_t rows, std::int64_t count,
                           cpu::WeightMatrix& out);
    // A 1-D vector (norm weights, biases), as float: F32 data is used in place, anything else
    // is converted once into storage the binder's owner keeps (@p converted).
    Status vector(const std::string& name, std::int64_t n, const float*& out,
                  std::vector<std::vector<float>>& converted);
    // @p count vectors of @p n stacked in one tensor of ggml shape [n, count] (a mixture's
    // expert biases), as one array of count * n floats, converted as vector() does.
    Status stackedVectors(const std::string& name, std::int64_t n, std::int64_t count, const float*& out,
                          std::vector<std::vector<float>>& converted);

    // The activation predictor of the layer whose tensors start with @p prefix ("blk.N."):
    // fc1 [nEmbd, hidden] and fc2 [hidden, nFf], hidden read from fc1, and the form the file
    // declares (sparse::kPredictorActivationKey), fc2.bias (F32 [nFf]) when there is one, and
    // the input the file names (sparse::kPredictorInputKey); @p out stays empty when the layer
    // has neither matrix.
    Status predictor(const std::string& prefix, std::int64_t nEmbd, std::int64_t nFf, sparse::PredictorWeights& out);

    [[nodiscard]] DType dominantType() const;
    [[nodiscard]] std::uint64_t parameters() const { return m_parameters; }

private:
    Status find(const std::string& name, const std::vector<std::int64_t>& shape, const gguf::TensorInfo*& out) const;
    Status tick(const gguf::TensorInfo& t);

    const gguf::GgufFile& m_file;
    const ProgressCallback& m_progress;
    std::size_t m_expected;
    std::size_t m_done = 0;
    std::map<DType, std::uint64_t> m_bytesPerType;
    std::uint64_t m_parameters = 0;
};

} // namespace hearth::model
