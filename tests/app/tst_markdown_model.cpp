// SPDX-License-Identifier: MIT
// BlockListModel: the blocks of a streaming answer as a list model, with minimal change signals
// and debounced highlighting.
#include "blocklistmodel.h"
#include "plaincodehighlighter.h"

#include <QAbstractItemModelTester>
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTest>

using hearth::BlockListModel;
using hearth::CodeHighlighter;

namespace {

// Records requests and answers only when told to, so the tests control the timing.
class FakeHighlighter : public CodeHighlighter
{
    Q_OBJECT

public:
    struct Request {
        RequestId id;
        QString code;
        QString language;
        bool dark;
    };

    RequestId request(const QString& code, const QString& language, bool dark) override
    {
        const RequestId id = nextId();
        requests.append({id, code, language, dark});
        return id;
    }
    void cancel(RequestId id) override { cancelled.append(id); }
    [[nodiscard]] Backend backend() const override { return Backend::Plain; }
    [[nodiscard]] QString backendName() const override { return QStringLiteral("fake"); }

    void answer(const Request& request)
    {
        Q_EMIT highlighted(request.id, QStringLiteral("<pre><b>") + request.code.toHtmlEscaped() + QStringLiteral("</b></pre>"));
    }

    QList<Request> requests;
    QList<RequestId> cancelled;
};

const QString answer = QStringLiteral(
    "Sure! Here is how:\n\n```python\nimport os\n\nfor name in os.listdir('.'):\n    print(name)\n```\n\n"
    "Then run it:\n\n~~~sh\npython3 list.py\n~~~\nThat's all.");

} // namespace

class TestMarkdownModel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void roles();
    void streamingChangesOnlyTheLastRow();
    void appendingToTextIsOneDataChanged();
    void editResetsNothingButChangedRows();
    void highlightedHtmlShowsNewTextEscaped();
    void debouncesWhileStreaming();
    void finishingHighlightsOnceMore();
    void darkRequestsAgain();
    void plainBackendEndToEnd();
    void measureLongCodeAnswer();
};

void TestMarkdownModel::roles()
{
    BlockListModel model;
    const auto names = model.roleNames();
    for (const char* name : {"blockType", "text", "language", "complete", "highlightedHtml", "blockId", "languageLabel", "info"})
        QVERIFY2(names.values().contains(QByteArray(name)), name);

    model.setMarkdown(QStringLiteral("Hi\n```py title=a\nx\n```\n"));
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.data(model.index(0), BlockListModel::BlockTypeRole).toString(), QStringLiteral("text"));
    QCOMPARE(model.data(model.index(1), BlockListModel::BlockTypeRole).toString(), QStringLiteral("code"));
    QCOMPARE(model.data(model.index(1), BlockListModel::LanguageRole).toString(), QStringLiteral("py"));
    QCOMPARE(model.data(model.index(1), BlockListModel::InfoRole).toString(), QStringLiteral("py title=a"));
    QCOMPARE(model.data(model.index(1), BlockListModel::LanguageLabelRole).toString(), QStringLiteral("py"));
    QCOMPARE(model.data(model.index(1), BlockListModel::CompleteRole).toBool(), true);
    QCOMPARE(model.textAt(1), QStringLiteral("x"));
    QCOMPARE(model.textAt(7), QString());
    QCOMPARE(model.data(model.index(1), BlockListModel::HighlightedHtmlRole).toString(), QStringLiteral("<pre>x</pre>"));
    QCOMPARE(model.data(model.index(0), BlockListModel::HighlightedHtmlRole).toString(), QString());
    QVERIFY(!model.data(model.index(9), BlockListModel::TextRole).isValid());
}

void TestMarkdownModel::streamingChangesOnlyTheLastRow()
{
    BlockListModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
    QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);

    qsizetype lastId = -1;
    for (qsizetype length = 1; length <= answer.size(); ++length) {
        const int rowsBefore = model.rowCount();
        changed.clear();
        inserted.clear();
        model.setMarkdown(answer.left(length));
        for (const auto& args : changed) {
            const auto topLeft = args.at(0).toModelIndex();
            const auto bottomRight = args.at(1).toModelIndex();
            QCOMPARE(topLeft.row(), bottomRight.row());
            // The row that was last before this token (it may have just been followed by a new one).
            QVERIFY2(topLeft.row() == rowsBefore - 1, qPrintable(answer.left(length)));
        }
        for (const auto& args : inserted)
            QCOMPARE(args.at(1).toInt(), rowsBefore); // only ever appended
        if (model.rowCount() == rowsBefore && rowsBefore > 0) {
            const qsizetype id = model.data(model.index(rowsBefore - 1), BlockListModel::BlockIdRole).toLongLong();
            if (lastId >= 0)
                QCOMPARE(id, lastId); // the growing block keeps its id
            lastId = id;
        } else {
            lastId = -1;
        }
    }
    QCOMPARE(resets.count(), 0);
    QCOMPARE(removed.count(), 0);
    QCOMPARE(model.rowCount(), 5);

    model.setStreaming(false);
    QCOMPARE(model.rowCount(), 5);
    QCOMPARE(resets.count(), 0);
}

void TestMarkdownModel::appendingToTextIsOneDataChanged()
{
    BlockListModel model;
    model.setMarkdown(QStringLiteral("```c\nint x;\n```\nHello"));
    QCOMPARE(model.rowCount(), 2);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    model.setMarkdown(QStringLiteral("```c\nint x;\n```\nHello world"));
    QCOMPARE(changed.count(), 1);
    QCOMPARE(changed.at(0).at(0).toModelIndex().row(), 1);
    const auto roles = changed.at(0).at(2).value<QList<int>>();
    QVERIFY(roles.contains(BlockListModel::TextRole));
    QVERIFY(!roles.contains(BlockListModel::LanguageRole));
    QCOMPARE(inserted.count(), 0);
    QCOMPARE(model.textAt(1), QStringLiteral("Hello world"));
}

void TestMarkdownModel::editResetsNothingButChangedRows()
{
    BlockListModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setMarkdown(QStringLiteral("A\n```py\nx\n```\nB\n"));
    QCOMPARE(model.rowCount(), 3);
    QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
    QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
    // The same first block, the rest different: row 0 stays, the others are replaced.
    model.setMarkdown(QStringLiteral("A\nB"));
    QCOMPARE(model.rowCount(), 1);
    QCOMPARE(resets.count(), 0);
    QCOMPARE(removed.count(), 1);
    QCOMPARE(model.textAt(0), QStringLiteral("A\nB"));
    model.setMarkdown(QString());
    QCOMPARE(model.rowCount(), 0);
}

void TestMarkdownModel::highlightedHtmlShowsNewTextEscaped()
{
    FakeHighlighter fake;
    BlockListModel model;
    model.setHighlighter(&fake);
    model.setHighlightInterval(1000000);
    model.setMarkdown(QStringLiteral("```cpp\nint a;\n"));
    QCOMPARE(fake.requests.size(), 1);
    QCOMPARE(fake.requests[0].code, QStringLiteral("int a;"));
    QCOMPARE(fake.requests[0].language, QStringLiteral("cpp"));
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    fake.answer(fake.requests[0]);
    QCOMPARE(changed.count(), 1);
    QCOMPARE(changed.at(0).at(2).value<QList<int>>(), QList<int>{BlockListModel::HighlightedHtmlRole});
    QCOMPARE(model.data(model.index(0), BlockListModel::HighlightedHtmlRole).toString(), QStringLiteral("<pre><b>int a;</b></pre>"));

    model.setMarkdown(QStringLiteral("```cpp\nint a;\nif (a < 1)"));
    QCOMPARE(fake.requests.size(), 1); // debounced
    QCOMPARE(model.data(model.index(0), BlockListModel::HighlightedHtmlRole).toString(),
             QStringLiteral("<pre><b>int a;</b>\nif (a &lt; 1)</pre>"));
}

void TestMarkdownModel::debouncesWhileStreaming()
{
    FakeHighlighter fake;
    BlockListModel model;
    model.setHighlighter(&fake);
    model.setHighlightInterval(200);
    QString md = QStringLiteral("```js\n");
    for (int i = 0; i < 100; ++i) {
        md += QStringLiteral("let v%1 = %1;\n").arg(i);
        model.setMarkdown(md);
    }
    // The first line was requested at once; everything after waits for the interval.
    QCOMPARE(fake.requests.size(), 1);
    QTRY_COMPARE_WITH_TIMEOUT(fake.requests.size(), 2, 5000);
    QCOMPARE(fake.requests.last().code, md.mid(6).chopped(1));
    QVERIFY(fake.cancelled.contains(fake.requests.first().id)); // superseded, never answered
    QTest::qWait(300);
    QCOMPARE(fake.requests.size(), 2); // nothing new: nothing more to do
}

void TestMarkdownModel::finishingHighlightsOnceMore()
{
    FakeHighlighter fake;
    BlockListModel model;
    model.setHighlighter(&fake);
    model.setHighlightInterval(1000000);
    model.setMarkdown(QStringLiteral("```rust\nfn main() {"));
    QCOMPARE(fake.requests.size(), 1);
    model.setMarkdown(QStringLiteral("```rust\nfn main() {}\n```"));
    QCOMPARE(fake.requests.size(), 1);
    QCOMPARE(model.data(model.index(0), BlockListModel::CompleteRole).toBool(), false);
    model.setStreaming(false);
    QCOMPARE(model.data(model.index(0), BlockListModel::CompleteRole).toBool(), true);
    QCOMPARE(fake.requests.size(), 2);
    QCOMPARE(fake.requests.last().code, QStringLiteral("fn main() {}"));
    fake.answer(fake.requests.last());
    QCOMPARE(model.data(model.index(0), BlockListModel::HighlightedHtmlRole).toString(),
             QStringLiteral("<pre><b>fn main() {}</b></pre>"));
    // A late answer to the superseded request changes nothing.
    fake.answer(fake.requests.first());
    QCOMPARE(model.data(model.index(0), BlockListModel::HighlightedHtmlRole).toString(),
             QStringLiteral("<pre><b>fn main() {}</b></pre>"));
}

void TestMarkdownModel::darkRequestsAgain()
{
    FakeHighlighter fake;
    BlockListModel model;
    model.setHighlighter(&fake);
    model.setMarkdown(QStringLiteral("```py\na\n```\ntext\n```go\nb\n```\n"));
    QCOMPARE(fake.requests.size(), 2);
    QVERIFY(!fake.requests[0].dark);
    QSignalSpy darkChanged(&model, &BlockListModel::darkChanged);
    model.setDark(true);
    QCOMPARE(darkChanged.count(), 1);
    QCOMPARE(fake.requests.size(), 4);
    QVERIFY(fake.requests[2].dark && fake.requests[3].dark);
    model.setDark(true);
    QCOMPARE(fake.requests.size(), 4);
}

void TestMarkdownModel::plainBackendEndToEnd()
{
    hearth::PlainCodeHighlighter plain;
    BlockListModel model;
    model.setHighlighter(&plain);
    model.setMarkdown(QStringLiteral("```html\n<script>alert(1)</script>\n```\n"));
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    QVERIFY(changed.wait(1000));
    QCOMPARE(model.data(model.index(0), BlockListModel::HighlightedHtmlRole).toString(),
             QStringLiteral("<pre>&lt;script&gt;alert(1)&lt;/script&gt;</pre>"));
}

// Not an assertion: prints the GUI-thread cost of one token at the end of a 2,000-line code
// answer (setMarkdown plus reading the changed roles, as a view would).
void TestMarkdownModel::measureLongCodeAnswer()
{
    hearth::PlainCodeHighlighter plain;
    BlockListModel model;
    model.setHighlighter(&plain);
    QString md = QStringLiteral("Here is the generated table:\n\n```python\n");
    for (int i = 0; i < 2000; ++i) {
        md += QStringLiteral("    value_%1 = compute(%1, \"text\")  # comment %1\n").arg(i);
        model.setMarkdown(md);
    }
    const int tokens = 300;
    QElapsedTimer timer;
    qint64 worst = 0;
    qint64 total = 0;
    for (int i = 0; i < tokens; ++i) {
        md += (i % 5 == 4) ? QStringLiteral("\n") : QStringLiteral(" tok%1").arg(i);
        timer.start();
        model.setMarkdown(md);
        const QModelIndex last = model.index(model.rowCount() - 1);
        const QString text = model.data(last, BlockListModel::TextRole).toString();
        const QString html = model.data(last, BlockListModel::HighlightedHtmlRole).toString();
        const qint64 ns = timer.nsecsElapsed();
        QVERIFY(!text.isEmpty() && !html.isEmpty());
        total += ns;
        worst = std::max(worst, ns);
    }
    qInfo("2,000-line code answer (%lld chars): %.3f ms per token on average, %.3f ms at worst (GUI thread, model only)",
          qlonglong(md.size()), double(total) / tokens / 1e6, double(worst) / 1e6);
}

QTEST_MAIN(TestMarkdownModel)
#include "tst_markdown_model.moc"
