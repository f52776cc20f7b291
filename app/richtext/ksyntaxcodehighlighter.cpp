// SPDX-License-Identifier: MIT
#include "ksyntaxcodehighlighter.h"

#include "richtextlogging.h"
#include "syntaxnames.h"

#include <KSyntaxHighlighting/AbstractHighlighter>
#include <KSyntaxHighlighting/Definition>
#include <KSyntaxHighlighting/Format>
#include <KSyntaxHighlighting/Repository>
#include <KSyntaxHighlighting/State>
#include <KSyntaxHighlighting/Theme>

#include <QCache>
#include <QColor>
#include <QCryptographicHash>

#include <memory>

namespace hearth {

namespace {

namespace ksh = KSyntaxHighlighting;

// Turns the format callbacks of one definition + theme into <span style> HTML, line by line.
class HtmlWriter : public ksh::AbstractHighlighter
{
public:
    [[nodiscard]] QString write(const QString& code)
    {
        const ksh::Theme& current = theme();
        m_html = QStringLiteral("<pre style=\"background-color:%1;color:%2\">")
                     .arg(QColor::fromRgba(current.editorColor(ksh::Theme::BackgroundColor)).name(),
                          QColor::fromRgba(current.textColor(ksh::Theme::Normal)).name());
        ksh::State state;
        const QStringView all(code);
        qsizetype start = 0;
        while (true) {
            const qsizetype end = all.indexOf(u'\n', start);
            m_line = all.mid(start, (end < 0 ? all.size() : end) - start);
            state = highlightLine(m_line, state);
            if (end < 0)
                break;
            m_html += u'\n';
            start = end + 1;
        }
        m_html += QLatin1String("</pre>");
        return std::exchange(m_html, {});
    }

protected:
    void applyFormat(int offset, int length, const ksh::Format& format) override
    {
        const QString text = m_line.mid(offset, length).toString().toHtmlEscaped();
        const ksh::Theme& current = theme();
        if (format.isDefaultTextStyle(current)) {
            m_html += text;
            return;
        }
        QString style;
        if (format.hasTextColor(current))
            style += QStringLiteral("color:%1;").arg(format.textColor(current).name());
        if (format.hasBackgroundColor(current))
            style += QStringLiteral("background-color:%1;").arg(format.backgroundColor(current).name());
        if (format.isBold(current))
            style += QLatin1String("font-weight:bold;");
        if (format.isItalic(current))
            style += QLatin1String("font-style:italic;");
        if (format.isUnderline(current))
            style += QLatin1String("text-decoration:underline;");
        if (style.isEmpty()) {
            m_html += text;
            return;
        }
        m_html += QLatin1String("<span style=\"") + style + QLatin1String("\">") + text + QLatin1String("</span>");
    }

private:
    QString m_html;
    QStringView m_line;
};

} // namespace

/// Lives on the highlighter's thread; everything KSyntaxHighlighting happens here.
class KSyntaxHighlightWorker : public QObject
{
    Q_OBJECT

public:
    void highlight(quint64 id, const QString& code, const QString& language, bool dark)
    {
        if (!m_repository) {
            m_repository = std::make_unique<ksh::Repository>();
            for (const ksh::Definition& definition : m_repository->definitions())
                m_names.append(definition.name());
            m_cache.setMaxCost(4 * 1024 * 1024);
        }
        ksh::Definition definition;
        const QString name = resolveSyntaxName(language, m_names);
        if (!name.isEmpty())
            definition = m_repository->definitionForName(name);
        else if (!language.trimmed().isEmpty())
            definition = m_repository->definitionForFileName(QStringLiteral("code.") + language.trimmed());
        if (!definition.isValid()) {
            Q_EMIT done(id, CodeHighlighter::plainHtml(code));
            return;
        }
        const ksh::Theme theme = m_repository->defaultTheme(dark ? ksh::Repository::DarkTheme : ksh::Repository::LightTheme);
        QCryptographicHash hash(QCryptographicHash::Sha1);
        hash.addData(QByteArrayView(reinterpret_cast<const char*>(code.constData()), code.size() * qsizetype(sizeof(QChar))));
        const QByteArray key = definition.name().toUtf8() + '\x1f' + theme.name().toUtf8() + '\x1f' + hash.result();
        if (const QString* cached = m_cache.object(key)) {
            Q_EMIT done(id, *cached);
            return;
        }
        HtmlWriter writer;
        writer.setDefinition(definition);
        writer.setTheme(theme);
        const QString html = writer.write(code);
        m_cache.insert(key, new QString(html), std::max<qsizetype>(1, html.size()));
        Q_EMIT done(id, html);
    }

Q_SIGNALS:
    void done(quint64 id, const QString& html);

private:
    std::unique_ptr<ksh::Repository> m_repository;
    QStringList m_names;
    QCache<QByteArray, QString> m_cache;
};

KSyntaxCodeHighlighter::KSyntaxCodeHighlighter(QObject* parent)
    : CodeHighlighter(parent)
    , m_worker(new KSyntaxHighlightWorker)
{
    m_thread.setObjectName(QStringLiteral("hearth-highlight"));
    m_worker->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    connect(m_worker, &KSyntaxHighlightWorker::done, this, &KSyntaxCodeHighlighter::onDone, Qt::QueuedConnection);
    m_thread.start(QThread::LowPriority);
    qCDebug(lcHighlight) << "in-process KSyntaxHighlighting";
}

KSyntaxCodeHighlighter::~KSyntaxCodeHighlighter()
{
    m_thread.quit();
    m_thread.wait();
}

QString KSyntaxCodeHighlighter::backendName() const
{
    return QStringLiteral("KSyntaxHighlighting");
}

CodeHighlighter::RequestId KSyntaxCodeHighlighter::request(const QString& code, const QString& language, bool dark)
{
    const RequestId id = nextId();
    if (language.trimmed().isEmpty()) {
        answerLater(id, plainHtml(code));
        return id;
    }
    QMetaObject::invokeMethod(m_worker, [worker = m_worker, id, code, language, dark] {
        worker->highlight(id, code, language, dark);
    }, Qt::QueuedConnection);
    return id;
}

void KSyntaxCodeHighlighter::cancel(RequestId id)
{
    // The worker may be busy with it already; its answer is dropped in onDone().
    m_cancelled.insert(id);
    dropQueuedAnswer(id);
}

void KSyntaxCodeHighlighter::onDone(RequestId id, const QString& html)
{
    if (m_cancelled.remove(id))
        return;
    Q_EMIT highlighted(id, html);
}

} // namespace hearth

#include "ksyntaxcodehighlighter.moc"
