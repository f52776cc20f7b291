// SPDX-License-Identifier: MIT
#include "message_model.h"

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
    };
}

int MessageModel::append(const QString& role, const QString& content, bool streaming)
{
    const int row = int(m_messages.size());
    beginInsertRows({}, row, row);
    m_messages.append({ role, content, streaming, 0 });
    endInsertRows();
    return row;
}

void MessageModel::appendToContent(int row, const QString& text)
{
    if (row < 0 || row >= m_messages.size() || text.isEmpty())
        return;
    m_messages[row].content += text;
    const QModelIndex changed = index(row);
    Q_EMIT dataChanged(changed, changed, { ContentRole });
}

void MessageModel::finish(int row, double tokensPerSecond)
{
    if (row < 0 || row >= m_messages.size())
        return;
    m_messages[row].streaming = false;
    m_messages[row].tokensPerSecond = tokensPerSecond;
    const QModelIndex changed = index(row);
    Q_EMIT dataChanged(changed, changed, { StreamingRole, TokensPerSecondRole });
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
