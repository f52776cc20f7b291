// SPDX-License-Identifier: MIT
// hearth-kernel-bench: how close the CPU kernels come to the machine's limits. Decode (one
// token) is judged by weight bytes streamed per second against measured memory bandwidth;
// prefill by GFLOP/s and by how much cheaper a token is than in decode; "cache_gbs" is decode
// of a slice small enough to stay in cache, i.e. the kernel's compute throughput, which must
// stay well above the memory bandwidth for decode to be memory-bound. Every type runs on the
// rows as stored ("layout": "rows") and as the engine keeps them after loading (see
// cpu/weight_pack.h): Q4_0 and the K-quants repacked ("q4x16", "q4kx16", ...), other types copied into huge
// pages ("rows-hugepages").
// "attention" rows time a decoded token's attention over a long context (one layer: every KV head
// with its query heads, as the forward pass calls it), judged by the cache bytes it reads per
// second. Prints JSON.
//
//   hearth-kernel-bench [--threads N] [--isa scalar|avx2|avx512|avx512-vnni] [--quick]
//                       [--type f16|q4_0|q8_0|f32|q4_k|q6_k|iq4_xs|...|attention] [--no-bandwidth]

#include "core/aligned_allocator.h"
#include "cpu/isa.h"
#include "cpu/kernels.h"
#include "cpu/matmul.h"
#include "cpu/memory_bandwidth.h"
#include "cpu/quant.h"
#include "cpu/thread_pool.h"
#include "cpu/weight_pack.h"

#include <algorithm>
#include <chrono>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <string_view>
#include <vector>

using namespace hearth;
using namespace hearth::cpu;

namespace {

const char* layoutName(Packing packing)
{
    switch (packing) {
    case Packing::Q4_0x16:
        return "q4x16";
    case Packing::Q8_0x16:
        return "q8x16";
    case Packing::Q4_Kx16:
        return "q4kx16";
    case Packing::Q5_Kx16:
        return "q5kx16";
    case Packing::Q6_Kx16:
        return "q6kx16";
    case Packing::IQ4_XSx16:
        return "iq4xsx16";
    case Packing::MXFP4x16:
        return "mxfp4x16";
    case Packing::Rows:
        return "rows-hugepages";
    case Packing::None:
        break;
    }
    return "rows";
}

struct Options {
    int threads = 2;
    std::string isa; // empty: every variant the CPU runs
    std::string type; // empty: every type
    bool quick = false;
    bool bandwidth = true;
};

struct Shape {
    std::int64_t rows;
    std::int64_t cols;
};

std::vector<std::uint8_t> makeWeights(DType type, const Shape& s)
{
    const std::size_t stride = rowBytes(type, s.cols);
    std::vector<std::uint8_t> data(stride * static_cast<std::size_t>(s.rows));
    std::mt19937 rng(1);
    std::normal_distribution<float> dist(0.0f, 0.05f);
    std::vector<float> row(static_cast<std::size_t>(s.cols));
    for (std::int64_t r = 0; r < s.rows; ++r) {
        for (float& v : row) {
            v = dist(rng);
        }
        (void)quantizeRow(type, row.data(), data.data() + static_cast<std::size_t>(r) * stride, s.cols);
    }
    return data;
}

// Best time of repeated calls, running for at least @p minSeconds.
template <typename Fn>
double bestSeconds(Fn&& fn, double minSeconds, int minRuns)
{
    fn(); // warm-up: page faults, caches, thread wake-up
    double best = 1e30;
    double total = 0.0;
    for (int run = 0; run < minRuns || total < minSeconds; ++run) {
        const auto start = std::chrono::steady_clock::now();
        fn();
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        best = std::min(best, s);
        total += s;
        if (run > 1000) {
            break;
        }
    }
    return best;
}

bool equalsIgnoringCase(const std::string& a, std::string_view b)
{
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
           });
}

Options parse(int argc, char** argv)
{
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--threads" && i + 1 < argc) {
            o.threads = std::max(1, std::atoi(argv[++i]));
        } else if (arg == "--isa" && i + 1 < argc) {
            o.isa = argv[++i];
        } else if (arg == "--type" && i + 1 < argc) {
            o.type = argv[++i];
        } else if (arg == "--quick") {
            o.quick = true;
        } else if (arg == "--no-bandwidth") {
            o.bandwidth = false;
        } else {
            std::fprintf(stderr, "usage: %s [--threads N] [--isa scalar|avx2|avx512|avx512-vnni] [--quick] "
                                  "[--type f16|q4_0|q8_0|f32|...|attention] [--no-bandwidth]\n", argv[0]);
            std::exit(arg == "--help" || arg == "-h" ? 0 : 2);
        }
    }
    return o;
}

// One layer of Llama 3's decode attention (8 KV heads of 64 or 128, 4 query heads each) at
// @p keys positions, the cache in @p element, for every kernel table: rows of JSON.
void benchDecodeAttention(ThreadPool& pool, const Options& opt, double bandwidth, bool& first)
{
    constexpr int kKvHeads = 8;
    constexpr int kGroup = 4;
    const double minSeconds = opt.quick ? 0.1 : 0.3;
    const std::vector<int> contexts = opt.quick ? std::vector<int>{8192} : std::vector<int>{1024, 8192};
    for (const int headDim : {64, 128}) {
        for (const int keys : contexts) {
            for (const KvElement element : {KvElement::F16, KvElement::Q8_0}) {
                const int kvDim = kKvHeads * headDim;
                const std::size_t rowItems = element == KvElement::Q8_0 ? std::size_t(kvDim / QK8_0) : std::size_t(kvDim);
                const std::size_t itemBytes = element == KvElement::Q8_0 ? sizeof(BlockQ8_0) : sizeof(std::uint16_t);
                const std::size_t layerBytes = 2 * rowItems * itemBytes * std::size_t(keys); // K and V
                // Layers that together exceed the last-level cache, as a real model's do.
                const std::size_t layers = std::max<std::size_t>(2, (std::size_t(256) << 20) / layerBytes + 1);
                // Page-aligned, as model::KvCache keeps it.
                std::vector<std::uint8_t, AlignedAllocator<std::uint8_t>> cache(layers * layerBytes);
                std::mt19937 rng(3);
                std::normal_distribution<float> dist(0.0f, 1.0f);
                std::vector<float> row(static_cast<std::size_t>(kvDim));
                for (std::size_t r = 0; r < cache.size() / (rowItems * itemBytes); ++r) {
                    for (float& v : row) {
                        v = dist(rng);
                    }
                    void* out = cache.data() + r * rowItems * itemBytes;
                    if (element == KvElement::Q8_0) {
                        activeKernels().quantizeRowQ8_0(row.data(), static_cast<BlockQ8_0*>(out), kvDim);
                    } else {
                        activeKernels().convertRowF16(row.data(), static_cast<std::uint16_t*>(out), kvDim);
                    }
                }
                std::vector<float> q(std::size_t(kKvHeads * kGroup * headDim));
                for (float& v : q) {
                    v = dist(rng);
                }
                std::vector<float> out(q.size());
                const std::size_t scratchFloats = attendHeadScratchFloats(keys, headDim);
                std::vector<float> scratch(scratchFloats * std::size_t(pool.size()));
                for (const CpuKernels* k : kernelVariants()) {
                    if ((!opt.isa.empty() && opt.isa != k->name) || k->isa == Isa::Scalar) {
                        continue;
                    }
                    std::size_t layer = 0;
                    const double seconds = bestSeconds(
                        [&] {
                            const std::uint8_t* kBase = cache.data() + layer * layerBytes;
                            const std::uint8_t* vBase = kBase + layerBytes / 2;
                            pool.parallelFor(kKvHeads, [&](std::int64_t begin, std::int64_t end, int thread) {
                                for (std::int64_t h = begin; h < end; ++h) {
                                    AttendHeadArgs a;
                                    const std::size_t offset = element == KvElement::Q8_0
                                                                   ? std::size_t(h * headDim / QK8_0) * itemBytes
                                                                   : std::size_t(h * headDim) * itemBytes;
                                    a.q = q.data() + std::size_t(h * kGroup * headDim);
                                    a.qStride = std::size_t(headDim);
                                    a.nq = kGroup;
                                    a.firstPos = keys - 1;
                                    a.k = kBase + offset;
                                    a.v = vBase + offset;
                                    a.kvType = element;
                                    a.kvStride = rowItems;
                                    a.headDim = headDim;
                                    a.scale = 0.125f;
                                    a.samePosition = true;
                                    a.out = out.data() + std::size_t(h * kGroup * headDim);
                                    a.outStride = std::size_t(headDim);
                                    a.scratch = scratch.data() + scratchFloats * std::size_t(thread);
                                    k->attendHead(a);
                                }
                            });
                            layer = (layer + 1) % layers;
                        },
                        minSeconds, 5);
                    const double gbs = static_cast<double>(layerBytes) / seconds / 1e9;
                    std::printf("%s\n    {\"isa\": \"%s\", \"type\": \"attention\", \"cache\": \"%s\", "
                                "\"head_dim\": %d, \"kv_heads\": %d, \"query_heads_per_kv\": %d, \"keys\": %d, "
                                "\"kv_mb\": %.1f, \"layer_ms\": %.3f, \"kv_gbs\": %.2f, \"bandwidth_fraction\": %.3f}",
                                first ? "" : ",", k->name, element == KvElement::Q8_0 ? "q8_0" : "f16", headDim, kKvHeads,
                                kGroup, keys, static_cast<double>(layerBytes) / 1e6, seconds * 1e3, gbs,
                                bandwidth > 0 ? gbs / bandwidth : 0.0);
                    std::fflush(stdout);
                    first = false;
                }
            }
        }
    }
}

} // namespace

int main(int argc, char** argv)
{
    const Options opt = parse(argc, argv);
    ThreadPool pool(opt.threads);

    const double bandwidth = opt.bandwidth ? measureMemoryBandwidthGBs(pool, std::size_t(1) << 30, opt.quick ? 2 : 4) : 0.0;
    std::printf("{\n  \"threads\": %d,\n  \"cpu_features\": \"%s\",\n  \"detected_isa\": \"%s\",\n"
                "  \"memory_bandwidth_gbs\": %.2f,\n  \"results\": [",
                pool.size(), cpuFeatureString().c_str(), isaName(detectedIsa()), bandwidth);

    const std::vector<Shape> shapes = opt.quick ? std::vector<Shape>{{5632, 2048}}
                                                : std::vector<Shape>{{5632, 2048}, {32000, 2048}};
    const DType types[] = {DType::F16,  DType::Q4_0, DType::Q8_0, DType::F32,  DType::Q4_K,   DType::Q5_K,   DType::Q6_K, DType::IQ4_XS,
                           DType::Q3_K, DType::Q2_K, DType::BF16, DType::Q4_1, DType::Q5_0, DType::Q5_1, DType::IQ4_NL,
                           DType::MXFP4};
    constexpr std::int64_t kPrefillTokens = 128;
    const double minSeconds = opt.quick ? 0.1 : 0.3;

    bool first = true;
    for (const Shape& shape : shapes) {
        std::vector<float> x(static_cast<std::size_t>(shape.cols * kPrefillTokens));
        std::mt19937 rng(2);
        std::normal_distribution<float> dist(0.0f, 1.0f);
        for (float& v : x) {
            v = dist(rng);
        }
        std::vector<float> y(static_cast<std::size_t>(shape.rows * kPrefillTokens));
        for (DType type : types) {
            if (type == DType::F32 && shape.rows > 8192) {
                continue; // 250 MB of weights says nothing the F16 run does not
            }
            if (!opt.type.empty() && !equalsIgnoringCase(opt.type, dtypeName(type))) {
                continue;
            }
            const std::vector<std::uint8_t> weights = makeWeights(type, shape);
            const double bytes = static_cast<double>(weights.size());
            // Decode cycles through copies that together exceed the last-level cache, so every
            // call streams its weights from DRAM as a real model's layers do.
            const std::size_t copies = std::max<std::size_t>(1, (std::size_t(256) << 20) / weights.size() + 1);
            std::vector<std::vector<std::uint8_t>> copy(copies, weights);
            // Prefill is compute-bound and costs the same per row, so it is timed on row slices:
            // short calls keep the best-of timing meaningful on a machine shared with other work.
            // The in-cache decode uses a slice of at most ~1 MiB.
            const std::int64_t sliceRows = std::min<std::int64_t>(shape.rows, 512);
            const double sliceScale = static_cast<double>(shape.rows) / static_cast<double>(sliceRows);
            const std::int64_t cacheRows = std::clamp<std::int64_t>(
                static_cast<std::int64_t>((std::size_t(1) << 20) / rowBytes(type, shape.cols)) / 16 * 16, 16, shape.rows);
            for (const CpuKernels* k : kernelVariants()) {
                if (!opt.isa.empty() && opt.isa != k->name) {
                    continue;
                }
                for (const bool packed : {false, true}) {
                    // Views of the copies (and the slices) in this layout.
                    PackedWeightStore store;
                    std::vector<WeightMatrix> views;
                    for (const auto& c : copy) {
                        views.push_back({type, c.data(), shape.rows, shape.cols});
                        if (packed && !store.packFor(*k, views.back())) {
                            break;
                        }
                    }
                    if (packed && store.bytes() == 0) {
                        continue; // no packed layout for this type and table
                    }
                    WeightMatrix slice{type, weights.data(), sliceRows, shape.cols};
                    WeightMatrix cached{type, weights.data(), cacheRows, shape.cols};
                    if (packed) {
                        (void)store.packFor(*k, slice);
                        (void)store.packFor(*k, cached);
                    }
                    std::size_t next = 0;
                    const double decode = bestSeconds(
                        [&] {
                            matmulWith(*k, pool, views[next], x.data(), 1, y.data());
                            next = (next + 1) % views.size();
                        },
                        minSeconds, 5);
                    const double cacheDecode =
                        bestSeconds([&] { matmulWith(*k, pool, cached, x.data(), 1, y.data()); }, minSeconds / 4, 20);
                    const bool scalar = k->isa == Isa::Scalar;
                    double prefill = 0.0;
                    if (!scalar) { // the reference path would take minutes
                        prefill = sliceScale *
                                  bestSeconds([&] { matmulWith(*k, pool, slice, x.data(), kPrefillTokens, y.data()); },
                                              minSeconds, 5);
                    }
                    const double decodeGBs = bytes / decode / 1e9;
                    const double cacheGBs =
                        static_cast<double>(rowBytes(type, shape.cols)) * static_cast<double>(cacheRows) / cacheDecode / 1e9;
                    std::printf("%s\n    {\"isa\": \"%s\", \"type\": \"%s\", \"layout\": \"%s\", \"rows\": %lld, "
                                "\"cols\": %lld, \"weight_mb\": %.1f, \"decode_ms\": %.3f, \"decode_gbs\": %.2f, "
                                "\"decode_bandwidth_fraction\": %.3f, \"cache_gbs\": %.2f",
                                first ? "" : ",", k->name, std::string(dtypeName(type)).c_str(),
                                layoutName(packed ? views.front().packing : Packing::None), static_cast<long long>(shape.rows),
                                static_cast<long long>(shape.cols), bytes / 1e6, decode * 1e3, decodeGBs,
                                bandwidth > 0 ? decodeGBs / bandwidth : 0.0, cacheGBs);
                    if (prefill > 0.0) {
                        const double flops = 2.0 * static_cast<double>(shape.rows * shape.cols * kPrefillTokens);
                        // Rows without an interleaved copy are packed as the prompt uses them.
                        std::printf(", \"prefill_tokens\": %lld, \"prefill_ms\": %.2f, \"prefill_gflops\": %.1f, "
                                    "\"prefill_speedup_per_token\": %.2f, \"prefill_packed_as_used\": %s",
                                    static_cast<long long>(kPrefillTokens), prefill * 1e3, flops / prefill / 1e9,
                                    decode / (prefill / static_cast<double>(kPrefillTokens)),
                                    packsAsUsed(*k, slice, kPrefillTokens) ? "true" : "false");
                    }
                    std::printf("}");
                    std::fflush(stdout);
                    first = false;
                }
            }
        }
    }
    if (opt.type.empty() || equalsIgnoringCase(opt.type, "attention")) {
        benchDecodeAttention(pool, opt, bandwidth, first);
    }
    std::printf("\n  ]\n}\n");
    return 0;
}
