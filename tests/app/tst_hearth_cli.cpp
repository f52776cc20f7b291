// SPDX-License-Identifier: MIT
// The hearth executable as users and the package check run it.

#include "app_settings.h"
#include "app_test_support.h"

#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>

namespace {

#ifdef Q_OS_WIN
#define HEARTH_EXE_SUFFIX ".exe"
#else
#define HEARTH_EXE_SUFFIX ""
#endif

struct Run
{
    int exitCode = -1;
    QProcess::ExitStatus status = QProcess::CrashExit;
    QString out;
    QString err;
};

Run runHearth(const QStringList& arguments, int timeoutMs = 120000)
{
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    // Messages are checked in English.
    env.insert(QStringLiteral("LC_ALL"), QStringLiteral("C.UTF-8"));
    env.remove(QStringLiteral("LANGUAGE"));
    process.setProcessEnvironment(env);
    process.start(QStringLiteral(HEARTH_BIN_DIR "/hearth" HEARTH_EXE_SUFFIX), arguments);
    Run run;
    if (!process.waitForFinished(timeoutMs)) {
        process.kill();
        process.waitForFinished();
        run.err = QStringLiteral("timed out");
        return run;
    }
    run.exitCode = process.exitCode();
    run.status = process.exitStatus();
    run.out = QString::fromUtf8(process.readAllStandardOutput());
    run.err = QString::fromUtf8(process.readAllStandardError());
    return run;
}

} // namespace

class TestHearthCli : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(QFileInfo::exists(QStringLiteral(HEARTH_BIN_DIR "/hearth" HEARTH_EXE_SUFFIX)),
            "build the hearth target first");
    }

    void version()
    {
        const Run run = runHearth({ QStringLiteral("--version") });
        QCOMPARE(run.status, QProcess::NormalExit);
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.out.startsWith(QStringLiteral("Hearth ")), qPrintable(run.out));
        QVERIFY(run.out.contains(QStringLiteral("CUDA module: ")));
        QVERIFY(run.out.contains(QStringLiteral("Highlighting: ")));
        QVERIFY(run.out.contains(QStringLiteral("CPU kernels: ")));
    }

    void help()
    {
        const Run run = runHearth({ QStringLiteral("--help") });
        QCOMPARE(run.exitCode, 0);
        QVERIFY(run.out.contains(QStringLiteral("--model")));
        QVERIFY(run.out.contains(QStringLiteral("--data-dir")));
        QVERIFY(run.out.contains(QStringLiteral("--self-test")));
    }

    void badArgumentsExitWithOne()
    {
        const Run run = runHearth({ QStringLiteral("--no-such-option") });
        QCOMPARE(run.status, QProcess::NormalExit);
        QCOMPARE(run.exitCode, 1);
        QVERIFY(!run.err.isEmpty());
    }

    void selfTestWithMissingModel()
    {
        const Run run = runHearth({ QStringLiteral("--self-test"), QStringLiteral("--model"),
            QStringLiteral("/nonexistent/model.gguf") });
        QCOMPARE(run.status, QProcess::NormalExit);
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains(QStringLiteral("does not exist")), qPrintable(run.err));
    }

    void selfTestWithCorruptModel_data()
    {
        QTest::addColumn<QByteArray>("content");
        QTest::newRow("empty") << QByteArray();
        QTest::newRow("text") << QByteArray("this is not a model\n");
        QTest::newRow("truncated gguf header") << QByteArray("GGUF\x03\x00\x00\x00\xff\xff", 10);
        QTest::newRow("huge counts") << QByteArray(
            "GGUF\x03\x00\x00\x00\xff\xff\xff\xff\xff\xff\xff\x7f\xff\xff\xff\xff\xff\xff\xff\x7f", 24);
    }

    void selfTestWithCorruptModel()
    {
        QFETCH(QByteArray, content);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("bad.gguf"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(content);
        file.close();

        const Run run = runHearth({ QStringLiteral("--self-test"), QStringLiteral("--model"), path });
        QCOMPARE(run.status, QProcess::NormalExit); // a clear message, never a crash
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains(QStringLiteral("Self-test failed")), qPrintable(run.err));
    }

    void serveWithABrokenModelExitsWithOne()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("bad.gguf"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("not a model");
        file.close();
        const Run run = runHearth({ QStringLiteral("--serve"), QStringLiteral("--port"), QStringLiteral("0"), QStringLiteral("--model"), path,
            QStringLiteral("--data-dir"), dir.path() });
        QCOMPARE(run.status, QProcess::NormalExit);
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains(QStringLiteral("bad.gguf")), qPrintable(run.err));
    }

    void serveOnATakenPortExitsWithOne()
    {
        QTcpServer taken;
        QVERIFY(taken.listen(QHostAddress::LocalHost, 0));
        QTemporaryDir dir;
        const Run run = runHearth({ QStringLiteral("--serve"), QStringLiteral("--port"), QString::number(taken.serverPort()),
            QStringLiteral("--data-dir"), dir.path() });
        QCOMPARE(run.status, QProcess::NormalExit);
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains(QString::number(taken.serverPort())), qPrintable(run.err));
    }

    void serveUsesWhatTheWindowRemembers()
    {
        // The context chosen in Chat Settings and guessing ahead, remembered for the file in the
        // data folder's settings, hold for the served model too.
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString model = hearth::test::makeTinyModel(dir.path(), QStringLiteral("tiny"), { QStringLiteral("--seed"), QStringLiteral("3") });
        if (model.isEmpty())
            QSKIP("hearth-synth is not built");
        {
            hearth::app::AppSettings settings(dir.filePath(QStringLiteral("settings.ini")));
            settings.setContextLength(model, 128);
            settings.setSpeculation(model, QStringLiteral("lookup"));
        }
        QProcess process;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("LC_ALL"), QStringLiteral("C.UTF-8"));
        env.remove(QStringLiteral("LANGUAGE"));
        process.setProcessEnvironment(env);
        QString output;
        connect(&process, &QProcess::readyReadStandardOutput, this,
                [&] { output += QString::fromUtf8(process.readAllStandardOutput()); });
        process.start(QStringLiteral(HEARTH_BIN_DIR "/hearth" HEARTH_EXE_SUFFIX),
                      { QStringLiteral("--serve"), QStringLiteral("--port"), QStringLiteral("0"), QStringLiteral("--model"), model,
                        QStringLiteral("--data-dir"), dir.path() });
        QTRY_VERIFY2_WITH_TIMEOUT(output.contains(QStringLiteral("Serving")), qPrintable(output), 60000);
        QVERIFY2(output.contains(QStringLiteral("context of 128 tokens")), qPrintable(output));
        QVERIFY2(output.contains(QStringLiteral("Guessing ahead from the conversation's own text")), qPrintable(output));
        process.terminate();
        QVERIFY(process.waitForFinished(30000));
        QCOMPARE(process.exitCode(), 0);
    }

    void selfTestAnswers()
    {
        const QString synth = QStringLiteral(HEARTH_BIN_DIR "/hearth-synth" HEARTH_EXE_SUFFIX);
        if (!QFileInfo::exists(synth))
            QSKIP("hearth-synth is not built");
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString model = dir.filePath(QStringLiteral("tiny.gguf"));
        QProcess process;
        process.setProcessChannelMode(QProcess::MergedChannels);
        process.start(synth,
            { QStringLiteral("--shape"), QStringLiteral("tiny"), QStringLiteral("--type"),
                QStringLiteral("q8_0"), QStringLiteral("-o"), model });
        QVERIFY(process.waitForFinished(120000));
        QVERIFY2(process.exitCode() == 0, process.readAll().constData());

        const Run run = runHearth({ QStringLiteral("--self-test"), QStringLiteral("--model"), model });
        QCOMPARE(run.status, QProcess::NormalExit);
        QVERIFY2(run.exitCode == 0, qPrintable(run.out + run.err));
        QVERIFY(run.out.contains(QStringLiteral("Self-test passed")));
        QVERIFY(run.out.contains(QStringLiteral("tokens/s")));
    }
};

QTEST_GUILESS_MAIN(TestHearthCli)
#include "tst_hearth_cli.moc"
