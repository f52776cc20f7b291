// SPDX-License-Identifier: MIT
// hearth-bench: prefill and decode speed of a model, and how close decode comes to the
// machine's memory bandwidth (decode reads every weight once per token, so bandwidth bounds it).

#include "device_params.h"
#include "draft_options.h"
#include "json_writer.h"
#include "tool_options.h"

#include "core/dtype.h"
#include "cpu/isa.h"
#include "cpu/thread_pool.h"
#include "cpu/memory_bandwidth.h"
#include "gguf/gguf_file.h"
#include "sparse/sparse_ffn.h"

#include <hearth/hearth.h>

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <memory>
#include <string>
#include <vector>

using namespace hearth;

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start)
{
    return std::chrono::duration<double>(Clock::now() - start).count();
}

double median(std::vector<double> values)
{
    if (values.empty())
        return 0;
    std::sort(values.begin(), values.end());
    const std::size_t mid = values.size() / 2;
    return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

// Weight bytes one decoded token reads: every matrix once, plus the token's embedding row.
// Norm vectors are a rounding error and left out. With tied embeddings (no output.weight) the
// whole embedding matrix is read by the output projection. Of a mixture's stacked experts
// (ffn_*_exps) a token reads only the ones it is routed to: expert_used_count of expert_count.
std::uint64_t weightBytesPerToken(const gguf::GgufFile& file)
{
    std::uint64_t bytes = 0;
    const gguf::TensorInfo* embedding = file.findTensor("token_embd.weight");
    const bool tied = file.findTensor("output.weight") == nullptr;
    const std::string arch = file.getString("general.architecture").value_or("");
    const std::int64_t experts = file.getInt(arch + ".expert_count").value_or(0);
    const std::int64_t used = file.getInt(arch + ".expert_used_count").value_or(0);
    for (const auto& t : file.tensors()) {
        if (&t == embedding || t.shape.size() < 2)
            continue;
        if (experts > 0 && used > 0 && t.name.ends_with("_exps.weight"))
            bytes += t.byteSize / static_cast<std::uint64_t>(experts) * static_cast<std::uint64_t>(used);
        else
            bytes += t.byteSize;
    }
    if (embedding) {
        if (tied)
            bytes += embedding->byteSize;
        else if (embedding->rows() > 0)
            bytes += embedding->byteSize / static_cast<std::uint64_t>(embedding->rows());
    }
    return bytes;
}

// Peak resident set (VmHWM), in bytes. Mapped weights count once they have been touched.
std::uint64_t peakRssBytes()
{
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.rfind("VmHWM:", 0) == 0)
            return std::stoull(line.substr(6)) * 1024;
    }
    rusage usage{};
    if (::getrusage(RUSAGE_SELF, &usage) == 0)
        return static_cast<std::uint64_t>(usage.ru_maxrss) * 1024; // kilobytes on Linux
    return 0;
}

std::string cpuModelName()
{
    std::ifstream cpuinfo("/proc/cpuinfo");
    std::string line;
    while (std::getline(cpuinfo, line)) {
        if (line.rfind("model name", 0) == 0) {
            const std::size_t colon = line.find(':');
            if (colon != std::string::npos)
                return line.substr(line.find_first_not_of(' ', colon + 1));
        }
    }
    return "unknown";
}

// Prompt tokens for the benchmark: a fixed pseudo-random mix of ordinary tokens after BOS, so
// runs are comparable and no control token (EOS) ends anything early.
std::vector<Token> benchmarkTokens(const Tokenizer& tokenizer, int count)
{
    std::vector<Token> tokens;
    const int vocab = tokenizer.vocabSize();
    if (tokenizer.bos() != InvalidToken && count > 0)
        tokens.push_back(tokenizer.bos());
    std::uint32_t state = 12345;
    int guard = 0;
    while (static_cast<int>(tokens.size()) < count && guard++ < count * 100) {
        state = state * 1664525u + 1013904223u;
        const Token t = static_cast<Token>((state >> 8) % static_cast<std::uint32_t>(vocab));
        if (!tokenizer.isControl(t))
            tokens.push_back(t);
    }
    while (static_cast<int>(tokens.size()) < count)
        tokens.push_back(0);
    return tokens;
}

struct Measurement {
    double prefillSeconds = 0;
    double decodeSeconds = 0;
    double decodeCpuSeconds = 0; // all threads: a busy shared machine slows wall time, not this
};

double cpuSeconds();

// One repetition: the cache cut back to its first @p depth tokens (0: empty), prefill @p prompt,
// then decode @p decodeTokens one by one.
Result<Measurement> measure(Session& session, std::span<const Token> prompt, std::span<const Token> decodeTokens,
                            int depth = 0)
{
    Measurement m;
    session.truncate(depth);
    auto start = Clock::now();
    HEARTH_TRY(session.prefill(prompt));
    m.prefillSeconds = secondsSince(start);
    start = Clock::now();
    const double cpuStart = cpuSeconds();
    for (Token t : decodeTokens)
        HEARTH_TRY(session.decode(t));
    m.decodeSeconds = secondsSince(start);
    m.decodeCpuSeconds = cpuSeconds() - cpuStart;
    return m;
}

// Weight bytes of the tensors whose names end in one of @p suffixes.
std::uint64_t tensorBytes(const gguf::GgufFile& file, std::initializer_list<const char*> suffixes)
{
    std::uint64_t bytes = 0;
    for (const auto& t : file.tensors()) {
        for (const char* suffix : suffixes) {
            if (t.name.ends_with(suffix))
                bytes += t.byteSize;
        }
    }
    return bytes;
}

// Weight bytes of the predictors (fc1/fc2), which only the sparse path reads.
std::uint64_t predictorBytes(const gguf::GgufFile& file)
{
    return tensorBytes(file, {".fc1.weight", ".fc2.weight"});
}

// Weight bytes the sparse kernels may read in part: the FFN neurons (gate, up, down in any
// layout) and the input-major projections of magnitude files.
std::uint64_t ffnBytes(const gguf::GgufFile& file)
{
    return tensorBytes(file, {".ffn_gate.weight", ".ffn_up.weight", ".ffn_down.weight", ".ffn_down_t.weight",
                              ".ffn_neurons.weight", ".ffn_gate_t.weight", ".ffn_up_t.weight", ".attn_q_t.weight",
                              ".attn_k_t.weight", ".attn_v_t.weight", ".attn_output_t.weight"});
}

double cpuSeconds()
{
    rusage usage{};
    if (::getrusage(RUSAGE_SELF, &usage) != 0)
        return 0;
    return double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + 1e-6 * double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
}

// Decode speed of one FFN mode in a fresh session, median of
// @p repetitions, plus the FFN bytes the sparse path touched per decoded token.
struct ModeResult {
    double decode = 0;           // tokens per second (median)
    double cpuPerToken = 0;      // CPU seconds per decoded token (all threads)
    double ffnBytesPerToken = 0; // measured by the sparse FFN's counters (0 on the dense path)
};

Result<ModeResult> measureMode(const std::shared_ptr<const Model>& model, const SessionParams& params, bool dense,
                               std::span<const Token> prompt, std::span<const Token> decodeTokens, int repetitions)
{
    SessionParams modeParams = params;
    modeParams.denseFfn = dense;
    auto session = Session::create(model, modeParams);
    if (!session)
        return session.status();
    ModeResult r;
    std::vector<double> rates;
    HEARTH_TRY(measure(**session, prompt.first(std::min<std::size_t>(prompt.size(), 16)), decodeTokens.first(std::min<std::size_t>(decodeTokens.size(), 4))));
    double cpu = 0;
    for (int i = 0; i < repetitions; ++i) {
        (*session)->reset();
        HEARTH_TRY((*session)->prefill(prompt));
        sparse::resetFfnTraffic();
        const double cpuStart = cpuSeconds();
        const auto start = Clock::now();
        for (Token t : decodeTokens)
            HEARTH_TRY((*session)->decode(t));
        const double seconds = secondsSince(start);
        cpu += cpuSeconds() - cpuStart;
        rates.push_back(seconds > 0 ? double(decodeTokens.size()) / seconds : 0);
        r.ffnBytesPerToken = double(sparse::ffnTraffic().bytes) / double(decodeTokens.size());
    }
    r.decode = median(rates);
    r.cpuPerToken = cpu / (double(repetitions) * double(decodeTokens.size()));
    return r;
}

// Greedy generation from the prompt, token by token and with a drafter's guesses, alternating in
// one fresh session: tokens per second of each (medians) and how many guesses were taken.
struct GuessResult {
    double plain = 0;
    double guessed = 0;
    int drafted = 0;
    int accepted = 0;
};

Result<GuessResult> measureGuesses(const std::shared_ptr<const Model>& model, const SessionParams& params,
                                   Drafter& drafter, std::span<const Token> prompt, int tokens, int repetitions)
{
    auto session = Session::create(model, params);
    if (!session)
        return session.status();
    GuessResult r;
    std::vector<double> plain;
    std::vector<double> guessed;
    for (int i = 0; i < repetitions; ++i) {
        for (Drafter* d : {static_cast<Drafter*>(nullptr), &drafter}) {
            (*session)->reset();
            Sampler sampler(SamplingParams::greedy());
            auto stats = (*session)->generate(prompt, sampler, tokens, nullptr, d);
            if (!stats)
                return stats.status();
            (d ? guessed : plain).push_back(stats->generateSeconds > 0 ? stats->generatedTokens / stats->generateSeconds : 0);
            r.drafted += stats->draftedTokens;
            r.accepted += stats->acceptedTokens;
        }
    }
    r.plain = median(plain);
    r.guessed = median(guessed);
    return r;
}

} // namespace

int main(int argc, char** argv)
{
    std::string modelPath;
    int threads = 0;
    int promptTokens = 128;
    int generateTokens = 64;
    int repetitions = 5;
    int depth = 0;
    bool json = false;
    bool skipBandwidth = false;
    bool dense = false;
    bool promptCopies = false;
    float memoryBudgetGiB = 0.0f;
    tools::ToolOptions options("hearth-bench", "Measures prefill and decode speed against the machine's memory bandwidth.");
    options.addString("-m,--model", "FILE", "model file (GGUF)", &modelPath);
    options.addInt("-t,--threads", "N", "threads (default: one per physical core)", &threads, 0, 1024);
    options.addInt("-p,--n-prompt", "N", "prompt tokens to prefill (default 128)", &promptTokens, 1, 1 << 16);
    options.addInt("-n,--n-gen", "N", "tokens to decode (default 64)", &generateTokens, 1, 1 << 16);
    options.addInt("-r,--repetitions", "N", "repetitions; the median is reported (default 5)", &repetitions, 1, 1000);
    options.addInt("-d,--depth", "N",
                   "tokens already in the context when the prompt and the decode are measured, as llama-bench's "
                   "-d (default 0; they are prefilled once, untimed)",
                   &depth, 0, 1 << 20);
    options.addFlag("--json", "print the results as one JSON object", &json);
    options.addFlag("--no-bandwidth", "skip the memory bandwidth measurement", &skipBandwidth);
    options.addFlag("--dense", "sparse models: run the dense FFN only (default: sparse, then dense for comparison)",
                    &dense);
    options.addFloat("--memory-budget", "GIB",
                     "memory the weights' repacked copies may take; the rest is read from the file mapping "
                     "(default: what the system has available)",
                     &memoryBudgetGiB);
    options.addFlag("--prompt-copies",
                    "sparse models: keep the FFN laid out as a dense file's too, for prompts (more memory)",
                    &promptCopies);
    tools::DeviceOptions device;
    options.addDeviceOptions(&device);
    tools::DraftOptions draft;
    tools::addDraftOptions(options, &draft);
    switch (options.parse(argc, argv)) {
    case tools::ToolOptions::Outcome::ExitSuccess: return 0;
    case tools::ToolOptions::Outcome::ExitFailure: return 1;
    case tools::ToolOptions::Outcome::Run: break;
    }
    if (modelPath.empty()) {
        std::fprintf(stderr, "hearth-bench: no model given (-m FILE)\nTry 'hearth-bench --help' for more information.\n");
        return 1;
    }

    auto file = gguf::GgufFile::open(modelPath);
    if (!file) {
        std::fprintf(stderr, "hearth-bench: cannot open '%s': %s\n", modelPath.c_str(), file.message().c_str());
        return 1;
    }
    const std::uint64_t bytesPerToken = weightBytesPerToken(**file);

    LoadParams loadParams;
    loadParams.memoryBudgetBytes = std::uint64_t(std::max(0.0, double(memoryBudgetGiB)) * double(1ULL << 30));
    loadParams.sparsePromptCopies = promptCopies;
    auto model = Model::load(modelPath, loadParams);
    if (!model) {
        std::fprintf(stderr, "hearth-bench: cannot load '%s': %s\n", modelPath.c_str(), model.message().c_str());
        return 1;
    }
    SessionParams sessionParams;
    sessionParams.threads = threads;
    sessionParams.denseFfn = dense;
    sessionParams.contextLength = depth + promptTokens + generateTokens + 8;
    sessionParams.batchSize = std::max(sessionParams.batchSize, promptTokens);
    tools::applyDeviceOptions(device, sessionParams);
    auto session = Session::create(*model, sessionParams);
    if (!session) {
        std::fprintf(stderr, "hearth-bench: cannot start a session: %s\n", session.message().c_str());
        return 1;
    }
    const std::string placement = (*session)->placementReport();
    std::fprintf(stderr, "placement: %s\n", placement.c_str());
    auto drafter = tools::makeDrafter(draft, **session, sessionParams);
    if (!drafter) {
        std::fprintf(stderr, "hearth-bench: %s\n", drafter.message().c_str());
        return 1;
    }
    const int threadCount = threads > 0 ? threads : cpu::ThreadPool::physicalCoreCount();

    const std::vector<Token> all = benchmarkTokens((*model)->tokenizer(), depth + promptTokens + generateTokens);
    const std::span<const Token> context(all.data(), static_cast<std::size_t>(depth));
    const std::span<const Token> prompt(all.data() + depth, static_cast<std::size_t>(promptTokens));
    const std::span<const Token> decodeTokens(all.data() + depth + promptTokens, static_cast<std::size_t>(generateTokens));

    // Warm-up: faults the mapped weights in and lets the CPU clock settle.
    if (auto warm = measure(**session, prompt.first(std::min<std::size_t>(prompt.size(), 16)), decodeTokens.first(std::min<std::size_t>(decodeTokens.size(), 4))); !warm) {
        std::fprintf(stderr, "hearth-bench: %s\n", warm.message().c_str());
        return 1;
    }
    if (depth > 0) {
        if (!json)
            std::fprintf(stderr, "prefilling a context of %d tokens\n", depth);
        (*session)->reset();
        if (const Status filled = (*session)->prefill(context); !filled.ok()) {
            std::fprintf(stderr, "hearth-bench: %s\n", filled.message().c_str());
            return 1;
        }
    }
    // The bandwidth probe runs before every repetition and after the last one, with as many
    // threads as the session, so each decode lies between two probes taken under the same
    // conditions; its buffer is made now, after the warm-up, and its pages are left out of the
    // peak RSS below.
    const std::uint64_t peakRssBeforeProbe = peakRssBytes();
    std::unique_ptr<cpu::ThreadPool> probePool;
    std::unique_ptr<cpu::BandwidthProbe> probe;
    if (!skipBandwidth) {
        probePool = std::make_unique<cpu::ThreadPool>(threadCount);
        probe = std::make_unique<cpu::BandwidthProbe>(*probePool);
        if (!probe->valid())
            std::fprintf(stderr, "hearth-bench: no memory for the bandwidth probe; bandwidth not measured\n");
    }
    std::vector<double> probeRates;
    const auto runProbe = [&] {
        if (probe && probe->valid())
            probeRates.push_back(probe->measure());
    };
    std::vector<double> prefillRates;
    std::vector<double> decodeRates;
    double decodeCpu = 0;
    for (int r = 0; r < repetitions; ++r) {
        runProbe();
        auto m = measure(**session, prompt, decodeTokens, depth);
        if (!m) {
            std::fprintf(stderr, "hearth-bench: %s\n", m.message().c_str());
            return 1;
        }
        prefillRates.push_back(m->prefillSeconds > 0 ? promptTokens / m->prefillSeconds : 0);
        decodeRates.push_back(m->decodeSeconds > 0 ? generateTokens / m->decodeSeconds : 0);
        decodeCpu += m->decodeCpuSeconds;
        if (!json && !probeRates.empty())
            std::fprintf(stderr, "  run %d/%d: probe %.2f GB/s, prefill %.2f tok/s, decode %.2f tok/s\n", r + 1,
                         repetitions, probeRates.back(), prefillRates.back(), decodeRates.back());
        else if (!json)
            std::fprintf(stderr, "  run %d/%d: prefill %.2f tok/s, decode %.2f tok/s\n", r + 1, repetitions,
                         prefillRates.back(), decodeRates.back());
    }
    runProbe();
    // Each repetition's decode GB/s over the mean of the probes just before and after it.
    std::vector<double> pairedFractions;
    for (std::size_t r = 0; r + 1 < probeRates.size() && r < decodeRates.size(); ++r) {
        const double around = (probeRates[r] + probeRates[r + 1]) / 2;
        if (around > 0)
            pairedFractions.push_back(decodeRates[r] * static_cast<double>(bytesPerToken) / 1e9 / around);
    }
    const std::size_t probeBytes = probe && probe->valid() ? probe->bytes() : 0;
    probe.reset();
    probePool.reset();
    // The comparison sessions below place their own hot neurons: this session (and its device
    // memory) goes first, so they get the same budget.
    std::unique_ptr<Session>& mainSession = *session;
    mainSession.reset();
    // Sparse models: the same decode with the dense FFN, and the bytes each path touches.
    const bool magnitude = (*model)->info().magnitudeSparse;
    const bool sparseModel = ((*model)->info().sparse || magnitude) && !dense;
    ModeResult sparseMode, denseMode;
    const std::uint64_t predictor = predictorBytes(**file);
    const std::uint64_t ffn = ffnBytes(**file);
    const std::uint64_t denseBytes = bytesPerToken - predictor;
    double sparseBytes = 0;
    if (sparseModel) {
        auto s = measureMode(*model, sessionParams, false, prompt, decodeTokens, repetitions);
        auto d = s ? measureMode(*model, sessionParams, true, prompt, decodeTokens, repetitions) : Result<ModeResult>(s.status());
        if (!s || !d) {
            std::fprintf(stderr, "hearth-bench: %s\n", (!s ? s.message() : d.message()).c_str());
            return 1;
        }
        sparseMode = *s;
        denseMode = *d;
        // Magnitude-sparse layers read their gate densely, outside the sparse kernels' counters,
        // unless it is input-major (ffn_gate_t).
        const std::uint64_t gate = magnitude ? tensorBytes(**file, {".ffn_gate.weight"}) : 0;
        sparseBytes = double(denseBytes - ffn) + double(predictor) + double(gate) + sparseMode.ffnBytesPerToken;
    }
    GuessResult guesses;
    if (*drafter) {
        auto measured = measureGuesses(*model, sessionParams, **drafter, prompt, generateTokens, repetitions);
        if (!measured) {
            std::fprintf(stderr, "hearth-bench: %s\n", measured.message().c_str());
            return 1;
        }
        guesses = *measured;
    }
    const double theoreticalRatio = sparseBytes > 0 ? double(denseBytes) / sparseBytes : 0;
    const double achievedRatio = denseMode.decode > 0 ? sparseMode.decode / denseMode.decode : 0;
    const double cpuRatio = sparseMode.cpuPerToken > 0 ? denseMode.cpuPerToken / sparseMode.cpuPerToken : 0;

    const double decodeCpuPerToken = decodeCpu / (double(repetitions) * double(generateTokens));
    const double prefill = median(prefillRates);
    const double decode = median(decodeRates);
    const double achievedGBs = decode * static_cast<double>(bytesPerToken) / 1e9;

    // The probe's buffer stayed resident from its creation to its release, so the high-water
    // mark less its size is the benchmark's own peak while it existed.
    const std::uint64_t peakRssEnd = peakRssBytes();
    const std::uint64_t peakRss =
        std::max(peakRssBeforeProbe, peakRssEnd > probeBytes ? peakRssEnd - probeBytes : std::uint64_t(0));
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double bandwidthGBs = probeRates.empty() ? nan : median(probeRates);
    const double bandwidthMin = probeRates.empty() ? nan : *std::min_element(probeRates.begin(), probeRates.end());
    const double bandwidthMax = probeRates.empty() ? nan : *std::max_element(probeRates.begin(), probeRates.end());
    const double bandwidthFraction = bandwidthGBs > 0 ? achievedGBs / bandwidthGBs : nan;
    const double pairedFraction = pairedFractions.empty() ? nan : median(pairedFractions);
    const double prefillOverDecode = decode > 0 ? prefill / decode : 0;
    const ModelInfo& info = (*model)->info();
    const std::string isa = cpu::isaName(cpu::activeIsa());

    if (json) {
        tools::JsonWriter out;
        out.add("model", info.path.empty() ? modelPath : info.path);
        out.add("model_name", info.name);
        out.add("weight_type", info.weightType);
        out.add("parameters", info.parameterCount);
        out.add("bytes_left_mapped", info.bytesLeftMapped);
        out.add("prompt_copy_bytes", info.promptCopyBytes);
        out.add("threads", threadCount);
        out.add("isa", isa);
        out.add("cpu", cpuModelName());
        out.add("prompt_tokens", promptTokens);
        out.add("depth", depth);
        out.add("generated_tokens", generateTokens);
        out.add("repetitions", repetitions);
        out.add("prefill_tokens_per_second", prefill);
        out.add("decode_tokens_per_second", decode);
        out.add("prefill_over_decode", prefillOverDecode);
        out.add("weight_bytes_per_token", bytesPerToken);
        out.add("achieved_gb_per_second", achievedGBs);
        out.add("memory_bandwidth_gb_per_second", bandwidthGBs);
        out.add("bandwidth_fraction", bandwidthFraction);
        out.add("bandwidth_probes", static_cast<std::int64_t>(probeRates.size()));
        out.add("bandwidth_probe_bytes", static_cast<std::uint64_t>(probeBytes));
        out.add("memory_bandwidth_min_gb_per_second", bandwidthMin);
        out.add("memory_bandwidth_max_gb_per_second", bandwidthMax);
        out.add("bandwidth_fraction_paired", pairedFraction);
        out.add("peak_rss_bytes", peakRss);
        out.add("decode_cpu_seconds_per_token", decodeCpuPerToken);
        out.add("ffn_mode", sparseModel ? "sparse" : "dense");
        out.add("placement", placement);
        if (sparseModel) {
            out.add("sparse_decode_tokens_per_second", sparseMode.decode);
            out.add("dense_decode_tokens_per_second", denseMode.decode);
            out.add("sparse_cpu_seconds_per_token", sparseMode.cpuPerToken);
            out.add("dense_cpu_seconds_per_token", denseMode.cpuPerToken);
            out.add("sparse_bytes_per_token", sparseBytes);
            out.add("dense_bytes_per_token", denseBytes);
            out.add("predictor_bytes_per_token", predictor);
            out.add("sparse_ffn_bytes_per_token", sparseMode.ffnBytesPerToken);
            out.add("theoretical_speedup", theoreticalRatio);
            out.add("achieved_speedup", achievedRatio);
            out.add("achieved_speedup_cpu_time", cpuRatio);
            out.add("fraction_of_theoretical", theoreticalRatio > 0 ? achievedRatio / theoreticalRatio : 0);
        }
        if (*drafter) {
            out.add("greedy_tokens_per_second", guesses.plain);
            out.add("speculative_tokens_per_second", guesses.guessed);
            out.add("speculative_speedup", guesses.plain > 0 ? guesses.guessed / guesses.plain : 0);
            out.add("draft_tokens", static_cast<std::int64_t>(guesses.drafted));
            out.add("draft_tokens_accepted", static_cast<std::int64_t>(guesses.accepted));
        }
        std::printf("%s\n", out.str().c_str());
        return 0;
    }
    std::printf("model:          %s (%s, %s)\n", info.name.c_str(), info.weightType.c_str(), tools::formatBytes(info.fileSize).c_str());
    if (info.bytesLeftMapped > 0)
        std::printf("memory short:   %s of weights read through the file mapping\n",
                    tools::formatBytes(info.bytesLeftMapped).c_str());
    if (info.promptCopyBytes > 0)
        std::printf("prompt copies:  %s of sparse layers laid out for prompts\n", tools::formatBytes(info.promptCopyBytes).c_str());
    std::printf("threads / ISA:  %d / %s (%s)\n", threadCount, isa.c_str(), cpuModelName().c_str());
    std::printf("prefill:        %.2f tok/s (%d tokens, median of %d)\n", prefill, promptTokens, repetitions);
    std::printf("decode:         %.2f tok/s (%d tokens, median of %d)\n", decode, generateTokens, repetitions);
    if (depth > 0)
        std::printf("context depth:  %d tokens before the prompt\n", depth);
    std::printf("decode CPU:     %.2f ms per token (all threads)\n", decodeCpuPerToken * 1e3);
    std::printf("prefill/decode: %.2fx per token\n", prefillOverDecode);
    std::printf("weights/token:  %s -> %.2f GB/s\n", tools::formatBytes(bytesPerToken).c_str(), achievedGBs);
    if (std::isfinite(bandwidthGBs))
        std::printf("bandwidth:      %.2f GB/s (median of %zu probes between the runs, %.2f-%.2f) -> decode at %.0f%% "
                    "(run by run against the probes around it: %.0f%%)\n",
                    bandwidthGBs, probeRates.size(), bandwidthMin, bandwidthMax, bandwidthFraction * 100, pairedFraction * 100);
    else
        std::printf("bandwidth:      not measured\n");
    std::printf("peak RSS:       %s\n", tools::formatBytes(peakRss).c_str());
    if (sparseModel) {
        std::printf("sparse decode:  %.2f tok/s, %.2f ms CPU/token, %s/token (predictors %s)\n", sparseMode.decode,
                    sparseMode.cpuPerToken * 1e3, tools::formatBytes(std::uint64_t(sparseBytes)).c_str(),
                    tools::formatBytes(predictor).c_str());
        std::printf("dense decode:   %.2f tok/s, %.2f ms CPU/token, %s/token\n", denseMode.decode,
                    denseMode.cpuPerToken * 1e3, tools::formatBytes(denseBytes).c_str());
        std::printf("speed-up:       %.2fx (CPU time %.2fx) of %.2fx theoretical -> %.0f%%\n", achievedRatio, cpuRatio,
                    theoreticalRatio, theoreticalRatio > 0 ? 100 * achievedRatio / theoreticalRatio : 0);
    }
    if (*drafter) {
        std::printf("speculative:    %.2f tok/s greedy with guesses, %.2f without (%.2fx); %d of %d guesses taken\n",
                    guesses.guessed, guesses.plain, guesses.plain > 0 ? guesses.guessed / guesses.plain : 0,
                    guesses.accepted, guesses.drafted);
    }
    return 0;
}
