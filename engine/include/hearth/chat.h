// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// Turning a conversation into the prompt text a model was trained on.

#include <hearth/status.h>

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace hearth {

class Model;

struct ChatMessage {
    std::string role; ///< "system", "user" or "assistant"
    std::string content;
};

/// How much a reasoning model thinks before it answers, as its template asks: Qwen 3's
/// `enable_thinking` (false for Off, true otherwise) and gpt-oss's `reasoning_effort` ("low",
/// "medium", "high"; Off is "low", which it cannot go below). Default leaves both unset: the
/// template's own default. Other templates ignore it.
enum class Reasoning { Default, Off, Low, Medium, High };

/// "off", "low", "medium" or "high" as a Reasoning; "" is Default; nullopt for anything else.
[[nodiscard]] std::optional<Reasoning> reasoningFromName(std::string_view name);

/// A chat template: the model's own Jinja template (tokenizer.chat_template), or a known fallback.
class ChatTemplate {
public:
    enum class Builtin { Llama2, ChatML, Plain };

    /// The model's template when it has a usable one, otherwise fallbackFor(model). When the model
    /// has a template that does not parse, @p problem (if given) says why it was not used.
    static ChatTemplate forModel(const Model& model, std::string* problem = nullptr);
    /// The built-in template that suits @p model's vocabulary, for when its own cannot be used.
    static ChatTemplate fallbackFor(const Model& model);
    /// Parses a Jinja template. bos/eos fill the template's bos_token/eos_token variables.
    static Result<ChatTemplate> fromJinja(const std::string& source, const std::string& bosToken,
                                          const std::string& eosToken);
    static ChatTemplate builtin(Builtin kind);

    ChatTemplate(const ChatTemplate&);
    ChatTemplate(ChatTemplate&&) noexcept;
    ChatTemplate& operator=(const ChatTemplate&);
    ChatTemplate& operator=(ChatTemplate&&) noexcept;
    ~ChatTemplate();

    /// Renders @p messages; with @p addGenerationPrompt the text ends where the assistant's reply starts.
    /// Whatever a model's template does, this ends quickly: a template that would take too long,
    /// too much memory or values nested too deeply fails with ErrorCode::LimitExceeded (or
    /// OutOfMemory), and the caller should switch to fallbackFor() rather than retry.
    /// A system turn that the template refuses (raise_exception) or leaves out of the text is put
    /// before the first question instead, as templates without a system role expect.
    [[nodiscard]] Result<std::string> apply(std::span<const ChatMessage> messages, bool addGenerationPrompt,
                                            Reasoning reasoning = Reasoning::Default) const;
    /// Whether the template reads a reasoning setting (Qwen 3's, gpt-oss's): apply()'s
    /// @p reasoning changes what it renders.
    [[nodiscard]] bool readsReasoning() const;
    /// True for the codes apply() fails with when a template runs into the renderer's limits.
    [[nodiscard]] static bool ranAway(ErrorCode code);
    /// "jinja", "llama2", "chatml" or "plain".
    [[nodiscard]] std::string name() const;

private:
    struct Impl;
    explicit ChatTemplate(std::shared_ptr<const Impl> impl);
    [[nodiscard]] Result<std::string> render(std::span<const ChatMessage> messages, bool addGenerationPrompt,
                                             Reasoning reasoning) const;
    std::shared_ptr<const Impl> m_impl;
};

} // namespace hearth
