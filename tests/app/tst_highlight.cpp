// SPDX-License-Identifier: MIT
// Code highlighting back ends: kate-syntax-highlighter out of process, plain, and KF6 in process
// where it is compiled in.
#include "codehighlighter.h"
#include "katecodehighlighter.h"
#include "plaincodehighlighter.h"
#include "syntaxnames.h"

#include <QElapsedTimer>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using hearth::CodeHighlighter;
using hearth::KateCodeHighlighter;
using hearth::PlainCodeHighlighter;

namespace {

const QString pythonCode = QStringLiteral("def greet(name):\n    # say hello\n    return \"Hello, \" + name * 2\n");
const QString cppCode = QStringLiteral("#include <vector>\nint main() {\n    std::vector<int> v{1, 2};\n    return v.size() > 1 ? 0 : 1; // done\n}");

// Waits for the answer to @p id and returns it; a null string on timeout.
QString waitFor(CodeHighlighter& highlighter, CodeHighlighter::RequestId id, int timeoutMs = 20000)
{
    QString result;
    bool done = false;
    const auto connection = QObject::connect(&highlighter, &CodeHighlighter::highlighted, &highlighter,
                                             [&](CodeHighlighter::RequestId answered, const QString& html) {
                                                 if (answered == id) {
                                                     result = html;
                                                     done = true;
                                                 }
                                             });
    (void)QTest::qWaitFor([&] { return done; }, timeoutMs);
    QObject::disconnect(connection);
    return result;
}

QString writeScript(const QTemporaryDir& dir, const QString& name, const QByteArray& body)
{
    const QString path = dir.filePath(name);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return {};
    file.write("#!/bin/sh\n" + body);
    file.close();
    file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    return path;
}

} // namespace

class TestHighlight : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void syntaxNames_data();
    void syntaxNames();
    void plainBackend();
    void answersAreAsynchronous();
    void toolHighlightsPython();
    void toolHighlightsCpp();
    void darkDiffersFromLight();
    void cacheHitStartsNoProcess();
    void unknownLanguageIsPlain();
    void escapesHtml();
    void timeoutKillsAndAnswersPlain();
    void listTimeoutMeansPlain();
    void missingToolIsPlain();
    void failingToolIsPlain();
    void atMostTwoProcesses();
    void cancelledRequestIsNotAnswered();
    void factory();
    void measureRequestTime();

private:
    [[nodiscard]] static bool toolAvailable() { return !KateCodeHighlighter::findProgram().isEmpty(); }
};

#define REQUIRE_TOOL()                                                                                   \
    if (!toolAvailable())                                                                                \
        QSKIP("kate-syntax-highlighter is not installed (Debian: libkf5syntaxhighlighting-tools)");

void TestHighlight::syntaxNames_data()
{
    QTest::addColumn<QString>("language");
    QTest::addColumn<QString>("expected");
    QTest::newRow("py") << QStringLiteral("py") << QStringLiteral("Python");
    QTest::newRow("python") << QStringLiteral("python") << QStringLiteral("Python");
    QTest::newRow("js") << QStringLiteral("js") << QStringLiteral("JavaScript");
    QTest::newRow("ts") << QStringLiteral("ts") << QStringLiteral("TypeScript");
    QTest::newRow("sh") << QStringLiteral("sh") << QStringLiteral("Bash");
    QTest::newRow("bash") << QStringLiteral("Bash") << QStringLiteral("Bash");
    QTest::newRow("c++") << QStringLiteral("c++") << QStringLiteral("C++");
    QTest::newRow("cpp") << QStringLiteral("cpp") << QStringLiteral("C++");
    QTest::newRow("rs") << QStringLiteral("rs") << QStringLiteral("Rust");
    QTest::newRow("go") << QStringLiteral("go") << QStringLiteral("Go");
    QTest::newRow("json") << QStringLiteral("json") << QStringLiteral("JSON");
    QTest::newRow("yml") << QStringLiteral("yml") << QStringLiteral("YAML");
    QTest::newRow("SQL") << QStringLiteral("sql") << QStringLiteral("SQL");
    QTest::newRow("kotlin") << QStringLiteral("kotlin") << QStringLiteral("Kotlin");
    QTest::newRow("md") << QStringLiteral("md") << QStringLiteral("Markdown");
    QTest::newRow("unknown") << QStringLiteral("klingon") << QString();
    QTest::newRow("empty") << QString() << QString();
}

void TestHighlight::syntaxNames()
{
    QFETCH(QString, language);
    QFETCH(QString, expected);
    const QStringList available = {QStringLiteral("Python"), QStringLiteral("JavaScript"), QStringLiteral("TypeScript"),
                                   QStringLiteral("Bash"), QStringLiteral("C++"), QStringLiteral("Rust"),
                                   QStringLiteral("Go"), QStringLiteral("JSON"), QStringLiteral("YAML"),
                                   QStringLiteral("SQL"), QStringLiteral("Kotlin"), QStringLiteral("Markdown")};
    QCOMPARE(hearth::resolveSyntaxName(language, available), expected);
}

void TestHighlight::plainBackend()
{
    PlainCodeHighlighter plain;
    QCOMPARE(plain.backend(), CodeHighlighter::Backend::Plain);
    const auto id = plain.request(QStringLiteral("a < b && c > d"), QStringLiteral("cpp"), false);
    QCOMPARE(waitFor(plain, id), QStringLiteral("<pre>a &lt; b &amp;&amp; c &gt; d</pre>"));

    const auto cancelled = plain.request(QStringLiteral("x"), QString(), false);
    plain.cancel(cancelled);
    QSignalSpy spy(&plain, &CodeHighlighter::highlighted);
    QTest::qWait(20);
    QCOMPARE(spy.count(), 0);
}

void TestHighlight::answersAreAsynchronous()
{
    PlainCodeHighlighter plain;
    QSignalSpy spy(&plain, &CodeHighlighter::highlighted);
    const auto id = plain.request(QStringLiteral("x"), QString(), false);
    QCOMPARE(spy.count(), 0); // never from inside request()
    QVERIFY(spy.wait(1000));
    QCOMPARE(spy.at(0).at(0).value<CodeHighlighter::RequestId>(), id);
}

void TestHighlight::toolHighlightsPython()
{
    REQUIRE_TOOL();
    KateCodeHighlighter highlighter;
    const QString html = waitFor(highlighter, highlighter.request(pythonCode, QStringLiteral("py"), false));
    QVERIFY2(html.startsWith(QLatin1String("<pre style=\"")), qPrintable(html));
    QVERIFY(html.endsWith(QLatin1String("</pre>")));
    QVERIFY2(html.contains(QLatin1String("<span style=\"color:#")), qPrintable(html));
    QVERIFY(html.contains(QLatin1String("greet")));
    QVERIFY(!html.contains(QLatin1String("<body")));
    QVERIFY(!html.contains(QLatin1String("<html")));
    QVERIFY(highlighter.syntaxNames().contains(QStringLiteral("Python")));
}

void TestHighlight::toolHighlightsCpp()
{
    REQUIRE_TOOL();
    KateCodeHighlighter highlighter;
    const QString html = waitFor(highlighter, highlighter.request(cppCode, QStringLiteral("c++"), false));
    QVERIFY2(html.contains(QLatin1String("<span style=\"color:#")), qPrintable(html));
    QVERIFY(html.contains(QLatin1String("&lt;vector&gt;")));
    QVERIFY(!html.contains(QLatin1String("<vector>")));
    // The code's line breaks survive, without an extra one at either end.
    QVERIFY(!html.contains(QLatin1String(">\n#")) || html.count(u'\n') == cppCode.count(u'\n'));
    QCOMPARE(html.count(u'\n'), cppCode.count(u'\n'));
}

void TestHighlight::darkDiffersFromLight()
{
    REQUIRE_TOOL();
    KateCodeHighlighter highlighter;
    const QString light = waitFor(highlighter, highlighter.request(pythonCode, QStringLiteral("python"), false));
    const QString dark = waitFor(highlighter, highlighter.request(pythonCode, QStringLiteral("python"), true));
    QVERIFY(!light.isEmpty() && !dark.isEmpty());
    QVERIFY(light != dark);
    QVERIFY2(dark.contains(QLatin1String("background-color:#232629")), qPrintable(dark.left(80))); // Breeze Dark
    QVERIFY2(light.contains(QLatin1String("background-color:#ffffff")), qPrintable(light.left(80)));
}

void TestHighlight::cacheHitStartsNoProcess()
{
    REQUIRE_TOOL();
    KateCodeHighlighter highlighter;
    const QString first = waitFor(highlighter, highlighter.request(pythonCode, QStringLiteral("py"), false));
    const int started = highlighter.processesStarted();
    QCOMPARE(started, 2); // the definition list, then the highlighter
    const QString second = waitFor(highlighter, highlighter.request(pythonCode, QStringLiteral("python"), false));
    QCOMPARE(second, first);
    QCOMPARE(highlighter.processesStarted(), started);
    QCOMPARE(highlighter.cacheHits(), 1);

    // Another theme or other code is another entry.
    (void)waitFor(highlighter, highlighter.request(pythonCode, QStringLiteral("py"), true));
    QCOMPARE(highlighter.processesStarted(), started + 1);

    // A cache too small to hold an answer keeps nothing.
    highlighter.setCacheLimit(1);
    (void)waitFor(highlighter, highlighter.request(cppCode, QStringLiteral("cpp"), false));
    (void)waitFor(highlighter, highlighter.request(cppCode, QStringLiteral("cpp"), false));
    QCOMPARE(highlighter.processesStarted(), started + 3);
}

void TestHighlight::unknownLanguageIsPlain()
{
    REQUIRE_TOOL();
    KateCodeHighlighter highlighter;
    const QString code = QStringLiteral("qapla' <b>");
    QCOMPARE(waitFor(highlighter, highlighter.request(code, QStringLiteral("klingon"), false)),
             CodeHighlighter::plainHtml(code));
    QCOMPARE(waitFor(highlighter, highlighter.request(code, QString(), false)), CodeHighlighter::plainHtml(code));
    QCOMPARE(highlighter.processesStarted(), 1); // only the definition list
}

void TestHighlight::escapesHtml()
{
    const QString code = QStringLiteral("<script>alert(\"x\")</script> & more");
    const QString plain = CodeHighlighter::plainHtml(code);
    QVERIFY(!plain.contains(QLatin1String("<script>")));
    QVERIFY(plain.contains(QLatin1String("&lt;script&gt;")));
    QVERIFY(plain.contains(QLatin1String("&amp;")));

    REQUIRE_TOOL();
    KateCodeHighlighter highlighter;
    for (const QString& language : {QStringLiteral("html"), QStringLiteral("js"), QStringLiteral("cpp")}) {
        const QString html = waitFor(highlighter, highlighter.request(code, language, false));
        QVERIFY2(!html.contains(QLatin1String("<script")), qPrintable(html));
        QVERIFY2(html.contains(QLatin1String("script")), qPrintable(html));
    }
}

void TestHighlight::timeoutKillsAndAnswersPlain()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    // Lists a definition quickly, then never finishes highlighting.
    const QString slow = writeScript(dir, QStringLiteral("slow-highlighter"),
                                     "if [ \"$1\" = \"-l\" ]; then echo Python; exit 0; fi\nexec sleep 30\n");
    KateCodeHighlighter highlighter;
    highlighter.setProgram(slow);
    highlighter.setTimeout(300);
    QElapsedTimer timer;
    timer.start();
    const QString html = waitFor(highlighter, highlighter.request(QStringLiteral("x = 1"), QStringLiteral("py"), false), 10000);
    QCOMPARE(html, CodeHighlighter::plainHtml(QStringLiteral("x = 1")));
    QVERIFY(timer.elapsed() < 10000);
    QCOMPARE(highlighter.runningProcesses(), 0);
}

void TestHighlight::listTimeoutMeansPlain()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString hung = writeScript(dir, QStringLiteral("hung"), "exec sleep 30\n");
    KateCodeHighlighter highlighter;
    highlighter.setProgram(hung);
    highlighter.setTimeout(200);
    const auto first = highlighter.request(QStringLiteral("a"), QStringLiteral("py"), false);
    const auto second = highlighter.request(QStringLiteral("b"), QStringLiteral("py"), false);
    QCOMPARE(waitFor(highlighter, second, 10000), CodeHighlighter::plainHtml(QStringLiteral("b")));
    Q_UNUSED(first)
    // Later requests answer plain at once, without trying again.
    const int started = highlighter.processesStarted();
    QCOMPARE(waitFor(highlighter, highlighter.request(QStringLiteral("c"), QStringLiteral("py"), false)),
             CodeHighlighter::plainHtml(QStringLiteral("c")));
    QCOMPARE(highlighter.processesStarted(), started);
}

void TestHighlight::missingToolIsPlain()
{
    KateCodeHighlighter highlighter;
    highlighter.setProgram(QStringLiteral("/nonexistent/kate-syntax-highlighter"));
    QCOMPARE(waitFor(highlighter, highlighter.request(QStringLiteral("<x>"), QStringLiteral("py"), false)),
             CodeHighlighter::plainHtml(QStringLiteral("<x>")));

    KateCodeHighlighter unset;
    unset.setProgram(QString());
    QCOMPARE(waitFor(unset, unset.request(QStringLiteral("y"), QStringLiteral("py"), false)),
             CodeHighlighter::plainHtml(QStringLiteral("y")));
}

void TestHighlight::failingToolIsPlain()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString broken = writeScript(dir, QStringLiteral("broken"),
                                       "if [ \"$1\" = \"-l\" ]; then echo Python; exit 0; fi\n"
                                       "echo 'no html here'; exit 0\n");
    KateCodeHighlighter highlighter;
    highlighter.setProgram(broken);
    QCOMPARE(waitFor(highlighter, highlighter.request(QStringLiteral("z"), QStringLiteral("python"), false)),
             CodeHighlighter::plainHtml(QStringLiteral("z")));

    const QString crashing = writeScript(dir, QStringLiteral("crashing"),
                                         "if [ \"$1\" = \"-l\" ]; then echo Python; exit 0; fi\nkill -9 $$\n");
    KateCodeHighlighter other;
    other.setProgram(crashing);
    QCOMPARE(waitFor(other, other.request(QStringLiteral("w"), QStringLiteral("python"), false)),
             CodeHighlighter::plainHtml(QStringLiteral("w")));
}

void TestHighlight::atMostTwoProcesses()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString slowish = writeScript(dir, QStringLiteral("slowish"),
                                        "if [ \"$1\" = \"-l\" ]; then echo Python; exit 0; fi\n"
                                        "cat >/dev/null; sleep 0.2; echo '<html><body style=\"color:#000\"><pre>\nok\n</pre></body></html>'\n");
    KateCodeHighlighter highlighter;
    highlighter.setProgram(slowish);
    int maxRunning = 0;
    QList<CodeHighlighter::RequestId> answered;
    connect(&highlighter, &CodeHighlighter::highlighted, this, [&](CodeHighlighter::RequestId id, const QString& html) {
        answered << id;
        QCOMPARE(html, QStringLiteral("<pre style=\"color:#000\">ok</pre>"));
    });
    for (int i = 0; i < 5; ++i)
        (void)highlighter.request(QStringLiteral("code %1").arg(i), QStringLiteral("py"), false);
    QTRY_VERIFY_WITH_TIMEOUT((maxRunning = std::max(maxRunning, highlighter.runningProcesses()), answered.size() == 5), 15000);
    QVERIFY(maxRunning <= 2);
    QCOMPARE(highlighter.processesStarted(), 6);
}

void TestHighlight::cancelledRequestIsNotAnswered()
{
    REQUIRE_TOOL();
    KateCodeHighlighter highlighter;
    QSignalSpy spy(&highlighter, &CodeHighlighter::highlighted);
    const auto dropped = highlighter.request(pythonCode, QStringLiteral("py"), false);
    const auto kept = highlighter.request(cppCode, QStringLiteral("cpp"), false);
    highlighter.cancel(dropped);
    QVERIFY(!waitFor(highlighter, kept).isEmpty());
    QTest::qWait(50);
    for (const auto& args : spy)
        QVERIFY(args.at(0).value<CodeHighlighter::RequestId>() != dropped);
}

void TestHighlight::factory()
{
    const auto highlighter = CodeHighlighter::create();
    QVERIFY(highlighter);
    const QString configured = CodeHighlighter::configuredBackend();
    if (configured == QLatin1String("kate-syntax-highlighter") && toolAvailable())
        QCOMPARE(highlighter->backend(), CodeHighlighter::Backend::OutOfProcess);
    else if (configured == QLatin1String("ksyntaxhighlighting"))
        QCOMPARE(highlighter->backend(), CodeHighlighter::Backend::InProcess);
    else
        QCOMPARE(highlighter->backend(), CodeHighlighter::Backend::Plain);

    if (highlighter->backend() == CodeHighlighter::Backend::InProcess) {
        // The in-process back end, only where KF6 SyntaxHighlighting was found at configure time.
        const QString html = waitFor(*highlighter, highlighter->request(pythonCode, QStringLiteral("py"), false));
        QVERIFY2(html.contains(QLatin1String("<span style=\"color:#")), qPrintable(html));
        const QString dark = waitFor(*highlighter, highlighter->request(pythonCode, QStringLiteral("py"), true));
        QVERIFY(html != dark);
        QCOMPARE(waitFor(*highlighter, highlighter->request(QStringLiteral("<script>"), QStringLiteral("klingon"), false)),
                 CodeHighlighter::plainHtml(QStringLiteral("<script>")));
    }
}

// Not an assertion: prints what one highlight costs when a process is spawned for it.
void TestHighlight::measureRequestTime()
{
    REQUIRE_TOOL();
    KateCodeHighlighter highlighter;
    (void)waitFor(highlighter, highlighter.request(QStringLiteral("x = 0"), QStringLiteral("py"), false));
    QString big;
    for (int i = 0; i < 2000; ++i)
        big += QStringLiteral("    value_%1 = compute(%1, \"text\")  # comment %1\n").arg(i);
    const int rounds = 10;
    QElapsedTimer timer;
    timer.start();
    for (int i = 0; i < rounds; ++i)
        (void)waitFor(highlighter, highlighter.request(QStringLiteral("x = %1").arg(i), QStringLiteral("py"), i % 2));
    const double small = double(timer.elapsed()) / rounds;
    timer.restart();
    for (int i = 0; i < 3; ++i)
        (void)waitFor(highlighter, highlighter.request(big + QString::number(i), QStringLiteral("py"), false));
    const double large = double(timer.elapsed()) / 3;
    qInfo("kate-syntax-highlighter: %.1f ms per request (one line), %.1f ms per request (2,000 lines)", small, large);
}

QTEST_GUILESS_MAIN(TestHighlight)
#include "tst_highlight.moc"
