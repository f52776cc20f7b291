// SPDX-License-Identifier: MIT
// hearth-profile: runs text through a model and records how often each FFN neuron fires
// (fraction of tokens with a non-zero activation), per layer, into a statistics file the
// placement planner reads; for a mixture of experts, how often the router picks each expert.
// Also converts PowerInfer's activation/activation_<n>.pt counts.

#include "tool_options.h"

#include "model/llama_forward.h"
#include "model/llama_model.h"
#include "sparse/activation_profile.h"

#include <hearth/hearth.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

using namespace hearth;

namespace {

void countActivations(void* context, int layer, int n, const float* acts, const float*)
{
    static_cast<sparse::ActivationCounter*>(context)->add(layer, n, acts);
}

void countExperts(void* context, int layer, int n, std::span<const model::ExpertChoice> choices)
{
    thread_local std::vector<std::int32_t> experts;
    experts.clear();
    for (const model::ExpertChoice& c : choices)
        experts.push_back(c.expert);
    static_cast<sparse::ActivationCounter*>(context)->addUnits(layer, n, experts);
}

// The share of all routing the hottest quarter of each layer's experts takes, on average:
// what a GPU holding a quarter of the experts would compute.
double hottestQuarterShare(const std::vector<std::vector<float>>& freq)
{
    double share = 0;
    for (std::vector<float> layer : freq) {
        std::sort(layer.begin(), layer.end(), std::greater<>());
        double all = 0;
        double hot = 0;
        for (std::size_t i = 0; i < layer.size(); ++i) {
            all += layer[i];
            hot += i < (layer.size() + 3) / 4 ? layer[i] : 0.0f;
        }
        share += all > 0 ? hot / all : 0;
    }
    return freq.empty() ? 0 : share / double(freq.size());
}

int fail(const std::string& message)
{
    std::fprintf(stderr, "hearth-profile: %s\n", message.c_str());
    return 1;
}

} // namespace

int main(int argc, char** argv)
{
    std::string modelPath;
    std::string textPath;
    std::string outputPath;
    std::string powerInferFolder;
    int threads = 0;
    int window = 512;
    bool predicted = false;
    tools::ToolOptions options("hearth-profile",
                               "Measures per-neuron FFN activation frequencies on a text and writes them as a statistics "
                               "file for the placement planner.");
    options.addString("-m,--model", "FILE", "model file (GGUF or PowerInfer PWRI)", &modelPath);
    options.addString("-f,--file", "TEXT", "text file to run through the model", &textPath);
    options.addString("-o,--output", "STATS", "statistics file (default MODEL.hearth-stats.gguf)", &outputPath);
    options.addInt("-t,--threads", "N", "threads (default: one per physical core)", &threads, 0, 1024);
    options.addInt("-c,--ctx", "N", "tokens per window; the text is cut into windows of this size (default 512)",
                   &window, 8, 1 << 16);
    options.addFlag("--predicted", "count only neurons the predictor selects (default: run every neuron)", &predicted);
    options.addString("--powerinfer-activations", "DIR",
                      "convert PowerInfer's activation_<n>.pt files in DIR instead of running a model", &powerInferFolder);
    switch (options.parse(argc, argv)) {
    case tools::ToolOptions::Outcome::ExitSuccess: return 0;
    case tools::ToolOptions::Outcome::ExitFailure: return 1;
    case tools::ToolOptions::Outcome::Run: break;
    }

    if (!powerInferFolder.empty()) {
        if (outputPath.empty())
            return fail("--powerinfer-activations needs an output file (-o STATS)");
        auto stats = sparse::loadPowerInferActivations(powerInferFolder);
        if (!stats)
            return fail(stats.message());
        std::vector<std::vector<float>> freq;
        for (std::size_t l = 0; l < stats->layerCount(); ++l)
            freq.emplace_back(stats->layer(l).begin(), stats->layer(l).end());
        if (Status s = sparse::writeStatsFile(outputPath, freq, 0); !s.ok())
            return fail(s.message());
        std::fprintf(stderr, "hearth-profile: %zu layers -> %s\n", freq.size(), outputPath.c_str());
        return 0;
    }
    if (modelPath.empty() || textPath.empty())
        return fail("a model (-m FILE) and a text (-f TEXT) are required\nTry 'hearth-profile --help' for more information.");
    if (outputPath.empty())
        outputPath = sparse::defaultStatsPath(modelPath);

    const std::optional<std::string> text = tools::readTextFile(textPath);
    if (!text)
        return fail("cannot read '" + textPath + "'");

    auto loaded = Model::load(modelPath);
    if (!loaded)
        return fail("cannot load '" + modelPath + "': " + loaded.message());
    const model::ArchitectureModel* known = model::ArchitectureModel::of(**loaded);
    if (!known || known->architecture().block != model::BlockKind::Llama)
        return fail("profiling supports the families on the llama block only (llama, qwen, phi3, gemma, ...), not " + (**loaded).info().architecture);
    const auto* llama = static_cast<const model::LlamaModel*>(known);
    const model::HyperParams& hp = llama->hyperParams();
    const std::vector<Token> tokens = llama->tokenizer().encode(*text, false, false);
    if (tokens.empty())
        return fail("the text has no tokens");
    window = std::min(window, std::max(8, hp.nCtxTrain));

    auto forward = model::LlamaForward::create(*llama, window, window, threads);
    if (!forward)
        return fail(forward.message());
    model::LlamaForward& f = **forward;
    if (predicted && !f.sparseCapable())
        return fail("--predicted needs a model with predictors");
    f.setFfnMode(predicted ? model::LlamaForward::FfnMode::Sparse : model::LlamaForward::FfnMode::Dense);
    const bool experts = hp.mixtureOfExperts();
    sparse::ActivationCounter counter(hp.nLayer, experts ? hp.nExpert : hp.nFf);
    if (experts)
        f.setExpertObserver(countExperts, &counter);
    else
        f.setActivationObserver(countActivations, &counter);

    std::vector<float> logits(std::size_t(hp.nVocab));
    const Token bos = llama->tokenizer().bos();
    std::vector<Token> chunk;
    const auto start = std::chrono::steady_clock::now();
    // Each window starts a fresh context (with BOS when the model has one), as in perplexity runs.
    for (std::size_t pos = 0; pos < tokens.size();) {
        chunk.clear();
        if (bos != InvalidToken)
            chunk.push_back(bos);
        const std::size_t take = std::min(tokens.size() - pos, std::size_t(window) - chunk.size());
        chunk.insert(chunk.end(), tokens.begin() + std::ptrdiff_t(pos), tokens.begin() + std::ptrdiff_t(pos + take));
        pos += take;
        f.forward(chunk.data(), int(chunk.size()), 0, logits.data(), false);
        std::fprintf(stderr, "\r  %zu / %zu tokens", pos, tokens.size());
    }
    std::fputc('\n', stderr);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    const auto freq = counter.frequencies();
    if (Status s = sparse::writeStatsFile(outputPath, freq, counter.tokens(),
                                          experts ? sparse::StatsUnit::Experts : sparse::StatsUnit::Neurons);
        !s.ok())
        return fail(s.message());
    if (experts) {
        std::fprintf(stderr, "hearth-profile: %llu tokens in %.1f s, %d of %d experts per token; the hottest quarter "
                             "of each layer's experts takes %.0f%% of the routing -> %s\n",
                     static_cast<unsigned long long>(counter.tokens()), seconds, hp.nExpertUsed, hp.nExpert,
                     100.0 * hottestQuarterShare(freq), outputPath.c_str());
        return 0;
    }
    double mean = 0;
    for (const auto& layer : freq) {
        for (float v : layer)
            mean += v;
    }
    mean /= double(hp.nLayer) * double(hp.nFf);
    std::fprintf(stderr, "hearth-profile: %llu tokens in %.1f s, mean activation frequency %.3f -> %s\n",
                 static_cast<unsigned long long>(counter.tokens()), seconds, mean, outputPath.c_str());
    return 0;
}
