// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// Conversations as files people keep: Markdown for reading and sharing, JSON for tools and
/// backups. Pure functions over records, so they are tested without a database.

#include "chatrecords.h"

#include <QByteArray>
#include <QList>
#include <QString>

namespace hearth::ChatExport {

/// The branch on screen as Markdown: title, settings, then one section per message.
[[nodiscard]] QString toMarkdown(const Conversation& conversation, const QList<StoredMessage>& activePath);

/// JSON with format "hearth-chat" version 1: the conversation's settings, "activePath" (message
/// ids from the first message to the active leaf) and "messages" (@p messages, each with its
/// parent id, so every branch can be rebuilt).
[[nodiscard]] QByteArray toJson(
    const Conversation& conversation, const QList<StoredMessage>& activePath, const QList<StoredMessage>& messages);

} // namespace hearth::ChatExport
