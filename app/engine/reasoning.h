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

/// An answer split as it streams (the API server's `reasoning_content` and `content` deltas):
/// feed() takes the next text and returns what is new of each part since the last call. Text
/// that may be the start of a tag (`</thi`, `<|chan`) waits for the next piece, or for @p last.
/// What was sent stays sent: when a later piece changes what the earlier text was (a lone
/// `</think>`: the template opened the thinking), the rest goes out as answer text, as it is.
class ReasoningStream
{
public:
    struct Delta
    {
        QString thinking;
        QString answer;
    };
    [[nodiscard]] Delta feed(const QString& text, bool last = false);

private:
    QString m_text;
    QString m_thinking; ///< sent so far
    QString m_answer;
    qsizetype m_sent = 0; ///< of m_text, what the parts sent so far were split from
    bool m_asIs = false;  ///< the split went back on itself: the rest is sent unsplit
};

} // namespace hearth::app
