// SPDX-License-Identifier: MIT
#include "katecodehighlighter.h"

#include "richtextlogging.h"
#include "syntaxnames.h"

#include <QCryptographicHash>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTimer>

namespace hearth {

namespace {

// Reduces the tool's HTML page to its <pre> element, carrying the page's colours onto it so that
// QML Text (which ignores <body> styles) shows the theme's background and default colour.
QString preElement(const QString& page)
{
    const qsizetype open = page.indexOf(QLatin1String("<pre>"));
    const qsizetype close = page.lastIndexOf(QLatin1String("</pre>"));
    if (open < 0 || close < open)
        return {};
    QStringView inner = QStringView(page).mid(open + 5, close - open - 5);
    // The tool puts a newline after <pre> and one after every line; the code had no trailing one.
    if (inner.startsWith(u'\n'))
        inner = inner.mid(1);
    if (inner.endsWith(u'\n'))
        inner.chop(1);

    static const QRegularExpression bodyStyle(QStringLiteral("<body style=\"([^\"<>]*)\""));
    const QRegularExpressionMatch match = bodyStyle.match(QStringView(page).left(open));
    QString html = match.hasMatch() ? QStringLiteral("<pre style=\"%1\">").arg(match.captured(1))
                                    : QStringLiteral("<pre>");
    html += inner;
    html += QLatin1String("</pre>");
    return html;
}

QByteArray cacheKeyFor(const QString& syntax, const QString& theme, const QString& code)
{
    QCryptographicHash hash(QCryptographicHash::Sha1);
    hash.addData(QByteArrayView(reinterpret_cast<const char*>(code.constData()), code.size() * qsizetype(sizeof(QChar))));
    return syntax.toUtf8() + '\x1f' + theme.toUtf8() + '\x1f' + hash.result();
}

} // namespace

KateCodeHighlighter::KateCodeHighlighter(QObject* parent)
    : CodeHighlighter(parent)
    , m_program(findProgram())
{
    m_cache.setMaxCost(4 * 1024 * 1024);
}

KateCodeHighlighter::~KateCodeHighlighter()
{
    // Kill rather than wait: nobody is left to read the answers.
    const auto processes = m_running.keys();
    for (QProcess* process : processes) {
        process->disconnect(this);
        process->kill();
        process->waitForFinished(1000);
    }
    if (m_listProcess) {
        m_listProcess->disconnect(this);
        m_listProcess->kill();
        m_listProcess->waitForFinished(1000);
    }
}

QString KateCodeHighlighter::findProgram()
{
    QString path = QStandardPaths::findExecutable(QStringLiteral("kate-syntax-highlighter"));
#ifdef HEARTH_KATE_HIGHLIGHTER
    if (path.isEmpty() && QFileInfo(QStringLiteral(HEARTH_KATE_HIGHLIGHTER)).isExecutable())
        path = QStringLiteral(HEARTH_KATE_HIGHLIGHTER);
#endif
    return path;
}

QString KateCodeHighlighter::themeName(bool dark)
{
    return dark ? QStringLiteral("Breeze Dark") : QStringLiteral("Breeze Light");
}

QString KateCodeHighlighter::backendName() const
{
    return QStringLiteral("kate-syntax-highlighter");
}

void KateCodeHighlighter::setProgram(const QString& program)
{
    m_program = program;
    m_listState = ListState::NotLoaded;
    m_syntaxNames.clear();
}

void KateCodeHighlighter::setTimeout(int milliseconds)
{
    m_timeoutMs = std::max(1, milliseconds);
}

void KateCodeHighlighter::setMaxProcesses(int count)
{
    m_maxProcesses = std::clamp(count, 1, 2);
}

void KateCodeHighlighter::setCacheLimit(qsizetype characters)
{
    m_cache.setMaxCost(std::max<qsizetype>(0, characters));
}

CodeHighlighter::RequestId KateCodeHighlighter::request(const QString& code, const QString& language, bool dark)
{
    Job job;
    job.id = nextId();
    job.code = code;
    job.language = language;
    job.theme = themeName(dark);

    if (language.trimmed().isEmpty() || m_program.isEmpty() || m_listState == ListState::Failed) {
        answerLater(job.id, plainHtml(code));
        return job.id;
    }
    const RequestId id = job.id;
    if (m_listState == ListState::Loaded) {
        schedule(std::move(job));
    } else {
        m_awaitingList.append(std::move(job));
        loadSyntaxList();
    }
    return id;
}

void KateCodeHighlighter::cancel(RequestId id)
{
    const auto matches = [id](const Job& job) { return job.id == id; };
    m_awaitingList.removeIf(matches);
    m_queue.removeIf(matches);
    for (Running& running : m_running) {
        if (running.job.id == id)
            running.job.cancelled = true; // still cached when it finishes
    }
    dropQueuedAnswer(id);
}

void KateCodeHighlighter::loadSyntaxList()
{
    if (m_listState == ListState::Loading)
        return;
    m_listState = ListState::Loading;
    m_listProcess = spawn({QStringLiteral("-l")});
    QProcess* process = m_listProcess;
    m_listTimer = new QTimer(this);
    m_listTimer->setSingleShot(true);
    connect(m_listTimer, &QTimer::timeout, this, [this] {
        qCWarning(lcHighlight) << m_program << "-l timed out: code blocks stay plain";
        onSyntaxListDone(false, {});
    });
    connect(process, &QProcess::finished, this, [this, process](int exitCode, QProcess::ExitStatus status) {
        const bool ok = status == QProcess::NormalExit && exitCode == 0;
        if (!ok)
            qCWarning(lcHighlight) << m_program << "-l failed with exit code" << exitCode;
        onSyntaxListDone(ok, process->readAllStandardOutput());
    });
    connect(process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart) {
            qCWarning(lcHighlight) << "cannot run" << m_program << ": code blocks stay plain";
            onSyntaxListDone(false, {});
        }
    });
    m_listTimer->start(m_timeoutMs);
    process->start();
}

void KateCodeHighlighter::onSyntaxListDone(bool ok, const QByteArray& output)
{
    if (m_listProcess) {
        retire(m_listProcess);
        m_listProcess = nullptr;
    }
    if (m_listTimer) {
        // May be running inside its own timeout(): delete later.
        m_listTimer->stop();
        m_listTimer->deleteLater();
        m_listTimer = nullptr;
    }

    m_syntaxNames.clear();
    if (ok) {
        const QStringList lines = QString::fromUtf8(output).split(u'\n');
        for (const QString& line : lines) {
            const QString name = line.trimmed();
            if (!name.isEmpty())
                m_syntaxNames.append(name);
        }
    }
    m_listState = m_syntaxNames.isEmpty() ? ListState::Failed : ListState::Loaded;
    qCDebug(lcHighlight) << m_syntaxNames.size() << "syntax definitions from" << m_program;

    const QList<Job> waiting = std::exchange(m_awaitingList, {});
    for (const Job& job : waiting) {
        if (m_listState == ListState::Loaded)
            schedule(job);
        else
            answerLater(job.id, plainHtml(job.code));
    }
}

void KateCodeHighlighter::schedule(Job job)
{
    job.syntax = resolveSyntaxName(job.language, m_syntaxNames);
    if (job.syntax.isEmpty()) {
        answerLater(job.id, plainHtml(job.code));
        return;
    }
    job.cacheKey = cacheKeyFor(job.syntax, job.theme, job.code);
    if (const QString* cached = m_cache.object(job.cacheKey)) {
        ++m_cacheHits;
        answerLater(job.id, *cached);
        return;
    }
    m_queue.append(std::move(job));
    pump();
}

void KateCodeHighlighter::pump()
{
    while (!m_queue.isEmpty() && m_running.size() < m_maxProcesses)
        startJob(m_queue.takeFirst());
}

QProcess* KateCodeHighlighter::spawn(const QStringList& arguments)
{
    auto* process = new QProcess(this);
    process->setProgram(m_program);
    process->setArguments(arguments);
    // The tool's warnings ("Unknown syntax.") go to our log, not into the page we parse.
    process->setProcessChannelMode(QProcess::SeparateChannels);
    ++m_processesStarted;
    return process;
}

void KateCodeHighlighter::startJob(Job job)
{
    QProcess* process = spawn({QStringLiteral("--stdin"), QStringLiteral("-s"), job.syntax, QStringLiteral("-t"),
                               job.theme, QStringLiteral("-f"), QStringLiteral("html")});
    auto* timer = new QTimer(process);
    timer->setSingleShot(true);
    connect(timer, &QTimer::timeout, this, [this, process] {
        qCWarning(lcHighlight) << m_program << "took longer than" << m_timeoutMs << "ms: killed";
        finishJob(process, false);
    });
    connect(process, &QProcess::finished, this, [this, process](int exitCode, QProcess::ExitStatus status) {
        const bool ok = status == QProcess::NormalExit && exitCode == 0;
        if (!ok)
            qCWarning(lcHighlight) << m_program << "failed (exit code" << exitCode << ", crashed:" << (status == QProcess::CrashExit) << ")";
        finishJob(process, ok);
    });
    connect(process, &QProcess::errorOccurred, this, [this, process](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart) {
            qCWarning(lcHighlight) << "cannot run" << m_program;
            finishJob(process, false);
        }
    });
    // A trailing newline keeps the tool from dropping an unterminated last line.
    QByteArray input = job.code.toUtf8();
    input += '\n';
    m_running.insert(process, Running{process, timer, std::move(job)});
    timer->start(m_timeoutMs);
    process->start();
    if (!m_running.contains(process))
        return; // failed to start and already answered
    process->write(input);
    process->closeWriteChannel();
}

void KateCodeHighlighter::finishJob(QProcess* process, bool ok)
{
    const auto it = m_running.find(process);
    if (it == m_running.end())
        return; // already answered (timeout, then the kill's own finished())
    Running running = *it;
    m_running.erase(it);

    QString html;
    if (ok)
        html = preElement(QString::fromUtf8(process->readAllStandardOutput()));
    if (html.isEmpty()) {
        if (ok)
            qCWarning(lcHighlight) << m_program << "printed no <pre> element";
        html = plainHtml(running.job.code);
    } else {
        m_cache.insert(running.job.cacheKey, new QString(html), std::max<qsizetype>(1, html.size()));
    }
    retire(process);
    if (!running.job.cancelled)
        answerLater(running.job.id, html);
    pump();
}

void KateCodeHighlighter::retire(QProcess* process)
{
    process->disconnect(this);
    if (process->state() == QProcess::NotRunning) {
        process->deleteLater();
        return;
    }
    // Killed without waiting; the object goes once the OS has reaped the process.
    connect(process, &QProcess::finished, process, &QObject::deleteLater);
    process->kill();
}

} // namespace hearth
