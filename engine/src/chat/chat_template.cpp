// SPDX-License-Identifier: MIT
#include <hearth/chat.h>
#include <hearth/model.h>

#include "chat/builtin_templates.h"
#include "chat/jinja_interpreter.h"
#include "chat/jinja_lexer.h"
#include "chat/jinja_parser.h"

#include <optional>

namespace hearth {

struct ChatTemplate::Impl {
    std::optional<Builtin> builtin; ///< set for the fallbacks; otherwise body holds the Jinja template
    jinja::Body body;
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

Result<std::string> ChatTemplate::apply(std::span<const ChatMessage> messages, bool addGenerationPrompt) const
{
    if (m_impl->builtin)
        return chat::renderBuiltin(*m_impl->builtin, messages, addGenerationPrompt);

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
