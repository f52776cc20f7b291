// SPDX-License-Identifier: MIT
#include "codehighlighter.h"

#include "katecodehighlighter.h"
#include "plaincodehighlighter.h"
#include "richtextlogging.h"

#ifdef HEARTH_HAVE_KSYNTAXHIGHLIGHTING
#include "ksyntaxcodehighlighter.h"
#endif

#include <QMetaObject>
#include <QPalette>

#ifndef HEARTH_RICHTEXT_BACKEND
#define HEARTH_RICHTEXT_BACKEND "none"
#endif

namespace hearth {

CodeHighlighter::CodeHighlighter(QObject* parent)
    : QObject(parent)
{
}

CodeHighlighter::~CodeHighlighter() = default;

std::unique_ptr<CodeHighlighter> CodeHighlighter::create(QObject* parent)
{
    const QString configured = configuredBackend();
#ifdef HEARTH_HAVE_KSYNTAXHIGHLIGHTING
    if (configured == QLatin1String("ksyntaxhighlighting"))
        return std::make_unique<KSyntaxCodeHighlighter>(parent);
#endif
    if (configured == QLatin1String("kate-syntax-highlighter")) {
        if (!KateCodeHighlighter::findProgram().isEmpty())
            return std::make_unique<KateCodeHighlighter>(parent);
        qCWarning(lcHighlight) << "kate-syntax-highlighter is not installed: code blocks are not highlighted";
    }
    return std::make_unique<PlainCodeHighlighter>(parent);
}

QString CodeHighlighter::configuredBackend()
{
    return QStringLiteral(HEARTH_RICHTEXT_BACKEND);
}

QString CodeHighlighter::plainHtml(const QString& code)
{
    return QLatin1String("<pre>") + code.toHtmlEscaped() + QLatin1String("</pre>");
}

bool CodeHighlighter::isDarkPalette(const QPalette& palette)
{
    return palette.color(QPalette::Window).lightness() < palette.color(QPalette::WindowText).lightness();
}

void CodeHighlighter::answerLater(RequestId id, const QString& html)
{
    m_answers.append({id, html});
    if (m_deliveryQueued)
        return;
    m_deliveryQueued = true;
    QMetaObject::invokeMethod(this, &CodeHighlighter::deliverAnswers, Qt::QueuedConnection);
}

void CodeHighlighter::dropQueuedAnswer(RequestId id)
{
    m_answers.removeIf([id](const QPair<RequestId, QString>& answer) { return answer.first == id; });
}

void CodeHighlighter::deliverAnswers()
{
    m_deliveryQueued = false;
    // A receiver may request (and so queue) more while we emit: take the batch first.
    const auto answers = std::exchange(m_answers, {});
    for (const auto& [id, html] : answers)
        Q_EMIT highlighted(id, html);
}

} // namespace hearth
