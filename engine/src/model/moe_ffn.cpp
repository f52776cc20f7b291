// SPDX-License-Identifier: MIT
#include "model/moe_ffn.h"

#include "cpu/ops.h"
#include "cpu/weight_pack.h"
#include "model/hyper_params.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <new>
#include <numeric>
#include <utility>

namespace hearth::model {

void applyGatedActivation(FfnActivation activation, float* gate, const float* up, std::int64_t n)
{
    switch (activation) {
    case FfnActivation::SwiGlu:
        cpu::swiglu(gate, up, n);
        break;
    case FfnActivation::ReGlu:
        cpu::reglu(gate, up, n);
        break;
    case FfnActivation::DRelu:
        cpu::drelu(gate, up, n);
        break;
    case FfnActivation::Relu2:
        cpu::relu2(gate, up, n);
        break;
    case FfnActivation::GeGlu:
        cpu::geglu(gate, up, n);
        break;
    case FfnActivation::SwiGluOai:
        cpu::swigluOai(gate, up, n);
        break;
    }
}

void routeToken(const float* logits, int nExpert, int used, ExpertGating gating, bool normalize, ExpertChoice* out)
{
    // Every gating keeps the order of the logits, so the choice is the same: a partial
    // selection of the largest (`used` is small: 2 to 8 of up to a few hundred).
    for (int j = 0; j < used; ++j) {
        int best = -1;
        for (int e = 0; e < nExpert; ++e) {
            bool taken = false;
            for (int i = 0; i < j && !taken; ++i)
                taken = out[i].expert == e;
            if (!taken && (best < 0 || logits[e] > logits[best]))
                best = e;
        }
        out[j] = {best, logits[best]};
    }
    const float top = out[0].weight;
    switch (gating) {
    case ExpertGating::Softmax: {
        // Over every expert, as llama.cpp does: the chosen probabilities keep their share of
        // the whole when they are not renormalised (Qwen 2 MoE).
        float sum = 0.0f;
        for (int e = 0; e < nExpert; ++e)
            sum += std::exp(logits[e] - top);
        for (int j = 0; j < used; ++j)
            out[j].weight = std::exp(out[j].weight - top) / sum;
        break;
    }
    case ExpertGating::Sigmoid:
        for (int j = 0; j < used; ++j)
            out[j].weight = 1.0f / (1.0f + std::exp(-out[j].weight));
        break;
    case ExpertGating::SoftmaxOfChosen: {
        float sum = 0.0f;
        for (int j = 0; j < used; ++j)
            sum += std::exp(out[j].weight - top);
        for (int j = 0; j < used; ++j)
            out[j].weight = std::exp(out[j].weight - top) / sum;
        break;
    }
    }
    if (normalize) {
        float chosen = 0.0f;
        for (int j = 0; j < used; ++j)
            chosen += out[j].weight;
        for (int j = 0; j < used; ++j)
            out[j].weight /= chosen;
    }
}

Status MoeFfn::reserve(const HyperParams& hp, int maxBatch)
{
    const std::size_t b = std::size_t(maxBatch);
    const std::size_t rows = b * std::size_t(hp.nExpertUsed);
    try {
        m_logits.resize(b * std::size_t(hp.nExpert));
        m_choices.resize(rows);
        m_first.resize(std::size_t(hp.nExpert) + 1);
        m_readAhead.resize(std::size_t(hp.nExpert));
        m_slotOf.resize(rows);
        m_gathered.resize(rows * std::size_t(hp.nEmbd));
        m_gate.resize(rows * std::size_t(hp.nFfExpert));
        m_up.resize(rows * std::size_t(hp.nFfExpert));
        m_expertOut.resize(rows * std::size_t(hp.nEmbd));
        m_sharedGate.resize(b * std::size_t(hp.nFfSharedExpert));
        m_sharedUp.resize(b * std::size_t(hp.nFfSharedExpert));
        m_sharedOut.resize(b * std::size_t(hp.nEmbd));
        m_tasks.reserve(2 * std::size_t(hp.nExpert) + 2);
    } catch (const std::bad_alloc&) {
        return {ErrorCode::OutOfMemory, "not enough memory for the experts' work buffers"};
    }
    return {};
}

void MoeFfn::route(cpu::ThreadPool& pool, const MoeWeights& w, const HyperParams& hp, const float* routerInput,
                   int tokens)
{
    const int nExpert = hp.nExpert;
    const int used = hp.nExpertUsed;
    m_tokens = tokens;
    m_used = used;
    cpu::matmul(pool, w.router, routerInput, tokens, m_logits.data());
    if (w.routerBias) {
        for (int t = 0; t < tokens; ++t)
            cpu::add(m_logits.data() + std::size_t(t) * std::size_t(nExpert), w.routerBias, nExpert);
    }
    for (int t = 0; t < tokens; ++t)
        routeToken(m_logits.data() + std::size_t(t) * std::size_t(nExpert), nExpert, used, hp.expertGating,
                   hp.flavour.normalizeExpertWeights, m_choices.data() + std::size_t(t) * std::size_t(used));
}

void MoeFfn::readChosenAhead(const MoeWeights& w)
{
    // Each chosen expert once. A batch that chooses most of the layer reads it in order anyway,
    // with the kernel's own read-ahead: asking for all of it at once only evicts sooner what a
    // tight memory limit holds (SmallThinker shape under 1 GiB: prefill 31-37 tok/s asking,
    // 39-40 not).
    std::fill(m_readAhead.begin(), m_readAhead.end(), 0);
    std::size_t chosen = 0;
    for (const ExpertChoice& c : lastChoices())
        chosen += std::exchange(m_readAhead[std::size_t(c.expert)], 1) == 0 ? 1 : 0;
    if (2 * chosen > m_readAhead.size())
        return;
    for (std::size_t e = 0; e < m_readAhead.size(); ++e) {
        if (!m_readAhead[e])
            continue;
        const GatedFfnWeights& x = w.experts[e];
        for (const cpu::WeightMatrix* m : {&x.gate, &x.up, &x.down}) {
            if (m->packing == cpu::Packing::None)
                cpu::readAhead(m->data, cpu::rowStrideOf(*m) * std::size_t(m->rows));
        }
    }
}

void MoeFfn::run(cpu::ThreadPool& pool, const MoeWeights& w, const HyperParams& hp, const float* input, int tokens,
                 float* out, LayerOffload* offload, int layer)
{
    const int nExpert = hp.nExpert;
    const int used = m_used;
    const std::size_t nEmbd = std::size_t(hp.nEmbd);

    // Group the (token, expert) pairs by expert: a counting sort into gathered input rows.
    std::fill(m_first.begin(), m_first.end(), 0);
    const std::size_t pairs = std::size_t(tokens) * std::size_t(used);
    for (std::size_t i = 0; i < pairs; ++i)
        ++m_first[std::size_t(m_choices[i].expert) + 1];
    std::partial_sum(m_first.begin(), m_first.end(), m_first.begin());
    for (std::size_t i = 0; i < pairs; ++i) {
        const std::int32_t slot = m_first[std::size_t(m_choices[i].expert)]++;
        m_slotOf[i] = slot;
        std::copy_n(input + (i / std::size_t(used)) * nEmbd, nEmbd, m_gathered.data() + std::size_t(slot) * nEmbd);
    }
    // m_first[e] now ends expert e's rows: shift back to their starts.
    for (int e = nExpert; e > 0; --e)
        m_first[std::size_t(e)] = m_first[std::size_t(e) - 1];
    m_first[0] = 0;

    // The experts the device holds run there while the CPU computes the others; if the device
    // fails, the CPU computes its experts afterwards.
    const bool shared = w.shared.present();
    std::span<const std::uint8_t> onDevice = offload ? offload->deviceExperts(layer) : std::span<const std::uint8_t>();
    if (!onDevice.empty()) {
        const bool sharedThere = shared && onDevice[std::size_t(nExpert)];
        const ExpertBatch batch{m_gathered.data(), m_first.data(), m_expertOut.data(), input, tokens,
                                sharedThere ? m_sharedOut.data() : nullptr};
        if (!offload->startExperts(layer, batch))
            onDevice = {};
    }
    runOnCpu(pool, w, hp, input, tokens, onDevice, false);
    if (!onDevice.empty() && !offload->finishExperts())
        runOnCpu(pool, w, hp, input, tokens, onDevice, true);

    // Each token's chosen experts, most probable first, then the shared expert.
    for (int t = 0; t < tokens; ++t) {
        float* y = out + std::size_t(t) * nEmbd;
        std::fill_n(y, nEmbd, 0.0f);
        for (int j = 0; j < used; ++j) {
            const std::size_t i = std::size_t(t) * std::size_t(used) + std::size_t(j);
            cpu::axpy(y, m_choices[i].weight, m_expertOut.data() + std::size_t(m_slotOf[i]) * nEmbd,
                      std::int64_t(nEmbd));
        }
        if (shared) {
            const float* x = input + std::size_t(t) * nEmbd;
            float s = 0.0f;
            for (std::size_t c = 0; c < nEmbd; ++c)
                s += w.sharedGate[c] * x[c];
            cpu::axpy(y, 1.0f / (1.0f + std::exp(-s)), m_sharedOut.data() + std::size_t(t) * nEmbd,
                      std::int64_t(nEmbd));
        }
    }
}

ExpertActivity MoeFfn::lastActivity(const HyperParams& hp) const
{
    return {lastChoices(), m_gate.data(), m_slotOf.data(), hp.nFfExpert};
}

void MoeFfn::runOnCpu(cpu::ThreadPool& pool, const MoeWeights& w, const HyperParams& hp, const float* input,
                      int tokens, std::span<const std::uint8_t> onDevice, bool deviceOnes)
{
    const int nExpert = hp.nExpert;
    const std::size_t nEmbd = std::size_t(hp.nEmbd);
    const std::size_t nFf = std::size_t(hp.nFfExpert);
    const std::size_t nFfShared = std::size_t(hp.nFfSharedExpert);
    // Whether this call computes expert @p e (nExpert: the shared one).
    const auto mine = [&](int e) { return (!onDevice.empty() && onDevice[std::size_t(e)]) == deviceOnes; };
    const auto rowsOf = [&](int e) {
        return std::pair{std::int64_t(m_first[std::size_t(e)]),
                         std::int64_t(m_first[std::size_t(e) + 1] - m_first[std::size_t(e)])};
    };
    const bool shared = w.shared.present() && mine(nExpert);

    m_tasks.clear();
    for (int e = 0; e < nExpert; ++e) {
        const auto [begin, count] = rowsOf(e);
        if (count == 0 || !mine(e))
            continue;
        const GatedFfnWeights& x = w.experts[std::size_t(e)];
        // A decoded token's experts all read the token itself, which the products then convert
        // (to Q8_K, ...) once for all of them.
        const float* rows = tokens == 1 ? input : m_gathered.data() + std::size_t(begin) * nEmbd;
        m_tasks.push_back({&x.gate, rows, count, m_gate.data() + std::size_t(begin) * nFf});
        m_tasks.push_back({&x.up, rows, count, m_up.data() + std::size_t(begin) * nFf});
    }
    if (shared) {
        m_tasks.push_back({&w.shared.gate, input, tokens, m_sharedGate.data()});
        m_tasks.push_back({&w.shared.up, input, tokens, m_sharedUp.data()});
    }
    if (m_tasks.empty())
        return;
    cpu::matmulGrouped(pool, m_tasks);

    m_tasks.clear();
    for (int e = 0; e < nExpert; ++e) {
        const auto [begin, count] = rowsOf(e);
        if (count == 0 || !mine(e))
            continue;
        float* gate = m_gate.data() + std::size_t(begin) * nFf;
        float* up = m_up.data() + std::size_t(begin) * nFf;
        const GatedFfnWeights& x = w.experts[std::size_t(e)];
        if (x.gateBias) {
            for (std::int64_t r = 0; r < count; ++r) {
                cpu::add(gate + std::size_t(r) * nFf, x.gateBias, std::int64_t(nFf));
                cpu::add(up + std::size_t(r) * nFf, x.upBias, std::int64_t(nFf));
            }
        }
        applyGatedActivation(hp.ffnActivation, gate, up, count * std::int64_t(nFf));
        m_tasks.push_back({&w.experts[std::size_t(e)].down, gate, count,
                           m_expertOut.data() + std::size_t(begin) * nEmbd});
    }
    if (shared) {
        applyGatedActivation(hp.ffnActivation, m_sharedGate.data(), m_sharedUp.data(),
                             std::int64_t(std::size_t(tokens) * nFfShared));
        m_tasks.push_back({&w.shared.down, m_sharedGate.data(), tokens, m_sharedOut.data()});
    }
    cpu::matmulGrouped(pool, m_tasks);
    for (int e = 0; e < nExpert; ++e) {
        const auto [begin, count] = rowsOf(e);
        const float* bias = w.experts[std::size_t(e)].downBias;
        if (count == 0 || !mine(e) || !bias)
            continue;
        for (std::int64_t r = 0; r < count; ++r)
            cpu::add(m_expertOut.data() + std::size_t(begin + r) * nEmbd, bias, std::int64_t(nEmbd));
    }
}

} // namespace hearth::model
