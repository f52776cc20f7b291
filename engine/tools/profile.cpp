// SPDX-License-Identifier: MIT
// hearth-profile: runs text through a model and records how often each FFN neuron fires
// (fraction of tokens with a non-zero activation), per layer, into a statistics file the
// placement planner reads; for a mixture of experts, how often the router picks each expert and,
// where the experts are ReLU-gated, how often each neuron inside them fires when it is picked.
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

// The experts each token chose and, with ReLU-gated experts (neurons set), which of their
// neurons fired.
struct ExpertCounters {
    sparse::ActivationCounter experts;
    std::optional<sparse::ActivationCounter> neurons;
};

void countExperts(void* context, int layer, int n, const model::ExpertActivity& activity)
{
    auto* counters = static_cast<ExpertCounters*>(context);
    thread_local std::vector<std::int32_t> experts;
    experts.clear();
    for (std::size_t i = 0; i < activity.choices.size(); ++i) {
        const std::int32_t e = activity.choices[i].expert;
        experts.push_back(e);
        if (counters->neurons)
            counters->neurons->addSlice(layer, std::int64_t(e) * activity.nFf, activity.of(i));
    }
    counters->experts.addUnits(layer, n, experts);
}

// The share of all the firing (or routing) that the hottest quarter of each group of @p group
// units takes, averaged over groups and layers: what a GPU holding a quarter of them would
// compute.
double hottestQuarterShare(const std::vector<std::vector<float>>& freq, std::size_t group = 0)
{
    double share = 0;
    std::size_t groups = 0;
    for (const std::vector<float>& layer : freq) {
        const std::size_t size = group ? group : layer.size();
        for (std::size_t first = 0; first + size <= layer.size(); first += size) {
            std::vector<float> units(layer.begin() + std::ptrdiff_t(first), layer.begin() + std::ptrdiff_t(first + size));
            std::sort(units.begin(), units.end(), std::greater<>());
            double all = 0;
            double hot = 0;
            for (std::size_t i = 0; i < units.size(); ++i) {
                all += units[i];
                hot += i < (units.size() + 3) / 4 ? units[i] : 0.0f;
            }
            if (all > 0) {
                share += hot / all;
                ++groups;
            }
        }
    }
    return groups ? share / double(groups) : 0;
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
    // ReLU-gated neurons output exact zeros; SwiGLU's never do, so there is nothing to count.
    const bool reluExperts = experts && hp.ffnActivation != model::FfnActivation::SwiGlu
                             && hp.ffnActivation != model::FfnActivation::GeGlu;
    sparse::ActivationCounter counter(hp.nLayer, experts ? 0 : hp.nFf);
    ExpertCounters expertCounters{sparse::ActivationCounter(hp.nLayer, experts ? hp.nExpert : 0), std::nullopt};
    if (reluExperts)
        expertCounters.neurons.emplace(hp.nLayer, std::int64_t(hp.nExpert) * hp.nFfExpert);
    if (experts)
        f.setExpertObserver(countExperts, &expertCounters);
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

    if (experts) {
        const sparse::ActivationCounter& routed = expertCounters.experts;
        const std::vector<std::vector<float>> inside =
            expertCounters.neurons ? sparse::expertNeuronFrequencies(routed, *expertCounters.neurons)
                                   : std::vector<std::vector<float>>();
        const Status written = expertCounters.neurons
                                   ? sparse::writeExpertStatsFile(outputPath, routed, inside)
                                   : sparse::writeStatsFile(outputPath, routed.frequencies(), routed.tokens(),
                                                            sparse::StatsUnit::Experts);
        if (!written.ok())
            return fail(written.message());
        std::fprintf(stderr, "hearth-profile: %llu tokens in %.1f s, %d of %d experts per token; the hottest quarter "
                             "of each layer's experts takes %.0f%% of the routing",
                     static_cast<unsigned long long>(routed.tokens()), seconds, hp.nExpertUsed, hp.nExpert,
                     100.0 * hottestQuarterShare(routed.frequencies()));
        if (!inside.empty()) {
            // Over the experts the router chose at all, each as often as it chose it.
            double fired = 0;
            double routedNeurons = 0;
            for (std::size_t l = 0; l < inside.size(); ++l) {
                for (std::size_t i = 0; i < inside[l].size(); ++i) {
                    const double tokens = double(routed.counts()[l][i / std::size_t(hp.nFfExpert)]);
                    fired += double(inside[l][i]) * tokens;
                    routedNeurons += tokens;
                }
            }
            std::fprintf(stderr, "; inside an expert a neuron fires on %.0f%% of its tokens, and the hottest quarter "
                                 "of its neurons gives %.0f%% of the firing",
                         routedNeurons > 0 ? 100.0 * fired / routedNeurons : 0.0,
                         100.0 * hottestQuarterShare(inside, std::size_t(hp.nFfExpert)));
        }
        std::fprintf(stderr, " -> %s\n", outputPath.c_str());
        return 0;
    }
    const auto freq = counter.frequencies();
    if (Status s = sparse::writeStatsFile(outputPath, freq, counter.tokens()); !s.ok())
        return fail(s.message());
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
