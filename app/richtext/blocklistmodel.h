// SPDX-License-Identifier: MIT
#pragma once

#include "codehighlighter.h"
#include "markdownblocks.h"

#include <QAbstractListModel>
#include <QElapsedTimer>
#include <QHash>
#include <QPointer>
#include <QTimer>

namespace hearth {

/// The blocks of one chat answer, for a ListView/Repeater whose DelegateChooser picks a delegate
/// by blockType. Feed it the whole answer so far with setMarkdown() on every token: it re-splits
/// only the last block (see MarkdownBlocks) and compares with what it has, so a token costs one
/// dataChanged() on the last row, or an insert when a new block starts; never a reset.
///
/// Code blocks are highlighted through a CodeHighlighter: while a block still streams at most
/// once per highlightInterval(), and once more when it is complete. highlightedHtml always shows
/// the whole code: the last highlighted part in colour followed by the newer text escaped.
class BlockListModel : public QAbstractListModel
{
    Q_OBJECT
    Q_PROPERTY(QString markdown READ markdown WRITE setMarkdown NOTIFY markdownChanged)
    Q_PROPERTY(bool streaming READ streaming WRITE setStreaming NOTIFY streamingChanged)
    Q_PROPERTY(bool dark READ dark WRITE setDark NOTIFY darkChanged)
    Q_PROPERTY(bool followPalette READ followPalette WRITE setFollowPalette NOTIFY followPaletteChanged)
    Q_PROPERTY(int count READ count NOTIFY countChanged)

public:
    enum Role {
        BlockTypeRole = Qt::UserRole + 1, ///< "blockType": "text" or "code" (for DelegateChooser)
        TextRole,                         ///< "text": Markdown source, or the raw code (what Copy copies)
        LanguageRole,                     ///< "language": fence language as written ("py"); "" for text
        CompleteRole,                     ///< "complete": false while a code block's fence is open
        HighlightedHtmlRole,              ///< "highlightedHtml": code as a `<pre>` for Text.RichText; "" for text
        BlockIdRole,                      ///< "blockId": stable while the answer grows
        LanguageLabelRole,                ///< "languageLabel": header of a code block, translated when none
        InfoRole,                         ///< "info": the fence's whole info string ("python title=x")
    };
    Q_ENUM(Role)

    explicit BlockListModel(QObject* parent = nullptr);
    ~BlockListModel() override;

    [[nodiscard]] int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    [[nodiscard]] QVariant data(const QModelIndex& index, int role) const override;
    [[nodiscard]] QHash<int, QByteArray> roleNames() const override;

    [[nodiscard]] QString markdown() const { return m_parser.markdown(); }
    /// The answer so far. Cheap when @p markdown extends the previous text.
    void setMarkdown(const QString& markdown);

    /// True (the default) while tokens may still arrive; set false when the answer is finished,
    /// which completes an unclosed fence and highlights it once more.
    [[nodiscard]] bool streaming() const { return m_streaming; }
    void setStreaming(bool streaming);

    /// Dark or light code theme; changing it highlights every code block again.
    [[nodiscard]] bool dark() const { return m_dark; }
    void setDark(bool dark);
    /// Follow the application palette (ApplicationPaletteChange) for dark().
    [[nodiscard]] bool followPalette() const { return m_followPalette; }
    void setFollowPalette(bool follow);

    /// Not owned; nullptr (the default) shows code as plain escaped text.
    void setHighlighter(CodeHighlighter* highlighter);
    [[nodiscard]] CodeHighlighter* highlighter() const { return m_highlighter; }
    /// Minimum time between two highlight requests for a code block that still streams.
    void setHighlightInterval(int milliseconds);
    [[nodiscard]] int highlightInterval() const { return m_intervalMs; }

    [[nodiscard]] int count() const { return int(m_rows.size()); }
    /// The raw code (or Markdown) of @p row, for the copy button.
    [[nodiscard]] Q_INVOKABLE QString textAt(int row) const;
    /// Highlight requests sent so far (for tests and measurements).
    [[nodiscard]] int highlightRequests() const { return m_requests; }

Q_SIGNALS:
    void markdownChanged();
    void streamingChanged();
    void darkChanged();
    void followPaletteChanged();
    void countChanged();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    struct Row {
        MarkdownBlock block;
        QString html;            // highlighter answer for htmlCode, a <pre> element
        QString htmlCode;        // the code html was made from (a prefix of the text while streaming)
        CodeHighlighter::RequestId pending = 0;
        QString requestedCode;   // what the last request (pending or answered) asked for
        QString requestedLanguage;
        bool requestedDark = false;
        bool dirty = false;      // changed since the last request, waiting for the interval
        QElapsedTimer lastRequest;
    };

    void reparse();
    void updateHighlight(Row& row, bool now);
    void sendRequest(Row& row);
    void onDebounceTimeout();
    void onHighlighted(CodeHighlighter::RequestId id, const QString& html);
    [[nodiscard]] QString highlightedHtml(const Row& row) const;
    [[nodiscard]] int rowOf(qsizetype blockId) const;

    MarkdownBlocks m_parser;
    QList<Row> m_rows;
    QHash<CodeHighlighter::RequestId, qsizetype> m_pending; // request -> block id
    QPointer<CodeHighlighter> m_highlighter;
    QTimer m_debounce;
    int m_intervalMs = 300;
    int m_requests = 0;
    bool m_streaming = true;
    bool m_dark = false;
    bool m_followPalette = false;
};

} // namespace hearth
