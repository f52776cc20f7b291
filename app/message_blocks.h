// SPDX-License-Identifier: MIT
#pragma once

#include "blocklistmodel.h"

#include <QtQml/qqmlregistration.h>

namespace hearth::app {

/// A BlockListModel for one message delegate: QML sets `content` from the message on every
/// token and gets text and code blocks of the answer, with code highlighted off the GUI thread by
/// the one highlighter the whole application shares (its cache serves every message). A
/// reasoning model's thinking (ReasoningParts) is kept apart, for the delegate to show collapsed.
class MessageBlocks : public hearth::BlockListModel
{
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(QString content READ content WRITE setContent NOTIFY contentChanged)
    Q_PROPERTY(QString thinking READ thinking NOTIFY contentChanged)
    Q_PROPERTY(bool thinkingOpen READ thinkingOpen NOTIFY contentChanged)

public:
    explicit MessageBlocks(QObject* parent = nullptr);

    [[nodiscard]] QString content() const { return m_content; }
    void setContent(const QString& content);
    [[nodiscard]] QString thinking() const { return m_thinking; }
    [[nodiscard]] bool thinkingOpen() const { return m_thinkingOpen; }

    /// The application's highlighter, made on first use with the best back end available.
    [[nodiscard]] static hearth::CodeHighlighter* sharedHighlighter();
    /// Copies @p text to the clipboard (the copy buttons of code blocks and messages).
    Q_INVOKABLE static void copyToClipboard(const QString& text);

Q_SIGNALS:
    void contentChanged();

private:
    QString m_content;
    QString m_thinking;
    bool m_thinkingOpen = false;
};

} // namespace hearth::app
