// SPDX-License-Identifier: MIT
#include "chat/builtin_templates.h"

#include "chat/jinja_builtins.h"

namespace hearth::chat {

namespace {

std::string trimmed(const std::string& s)
{
    return jinja::strip(s, jinja::StripSide::Both);
}

// Llama 2 chat, as Meta's reference template: the system prompt is folded into the first user
// turn, every user turn opens with <s>, every assistant turn closes with </s>.
std::string llama2(std::span<const ChatMessage> messages)
{
    std::string out;
    std::string system;
    for (const auto& m : messages) {
        if (m.role == "system") {
            if (!system.empty())
                system += '\n';
            system += trimmed(m.content);
        } else if (m.role == "assistant") {
            out += ' ';
            out += trimmed(m.content);
            out += " </s>";
        } else {
            out += "<s>[INST] ";
            if (!system.empty()) {
                out += "<<SYS>>\n" + system + "\n<</SYS>>\n\n";
                system.clear();
            }
            out += trimmed(m.content) + " [/INST]";
        }
    }
    if (!system.empty()) // only a system prompt so far: show it as an (empty) instruction
        out += "<s>[INST] <<SYS>>\n" + system + "\n<</SYS>>\n\n [/INST]";
    return out;
}

std::string chatml(std::span<const ChatMessage> messages, bool addGenerationPrompt)
{
    std::string out;
    for (const auto& m : messages)
        out += "<|im_start|>" + m.role + "\n" + m.content + "<|im_end|>\n";
    if (addGenerationPrompt)
        out += "<|im_start|>assistant\n";
    return out;
}

std::string plain(std::span<const ChatMessage> messages, bool addGenerationPrompt)
{
    std::string out;
    for (const auto& m : messages) {
        std::string role = m.role.empty() ? std::string("User") : m.role;
        if (role[0] >= 'a' && role[0] <= 'z')
            role[0] = static_cast<char>(role[0] - 'a' + 'A');
        out += role + ": " + trimmed(m.content) + "\n";
    }
    if (addGenerationPrompt)
        out += "Assistant:";
    return out;
}

} // namespace

std::string renderBuiltin(ChatTemplate::Builtin kind, std::span<const ChatMessage> messages, bool addGenerationPrompt)
{
    switch (kind) {
    case ChatTemplate::Builtin::Llama2:
        return llama2(messages); // the text already ends where the answer starts
    case ChatTemplate::Builtin::ChatML:
        return chatml(messages, addGenerationPrompt);
    case ChatTemplate::Builtin::Plain:
        return plain(messages, addGenerationPrompt);
    }
    return plain(messages, addGenerationPrompt);
}

const char* builtinName(ChatTemplate::Builtin kind)
{
    switch (kind) {
    case ChatTemplate::Builtin::Llama2:
        return "llama2";
    case ChatTemplate::Builtin::ChatML:
        return "chatml";
    case ChatTemplate::Builtin::Plain:
        return "plain";
    }
    return "plain";
}

} // namespace hearth::chat
