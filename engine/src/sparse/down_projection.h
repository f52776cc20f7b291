// SPDX-License-Identifier: MIT
#pragma once

// A prompt's down projection over neuron-major rows (PowerInfer's ffn_down_t, magnitude-sparse
// files): out[t] = sum over neurons i of acts[t][i] * down_i, where down_i is row i of a matrix
// of nFf rows of nEmbd.
//
//   auto down = sparse::DownProjection::create(threads, nEmbd, maxTokens, nFf);
//   (*down)->run(pool, layer.downT, hidden, tokens, out);
//
// Prompts (kAxpyTileTokens tokens or more): the threads take ranges of 256 outputs, so every
// row is read once in all and nothing is summed across threads. A sparse prompt (a predictor's
// masks, few activations non-zero: at most 30 %, or 10 % where the integer products below
// apply) lists each token's non-zero rows once and adds only those, a token at a time
// (NeuronKernels::axpyActiveRows): at 90 % sparsity a tile of eight tokens still touches over
// half the rows; only the rows some token lists are decoded. Otherwise quantized rows and
// prompts of kColumnTokens or more go through integer products, as the dense products do: the
// activations quantized once, each range's rows decoded 32 at a time and requantized along the
// rows to 8 bits, 16 outputs together (ColumnKernels), blocks of 1024 rows then passed by tiles
// of eight tokens. The columns round the weights about as much as Q8_0 activations round a
// token (0.5 % of an output) and run at four times the float tiles' rate. The rest (float weights,
// short prompts) pass blocks of 512 rows while tiles of eight tokens' outputs stay in registers
// (RowKernels::axpyTile); rows that are zero for every token of a tile are skipped. Fewer
// tokens (a decoded one): the threads take ranges of rows and add the rows some token needs
// whole, in groups of eight (neighbours or not, the next group's starts prefetched;
// RowKernels::axpyRows), or of sixteen through integer products where the table has them
// (RowKernels::axpyRowsInt8: Q4_K), into their own sums, added up in thread order; reading a
// row in slices of 256 outputs, one range at a time, streamed at two thirds of the speed. Rows no token needs are not read: input sparsity (input_sparsity.h)
// rests on that. Either way the result depends on the thread count only. Rows without a tile kernel
// (K-quants), without neuron kernels at all (BF16, ...) or added from the lists (all but F32)
// are decoded a block at a time into a per-thread scratch and go through the float kernels.
// Nothing is allocated after create().

#include "cpu/kernels.h"
#include "cpu/matmul.h"
#include "sparse/neuron_kernels.h"

#include <hearth/status.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace hearth::cpu {
class ThreadPool;
}

namespace hearth::sparse {

class DownProjection {
public:
    // Scratch for up to @p threads threads, outputs of up to @p columns and, for sparse prompts
    // and integer products, @p maxTokens tokens of up to @p maxRows neurons (0: neither).
    static Result<std::unique_ptr<DownProjection>> create(int threads, std::int64_t columns, int maxTokens = 0,
                                                          std::int64_t maxRows = 0);

    // out (tokens x downT.cols) = acts (tokens x downT.rows) x downT. The pool may not have more
    // threads than create() was given; downT.cols must be a multiple of the type's block.
    void run(cpu::ThreadPool& pool, const cpu::WeightMatrix& downT, const float* acts, int tokens, float* out);

    // Kernel table override for tests (null: the active ISA's).
    void setKernels(const NeuronKernels* kernels) { m_kernels = kernels ? kernels : &neuronKernels(); }

private:
    DownProjection() = default;

    // A few tokens: rows split over the threads.
    void runByRows(cpu::ThreadPool& pool);
    // Lists each token's non-zero activations in m_active; false when there are too many.
    bool listActiveRows(cpu::ThreadPool& pool);
    // A longer prompt: integer products over the rows requantized by columns (ColumnKernels).
    [[nodiscard]] bool takesColumns(const cpu::WeightMatrix& w, int tokens) const;
    void runByColumns(cpu::ThreadPool& pool);
    // Bytes of one thread's requantized block of rows.
    static std::size_t packedBytes();

    const NeuronKernels* m_kernels = &neuronKernels();
    int m_threads = 0;
    std::int64_t m_columns = 0;
    std::vector<float> m_scratch; // per thread: a block of decoded row slices, or a group of decoded rows
    std::vector<float> m_partial; // per thread: kAxpyTileTokens - 1 tokens' sums (runByRows)
    int m_maxTokens = 0;
    std::int64_t m_maxRows = 0;
    std::vector<std::uint16_t> m_active;    // per token, m_maxRows apart: its non-zero rows, ascending
    std::vector<std::int64_t> m_activeCount; // per token
    std::vector<std::uint8_t> m_rowUsed;     // per row: some token's list has it (only those are decoded)
    std::vector<std::int64_t> m_cursor;      // per thread and token: the next entry of m_active
    int m_columnTokens = 0; // capacity of the column path (0: none)
    std::int64_t m_columnRows = 0;
    std::size_t m_actRowBlocks = 0;
    std::vector<cpu::ActBlockQ8> m_actBlocks; // the prompt's activations quantized along the rows, block-major
    std::vector<cpu::ActBlockQ8> m_actRow;    // per thread: one token's, token-major
    std::vector<std::uint8_t> m_packed; // per thread: a block of rows requantized by columns

    // The call in flight, read by the worker threads (captured by pointer only).
    struct Job {
        const cpu::WeightMatrix* downT;
        const float* acts;
        int tokens;
        float* out;
        bool lists; // each token's non-zero rows from m_active instead of tiles
    };
    Job m_job{};
};

} // namespace hearth::sparse
