// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// The prompt formats Hearth falls back to when a model file carries no usable chat template.

#include <hearth/chat.h>

#include <span>
#include <string>

namespace hearth::chat {

/// Renders @p messages in the format @p kind; cannot fail.
[[nodiscard]] std::string renderBuiltin(ChatTemplate::Builtin kind, std::span<const ChatMessage> messages, bool addGenerationPrompt);

/// "llama2", "chatml" or "plain".
[[nodiscard]] const char* builtinName(ChatTemplate::Builtin kind);

} // namespace hearth::chat
