// SPDX-License-Identifier: MIT
#include "model/dense_ffn.h"

#include "cpu/ops.h"
#include "cpu/thread_pool.h"
#include "model/decoder_ops.h"

#include <algorithm>
#include <cmath>

#include <new>

namespace hearth::model {

namespace {

// GELU, tanh approximation, written as x * sigmoid(2u) (the same function as
// 0.5 x (1 + tanh u)): expf is several times cheaper than tanhf, and over a prompt batch the
// activation is a visible share of the FFN's time.
void geluRange(float* x, std::int64_t begin, std::int64_t end)
{
    constexpr float k = 0.7978845608028654f; // sqrt(2 / pi)
    for (std::int64_t i = begin; i < end; ++i) {
        const float v = x[i];
        const float u = k * v * (1.0f + 0.044715f * v * v);
        x[i] = v / (1.0f + std::exp(-2.0f * u));
    }
}

} // namespace

Status DenseFfn::reserve(int maxBatch, int nFf, int nEmbd, int threads, bool transposedDown)
{
    m_maxBatch = maxBatch;
    try {
        m_hidden.resize(std::size_t(maxBatch) * std::size_t(nFf));
        if (transposedDown) {
            m_partial.resize(std::size_t(threads) * std::size_t(maxBatch) * std::size_t(nEmbd));
            m_neuron.resize(std::size_t(threads) * std::size_t(nEmbd));
        }
    } catch (const std::bad_alloc&) {
        return {ErrorCode::OutOfMemory, "not enough memory for the feed-forward work buffer"};
    }
    return {};
}

void DenseFfn::run(cpu::ThreadPool& pool, const UpDownFfn& ffn, const float* input, int tokens, float* out)
{
    const std::int64_t nFf = ffn.up.rows;
    cpu::matmul(pool, ffn.up, input, tokens, m_hidden.data());
    addBias(m_hidden.data(), ffn.upBias, tokens, nFf);
    const std::int64_t count = std::int64_t(tokens) * nFf;
    if (ffn.activation == DenseActivation::Gelu) {
        m_activationData = m_hidden.data();
        pool.parallelFor(count, [this](std::int64_t begin, std::int64_t end, int) {
            geluRange(m_activationData, begin, end);
        });
    } else {
        cpu::relu(m_hidden.data(), count);
    }
    if (ffn.downTransposed) {
        downTransposed(pool, ffn.down, tokens, out);
        addBias(out, ffn.downBias, tokens, ffn.down.cols);
    } else {
        cpu::matmul(pool, ffn.down, m_hidden.data(), tokens, out);
        addBias(out, ffn.downBias, tokens, ffn.down.rows);
    }
}

void DenseFfn::downTransposed(cpu::ThreadPool& pool, const cpu::WeightMatrix& downT, int tokens, float* out)
{
    m_downT = &downT;
    m_tokens = tokens;
    // Each thread sums its share of the neurons into its own buffer; a second pass adds the
    // buffers up. run(), not parallelFor(): every thread must clear its buffer, even one
    // whose share has no active neuron.
    pool.run([this](int thread, int threadCount) {
        const std::int64_t nFf = m_downT->rows;
        const std::size_t nEmbd = std::size_t(m_downT->cols);
        const std::int64_t begin = nFf * thread / threadCount;
        const std::int64_t end = nFf * (thread + 1) / threadCount;
        float* partial = m_partial.data() + std::size_t(thread) * std::size_t(m_maxBatch) * nEmbd;
        float* row = m_neuron.data() + std::size_t(thread) * nEmbd;
        std::fill_n(partial, std::size_t(m_tokens) * nEmbd, 0.0f);
        for (std::int64_t i = begin; i < end; ++i) {
            bool active = false;
            for (int t = 0; t < m_tokens && !active; ++t)
                active = m_hidden[std::size_t(t) * std::size_t(nFf) + std::size_t(i)] != 0.0f;
            if (!active)
                continue; // a ReLU zero for every token: the neuron's row is never read
            cpu::getRow(*m_downT, i, row);
            for (int t = 0; t < m_tokens; ++t) {
                const float a = m_hidden[std::size_t(t) * std::size_t(nFf) + std::size_t(i)];
                if (a != 0.0f)
                    cpu::axpy(partial + std::size_t(t) * nEmbd, a, row, std::int64_t(nEmbd));
            }
        }
    });
    const std::size_t count = std::size_t(tokens) * std::size_t(downT.cols);
    std::fill_n(out, count, 0.0f);
    for (int thread = 0; thread < pool.size(); ++thread)
        cpu::add(out, m_partial.data() + std::size_t(thread) * std::size_t(m_maxBatch) * std::size_t(downT.cols),
                 std::int64_t(count));
}

} // namespace hearth::model
