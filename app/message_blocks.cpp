// SPDX-License-Identifier: MIT
#include "message_blocks.h"

#include "reasoning.h"

#include <QClipboard>
#include <QGuiApplication>
#include <QPointer>

namespace hearth::app {

MessageBlocks::MessageBlocks(QObject* parent)
    : hearth::BlockListModel(parent)
{
    setHighlighter(sharedHighlighter());
    setFollowPalette(true);
}

hearth::CodeHighlighter* MessageBlocks::sharedHighlighter()
{
    // Owned by the application object, so it outlives every delegate and leaves with the app.
    static QPointer<hearth::CodeHighlighter> highlighter;
    if (!highlighter && QCoreApplication::instance())
        highlighter = hearth::CodeHighlighter::create(QCoreApplication::instance()).release();
    return highlighter;
}

void MessageBlocks::setContent(const QString& content)
{
    if (content == m_content)
        return;
    m_content = content;
    const ReasoningParts parts = ReasoningParts::split(content);
    m_thinking = parts.thinking;
    m_thinkingOpen = parts.thinkingOpen;
    setMarkdown(parts.answer);
    Q_EMIT contentChanged();
}

void MessageBlocks::copyToClipboard(const QString& text)
{
    if (auto* clipboard = QGuiApplication::clipboard())
        clipboard->setText(text);
}

} // namespace hearth::app
