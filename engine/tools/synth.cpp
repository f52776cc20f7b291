// SPDX-License-Identifier: MIT
// hearth-synth: writes a deterministic random llama-shaped GGUF model for tests and benchmarks.

#include "model/architecture.h"
#include "synth/synthetic_families.h"
#include "synth/synthetic_model.h"
#include "synth/synthetic_sparse.h"
#include "tool_options.h"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

using namespace hearth;

namespace {

std::string joined(const std::vector<std::string>& names)
{
    std::string out;
    for (const std::string& name : names)
        out += (out.empty() ? "" : ", ") + name;
    return out;
}

std::vector<std::string> shapeNamesOf(std::string_view architecture)
{
    std::vector<std::string> names;
    for (const synth::ModelShape& shape : synth::familyShapes(architecture))
        names.push_back(shape.name);
    return names;
}

} // namespace

int main(int argc, char** argv)
{
    std::string architecture = "llama";
    std::string shapeName;
    std::string typeName = "f16";
    std::string ffn;
    std::string output;
    std::uint64_t seed = 42;
    int layers = 0;
    int vocab = 0;
    bool quiet = false;
    float sparsity = -1.0f;
    float activationSparsity = 0.0f;
    std::string layoutName = "powerinfer";
    int predictorHidden = 0;
    std::string statsPath;
    std::string chatTemplatePath;

    tools::ToolOptions options("hearth-synth",
                               "Writes a random llama-shaped GGUF model. The same arguments always give the same file.");
    std::vector<std::string> architectures;
    for (const model::Architecture* a : model::architectures())
        architectures.emplace_back(a->name);
    const std::string architectureHelp = "architecture: " + joined(architectures) + " (default llama)";
    const std::string shapeHelp = "the llama-block families: " + joined(synth::knownShapeNames())
                                  + "; falcon: " + joined(shapeNamesOf("falcon")) + "; opt: "
                                  + joined(shapeNamesOf("opt")) + " (default: the tiny one)";
    options.addString("--arch", "ARCH", architectureHelp, &architecture);
    options.addString("--shape", "NAME", shapeHelp, &shapeName);
    options.addString("--type", "TYPE", "weight type: f32, f16, bf16, q8_0, q6_k, q5_k, q4_k, q4_0, iq4_xs, ... (default f16)", &typeName);
    options.addString("--ffn", "ACT",
                      "FFN activation: swiglu, reglu, drelu or relu2 for llama (default swiglu); gelu or relu for "
                      "falcon (default gelu); relu for opt",
                      &ffn);
    options.addUInt64("--seed", "N", "random seed (default 42)", &seed);
    options.addInt("--layers", "N", "override the shape's layer count", &layers, 1, 1024);
    options.addInt("--vocab", "N", "override the shape's vocabulary size", &vocab, 260, 1'000'000);
    options.addString("-o,--output", "FILE", "output file (required)", &output);
    options.addFlag("-q,--quiet", "no progress output", &quiet);
    options.addFloat("--sparsity", "X",
                     "write a sparse ReLU model (llama with --ffn reglu/drelu/relu2, falcon or opt with relu) with "
                     "predictors that leave this share "
                     "of neurons inactive on average, plus its statistics file",
                     &sparsity);
    options.addFloat("--activation-sparsity", "X",
                     "write a dense ReLU model (llama with --ffn reglu/drelu/relu2, falcon or opt with relu) without "
                     "predictors whose neurons "
                     "fire with power-law frequencies leaving this share inactive on average (hearth-sparsify's input)",
                     &activationSparsity);
    options.addString("--layout", "NAME", "sparse file layout: powerinfer or hearth (default powerinfer)", &layoutName);
    options.addInt("--predictor-hidden", "N", "predictor hidden size (default 512, 1024 from n_embd 4096)",
                   &predictorHidden, 2, 65536);
    options.addString("--stats", "FILE", "statistics file of a sparse model (default FILE.hearth-stats.gguf)", &statsPath);
    options.addString("--chat-template", "FILE", "write this Jinja chat template instead of the usual one", &chatTemplatePath);
    switch (options.parse(argc, argv)) {
    case tools::ToolOptions::Outcome::ExitSuccess: return 0;
    case tools::ToolOptions::Outcome::ExitFailure: return 1;
    case tools::ToolOptions::Outcome::Run: break;
    }
    if (output.empty()) {
        std::fprintf(stderr, "hearth-synth: no output file given (-o FILE)\n");
        return 1;
    }

    const model::Architecture* arch = model::findArchitecture(architecture);
    if (!arch) {
        std::string known;
        for (const model::Architecture* a : model::architectures())
            known += (known.empty() ? "" : ", ") + std::string(a->name);
        std::fprintf(stderr, "hearth-synth: unknown architecture '%s' (use %s)\n", architecture.c_str(), known.c_str());
        return 1;
    }
    if (shapeName.empty())
        shapeName = synth::shapeByName(architecture, architecture + "-tiny") ? architecture + "-tiny" : "tiny";
    if (ffn.empty()) {
        ffn = arch->block == model::BlockKind::Falcon ? (sparsity >= 0.0f ? "relu" : "gelu")
              : arch->block == model::BlockKind::Opt  ? "relu"
                                                      : std::string(model::ffnActivationName(arch->llama.activation));
    }
    auto shape = synth::shapeByName(architecture, shapeName);
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
    synthOptions.architecture = architecture;
    synthOptions.shape = *shape;
    if (layers > 0)
        synthOptions.shape.layerCount = layers;
    if (vocab > 0)
        synthOptions.shape.vocabSize = vocab;
    synthOptions.type = *type;
    synthOptions.ffnActivation = ffn;
    synthOptions.seed = seed;
    synthOptions.activationSparsity = activationSparsity;
    if (!chatTemplatePath.empty()) {
        std::optional<std::string> text = tools::readTextFile(chatTemplatePath);
        if (!text) {
            std::fprintf(stderr, "hearth-synth: cannot read the chat template %s\n", chatTemplatePath.c_str());
            return 1;
        }
        synthOptions.chatTemplate = std::move(*text);
    }
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
    Status status;
    if (sparsity >= 0.0f) {
        auto layout = synth::parseSparseLayout(layoutName);
        if (!layout) {
            std::fprintf(stderr, "hearth-synth: %s\n", layout.message().c_str());
            return 1;
        }
        synth::SparseSynthOptions sparse;
        sparse.sparsity = sparsity;
        sparse.layout = *layout;
        sparse.predictorHidden = predictorHidden;
        sparse.statsPath = statsPath;
        status = synth::writeSparseSyntheticModel(synthOptions, sparse, output, progress);
    } else {
        status = synth::writeSyntheticModel(synthOptions, output, progress);
    }
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
