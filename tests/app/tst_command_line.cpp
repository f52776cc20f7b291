// SPDX-License-Identifier: MIT
#include "command_line.h"

#include <QTest>

using hearth::app::CommandLineOptions;
using hearth::app::parseCommandLine;

class TestCommandLine : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void noArgumentsOpensTheWindow()
    {
        const CommandLineOptions options = parseCommandLine({ QStringLiteral("hearth") });
        QCOMPARE(options.action, CommandLineOptions::Action::RunGui);
        QVERIFY(options.modelPath.isEmpty());
        QVERIFY(options.dataDir.isEmpty());
    }

    void modelAndDataDir()
    {
        const CommandLineOptions options
            = parseCommandLine({ QStringLiteral("hearth"), QStringLiteral("--model"),
                QStringLiteral("/m/a.gguf"), QStringLiteral("--data-dir"), QStringLiteral("/tmp/d") });
        QCOMPARE(options.action, CommandLineOptions::Action::RunGui);
        QCOMPARE(options.modelPath, QStringLiteral("/m/a.gguf"));
        QCOMPARE(options.dataDir, QStringLiteral("/tmp/d"));
    }

    void actions_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<CommandLineOptions::Action>("action");
        QTest::newRow("help") << QStringList { QStringLiteral("--help") }
                              << CommandLineOptions::Action::ShowHelp;
        QTest::newRow("version") << QStringList { QStringLiteral("--version") }
                                 << CommandLineOptions::Action::ShowVersion;
        QTest::newRow("-v") << QStringList { QStringLiteral("-v") }
                            << CommandLineOptions::Action::ShowVersion;
        QTest::newRow("self-test") << QStringList { QStringLiteral("--self-test"), QStringLiteral("-m"),
            QStringLiteral("x.gguf") }
                                   << CommandLineOptions::Action::SelfTest;
        // A self-test without a model cannot do anything useful: an error, not a silent pass.
        QTest::newRow("self-test without model")
            << QStringList { QStringLiteral("--self-test") } << CommandLineOptions::Action::Error;
        QTest::newRow("unknown option")
            << QStringList { QStringLiteral("--frobnicate") } << CommandLineOptions::Action::Error;
        QTest::newRow("missing value")
            << QStringList { QStringLiteral("--model") } << CommandLineOptions::Action::Error;
        QTest::newRow("stray argument")
            << QStringList { QStringLiteral("stray") } << CommandLineOptions::Action::Error;
        QTest::newRow("serve") << QStringList { QStringLiteral("--serve") } << CommandLineOptions::Action::Serve;
        QTest::newRow("serve on a bad port")
            << QStringList { QStringLiteral("--serve"), QStringLiteral("--port"), QStringLiteral("http") } << CommandLineOptions::Action::Error;
        QTest::newRow("serve on a port too high")
            << QStringList { QStringLiteral("--serve"), QStringLiteral("--port"), QStringLiteral("70000") } << CommandLineOptions::Action::Error;
        QTest::newRow("serve with no queue")
            << QStringList { QStringLiteral("--serve"), QStringLiteral("--max-queue"), QStringLiteral("0") } << CommandLineOptions::Action::Error;
    }

    void serveOptions()
    {
        CommandLineOptions options = parseCommandLine({ QStringLiteral("hearth"), QStringLiteral("--serve") });
        // Safe by default: this computer only, no key unless one is given.
        QCOMPARE(options.host, QStringLiteral("127.0.0.1"));
        QCOMPARE(options.port, 8080);
        QCOMPARE(options.maxQueue, 8);
        options = parseCommandLine({ QStringLiteral("hearth"), QStringLiteral("--serve"), QStringLiteral("--model"), QStringLiteral("m.gguf"),
            QStringLiteral("--host"), QStringLiteral("0.0.0.0"), QStringLiteral("--port"), QStringLiteral("9000"),
            QStringLiteral("--api-key"), QStringLiteral("k"), QStringLiteral("--max-queue"), QStringLiteral("3") });
        QCOMPARE(options.action, CommandLineOptions::Action::Serve);
        QCOMPARE(options.modelPath, QStringLiteral("m.gguf"));
        QCOMPARE(options.host, QStringLiteral("0.0.0.0"));
        QCOMPARE(options.port, 9000);
        QCOMPARE(options.apiKey, QStringLiteral("k"));
        QCOMPARE(options.maxQueue, 3);
        // A key kept out of the process list.
        qputenv("HEARTH_API_KEY", "from-the-environment");
        QCOMPARE(parseCommandLine({ QStringLiteral("hearth"), QStringLiteral("--serve") }).apiKey, QStringLiteral("from-the-environment"));
        qunsetenv("HEARTH_API_KEY");
    }

    void actions()
    {
        QFETCH(QStringList, arguments);
        QFETCH(CommandLineOptions::Action, action);
        arguments.prepend(QStringLiteral("hearth"));
        const CommandLineOptions options = parseCommandLine(arguments);
        QCOMPARE(options.action, action);
        if (action == CommandLineOptions::Action::Error)
            QVERIFY(!options.errorText.isEmpty());
        QVERIFY(options.helpText.contains(QStringLiteral("--self-test")));
    }
};

QTEST_GUILESS_MAIN(TestCommandLine)
#include "tst_command_line.moc"
