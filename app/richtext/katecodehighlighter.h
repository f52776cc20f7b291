// SPDX-License-Identifier: MIT
#pragma once

#include "codehighlighter.h"

#include <QCache>
#include <QHash>
#include <QList>
#include <QStringList>

class QProcess;
class QTimer;

namespace hearth {

/// Highlights by running KDE's command-line highlighter (`kate-syntax-highlighter --stdin -s
/// <syntax> -t <theme> -f html`, Debian package libkf5syntaxhighlighting-tools). Debian 12 has no
/// Qt 6 build of the library, and a Qt 5 library cannot share our process, hence a process.
///
/// Everything is asynchronous: the definition list (`-l`) is read once, on the first request;
/// at most maxProcesses() highlighter processes run at a time, the rest queue; a process that
/// takes longer than timeout() is killed and answered with plain text, as is a tool that is
/// missing, crashes or prints something unexpected. Answers are cached by (syntax, theme, code)
/// with a bound on the cached HTML's size, least recently used first out.
class KateCodeHighlighter : public CodeHighlighter
{
    Q_OBJECT

public:
    explicit KateCodeHighlighter(QObject* parent = nullptr);
    ~KateCodeHighlighter() override;

    /// The tool in PATH, else where configure found it; empty when neither exists.
    [[nodiscard]] static QString findProgram();
    /// "Breeze Dark" or "Breeze Light", the themes that match the app's own look.
    [[nodiscard]] static QString themeName(bool dark);

    [[nodiscard]] RequestId request(const QString& code, const QString& language, bool dark) override;
    void cancel(RequestId id) override;
    [[nodiscard]] Backend backend() const override { return Backend::OutOfProcess; }
    [[nodiscard]] QString backendName() const override;

    /// The program to run; findProgram() by default. Set before the first request.
    void setProgram(const QString& program);
    [[nodiscard]] QString program() const { return m_program; }
    /// Milliseconds a process may take before it is killed (5 s by default).
    void setTimeout(int milliseconds);
    [[nodiscard]] int timeout() const { return m_timeoutMs; }
    /// Concurrent highlighter processes, 1 or 2 (2 by default).
    void setMaxProcesses(int count);
    [[nodiscard]] int maxProcesses() const { return m_maxProcesses; }
    /// Bound of the answer cache in characters of HTML (4 Mi by default).
    void setCacheLimit(qsizetype characters);

    /// Processes started so far, the definition list included (to check that the cache works).
    [[nodiscard]] int processesStarted() const { return m_processesStarted; }
    [[nodiscard]] int cacheHits() const { return m_cacheHits; }
    [[nodiscard]] int runningProcesses() const { return int(m_running.size()); }
    /// The tool's definition names, once read; empty before or when reading them failed.
    [[nodiscard]] QStringList syntaxNames() const { return m_syntaxNames; }

private:
    struct Job {
        RequestId id = 0;
        QString code;
        QString language; // as requested; resolved to syntax once the list is known
        QString syntax;
        QString theme;
        QByteArray cacheKey;
        bool cancelled = false;
    };
    struct Running {
        QProcess* process = nullptr;
        QTimer* timer = nullptr;
        Job job;
    };
    enum class ListState { NotLoaded, Loading, Loaded, Failed };

    void loadSyntaxList();
    void onSyntaxListDone(bool ok, const QByteArray& output);
    void schedule(Job job);
    void pump();
    void startJob(Job job);
    void finishJob(QProcess* process, bool ok);
    QProcess* spawn(const QStringList& arguments);
    void retire(QProcess* process);

    QString m_program;
    int m_timeoutMs = 5000;
    int m_maxProcesses = 2;
    ListState m_listState = ListState::NotLoaded;
    QStringList m_syntaxNames;
    QProcess* m_listProcess = nullptr;
    QTimer* m_listTimer = nullptr;
    QList<Job> m_awaitingList; // arrived before the definition list
    QList<Job> m_queue;        // waiting for a free process
    QHash<QProcess*, Running> m_running;
    QCache<QByteArray, QString> m_cache;
    int m_processesStarted = 0;
    int m_cacheHits = 0;
};

} // namespace hearth
