// SPDX-License-Identifier: MIT
#pragma once

#include <QAbstractListModel>
#include <QList>
#include <QString>
#include <QtQml/qqmlregistration.h>

namespace hearth::app {

/// The active branch of the open conversation, for the chat view. A streamed token updates one
/// row with dataChanged(); only opening another conversation or branch resets the model.
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
        MessageIdRole, ///< the ChatStore row id
        TokenCountRole, ///< generated tokens of an answer
        TimeToFirstTokenRole, ///< milliseconds, 0 when unknown
        SiblingIndexRole, ///< 0-based place among the alternatives sharing the parent
        SiblingCountRole, ///< how many alternatives there are (1: none)
        StateRole, ///< "complete", "streaming", "stopped", "length_limit", "context_full",
                   ///< "interrupted" or "error"
        ErrorTextRole,
        EndedEarlyRole, ///< stopped, or cut off by the length limit or a full context (Continue may go on)
    };
    Q_ENUM(Role)

    struct Message
    {
        qint64 id = 0;
        QString role;
        QString content;
        bool streaming = false;
        double tokensPerSecond = 0;
        int tokenCount = 0;
        double timeToFirstTokenMs = 0;
        int siblingIndex = 0;
        int siblingCount = 1;
        QString state = QStringLiteral("complete");
        QString errorText;
    };

    explicit MessageModel(QObject* parent = nullptr);

    [[nodiscard]] int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    [[nodiscard]] QVariant data(const QModelIndex& index, int role) const override;
    [[nodiscard]] QHash<int, QByteArray> roleNames() const override;

    /// Replaces every row (another conversation or branch).
    void setMessages(const QList<Message>& messages);
    [[nodiscard]] const Message& at(int row) const { return m_messages.at(row); }
    [[nodiscard]] int rowOfId(qint64 id) const;

    /// Appends a message; returns its row.
    int append(const Message& message);
    int append(const QString& role, const QString& content, bool streaming = false);
    /// Drops every row from @p row on (regenerate, edit-and-resend: a new branch follows).
    void truncate(int row);
    void appendToContent(int row, const QString& text);
    /// Makes the finished answer in @p row stream again (Continue).
    void resume(int row);
    void finish(int row, double tokensPerSecond, int tokenCount = 0, double timeToFirstTokenMs = 0,
        const QString& state = QStringLiteral("complete"), const QString& errorText = {});
    void setSiblings(int row, int index, int count);
    void clear();

private:
    QList<Message> m_messages;
};

} // namespace hearth::app
