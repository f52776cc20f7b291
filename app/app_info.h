// SPDX-License-Identifier: MIT
#pragma once

#include <QObject>
#include <QString>
#include <QtQml/qqmlregistration.h>

class QQmlEngine;
class QJSEngine;

namespace hearth::app {

/// Facts about this build and this machine: shown in the status bar, the About box and
/// `hearth --version`, and pasted into bug reports.
class AppInfo : public QObject
{
    Q_OBJECT
    QML_ELEMENT
    QML_SINGLETON

    Q_PROPERTY(QString version READ version CONSTANT)
    Q_PROPERTY(bool cudaBuilt READ cudaBuilt CONSTANT)
    Q_PROPERTY(QString highlighting READ highlighting CONSTANT)
    Q_PROPERTY(QString cpuFeatures READ cpuFeatures CONSTANT)
    Q_PROPERTY(QString cpuKernels READ cpuKernels CONSTANT)
    Q_PROPERTY(QString dataDir READ dataDir CONSTANT)

public:
    // No default arguments: Qt 6.4 prefers a default constructor over create(), and QML must
    // get the instance main() made.
    explicit AppInfo(const QString& dataDir, QObject* parent = nullptr);

    /// QML's factory: the instance main() made, or a fresh one (tests, previews).
    static AppInfo* create(QQmlEngine* qmlEngine, QJSEngine* jsEngine);
    /// Hands @p instance to QML; the caller keeps ownership.
    static void setInstance(AppInfo* instance);

    [[nodiscard]] QString version() const;
    [[nodiscard]] bool cudaBuilt() const { return m_cudaBuilt; }
    /// "KSyntaxHighlighting (in-process)", "kate-syntax-highlighter (out of process)" or "none".
    [[nodiscard]] QString highlighting() const;
    [[nodiscard]] QString cpuFeatures() const { return m_cpuFeatures; }
    [[nodiscard]] QString cpuKernels() const { return m_cpuKernels; }
    [[nodiscard]] QString dataDir() const { return m_dataDir; }

    /// The multi-line text `hearth --version` prints.
    [[nodiscard]] QString versionReport() const;

private:
    QString m_engineVersion;
    QString m_cpuFeatures;
    QString m_cpuKernels;
    QString m_dataDir;
    bool m_cudaBuilt = false;
};

} // namespace hearth::app
