// SPDX-License-Identifier: MIT
#include "reasoning.h"

namespace hearth::app {

ReasoningParts ReasoningParts::split(const QString& content)
{
    static const QString open = QStringLiteral("<think>");
    static const QString close = QStringLiteral("</think>");
    ReasoningParts parts;
    qsizetype start = 0;
    while (start < content.size() && content.at(start).isSpace())
        ++start;
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

} // namespace hearth::app
