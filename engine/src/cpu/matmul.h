// SPDX-License-Identifier: MIT
#pragma once

// Products of a weight matrix with activations: the forward pass spends nearly all its time here.

#include "core/dtype.h"

#include <cstddef>
#include <cstdint>
#include <span>

namespace hearth::cpu {

class ThreadPool;

// Optional second copy of a matrix's rows in a kernel-friendly layout (see weight_pack.h).
enum class Packing : std::uint8_t {
    None,
    Q4_0x16, // Q4_0, 16 rows interleaved per block column
    Q8_0x16, // Q8_0, likewise
    Q4_Kx16, // Q4_K, 16 rows interleaved per super-block column, scales unpacked
    Q5_Kx16, // Q5_K, likewise
    Q6_Kx16, // Q6_K, likewise
    IQ4_XSx16, // IQ4_XS, likewise
    MXFP4x16, // MXFP4, as Q4_0x16 with exponent bytes for scales
    Rows,    // the rows as stored, copied into huge-page memory (F16, F32: see weight_pack.h)
};

// A row-major weight matrix as stored in a GGUF tensor of shape [cols, rows]: row r holds the
// `cols` input weights of output r, and rows are rowStrideOf() apart (rowBytes(type, cols) unless
// a view says otherwise).
struct WeightMatrix {
    DType type = DType::F32;
    const void* data = nullptr;
    std::int64_t rows = 0; // outputs
    std::int64_t cols = 0; // inputs
    // Set by PackedWeightStore: rows [0, packedRows) also exist at `packed` in layout `packing`.
    // `data` stays valid and is what getRow() and the other kernels read. A view of other rows
    // (a changed `data` or `rows`) must reset `packing` to None: the packed copy is of these.
    const void* packed = nullptr;
    Packing packing = Packing::None;
    std::int64_t packedRows = 0;
    // F16 only, set by PackedWeightStore: no weight is infinite or NaN, so decoding may widen
    // the halves with integer shifts (cpu/f16_widen.h), which reads those as finite values.
    bool finiteHalves = false;
    // Bytes from one row to the next; 0: rowBytes(type, cols). Only views made for matmul() and
    // the down projection set it (the gate rows of a fused neuron tensor, say); such a view is
    // never packed.
    std::size_t rowStride = 0;
};

// The bytes from one row of @p w to the next.
[[nodiscard]] inline std::size_t rowStrideOf(const WeightMatrix& w)
{
    return w.rowStride ? w.rowStride : rowBytes(w.type, w.cols);
}

// Rows [begin, end) of @p w as a matrix of their own, its packed copy kept where @p begin starts
// a packed group (a magnitude-sparse layer's cold neurons after the hot ones on a device).
[[nodiscard]] WeightMatrix rowsView(const WeightMatrix& w, std::int64_t begin, std::int64_t end);

// Y[t][r] = sum_c W[r][c] * X[t][c] for t < tokens.
// X is tokens x cols floats (row stride cols), Y is tokens x rows floats (row stride rows).
// tokens == 1 is decode (memory-bound: stream W once); tokens > 1 reuses each loaded weight
// block across many tokens (compute-bound). Work is split over the pool's threads by rows.
void matmul(ThreadPool& pool, const WeightMatrix& w, const float* x, std::int64_t tokens, float* y);

// Same, with several matrices that share the input (Q/K/V, gate/up): the input is quantized
// once and all outputs are computed in one parallel section.
void matmulShared(ThreadPool& pool, const WeightMatrix* ws, float* const* ys, int count, const float* x,
                  std::int64_t tokens);

// One product of a grouped call: y = w . x for @p tokens rows of x (strides as for matmul).
struct MatmulTask {
    const WeightMatrix* w = nullptr;
    const float* x = nullptr;
    std::int64_t tokens = 0;
    float* y = nullptr;
};

// Several products, each with its own input, in one parallel section: the experts of a
// mixture-of-experts layer, each over the tokens routed to it, cost one hand-off between the
// threads instead of one per matrix. Tasks with the same input convert it once.
void matmulGrouped(ThreadPool& pool, std::span<const MatmulTask> tasks);

// Row r of @p w into @p out (embedding lookup).
void getRow(const WeightMatrix& w, std::int64_t r, float* out);

} // namespace hearth::cpu
