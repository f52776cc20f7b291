// SPDX-License-Identifier: MIT
// hearth-cli: one-shot generation (-p) or an interactive chat on the terminal.

#include "device_params.h"
#include "draft_options.h"
#include "tool_options.h"

#include <hearth/hearth.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

using namespace hearth;

namespace {

using Clock = std::chrono::steady_clock;

struct CliSettings {
    std::string modelPath;
    std::string prompt;
    int maxTokens = 256;
    int threads = 0;
    int contextLength = 0;
    bool raw = false;
    Reasoning reasoning = Reasoning::Default; // for templates that take it (Qwen 3, gpt-oss)
    SamplingParams sampling;
    Drafter* drafter = nullptr; // speculative decoding; null: none
};

// Prints what one generate() call achieved, to stderr so stdout stays the model's text.
void printStats(const GenerationStats& stats, double firstTokenSeconds)
{
    auto rate = [](int tokens, double seconds) { return seconds > 0 ? tokens / seconds : 0.0; };
    std::fprintf(stderr, "[prompt: %d tokens, %.2f tok/s | generation: %d tokens, %.2f tok/s | time to first token: %.1f ms]\n",
                 stats.promptTokens, rate(stats.promptTokens, stats.promptSeconds), stats.generatedTokens,
                 rate(stats.generatedTokens, stats.generateSeconds), firstTokenSeconds * 1000.0);
    if (stats.draftedTokens > 0)
        std::fprintf(stderr, "[speculative decoding: %d of %d guesses taken]\n", stats.acceptedTokens, stats.draftedTokens);
    if (stats.stopReason == StopReason::ContextFull)
        std::fprintf(stderr, "[the context window is full]\n");
}

// Tokenizes rendered prompt text. Templates that write the BOS text themselves (Llama 2's
// "<s>[INST]") must not get a second BOS from the tokenizer.
std::vector<Token> tokenizePrompt(const Tokenizer& tokenizer, const std::string& text, bool parseSpecial)
{
    bool addBos = true;
    if (parseSpecial && tokenizer.bos() != InvalidToken) {
        const Token bos = tokenizer.bos();
        const std::string bosText = tokenizer.decode(std::span<const Token>(&bos, 1), true);
        if (!bosText.empty() && text.rfind(bosText, 0) == 0)
            addBos = false;
    }
    return tokenizer.encode(text, addBos, parseSpecial);
}

// Runs one generation, streaming text to stdout. Returns the generated text, or an error.
Result<std::string> run(Session& session, Sampler& sampler, std::span<const Token> prompt, const CliSettings& settings)
{
    std::string reply;
    const auto start = Clock::now();
    double firstToken = 0;
    bool first = true;
    auto onToken = [&](Token, const std::string& text) {
        if (first) {
            firstToken = std::chrono::duration<double>(Clock::now() - start).count();
            first = false;
        }
        std::fwrite(text.data(), 1, text.size(), stdout);
        std::fflush(stdout);
        reply += text;
        return true;
    };
    auto stats = session.generate(prompt, sampler, settings.maxTokens, onToken, settings.drafter);
    if (!first)
        std::fputc('\n', stdout); // a reply ends its line, so the next prompt starts clean
    std::fflush(stdout);
    if (!stats)
        return stats.status();
    printStats(*stats, firstToken);
    return reply;
}

int oneShot(Session& session, const Model& model, const CliSettings& settings)
{
    const Tokenizer& tokenizer = model.tokenizer();
    std::vector<Token> tokens;
    if (settings.raw) {
        tokens = tokenizePrompt(tokenizer, settings.prompt, false);
    } else {
        const ChatTemplate chatTemplate = ChatTemplate::forModel(model);
        const std::vector<ChatMessage> messages{{"user", settings.prompt}};
        auto text = chatTemplate.apply(messages, true, settings.reasoning);
        if (!text) {
            std::fprintf(stderr, "hearth-cli: cannot apply the chat template: %s\n", text.message().c_str());
            return 1;
        }
        tokens = tokenizePrompt(tokenizer, *text, true);
    }
    Sampler sampler(settings.sampling);
    auto reply = run(session, sampler, tokens, settings);
    if (!reply) {
        std::fprintf(stderr, "\nhearth-cli: %s\n", reply.message().c_str());
        return 1;
    }
    return 0;
}

int interactive(Session& session, const Model& model, const CliSettings& settings)
{
    const Tokenizer& tokenizer = model.tokenizer();
    const ChatTemplate chatTemplate = ChatTemplate::forModel(model);
    const bool terminal = ::isatty(STDIN_FILENO) != 0;
    std::vector<ChatMessage> conversation;
    Sampler sampler(settings.sampling);

    std::fprintf(stderr, "Chatting with %s (template: %s). /reset starts over, /exit quits.\n",
                 model.info().name.c_str(), chatTemplate.name().c_str());
    std::string line;
    while (true) {
        if (terminal) {
            std::fputs("> ", stderr);
            std::fflush(stderr);
        }
        if (!std::getline(std::cin, line) || line == "/exit" || line == "/quit")
            break;
        if (line == "/reset") {
            conversation.clear();
            session.reset();
            sampler.reset();
            std::fprintf(stderr, "[conversation cleared]\n");
            continue;
        }
        if (line.empty())
            continue;

        conversation.push_back({"user", line});
        std::string text;
        if (settings.raw) {
            for (const auto& message : conversation)
                text += message.content + "\n";
        } else {
            auto rendered = chatTemplate.apply(conversation, true, settings.reasoning);
            if (!rendered) {
                std::fprintf(stderr, "hearth-cli: cannot apply the chat template: %s\n", rendered.message().c_str());
                conversation.pop_back();
                continue;
            }
            text = std::move(*rendered);
        }
        const std::vector<Token> tokens = tokenizePrompt(tokenizer, text, !settings.raw);

        // The session keeps earlier turns in its KV cache: only the tokens after the common
        // prefix with what is already there need a forward pass.
        const auto history = session.history();
        std::size_t common = 0;
        while (common < history.size() && common < tokens.size() && history[common] == tokens[common])
            ++common;
        if (common == tokens.size() && common > 0)
            --common; // prefill needs at least one token to produce logits
        session.truncate(static_cast<int>(common));

        auto reply = run(session, sampler, std::span<const Token>(tokens).subspan(common), settings);
        if (!reply) {
            std::fprintf(stderr, "hearth-cli: %s\n", reply.message().c_str());
            conversation.pop_back();
            if (session.position() >= session.contextLength() - 1 || reply.code() == ErrorCode::ContextFull)
                std::fprintf(stderr, "[the context window is full: /reset to start over]\n");
            continue;
        }
        conversation.push_back({"assistant", *reply});
    }
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    CliSettings settings;
    bool version = false;
    float temperature = settings.sampling.temperature;
    tools::ToolOptions options("hearth-cli", "Generates text with a GGUF model: once with -p, or as a chat reading lines from stdin.");
    options.addString("-m,--model", "FILE", "model file (GGUF)", &settings.modelPath);
    options.addString("-p,--prompt", "TEXT", "generate once for this prompt and exit", &settings.prompt);
    options.addInt("-n,--n-predict", "N", "maximum tokens to generate per reply (default 256)", &settings.maxTokens, 1, 1 << 20);
    options.addInt("-t,--threads", "N", "threads (default: one per physical core)", &settings.threads, 0, 1024);
    options.addInt("-c,--ctx-size", "N", "context length (default: the model's, at most 4096)", &settings.contextLength, 0, 1 << 20);
    options.addFloat("--temp", "T", "temperature; 0 is greedy (default 0.8)", &temperature);
    options.addInt("--top-k", "N", "top-k; 0 is off (default 40)", &settings.sampling.topK, 0, 1 << 20);
    options.addFloat("--top-p", "P", "top-p; 1 is off (default 0.95)", &settings.sampling.topP);
    options.addFloat("--min-p", "P", "min-p; 0 is off (default 0.05)", &settings.sampling.minP);
    options.addFloat("--repeat-penalty", "F", "repeat penalty; 1 is off (default 1.1)", &settings.sampling.repeatPenalty);
    options.addInt("--repeat-last-n", "N", "tokens the penalties look at (default 64)", &settings.sampling.repeatLastN, 0, 1 << 20);
    options.addFloat("--presence-penalty", "F", "presence penalty; 0 is off", &settings.sampling.presencePenalty);
    options.addFloat("--frequency-penalty", "F", "frequency penalty; 0 is off", &settings.sampling.frequencyPenalty);
    options.addUInt64("--seed", "N", "sampling seed", &settings.sampling.seed);
    options.addFlag("--raw", "use the prompt as is, without the chat template", &settings.raw);
    std::string reasoning;
    options.addString("--reasoning", "LEVEL",
                      "off, low, medium or high: how much a reasoning model thinks, where its chat template takes it "
                      "(Qwen 3, gpt-oss; default: the template's own)",
                      &reasoning);
    options.addFlag("--version", "print version and build facts, then exit", &version);
    bool dense = false;
    options.addFlag("--dense", "models with predictors: compute every FFN neuron instead of the predicted ones", &dense);
    tools::DeviceOptions device;
    options.addDeviceOptions(&device);
    tools::DraftOptions draft;
    tools::addDraftOptions(options, &draft);
    switch (options.parse(argc, argv)) {
    case tools::ToolOptions::Outcome::ExitSuccess: return 0;
    case tools::ToolOptions::Outcome::ExitFailure: return 1;
    case tools::ToolOptions::Outcome::Run: break;
    }
    settings.sampling.temperature = temperature;
    if (const auto level = reasoningFromName(reasoning)) {
        settings.reasoning = *level;
    } else {
        std::fprintf(stderr, "hearth-cli: --reasoning takes off, low, medium or high, not '%s'\n", reasoning.c_str());
        return 1;
    }

    if (version) {
        const BuildInfo build = buildInfo();
        std::printf("hearth-cli %s\nCPU features: %s\nCPU kernels: %s\nCUDA back end built: %s\n", build.version.c_str(),
                    build.cpuFeatures.c_str(), build.cpuKernels.c_str(), build.cudaBuilt ? "yes" : "no");
        return 0;
    }
    if (settings.modelPath.empty()) {
        std::fprintf(stderr, "hearth-cli: no model given (-m FILE)\nTry 'hearth-cli --help' for more information.\n");
        return 1;
    }

    auto model = Model::load(settings.modelPath);
    if (!model) {
        std::fprintf(stderr, "hearth-cli: cannot load '%s': %s\n", settings.modelPath.c_str(), model.message().c_str());
        return 1;
    }
    SessionParams sessionParams;
    sessionParams.contextLength = settings.contextLength;
    sessionParams.threads = settings.threads;
    sessionParams.denseFfn = dense;
    tools::applyDeviceOptions(device, sessionParams);
    auto session = Session::create(*model, sessionParams);
    if (!session) {
        std::fprintf(stderr, "hearth-cli: cannot start a session: %s\n", session.message().c_str());
        return 1;
    }
    std::fprintf(stderr, "[placement: %s]\n", (*session)->placementReport().c_str());
    auto drafter = tools::makeDrafter(draft, **session, sessionParams);
    if (!drafter) {
        std::fprintf(stderr, "hearth-cli: %s\n", drafter.message().c_str());
        return 1;
    }
    settings.drafter = drafter->get();

    if (options.wasSet("-p"))
        return oneShot(**session, **model, settings);
    return interactive(**session, **model, settings);
}
