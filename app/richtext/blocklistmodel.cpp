// SPDX-License-Identifier: MIT
#include "blocklistmodel.h"

#include <QCoreApplication>
#include <QEvent>
#include <QGuiApplication>
#include <QPalette>

namespace hearth {

namespace {

QString typeName(MarkdownBlock::Type type)
{
    switch (type) {
    case MarkdownBlock::Type::Code:
        return QStringLiteral("code");
    case MarkdownBlock::Type::Quote:
        return QStringLiteral("quote");
    case MarkdownBlock::Type::Text:
        break;
    }
    return QStringLiteral("text");
}

} // namespace

BlockListModel::BlockListModel(QObject* parent)
    : QAbstractListModel(parent)
{
    m_debounce.setSingleShot(true);
    connect(&m_debounce, &QTimer::timeout, this, &BlockListModel::onDebounceTimeout);
}

BlockListModel::~BlockListModel()
{
    if (m_highlighter) {
        for (auto it = m_pending.cbegin(); it != m_pending.cend(); ++it)
            m_highlighter->cancel(it.key());
    }
}

int BlockListModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

QVariant BlockListModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.parent().isValid() || index.row() >= m_rows.size())
        return {};
    const Row& row = m_rows.at(index.row());
    const MarkdownBlock& block = row.block;
    const bool code = block.type == MarkdownBlock::Type::Code;
    switch (role) {
    case BlockTypeRole:
        return typeName(block.type);
    case Qt::DisplayRole:
    case TextRole:
        return block.text;
    case LanguageRole:
        return block.language;
    case CompleteRole:
        return block.complete;
    case HighlightedHtmlRole:
        return code ? highlightedHtml(row) : QString();
    case BlockIdRole:
        return qlonglong(block.id);
    case LanguageLabelRole:
        if (!code)
            return QString();
        return block.language.isEmpty() ? tr("Code", "header of a code block without a language") : block.language;
    case InfoRole:
        return block.info;
    default:
        return {};
    }
}

QHash<int, QByteArray> BlockListModel::roleNames() const
{
    return {
        {BlockTypeRole, QByteArrayLiteral("blockType")},
        {TextRole, QByteArrayLiteral("text")},
        {LanguageRole, QByteArrayLiteral("language")},
        {CompleteRole, QByteArrayLiteral("complete")},
        {HighlightedHtmlRole, QByteArrayLiteral("highlightedHtml")},
        {BlockIdRole, QByteArrayLiteral("blockId")},
        {LanguageLabelRole, QByteArrayLiteral("languageLabel")},
        {InfoRole, QByteArrayLiteral("info")},
    };
}

void BlockListModel::setMarkdown(const QString& markdown)
{
    if (markdown == m_parser.markdown())
        return;
    m_parser.update(markdown, m_streaming ? MarkdownInput::Streaming : MarkdownInput::Finished);
    reparse();
    Q_EMIT markdownChanged();
}

void BlockListModel::setStreaming(bool streaming)
{
    if (m_streaming == streaming)
        return;
    m_streaming = streaming;
    m_parser.update(m_parser.markdown(), m_streaming ? MarkdownInput::Streaming : MarkdownInput::Finished);
    reparse();
    Q_EMIT streamingChanged();
}

void BlockListModel::reparse()
{
    const QList<MarkdownBlock>& blocks = m_parser.blocks();
    const int oldCount = int(m_rows.size());
    const int newCount = int(blocks.size());

    // Rows whose block starts at the same place are the same block: update them in place.
    int same = 0;
    while (same < oldCount && same < newCount && m_rows.at(same).block.id == blocks.at(same).id
           && m_rows.at(same).block.type == blocks.at(same).type) {
        Row& row = m_rows[same];
        const MarkdownBlock& block = blocks.at(same);
        QList<int> roles;
        if (row.block.text != block.text) {
            roles << TextRole << Qt::DisplayRole;
            if (block.type == MarkdownBlock::Type::Code)
                roles << HighlightedHtmlRole;
        }
        if (row.block.language != block.language)
            roles << LanguageRole << LanguageLabelRole;
        if (row.block.info != block.info)
            roles << InfoRole;
        if (row.block.complete != block.complete)
            roles << CompleteRole;
        if (!roles.isEmpty()) {
            row.block = block;
            const QModelIndex changed = index(same);
            Q_EMIT dataChanged(changed, changed, roles);
            updateHighlight(row, row.block.complete);
        } else {
            row.block.end = block.end;
        }
        ++same;
    }

    if (same < oldCount) {
        beginRemoveRows(QModelIndex(), same, oldCount - 1);
        for (int i = same; i < oldCount; ++i) {
            if (m_rows.at(i).pending != 0) {
                m_pending.remove(m_rows.at(i).pending);
                if (m_highlighter)
                    m_highlighter->cancel(m_rows.at(i).pending);
            }
        }
        m_rows.remove(same, oldCount - same);
        endRemoveRows();
    }
    if (same < newCount) {
        beginInsertRows(QModelIndex(), same, newCount - 1);
        for (int i = same; i < newCount; ++i) {
            Row row;
            row.block = blocks.at(i);
            m_rows.append(std::move(row));
        }
        endInsertRows();
        for (int i = same; i < newCount; ++i)
            updateHighlight(m_rows[i], true);
    }
    if (oldCount != newCount)
        Q_EMIT countChanged();
}

void BlockListModel::updateHighlight(Row& row, bool now)
{
    if (!m_highlighter || row.block.type != MarkdownBlock::Type::Code)
        return;
    if (row.block.text.isEmpty())
        return;
    if (row.requestedCode == row.block.text && row.requestedLanguage == row.block.language
        && row.requestedDark == m_dark && (row.pending != 0 || !row.html.isEmpty())) {
        row.dirty = false;
        return;
    }
    if (now || !row.lastRequest.isValid() || row.lastRequest.elapsed() >= m_intervalMs) {
        sendRequest(row);
        return;
    }
    row.dirty = true;
    if (!m_debounce.isActive())
        m_debounce.start(int(std::max<qint64>(1, m_intervalMs - row.lastRequest.elapsed())));
}

void BlockListModel::sendRequest(Row& row)
{
    if (row.pending != 0) {
        m_pending.remove(row.pending);
        m_highlighter->cancel(row.pending);
    }
    row.requestedCode = row.block.text;
    row.requestedLanguage = row.block.language;
    row.requestedDark = m_dark;
    row.dirty = false;
    row.lastRequest.start();
    row.pending = m_highlighter->request(row.block.text, row.block.language, m_dark);
    m_pending.insert(row.pending, row.block.id);
    ++m_requests;
}

void BlockListModel::onDebounceTimeout()
{
    qint64 wait = -1;
    for (Row& row : m_rows) {
        if (!row.dirty)
            continue;
        const qint64 left = m_intervalMs - row.lastRequest.elapsed();
        if (left <= 0)
            updateHighlight(row, true);
        else
            wait = wait < 0 ? left : std::min(wait, left);
    }
    if (wait > 0)
        m_debounce.start(int(wait));
}

void BlockListModel::onHighlighted(CodeHighlighter::RequestId id, const QString& html)
{
    const auto it = m_pending.constFind(id);
    if (it == m_pending.cend())
        return; // superseded or removed
    const int index = rowOf(it.value());
    m_pending.erase(it);
    if (index < 0)
        return;
    Row& row = m_rows[index];
    if (row.pending != id)
        return;
    row.pending = 0;
    row.html = html;
    row.htmlCode = row.requestedCode;
    const QModelIndex changed = this->index(index);
    Q_EMIT dataChanged(changed, changed, {HighlightedHtmlRole});
}

QString BlockListModel::highlightedHtml(const Row& row) const
{
    const QString& code = row.block.text;
    if (row.html.isEmpty() || !code.startsWith(row.htmlCode))
        return CodeHighlighter::plainHtml(code);
    if (code.size() == row.htmlCode.size())
        return row.html;
    // Newer text than the last answer: shown escaped, in the default colour, until the next one.
    const qsizetype close = row.html.lastIndexOf(QLatin1String("</pre>"));
    if (close < 0)
        return CodeHighlighter::plainHtml(code);
    return row.html.left(close) + code.mid(row.htmlCode.size()).toHtmlEscaped() + QLatin1String("</pre>");
}

int BlockListModel::rowOf(qsizetype blockId) const
{
    // Few blocks per answer, and the one asked for is usually the last.
    for (int i = int(m_rows.size()) - 1; i >= 0; --i) {
        if (m_rows.at(i).block.id == blockId)
            return i;
    }
    return -1;
}

void BlockListModel::setDark(bool dark)
{
    if (m_dark == dark)
        return;
    m_dark = dark;
    for (Row& row : m_rows)
        updateHighlight(row, true);
    Q_EMIT darkChanged();
}

void BlockListModel::setFollowPalette(bool follow)
{
    if (m_followPalette == follow)
        return;
    m_followPalette = follow;
    if (follow) {
        qApp->installEventFilter(this);
        if (qobject_cast<QGuiApplication*>(QCoreApplication::instance()))
            setDark(CodeHighlighter::isDarkPalette(QGuiApplication::palette()));
    } else {
        qApp->removeEventFilter(this);
    }
    Q_EMIT followPaletteChanged();
}

bool BlockListModel::eventFilter(QObject* watched, QEvent* event)
{
    // KTextEditor does the same: a light/dark switch re-picks the theme and highlights again.
    if (m_followPalette && watched == QCoreApplication::instance() && event->type() == QEvent::ApplicationPaletteChange)
        setDark(CodeHighlighter::isDarkPalette(QGuiApplication::palette()));
    return QAbstractListModel::eventFilter(watched, event);
}

void BlockListModel::setHighlighter(CodeHighlighter* highlighter)
{
    if (m_highlighter == highlighter)
        return;
    if (m_highlighter) {
        disconnect(m_highlighter, nullptr, this, nullptr);
        for (auto it = m_pending.cbegin(); it != m_pending.cend(); ++it)
            m_highlighter->cancel(it.key());
    }
    m_pending.clear();
    m_highlighter = highlighter;
    for (Row& row : m_rows) {
        row.pending = 0;
        row.html.clear();
        row.htmlCode.clear();
        row.requestedCode.clear();
        row.dirty = false;
    }
    if (m_highlighter) {
        connect(m_highlighter, &CodeHighlighter::highlighted, this, &BlockListModel::onHighlighted);
        for (Row& row : m_rows)
            updateHighlight(row, true);
    }
}

void BlockListModel::setHighlightInterval(int milliseconds)
{
    m_intervalMs = std::max(0, milliseconds);
}

QString BlockListModel::textAt(int row) const
{
    return row >= 0 && row < m_rows.size() ? m_rows.at(row).block.text : QString();
}

} // namespace hearth
