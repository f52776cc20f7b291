// SPDX-License-Identifier: MIT
#include "chatexport.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace hearth::ChatExport {

namespace {

QString tr(const char* text)
{
    return QCoreApplication::translate("hearth::ChatExport", text);
}

QString roleHeading(const QString& role)
{
    if (role == QLatin1String("user"))
        return tr("User");
    if (role == QLatin1String("assistant"))
        return tr("Assistant");
    if (role == QLatin1String("system"))
        return tr("System");
    return role;
}

QString statsLine(const StoredMessage& m)
{
    QStringList parts;
    if (m.stats.tokens > 0)
        parts << tr("%1 tokens").arg(m.stats.tokens);
    if (m.stats.tokensPerSecond > 0)
        parts << tr("%1 tokens/s").arg(m.stats.tokensPerSecond, 0, 'f', 1);
    if (m.stats.timeToFirstTokenMs > 0)
        parts << tr("first token after %1 ms").arg(m.stats.timeToFirstTokenMs, 0, 'f', 0);
    if (!m.stats.model.isEmpty())
        parts << m.stats.model;
    if (m.state == MessageState::Interrupted)
        parts << tr("interrupted");
    if (m.state == MessageState::Stopped)
        parts << tr("stopped");
    if (m.state == MessageState::LengthLimit)
        parts << tr("cut off at the length limit");
    if (m.state == MessageState::ContextFull)
        parts << tr("cut off: the context was full");
    if (m.state == MessageState::Error)
        parts << tr("failed: %1").arg(m.errorText);
    return parts.join(QStringLiteral(" · "));
}

QJsonObject messageJson(const StoredMessage& m)
{
    QJsonObject o {
        {QStringLiteral("id"), m.id},
        {QStringLiteral("parentId"), m.parentId > 0 ? QJsonValue(m.parentId) : QJsonValue()},
        {QStringLiteral("role"), m.role},
        {QStringLiteral("content"), m.content},
        {QStringLiteral("created"), m.created.toString(Qt::ISODateWithMs)},
        {QStringLiteral("state"), messageStateName(m.state)},
    };
    if (!m.errorText.isEmpty())
        o.insert(QStringLiteral("error"), m.errorText);
    if (m.stats.tokens > 0 || !m.stats.model.isEmpty()) {
        o.insert(QStringLiteral("stats"),
            QJsonObject {
                {QStringLiteral("tokens"), m.stats.tokens},
                {QStringLiteral("tokensPerSecond"), m.stats.tokensPerSecond},
                {QStringLiteral("timeToFirstTokenMs"), m.stats.timeToFirstTokenMs},
                {QStringLiteral("model"), m.stats.model},
            });
    }
    return o;
}

} // namespace

QString toMarkdown(const Conversation& conversation, const QList<StoredMessage>& activePath)
{
    QString md;
    const QString title = conversation.title.isEmpty() ? tr("Untitled chat") : conversation.title;
    md += QStringLiteral("# %1\n\n").arg(title);
    if (!conversation.modelPath.isEmpty())
        md += tr("*Model:* `%1`").arg(conversation.modelPath) + QStringLiteral("  \n");
    md += tr("*Created:* %1").arg(conversation.created.toString(Qt::ISODate)) + QStringLiteral("\n\n");
    if (!conversation.systemPrompt.isEmpty()) {
        md += QStringLiteral("## %1\n\n").arg(tr("System prompt"));
        md += conversation.systemPrompt.trimmed() + QStringLiteral("\n\n");
    }
    for (const StoredMessage& m : activePath) {
        md += QStringLiteral("## %1\n\n").arg(roleHeading(m.role));
        md += m.content.trimmed() + QStringLiteral("\n\n");
        const QString stats = statsLine(m);
        if (!stats.isEmpty())
            md += QStringLiteral("*%1*\n\n").arg(stats);
    }
    return md;
}

QByteArray toJson(const Conversation& conversation, const QList<StoredMessage>& activePath,
    const QList<StoredMessage>& messages)
{
    QJsonArray path;
    for (const StoredMessage& m : activePath)
        path.append(m.id);
    QJsonArray all;
    for (const StoredMessage& m : messages)
        all.append(messageJson(m));
    const QJsonObject root {
        {QStringLiteral("format"), QStringLiteral("hearth-chat")},
        {QStringLiteral("version"), 1},
        {QStringLiteral("id"), conversation.id},
        {QStringLiteral("title"), conversation.title},
        {QStringLiteral("created"), conversation.created.toString(Qt::ISODateWithMs)},
        {QStringLiteral("updated"), conversation.updated.toString(Qt::ISODateWithMs)},
        {QStringLiteral("systemPrompt"), conversation.systemPrompt},
        {QStringLiteral("modelPath"), conversation.modelPath},
        {QStringLiteral("sampling"), conversation.sampling},
        {QStringLiteral("pinned"), conversation.pinned},
        {QStringLiteral("activePath"), path},
        {QStringLiteral("messages"), all},
    };
    return QJsonDocument(root).toJson(QJsonDocument::Indented);
}

} // namespace hearth::ChatExport
