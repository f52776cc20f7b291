// SPDX-License-Identifier: MIT
#pragma once

// The per-ISA kernel tables behind quant.h and matmul.h. Each table lives in its own translation
// unit compiled with that ISA's flags; the dispatcher hands one out only after isa.cpp checked
// that the CPU and OS support it. Tests use kernelVariants() to run every path the machine has
// against the scalar reference.

#include "core/dtype.h"
#include "cpu/block_dot.h"
#include "cpu/isa.h"
#include "cpu/matmul.h"

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace hearth::cpu {

class ThreadPool;
struct WeightMatrix;

// One block of an activation row quantized for integer dot products: Q8_0 values (same bytes
// as quantizeRowQ8_0 would give), the scale as a float (rounded through fp16 like a BlockQ8_0)
// and the sum of the values, which turns an unsigned-by-signed dot (maddubs, vpdpbusd) of
// offset weights back into a signed one.
struct ActBlockQ8 {
    float d;
    std::int32_t sum;
    std::int8_t qs[QK8_0];
};
static_assert(sizeof(ActBlockQ8) == 40);

// Y[t * yStride + r] = dot(W row r, X token t) for r in [rowBegin, rowEnd), t < tokens.
// X holds floats for F32/F16 weights and ActBlockQ8 rows for Q4_0/Q8_0 weights; for the block
// types of block_dot.h it holds their activation format, and `dot` is the row dot product.
struct GemmArgs {
    const std::uint8_t* w = nullptr;
    std::size_t wStride = 0; // bytes between weight rows
    std::int64_t cols = 0;
    const void* x = nullptr;
    std::size_t xStride = 0; // bytes between tokens
    std::int64_t tokens = 0;
    float* y = nullptr;
    std::int64_t yStride = 0; // floats between tokens
    BlockDotFn dot = nullptr;
};
using GemmFn = void (*)(const GemmArgs& args, std::int64_t rowBegin, std::int64_t rowEnd);

// What a KV cache row holds: floats, F16 halves (std::uint16_t) or Q8_0 blocks (BlockQ8_0; the
// head size is then a multiple of 32).
enum class KvElement { F32, F16, Q8_0 };

// Calls @p f with a value of the element type @p type names (float, std::uint16_t, BlockQ8_0).
template <typename F>
void withKvElement(KvElement type, F&& f)
{
    switch (type) {
    case KvElement::F32:
        f(float{});
        break;
    case KvElement::F16:
        f(std::uint16_t{});
        break;
    case KvElement::Q8_0:
        f(BlockQ8_0{});
        break;
    }
}

// Causal attention of one head for a batch of consecutive queries (a prompt): query i, at
// position firstPos + i, attends to the keys and values of positions 0 .. firstPos + i. With
// samePosition, the nq queries are of one position, firstPos (the query heads that share a KV
// head, for a decoded token): each key and value row is read once for all of them.
struct AttendHeadArgs {
    const float* q = nullptr;  // nq queries of headDim floats, qStride floats apart
    std::size_t qStride = 0;
    int nq = 0;
    int firstPos = 0;
    const void* k = nullptr;   // the key of position j at k + j * kvStride elements (headDim of them)
    const void* v = nullptr;   // the value likewise
    KvElement kvType = KvElement::F32; // what k and v hold
    std::size_t kvStride = 0;  // in elements (Q8_0: in blocks of 32)
    int headDim = 0;
    float scale = 1.0f;        // applied to q . k before the softmax
    float softCap = 0.0f;      // > 0: the scaled scores become softCap * tanh(score / softCap) (Gemma 2)
    bool samePosition = false; // see above; nq <= headDim + kAttendQueryBlock (the scratch's rows)
    // Attention sinks (gpt-oss): a learned score per head that joins each softmax with no value
    // behind it, so a query may attend to less than all of its keys. With samePosition one per
    // query (its head), else sinks[0] for every query; null: none.
    const float* sinks = nullptr;
    float* out = nullptr;      // nq rows of headDim floats, outStride floats apart
    std::size_t outStride = 0;
    float* scratch = nullptr;  // attendHeadScratchFloats(firstPos + nq, headDim) floats
};

// The sink score of query @p i of @p a, or minus infinity when it has none.
[[nodiscard]] inline float sinkOf(const AttendHeadArgs& a, int i)
{
    return a.sinks ? a.sinks[a.samePosition ? i : 0] : -std::numeric_limits<float>::infinity();
}

// Queries an attendHead kernel scores together, and the scratch it needs for @p keys keys.
constexpr int kAttendQueryBlock = 8;
[[nodiscard]] constexpr std::size_t attendHeadScratchFloats(int keys, int headDim)
{
    const std::size_t padded = (static_cast<std::size_t>(keys) + 15) / 16 * 16;
    return (static_cast<std::size_t>(headDim) + kAttendQueryBlock) * padded;
}

struct CpuKernels {
    const char* name; // "scalar", "avx2", "avx512", "avx512-vnni"
    Isa isa;
    bool needsVnni;

    void (*quantizeRowQ8_0)(const float* x, BlockQ8_0* out, std::int64_t n);
    void (*quantizeRowQ4_0)(const float* x, BlockQ4_0* out, std::int64_t n);
    void (*convertRowF16)(const float* x, std::uint16_t* out, std::int64_t n);
    void (*dequantizeRowF16)(const std::uint16_t* in, float* out, std::int64_t n);
    void (*dequantizeRowQ8_0)(const BlockQ8_0* in, float* out, std::int64_t n);
    void (*dequantizeRowQ4_0)(const BlockQ4_0* in, float* out, std::int64_t n);
    void (*quantizeActivations)(const float* x, ActBlockQ8* out, std::int64_t n);

    GemmFn gemmF32;
    GemmFn gemmF16;
    GemmFn gemmQ4_0;
    GemmFn gemmQ8_0;
    // Q4_0 weights in the Q4_0x16 layout (weight_pack.h), or nullptr when this table has no such
    // kernel. args.w points at the packed matrix, args.wStride is the bytes of one 16-row group,
    // and rowBegin/rowEnd are multiples of 16.
    GemmFn gemmQ4_0x16;
    // Q8_0 weights in the Q8_0x16 layout, likewise.
    GemmFn gemmQ8_0x16;
    // K-quant and IQ4_XS weights in their interleaved layouts (weight_pack.h), likewise; args.x
    // holds ActBlockQ8K rows.
    GemmFn gemmQ4_Kx16;
    GemmFn gemmQ5_Kx16;
    GemmFn gemmQ6_Kx16;
    GemmFn gemmIQ4_XSx16;
    // Decode (one token) of F16 rows whose input went through prepareF16Input first, or
    // nullptr when this table reads F16 rows only through gemmF16. The prepared input lets the
    // kernel widen halves with integer shifts instead of conversion instructions (see
    // x86_kernels_impl.h); results equal gemmF16's up to the order of the sum.
    GemmFn gemmF16Prepared;
    void (*prepareF16Input)(const float* x, float* out, std::int64_t n);

    // Float vector helpers of attention (one head: ~64-128 elements per call, many calls), so
    // the scores and the weighted sum of values use the widest vectors too.
    float (*dotF32)(const float* a, const float* b, std::int64_t n);
    void (*axpyF32)(float* y, float a, const float* x, std::int64_t n);
    // gate[i] = silu(gate[i]) * up[i]: a prompt's SwiGLU runs on one thread over tokens x n_ff.
    void (*swigluF32)(float* gate, const float* up, std::int64_t n);
    // x[i] = silu(x[i]): a magnitude-sparse layer's gate, before it decides which neurons run.
    void (*siluF32)(float* x, std::int64_t n);
    // A prompt's attention, one head at a time: the scores of several queries against a block of
    // keys at once instead of one dot product (and one exp) per query and key.
    void (*attendHead)(const AttendHeadArgs& args);

    // Vector row dot products of block types (block_dot.h), or nullptr where the table has
    // none and the scalar reference serves.
    BlockDotFn dotQ4_K;
    BlockDotFn dotQ5_K;
    BlockDotFn dotQ6_K;
    BlockDotFn dotIQ4_XS;
    BlockDotFn dotIQ4_NL;
    BlockDotFn dotMXFP4;
    BlockDotFn dotBF16;
    BlockDotFn dotQ4_1;
    BlockDotFn dotQ5_0;
    BlockDotFn dotQ5_1;
    BlockDotFn dotQ2_K;
    BlockDotFn dotQ3_K;
    void (*quantizeActivationsQ8K)(const float* x, ActBlockQ8K* out, std::int64_t n);
    // Whole matrix products of these block types (a prompt batch reuses each unpacked row for
    // several tokens), or nullptr where gemmBlockRows serves; args.x holds ActBlockQ8K rows.
    GemmFn gemmQ4_K;
    GemmFn gemmQ5_K;
    GemmFn gemmQ6_K;
    GemmFn gemmIQ4_XS;
    // The 32-weight types beside Q4_0/Q8_0, against ActBlockQ8 rows; nullptr: gemmBlockRows.
    GemmFn gemmQ4_1;
    GemmFn gemmQ5_0;
    GemmFn gemmQ5_1;
    GemmFn gemmQ2_K;
    GemmFn gemmQ3_K;
    // MXFP4 weights in the MXFP4x16 layout (weight_pack.h), as gemmQ4_0x16 takes Q4_0x16.
    GemmFn gemmMXFP4x16;
};

// The kernel @p kernels have for matrices packed as @p packing, or nullptr (also for Rows and
// None, which the type's own kernel reads).
[[nodiscard]] GemmFn packedGemmFor(const CpuKernels& kernels, Packing packing);

// Whether a product of @p tokens tokens over @p w packs its row groups into the type's
// interleaved layout as it uses them (matmul.cpp): a prompt over a matrix without that copy.
[[nodiscard]] bool packsAsUsed(const CpuKernels& kernels, const WeightMatrix& w, std::int64_t tokens);

// The dot product @p kernels use for block type @p type (its own or the reference), or nullptr
// when @p type is no block type.
[[nodiscard]] BlockDotFn blockDotFor(const CpuKernels& kernels, DType type);
// Y = W X for a block type, row by row through args.dot (any table).
void gemmBlockRows(const GemmArgs& args, std::int64_t rowBegin, std::int64_t rowEnd);

// The tables. Only the scalar one may be used without checking the CPU first.
extern const CpuKernels kScalarKernels;
#if defined(__x86_64__) || defined(_M_X64)
extern const CpuKernels kAvx2Kernels;
extern const CpuKernels kAvx512Kernels;
extern const CpuKernels kAvx512VnniKernels;
#endif

// The table for activeIsa() (the best the machine has, lowered by HEARTH_CPU_ISA).
[[nodiscard]] const CpuKernels& activeKernels();
// The best table for @p isa, or nullptr when this CPU/OS cannot run it.
[[nodiscard]] const CpuKernels* kernelsFor(Isa isa);
// Every table this machine can run, scalar first (AVX-512 with and without VNNI when present).
[[nodiscard]] std::vector<const CpuKernels*> kernelVariants();

// The scalar table's attendHead, which the vector tables fall back to for head sizes their
// vectors do not divide.
void attendHeadReference(const AttendHeadArgs& args);

// matmul()/matmulShared()/matmulGrouped() with an explicit kernel table.
void matmulWith(const CpuKernels& kernels, ThreadPool& pool, const WeightMatrix& w, const float* x,
                std::int64_t tokens, float* y);
void matmulSharedWith(const CpuKernels& kernels, ThreadPool& pool, const WeightMatrix* ws, float* const* ys,
                      int count, const float* x, std::int64_t tokens);
void matmulGroupedWith(const CpuKernels& kernels, ThreadPool& pool, std::span<const MatmulTask> tasks);

} // namespace hearth::cpu
