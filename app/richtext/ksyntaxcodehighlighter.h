// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// In-process highlighting with KF6 SyntaxHighlighting; only built when configure found a Qt 6
/// build of it (HEARTH_HAVE_KSYNTAXHIGHLIGHTING).

#include "codehighlighter.h"

#include <QSet>
#include <QThread>

namespace hearth {

class KSyntaxHighlightWorker;

/// Highlights on a worker thread that owns the process's one KSyntaxHighlighting::Repository
/// (loading it reads every definition, and it is not shared between threads), so a long code
/// block never costs the GUI thread a frame.
class KSyntaxCodeHighlighter : public CodeHighlighter
{
    Q_OBJECT

public:
    explicit KSyntaxCodeHighlighter(QObject* parent = nullptr);
    ~KSyntaxCodeHighlighter() override;

    [[nodiscard]] RequestId request(const QString& code, const QString& language, bool dark) override;
    void cancel(RequestId id) override;
    [[nodiscard]] Backend backend() const override { return Backend::InProcess; }
    [[nodiscard]] QString backendName() const override;

private:
    void onDone(RequestId id, const QString& html);

    QThread m_thread;
    KSyntaxHighlightWorker* m_worker = nullptr;
    QSet<RequestId> m_cancelled;
};

} // namespace hearth
