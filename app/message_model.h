// SPDX-License-Identifier: MIT
#pragma once

#include <QAbstractListModel>
#include <QString>
#include <QVector>
#include <QtQml/qqmlregistration.h>

namespace hearth::app {

/// The messages of the open conversation, for the chat view. A streamed token updates one row
/// with dataChanged(); rows are only ever appended or cleared.
class MessageModel : public QAbstractListModel
{
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("MessageModel is provided by ChatController")

public:
    enum Role {
        RoleRole = Qt::UserRole + 1, ///< "user" or "assistant"
        ContentRole, ///< the text so far
        StreamingRole, ///< true while tokens are still arriving
        TokensPerSecondRole, ///< decode speed of a finished answer, 0 otherwise
    };
    Q_ENUM(Role)

    explicit MessageModel(QObject* parent = nullptr);

    [[nodiscard]] int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    [[nodiscard]] QVariant data(const QModelIndex& index, int role) const override;
    [[nodiscard]] QHash<int, QByteArray> roleNames() const override;

    /// Appends a message; returns its row.
    int append(const QString& role, const QString& content, bool streaming = false);
    void appendToContent(int row, const QString& text);
    void finish(int row, double tokensPerSecond);
    void clear();

private:
    struct Message
    {
        QString role;
        QString content;
        bool streaming = false;
        double tokensPerSecond = 0;
    };
    QVector<Message> m_messages;
};

} // namespace hearth::app
