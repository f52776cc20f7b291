// SPDX-License-Identifier: MIT
// The command-line tools, run as a user runs them: hearth-synth makes a tiny model, hearth-cli
// and hearth-bench run on it; exit codes, messages and the JSON report are checked.

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

namespace {

struct ProcessResult {
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

QString toolPath(const QString& name)
{
    return QDir(QStringLiteral(HEARTH_BIN_DIR)).filePath(name);
}

ProcessResult runTool(const QString& name, const QStringList& arguments, const QByteArray& input = {})
{
    QProcess process;
    process.start(toolPath(name), arguments);
    ProcessResult result;
    if (!process.waitForStarted(10000))
        return result;
    if (!input.isEmpty())
        process.write(input);
    process.closeWriteChannel();
    if (!process.waitForFinished(60000)) {
        process.kill();
        process.waitForFinished();
        return result;
    }
    result.out = process.readAllStandardOutput();
    result.err = process.readAllStandardError();
    result.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    return result;
}

} // namespace

class TestTools : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void synthRejectsBadArguments();
    void synthWritesEveryFamily_data();
    void synthWritesEveryFamily();
    void cliOneShotStreamsText();
    void cliChatsOverStdin();
    void cliMissingModelIsAClearError();
    void cliRejectsUnknownFlags();
    void cliTakesAReasoningLevel();
    void cliPrintsVersion();
    void benchWritesJson();
    void speculativeDecodingInTheTools();
    void benchMissingModelIsAClearError();

private:
    QTemporaryDir m_dir;
    QString m_model;
};

void TestTools::initTestCase()
{
    QVERIFY(m_dir.isValid());
    for (const char* tool : {"hearth-synth", "hearth-cli", "hearth-bench"})
        QVERIFY2(QFileInfo(toolPath(QLatin1String(tool))).isExecutable(), tool);
    m_model = m_dir.filePath(QStringLiteral("tiny.gguf"));
    const auto r = runTool(QStringLiteral("hearth-synth"),
                           {"--shape", "tiny", "--type", "q8_0", "--seed", "7", "-q", "-o", m_model});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY(QFileInfo::exists(m_model));
}

void TestTools::synthRejectsBadArguments()
{
    auto r = runTool(QStringLiteral("hearth-synth"), {"--shape", "huge", "-o", m_dir.filePath("x.gguf")});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("unknown shape"), r.err.constData());
    r = runTool(QStringLiteral("hearth-synth"), {"--shape", "tiny"});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("-o"), r.err.constData());
    QVERIFY(!QFileInfo::exists(m_dir.filePath("x.gguf")));
}

void TestTools::synthWritesEveryFamily_data()
{
    QTest::addColumn<QStringList>("arguments");
    const auto row = [](const char* name, QStringList arguments) { QTest::newRow(name) << arguments; };
    for (const char* arch : {"qwen2", "qwen3", "gemma2", "gemma3", "phi3", "qwen3moe", "qwen2moe", "smallthinker"})
        row(arch, {"--arch", arch, "--shape", QStringLiteral("%1-tiny").arg(QLatin1String(arch))});
    row("llama3", {"--shape", "llama3-tiny"});
    row("mistral", {"--shape", "mistral-tiny"});
    row("mixtral", {"--shape", "mixtral-tiny"});
    row("falcon", {"--arch", "falcon"});
    row("opt", {"--arch", "opt"});
    // A real shape: one of Qwen3-8B's 36 layers, with a small vocabulary to keep the file small.
    row("qwen3-8b", {"--arch", "qwen3", "--shape", "qwen3-8b", "--layers", "1", "--vocab", "512", "--type", "q4_0"});
}

void TestTools::synthWritesEveryFamily()
{
    // hearth-synth writes each family's model as a user asks for it, and hearth-cli runs it.
    QFETCH(QStringList, arguments);
    const QString path = m_dir.filePath(QStringLiteral("%1.gguf").arg(QString::fromLatin1(QTest::currentDataTag())));
    const auto written = runTool(QStringLiteral("hearth-synth"), arguments + QStringList{"-q", "-o", path});
    QVERIFY2(written.exitCode == 0, written.err.constData());
    const auto ran = runTool(QStringLiteral("hearth-cli"), {"-m", path, "-p", "Once upon a time", "-n", "4", "--raw", "-t", "2"});
    QVERIFY2(ran.exitCode == 0, ran.err.constData());
    QVERIFY2(ran.err.contains("tok/s"), ran.err.constData());
    QFile::remove(path);
}

void TestTools::cliOneShotStreamsText()
{
    const auto r = runTool(QStringLiteral("hearth-cli"),
                           {"-m", m_model, "-p", "Tell me a story", "-n", "12", "-t", "1", "--temp", "0", "--seed", "3"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY2(!r.out.isEmpty(), r.err.constData());
    // Speeds and time to first token go to stderr, keeping stdout the model's text.
    QVERIFY2(r.err.contains("tok/s"), r.err.constData());
    QVERIFY2(r.err.contains("time to first token"), r.err.constData());
    QVERIFY(!r.out.contains("tok/s"));

    // Same seed, same settings: same text. --raw skips the template and still works.
    const auto again = runTool(QStringLiteral("hearth-cli"),
                               {"-m", m_model, "-p", "Tell me a story", "-n", "12", "-t", "1", "--temp", "0", "--seed", "3"});
    QCOMPARE(again.out, r.out);
    const auto raw = runTool(QStringLiteral("hearth-cli"), {"-m", m_model, "-p", "once", "-n", "4", "--raw", "-t", "1"});
    QVERIFY2(raw.exitCode == 0, raw.err.constData());
}

void TestTools::cliChatsOverStdin()
{
    const auto r = runTool(QStringLiteral("hearth-cli"), {"-m", m_model, "-n", "6", "-t", "1", "--temp", "0"},
                           QByteArrayLiteral("hello there\nand again\n/reset\nhi\n/exit\nnever read\n"));
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QCOMPARE(static_cast<int>(r.err.count("time to first token")), 3);
    QVERIFY2(r.err.contains("conversation cleared"), r.err.constData());
}

void TestTools::cliMissingModelIsAClearError()
{
    const QString missing = m_dir.filePath(QStringLiteral("does-not-exist.gguf"));
    const auto r = runTool(QStringLiteral("hearth-cli"), {"-m", missing, "-p", "hi"});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains(missing.toUtf8()), r.err.constData());
    QVERIFY(r.out.isEmpty());
    const auto none = runTool(QStringLiteral("hearth-cli"), {"-p", "hi"});
    QCOMPARE(none.exitCode, 1);
    QVERIFY2(none.err.contains("-m"), none.err.constData());
}

void TestTools::cliRejectsUnknownFlags()
{
    auto r = runTool(QStringLiteral("hearth-cli"), {"-m", m_model, "--bogus"});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("--bogus"), r.err.constData());
    r = runTool(QStringLiteral("hearth-cli"), {"-m", m_model, "-n", "many"});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("-n"), r.err.constData());
    r = runTool(QStringLiteral("hearth-cli"), {"-m", m_model, "--temp"});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("needs a value"), r.err.constData());
    r = runTool(QStringLiteral("hearth-cli"), {"--help"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains("--repeat-penalty"));
}

// --reasoning reaches a template that reads it (here enable_thinking, as Qwen 3's does: off
// writes an empty thinking block, so the prompt grows); an unknown level is refused.
void TestTools::cliTakesAReasoningLevel()
{
    QFile jinja(m_dir.filePath(QStringLiteral("thinking.jinja")));
    QVERIFY(jinja.open(QIODevice::WriteOnly));
    jinja.write("{% for m in messages %}<|{{ m.role }}|>{{ m.content }}{% endfor %}{% if add_generation_prompt %}<|assistant|>"
                "{% if enable_thinking is defined and not enable_thinking %}<think></think>{% endif %}{% endif %}");
    jinja.close();
    const QString model = m_dir.filePath(QStringLiteral("thinking.gguf"));
    const auto written = runTool(QStringLiteral("hearth-synth"), {"--chat-template", jinja.fileName(), "-q", "-o", model});
    QVERIFY2(written.exitCode == 0, written.err.constData());
    const auto promptTokens = [&](const QStringList& extra) {
        const auto r = runTool(QStringLiteral("hearth-cli"), QStringList{"-m", model, "-p", "hi", "-n", "1", "-t", "1"} + extra);
        const qsizetype at = r.err.indexOf("[prompt: ");
        return r.exitCode == 0 && at >= 0 ? r.err.mid(at + 9).split(' ').first().toInt() : -1;
    };
    const int plain = promptTokens({});
    QVERIFY(plain > 0);
    QVERIFY2(promptTokens({"--reasoning", "off"}) > plain, qPrintable(QString::number(plain)));
    QCOMPARE(promptTokens({"--reasoning", "high"}), plain);
    const auto bad = runTool(QStringLiteral("hearth-cli"), {"-m", model, "-p", "hi", "--reasoning", "extreme"});
    QCOMPARE(bad.exitCode, 1);
    QVERIFY2(bad.err.contains("--reasoning"), bad.err.constData());
}

void TestTools::cliPrintsVersion()
{
    const auto r = runTool(QStringLiteral("hearth-cli"), {"--version"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.startsWith("hearth-cli "), r.out.constData());
    QVERIFY(r.out.contains("CPU kernels"));
}

void TestTools::benchWritesJson()
{
    const auto r = runTool(QStringLiteral("hearth-bench"),
                           {"-m", m_model, "-t", "1", "-p", "16", "-n", "8", "-r", "2", "--json", "--no-bandwidth"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(r.out, &error);
    QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString() + ": " + r.out));
    QVERIFY(doc.isObject());
    const QJsonObject o = doc.object();
    for (const char* key : {"model", "weight_type", "threads", "isa", "prompt_tokens", "generated_tokens",
                            "prefill_tokens_per_second", "decode_tokens_per_second", "prefill_over_decode",
                            "weight_bytes_per_token", "achieved_gb_per_second", "memory_bandwidth_gb_per_second",
                            "bandwidth_fraction", "peak_rss_bytes"})
        QVERIFY2(o.contains(QLatin1String(key)), key);
    QCOMPARE(o.value("threads").toInt(), 1);
    QCOMPARE(o.value("prompt_tokens").toInt(), 16);
    QCOMPARE(o.value("generated_tokens").toInt(), 8);
    QVERIFY(o.value("prefill_tokens_per_second").toDouble() > 0);
    QVERIFY(o.value("decode_tokens_per_second").toDouble() > 0);
    QVERIFY(o.value("peak_rss_bytes").toDouble() > 0);
    // Tiny shape, Q8_0: 2 layers of attention (64x64 q/o, 64x32 k/v) and FFN (3 x 64x192),
    // the 320x64 output matrix and one embedding row, at 34 bytes per 32 weights.
    const double weights = 2 * (2 * 64 * 64 + 2 * 64 * 32 + 3 * 64 * 192) + 320 * 64 + 64;
    QCOMPARE(o.value("weight_bytes_per_token").toDouble(), weights / 32 * 34);
    QVERIFY(o.value("memory_bandwidth_gb_per_second").isNull()); // --no-bandwidth
}

void TestTools::speculativeDecodingInTheTools()
{
    // Guesses change how fast the text comes, not the text.
    const QStringList greedy{"-m", m_model, "-p", "Tell me a story", "-n", "24", "-t", "1", "--temp", "0"};
    const auto plain = runTool(QStringLiteral("hearth-cli"), greedy);
    QVERIFY2(plain.exitCode == 0, plain.err.constData());
    for (const QStringList& extra : {QStringList{"--draft", m_model}, QStringList{"--prompt-lookup"},
                                     QStringList{"--prompt-lookup", "--draft-max", "2"}}) {
        const auto guessed = runTool(QStringLiteral("hearth-cli"), greedy + extra);
        QVERIFY2(guessed.exitCode == 0, guessed.err.constData());
        QCOMPARE(guessed.out, plain.out);
    }
    const auto bench = runTool(QStringLiteral("hearth-bench"), {"-m", m_model, "-t", "1", "-p", "8", "-n", "8", "-r", "1",
                                                                "--json", "--no-bandwidth", "--draft", m_model});
    QVERIFY2(bench.exitCode == 0, bench.err.constData());
    const QJsonObject o = QJsonDocument::fromJson(bench.out).object();
    for (const char* key : {"greedy_tokens_per_second", "speculative_tokens_per_second", "speculative_speedup",
                            "draft_tokens", "draft_tokens_accepted"})
        QVERIFY2(o.contains(QLatin1String(key)), key);
    QVERIFY(o.value("speculative_tokens_per_second").toDouble() > 0);
    // A draft model that is not there, or two drafters at once, are clear errors.
    auto r = runTool(QStringLiteral("hearth-cli"), greedy + QStringList{"--draft", m_dir.filePath(QStringLiteral("no-draft.gguf"))});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("no-draft.gguf"), r.err.constData());
    r = runTool(QStringLiteral("hearth-cli"), greedy + QStringList{"--draft", m_model, "--prompt-lookup"});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("exclude each other"), r.err.constData());
}

void TestTools::benchMissingModelIsAClearError()
{
    const auto r = runTool(QStringLiteral("hearth-bench"), {"-m", m_dir.filePath("nope.gguf"), "--json"});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("nope.gguf"), r.err.constData());
    QVERIFY(r.out.isEmpty());
}

QTEST_GUILESS_MAIN(TestTools)
#include "tst_tools.moc"
