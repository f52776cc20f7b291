// SPDX-License-Identifier: MIT
// hearth-quantize: re-encodes the weight matrices of a GGUF/PWRI model file.

#include "convert/quantize_file.h"
#include "convert/quantize_preset.h"
#include "tool_options.h"

#include <cstdio>
#include <string>

using namespace hearth;

int main(int argc, char** argv)
{
    bool quiet = false;
    bool noVerify = false;
    std::string presetList;
    for (int p = 0; p <= int(QuantizationPreset::Q2_K); ++p)
        presetList += (p ? ", " : "") + std::string(presetName(QuantizationPreset(p)));
    const std::string usage = "Usage: hearth-quantize IN.gguf OUT.gguf PRESET\n"
                              "Re-encodes the weight matrices with one of llama-quantize's presets (" + presetList + "), "
                              "tensor for tensor the types llama-quantize chooses, and copies all metadata.";
    tools::ToolOptions parser("hearth-quantize", usage.c_str());
    parser.addFlag("--no-verify", "do not load and run the result before keeping it", &noVerify);
    parser.addFlag("-q,--quiet", "no progress output", &quiet);

    // Positional arguments first; the parser sees only the flags.
    std::vector<char*> flags{argv[0]};
    std::vector<std::string> positional;
    for (int i = 1; i < argc; ++i) {
        if (argv[i][0] == '-' && argv[i][1] != '\0')
            flags.push_back(argv[i]);
        else
            positional.emplace_back(argv[i]);
    }
    switch (parser.parse(static_cast<int>(flags.size()), flags.data())) {
    case tools::ToolOptions::Outcome::ExitSuccess: return 0;
    case tools::ToolOptions::Outcome::ExitFailure: return 1;
    case tools::ToolOptions::Outcome::Run: break;
    }
    if (positional.size() != 3) {
        std::fprintf(stderr, "hearth-quantize: expected IN.gguf OUT.gguf TYPE (see --help)\n");
        return 1;
    }
    const auto preset = presetFromName(positional[2]);
    if (!preset) {
        std::fprintf(stderr, "hearth-quantize: unknown preset '%s' (use %s)\n", positional[2].c_str(), presetList.c_str());
        return 1;
    }

    convert::QuantizeOptions options;
    options.input = positional[0];
    options.output = positional[1];
    options.preset = *preset;
    options.verify = !noVerify;
    tools::ProgressLine progress(quiet);
    options.progress = progress.callback();
    auto report = convert::quantizeModelFile(options);
    const double seconds = progress.finish();
    if (!report) {
        std::fprintf(stderr, "hearth-quantize: %s\n", report.message().c_str());
        return 1;
    }
    if (!quiet)
        std::fprintf(stderr, "hearth-quantize: %s -> %s (%s -> %s, %d tensors converted, %d copied) in %.1f s\n",
                     options.input.c_str(), options.output.c_str(), tools::formatBytes(report->inputBytes).c_str(),
                     tools::formatBytes(report->outputBytes).c_str(), report->convertedTensors, report->copiedTensors,
                     seconds);
    return 0;
}
