// SPDX-License-Identifier: MIT
#pragma once

#include <QAbstractListModel>
#include <QDateTime>
#include <QList>
#include <QString>
#include <QtQml/qqmlregistration.h>

namespace hearth {
class ChatStore;
}

namespace hearth::app {

/// The sidebar's conversations: every chat, newest first, or the full-text search hits when a
/// search text is set. Rows are re-read from the ChatStore when it reports a change; the list is
/// small next to the messages and changes only on user actions, so a reset is fine here.
class ConversationListModel : public QAbstractListModel
{
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("ConversationListModel is provided by ChatController")

    Q_PROPERTY(QString searchText READ searchText WRITE setSearchText NOTIFY searchTextChanged)
    Q_PROPERTY(int count READ count NOTIFY countChanged)

public:
    enum Role {
        ConversationIdRole = Qt::UserRole + 1,
        TitleRole,
        UpdatedRole,
        PinnedRole,
        SnippetRole, ///< HTML with the matches in bold; empty without a search
    };
    Q_ENUM(Role)

    explicit ConversationListModel(QObject* parent = nullptr);

    void setStore(hearth::ChatStore* store);

    [[nodiscard]] int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    [[nodiscard]] QVariant data(const QModelIndex& index, int role) const override;
    [[nodiscard]] QHash<int, QByteArray> roleNames() const override;

    [[nodiscard]] QString searchText() const { return m_searchText; }
    void setSearchText(const QString& text);
    [[nodiscard]] int count() const { return int(m_rows.size()); }
    [[nodiscard]] Q_INVOKABLE qint64 idAt(int row) const;

    /// Reads the rows again from the store.
    void refresh();

Q_SIGNALS:
    void searchTextChanged();
    void countChanged();

private:
    struct Row
    {
        qint64 id = 0;
        QString title;
        QDateTime updated;
        bool pinned = false;
        QString snippet;
    };

    hearth::ChatStore* m_store = nullptr;
    QString m_searchText;
    QList<Row> m_rows;
};

} // namespace hearth::app
