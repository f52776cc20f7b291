// SPDX-License-Identifier: MIT
#include "filedialogsupport.h"

#include <QQmlComponent>
#include <QQmlEngine>

namespace hearth::app {

namespace {

/// Whether `import <module>` compiles in @p engine. Only the import is compiled: nothing is
/// created, so a module's own bugs cannot run here.
bool importable(QQmlEngine* engine, const QString& module)
{
    QQmlComponent probe(engine);
    probe.setData(QStringLiteral("import QtQml\nimport %1\nQtObject {}\n").arg(module).toUtf8(),
                  QUrl(QStringLiteral("qrc:/hearth/dialog-probe.qml")));
    return probe.isReady();
}

} // namespace

QList<FileDialogSupport::Requirement> FileDialogSupport::defaultRequirements()
{
    return {
        {QStringLiteral("Qt.labs.folderlistmodel"), QStringLiteral("qml6-module-qt-labs-folderlistmodel")},
        {QStringLiteral("QtQuick.Dialogs.quickimpl"), QStringLiteral("qml6-module-qtquick-dialogs")},
        {QStringLiteral("QtQuick.Controls.impl"), QStringLiteral("qml6-module-qtquick-controls")},
    };
}

FileDialogSupport::FileDialogSupport(QQmlEngine* engine, const QList<Requirement>& requirements, QObject* parent)
    : QObject(parent)
{
    for (const Requirement& r : requirements) {
        if (!engine || !importable(engine, r.module))
            m_missing.append(r);
    }
}

FileDialogSupport* FileDialogSupport::create(QQmlEngine* qmlEngine, QJSEngine*)
{
    return new FileDialogSupport(qmlEngine, defaultRequirements());
}

QStringList FileDialogSupport::missingModules() const
{
    QStringList modules;
    for (const Requirement& r : m_missing)
        modules.append(r.module);
    return modules;
}

QString FileDialogSupport::problem() const
{
    if (m_missing.isEmpty())
        return {};
    QStringList packages;
    for (const Requirement& r : m_missing) {
        if (!packages.contains(r.package))
            packages.append(r.package);
    }
    return tr("The file chooser cannot open because this installation lacks the Qt module %1. "
              "Install the package %2 (for example with “sudo apt install %2”) and start Hearth again.",
              "%1 is a list of QML module names, %2 a list of package names")
        .arg(missingModules().join(QStringLiteral(", ")), packages.join(QLatin1Char(' ')));
}

} // namespace hearth::app
