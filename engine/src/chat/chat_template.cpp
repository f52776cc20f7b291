// SPDX-License-Identifier: MIT
#include <hearth/chat.h>
#include <hearth/model.h>

#include "chat/builtin_templates.h"
#include "chat/jinja_builtins.h"
#include "chat/jinja_interpreter.h"
#include "chat/jinja_lexer.h"
#include "chat/jinja_parser.h"

#include <algorithm>
#include <optional>
#include <vector>

namespace hearth {

struct ChatTemplate::Impl {
    std::optional<Builtin> builtin; ///< set for the fallbacks; otherwise body holds the Jinja template
    jinja::Body body;
    bool readsReasoning = false; ///< the source names enable_thinking or reasoning_effort
    std::string bosToken;
    std::string eosToken;
};

namespace {

// Real chat templates are a few kilobytes; anything far larger is not one.
constexpr std::size_t MaxTemplateBytes = 1u << 20;

std::string tokenText(const Tokenizer& tokenizer, Token token)
{
    if (token == InvalidToken || token < 0 || token >= tokenizer.vocabSize())
        return {};
    return tokenizer.tokenBytes(token);
}

} // namespace

ChatTemplate::ChatTemplate(std::shared_ptr<const Impl> impl)
    : m_impl(std::move(impl))
{
}

ChatTemplate::ChatTemplate(const ChatTemplate&) = default;
ChatTemplate::ChatTemplate(ChatTemplate&&) noexcept = default;
ChatTemplate& ChatTemplate::operator=(const ChatTemplate&) = default;
ChatTemplate& ChatTemplate::operator=(ChatTemplate&&) noexcept = default;
ChatTemplate::~ChatTemplate() = default;

Result<ChatTemplate> ChatTemplate::fromJinja(const std::string& source, const std::string& bosToken, const std::string& eosToken)
{
    if (source.size() > MaxTemplateBytes)
        return Result<ChatTemplate>(ErrorCode::InvalidArgument, "chat template is too large (" + std::to_string(source.size()) + " bytes)");
    auto tokens = jinja::tokenize(source);
    if (!tokens)
        return Result<ChatTemplate>(tokens.code(), "chat template: " + tokens.message());
    auto body = jinja::parse(*tokens);
    if (!body)
        return Result<ChatTemplate>(body.code(), "chat template: " + body.message());
    auto impl = std::make_shared<Impl>();
    impl->body = std::move(body).value();
    impl->readsReasoning = source.find("enable_thinking") != std::string::npos
                           || source.find("reasoning_effort") != std::string::npos;
    impl->bosToken = bosToken;
    impl->eosToken = eosToken;
    return ChatTemplate(std::move(impl));
}

ChatTemplate ChatTemplate::builtin(Builtin kind)
{
    auto impl = std::make_shared<Impl>();
    impl->builtin = kind;
    return ChatTemplate(std::move(impl));
}

ChatTemplate ChatTemplate::forModel(const Model& model, std::string* problem)
{
    const Tokenizer& tokenizer = model.tokenizer();
    if (!model.chatTemplateSource().empty()) {
        auto parsed = fromJinja(model.chatTemplateSource(), tokenText(tokenizer, tokenizer.bos()), tokenText(tokenizer, tokenizer.eos()));
        if (parsed)
            return std::move(parsed).value();
        if (problem)
            *problem = parsed.message();
    }
    return fallbackFor(model);
}

ChatTemplate ChatTemplate::fallbackFor(const Model& model)
{
    // Guess the format from the vocabulary's special tokens.
    const Tokenizer& tokenizer = model.tokenizer();
    const std::string bos = tokenText(tokenizer, tokenizer.bos());
    if (tokenizer.findToken("<|im_start|>") != InvalidToken)
        return builtin(Builtin::ChatML);
    if (bos == "<s>" || tokenizer.findToken("[INST]") != InvalidToken)
        return builtin(Builtin::Llama2);
    return builtin(Builtin::Plain);
}

namespace {

// As the templates' own `| trim` filter sees the text.
std::string trimmed(const std::string& text)
{
    return jinja::strip(text, jinja::StripSide::Both);
}

// The system turns' text put before the first question's, for templates without a system role.
std::vector<ChatMessage> foldSystemIntoFirstQuestion(std::span<const ChatMessage> messages)
{
    std::string system;
    std::vector<ChatMessage> folded;
    for (const ChatMessage& m : messages) {
        if (m.role == "system") {
            system += (system.empty() ? "" : "\n\n") + m.content;
            continue;
        }
        folded.push_back(m);
    }
    const auto question = std::find_if(folded.begin(), folded.end(), [](const ChatMessage& m) { return m.role == "user"; });
    if (question != folded.end())
        question->content = system + "\n\n" + question->content;
    else
        folded.insert(folded.begin(), ChatMessage{"user", system});
    return folded;
}

} // namespace

Result<std::string> ChatTemplate::apply(std::span<const ChatMessage> messages, bool addGenerationPrompt,
                                        Reasoning reasoning) const
{
    if (m_impl->builtin)
        return chat::renderBuiltin(*m_impl->builtin, messages, addGenerationPrompt);

    // Gemma's and Mistral's (v0.2) templates refuse a system turn, others leave it out; as other
    // apps do, its text then goes before the first question instead.
    const auto system = std::find_if(messages.begin(), messages.end(), [](const ChatMessage& m) {
        return m.role == "system" && !trimmed(m.content).empty();
    });
    if (system != messages.end()) {
        auto text = render(messages, addGenerationPrompt, reasoning);
        if (!text && ranAway(text.code()))
            return text; // a runaway template is not run twice
        if (text) {
            // Left out: the question's text is there and the system turn's is not. (Templates
            // often trim the content; a template that shows no content at all is left alone.)
            const auto question = std::find_if(messages.begin(), messages.end(), [](const ChatMessage& m) { return m.role == "user"; });
            const bool systemShown = text->find(trimmed(system->content)) != std::string::npos;
            const bool questionShown = question != messages.end() && !trimmed(question->content).empty()
                                       && text->find(trimmed(question->content)) != std::string::npos;
            if (systemShown || !questionShown)
                return text;
        }
        const std::vector<ChatMessage> folded = foldSystemIntoFirstQuestion(messages);
        auto retried = render(folded, addGenerationPrompt, reasoning);
        if (retried)
            return retried;
        return text; // the template's own words (or its text) when folding does not help either
    }
    return render(messages, addGenerationPrompt, reasoning);
}

std::optional<Reasoning> reasoningFromName(std::string_view name)
{
    constexpr std::pair<std::string_view, Reasoning> kNames[] = {{"", Reasoning::Default},
                                                                  {"off", Reasoning::Off},
                                                                  {"low", Reasoning::Low},
                                                                  {"medium", Reasoning::Medium},
                                                                  {"high", Reasoning::High}};
    for (const auto& [text, reasoning] : kNames) {
        if (text == name)
            return reasoning;
    }
    return std::nullopt;
}

bool ChatTemplate::readsReasoning() const
{
    return m_impl->readsReasoning;
}

bool ChatTemplate::ranAway(ErrorCode code)
{
    return code == ErrorCode::LimitExceeded || code == ErrorCode::OutOfMemory;
}

Result<std::string> ChatTemplate::render(std::span<const ChatMessage> messages, bool addGenerationPrompt,
                                         Reasoning reasoning) const
{
    jinja::ValueList list;
    list.reserve(messages.size());
    for (const auto& m : messages) {
        jinja::ValueDict message;
        message.set("role", jinja::Value(m.role));
        message.set("content", jinja::Value(m.content));
        list.emplace_back(std::move(message));
    }
    jinja::ValueDict globals;
    globals.set("messages", jinja::Value(std::move(list)));
    globals.set("add_generation_prompt", jinja::Value(addGenerationPrompt));
    globals.set("bos_token", jinja::Value(m_impl->bosToken));
    globals.set("eos_token", jinja::Value(m_impl->eosToken));
    if (reasoning != Reasoning::Default) {
        globals.set("enable_thinking", jinja::Value(reasoning != Reasoning::Off));
        globals.set("reasoning_effort", jinja::Value(std::string(reasoning == Reasoning::High     ? "high"
                                                                 : reasoning == Reasoning::Medium ? "medium"
                                                                                                  : "low")));
    }
    auto text = jinja::render(m_impl->body, globals);
    if (!text)
        return Result<std::string>(text.code(), "chat template: " + text.message());
    return text;
}

std::string ChatTemplate::name() const
{
    return m_impl->builtin ? chat::builtinName(*m_impl->builtin) : "jinja";
}

} // namespace hearth
