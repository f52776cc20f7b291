// SPDX-License-Identifier: MIT
#include "offload_compare.h"

#include "check_support.h"
#include "cpu/matmul.h"
#include "cpu/ops.h"
#include "cpu/thread_pool.h"
#include "cpu/weight_pack.h"
#include "device/dense_offload.h"
#include "device/hybrid_ffn.h"
#include "device/reference_ops.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>

namespace hearth::gpucheck {

namespace {

using Clock = std::chrono::steady_clock;

template <typename F>
double medianMs(int runs, F&& step)
{
    std::vector<double> ms;
    for (int i = 0; i < runs; ++i) {
        const auto t0 = Clock::now();
        if (!step(i))
            return -1;
        ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}

std::uint64_t matrixBytes(DType type, std::int64_t rows, std::int64_t cols)
{
    return std::uint64_t(rowBytes(type, cols)) * std::uint64_t(rows);
}

// One llama layer's host weights and the CPU's dense pass through it.
struct HostLayer {
    OffloadShape s;
    DType type;
    std::vector<float> attnNorm, ffnNorm;
    std::vector<std::uint8_t> wq, wk, wv, wo, gate, up, down, downT;
    std::vector<float> kCache, vCache; // [contextLength][kvDim]
    std::vector<float> xn, q, k, v, attn, tmp, g, u, scores;
    // The CPU's views, repacked as the model loader does, so the CPU runs at its real speed.
    cpu::PackedWeightStore packs;
    cpu::WeightMatrix cq, ck, cv, co, cgate, cup, cdown;

    HostLayer(const OffloadShape& shape, DType t)
        : s(shape)
        , type(t)
    {
        const std::int64_t qDim = s.nEmbd;
        const std::int64_t kvDim = s.nEmbd / s.nHead * s.nHeadKv;
        attnNorm.assign(std::size_t(s.nEmbd), 1.0f);
        ffnNorm.assign(std::size_t(s.nEmbd), 1.0f);
        wq = randomMatrix(t, qDim, s.nEmbd, 11);
        wk = randomMatrix(t, kvDim, s.nEmbd, 12);
        wv = randomMatrix(t, kvDim, s.nEmbd, 13);
        wo = randomMatrix(t, s.nEmbd, qDim, 14);
        gate = randomMatrix(t, s.nFF, s.nEmbd, 15);
        up = randomMatrix(t, s.nFF, s.nEmbd, 16);
        down = randomMatrix(t, s.nEmbd, s.nFF, 17);
        downT = randomMatrix(t, s.nFF, s.nEmbd, 18);
        kCache = randomFloats(std::size_t(s.contextLength) * std::size_t(kvDim), 19);
        vCache = randomFloats(std::size_t(s.contextLength) * std::size_t(kvDim), 20);
        for (auto* b : {&xn, &tmp})
            b->resize(std::size_t(s.nEmbd));
        q.resize(std::size_t(qDim));
        attn.resize(std::size_t(qDim));
        k.resize(std::size_t(kvDim));
        v.resize(std::size_t(kvDim));
        g.resize(std::size_t(s.nFF));
        u.resize(std::size_t(s.nFF));
        scores.resize(std::size_t(s.nHead) * std::size_t(s.contextLength));
        cq = m(wq, qDim, s.nEmbd);
        ck = m(wk, kvDim, s.nEmbd);
        cv = m(wv, kvDim, s.nEmbd);
        co = m(wo, s.nEmbd, qDim);
        cgate = m(gate, s.nFF, s.nEmbd);
        cup = m(up, s.nFF, s.nEmbd);
        cdown = m(down, s.nEmbd, s.nFF);
        for (cpu::WeightMatrix* w : {&cq, &ck, &cv, &co, &cgate, &cup, &cdown})
            packs.pack(*w);
    }

    [[nodiscard]] cpu::WeightMatrix m(const std::vector<std::uint8_t>& d, std::int64_t rows, std::int64_t cols) const
    {
        return {type, d.data(), rows, cols};
    }
    [[nodiscard]] device::DenseLayerWeights dense() const
    {
        const std::int64_t kvDim = s.nEmbd / s.nHead * s.nHeadKv;
        return {{attnNorm.data(), m(wq, s.nEmbd, s.nEmbd), m(wk, kvDim, s.nEmbd), m(wv, kvDim, s.nEmbd),
                 m(wo, s.nEmbd, s.nEmbd)},
                ffnNorm.data(), m(gate, s.nFF, s.nEmbd), m(up, s.nFF, s.nEmbd), m(down, s.nEmbd, s.nFF)};
    }

    // The attention block on the CPU: x += wo . attention(norm(x)).
    void attention(cpu::ThreadPool& pool, float* x)
    {
        cpu::rmsNorm(x, attnNorm.data(), 1e-5f, s.nEmbd, xn.data());
        cpu::matmul(pool, cq, xn.data(), 1, q.data());
        cpu::matmul(pool, ck, xn.data(), 1, k.data());
        cpu::matmul(pool, cv, xn.data(), 1, v.data());
        device::AttentionOp a;
        const auto host = [](std::vector<float>& b) {
            return device::DeviceBuffer{b.data(), b.size() * 4, 0, 1};
        };
        a.q = host(q);
        a.k = host(k);
        a.v = host(v);
        a.kCache = host(kCache);
        a.vCache = host(vCache);
        a.scores = host(scores);
        a.out = host(attn);
        a.pos = s.position;
        a.capacity = s.contextLength;
        a.nHead = s.nHead;
        a.nHeadKv = s.nHeadKv;
        a.headDim = std::int32_t(s.nEmbd / s.nHead);
        a.nRot = a.headDim;
        device::reference::attention(a);
        cpu::matmul(pool, co, attn.data(), 1, tmp.data());
        cpu::add(x, tmp.data(), s.nEmbd);
    }

    // The dense FFN on the CPU: x += down . reglu(gate . norm(x), up . norm(x)).
    void denseFfn(cpu::ThreadPool& pool, float* x)
    {
        cpu::rmsNorm(x, ffnNorm.data(), 1e-5f, s.nEmbd, xn.data());
        cpu::matmul(pool, cgate, xn.data(), 1, g.data());
        cpu::matmul(pool, cup, xn.data(), 1, u.data());
        cpu::reglu(g.data(), u.data(), s.nFF);
        cpu::matmul(pool, cdown, g.data(), 1, tmp.data());
        cpu::add(x, tmp.data(), s.nEmbd);
    }
};

} // namespace

std::string compareWithWholeLayers(device::Device& dev, cpu::ThreadPool& pool, DType type, const OffloadShape& s,
                                   double ffnShare, const std::vector<std::int32_t>& byFrequency,
                                   const std::vector<std::vector<std::int32_t>>& activeSets)
{
    const int runs = int(std::max<std::size_t>(activeSets.size(), 3));
    HostLayer layer(s, type);
    const std::uint64_t ffnLayerBytes = 3 * matrixBytes(type, s.nFF, s.nEmbd);
    const auto budget = std::uint64_t(ffnShare * double(ffnLayerBytes) * double(s.nLayer));
    std::vector<float> x = randomFloats(std::size_t(s.nEmbd), 21, 0.5f);
    const std::vector<float> x0 = x;

    // CPU: a dense layer, and the attention block alone.
    const double cpuLayerMs = medianMs(runs, [&](int) {
        layer.attention(pool, x.data());
        layer.denseFfn(pool, x.data());
        x = x0;
        return true;
    });
    const double cpuAttentionMs = medianMs(runs, [&](int) {
        layer.attention(pool, x.data());
        x = x0;
        return true;
    });

    // Device: one whole layer through DenseOffload (its bytes size k).
    device::DenseModelParams p;
    p.nEmbd = std::int32_t(s.nEmbd);
    p.nHead = s.nHead;
    p.nHeadKv = s.nHeadKv;
    p.headDim = std::int32_t(s.nEmbd / s.nHead);
    p.nRot = p.headDim;
    p.nFF = std::int32_t(s.nFF);
    p.activation = device::Activation::ReGlu;
    p.contextLength = s.contextLength;
    const std::uint64_t before = dev.usedBytes();
    auto offload = device::DenseOffload::create(dev, p, {layer.dense()}, 1);
    if (!offload || (*offload)->offloadedLayers() != 1)
        return "{\"error\": \"" + jsonEscape(offload ? (*offload)->limit() : offload.message()) + "\"}";
    // Weights, KV cache and the work buffers (shared by the layers, so k is a slight underestimate).
    const std::uint64_t oneLayer = dev.usedBytes() - before;
    // Fill the cache up to the timed position, then time tokens there.
    constexpr int kPrefill = 64;
    std::vector<float> prompt(std::size_t(kPrefill) * std::size_t(s.nEmbd));
    for (int pos = 0; pos < s.position; pos += kPrefill) {
        for (int t = 0; t < kPrefill; ++t)
            std::copy(x0.begin(), x0.end(), prompt.begin() + std::ptrdiff_t(t) * std::ptrdiff_t(s.nEmbd));
        if (!(*offload)->forward(prompt.data(), std::min(kPrefill, s.position - pos), pos, nullptr).ok())
            return "{\"error\": \"whole-layer prefill failed\"}";
    }
    const double gpuLayerMs = medianMs(runs, [&](int) {
        const bool ok = (*offload)->forward(x.data(), s.position).ok();
        x = x0;
        return ok;
    });
    offload->reset();
    const int wholeLayers = int(std::min<std::uint64_t>(std::uint64_t(s.nLayer), budget / std::max<std::uint64_t>(oneLayer, 1)));

    // Hybrid: the hottest neurons of the layer's even share of the budget.
    const std::uint64_t perLayer = budget / std::uint64_t(s.nLayer);
    const std::uint64_t neuronBytes = ffnLayerBytes / std::uint64_t(s.nFF);
    const std::int64_t hotCount = std::min<std::int64_t>(s.nFF, std::int64_t(perLayer / neuronBytes));
    std::vector<std::int32_t> hot(byFrequency.begin(), byFrequency.begin() + hotCount);
    std::sort(hot.begin(), hot.end());
    const device::FfnWeights w{layer.m(layer.gate, s.nFF, s.nEmbd), layer.m(layer.up, s.nFF, s.nEmbd),
                               layer.m(layer.downT, s.nFF, s.nEmbd), device::Activation::ReGlu};
    auto scratch = device::HybridFfnScratch::create(dev, s.nEmbd, std::max<std::int64_t>(hotCount, 1));
    if (!scratch)
        return "{\"error\": \"" + jsonEscape(scratch.message()) + "\"}";
    auto hybrid = device::HybridFfnLayer::create(&dev, scratch->get(), w, hot);
    if (!hybrid)
        return "{\"error\": \"" + jsonEscape(hybrid.message()) + "\"}";
    std::vector<float> y(std::size_t(s.nEmbd));
    const double hybridFfnMs = medianMs(runs, [&](int i) {
        const auto& set = activeSets[std::size_t(i) % activeSets.size()];
        return (*hybrid)->forward(pool, x.data(), set.data(), std::int64_t(set.size()), y.data()).ok();
    });
    hybrid->reset();
    scratch->reset();
    if (cpuLayerMs < 0 || gpuLayerMs < 0 || hybridFfnMs < 0)
        return "{\"error\": \"a timed step failed\"}";

    const double wholeMs = wholeLayers * gpuLayerMs + (s.nLayer - wholeLayers) * cpuLayerMs;
    const double hybridMs = s.nLayer * (cpuAttentionMs + hybridFfnMs);
    const double speedup = wholeMs / hybridMs;
    std::printf("\nbudget %.2f GiB (%.0f%% of the FFN weights), %d layers of %s, position %d\n",
                double(budget) / double(1ull << 30), 100.0 * ffnShare, s.nLayer, std::string(dtypeName(type)).c_str(),
                s.position);
    std::printf("  per layer: CPU dense %.3f ms (attention %.3f), device whole layer %.3f ms (%.1f MiB), hybrid FFN %.3f ms (%lld hot)\n",
                cpuLayerMs, cpuAttentionMs, gpuLayerMs, double(oneLayer) / double(1 << 20), hybridFfnMs,
                static_cast<long long>(hotCount));
    std::printf("  whole-layer offload: %d of %d layers, %.2f tokens/s\n", wholeLayers, s.nLayer, 1000.0 / wholeMs);
    std::printf("  hybrid:              %.2f tokens/s (%.2fx whole-layer offload)\n", 1000.0 / hybridMs, speedup);

    char text[1024];
    std::snprintf(text, sizeof(text),
                  "{\"budget_bytes\": %llu, \"ffn_share\": %.3f, \"layers\": %d, \"position\": %d, "
                  "\"cpu_layer_ms\": %.4f, \"cpu_attention_ms\": %.4f, \"device_layer_ms\": %.4f, "
                  "\"device_layer_bytes\": %llu, \"whole_layers\": %d, \"hybrid_ffn_ms\": %.4f, \"hot_per_layer\": %lld, "
                  "\"whole_layer_tokens_per_s\": %.3f, \"hybrid_tokens_per_s\": %.3f, \"hybrid_speedup\": %.3f}",
                  static_cast<unsigned long long>(budget), ffnShare, s.nLayer, s.position, cpuLayerMs, cpuAttentionMs,
                  gpuLayerMs, static_cast<unsigned long long>(oneLayer), wholeLayers, hybridFfnMs,
                  static_cast<long long>(hotCount), 1000.0 / wholeMs, 1000.0 / hybridMs, speedup);
    return text;
}

} // namespace hearth::gpucheck
