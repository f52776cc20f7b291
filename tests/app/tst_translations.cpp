// SPDX-License-Identifier: MIT
// Every user-visible string must be translated in every language. lupdate is run over the
// sources into a copy of each .ts file: a string added to the code without a translation shows
// up there as unfinished, and so does a translation someone left unfinished.

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <QXmlStreamReader>

namespace {

QStringList sourceFiles()
{
    QStringList files;
    const QDir root(QStringLiteral(HEARTH_SOURCE_DIR));
    for (const QString& folder : { QStringLiteral("app"), QStringLiteral("ui") }) {
        QDirIterator it(root.filePath(folder),
            { QStringLiteral("*.cpp"), QStringLiteral("*.h"), QStringLiteral("*.qml") }, QDir::Files,
            QDirIterator::Subdirectories);
        while (it.hasNext())
            files.append(it.next());
    }
    files.sort();
    return files;
}

struct Problem
{
    QString context;
    QString source;
    QString why;
};

// Messages whose translation is unfinished, empty or gone from the code.
QList<Problem> problemsIn(const QString& tsPath, int* messageCount)
{
    QList<Problem> problems;
    QFile file(tsPath);
    if (!file.open(QIODevice::ReadOnly)) {
        problems.append({ QString(), QString(), QStringLiteral("cannot open %1").arg(tsPath) });
        return problems;
    }
    QXmlStreamReader xml(&file);
    QString context;
    QString source;
    *messageCount = 0;
    while (!xml.atEnd()) {
        xml.readNext();
        if (!xml.isStartElement())
            continue;
        if (xml.name() == QLatin1String("name")) {
            context = xml.readElementText();
        } else if (xml.name() == QLatin1String("source")) {
            source = xml.readElementText();
        } else if (xml.name() == QLatin1String("translation")) {
            ++*messageCount;
            const QString type = xml.attributes().value(QLatin1String("type")).toString();
            const QString text = xml.readElementText(QXmlStreamReader::IncludeChildElements);
            if (type == QLatin1String("unfinished"))
                problems.append({ context, source, QStringLiteral("unfinished") });
            else if (type == QLatin1String("vanished") || type == QLatin1String("obsolete"))
                problems.append({ context, source, QStringLiteral("no longer in the code") });
            else if (text.trimmed().isEmpty())
                problems.append({ context, source, QStringLiteral("empty") });
        }
    }
    if (xml.hasError())
        problems.append({ QString(), QString(), QStringLiteral("XML error: %1").arg(xml.errorString()) });
    return problems;
}

} // namespace

class TestTranslations : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void languageIsComplete_data()
    {
        QTest::addColumn<QString>("tsFile");
        const QDir i18n(QStringLiteral(HEARTH_SOURCE_DIR "/i18n"));
        const QStringList files = i18n.entryList({ QStringLiteral("hearth_*.ts") }, QDir::Files, QDir::Name);
        QVERIFY(files.contains(QStringLiteral("hearth_en.ts")));
        QVERIFY(files.contains(QStringLiteral("hearth_id.ts")));
        QVERIFY(files.contains(QStringLiteral("hearth_zh_CN.ts")));
        for (const QString& name : files)
            QTest::newRow(qPrintable(name)) << i18n.filePath(name);
    }

    void languageIsComplete()
    {
        QFETCH(QString, tsFile);

        int committedCount = 0;
        const QList<Problem> committed = problemsIn(tsFile, &committedCount);
        for (const Problem& p : committed)
            qWarning("%s: [%s] \"%s\": %s", qPrintable(QFileInfo(tsFile).fileName()), qPrintable(p.context),
                qPrintable(p.source), qPrintable(p.why));
        QVERIFY2(committed.isEmpty(), "the committed translation file has problems (listed above)");
        QVERIFY(committedCount > 0);

        // Strings in the code that the file lacks.
        QTemporaryDir temp;
        QVERIFY(temp.isValid());
        const QString copy = temp.filePath(QFileInfo(tsFile).fileName());
        QVERIFY(QFile::copy(tsFile, copy));
        QFile::setPermissions(copy, QFile::ReadOwner | QFile::WriteOwner);

        QProcess lupdate;
        lupdate.setProcessChannelMode(QProcess::MergedChannels);
        QStringList arguments = sourceFiles();
        arguments << QStringLiteral("-no-obsolete") << QStringLiteral("-locations") << QStringLiteral("none")
                  << QStringLiteral("-ts") << copy;
        lupdate.start(QStringLiteral(HEARTH_LUPDATE), arguments);
        QVERIFY2(lupdate.waitForFinished(120000), "lupdate did not finish");
        QVERIFY2(lupdate.exitCode() == 0, lupdate.readAll().constData());

        int updatedCount = 0;
        const QList<Problem> missing = problemsIn(copy, &updatedCount);
        for (const Problem& p : missing)
            qWarning("%s: [%s] \"%s\": missing in the .ts file (%s)",
                qPrintable(QFileInfo(tsFile).fileName()), qPrintable(p.context), qPrintable(p.source),
                qPrintable(p.why));
        QVERIFY2(missing.isEmpty(),
            "strings in the code are not translated: run the update_translations target and translate them");
        QCOMPARE(updatedCount, committedCount);
    }
};

QTEST_GUILESS_MAIN(TestTranslations)
#include "tst_translations.moc"
