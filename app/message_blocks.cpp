// SPDX-License-Identifier: MIT
#include "message_blocks.h"

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

void MessageBlocks::copyToClipboard(const QString& text)
{
    if (auto* clipboard = QGuiApplication::clipboard())
        clipboard->setText(text);
}

} // namespace hearth::app
