// SPDX-License-Identifier: MIT
// hearth-bench: prefill and decode speed of a model, and how close decode comes to the
// machine's memory bandwidth (decode reads every weight once per token, so bandwidth bounds it).

#include "json_writer.h"
#include "tool_options.h"

#include "core/dtype.h"
#include "cpu/isa.h"
#include "cpu/thread_pool.h"
#include "cpu/memory_bandwidth.h"
#include "gguf/gguf_file.h"

#include <hearth/hearth.h>

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
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
// whole embedding matrix is read by the output projection.
std::uint64_t weightBytesPerToken(const gguf::GgufFile& file)
{
    std::uint64_t bytes = 0;
    const gguf::TensorInfo* embedding = file.findTensor("token_embd.weight");
    const bool tied = file.findTensor("output.weight") == nullptr;
    for (const auto& t : file.tensors()) {
        if (&t == embedding || t.shape.size() < 2)
            continue;
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
};

// One repetition: empty cache, prefill @p prompt, then decode @p decodeTokens one by one.
Result<Measurement> measure(Session& session, std::span<const Token> prompt, std::span<const Token> decodeTokens)
{
    Measurement m;
    session.reset();
    auto start = Clock::now();
    HEARTH_TRY(session.prefill(prompt));
    m.prefillSeconds = secondsSince(start);
    start = Clock::now();
    for (Token t : decodeTokens)
        HEARTH_TRY(session.decode(t));
    m.decodeSeconds = secondsSince(start);
    return m;
}

} // namespace

int main(int argc, char** argv)
{
    std::string modelPath;
    int threads = 0;
    int promptTokens = 128;
    int generateTokens = 64;
    int repetitions = 5;
    bool json = false;
    bool skipBandwidth = false;
    tools::ToolOptions options("hearth-bench", "Measures prefill and decode speed against the machine's memory bandwidth.");
    options.addString("-m,--model", "FILE", "model file (GGUF)", &modelPath);
    options.addInt("-t,--threads", "N", "threads (default: one per physical core)", &threads, 0, 1024);
    options.addInt("-p,--n-prompt", "N", "prompt tokens to prefill (default 128)", &promptTokens, 1, 1 << 16);
    options.addInt("-n,--n-gen", "N", "tokens to decode (default 64)", &generateTokens, 1, 1 << 16);
    options.addInt("-r,--repetitions", "N", "repetitions; the median is reported (default 5)", &repetitions, 1, 1000);
    options.addFlag("--json", "print the results as one JSON object", &json);
    options.addFlag("--no-bandwidth", "skip the memory bandwidth measurement", &skipBandwidth);
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

    auto model = Model::load(modelPath);
    if (!model) {
        std::fprintf(stderr, "hearth-bench: cannot load '%s': %s\n", modelPath.c_str(), model.message().c_str());
        return 1;
    }
    SessionParams sessionParams;
    sessionParams.threads = threads;
    sessionParams.contextLength = promptTokens + generateTokens + 8;
    sessionParams.batchSize = std::max(sessionParams.batchSize, promptTokens);
    auto session = Session::create(*model, sessionParams);
    if (!session) {
        std::fprintf(stderr, "hearth-bench: cannot start a session: %s\n", session.message().c_str());
        return 1;
    }
    const int threadCount = threads > 0 ? threads : cpu::ThreadPool::physicalCoreCount();

    const std::vector<Token> all = benchmarkTokens((*model)->tokenizer(), promptTokens + generateTokens);
    const std::span<const Token> prompt(all.data(), static_cast<std::size_t>(promptTokens));
    const std::span<const Token> decodeTokens(all.data() + promptTokens, static_cast<std::size_t>(generateTokens));

    // Warm-up: faults the mapped weights in and lets the CPU clock settle.
    if (auto warm = measure(**session, prompt.first(std::min<std::size_t>(prompt.size(), 16)), decodeTokens.first(std::min<std::size_t>(decodeTokens.size(), 4))); !warm) {
        std::fprintf(stderr, "hearth-bench: %s\n", warm.message().c_str());
        return 1;
    }
    std::vector<double> prefillRates;
    std::vector<double> decodeRates;
    for (int r = 0; r < repetitions; ++r) {
        auto m = measure(**session, prompt, decodeTokens);
        if (!m) {
            std::fprintf(stderr, "hearth-bench: %s\n", m.message().c_str());
            return 1;
        }
        prefillRates.push_back(m->prefillSeconds > 0 ? promptTokens / m->prefillSeconds : 0);
        decodeRates.push_back(m->decodeSeconds > 0 ? generateTokens / m->decodeSeconds : 0);
        if (!json)
            std::fprintf(stderr, "  run %d/%d: prefill %.2f tok/s, decode %.2f tok/s\n", r + 1, repetitions,
                         prefillRates.back(), decodeRates.back());
    }
    const double prefill = median(prefillRates);
    const double decode = median(decodeRates);
    const double achievedGBs = decode * static_cast<double>(bytesPerToken) / 1e9;

    // Before the bandwidth probe, whose buffers would otherwise be the peak.
    const std::uint64_t peakRss = peakRssBytes();
    double bandwidthGBs = std::numeric_limits<double>::quiet_NaN();
    if (!skipBandwidth) {
        cpu::ThreadPool pool(threadCount);
        bandwidthGBs = cpu::measureMemoryBandwidthGBs(pool);
    }
    const double bandwidthFraction = bandwidthGBs > 0 ? achievedGBs / bandwidthGBs : std::numeric_limits<double>::quiet_NaN();
    const double prefillOverDecode = decode > 0 ? prefill / decode : 0;
    const ModelInfo& info = (*model)->info();
    const std::string isa = cpu::isaName(cpu::activeIsa());

    if (json) {
        tools::JsonWriter out;
        out.add("model", info.path.empty() ? modelPath : info.path);
        out.add("model_name", info.name);
        out.add("weight_type", info.weightType);
        out.add("parameters", info.parameterCount);
        out.add("threads", threadCount);
        out.add("isa", isa);
        out.add("cpu", cpuModelName());
        out.add("prompt_tokens", promptTokens);
        out.add("generated_tokens", generateTokens);
        out.add("repetitions", repetitions);
        out.add("prefill_tokens_per_second", prefill);
        out.add("decode_tokens_per_second", decode);
        out.add("prefill_over_decode", prefillOverDecode);
        out.add("weight_bytes_per_token", bytesPerToken);
        out.add("achieved_gb_per_second", achievedGBs);
        out.add("memory_bandwidth_gb_per_second", bandwidthGBs);
        out.add("bandwidth_fraction", bandwidthFraction);
        out.add("peak_rss_bytes", peakRss);
        std::printf("%s\n", out.str().c_str());
        return 0;
    }
    std::printf("model:          %s (%s, %s)\n", info.name.c_str(), info.weightType.c_str(), tools::formatBytes(info.fileSize).c_str());
    std::printf("threads / ISA:  %d / %s (%s)\n", threadCount, isa.c_str(), cpuModelName().c_str());
    std::printf("prefill:        %.2f tok/s (%d tokens, median of %d)\n", prefill, promptTokens, repetitions);
    std::printf("decode:         %.2f tok/s (%d tokens, median of %d)\n", decode, generateTokens, repetitions);
    std::printf("prefill/decode: %.2fx per token\n", prefillOverDecode);
    std::printf("weights/token:  %s -> %.2f GB/s\n", tools::formatBytes(bytesPerToken).c_str(), achievedGBs);
    if (std::isfinite(bandwidthGBs))
        std::printf("bandwidth:      %.2f GB/s measured -> decode at %.0f%%\n", bandwidthGBs, bandwidthFraction * 100);
    else
        std::printf("bandwidth:      not measured\n");
    std::printf("peak RSS:       %s\n", tools::formatBytes(peakRss).c_str());
    return 0;
}
