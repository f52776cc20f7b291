// SPDX-License-Identifier: MIT
// MarkdownBlocks: splitting (streaming) Markdown answers into text and fenced code blocks.
#include "markdownblocks.h"

#include <QTest>

using hearth::MarkdownBlock;
using hearth::MarkdownBlocks;
using hearth::MarkdownInput;
using hearth::splitMarkdownBlocks;

namespace {

// One line per block: "text|<text>", "quote|<text>" or "code|<language>|<complete>|<text>",
// newlines as "\n".
QString describe(const QList<MarkdownBlock>& blocks)
{
    QStringList parts;
    for (const MarkdownBlock& block : blocks) {
        QString text = block.text;
        text.replace(QLatin1Char('\n'), QLatin1String("\\n"));
        if (block.type == MarkdownBlock::Type::Text)
            parts << QStringLiteral("text|") + text;
        else if (block.type == MarkdownBlock::Type::Quote)
            parts << QStringLiteral("quote|") + text;
        else
            parts << QStringLiteral("code|%1|%2|%3").arg(block.language, block.complete ? QStringLiteral("1") : QStringLiteral("0"), text);
    }
    return parts.join(QLatin1Char('\n'));
}

const QString sampleAnswer = QStringLiteral(
    "Here is a **Python** function:\n"
    "\n"
    "```python title=\"fib.py\"\n"
    "def fib(n):\n"
    "    # ``` inside a comment is not a fence\n"
    "    return n if n < 2 else fib(n - 1) + fib(n - 2)\n"
    "```\n"
    "\n"
    "And the same in C++, with `inline code`:\n"
    "\n"
    "~~~cpp\n"
    "int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }\n"
    "~~~\n"
    "A Markdown example with nested fences:\n"
    "````markdown\n"
    "```sh\n"
    "ls -l\n"
    "```\n"
    "````\n"
    "Done.\n");

} // namespace

class TestMarkdown : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void split_data();
    void split();
    void ids();
    void infoString();
    void everyPrefixIsConsistent();
    void incrementalParsesOnlyTheLastBlock();
    void finishedCompletesOpenFence();
    void editedMessageParsesAgain();
};

void TestMarkdown::split_data()
{
    QTest::addColumn<QString>("markdown");
    QTest::addColumn<bool>("streaming");
    QTest::addColumn<QString>("expected");

    QTest::newRow("empty") << QString() << true << QString();
    QTest::newRow("blank") << QStringLiteral("\n  \n") << true << QString();
    QTest::newRow("text") << QStringLiteral("Hello *world*\n\nSecond paragraph.") << true
                          << QStringLiteral("text|Hello *world*\\n\\nSecond paragraph.");
    QTest::newRow("text code text")
        << QStringLiteral("Look:\n```python\nprint(1)\n```\nDone.") << true
        << QStringLiteral("text|Look:\ncode|python|1|print(1)\ntext|Done.");
    QTest::newRow("tilde fence") << QStringLiteral("~~~\na\n~~~") << false << QStringLiteral("code||1|a");
    QTest::newRow("tilde does not close backticks")
        << QStringLiteral("```\na\n~~~\nb\n```\n") << true << QStringLiteral("code||1|a\\n~~~\\nb");
    QTest::newRow("shorter fence does not close")
        << QStringLiteral("````\na\n```\n````\nafter") << true << QStringLiteral("code||1|a\\n```\ntext|after");
    QTest::newRow("nested backticks")
        << QStringLiteral("````md\n```py\nx = 1\n```\n````") << false << QStringLiteral("code|md|1|```py\\nx = 1\\n```");
    QTest::newRow("closing fence with text is content")
        << QStringLiteral("```\na\n``` not closing\n```") << false << QStringLiteral("code||1|a\\n``` not closing");
    QTest::newRow("closing fence with trailing spaces") << QStringLiteral("```\na\n```   \nz") << true
                                                         << QStringLiteral("code||1|a\ntext|z");
    QTest::newRow("longer closing fence") << QStringLiteral("```\na\n`````\n") << true << QStringLiteral("code||1|a");
    QTest::newRow("inline code is not a fence")
        << QStringLiteral("Use ```a`b``` here\nok") << true << QStringLiteral("text|Use ```a`b``` here\\nok");
    QTest::newRow("backtick in tilde info is fine")
        << QStringLiteral("~~~ a`b\nx\n~~~") << false << QStringLiteral("code|a`b|1|x");
    QTest::newRow("two backticks are not a fence") << QStringLiteral("``\nx\n``") << false
                                                   << QStringLiteral("text|``\\nx\\n``");
    QTest::newRow("indented fence")
        << QStringLiteral("   ```js\n   let a;\n  b\n     c\n  ```\n") << true
        << QStringLiteral("code|js|1|let a;\\nb\\n  c");
    QTest::newRow("four spaces is not a fence")
        << QStringLiteral("    ```\n    code\n") << true << QStringLiteral("text|    ```\\n    code");
    QTest::newRow("consecutive code blocks")
        << QStringLiteral("```a\n1\n```\n\n\n```b\n2\n```\n") << true << QStringLiteral("code|a|1|1\ncode|b|1|2");
    QTest::newRow("fence interrupts a paragraph")
        << QStringLiteral("text\n```\ncode\n```") << false << QStringLiteral("text|text\ncode||1|code");
    QTest::newRow("empty code block") << QStringLiteral("```\n```") << false << QStringLiteral("code||1|");
    QTest::newRow("blank lines kept inside code")
        << QStringLiteral("```\na\n\n\nb\n\n```") << false << QStringLiteral("code||1|a\\n\\n\\nb\\n");
    QTest::newRow("CRLF") << QStringLiteral("a\r\n```py\r\nx = 1\r\n\r\ny\r\n```\r\nb\r\n") << true
                          << QStringLiteral("text|a\ncode|py|1|x = 1\\n\\ny\ntext|b");
    QTest::newRow("pandoc attributes") << QStringLiteral("```{.python .numberLines}\nx\n```") << false
                                       << QStringLiteral("code|python|1|x");
    QTest::newRow("open fence while streaming") << QStringLiteral("Code:\n```rust\nfn main() {\n    let") << true
                                                << QStringLiteral("text|Code:\ncode|rust|0|fn main() {\\n    let");
    QTest::newRow("open fence finished") << QStringLiteral("```rust\nfn main() {}") << false
                                         << QStringLiteral("code|rust|1|fn main() {}");
    QTest::newRow("fence line still arriving") << QStringLiteral("Code:\n```pyth") << true
                                               << QStringLiteral("text|Code:\ncode|pyth|0|");
    QTest::newRow("partial opening fence held back") << QStringLiteral("Hi\n``") << true << QStringLiteral("text|Hi");
    QTest::newRow("partial opening fence when finished") << QStringLiteral("Hi\n``") << false
                                                         << QStringLiteral("text|Hi\\n``");
    QTest::newRow("partial closing fence held back") << QStringLiteral("```py\nx\n``") << true
                                                     << QStringLiteral("code|py|0|x");
    QTest::newRow("unterminated closing fence while streaming") << QStringLiteral("```py\nx\n```") << true
                                                                << QStringLiteral("code|py|0|x");
    QTest::newRow("unterminated closing fence finished") << QStringLiteral("```py\nx\n```") << false
                                                         << QStringLiteral("code|py|1|x");
    QTest::newRow("quote after a list")
        << QStringLiteral("- one\n- two\n> quoted\n>more\n\nAfter.") << false
        << QStringLiteral("text|- one\\n- two\nquote|quoted\\nmore\ntext|After.");
    QTest::newRow("quote with markdown and a blank line")
        << QStringLiteral("> **bold**\n>\n> > nested") << true << QStringLiteral("quote|**bold**\\n\\n> nested");
    QTest::newRow("quote interrupts a paragraph")
        << QStringLiteral("text\n> q\ntext again") << false << QStringLiteral("text|text\nquote|q\ntext|text again");
    QTest::newRow("quote indented into a list item stays text")
        << QStringLiteral("- item\n  > inner") << false << QStringLiteral("text|- item\\n  > inner");
    QTest::newRow("'>' inside a line is text") << QStringLiteral("a > b") << false << QStringLiteral("text|a > b");
    QTest::newRow("fence in a list stays text")
        << QStringLiteral("1. Step\n\n        ```\n        x\n        ```") << true
        << QStringLiteral("text|1. Step\\n\\n        ```\\n        x\\n        ```");
}

void TestMarkdown::split()
{
    QFETCH(QString, markdown);
    QFETCH(bool, streaming);
    QFETCH(QString, expected);
    const auto input = streaming ? MarkdownInput::Streaming : MarkdownInput::Finished;
    QCOMPARE(describe(splitMarkdownBlocks(markdown, input)), expected);

    // The incremental parser gives the same answer in one step.
    MarkdownBlocks parser;
    QCOMPARE(describe(parser.update(markdown, input)), expected);
}

void TestMarkdown::ids()
{
    const QString md = QStringLiteral("Intro\n```py\nx\n```\nOutro\n");
    const auto blocks = splitMarkdownBlocks(md);
    QCOMPARE(blocks.size(), 3);
    QCOMPARE(blocks[0].id, 0);
    QCOMPARE(blocks[1].id, md.indexOf(QLatin1String("```py")));
    QCOMPARE(blocks[2].id, md.indexOf(QLatin1String("Outro")));
    QCOMPARE(blocks[2].end, md.size());
    QVERIFY(blocks[0].id != blocks[1].id && blocks[1].id != blocks[2].id);
}

void TestMarkdown::infoString()
{
    const auto blocks = splitMarkdownBlocks(QStringLiteral("```python title=x linenos\nx\n```"));
    QCOMPARE(blocks.size(), 1);
    QCOMPARE(blocks[0].language, QStringLiteral("python"));
    QCOMPARE(blocks[0].info, QStringLiteral("python title=x linenos"));

    const auto cpp = splitMarkdownBlocks(QStringLiteral("```  c++   \nint x;\n```"));
    QCOMPARE(cpp[0].language, QStringLiteral("c++"));
}

// Streaming: each prefix of an answer (as if it arrived one character at a time) splits into
// blocks consistent with the previous prefix: earlier blocks never change, the last block's id
// stays while it grows, and the incremental parser agrees with a full parse.
void TestMarkdown::everyPrefixIsConsistent()
{
    for (const QString& answer : {sampleAnswer, QString(sampleAnswer).replace(QLatin1String("\n"), QLatin1String("\r\n"))}) {
        MarkdownBlocks parser;
        QList<MarkdownBlock> previous;
        for (qsizetype length = 0; length <= answer.size(); ++length) {
            const QString prefix = answer.left(length);
            const QList<MarkdownBlock> full = splitMarkdownBlocks(prefix);
            const QList<MarkdownBlock>& incremental = parser.update(prefix);
            QCOMPARE(describe(incremental), describe(full));
            for (qsizetype i = 0; i < full.size(); ++i)
                QCOMPARE(incremental[i].id, full[i].id);

            QVERIFY2(full.size() >= previous.size(), qPrintable(prefix));
            for (qsizetype i = 0; i < previous.size(); ++i) {
                QCOMPARE(full[i].id, previous[i].id);
                QCOMPARE(full[i].type, previous[i].type);
                if (i + 1 < previous.size()) {
                    QCOMPARE(full[i].text, previous[i].text); // only the last block may change
                    QCOMPARE(full[i].complete, previous[i].complete);
                } else {
                    QVERIFY2(full[i].text.startsWith(previous[i].text), qPrintable(prefix)); // it only grows
                    QVERIFY(full[i].complete || !previous[i].complete);
                }
            }
            for (qsizetype i = 0; i + 1 < full.size(); ++i) {
                if (full[i].type == MarkdownBlock::Type::Code)
                    QVERIFY2(full[i].complete, qPrintable(prefix)); // only the last one may be open
            }
            previous = full;
        }
        QCOMPARE(describe(previous),
                 QStringLiteral("text|Here is a **Python** function:\n"
                                "code|python|1|def fib(n):\\n    # ``` inside a comment is not a fence\\n"
                                "    return n if n < 2 else fib(n - 1) + fib(n - 2)\n"
                                "text|And the same in C++, with `inline code`:\n"
                                "code|cpp|1|int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }\n"
                                "text|A Markdown example with nested fences:\n"
                                "code|markdown|1|```sh\\nls -l\\n```\n"
                                "text|Done."));
    }
}

void TestMarkdown::incrementalParsesOnlyTheLastBlock()
{
    QString md = QStringLiteral("Intro paragraph that is long enough to notice.\n\n```cpp\n");
    MarkdownBlocks parser;
    parser.update(md);
    const qsizetype codeStart = md.indexOf(QLatin1String("```cpp"));
    for (int i = 0; i < 50; ++i) {
        md += QStringLiteral("int x%1 = %1;\n").arg(i);
        parser.update(md);
        QCOMPARE(parser.lastParsedLength(), md.size() - codeStart);
    }
    md += QStringLiteral("```\nAfter.");
    parser.update(md);
    QCOMPARE(parser.blocks().size(), 3);
    md += QStringLiteral(" More.");
    parser.update(md);
    QCOMPARE(parser.lastParsedLength(), md.size() - md.indexOf(QLatin1String("After.")));
}

void TestMarkdown::finishedCompletesOpenFence()
{
    MarkdownBlocks parser;
    parser.update(QStringLiteral("```go\nfunc main() {}\n```"));
    QCOMPARE(parser.blocks().size(), 1);
    QVERIFY(!parser.blocks()[0].complete);
    parser.update(QStringLiteral("```go\nfunc main() {}\n```"), MarkdownInput::Finished);
    QVERIFY(parser.blocks()[0].complete);
    QCOMPARE(parser.blocks()[0].text, QStringLiteral("func main() {}"));
}

void TestMarkdown::editedMessageParsesAgain()
{
    MarkdownBlocks parser;
    parser.update(QStringLiteral("```py\nx\n```\nText"));
    const QString edited = QStringLiteral("Other\n```js\ny\n```\n");
    parser.update(edited);
    QCOMPARE(parser.lastParsedLength(), edited.size());
    QCOMPARE(describe(parser.blocks()), QStringLiteral("text|Other\ncode|js|1|y"));
}

QTEST_GUILESS_MAIN(TestMarkdown)
#include "tst_markdown.moc"
