// SPDX-License-Identifier: MIT
// hearth-sparsify: makes a dense model sparse. It runs the model over a calibration text; a ReLU
// model gets an activation predictor fitted to every layer and is written in Hearth's fused
// sparse layout with its statistics file, a SwiGLU model gets per-layer thresholds below which
// a neuron is skipped. Either is kept only if the held-out perplexity stays within the bound.

#include "tool_options.h"

#include <hearth/convert.h>

#include <cstdio>
#include <optional>
#include <string>

using namespace hearth;

namespace {

int fail(const std::string& message)
{
    std::fprintf(stderr, "hearth-sparsify: %s\n", message.c_str());
    return 1;
}

} // namespace

int main(int argc, char** argv)
{
    SparsifyParams params;
    std::string calibrationPath;
    float recall = float(params.recall);
    float sparsity = float(params.targetSparsity);
    float inputSparsity = float(params.inputSparsity);
    float bound = float(100.0 * params.perplexityBound);
    bool quiet = false;
    tools::ToolOptions options("hearth-sparsify",
                               "Makes a dense model sparse. ReLU models (ReluLLaMA, ProSparse, Bamboo, relu2) get fitted "
                               "activation predictors and Hearth's sparse layout with a statistics file; SwiGLU models "
                               "(Llama, Mistral, Qwen) get per-layer thresholds that skip the neurons whose gate is "
                               "smallest. Every fifth window of the calibration text is held out to measure the result.");
    options.addString("-m,--model", "IN", "the dense model (GGUF)", &params.input);
    options.addString("-o,--output", "OUT", "the sparse model to write (its statistics go beside it)", &params.output);
    options.addString("--calibration", "FILE", "text to calibrate on (default: the built-in text)", &calibrationPath);
    options.addFloat("--recall", "R",
                     "ReLU: share of the neurons that fire the predictor must select (default 0.99); SwiGLU: share "
                     "of the neurons over the threshold the gate screen must let through (default 0.95)",
                     &recall);
    options.addFloat("--target-sparsity", "X", "SwiGLU: share of the neurons a decoded token skips (default 0.4)",
                     &sparsity);
    options.addFloat("--input-sparsity", "X",
                     "SwiGLU: share of the inputs of the attention's projections and of gate/up a decoded token "
                     "drops, reading none of their weights (default 0: they stay dense); costs quality sooner than the "
                     "neurons, and prompts get slower",
                     &inputSparsity);
    options.addInt("--tokens", "N", "use at most N tokens of the text (default 4096)", &params.maxTokens, 64, 1 << 24);
    options.addInt("--rank", "N", "rank of each (linear) predictor, its hidden size (default n_embd / 8)",
                   &params.predictorRank, 1, 1 << 16);
    options.addFloat("--max-perplexity-increase", "PERCENT",
                     "refuse a result whose held-out perplexity is more than this much higher (default 5)", &bound);
    options.addInt("-t,--threads", "N", "threads (default: one per physical core)", &params.threads, 0, 1024);
    options.addFlag("--overwrite", "replace existing output files", &params.overwrite);
    options.addFlag("-q,--quiet", "no progress output", &quiet);
    switch (options.parse(argc, argv)) {
    case tools::ToolOptions::Outcome::ExitSuccess: return 0;
    case tools::ToolOptions::Outcome::ExitFailure: return 1;
    case tools::ToolOptions::Outcome::Run: break;
    }
    if (params.input.empty() || params.output.empty())
        return fail("a model (-m IN) and an output (-o OUT) are required\nTry 'hearth-sparsify --help' for more information.");
    if (!calibrationPath.empty()) {
        std::optional<std::string> text = tools::readTextFile(calibrationPath);
        if (!text)
            return fail("cannot read '" + calibrationPath + "'");
        params.calibrationText = std::move(*text);
    }
    params.recall = recall;
    params.targetSparsity = sparsity;
    params.inputSparsity = inputSparsity;
    params.perplexityBound = bound / 100.0;

    tools::ProgressLine progress(quiet);
    params.progress = progress.callback();
    auto report = sparsifyModel(params);
    progress.finish();
    if (!report)
        return fail(report.message());

    const bool magnitude = report->method == SparsifyMethod::Magnitude;
    if (magnitude && report->inputSparsity > 0) {
        std::printf("layer  threshold  q/k/v inputs  output inputs  gate/up inputs  down rows\n");
        for (std::size_t l = 0; l < report->layers.size(); ++l) {
            const SparsifyLayerReport& r = report->layers[l];
            std::printf("%5zu  %9.3g  %11.1f%%  %12.1f%%  %13.1f%%  %8.1f%%\n", l, double(r.scoreThreshold),
                        100.0 * r.attentionInputShare, 100.0 * r.attentionOutputShare, 100.0 * r.ffnInputShare,
                        100.0 * r.firedShare);
        }
    } else if (magnitude) {
        std::printf("layer  threshold  recall  up rows  down rows\n");
        for (std::size_t l = 0; l < report->layers.size(); ++l) {
            const SparsifyLayerReport& r = report->layers[l];
            std::printf("%5zu  %9.3g  %6.4f  %6.1f%%  %8.1f%%\n", l, double(r.scoreThreshold), r.recall,
                        100.0 * r.predictedShare, 100.0 * r.firedShare);
        }
    }
    if (magnitude) {
        std::printf("thresholds chosen on %d tokens, measured on %d held-out tokens\n", report->calibrationTokens,
                    report->heldOutTokens);
    } else {
        std::printf("layer  recall  precision  predicted  fired\n");
        for (std::size_t l = 0; l < report->layers.size(); ++l) {
            const SparsifyLayerReport& r = report->layers[l];
            std::printf("%5zu  %6.4f  %9.4f  %8.1f%%  %4.1f%%\n", l, r.recall, r.precision, 100.0 * r.predictedShare,
                        100.0 * r.firedShare);
        }
        std::printf("fitted on %d tokens, measured on %d held-out tokens; predictor hidden size %d\n",
                    report->calibrationTokens, report->heldOutTokens, report->predictorHidden);
    }
    std::printf("held-out perplexity %.4f dense, %.4f sparse (%+.2f%%)\n", report->densePerplexity,
                report->sparsePerplexity, 100.0 * (report->sparsePerplexity / report->densePerplexity - 1.0));
    std::printf("expected decode speed-up where memory bandwidth limits: %.2fx\n", report->expectedSpeedup);
    if (magnitude && report->statisticsOutput.empty())
        std::printf("wrote %s in %.1f s\n", report->output.c_str(), report->seconds);
    else if (magnitude)
        std::printf("wrote %s and %s in %.1f s\n", report->output.c_str(), report->statisticsOutput.c_str(),
                    report->seconds);
    else
        std::printf("wrote %s and %s in %.1f s (fitting %.1f s)\n", report->output.c_str(),
                    report->statisticsOutput.c_str(), report->seconds, report->fitSeconds);
    return 0;
}
