// SPDX-License-Identifier: MIT
#include "app_settings.h"
#include "language_manager.h"

#include <QCoreApplication>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using hearth::app::LanguageManager;

class TestLanguageManager : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void bestLanguage_data()
    {
        QTest::addColumn<QStringList>("uiLanguages");
        QTest::addColumn<QString>("expected");
        QTest::newRow("english") << QStringList { QStringLiteral("en-US") } << QStringLiteral("en");
        QTest::newRow("indonesian") << QStringList { QStringLiteral("id-ID"), QStringLiteral("en") }
                                    << QStringLiteral("id");
        QTest::newRow("simplified chinese")
            << QStringList { QStringLiteral("zh-Hans-CN") } << QStringLiteral("zh_CN");
        QTest::newRow("zh_CN") << QStringList { QStringLiteral("zh_CN") } << QStringLiteral("zh_CN");
        // Traditional Chinese readers get the next language they listed, not Simplified.
        QTest::newRow("traditional chinese")
            << QStringList { QStringLiteral("zh-Hant-TW"), QStringLiteral("id") } << QStringLiteral("id");
        QTest::newRow("unknown falls back") << QStringList { QStringLiteral("tlh") } << QStringLiteral("en");
        QTest::newRow("empty") << QStringList {} << QStringLiteral("en");
    }

    void bestLanguage()
    {
        QFETCH(QStringList, uiLanguages);
        QFETCH(QString, expected);
        QCOMPARE(LanguageManager::bestLanguage(uiLanguages), expected);
    }

    void switchingTranslatesAtRunTime()
    {
        LanguageManager manager(nullptr);
        QSignalSpy changed(&manager, &LanguageManager::languageChanged);
        QVERIFY(manager.setLanguage(QStringLiteral("id")));
        QCOMPARE(manager.language(), QStringLiteral("id"));
        QCOMPARE(changed.count(), 1);
        // The compiled .qm is in the resources and really translates.
        QCOMPARE(QCoreApplication::translate("Composer", "Open a model first"),
            QStringLiteral("Buka model terlebih dahulu"));

        QVERIFY(manager.setLanguage(QStringLiteral("zh_CN")));
        QCOMPARE(QCoreApplication::translate("Composer", "Open a model first"),
            QStringLiteral("请先打开一个模型"));

        QVERIFY(manager.setLanguage(QStringLiteral("en")));
        QCOMPARE(QCoreApplication::translate("Composer", "Open a model first"),
            QStringLiteral("Open a model first"));
        QCOMPARE(changed.count(), 3);
    }

    void unknownLanguageChangesNothing()
    {
        LanguageManager manager(nullptr);
        QVERIFY(manager.setLanguage(QStringLiteral("id")));
        QVERIFY(!manager.setLanguage(QStringLiteral("xx")));
        QVERIFY(!manager.setLanguage(QString()));
        QCOMPARE(manager.language(), QStringLiteral("id"));
    }

    // The language chosen is the one the next start uses, also from files the earlier key
    // ("general/language", read back as a top-level key) wrote.
    void chosenLanguageSurvivesARestart()
    {
        QTemporaryDir dir;
        const QString ini = dir.filePath(QStringLiteral("settings.ini"));
        {
            hearth::app::AppSettings settings(ini);
            settings.setLanguage(QStringLiteral("id"));
            settings.setDataDir(dir.filePath(QStringLiteral("data")));
        }
        {
            hearth::app::AppSettings restarted(ini);
            QCOMPARE(restarted.language(), QStringLiteral("id"));
            QCOMPARE(restarted.dataDir(), dir.filePath(QStringLiteral("data")));
        }
        QFile old(ini);
        QVERIFY(old.open(QIODevice::WriteOnly | QIODevice::Truncate));
        old.write("[general]\nlanguage=zh_CN\n");
        old.close();
        hearth::app::AppSettings upgraded(ini);
        QCOMPARE(upgraded.language(), QStringLiteral("zh_CN"));
    }

    void everyLanguageHasACompiledTranslation()
    {
        LanguageManager manager(nullptr);
        for (const QString& code : LanguageManager::availableLanguages())
            QVERIFY2(manager.setLanguage(code), qPrintable(code));
        QCOMPARE(manager.languages().size(), LanguageManager::availableLanguages().size());
    }
};

QTEST_GUILESS_MAIN(TestLanguageManager)
#include "tst_language_manager.moc"
