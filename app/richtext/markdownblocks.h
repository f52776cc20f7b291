// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// Splits a chat answer written in Markdown into the blocks the chat view shows one delegate
/// each for: runs of ordinary Markdown (rendered by QTextDocument::setMarkdown / Text.MarkdownText),
/// fenced code blocks (highlighted, with a copy button) and block quotes (with a bar beside them:
/// Qt renders a quote as a merely indented paragraph, which after a list reads as part of it).
///
/// Only top-level fences are split out, following CommonMark: a line of at least three backticks
/// or tildes indented by at most three spaces opens a block, a line of the same character at
/// least as long (and nothing else) closes it, and a backtick fence's info string may not contain
/// a backtick. Fences nested in lists or quotes stay inside their text block, where Qt's own
/// Markdown support renders them as plain code. A quote is a run of lines that start with '>' at
/// the margin; quotes indented into a list item stay in their text block.

#include <QList>
#include <QString>
#include <QStringView>

namespace hearth {

struct MarkdownBlock {
    enum class Type {
        Text, ///< ordinary Markdown, rendered as is
        Code, ///< the contents of a fenced code block, fences removed
        Quote, ///< the Markdown inside a block quote, the '>' markers removed
    };

    Type type = Type::Text;
    /// Stable while the message grows by appending: the offset in the message of the line the
    /// block starts on. Two blocks of one message never share an id.
    qsizetype id = 0;
    /// Text blocks: the Markdown source lines (CR removed). Code blocks: the code, without the
    /// fences, the fence's indentation removed, without a trailing newline. Quote blocks: the
    /// quoted Markdown, each line without its '>' and the space after it.
    QString text;
    /// Code blocks: the first word of the info string ("python" for "```python title=x"), as
    /// written; empty when none was given.
    QString language;
    /// Code blocks: the whole info string, trimmed.
    QString info;
    /// False for a code block whose closing fence has not arrived yet while streaming.
    bool complete = true;
    /// Offset just past the block's last line in the message (where the next block may start).
    qsizetype end = 0;

    [[nodiscard]] bool operator==(const MarkdownBlock& other) const = default;
};

/// Whether more text may still arrive. While streaming, an open fence at the end makes an
/// incomplete code block and a last, unterminated line that may be the beginning of a fence is
/// held back, so that "``" does not flash up as text before the third backtick arrives. A
/// finished message follows CommonMark: an unclosed fence runs to the end and is complete.
enum class MarkdownInput {
    Streaming,
    Finished,
};

/// The pure splitting function: @p markdown -> blocks, in order. Whitespace-only text between
/// blocks is dropped. Line ends may be LF or CRLF.
[[nodiscard]] QList<MarkdownBlock> splitMarkdownBlocks(QStringView markdown,
                                                       MarkdownInput input = MarkdownInput::Streaming);

/// Splits a message that keeps growing, re-parsing only from the start of its last block when the
/// new text extends the old one (the cost of a token is then the size of the last block, not of
/// the whole message). Any other change parses the message again from the start.
class MarkdownBlocks
{
public:
    /// Parses @p markdown and returns the blocks; the same as splitMarkdownBlocks() on it.
    const QList<MarkdownBlock>& update(const QString& markdown, MarkdownInput input = MarkdownInput::Streaming);

    [[nodiscard]] const QList<MarkdownBlock>& blocks() const { return m_blocks; }
    [[nodiscard]] const QString& markdown() const { return m_markdown; }
    /// How many characters the last update() parsed (for tests and measurements).
    [[nodiscard]] qsizetype lastParsedLength() const { return m_lastParsed; }

    void clear();

private:
    QString m_markdown;
    MarkdownInput m_input = MarkdownInput::Streaming;
    QList<MarkdownBlock> m_blocks;
    qsizetype m_lastParsed = 0;
};

} // namespace hearth
