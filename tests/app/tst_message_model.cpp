// SPDX-License-Identifier: MIT
#include "message_model.h"
#include "reasoning.h"

#include <QSignalSpy>
#include <QTest>

using hearth::app::MessageModel;
using hearth::app::ReasoningParts;

class TestMessageModel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void reasoningIsSplitFromTheAnswer_data()
    {
        QTest::addColumn<QString>("content");
        QTest::addColumn<QString>("thinking");
        QTest::addColumn<QString>("answer");
        QTest::addColumn<bool>("open");
        QTest::newRow("qwen3") << QStringLiteral("<think>\nLet me add.\n</think>\n\n2 + 2 = 4") << QStringLiteral("Let me add.")
                               << QStringLiteral("2 + 2 = 4") << false;
        QTest::newRow("still thinking") << QStringLiteral("<think>\nHmm") << QStringLiteral("Hmm") << QString() << true;
        QTest::newRow("opened by the template") << QStringLiteral("Weighing it.</think>Yes.") << QStringLiteral("Weighing it.")
                                                << QStringLiteral("Yes.") << false;
        QTest::newRow("empty thinking") << QStringLiteral("<think>\n\n</think>\n\nHi") << QString() << QStringLiteral("Hi") << false;
        QTest::newRow("plain answer") << QStringLiteral("A <think> tag mid-text stays.") << QString()
                                      << QStringLiteral("A <think> tag mid-text stays.") << false;
        // gpt-oss's channels (<|end|> ends a message and is not shown).
        QTest::newRow("gpt-oss") << QStringLiteral("<|channel|>analysis<|message|>User greets. Reply.<|start|>assistant"
                                                   "<|channel|>final<|message|>Hello! How can I help?")
                                 << QStringLiteral("User greets. Reply.") << QStringLiteral("Hello! How can I help?") << false;
        QTest::newRow("gpt-oss analysing") << QStringLiteral("<|channel|>analysis<|message|>User greets")
                                           << QStringLiteral("User greets") << QString() << true;
        QTest::newRow("gpt-oss between channels") << QStringLiteral("<|channel|>analysis<|message|>Done.<|start|>assistant<|channel|>fin")
                                                  << QStringLiteral("Done.") << QString() << true;
        QTest::newRow("gpt-oss answering at once") << QStringLiteral("<|channel|>final<|message|>Hi")
                                                   << QString() << QStringLiteral("Hi") << false;
        QTest::newRow("gpt-oss calling a tool") << QStringLiteral("<|channel|>analysis<|message|>Need time.<|start|>assistant"
                                                                  "<|channel|>commentary to=functions.now <|constrain|>json<|message|>{}")
                                                << QStringLiteral("Need time.\n\n{}") << QString() << true;
    }

    void reasoningIsSplitFromTheAnswer()
    {
        QFETCH(QString, content);
        QFETCH(QString, thinking);
        QFETCH(QString, answer);
        QFETCH(bool, open);
        const ReasoningParts parts = ReasoningParts::split(content);
        QCOMPARE(parts.thinking, thinking);
        QCOMPARE(parts.answer, answer);
        QCOMPARE(parts.thinkingOpen, open);
    }

    // The API server's deltas: fed a piece at a time (here a character at a time), the thinking
    // and the answer come out whole and in order, whatever the cut.
    void reasoningStreamsApart_data() { reasoningIsSplitFromTheAnswer_data(); }
    void reasoningStreamsApart()
    {
        QFETCH(QString, content);
        QFETCH(QString, thinking);
        QFETCH(QString, answer);
        hearth::app::ReasoningStream stream;
        QString thought;
        QString said;
        for (qsizetype i = 0; i <= content.size(); ++i) {
            const auto delta = i < content.size() ? stream.feed(QString(content.at(i))) : stream.feed({}, true);
            thought += delta.thinking;
            said += delta.answer;
        }
        if (QByteArray(QTest::currentDataTag()) == "opened by the template") {
            // Until its lone </think>, the thinking looked like an answer and went out as one:
            // the rest follows as it is, nothing lost.
            QVERIFY(thought.isEmpty());
            QCOMPARE(said, content);
            return;
        }
        QCOMPARE(thought, thinking);
        QCOMPARE(said, answer);
    }

    void appendAndRead()
    {
        MessageModel model;
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        QCOMPARE(model.append(QStringLiteral("user"), QStringLiteral("Hi")), 0);
        QCOMPARE(model.append(QStringLiteral("assistant"), QString(), true), 1);
        QCOMPARE(inserted.count(), 2);
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.data(model.index(0), MessageModel::RoleRole).toString(), QStringLiteral("user"));
        QCOMPARE(model.data(model.index(0), MessageModel::ContentRole).toString(), QStringLiteral("Hi"));
        QCOMPARE(model.data(model.index(1), MessageModel::StreamingRole).toBool(), true);
        QVERIFY(!model.data(model.index(5), MessageModel::ContentRole).isValid());
    }

    void streamingUpdatesOneRowWithoutReset()
    {
        MessageModel model;
        model.append(QStringLiteral("user"), QStringLiteral("Hi"));
        const int row = model.append(QStringLiteral("assistant"), QString(), true);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        QSignalSpy reset(&model, &QAbstractItemModel::modelReset);

        model.appendToContent(row, QStringLiteral("Hel"));
        model.appendToContent(row, QStringLiteral("lo"));
        model.appendToContent(row, QString()); // empty pieces (half a UTF-8 character) change nothing
        QCOMPARE(changed.count(), 2);
        QCOMPARE(changed.at(0).at(0).toModelIndex().row(), row);
        QCOMPARE(changed.at(0).at(2).value<QList<int>>(), QList<int> { MessageModel::ContentRole });
        QCOMPARE(reset.count(), 0);
        QCOMPARE(model.data(model.index(row), MessageModel::ContentRole).toString(), QStringLiteral("Hello"));

        model.finish(row, 12.5);
        QCOMPARE(model.data(model.index(row), MessageModel::StreamingRole).toBool(), false);
        QCOMPARE(model.data(model.index(row), MessageModel::TokensPerSecondRole).toDouble(), 12.5);
    }

    void outOfRangeRowsAreIgnored()
    {
        MessageModel model;
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        model.appendToContent(-1, QStringLiteral("x"));
        model.appendToContent(3, QStringLiteral("x"));
        model.finish(7, 1.0);
        QCOMPARE(changed.count(), 0);
    }

    void roleNamesAreCamelCase()
    {
        MessageModel model;
        const auto roles = model.roleNames();
        QCOMPARE(roles.value(MessageModel::ContentRole), QByteArray("content"));
        QCOMPARE(roles.value(MessageModel::TokensPerSecondRole), QByteArray("tokensPerSecond"));
    }

    void answersThatEndedEarlySaySo()
    {
        // Continue is offered from this role; it follows the state as an answer ends.
        MessageModel model;
        MessageModel::Message answer;
        answer.role = QStringLiteral("assistant");
        model.append(answer);
        const QModelIndex row = model.index(0);
        QVERIFY(!model.data(row, MessageModel::EndedEarlyRole).toBool());
        for (const char* state : {"stopped", "length_limit", "context_full"}) {
            model.finish(0, 0, 0, 0, QString::fromLatin1(state));
            QVERIFY2(model.data(row, MessageModel::EndedEarlyRole).toBool(), state);
        }
        model.resume(0);
        QVERIFY(!model.data(row, MessageModel::EndedEarlyRole).toBool());
        model.finish(0, 0, 0, 0, QStringLiteral("error"), QStringLiteral("failed"));
        QVERIFY(!model.data(row, MessageModel::EndedEarlyRole).toBool());
    }
};

QTEST_GUILESS_MAIN(TestMessageModel)
#include "tst_message_model.moc"
