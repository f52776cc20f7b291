// SPDX-License-Identifier: MIT
// hearth-perplexity: perplexity of a text file under a model, measured as llama.cpp's
// perplexity tool does (non-overlapping chunks, second half of each chunk scored).

#include "api/perplexity.h"
#include "device_params.h"
#include "json_writer.h"
#include "tool_options.h"

#include <hearth/model.h>
#include <hearth/session.h>

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>

using namespace hearth;

int main(int argc, char** argv)
{
    std::string modelPath;
    std::string textPath;
    int contextLength = 512;
    int threads = 0;
    int batchSize = 512;
    int maxChunks = 0;
    bool json = false;

    tools::ToolOptions options("hearth-perplexity", "Measures a model's perplexity on a text file.");
    options.addString("-m,--model", "FILE", "model file (GGUF)", &modelPath);
    options.addString("-f,--file", "FILE", "text to score", &textPath);
    options.addInt("-c,--context", "N", "context length, also the chunk length (default 512)", &contextLength, 4, 4096);
    options.addInt("-t,--threads", "N", "threads (default: one per physical core)", &threads, 0, 1024);
    options.addInt("-b,--batch", "N", "tokens per batched forward pass (default 512)", &batchSize, 1, 4096);
    options.addInt("--chunks", "N", "score at most N chunks (default: all)", &maxChunks, 0, 1 << 30);
    options.addFlag("--json", "print the result as one JSON object", &json);
    tools::DeviceOptions device;
    options.addDeviceOptions(&device);
    switch (options.parse(argc, argv)) {
    case tools::ToolOptions::Outcome::ExitSuccess:
        return 0;
    case tools::ToolOptions::Outcome::ExitFailure:
        return 1;
    case tools::ToolOptions::Outcome::Run:
        break;
    }
    if (modelPath.empty() || textPath.empty()) {
        std::fprintf(stderr, "hearth-perplexity: both -m MODEL and -f TEXT are required (see --help)\n");
        return 1;
    }

    const std::optional<std::string> text = tools::readTextFile(textPath);
    if (!text) {
        std::fprintf(stderr, "hearth-perplexity: cannot read %s\n", textPath.c_str());
        return 1;
    }

    auto model = Model::load(modelPath);
    if (!model) {
        std::fprintf(stderr, "hearth-perplexity: %s\n", model.message().c_str());
        return 1;
    }
    SessionParams params;
    params.contextLength = contextLength;
    params.threads = threads;
    params.batchSize = batchSize;
    tools::applyDeviceOptions(device, params);
    auto session = Session::create(*model, params);
    if (!session) {
        std::fprintf(stderr, "hearth-perplexity: %s\n", session.message().c_str());
        return 1;
    }

    const std::vector<Token> tokens = (*model)->tokenizer().encode(*text, true, false);
    if (!json)
        std::fprintf(stderr, "[placement: %s]\n%zu tokens, %zu chunks of %d\n", (*session)->placementReport().c_str(),
                     tokens.size(), tokens.size() / std::size_t(contextLength), contextLength);
    const auto progress = [json](int done, int, double ppl) {
        if (!json) {
            std::fprintf(stderr, "[%d]%.4f ", done, ppl);
            std::fflush(stderr);
        }
        return true;
    };
    auto result = computePerplexity(**session, tokens, maxChunks, progress);
    if (!json)
        std::fprintf(stderr, "\n");
    if (!result) {
        std::fprintf(stderr, "hearth-perplexity: %s\n", result.message().c_str());
        return 1;
    }

    if (json) {
        tools::JsonWriter out;
        out.add("model", modelPath);
        out.add("text", textPath);
        out.add("context", contextLength);
        out.add("threads", threads);
        out.add("tokens", std::int64_t(tokens.size()));
        out.add("chunks", result->chunks);
        out.add("scored_tokens", result->scoredTokens);
        out.add("placement", (*session)->placementReport());
        out.add("perplexity", result->perplexity);
        out.add("seconds", result->seconds);
        out.add("tokens_per_second", double(result->chunks) * contextLength / std::max(result->seconds, 1e-9));
        std::printf("%s\n", out.str().c_str());
    } else {
        std::printf("perplexity: %.4f over %d chunks (%d scored tokens), %.2f s\n", result->perplexity, result->chunks,
                    result->scoredTokens, result->seconds);
    }
    return 0;
}
