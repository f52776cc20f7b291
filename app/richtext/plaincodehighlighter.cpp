// SPDX-License-Identifier: MIT
#include "plaincodehighlighter.h"

namespace hearth {

PlainCodeHighlighter::PlainCodeHighlighter(QObject* parent)
    : CodeHighlighter(parent)
{
}

CodeHighlighter::RequestId PlainCodeHighlighter::request(const QString& code, const QString& language, bool dark)
{
    Q_UNUSED(language)
    Q_UNUSED(dark)
    const RequestId id = nextId();
    answerLater(id, plainHtml(code));
    return id;
}

void PlainCodeHighlighter::cancel(RequestId id)
{
    dropQueuedAnswer(id);
}

QString PlainCodeHighlighter::backendName() const
{
    return QStringLiteral("plain");
}

} // namespace hearth
