// SPDX-License-Identifier: MIT
#include "reasoning.h"

#include <algorithm>

namespace hearth::app {

namespace {

const QString kThink = QStringLiteral("<think>");
const QString kThinkEnd = QStringLiteral("</think>");
const QString kChannel = QStringLiteral("<|channel|>");
const QString kMessage = QStringLiteral("<|message|>");
const QString kStart = QStringLiteral("<|start|>");

ReasoningParts splitChannels(const QString& content, qsizetype first)
{
    ReasoningParts parts;
    for (qsizetype at = first; at >= 0;) {
        const qsizetype header = content.indexOf(kMessage, at + kChannel.size());
        if (header < 0) {
            // The channel's name is still coming: nothing of this message to show yet.
            parts.thinkingOpen = parts.answer.isEmpty();
            break;
        }
        // "final", or "analysis", "commentary to=functions.x <|constrain|>json": the first word.
        const QString channel = content.mid(at + kChannel.size(), header - at - kChannel.size()).trimmed()
                                    .section(QLatin1Char(' '), 0, 0);
        const qsizetype from = header + kMessage.size();
        const qsizetype nextChannel = content.indexOf(kChannel, from);
        const qsizetype nextStart = content.indexOf(kStart, from);
        const qsizetype end = nextStart >= 0 ? nextStart : nextChannel;
        const QString text = content.mid(from, end < 0 ? -1 : end - from).trimmed();
        QString& into = channel == QLatin1String("final") ? parts.answer : parts.thinking;
        if (!text.isEmpty())
            into += (into.isEmpty() ? QString() : QStringLiteral("\n\n")) + text;
        parts.thinkingOpen = end < 0 && channel != QLatin1String("final");
        at = nextChannel;
    }
    return parts;
}

} // namespace

ReasoningParts ReasoningParts::split(const QString& content)
{
    const QString& open = kThink;
    const QString& close = kThinkEnd;
    ReasoningParts parts;
    qsizetype start = 0;
    while (start < content.size() && content.at(start).isSpace())
        ++start;
    // gpt-oss: the model starts with a channel (the template wrote "<|start|>assistant").
    if (content.mid(start, kChannel.size()) == kChannel)
        return splitChannels(content, start);
    const bool opened = content.mid(start, open.size()) == open;
    const qsizetype end = content.indexOf(close, opened ? start + open.size() : 0);
    if (!opened && end < 0) {
        parts.answer = content;
        return parts;
    }
    const qsizetype from = opened ? start + open.size() : 0;
    if (end < 0) {
        parts.thinking = content.mid(from).trimmed();
        parts.thinkingOpen = true;
        return parts;
    }
    parts.thinking = content.mid(from, end - from).trimmed();
    parts.answer = content.mid(end + close.size());
    // The newlines the model puts after </think> are not part of the answer.
    qsizetype lead = 0;
    while (lead < parts.answer.size() && parts.answer.at(lead).isSpace())
        ++lead;
    parts.answer.remove(0, lead);
    return parts;
}

ReasoningStream::Delta ReasoningStream::feed(const QString& text, bool last)
{
    m_text += text;
    // The longest end of the text that a tag could still grow from.
    qsizetype pending = 0;
    if (!last) {
        static const QString tags[] = {kThink, kThinkEnd, kChannel, kMessage, kStart};
        for (const QString& tag : tags) {
            for (qsizetype n = std::min(tag.size() - 1, m_text.size()); n > pending; --n) {
                if (m_text.endsWith(QStringView(tag).left(n))) {
                    pending = n;
                    break;
                }
            }
        }
    }
    Delta delta;
    const ReasoningParts parts = ReasoningParts::split(m_text.chopped(pending));
    // (A null string does not start with an empty one.)
    const auto grows = [](const QString& now, const QString& sent) { return sent.isEmpty() || now.startsWith(sent); };
    m_asIs = m_asIs || !grows(parts.thinking, m_thinking) || !grows(parts.answer, m_answer);
    if (m_asIs) {
        delta.answer = m_text.mid(m_sent);
        m_sent = m_text.size();
        return delta;
    }
    delta.thinking = parts.thinking.mid(m_thinking.size());
    delta.answer = parts.answer.mid(m_answer.size());
    m_thinking = parts.thinking;
    m_answer = parts.answer;
    m_sent = m_text.size() - pending;
    return delta;
}

} // namespace hearth::app
