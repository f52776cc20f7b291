// SPDX-License-Identifier: MIT
#pragma once

// Per-neuron kernels of the sparse FFN: the dot products of one neuron's gate and up rows with
// the token, and the scaled add of its down row into an output. Unlike a matmul they work on
// one row (or one pair of rows) at a time, because the neurons a token needs are scattered.
// Each ISA gets its own translation unit (flags as in cpu/); neuronKernels() picks the table
// for cpu::activeIsa().

#include "core/dtype.h"
#include "cpu/block_dot.h"
#include "cpu/isa.h"
#include "cpu/kernels.h"

#include <cstddef>
#include <cstdint>

namespace hearth::sparse {

// Entry points for one weight type. `x` is the token in neuronInputFormat(type): floats (F32,
// F16 weights), cpu::ActBlockQ8 blocks (Q4_0, Q8_0) or cpu::ActBlockQ8K blocks (Q4_K, Q5_K,
// Q6_K, whose dot products are the CPU tables' own); `n` is the row length in elements.
struct RowKernels {
    // out[0] = dot(a, x), out[1] = dot(b, x): two rows in one pass keep two chains in flight.
    void (*dot2)(const void* a, const void* b, const void* x, std::int64_t n, float* out);
    float (*dot1)(const void* a, const void* x, std::int64_t n);
    // y[i] += s * row[i].
    void (*axpy)(float* y, float s, const void* row, std::int64_t n);
    // dot2 for rows in the interleaved Q4_0 layout of neuron_pack.h with a matching packed
    // activation; null where the table has no such kernel.
    void (*dot2Interleaved)(const void* a, const void* b, const void* x, std::int64_t n, float* out);
    // A prompt's down projection, a tile at a time: for tokens t < @p tokens (at most
    // kAxpyTileTokens),
    // y[t * yStride + c] += sum over i < count of a[t * aStride + i] * row_i[c] for c < n, where
    // row_i = rows + i * rowStride and n is a multiple of 32. The tile's outputs stay in registers
    // while the rows go past, which a per-row axpy cannot do. Null for the K-quants: a prompt
    // decodes their rows once into floats and tiles those (DownProjection).
    void (*axpyTile)(float* y, std::int64_t yStride, const float* a, std::int64_t aStride, int tokens,
                     const std::uint8_t* rows, std::size_t rowStride, std::int64_t count, std::int64_t n);
    // y[i] += sum over k < count of s[k] * rows[k][i]: the scattered rows one token keeps. Where
    // the table can, each slice of y stays in registers while up to kAxpyRowsGroup rows go past:
    // reloaded once per row or pair, y's loads and stores, not the rows, set the pace.
    void (*axpyRows)(float* y, const float* s, const void* const* rows, int count, std::int64_t n);
    // axpyRows through integer products, for decoded tokens over quantized rows (input-major
    // projections), n a multiple of 256: in each group of up to kAxpyRowsGroup rows and each run
    // of 32 outputs under one scale, the factors s[k] x the run's scale are rounded to signed
    // bytes against the largest of them (as Q8_0 rounds a dense product's activations) and the
    // rows' levels are summed as integers, four rows to a vpdpbusd, before one multiply-add per
    // output, where the float axpyRows converts and multiplies every weight. Null where the table
    // or type has none (axpyRows then).
    void (*axpyRowsInt8)(float* y, const float* s, const void* const* rows, int count, std::int64_t n);
};

// Rows one axpyRows pass adds while a slice of the output stays in registers; axpyRowsInt8
// rounds the factors of each such group together and adds up to kAxpyRowsInt8Pass rows in one
// pass (on the 7B-shape input-sparse files 16 rows decoded 5-15 % faster than 8 or 32).
inline constexpr int kAxpyRowsGroup = 8;
inline constexpr int kAxpyRowsInt8Pass = 16;

// Tokens of one axpyTile call.
inline constexpr int kAxpyTileTokens = 8;

// One token of a prompt's down projection whose activations are mostly zero: for c < n (a
// multiple of 32),
//   y[c] += sum over k < count of a[ids[k]] * rows[(ids[k] - firstRow) * rowStride + c],
// float rows; the outputs stay in registers while the token's rows go past. A tile of eight
// tokens reads every row any of them needs for all eight; this reads only each token's own.
using AxpyActiveRowsFn = void (*)(float* y, const float* a, const std::uint16_t* ids, std::int64_t count,
                                  std::int64_t firstRow, const float* rows, std::size_t rowStride, std::int64_t n);

// A prompt's product over neuron-major rows through integer dot products (DownProjection):
// rows decoded to floats are requantized, 16 outputs at a time, along the rows, which every
// token's activations, quantized the same way, then multiply as the dense products'
// interleaved tiles do. The columns are 8-bit: Q8_0 against cpu::ActBlockQ8, per group of 16
// outputs and block of 32 rows kColumnBlockBytes bytes:
//   [ 16 x float scale (output r: max over the block's rows of |value| / 127) |
//     8 x 64 bytes: register k, int32 lane r, byte i = round(value of row 4k + i, output r / scale) ]
// They round the weights about as much as Q8_0 activations round a token and run at the dense
// products' rate.
// Requantizing costs about what five tokens cost through float tiles; a prompt of
// kColumnTokens or more gains it back.
struct ColumnKernels {
    // Outputs [0, 16) of @p count rows (a multiple of 32) of floats @p stride floats apart, to
    // count / 32 blocks at @p out.
    void (*pack)(const float* rows, std::size_t stride, std::int64_t count, std::uint8_t* out);
    // y[t * yStride + r] += sum over blocks b < @p blocks of the packed block b against
    // x[b * blockStride + t] (the tokens' blocks side by side), for outputs r < 16 and tokens
    // t < @p tokens.
    void (*gemm)(float* y, std::int64_t yStride, const cpu::ActBlockQ8* x, std::size_t blockStride, int tokens,
                 const std::uint8_t* packed, std::int64_t blocks);
};

inline constexpr std::size_t kColumnBlockBytes = 16 * sizeof(float) + 16 * 32;
inline constexpr int kColumnOutputs = 16;
inline constexpr int kColumnTokens = 16;

struct NeuronKernels {
    const char* name;
    AxpyActiveRowsFn axpyActiveRows;
    ColumnKernels columns;
    RowKernels f32;
    RowKernels f16;
    RowKernels q4_0;
    RowKernels q8_0;
    RowKernels q4_K;
    RowKernels q5_K;
    RowKernels q6_K;

    // The kernels of a compute type (core/dtype.h), or nullptr for any other.
    [[nodiscard]] const RowKernels* forType(DType type) const
    {
        switch (type) {
        case DType::F32: return &f32;
        case DType::F16: return &f16;
        case DType::Q4_0: return &q4_0;
        case DType::Q8_0: return &q8_0;
        case DType::Q4_K: return &q4_K;
        case DType::Q5_K: return &q5_K;
        case DType::Q6_K: return &q6_K;
        default: return nullptr;
        }
    }
};

extern const NeuronKernels kScalarNeuronKernels;
#if defined(__x86_64__) || defined(_M_X64)
extern const NeuronKernels kAvx2NeuronKernels;
extern const NeuronKernels kAvx512NeuronKernels;
extern const NeuronKernels kAvx512VnniNeuronKernels;
#endif

// The table for cpu::activeIsa() (AVX-512 with VNNI when the CPU has it).
[[nodiscard]] const NeuronKernels& neuronKernels();
// The table for @p isa (AVX-512 with VNNI when present), or nullptr when this machine cannot run it.
[[nodiscard]] const NeuronKernels* neuronKernelsFor(cpu::Isa isa);

// What the kernels of @p type take as the token (see RowKernels).
[[nodiscard]] constexpr cpu::ActivationFormat neuronInputFormat(DType type)
{
    switch (type) {
    case DType::Q4_0:
    case DType::Q8_0:
        return cpu::ActivationFormat::Q8;
    case DType::Q4_K:
    case DType::Q5_K:
    case DType::Q6_K:
        return cpu::ActivationFormat::Q8K;
    default:
        return cpu::ActivationFormat::Floats;
    }
}

} // namespace hearth::sparse
