// SPDX-License-Identifier: MIT
#include "sparse/predictor.h"

#include "cpu/ops.h"

#include <algorithm>
#include <cstdint>

namespace hearth::sparse {

std::uint64_t PredictorWeights::bytes() const
{
    if (!present())
        return 0;
    return std::uint64_t(rowBytes(fc1.type, fc1.cols)) * std::uint64_t(fc1.rows)
           + std::uint64_t(rowBytes(fc2.type, fc2.cols)) * std::uint64_t(fc2.rows)
           + (bias ? 4 * std::uint64_t(fc2.rows) : 0);
}

void predict(cpu::ThreadPool& pool, const PredictorWeights& p, const float* x, int tokens, float* hidden, float* logits)
{
    cpu::matmul(pool, p.fc1, x, tokens, hidden);
    if (p.relu)
        cpu::relu(hidden, std::int64_t(tokens) * p.fc1.rows);
    cpu::matmul(pool, p.fc2, hidden, tokens, logits);
    if (p.bias) {
        for (int t = 0; t < tokens; ++t)
            cpu::add(logits + std::size_t(t) * std::size_t(p.fc2.rows), p.bias, p.fc2.rows);
    }
}

std::int64_t selectActive(const float* logits, std::int64_t nFf, float threshold, std::int32_t* ids)
{
    std::int64_t count = 0;
    // Branch-free: the store always happens, the count advances only for active neurons.
    for (std::int64_t i = 0; i < nFf; ++i) {
        ids[count] = std::int32_t(i);
        count += logits[i] >= threshold ? 1 : 0;
    }
    return count;
}

std::int64_t selectActiveBatch(const float* logits, int tokens, std::int64_t nFf, float threshold, std::uint8_t* mask,
                               std::int32_t* ids, std::int64_t* pairs)
{
    // Token by token in the logits' own order (a neuron's logits are nFf floats apart), each
    // neuron's "any token" flag kept in ids until the union is compacted over it: ids[count] is
    // written only after flag i >= count has been read.
    std::fill_n(ids, nFf, 0);
    std::int64_t set = 0;
    for (int t = 0; t < tokens; ++t) {
        const float* row = logits + std::size_t(t) * std::size_t(nFf);
        std::uint8_t* flags = mask + std::size_t(t) * std::size_t(nFf);
        for (std::int64_t i = 0; i < nFf; ++i) {
            const std::uint8_t on = row[i] >= threshold ? 1 : 0;
            flags[i] = on;
            ids[i] |= on;
            set += on;
        }
    }
    std::int64_t count = 0;
    for (std::int64_t i = 0; i < nFf; ++i) {
        const bool any = ids[i] != 0;
        ids[count] = std::int32_t(i);
        count += any ? 1 : 0;
    }
    if (pairs)
        *pairs = set;
    return count;
}

} // namespace hearth::sparse
