// SPDX-License-Identifier: MIT
// hearth-synth: writes a deterministic random llama-shaped GGUF model for tests and benchmarks.

#include "synth/synthetic_model.h"
#include "tool_options.h"

#include <chrono>
#include <cstdio>

using namespace hearth;

int main(int argc, char** argv)
{
    std::string shapeName = "tiny";
    std::string typeName = "f16";
    std::string ffn = "swiglu";
    std::string output;
    std::uint64_t seed = 42;
    int layers = 0;
    int vocab = 0;
    bool quiet = false;

    tools::ToolOptions options("hearth-synth",
                               "Writes a random llama-shaped GGUF model. The same arguments always give the same file.");
    options.addString("--shape", "NAME", "tiny, tinyllama-1.1b or llama2-7b (default tiny)", &shapeName);
    options.addString("--type", "TYPE", "weight type: f32, f16, q8_0 or q4_0 (default f16)", &typeName);
    options.addString("--ffn", "ACT", "FFN activation: swiglu, reglu, drelu or relu2 (default swiglu)", &ffn);
    options.addUInt64("--seed", "N", "random seed (default 42)", &seed);
    options.addInt("--layers", "N", "override the shape's layer count", &layers, 1, 1024);
    options.addInt("--vocab", "N", "override the shape's vocabulary size", &vocab, 260, 1'000'000);
    options.addString("-o,--output", "FILE", "output file (required)", &output);
    options.addFlag("-q,--quiet", "no progress output", &quiet);
    switch (options.parse(argc, argv)) {
    case tools::ToolOptions::Outcome::ExitSuccess: return 0;
    case tools::ToolOptions::Outcome::ExitFailure: return 1;
    case tools::ToolOptions::Outcome::Run: break;
    }
    if (output.empty()) {
        std::fprintf(stderr, "hearth-synth: no output file given (-o FILE)\n");
        return 1;
    }

    auto shape = synth::shapeByName(shapeName);
    if (!shape) {
        std::fprintf(stderr, "hearth-synth: %s\n", shape.message().c_str());
        return 1;
    }
    auto type = synth::parseWeightType(typeName);
    if (!type) {
        std::fprintf(stderr, "hearth-synth: %s\n", type.message().c_str());
        return 1;
    }
    synth::SynthOptions synthOptions;
    synthOptions.shape = *shape;
    if (layers > 0)
        synthOptions.shape.layerCount = layers;
    if (vocab > 0)
        synthOptions.shape.vocabSize = vocab;
    synthOptions.type = *type;
    synthOptions.ffnActivation = ffn;
    synthOptions.seed = seed;
    if (Status s = synth::validateOptions(synthOptions); !s.ok()) {
        std::fprintf(stderr, "hearth-synth: %s\n", s.message().c_str());
        return 1;
    }

    if (!quiet)
        std::fprintf(stderr, "hearth-synth: %s, %s, %s FFN, seed %llu -> %s (about %s)\n", synthOptions.shape.name.c_str(),
                     typeName.c_str(), ffn.c_str(), static_cast<unsigned long long>(seed), output.c_str(),
                     tools::formatBytes(synth::estimatedFileSize(synthOptions)).c_str());

    const auto start = std::chrono::steady_clock::now();
    int lastPercent = -1;
    auto progress = [&](std::uint64_t done, std::uint64_t total) {
        const int percent = total ? static_cast<int>(done * 100 / total) : 100;
        if (!quiet && percent != lastPercent) {
            std::fprintf(stderr, "\r  %3d%%  %s / %s", percent, tools::formatBytes(done).c_str(),
                         tools::formatBytes(total).c_str());
            std::fflush(stderr);
            lastPercent = percent;
        }
        return true;
    };
    const Status status = synth::writeSyntheticModel(synthOptions, output, progress);
    if (!quiet && lastPercent >= 0)
        std::fputc('\n', stderr);
    if (!status.ok()) {
        std::fprintf(stderr, "hearth-synth: %s\n", status.message().c_str());
        return 1;
    }
    if (!quiet) {
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::fprintf(stderr, "hearth-synth: done in %.1f s\n", seconds);
    }
    return 0;
}
