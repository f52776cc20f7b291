// SPDX-License-Identifier: MIT
// hearth-convert: a Hugging Face model folder of the llama family (Llama, Mistral, Bamboo, Qwen 2
// and 3, Phi-3), Gemma 2 and 3, Falcon (FalconForCausalLM, RWForCausalLM) or OPT
// (OPTForCausalLM), with optional PowerInfer predictors and activation statistics, to a GGUF file
// Hearth loads.

#include "convert/hf_to_gguf.h"
#include "synth/synthetic_model.h"
#include "tool_options.h"

#include <cmath>
#include <cstdio>
#include <limits>

using namespace hearth;

int main(int argc, char** argv)
{
    convert::ConvertOptions options;
    std::string typeName = "f16";
    float threshold = std::numeric_limits<float>::quiet_NaN(); // unset
    bool quiet = false;
    bool noVerify = false;

    tools::ToolOptions parser("hearth-convert",
                              "Converts a Hugging Face model folder (LlamaForCausalLM, Mistral, Bamboo, Qwen2ForCausalLM, "
                              "Qwen3ForCausalLM, Phi3ForCausalLM, Gemma2ForCausalLM, Gemma3ForCausalLM, the text model of "
                              "Gemma3ForConditionalGeneration, FalconForCausalLM, RWForCausalLM, OPTForCausalLM; safetensors or "
                              "PyTorch .bin) to GGUF. With --predictor the output is a PowerInfer sparse file.");
    parser.addString("-m,--model", "FOLDER", "Hugging Face model folder (required)", &options.modelFolder);
    parser.addString("--predictor", "FOLDER", "PowerInfer predictor folder (model_<layer>.pt)", &options.predictorFolder);
    parser.addString("--activation", "FOLDER",
                     "PowerInfer activation statistics (activation_<layer>.pt), written to OUT.hearth-stats.gguf",
                     &options.activationFolder);
    parser.addString("--type", "TYPE", "weight type: f32, f16, q8_0 or q4_0 (default f16)", &typeName);
    parser.addFloat("--sparse-threshold", "X", "powerinfer.sparse_threshold of a sparse file (default: the predictor folder's config.json, else 0)", &threshold);
    parser.addString("-o,--output", "FILE", "output GGUF file (required)", &options.output);
    parser.addFlag("--no-verify", "do not load and run the result before keeping it", &noVerify);
    parser.addFlag("-q,--quiet", "no progress output", &quiet);
    switch (parser.parse(argc, argv)) {
    case tools::ToolOptions::Outcome::ExitSuccess: return 0;
    case tools::ToolOptions::Outcome::ExitFailure: return 1;
    case tools::ToolOptions::Outcome::Run: break;
    }
    if (options.modelFolder.empty() || options.output.empty()) {
        std::fprintf(stderr, "hearth-convert: --model FOLDER and -o FILE are required\n");
        return 1;
    }
    auto type = synth::parseWeightType(typeName);
    if (!type) {
        std::fprintf(stderr, "hearth-convert: %s\n", type.message().c_str());
        return 1;
    }
    options.type = *type;
    if (!std::isnan(threshold)) {
        options.sparseThreshold = threshold;
    }
    options.verify = !noVerify;
    tools::ProgressLine progress(quiet);
    options.progress = progress.callback();
    auto report = convert::convertHfModel(options);
    const double seconds = progress.finish();
    if (!report) {
        std::fprintf(stderr, "hearth-convert: %s\n", report.message().c_str());
        return 1;
    }
    if (!quiet) {
        std::fprintf(stderr, "hearth-convert: wrote %s (%s, %d tensors%s) in %.1f s\n", report->output.c_str(),
                     tools::formatBytes(report->bytesWritten).c_str(), report->tensorCount,
                     report->sparse ? ", PowerInfer sparse layout" : "", seconds);
        if (report->sparse)
            std::fprintf(stderr, "hearth-convert: sparse threshold %g\n", double(report->sparseThreshold));
        if (!report->statsOutput.empty())
            std::fprintf(stderr, "hearth-convert: activation statistics in %s\n", report->statsOutput.c_str());
    }
    return 0;
}
