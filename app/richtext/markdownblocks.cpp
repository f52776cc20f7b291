// SPDX-License-Identifier: MIT
#include "markdownblocks.h"

namespace hearth {

namespace {

struct Fence {
    QChar marker;          // '`' or '~'
    qsizetype length = 0;  // number of marker characters, at least 3
    qsizetype indent = 0;  // spaces before the fence, removed from the content lines
    QStringView info;      // the rest of the opening line, trimmed
};

qsizetype leadingSpaces(QStringView line)
{
    qsizetype i = 0;
    while (i < line.size() && line[i] == u' ')
        ++i;
    return i;
}

qsizetype runLength(QStringView line, qsizetype from, QChar c)
{
    qsizetype i = from;
    while (i < line.size() && line[i] == c)
        ++i;
    return i - from;
}

bool isBlank(QStringView line)
{
    return line.trimmed().isEmpty();
}

bool parseOpeningFence(QStringView line, Fence* fence)
{
    const qsizetype indent = leadingSpaces(line);
    if (indent > 3 || indent >= line.size())
        return false;
    const QChar marker = line[indent];
    if (marker != u'`' && marker != u'~')
        return false;
    const qsizetype length = runLength(line, indent, marker);
    if (length < 3)
        return false;
    const QStringView info = line.mid(indent + length).trimmed();
    // "```a`b" is inline code, not a fence (CommonMark 4.5).
    if (marker == u'`' && info.contains(u'`'))
        return false;
    *fence = Fence{marker, length, indent, info};
    return true;
}

bool isClosingFence(QStringView line, const Fence& fence)
{
    const qsizetype indent = leadingSpaces(line);
    if (indent > 3 || indent >= line.size())
        return false;
    const qsizetype length = runLength(line, indent, fence.marker);
    return length >= fence.length && line.mid(indent + length).trimmed().isEmpty();
}

// While streaming, an unterminated last line that could still grow into a fence is held back.
bool mayBecomeOpeningFence(QStringView line)
{
    const qsizetype indent = leadingSpaces(line);
    if (indent > 3)
        return false;
    if (indent == line.size())
        return false; // blank: shows nothing anyway
    const QChar marker = line[indent];
    if (marker != u'`' && marker != u'~')
        return false;
    return indent + runLength(line, indent, marker) == line.size();
}

bool mayBecomeClosingFence(QStringView line, const Fence& fence)
{
    const qsizetype indent = leadingSpaces(line);
    if (indent > 3 || indent == line.size())
        return false;
    const qsizetype length = runLength(line, indent, fence.marker);
    return length > 0 && line.mid(indent + length).trimmed().isEmpty();
}

QString languageOf(QStringView info)
{
    QStringView word = info;
    for (qsizetype i = 0; i < word.size(); ++i) {
        if (word[i].isSpace()) {
            word = word.left(i);
            break;
        }
    }
    // Pandoc-style attributes: "{.python .numberLines}" or "{python}".
    if (word.startsWith(u'{')) {
        word = word.mid(1);
        if (word.endsWith(u'}'))
            word.chop(1);
    }
    if (word.startsWith(u'.'))
        word = word.mid(1);
    return word.toString();
}

// A block quote line at the margin: "> text" or ">text"; @p content gets what follows the marker.
bool isQuoteLine(QStringView line, QStringView* content)
{
    if (!line.startsWith(u'>'))
        return false;
    QStringView rest = line.mid(1);
    if (rest.startsWith(u' '))
        rest = rest.mid(1);
    *content = rest;
    return true;
}

struct Line {
    QStringView text;       // without the line end
    qsizetype next = 0;     // offset of the following line
    bool terminated = false; // ended by '\n' (false only for the last line)
};

Line lineAt(QStringView md, qsizetype pos)
{
    const qsizetype nl = md.indexOf(u'\n', pos);
    Line line;
    line.terminated = nl >= 0;
    const qsizetype end = line.terminated ? nl : md.size();
    line.next = line.terminated ? nl + 1 : md.size();
    line.text = md.mid(pos, end - pos);
    if (line.text.endsWith(u'\r'))
        line.text.chop(1);
    return line;
}

class TextCollector
{
public:
    void start(qsizetype id)
    {
        m_id = id;
        m_text.clear();
        m_active = true;
    }
    void addLine(QStringView line)
    {
        // Leading blank lines carry nothing; trailing ones are dropped in flush().
        if (m_text.isEmpty() && isBlank(line))
            return;
        m_text += line;
        m_text += u'\n';
    }
    void flush(qsizetype end, QList<MarkdownBlock>* out)
    {
        if (!m_active)
            return;
        m_active = false;
        while (!m_text.isEmpty() && m_text.back().isSpace())
            m_text.chop(1);
        if (m_text.isEmpty())
            return;
        MarkdownBlock block;
        block.type = MarkdownBlock::Type::Text;
        block.id = m_id;
        block.text = std::move(m_text);
        block.end = end;
        out->append(std::move(block));
        m_text = QString();
    }
    [[nodiscard]] bool active() const { return m_active; }

private:
    qsizetype m_id = 0;
    QString m_text;
    bool m_active = false;
};

// Parses from @p pos, which must be the start of a line outside any fence, appending to @p out.
void parseFrom(QStringView md, qsizetype pos, MarkdownInput input, QList<MarkdownBlock>* out)
{
    const bool streaming = input == MarkdownInput::Streaming;
    TextCollector text;
    while (pos < md.size()) {
        const Line line = lineAt(md, pos);
        QStringView quoted;
        if (isQuoteLine(line.text, &quoted)) {
            text.flush(pos, out);
            MarkdownBlock block;
            block.type = MarkdownBlock::Type::Quote;
            block.id = pos;
            for (Line q = line; isQuoteLine(q.text, &quoted);) {
                if (!block.text.isEmpty())
                    block.text += u'\n';
                block.text += quoted;
                pos = q.next;
                if (pos >= md.size())
                    break;
                q = lineAt(md, pos);
            }
            block.end = pos;
            out->append(std::move(block));
            continue;
        }
        Fence fence;
        if (!parseOpeningFence(line.text, &fence)) {
            if (!text.active())
                text.start(pos);
            if (!(streaming && !line.terminated && mayBecomeOpeningFence(line.text)))
                text.addLine(line.text);
            pos = line.next;
            continue;
        }

        text.flush(pos, out);
        MarkdownBlock block;
        block.type = MarkdownBlock::Type::Code;
        block.id = pos;
        block.info = fence.info.toString();
        block.language = languageOf(fence.info);
        block.complete = false;
        pos = line.next;
        bool firstLine = true;
        while (pos < md.size()) {
            const Line content = lineAt(md, pos);
            if (isClosingFence(content.text, fence) && (content.terminated || !streaming)) {
                block.complete = true;
                pos = content.next;
                break;
            }
            if (streaming && !content.terminated && mayBecomeClosingFence(content.text, fence)) {
                pos = content.next; // held back until its line end (or the end of the message)
                break;
            }
            if (!firstLine)
                block.text += u'\n';
            firstLine = false;
            // Content lines lose up to the fence's indentation (CommonMark 4.5).
            const qsizetype strip = std::min(leadingSpaces(content.text), fence.indent);
            block.text += content.text.mid(strip);
            pos = content.next;
        }
        if (!streaming)
            block.complete = true; // an unclosed fence runs to the end of the document
        block.end = pos;
        out->append(std::move(block));
    }
    text.flush(pos, out);
}

} // namespace

QList<MarkdownBlock> splitMarkdownBlocks(QStringView markdown, MarkdownInput input)
{
    QList<MarkdownBlock> blocks;
    parseFrom(markdown, 0, input, &blocks);
    return blocks;
}

const QList<MarkdownBlock>& MarkdownBlocks::update(const QString& markdown, MarkdownInput input)
{
    // Appending cannot change anything before the last block: every earlier block ended at a line
    // the new text does not touch. A finished message may have closed a fence on an unterminated
    // line, so only a streaming state is extended.
    const bool extends = m_input == MarkdownInput::Streaming && !m_blocks.isEmpty()
        && markdown.size() >= m_markdown.size() && markdown.startsWith(m_markdown);
    qsizetype from = 0;
    if (extends) {
        from = m_blocks.constLast().id;
        m_blocks.removeLast();
    } else {
        m_blocks.clear();
    }
    parseFrom(markdown, from, input, &m_blocks);
    m_lastParsed = markdown.size() - from;
    m_markdown = markdown;
    m_input = input;
    return m_blocks;
}

void MarkdownBlocks::clear()
{
    m_markdown.clear();
    m_blocks.clear();
    m_input = MarkdownInput::Streaming;
    m_lastParsed = 0;
}

} // namespace hearth
