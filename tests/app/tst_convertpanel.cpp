// SPDX-License-Identifier: MIT
// Runs tests/app/qml/tst_convertpanel.qml (Qt Quick Test) against the Hearth.Models module, with
// a tiny Hugging Face model folder written here for the panel to convert.

#include "../engine/hf_folder_writer.h"

#include <QQmlContext>
#include <QQmlEngine>
#include <QQmlEngineExtensionPlugin>
#include <QTemporaryDir>
#include <QtQuickTest>

Q_IMPORT_QML_PLUGIN(Hearth_ModelsPlugin)

class ConvertPanelSetup : public QObject
{
    Q_OBJECT

public Q_SLOTS:
    void qmlEngineAvailable(QQmlEngine* engine)
    {
        engine->addImportPath(QStringLiteral("qrc:/qt/qml"));
        const QString folder = m_dir.filePath(QStringLiteral("tiny-hf"));
        hearth::test::HfShape shape;
        if (!hearth::test::writeHfModelFolder(folder, shape, hearth::test::makeHfWeights(shape, 5)))
            qFatal("cannot write the model folder fixture");
        engine->rootContext()->setContextProperty(QStringLiteral("fixtureFolder"), folder);
        engine->rootContext()->setContextProperty(QStringLiteral("outputFolder"), m_dir.path());
    }

private:
    QTemporaryDir m_dir;
};

QUICK_TEST_MAIN_WITH_SETUP(tst_convertpanel, ConvertPanelSetup)
#include "tst_convertpanel.moc"
