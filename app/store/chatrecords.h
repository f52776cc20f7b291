// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// Plain value records the chat store hands out: conversations, messages in a tree, generation
/// statistics and search hits. They are copies; changing one changes nothing in the database.

#include <QDateTime>
#include <QJsonObject>
#include <QList>
#include <QString>

#include <optional>

namespace hearth {

/// Lifecycle of a message row. Assistant rows are written while the answer streams, so a row
/// can be found half-written after a crash: that is Interrupted, never lost.
enum class MessageState {
    Complete,
    Streaming,
    Interrupted, ///< the process ended while it streamed (a crash, a kill)
    Error,
    Stopped,     ///< the user stopped it: the text so far is the answer
    LengthLimit, ///< it reached the answer length limit (Maximum tokens) before its end
    ContextFull, ///< the conversation filled the model's context window before its end
};

/// An answer that ended before its end of turn, which Continue may take further.
[[nodiscard]] constexpr bool endedEarly(MessageState state)
{
    return state == MessageState::Stopped || state == MessageState::LengthLimit || state == MessageState::ContextFull;
}

/// The name stored in the database ("complete", "streaming", ...).
[[nodiscard]] QString messageStateName(MessageState state);
/// Parses a stored name; unknown names read as Complete so a newer writer cannot hide text.
[[nodiscard]] MessageState messageStateFromName(const QString& name);

// Named apart from the engine's hearth::ChatMessage and hearth::GenerationStats: the app links
// both, and two classes of one name in one program break the one-definition rule.

/// Measured while an answer was generated; zero when unknown (user messages, old databases).
struct StoredAnswerStats {
    int tokens = 0;
    double tokensPerSecond = 0.0;
    double timeToFirstTokenMs = 0.0;
    QString model;
};

struct StoredMessage {
    qint64 id = 0;
    qint64 conversationId = 0;
    qint64 parentId = 0; ///< 0 for the first message of a conversation
    QString role;        ///< "system", "user" or "assistant"
    QString content;
    QDateTime created;
    MessageState state = MessageState::Complete;
    QString errorText; ///< why generation failed, for state Error
    StoredAnswerStats stats;
};

struct Conversation {
    qint64 id = 0;
    QString title;
    QDateTime created;
    QDateTime updated;
    QString systemPrompt;
    QString modelPath;
    QJsonObject sampling; ///< temperature, top_k, top_p, min_p, repeat_penalty, max_tokens, seed
    bool pinned = false;
    qint64 activeLeafId = 0; ///< the last message of the branch the user looks at; 0 when empty
    std::optional<QDateTime> deleted; ///< set while the conversation sits in the bin
};

/// Where a message sits among the answers (or edits) that share its parent: "< index+1/count >".
struct SiblingInfo {
    QList<qint64> ids; ///< oldest first
    int index = -1;
    [[nodiscard]] int count() const { return static_cast<int>(ids.size()); }
};

/// One conversation found by full-text search.
struct SearchHit {
    qint64 conversationId = 0;
    qint64 messageId = 0; ///< the best matching message, 0 when only the title matched
    QString title;
    QString snippet;     ///< plain text around the match
    QString snippetHtml; ///< the same, HTML-escaped, with matches in <b></b>
};

} // namespace hearth
