// SPDX-License-Identifier: MIT
// The real hearth binary, offscreen: it loads a generated model, sends a message through the
// hidden test hook (HEARTH_TEST_SEND), streams the answer to stdout and quits. A second start on
// the same data folder must find the conversation, and the database must hold it.

#include "app_test_support.h"

#include <QProcess>
#include <QProcessEnvironment>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

class TestAppEndToEnd : public QObject
{
    Q_OBJECT

private:
    static QString run(const QStringList& arguments, const QProcessEnvironment& environment, int* exitCode)
    {
        QProcess process;
        process.setProcessEnvironment(environment);
        process.start(QStringLiteral(HEARTH_BIN_DIR "/hearth" HEARTH_EXE_SUFFIX), arguments);
        if (!process.waitForFinished(120000)) {
            process.kill();
            process.waitForFinished();
        }
        *exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
        return QString::fromUtf8(process.readAllStandardOutput()) + QString::fromUtf8(process.readAllStandardError());
    }

private Q_SLOTS:
    void answersAndKeepsTheChat()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString model = hearth::test::makeTinyModel(dir.path());
        if (model.isEmpty())
            QSKIP("no test model: hearth-synth is not built and ../shared is absent");
        const QString data = dir.filePath(QStringLiteral("data"));

        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        environment.insert(QStringLiteral("HEARTH_TEST_SEND"), QStringLiteral("Hello from the test"));
        environment.insert(QStringLiteral("HEARTH_TEST_QUIT_AFTER_ANSWER"), QStringLiteral("1"));
        int exitCode = 0;
        const QString output = run({ QStringLiteral("--data-dir"), data, QStringLiteral("--model"), model }, environment, &exitCode);
        QVERIFY2(exitCode == 0, qPrintable(output));
        const qsizetype begin = output.indexOf(QStringLiteral("ANSWER-BEGIN"));
        const qsizetype end = output.indexOf(QStringLiteral("ANSWER-END"));
        QVERIFY2(begin >= 0 && end > begin, qPrintable(output));
        const QString answer = output.mid(begin + 12, end - begin - 12).trimmed();

        // Restart without the hook, with the fill hook off: the window opens on the same data and
        // the chat is listed (the screenshot hook quits once it is settled).
        QProcessEnvironment second = QProcessEnvironment::systemEnvironment();
        second.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        second.insert(QStringLiteral("HEARTH_SCREENSHOT"), dir.filePath(QStringLiteral("restart.png")));
        const QString restart = run({ QStringLiteral("--data-dir"), data }, second, &exitCode);
        QVERIFY2(exitCode == 0, qPrintable(restart));

        {
            QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("e2e"));
            db.setDatabaseName(data + QStringLiteral("/chats.sqlite"));
            QVERIFY(db.open());
            QSqlQuery conversations(QStringLiteral("SELECT title FROM conversations"), db);
            QVERIFY(conversations.next());
            QCOMPARE(conversations.value(0).toString(), QStringLiteral("Hello from the test"));
            QSqlQuery messages(QStringLiteral("SELECT role, content, state FROM messages ORDER BY id"), db);
            QVERIFY(messages.next());
            QCOMPARE(messages.value(0).toString(), QStringLiteral("user"));
            QVERIFY(messages.next());
            QCOMPARE(messages.value(0).toString(), QStringLiteral("assistant"));
            // Ended, or cut off by the answer length or a full context (the tiny model's 256 tokens).
            QVERIFY2(QStringList({ QStringLiteral("complete"), QStringLiteral("length_limit"), QStringLiteral("context_full") })
                         .contains(messages.value(2).toString()),
                     qPrintable(messages.value(2).toString()));
            // What streamed to stdout is what the store kept.
            QCOMPARE(messages.value(1).toString().trimmed(), answer);
            db.close();
        }
        QSqlDatabase::removeDatabase(QStringLiteral("e2e"));
    }
};

QTEST_GUILESS_MAIN(TestAppEndToEnd)
#include "tst_app_end_to_end.moc"
