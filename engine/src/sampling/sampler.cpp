// SPDX-License-Identifier: MIT
#include <hearth/sampling.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace hearth {

namespace {

using Candidate = std::pair<float, Token>;

// A strict total order (higher logit first, then lower id) so that every standard library sorts
// and partitions the candidates into the same sequence: the draw walks that sequence.
bool before(const Candidate& a, const Candidate& b)
{
    return a.first > b.first || (a.first == b.first && a.second < b.second);
}

// Uniform double in [0, 1) from the raw 64-bit engine output: the top 53 bits become the mantissa.
// std::uniform_real_distribution is not specified bit for bit, so each library would draw differently.
double uniformDouble(std::mt19937_64& rng)
{
    return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

// Index of the best candidate in id order (ties -> lowest id, as the candidates are in id order).
std::size_t argmax(const std::vector<Candidate>& candidates)
{
    std::size_t best = 0;
    for (std::size_t i = 1; i < candidates.size(); ++i) {
        if (candidates[i].first > candidates[best].first)
            best = i;
    }
    return best;
}

// Probability mass as fixed point: integer sums are exact in any order, so the top-p cut
// below does not depend on how a standard library arranges a partition.
std::uint64_t fixedMass(float p)
{
    return static_cast<std::uint64_t>(static_cast<double>(p) * 0x1.0p40 + 0.5); // p is in [0, 1]
}

// Top-p without sorting the vocabulary. The bits of a non-negative float order like its value,
// so their top bits make monotone buckets: one pass sums each bucket's mass, the bucket where
// the running mass (from the top) reaches @p needed holds the cutoff, and only that bucket is
// sorted. Returns false when the whole vocabulary is needed.
bool topPCutoff(const std::vector<Candidate>& candidates, std::vector<Candidate>& scratch, std::uint64_t needed,
                Candidate& cutoff)
{
    constexpr int Shift = 19; // 8 exponent bits + 4 mantissa bits: 4096 buckets
    std::vector<std::uint64_t> mass(std::size_t(1) << (31 - Shift), 0);
    const auto bucket = [](float p) { return std::bit_cast<std::uint32_t>(p) >> Shift; };
    for (const auto& c : candidates)
        mass[bucket(c.first)] += fixedMass(c.first);
    std::uint64_t cumulative = 0;
    for (std::size_t b = mass.size(); b-- > 0;) {
        if (cumulative + mass[b] < needed) {
            cumulative += mass[b];
            continue;
        }
        scratch.clear();
        for (const auto& c : candidates) {
            if (bucket(c.first) == b)
                scratch.push_back(c);
        }
        std::sort(scratch.begin(), scratch.end(), before);
        for (const auto& c : scratch) {
            cumulative += fixedMass(c.first);
            if (cumulative >= needed) {
                cutoff = c;
                return true;
            }
        }
        cutoff = scratch.back();
        return true;
    }
    return false;
}

} // namespace

Sampler::Sampler(const SamplingParams& params)
    : m_params(params)
    , m_rng(params.seed)
{
}

void Sampler::accept(Token token)
{
    const auto capacity = static_cast<std::size_t>(std::max(0, m_params.repeatLastN));
    if (capacity == 0)
        return;
    m_recent.push_back(token);
    while (m_recent.size() > capacity)
        m_recent.pop_front();
}

void Sampler::reset()
{
    m_recent.clear();
    m_rng.seed(m_params.seed);
}

Token Sampler::sample(std::span<const float> logits)
{
    if (logits.empty())
        return InvalidToken;

    constexpr float negInf = -std::numeric_limits<float>::infinity();
    const std::size_t vocab = logits.size();

    // Candidates start in id order, so candidates[id] is the token's entry until something reorders.
    m_candidates.resize(vocab);
    for (std::size_t i = 0; i < vocab; ++i) {
        const float v = logits[i];
        m_candidates[i] = {std::isnan(v) ? negInf : v, static_cast<Token>(i)};
    }

    // Penalties: count each recent token once per occurrence. Sorting a copy keeps this
    // O(n log n) in the history length and independent of the vocabulary size.
    const bool repeat = m_params.repeatPenalty != 1.0f && m_params.repeatPenalty > 0.0f;
    const bool openAi = m_params.presencePenalty != 0.0f || m_params.frequencyPenalty != 0.0f;
    if ((repeat || openAi) && !m_recent.empty()) {
        std::vector<Token> recent(m_recent.begin(), m_recent.end());
        std::sort(recent.begin(), recent.end());
        for (std::size_t i = 0; i < recent.size();) {
            std::size_t j = i;
            while (j < recent.size() && recent[j] == recent[i])
                ++j;
            const Token token = recent[i];
            const auto count = static_cast<float>(j - i);
            i = j;
            if (token < 0 || static_cast<std::size_t>(token) >= vocab)
                continue;
            float& v = m_candidates[static_cast<std::size_t>(token)].first;
            if (repeat)
                v = v > 0 ? v / m_params.repeatPenalty : v * m_params.repeatPenalty;
            v -= count * m_params.frequencyPenalty + m_params.presencePenalty;
        }
    }

    if (!(m_params.temperature > 0.0f)) // <= 0, or NaN
        return m_candidates[argmax(m_candidates)].second;

    // Top-k: only the k best need to be found and ordered, not the whole vocabulary.
    bool sortedByLogit = false;
    if (m_params.topK > 0 && static_cast<std::size_t>(m_params.topK) < vocab) {
        const auto k = static_cast<std::ptrdiff_t>(m_params.topK);
        std::partial_sort(m_candidates.begin(), m_candidates.begin() + k, m_candidates.end(), before);
        m_candidates.resize(static_cast<std::size_t>(k));
        sortedByLogit = true;
    }

    // Temperature and softmax; probabilities replace the logits in place.
    float maxLogit = negInf;
    for (const auto& c : m_candidates)
        maxLogit = std::max(maxLogit, c.first);
    if (maxLogit == negInf) // everything masked or NaN: no distribution to draw from
        return sortedByLogit ? m_candidates.front().second : m_candidates[argmax(m_candidates)].second;
    if (maxLogit == std::numeric_limits<float>::infinity()) {
        // +inf means "certainly this one"; the first such token in the current order wins.
        for (const auto& c : m_candidates) {
            if (c.first == maxLogit)
                return c.second;
        }
    }
    // Single precision: over a whole vocabulary (no top-k) exp() is most of the cost.
    const float invTemperature = 1.0f / m_params.temperature;
    for (auto& c : m_candidates)
        c.first = c.first == negInf ? 0.0f : std::exp((c.first - maxLogit) * invTemperature); // inf temperature: 0 * -inf
    const float maxProb = 1.0f; // exp(0): the best token before normalisation

    // Min-p keeps tokens with p >= minP * p(best). It and top-p both keep a prefix of the order
    // by probability, so applying min-p first gives the same set and leaves top-p less to scan.
    if (m_params.minP > 0.0f && m_params.minP <= 1.0f) {
        const float threshold = m_params.minP * maxProb;
        std::size_t kept = 0;
        for (std::size_t i = 0; i < m_candidates.size(); ++i) {
            if (m_candidates[i].first >= threshold)
                m_candidates[kept++] = m_candidates[i];
        }
        m_candidates.resize(kept);
    }

    if (m_params.topP < 1.0f) { // 0 or less keeps just the best token
        std::uint64_t total = 0;
        for (const auto& c : m_candidates)
            total += fixedMass(c.first);
        const double wanted = std::max(0.0, static_cast<double>(m_params.topP)) * static_cast<double>(total);
        const auto needed = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::ceil(wanted)));
        Candidate cutoff;
        if (sortedByLogit) {
            cutoff = m_candidates.back();
            std::uint64_t cumulative = 0;
            for (const auto& c : m_candidates) {
                cumulative += fixedMass(c.first);
                if (cumulative >= needed) {
                    cutoff = c;
                    break;
                }
            }
        } else {
            if (!topPCutoff(m_candidates, m_scratch, needed, cutoff))
                cutoff = {-1.0f, 0}; // keeps everything
        }
        // Keep everything up to the cutoff, in the current order (id order unless top-k sorted).
        std::size_t kept = 0;
        for (std::size_t i = 0; i < m_candidates.size(); ++i) {
            if (!before(cutoff, m_candidates[i]))
                m_candidates[kept++] = m_candidates[i];
        }
        m_candidates.resize(kept);
    }

    double total = 0;
    for (const auto& c : m_candidates)
        total += c.first;

    // The draw: walk the candidates in their (deterministic) order until the mass passes u.
    const double target = uniformDouble(m_rng) * total;
    double cumulative = 0;
    Token last = m_candidates.front().second;
    for (const auto& c : m_candidates) {
        if (c.first <= 0)
            continue;
        cumulative += c.first;
        last = c.second;
        if (cumulative > target)
            return c.second;
    }
    return last; // rounding left target just above the sum
}

} // namespace hearth
