// SPDX-License-Identifier: MIT
#pragma once

// The device operations computed on the host with the CPU kernels: what EmulatedDevice runs, the
// CPU half of the hybrid FFN uses, and hearth-gpu-check compares the CUDA kernels against.
// Every function reads and writes host memory; in the op structs, DeviceBuffer::ptr is a host
// address. Sums run in a fixed order, so results are reproducible bit for bit.

#include "cpu/block_dot.h"
#include "cpu/kernels.h"
#include "cpu/matmul.h"
#include "device/device_ops.h"

#include <cstdint>
#include <vector>

namespace hearth::device {

// The matrix behind a DeviceMatrix whose buffer lies in host memory.
[[nodiscard]] cpu::WeightMatrix hostMatrix(const DeviceMatrix& w);

// Dot products of single weight rows with one input vector, with the arithmetic of the CPU
// matmul: quantized weights multiply the input quantized once to Q8 (K-quants: Q8_K) blocks, as
// cpu::matmul does.
class RowDot {
public:
    RowDot(DType type, std::int64_t cols);
    void setInput(const float* x);
    [[nodiscard]] float dot(const void* row) const;

private:
    const cpu::CpuKernels& m_kernels;
    DType m_type;
    std::int64_t m_cols;
    cpu::GemmFn m_gemm = nullptr;
    cpu::BlockDotFn m_blockDot = nullptr; // the block types besides Q4_0 and Q8_0
    cpu::ActivationFormat m_activations = cpu::ActivationFormat::Floats; // what m_blockDot reads
    const float* m_x = nullptr;
    std::vector<cpu::ActBlockQ8> m_q8;
    std::vector<cpu::ActBlockQ8K> m_q8k;
};

namespace reference {

void matmul(const MatmulOp& op);
void rowsDot(const RowsDotOp& op);
void downAccumulate(const DownAccumulateOp& op);
void activate(const ActivateOp& op);
// Returns the number of active neurons (also stored in op.activeCount).
std::int32_t predictor(const PredictorOp& op);
void rmsNorm(const RmsNormOp& op);
void attention(const AttentionOp& op);
void add(const AddOp& op);
void layerNorm(const LayerNormOp& op);
void biasAdd(const BiasAddOp& op);

// Host-side pieces of the same operations, for callers holding plain pointers. @p up is not read
// for the plain activations (Relu, Gelu).
void activate(Activation kind, float* gate, const float* up, std::int64_t n);
// GELU exactly as model::DenseFfn computes it (tanh approximation as x / (1 + exp(-2u))).
void gelu(float* x, std::int64_t n);
// y (+)= sum_j act[j] * row(index[j]), rows of @p w dequantized one at a time into @p rowScratch.
void downRows(const cpu::WeightMatrix& w, const float* act, const std::int32_t* index, std::int64_t count,
              float* y, float* rowScratch);

} // namespace reference

} // namespace hearth::device
