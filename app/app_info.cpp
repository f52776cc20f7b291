// SPDX-License-Identifier: MIT
#include "app_info.h"

#include <hearth/model.h>

#include <QCoreApplication>
#include <QJSEngine>
#include <QPointer>
#include <QStringLiteral>

namespace hearth::app {

namespace {
QPointer<AppInfo> s_instance;
}

AppInfo::AppInfo(const QString& dataDir, QObject* parent)
    : QObject(parent)
    , m_dataDir(dataDir)
{
    const hearth::BuildInfo info = hearth::buildInfo();
    m_engineVersion = QString::fromStdString(info.version);
    m_cpuFeatures = QString::fromStdString(info.cpuFeatures);
    m_cpuKernels = QString::fromStdString(info.cpuKernels);
    if (m_cpuKernels.isEmpty())
        m_cpuKernels = QStringLiteral("scalar");
    m_cudaBuilt = info.cudaBuilt;
}

AppInfo* AppInfo::create(QQmlEngine*, QJSEngine*)
{
    if (s_instance) {
        QJSEngine::setObjectOwnership(s_instance, QJSEngine::CppOwnership);
        return s_instance;
    }
    return new AppInfo(QString());
}

void AppInfo::setInstance(AppInfo* instance)
{
    s_instance = instance;
}

QString AppInfo::version() const
{
    return QStringLiteral(HEARTH_APP_VERSION);
}

QString AppInfo::highlighting() const
{
    const QString backend = QStringLiteral(HEARTH_HIGHLIGHTING_BACKEND);
    if (backend == QLatin1String("ksyntaxhighlighting"))
        return QStringLiteral("KSyntaxHighlighting (Qt 6, in-process)");
    if (backend == QLatin1String("kate-syntax-highlighter"))
        return QStringLiteral("kate-syntax-highlighter (out of process)");
    return QStringLiteral("none");
}

QString AppInfo::versionReport() const
{
    QString report;
    report += QStringLiteral("Hearth %1\n").arg(version());
    report += QStringLiteral("Engine: %1\n")
                  .arg(m_engineVersion.isEmpty() ? QStringLiteral("unknown") : m_engineVersion);
    report += QStringLiteral("Qt: %1 (built with %2)\n")
                  .arg(QString::fromLatin1(qVersion()), QStringLiteral(QT_VERSION_STR));
    report += QStringLiteral("CUDA module: %1\n")
                  .arg(m_cudaBuilt ? QStringLiteral("built") : QStringLiteral("not built"));
    report += QStringLiteral("Highlighting: %1\n").arg(highlighting());
    report += QStringLiteral("CPU features: %1\n")
                  .arg(m_cpuFeatures.isEmpty() ? QStringLiteral("none detected") : m_cpuFeatures);
    report += QStringLiteral("CPU kernels: %1\n").arg(m_cpuKernels);
    return report;
}

} // namespace hearth::app
