// SPDX-License-Identifier: MIT
#include "sparse/neuron_selection.h"

#include <algorithm>
#include <cstdint>
#include <new>
#include <numeric>

namespace hearth::sparse {

Status NeuronSelection::reserve(int maxBatch, std::int64_t nFf, std::int64_t predictorHidden)
{
    const std::size_t b = std::size_t(std::max(maxBatch, 1));
    const std::size_t n = std::size_t(std::max<std::int64_t>(nFf, 0));
    try {
        m_hidden.resize(b * std::size_t(std::max<std::int64_t>(predictorHidden, 0)));
        m_logits.resize(b * n);
        m_mask.resize(b * n);
        m_ids.resize(n);
        m_allIds.resize(n);
    } catch (const std::bad_alloc&) {
        return {ErrorCode::OutOfMemory, "not enough memory for the predictor's buffers"};
    }
    std::iota(m_allIds.begin(), m_allIds.end(), std::int32_t(0));
    return {};
}

NeuronSelection::Active NeuronSelection::predict(cpu::ThreadPool& pool, const PredictorWeights& predictor,
                                                 const float* x, int tokens, float threshold)
{
    const std::int64_t nFf = std::int64_t(m_allIds.size());
    sparse::predict(pool, predictor, x, tokens, m_hidden.data(), m_logits.data());
    if (tokens == 1) {
        const std::int64_t count = selectActive(m_logits.data(), nFf, threshold, m_ids.data());
        return {m_ids.data(), count, nullptr, count};
    }
    std::int64_t pairs = 0;
    const std::int64_t count =
        selectActiveBatch(m_logits.data(), tokens, nFf, threshold, m_mask.data(), m_ids.data(), &pairs);
    return {m_ids.data(), count, m_mask.data(), pairs};
}

} // namespace hearth::sparse
