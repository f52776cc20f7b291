// SPDX-License-Identifier: MIT
// Runs tests/app/qml/tst_vrampanel.qml (Qt Quick Test) against the Hearth.Models module.

#include <QCoreApplication>
#include <QQmlEngine>
#include <QQmlEngineExtensionPlugin>
#include <QSettings>
#include <QStandardPaths>
#include <QtQuickTest>

Q_IMPORT_QML_PLUGIN(Hearth_ModelsPlugin)

class VramPanelSetup : public QObject
{
    Q_OBJECT

public Q_SLOTS:
    void applicationAvailable()
    {
        // Remembered budgets go to a throw-away settings location.
        QCoreApplication::setOrganizationName(QStringLiteral("HearthTests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_vrampanel"));
        QStandardPaths::setTestModeEnabled(true);
        QSettings().clear();
    }
    void qmlEngineAvailable(QQmlEngine* engine) { engine->addImportPath(QStringLiteral("qrc:/qt/qml")); }
};

QUICK_TEST_MAIN_WITH_SETUP(tst_vrampanel, VramPanelSetup)
#include "tst_vrampanel.moc"
