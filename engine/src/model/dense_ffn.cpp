// SPDX-License-Identifier: MIT
#include "model/dense_ffn.h"

#include "cpu/ops.h"
#include "cpu/thread_pool.h"
#include "model/decoder_ops.h"
#include "sparse/down_projection.h"

#include <algorithm>
#include <cmath>

#include <cstdint>
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
    try {
        m_hidden.resize(std::size_t(maxBatch) * std::size_t(nFf));
        if (transposedDown) {
            auto down = sparse::DownProjection::create(threads, nEmbd, maxBatch, nFf);
            if (!down)
                return down.status();
            m_downProjection = std::move(down).value();
        }
    } catch (const std::bad_alloc&) {
        return {ErrorCode::OutOfMemory, "not enough memory for the feed-forward work buffer"};
    }
    return {};
}

void DenseFfn::run(cpu::ThreadPool& pool, const UpDownFfn& ffn, const float* input, int tokens, float* out,
                   const std::uint8_t* mask)
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
    if (mask) {
        for (std::int64_t i = 0; i < count; ++i)
            m_hidden[std::size_t(i)] = mask[i] ? m_hidden[std::size_t(i)] : 0.0f;
    }
    project(pool, ffn, tokens, out);
}

void DenseFfn::project(cpu::ThreadPool& pool, const UpDownFfn& ffn, int tokens, float* out)
{
    if (ffn.downTransposed) {
        m_downProjection->run(pool, ffn.down, m_hidden.data(), tokens, out);
        addBias(out, ffn.downBias, tokens, ffn.down.cols);
    } else {
        cpu::matmul(pool, ffn.down, m_hidden.data(), tokens, out);
        addBias(out, ffn.downBias, tokens, ffn.down.rows);
    }
}

} // namespace hearth::model
