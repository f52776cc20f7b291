// SPDX-License-Identifier: MIT
// hearth-hybrid-bench: time per token of one sparse FFN layer split between a device and the
// CPU, for growing shares of hot neurons on the device. Uses the CUDA device when one opens,
// else the emulated device (whose "GPU" is one more host thread: the numbers then show the
// split's overhead, not a speed-up).
//
//   hearth-hybrid-bench [--quick] [--emulated] [--type f16|q4_0] [--threads N] [--tokens N]
//                       [--module PATH] [--out DIR]
//
// Neurons get activation frequencies from a power law (a few hot, a long cold tail); each
// token's active set is drawn from them, with about 30% of the neurons active on average. The
// hot set is the most frequent neurons, as the planner picks it.
//
// Then hybrid placement against whole-layer offload at one budget, a quarter of the model's FFN
// weights by default (--ffn-share S): see offload_compare.h. The 7B shape (32 layers) unless
// --quick.

#include "check_support.h"
#include "cpu/thread_pool.h"
#include "device/device_loader.h"
#include "device/emulated_device.h"
#include "device/hybrid_ffn.h"
#include "offload_compare.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

using namespace hearth;
using namespace hearth::device;
using namespace hearth::gpucheck;

int main(int argc, char** argv)
{
    bool quick = false;
    bool emulated = false;
    DType type = DType::Q4_0;
    int threads = 0;
    int tokens = 64;
    std::string module;
    std::string out;
    double ffnShare = 0.25;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--quick") {
            quick = true;
        } else if (arg == "--emulated") {
            emulated = true;
        } else if (arg == "--type" && i + 1 < argc) {
            const std::string t = argv[++i];
            type = t == "f16" ? DType::F16 : DType::Q4_0;
        } else if (arg == "--threads" && i + 1 < argc) {
            threads = std::atoi(argv[++i]);
        } else if (arg == "--tokens" && i + 1 < argc) {
            tokens = std::max(1, std::atoi(argv[++i]));
        } else if (arg == "--module" && i + 1 < argc) {
            module = argv[++i];
        } else if (arg == "--out" && i + 1 < argc) {
            out = argv[++i];
        } else if (arg == "--ffn-share" && i + 1 < argc) {
            ffnShare = std::clamp(std::atof(argv[++i]), 0.0, 1.0);
        } else {
            std::fprintf(stderr, "usage: hearth-hybrid-bench [--quick] [--emulated] [--type f16|q4_0] [--threads N] "
                                 "[--tokens N] [--ffn-share S] [--module PATH] [--out DIR]\n");
            return 2;
        }
    }
    const std::int64_t nEmbd = quick ? 1024 : 4096;
    const std::int64_t nFF = quick ? 2816 : 11008;
    if (quick)
        tokens = std::min(tokens, 16);

    std::unique_ptr<Device> device;
    std::string why;
    if (!emulated) {
        DeviceLoadOptions load;
        load.modulePath = module;
        auto opened = DeviceLoader::openCuda(load);
        if (opened)
            device = std::move(*opened);
        else
            why = opened.message();
    }
    if (!device)
        device = std::make_unique<EmulatedDevice>(EmulatedDeviceOptions{std::uint64_t(4) << 30, 256, 0, "emulated"});
    std::printf("device: %s (%s)%s%s\n", device->info().name.c_str(), device->info().backend.c_str(),
                why.empty() ? "" : "; CUDA: ", why.c_str());

    const auto gate = randomMatrix(type, nFF, nEmbd, 1);
    const auto up = randomMatrix(type, nFF, nEmbd, 2);
    const auto down = randomMatrix(type, nFF, nEmbd, 3);
    const FfnWeights w{{type, gate.data(), nFF, nEmbd}, {type, up.data(), nFF, nEmbd}, {type, down.data(), nFF, nEmbd},
                       Activation::ReGlu};

    // Power-law frequencies over a random permutation of the neurons, scaled to ~30% mean.
    std::mt19937 rng(4);
    std::vector<std::int32_t> byFrequency(static_cast<std::size_t>(nFF));
    std::iota(byFrequency.begin(), byFrequency.end(), 0);
    std::shuffle(byFrequency.begin(), byFrequency.end(), rng);
    std::vector<double> freq(static_cast<std::size_t>(nFF));
    for (std::int64_t r = 0; r < nFF; ++r)
        freq[std::size_t(byFrequency[std::size_t(r)])] = std::min(1.0, 0.195 * std::pow(double(r + 1) / double(nFF), -0.35));
    std::vector<std::vector<std::int32_t>> activeSets(static_cast<std::size_t>(tokens));
    std::uniform_real_distribution<double> u(0.0, 1.0);
    double meanActive = 0;
    for (auto& set : activeSets) {
        for (std::int32_t i = 0; i < nFF; ++i) {
            if (u(rng) < freq[std::size_t(i)])
                set.push_back(i);
        }
        meanActive += double(set.size()) / double(tokens);
    }
    const auto x = randomFloats(static_cast<std::size_t>(nEmbd), 5);
    cpu::ThreadPool pool(threads);

    std::string json = "{\"device\": \"" + jsonEscape(device->info().name) + "\", \"backend\": \""
                       + device->info().backend + "\", \"type\": \"" + std::string(dtypeName(type))
                       + "\", \"n_embd\": " + std::to_string(nEmbd) + ", \"n_ff\": " + std::to_string(nFF)
                       + ", \"threads\": " + std::to_string(pool.size()) + ", \"tokens\": " + std::to_string(tokens)
                       + ", \"mean_active\": " + std::to_string(meanActive) + ", \"runs\": [\n";
    std::printf("%s %lldx%lld, %d threads, %.0f of %lld neurons active per token on average\n",
                std::string(dtypeName(type)).c_str(), static_cast<long long>(nFF), static_cast<long long>(nEmbd),
                pool.size(), meanActive, static_cast<long long>(nFF));
    std::printf("%10s %10s %12s %14s %12s\n", "hot share", "hot", "GPU share", "ms/token", "vs CPU");

    double cpuMs = 0;
    const double shares[] = {0.0, 0.1, 0.25, 0.5, 0.75, 1.0};
    for (std::size_t s = 0; s < std::size(shares); ++s) {
        const auto hotCount = std::int64_t(std::llround(shares[s] * double(nFF)));
        std::vector<std::int32_t> hot(byFrequency.begin(), byFrequency.begin() + hotCount);
        std::sort(hot.begin(), hot.end());
        std::unique_ptr<HybridFfnScratch> scratch;
        if (hotCount > 0) {
            auto sc = HybridFfnScratch::create(*device, nEmbd, hotCount);
            if (!sc) {
                std::printf("%10.2f  does not fit: %s\n", shares[s], sc.message().c_str());
                continue;
            }
            scratch = std::move(*sc);
        }
        auto layer = HybridFfnLayer::create(hotCount > 0 ? device.get() : nullptr, scratch.get(), w, hot);
        if (!layer) {
            std::printf("%10.2f  does not fit: %s\n", shares[s], layer.message().c_str());
            continue;
        }
        std::vector<float> y(static_cast<std::size_t>(nEmbd));
        // Warm-up token, then the timed ones.
        if (!(*layer)->forward(pool, x.data(), activeSets[0].data(), std::int64_t(activeSets[0].size()), y.data()).ok())
            return 1;
        std::vector<double> ms;
        double deviceShare = 0;
        for (const auto& set : activeSets) {
            const auto t0 = std::chrono::steady_clock::now();
            if (!(*layer)->forward(pool, x.data(), set.data(), std::int64_t(set.size()), y.data()).ok())
                return 1;
            ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
            deviceShare += double((*layer)->lastStats().deviceNeurons) / double(std::max<std::size_t>(set.size(), 1))
                           / double(tokens);
        }
        std::sort(ms.begin(), ms.end());
        const double median = ms[ms.size() / 2];
        if (hotCount == 0)
            cpuMs = median;
        std::printf("%10.2f %10lld %11.0f%% %14.3f %11.2fx\n", shares[s], static_cast<long long>(hotCount),
                    100.0 * deviceShare, median, cpuMs > 0 ? cpuMs / median : 0.0);
        char line[256];
        std::snprintf(line, sizeof(line),
                      "  {\"hot_share\": %.2f, \"hot\": %lld, \"device_share\": %.4f, \"ms_per_token\": %.4f}%s\n",
                      shares[s], static_cast<long long>(hotCount), deviceShare, median,
                      s + 1 < std::size(shares) ? "," : "");
        json += line;
    }
    json += "],\n";

    OffloadShape shape;
    shape.nEmbd = nEmbd;
    shape.nFF = nFF;
    if (quick) {
        shape.nHead = 8;
        shape.nHeadKv = 8;
        shape.nLayer = 4;
        shape.contextLength = 128;
        shape.position = 64;
    }
    json += "\"whole_layer_comparison\": "
            + compareWithWholeLayers(*device, pool, type, shape, ffnShare, byFrequency, activeSets) + "}\n";
    if (!out.empty()) {
        const std::string path = out + "/hybrid-bench-" + std::string(dtypeName(type)) + ".json";
        if (!writeFile(path, json))
            std::fprintf(stderr, "cannot write %s\n", path.c_str());
    }
    return 0;
}
