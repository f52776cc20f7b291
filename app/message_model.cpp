// SPDX-License-Identifier: MIT
#include "message_model.h"

#include "chatrecords.h"

namespace hearth::app {

MessageModel::MessageModel(QObject* parent)
    : QAbstractListModel(parent)
{
}

int MessageModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_messages.size());
}

QVariant MessageModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Message& message = m_messages.at(index.row());
    switch (role) {
    case RoleRole:
        return message.role;
    case Qt::DisplayRole:
    case ContentRole:
        return message.content;
    case StreamingRole:
        return message.streaming;
    case TokensPerSecondRole:
        return message.tokensPerSecond;
    case MessageIdRole:
        return message.id;
    case TokenCountRole:
        return message.tokenCount;
    case TimeToFirstTokenRole:
        return message.timeToFirstTokenMs;
    case SiblingIndexRole:
        return message.siblingIndex;
    case SiblingCountRole:
        return message.siblingCount;
    case StateRole:
        return message.state;
    case ErrorTextRole:
        return message.errorText;
    case EndedEarlyRole:
        return hearth::endedEarly(hearth::messageStateFromName(message.state));
    default:
        return {};
    }
}

QHash<int, QByteArray> MessageModel::roleNames() const
{
    return {
        { RoleRole, "role" },
        { ContentRole, "content" },
        { StreamingRole, "streaming" },
        { TokensPerSecondRole, "tokensPerSecond" },
        { MessageIdRole, "messageId" },
        { TokenCountRole, "tokenCount" },
        { TimeToFirstTokenRole, "timeToFirstTokenMs" },
        { SiblingIndexRole, "siblingIndex" },
        { SiblingCountRole, "siblingCount" },
        { StateRole, "messageState" },
        { ErrorTextRole, "errorText" },
        { EndedEarlyRole, "endedEarly" },
    };
}

void MessageModel::setMessages(const QList<Message>& messages)
{
    beginResetModel();
    m_messages = messages;
    endResetModel();
}

int MessageModel::rowOfId(qint64 id) const
{
    for (int row = int(m_messages.size()) - 1; row >= 0; --row) {
        if (m_messages.at(row).id == id)
            return row;
    }
    return -1;
}

int MessageModel::append(const Message& message)
{
    const int row = int(m_messages.size());
    beginInsertRows({}, row, row);
    m_messages.append(message);
    endInsertRows();
    return row;
}

int MessageModel::append(const QString& role, const QString& content, bool streaming)
{
    Message message;
    message.role = role;
    message.content = content;
    message.streaming = streaming;
    if (streaming)
        message.state = QStringLiteral("streaming");
    return append(message);
}

void MessageModel::truncate(int row)
{
    if (row < 0 || row >= m_messages.size())
        return;
    beginRemoveRows({}, row, int(m_messages.size()) - 1);
    m_messages.resize(row);
    endRemoveRows();
}

void MessageModel::appendToContent(int row, const QString& text)
{
    if (row < 0 || row >= m_messages.size() || text.isEmpty())
        return;
    m_messages[row].content += text;
    const QModelIndex changed = index(row);
    Q_EMIT dataChanged(changed, changed, { ContentRole });
}

void MessageModel::finish(int row, double tokensPerSecond, int tokenCount, double timeToFirstTokenMs,
    const QString& state, const QString& errorText)
{
    if (row < 0 || row >= m_messages.size())
        return;
    Message& message = m_messages[row];
    message.streaming = false;
    message.tokensPerSecond = tokensPerSecond;
    message.tokenCount = tokenCount;
    message.timeToFirstTokenMs = timeToFirstTokenMs;
    message.state = state;
    message.errorText = errorText;
    const QModelIndex changed = index(row);
    Q_EMIT dataChanged(changed, changed,
        { StreamingRole, TokensPerSecondRole, TokenCountRole, TimeToFirstTokenRole, StateRole, ErrorTextRole, EndedEarlyRole });
}

void MessageModel::resume(int row)
{
    if (row < 0 || row >= m_messages.size())
        return;
    Message& message = m_messages[row];
    message.streaming = true;
    message.state = QStringLiteral("streaming");
    message.errorText.clear();
    const QModelIndex changed = index(row);
    Q_EMIT dataChanged(changed, changed, { StreamingRole, StateRole, ErrorTextRole, EndedEarlyRole });
}

void MessageModel::setSiblings(int row, int index, int count)
{
    if (row < 0 || row >= m_messages.size())
        return;
    m_messages[row].siblingIndex = index;
    m_messages[row].siblingCount = count;
    const QModelIndex changed = this->index(row);
    Q_EMIT dataChanged(changed, changed, { SiblingIndexRole, SiblingCountRole });
}

void MessageModel::clear()
{
    if (m_messages.isEmpty())
        return;
    beginResetModel();
    m_messages.clear();
    endResetModel();
}

} // namespace hearth::app
