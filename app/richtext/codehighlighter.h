// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// Highlights the code of a fenced code block into HTML that QML's Text (RichText) and
/// QTextDocument render: a single `<pre style="...">` element with coloured `<span>`s.
///
/// Every back end answers asynchronously, always through the event loop (never from inside
/// request()), so a caller may connect after requesting and no GUI-thread frame pays for the
/// highlighting itself.

#include <QList>
#include <QObject>
#include <QPair>
#include <QString>

#include <memory>

class QPalette;

namespace hearth {

class CodeHighlighter : public QObject
{
    Q_OBJECT

public:
    enum class Backend {
        Plain,        ///< HTML-escaped text, no colours
        OutOfProcess, ///< kate-syntax-highlighter (KF5) run with QProcess
        InProcess,    ///< KF6 SyntaxHighlighting linked in
    };
    Q_ENUM(Backend)

    using RequestId = quint64;

    ~CodeHighlighter() override;

    /// The best back end available: the one chosen at configure time (HEARTH_HIGHLIGHTING), if
    /// it works at run time (an out-of-process tool must still be in PATH), else plain.
    [[nodiscard]] static std::unique_ptr<CodeHighlighter> create(QObject* parent = nullptr);

    /// Asks for @p code in @p language (a fence's info word: "py", "C++", "rust", ...) with the
    /// dark or light theme. highlighted() follows later with the same id, exactly once unless
    /// cancel() came first. Unknown or empty languages give plain escaped text.
    [[nodiscard]] virtual RequestId request(const QString& code, const QString& language, bool dark) = 0;
    /// Drops a request that is no longer needed (a newer one superseded it). Harmless for ids
    /// that were answered already.
    virtual void cancel(RequestId id) = 0;

    [[nodiscard]] virtual Backend backend() const = 0;
    /// For `hearth --version` and logs: "kate-syntax-highlighter", "KSyntaxHighlighting", "plain".
    [[nodiscard]] virtual QString backendName() const = 0;

    /// The back end chosen at configure time: "ksyntaxhighlighting", "kate-syntax-highlighter" or
    /// "none".
    [[nodiscard]] static QString configuredBackend();

    /// `<pre>` with @p code HTML-escaped: what every back end answers when it cannot do better.
    [[nodiscard]] static QString plainHtml(const QString& code);
    /// Whether a palette is a dark one (dark window background), to pick the code theme.
    [[nodiscard]] static bool isDarkPalette(const QPalette& palette);

Q_SIGNALS:
    void highlighted(hearth::CodeHighlighter::RequestId id, const QString& html);

protected:
    explicit CodeHighlighter(QObject* parent = nullptr);

    [[nodiscard]] RequestId nextId() { return ++m_lastId; }
    /// Emits highlighted() from the event loop, never from inside the caller's request().
    void answerLater(RequestId id, const QString& html);
    /// Takes back an answer queued by answerLater() that was not delivered yet.
    void dropQueuedAnswer(RequestId id);

private:
    void deliverAnswers();

    RequestId m_lastId = 0;
    QList<QPair<RequestId, QString>> m_answers;
    bool m_deliveryQueued = false;
};

} // namespace hearth
