// SPDX-License-Identifier: MIT
#pragma once

#include <QString>

namespace hearth::app {

/// An answer of a reasoning model (Qwen 3, DeepSeek-R1) taken apart: the thinking between
/// `<think>` and `</think>`, and the answer after it. Templates that open the thinking
/// themselves leave the answer without `<think>`, so text before a lone `</think>` is thinking
/// too. gpt-oss writes channels instead (OpenAI's harmony format):
/// `<|channel|>analysis<|message|>...<|start|>assistant<|channel|>final<|message|>...`, the
/// final channel the answer and the others thinking. Anything else is all answer.
struct ReasoningParts
{
    QString thinking;
    QString answer;
    bool thinkingOpen = false; ///< `<think>` without `</think>` yet: the model is still thinking

    [[nodiscard]] static ReasoningParts split(const QString& content);
};

} // namespace hearth::app
