// SPDX-License-Identifier: MIT
#include "conversation_list_model.h"

#include "chatstore.h"

namespace hearth::app {

ConversationListModel::ConversationListModel(QObject* parent)
    : QAbstractListModel(parent)
{
}

void ConversationListModel::setStore(hearth::ChatStore* store)
{
    m_store = store;
    refresh();
}

int ConversationListModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

QVariant ConversationListModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row& row = m_rows.at(index.row());
    switch (role) {
    case ConversationIdRole:
        return row.id;
    case Qt::DisplayRole:
    case TitleRole:
        return row.title;
    case UpdatedRole:
        return row.updated;
    case PinnedRole:
        return row.pinned;
    case SnippetRole:
        return row.snippet;
    default:
        return {};
    }
}

QHash<int, QByteArray> ConversationListModel::roleNames() const
{
    return {
        { ConversationIdRole, "conversationId" },
        { TitleRole, "title" },
        { UpdatedRole, "updated" },
        { PinnedRole, "pinned" },
        { SnippetRole, "snippet" },
    };
}

void ConversationListModel::setSearchText(const QString& text)
{
    if (text == m_searchText)
        return;
    m_searchText = text;
    Q_EMIT searchTextChanged();
    refresh();
}

qint64 ConversationListModel::idAt(int row) const
{
    return row >= 0 && row < m_rows.size() ? m_rows.at(row).id : 0;
}

void ConversationListModel::refresh()
{
    QList<Row> rows;
    if (m_store && m_store->isOpen()) {
        if (m_searchText.trimmed().isEmpty()) {
            const QList<Conversation> conversations = m_store->conversations();
            rows.reserve(conversations.size());
            for (const Conversation& conversation : conversations)
                rows.append({ conversation.id, conversation.title, conversation.updated, conversation.pinned, {} });
        } else {
            const QList<SearchHit> hits = m_store->search(m_searchText);
            rows.reserve(hits.size());
            for (const SearchHit& hit : hits)
                rows.append({ hit.conversationId, hit.title, {}, false, hit.snippetHtml });
        }
    }
    const bool countChanges = rows.size() != m_rows.size();
    beginResetModel();
    m_rows = std::move(rows);
    endResetModel();
    if (countChanges)
        Q_EMIT countChanged();
}

} // namespace hearth::app
