// SPDX-License-Identifier: MIT
#pragma once

#include "blocklistmodel.h"

#include <QtQml/qqmlregistration.h>

namespace hearth::app {

/// A BlockListModel for one message delegate: QML sets `markdown` from the message's content
/// on every token and gets text and code blocks, with code highlighted off the GUI thread by the
/// one highlighter the whole application shares (its cache serves every message).
class MessageBlocks : public hearth::BlockListModel
{
    Q_OBJECT
    QML_ELEMENT

public:
    explicit MessageBlocks(QObject* parent = nullptr);

    /// The application's highlighter, made on first use with the best back end available.
    [[nodiscard]] static hearth::CodeHighlighter* sharedHighlighter();
    /// Copies @p text to the clipboard (the copy buttons of code blocks and messages).
    Q_INVOKABLE static void copyToClipboard(const QString& text);
};

} // namespace hearth::app
