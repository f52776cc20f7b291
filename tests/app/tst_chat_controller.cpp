// SPDX-License-Identifier: MIT
// ChatController with a real ChatStore and the real engine on its thread: an answer's row is in
// the database from its first token, Regenerate adds a sibling, Edit starts a branch and keeps
// the old one, and delete can be undone.

#include "app_settings.h"
#include "app_test_support.h"
#include "chat_with_session.h"
#include "chatstore.h"

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cstdlib>

using hearth::app::ChatController;
using hearth::app::ModelSession;
using hearth::app::MessageModel;

class TestChatController : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_model;
    std::unique_ptr<ChatController> m_chat;

    // An answer that ended by itself or at the length limit (not an error, not cut by a stop).
    static bool isAnswered(const hearth::StoredMessage& m)
    {
        return m.state == hearth::MessageState::Complete || m.state == hearth::MessageState::LengthLimit;
    }

    bool waitReady() const
    {
        return QTest::qWaitFor([this] { return m_chat->session()->state() == ModelSession::State::Ready; }, 60000);
    }

    // A new chat starts from the settings' defaults, a random seed among them: the fixed one
    // again, so that the random model writes the same tokens on every run.
    void newChat()
    {
        m_chat->newConversation();
        QVariantMap sampling = m_chat->sampling();
        sampling.insert(QStringLiteral("seed"), 1);
        m_chat->setSampling(sampling);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_model = hearth::test::makeTinyModel(m_dir.path());
        if (m_model.isEmpty())
            QSKIP("no test model: hearth-synth is not built and ../shared is absent");
        m_chat = std::make_unique<hearth::test::ChatWithSession>();
        QVERIFY(m_chat->openStore(m_dir.filePath(QStringLiteral("chats.sqlite"))));
        m_chat->session()->loadModel(m_model);
        QVERIFY(waitReady());
        QVERIFY(m_chat->session()->contextLength() > 0);
        m_chat->setMaxTokens(16);
        // A fixed seed: the same tokens on every run (the random model's first token is not EOS).
        QVariantMap sampling = m_chat->sampling();
        sampling.insert(QStringLiteral("seed"), 1);
        m_chat->setSampling(sampling);
    }

    void cleanupTestCase() { m_chat.reset(); }

    void sendStoresTheAnswerFromTheFirstToken()
    {
        hearth::ChatStore* store = m_chat->store();
        bool checkedRow = false;
        connect(m_chat.get(), &ChatController::answerToken, this, [&] {
            if (checkedRow)
                return;
            checkedRow = true;
            // The assistant row exists while the answer is still streaming.
            const QList<hearth::StoredMessage> path = store->activePath(m_chat->conversationId());
            QCOMPARE(path.size(), 2);
            QCOMPARE(path.at(1).role, QStringLiteral("assistant"));
            QCOMPARE(path.at(1).state, hearth::MessageState::Streaming);
        });
        m_chat->send(QStringLiteral("Hello, who are you?"));
        QCOMPARE(m_chat->session()->state(), ModelSession::State::Generating);
        QVERIFY(m_chat->conversationId() != 0);
        QCOMPARE(m_chat->conversationTitle(), QStringLiteral("Hello, who are you?"));
        QVERIFY(waitReady());
        disconnect(m_chat.get(), &ChatController::answerToken, this, nullptr);
        QVERIFY(checkedRow);

        const QList<hearth::StoredMessage> path = store->activePath(m_chat->conversationId());
        QCOMPARE(path.size(), 2);
        // Sixteen tokens of a random model: the limit, unless it happened to end its turn.
        QCOMPARE(path.at(1).state,
            path.at(1).stats.tokens >= 16 ? hearth::MessageState::LengthLimit : hearth::MessageState::Complete);
        QCOMPARE(path.at(1).content, m_chat->messages()->at(1).content);
        QVERIFY(path.at(1).stats.tokens > 0);
        QVERIFY(m_chat->contextUsed() > 0);
        QCOMPARE(m_chat->conversations()->count(), 1);
    }

    void regenerateAddsASibling()
    {
        const qint64 first = m_chat->messages()->at(1).id;
        m_chat->regenerate(1);
        QVERIFY(waitReady());
        QCOMPARE(m_chat->messages()->rowCount(), 2);
        const qint64 second = m_chat->messages()->at(1).id;
        QVERIFY(second != first);
        QCOMPARE(m_chat->messages()->at(1).siblingCount, 2);
        QCOMPARE(m_chat->messages()->at(1).siblingIndex, 1);

        // Browse back to the first answer: "< 1/2 >".
        m_chat->switchSibling(1, -1);
        QCOMPARE(m_chat->messages()->at(1).id, first);
        QCOMPARE(m_chat->messages()->at(1).siblingIndex, 0);
        m_chat->switchSibling(1, 1);
        QCOMPARE(m_chat->messages()->at(1).id, second);
    }

    void editCreatesABranch()
    {
        const qint64 original = m_chat->messages()->at(0).id;
        m_chat->editAndResend(0, QStringLiteral("Tell me about flames."));
        QVERIFY(waitReady());
        QCOMPARE(m_chat->messages()->rowCount(), 2);
        QCOMPARE(m_chat->messages()->at(0).content, QStringLiteral("Tell me about flames."));
        QCOMPARE(m_chat->messages()->at(0).siblingCount, 2);
        QCOMPARE(m_chat->messages()->at(1).role, QStringLiteral("assistant"));

        // The old question and both of its answers are still there.
        const QList<hearth::StoredMessage> all = m_chat->store()->allMessages(m_chat->conversationId());
        QCOMPARE(all.size(), 5);
        m_chat->switchSibling(0, -1);
        QCOMPARE(m_chat->messages()->at(0).id, original);
    }

    void deleteCanBeUndone()
    {
        const qint64 id = m_chat->conversationId();
        QVERIFY(m_chat->deleteConversation(id));
        QCOMPARE(m_chat->conversationId(), 0);
        QCOMPARE(m_chat->conversations()->count(), 0);
        QVERIFY(m_chat->canUndoDelete());
        QVERIFY(m_chat->undoDelete());
        QCOMPARE(m_chat->conversations()->count(), 1);
        QCOMPARE(m_chat->conversationId(), id);

        // The undo bar timing out gives up the undo, not the next one.
        QSignalSpy undo(m_chat.get(), &ChatController::undoChanged);
        QVERIFY(m_chat->deleteConversation(id));
        m_chat->dismissUndo();
        QVERIFY(!m_chat->canUndoDelete());
        QVERIFY(!m_chat->undoDelete());
        QCOMPARE(m_chat->conversations()->count(), 0);
        QCOMPARE(undo.count(), 2);
        QVERIFY(m_chat->store()->restoreConversation(id));
        m_chat->openConversation(id);
        QVERIFY(m_chat->deleteConversation(id));
        QVERIFY(m_chat->canUndoDelete());
        QVERIFY(m_chat->undoDelete());
        QCOMPARE(m_chat->conversationId(), id);
    }

    void searchAndExport()
    {
        m_chat->setSearchText(QStringLiteral("flames"));
        QCOMPARE(m_chat->conversations()->count(), 1);
        m_chat->setSearchText(QStringLiteral("zzzunlikelyword"));
        QCOMPARE(m_chat->conversations()->count(), 0);
        m_chat->setSearchText(QString());

        const QString markdown = m_dir.filePath(QStringLiteral("chat.md"));
        QCOMPARE(m_chat->exportConversation(m_chat->conversationId(), QUrl::fromLocalFile(markdown), QStringLiteral("markdown")), markdown);
        QFile file(markdown);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QVERIFY(file.readAll().contains("Hello, who are you?"));
        const QString json = m_dir.filePath(QStringLiteral("chat.json"));
        QCOMPARE(m_chat->exportConversation(m_chat->conversationId(), QUrl::fromLocalFile(json), QStringLiteral("json")), json);
        QVERIFY(QFileInfo(json).size() > 0);
    }

    void perChatSettingsAreStored()
    {
        m_chat->setSystemPrompt(QStringLiteral("You are terse."));
        QVariantMap sampling = m_chat->sampling();
        sampling.insert(QStringLiteral("temperature"), 0.25);
        m_chat->setSampling(sampling);
        const auto stored = m_chat->store()->conversation(m_chat->conversationId());
        QVERIFY(stored);
        QCOMPARE(stored->systemPrompt, QStringLiteral("You are terse."));
        QCOMPARE(stored->sampling.value(QStringLiteral("temperature")).toDouble(), 0.25);
        QCOMPARE(stored->modelPath, m_model);
    }

    // The meter is the open chat's: live while it answers, its own count when opened, never
    // the chat shown before.
    void contextMeterFollowsTheOpenChat()
    {
        QVERIFY(waitReady());
        QList<int> whileStreaming;
        connect(m_chat.get(), &ChatController::contextChanged, this, [&] {
            if (m_chat->session()->state() == ModelSession::State::Generating)
                whileStreaming.append(m_chat->contextUsed());
        });
        newChat();
        m_chat->setMaxTokens(8); // a new chat starts from the default settings
        m_chat->send(QStringLiteral("Tell me a long story about a little flame that lived in a lamp by the sea, "
                                    "and the fisherman who carried it home every night."));
        QVERIFY(waitReady());
        disconnect(m_chat.get(), &ChatController::contextChanged, this, nullptr);
        QVERIFY2(!whileStreaming.isEmpty() && whileStreaming.constLast() > 0, "the meter stayed at 0 while streaming");
        const qint64 longChat = m_chat->conversationId();
        const int longUse = m_chat->contextUsed();
        QVERIFY(longUse > 20);

        newChat();
        QCOMPARE(m_chat->contextUsed(), 0); // an empty chat: nothing of the previous one
        QTRY_COMPARE(m_chat->contextUsed(), 0);
        m_chat->setMaxTokens(8);
        m_chat->send(QStringLiteral("Hi"));
        QVERIFY(waitReady());
        const qint64 shortChat = m_chat->conversationId();
        const int shortUse = m_chat->contextUsed();
        QVERIFY2(shortUse > 0 && shortUse < longUse, qPrintable(QStringLiteral("%1 vs %2").arg(shortUse).arg(longUse)));

        // Opened again, each chat shows its own count, measured by the worker.
        m_chat->openConversation(longChat);
        QVERIFY(m_chat->contextUsed() == 0 || m_chat->contextUsed() > shortUse);
        QTRY_VERIFY(m_chat->contextUsed() > shortUse);
        // Rendered again, the answer is counted as the next prompt will hold it (end-of-turn marks,
        // text tokenized afresh): within a few tokens of the count at the end of the answer.
        QVERIFY2(std::abs(m_chat->contextUsed() - longUse) <= std::max(8, longUse / 10), qPrintable(QStringLiteral("%1 vs %2").arg(m_chat->contextUsed()).arg(longUse)));
        m_chat->openConversation(shortChat);
        QTRY_VERIFY(m_chat->contextUsed() > 0 && m_chat->contextUsed() < longUse);

        // Deleting the open chat leaves an empty one, not the deleted chat's count.
        QVERIFY(m_chat->deleteConversation(shortChat));
        QTRY_VERIFY(m_chat->contextUsed() != shortUse || m_chat->conversationId() != 0);
        if (m_chat->conversationId() == 0)
            QCOMPARE(m_chat->contextUsed(), 0);
    }

    void earlierThinkingStaysOutOfThePrompt()
    {
        // A reasoning model's earlier answer goes back to it without its <think> part: the
        // measured prompt of a chat whose answer thought at length is the prompt of the same
        // chat with the bare answer.
        QVERIFY(waitReady());
        hearth::ChatStore* store = m_chat->store();
        const auto measure = [&](const QString& answer) {
            const auto id = store->createConversation(QStringLiteral("thinking"));
            const auto question = id ? store->addMessage(*id, 0, QStringLiteral("user"), QStringLiteral("Why is the sky blue?")) : std::nullopt;
            if (!question || !store->addMessage(*id, *question, QStringLiteral("assistant"), answer))
                return -1;
            // The worker's count for this chat, not the meter's value from the one before.
            int tokens = -1;
            const auto connection = connect(m_chat->session(), &ModelSession::contextMeasured, this,
                                            [&](qint64 conversation, int count) {
                                                if (conversation == *id)
                                                    tokens = count;
                                            });
            m_chat->openConversation(*id);
            (void)QTest::qWaitFor([&] { return tokens >= 0; }, 30000); // -1 on a timeout
            disconnect(connection);
            return tokens;
        };
        const QString bare = QStringLiteral("Sunlight scatters off the air, blue the most.");
        QString thought = QStringLiteral("<think>");
        for (int i = 0; i < 20; ++i)
            thought += QStringLiteral("The user asks about the colour of the sky; think of Rayleigh scattering. ");
        thought += QStringLiteral("</think>\n\n");
        const int withoutThinking = measure(bare);
        const int withThinking = measure(thought + bare);
        QVERIFY(withoutThinking > 0);
        QCOMPARE(withThinking, withoutThinking);
        // The chat still shows the thinking (folded away), and keeps it in the store.
        QVERIFY(m_chat->messages()->at(1).content.startsWith(QStringLiteral("<think>")));
    }

    void longChatsLeaveTheOldestOutOrStop()
    {
        // The tiny model's context is short: a few turns outgrow it. By default the oldest turns
        // are left out (and the window says so); with "stop" the answer fails with advice.
        newChat();
        m_chat->setMaxTokens(8);
        QCOMPARE(m_chat->sampling().value(QStringLiteral("context_overflow")).toString(), QStringLiteral("drop_oldest"));
        for (int turn = 0; turn < 40 && m_chat->contextNote().isEmpty(); ++turn) {
            m_chat->send(QStringLiteral("Tell me about the lamp %1.").arg(turn));
            QVERIFY(waitReady());
            QCOMPARE(m_chat->errorText(), QString());
        }
        QVERIFY2(!m_chat->contextNote().isEmpty(), "the chat never outgrew the context");
        QVERIFY(m_chat->contextNote().contains(QStringLiteral("left out")));
        hearth::ChatStore* store = m_chat->store();
        const qint64 conversation = m_chat->conversationId();
        QVERIFY(isAnswered(store->activePath(conversation).last()));

        QVariantMap sampling = m_chat->sampling();
        sampling.insert(QStringLiteral("context_overflow"), QStringLiteral("stop"));
        m_chat->setSampling(sampling);
        QCOMPARE(hearth::app::SamplingSettings::fromJson(store->conversation(conversation)->sampling).dropOldestTurns, false);
        m_chat->send(QStringLiteral("And then?"));
        QVERIFY(waitReady());
        QCOMPARE(store->activePath(conversation).last().state, hearth::MessageState::Error);
        QVERIFY2(store->activePath(conversation).last().errorText.contains(QStringLiteral("no longer fits")),
                 qPrintable(store->activePath(conversation).last().errorText));
    }

    void reasoningIsKeptPerChat()
    {
        // Chat Settings' Reasoning is one of the chat's settings: stored with it, and a value
        // no template knows is not kept.
        newChat();
        QCOMPARE(m_chat->sampling().value(QStringLiteral("reasoning_effort")).toString(), QString());
        QVariantMap sampling = m_chat->sampling();
        sampling.insert(QStringLiteral("reasoning_effort"), QStringLiteral("off"));
        m_chat->setSampling(sampling);
        m_chat->setMaxTokens(2);
        m_chat->send(QStringLiteral("Hello?"));
        QVERIFY(waitReady());
        const qint64 conversation = m_chat->conversationId();
        QCOMPARE(hearth::app::SamplingSettings::fromJson(m_chat->store()->conversation(conversation)->sampling).reasoning,
                 QStringLiteral("off"));
        sampling.insert(QStringLiteral("reasoning_effort"), QStringLiteral("lots"));
        m_chat->setSampling(sampling);
        QCOMPARE(m_chat->sampling().value(QStringLiteral("reasoning_effort")).toString(), QString());
    }

    void answerCutOffAtTheLimitSaysSo()
    {
        newChat();
        m_chat->setMaxTokens(2);
        m_chat->send(QStringLiteral("Tell me everything about lamps."));
        QVERIFY(waitReady());
        const hearth::StoredMessage answer = m_chat->store()->activePath(m_chat->conversationId()).last();
        QCOMPARE(answer.stats.tokens, 2);
        QCOMPARE(answer.state, hearth::MessageState::LengthLimit);
        QCOMPARE(m_chat->messages()->at(1).state, QStringLiteral("length_limit"));
        // Kept so in the store and said so in an export.
        const QString markdown = m_dir.filePath(QStringLiteral("cut.md"));
        QCOMPARE(m_chat->exportConversation(m_chat->conversationId(), QUrl::fromLocalFile(markdown),
                     QStringLiteral("markdown")),
            markdown);
        QFile exported(markdown);
        QVERIFY(exported.open(QIODevice::ReadOnly));
        QVERIFY(QString::fromUtf8(exported.readAll()).contains(QStringLiteral("cut off at the length limit")));
    }

    void continueGoesOnWhereTheAnswerEnded()
    {
        newChat();
        m_chat->setMaxTokens(5);
        m_chat->send(QStringLiteral("Tell me about candles."));
        QVERIFY(waitReady());
        QCOMPARE(m_chat->messages()->at(1).state, QStringLiteral("length_limit"));
        const QString cut = m_chat->messages()->at(1).content;
        const double firstToken = m_chat->messages()->at(1).timeToFirstTokenMs;

        m_chat->setMaxTokens(7);
        bool streamedAgain = false;
        const auto connection = connect(m_chat.get(), &ChatController::answerToken, this, [&] {
            // The same row streams again, its text so far kept in the store.
            const hearth::StoredMessage row = m_chat->store()->activePath(m_chat->conversationId()).last();
            streamedAgain = streamedAgain || (row.state == hearth::MessageState::Streaming && row.content.startsWith(cut));
        });
        m_chat->continueAnswer(1);
        QCOMPARE(m_chat->messages()->at(1).state, QStringLiteral("streaming"));
        QVERIFY(waitReady());
        disconnect(connection);
        QVERIFY(streamedAgain);
        QCOMPARE(m_chat->messages()->rowCount(), 2);
        const hearth::StoredMessage answer = m_chat->store()->activePath(m_chat->conversationId()).last();
        QVERIFY(answer.content.startsWith(cut) && answer.content.size() > cut.size());
        QCOMPARE(m_chat->messages()->at(1).content, answer.content);
        // This random model does not end its turn this early: both parts ran to their limits.
        QCOMPARE(answer.stats.tokens, 12);
        QCOMPARE(answer.state, hearth::MessageState::LengthLimit);
        QCOMPARE(answer.stats.timeToFirstTokenMs, firstToken);
        QCOMPARE(m_chat->store()->siblings(answer.id).count(), 1); // no new alternative

        // Only the newest answer, and only one cut off or stopped: otherwise nothing happens.
        m_chat->setMaxTokens(16);
        m_chat->send(QStringLiteral("And lamps?"));
        QVERIFY(waitReady());
        const int last = m_chat->messages()->rowCount() - 1;
        const QString lastText = m_chat->messages()->at(last).content;
        m_chat->continueAnswer(1);
        QCOMPARE(m_chat->session()->state(), ModelSession::State::Ready);
        m_chat->continueAnswer(last - 1); // a question
        QCOMPARE(m_chat->session()->state(), ModelSession::State::Ready);
        QCOMPARE(m_chat->messages()->at(last).content, lastText);
        QCOMPARE(m_chat->store()->activePath(m_chat->conversationId()).at(1).content, answer.content);
    }

    // On a model that writes text (../shared's stories260K), greedily: an answer cut off and
    // continued is the answer that never was cut off.
    void continuedAnswerEqualsAnUncutOne()
    {
        const QString shared = QStringLiteral(HEARTH_SHARED_DIR "/models/stories260K.gguf");
        if (!QFileInfo::exists(shared))
            QSKIP("../shared/models/stories260K.gguf is absent");
        hearth::test::ChatWithSession chat;
        QVERIFY(chat.openStore(m_dir.filePath(QStringLiteral("stories.sqlite"))));
        chat.session()->loadModel(shared);
        const auto ready = [&] {
            return QTest::qWaitFor([&] { return chat.session()->state() == ModelSession::State::Ready; }, 60000);
        };
        QVERIFY(ready());
        QVariantMap greedy = chat.sampling();
        greedy.insert(QStringLiteral("temperature"), 0.0);
        chat.setSampling(greedy);
        chat.setMaxTokens(24);
        chat.send(QStringLiteral("Once upon a time"));
        QVERIFY(ready());
        const QString whole = chat.messages()->at(1).content;

        chat.newConversation();
        chat.setSampling(greedy); // a new chat starts from the settings' defaults
        chat.setMaxTokens(9);
        chat.send(QStringLiteral("Once upon a time"));
        QVERIFY(ready());
        QCOMPARE(chat.messages()->at(1).state, QStringLiteral("length_limit"));
        chat.setMaxTokens(15);
        chat.continueAnswer(1);
        QVERIFY(ready());
        QVERIFY2(chat.messages()->at(1).content == whole,
            qPrintable(chat.messages()->at(1).content + QStringLiteral(" | ") + whole));
        QCOMPARE(chat.store()->activePath(chat.conversationId()).last().stats.tokens, 24);
    }

    void answerThatFillsTheContextSaysSoAndContinues()
    {
        // A vocabulary of 16000 random tokens: sampled, the end of turn is as good as never picked,
        // so without a length limit the model writes until its context (256 tokens) is full.
        const QString model = hearth::test::makeTinyModel(m_dir.path(), QStringLiteral("tiny"),
            { QStringLiteral("--vocab"), QStringLiteral("16000") });
        if (model.isEmpty())
            QSKIP("hearth-synth is not built");
        hearth::test::ChatWithSession chat;
        QVERIFY(chat.openStore(m_dir.filePath(QStringLiteral("full.sqlite"))));
        chat.session()->loadModel(model);
        const auto ready = [&] {
            return QTest::qWaitFor([&] { return chat.session()->state() == ModelSession::State::Ready; }, 60000);
        };
        QVERIFY(ready());
        const int context = chat.session()->contextLength();
        // A new chat starts with a random seed: the fixed one, for the same tokens on every run.
        const auto ask = [&](const QString& question, int maxTokens) {
            QVariantMap seeded = chat.sampling();
            seeded.insert(QStringLiteral("seed"), 1);
            chat.setSampling(seeded);
            chat.setMaxTokens(maxTokens);
            chat.send(question);
            return ready();
        };
        const auto answerToTheEnd = [&](const QString& question) { return ask(question, 4 * context); };
        const auto last = [&] { return chat.store()->activePath(chat.conversationId()).last(); };
        QVERIFY(answerToTheEnd(QStringLiteral("Tell me everything.")));
        QCOMPARE(chat.messages()->at(1).state, QStringLiteral("context_full"));
        QCOMPARE(chat.contextUsed(), context);
        QCOMPARE(last().state, hearth::MessageState::ContextFull);
        // With nothing older to leave out, Continue cannot make room: the answer stays as it
        // was, and the error bar says why.
        const hearth::StoredMessage alone = last();
        chat.continueAnswer(1);
        QVERIFY(ready());
        QVERIFY2(chat.errorText().contains(QStringLiteral("no longer fits")), qPrintable(chat.errorText()));
        QCOMPARE(last().state, hearth::MessageState::ContextFull);
        QCOMPARE(last().content, alone.content);
        QCOMPARE(last().stats.tokens, alone.stats.tokens);
        QCOMPARE(chat.messages()->at(1).state, QStringLiteral("context_full"));

        // After an earlier exchange, Continue leaves that out and the answer goes on.
        chat.newConversation();
        QVERIFY(ask(QStringLiteral("Hello."), 8));
        QVERIFY(answerToTheEnd(QStringLiteral("Now tell me everything.")));
        QCOMPARE(chat.messages()->at(3).state, QStringLiteral("context_full"));
        const hearth::StoredMessage cut = last();
        chat.continueAnswer(3);
        QVERIFY(ready());
        QCOMPARE(chat.errorText(), QString());
        QVERIFY(!chat.contextNote().isEmpty()); // it says that older messages were left out
        const hearth::StoredMessage continued = last();
        QCOMPARE(continued.id, cut.id);
        QVERIFY2(continued.content.startsWith(cut.content) && continued.content.size() > cut.content.size(),
            qPrintable(continued.content));
        QVERIFY(continued.stats.tokens > cut.stats.tokens);
        QCOMPARE(continued.state, hearth::MessageState::ContextFull);
    }

    void guessingAheadKeepsTheAnswers()
    {
        // Greedy answers are the same whether the model guesses ahead or not; the choice is
        // remembered for the file and comes back with it; a draft model of another vocabulary
        // is refused with a reason, and answers go on without it.
        hearth::app::AppSettings settings(m_dir.filePath(QStringLiteral("speculation.ini")));
        hearth::test::ChatWithSession chat;
        QVERIFY(chat.openStore(m_dir.filePath(QStringLiteral("speculation.sqlite"))));
        chat.session()->setSettings(&settings);
        chat.setSettings(&settings);
        const auto ready = [&] {
            return QTest::qWaitFor([&] { return chat.session()->state() == ModelSession::State::Ready; }, 60000);
        };
        chat.session()->loadModel(m_model);
        QVERIFY(ready());
        const auto answer = [&] {
            chat.newConversation();
            QVariantMap greedy = chat.sampling();
            greedy.insert(QStringLiteral("temperature"), 0.0);
            chat.setSampling(greedy);
            chat.setMaxTokens(24);
            chat.send(QStringLiteral("Once upon a time"));
            return ready() ? chat.messages()->at(1).content : QStringLiteral("(no answer)");
        };
        const QString plain = answer();
        QVERIFY(!plain.isEmpty());
        QCOMPARE(chat.session()->speculationResult(), QString());

        for (const QString& choice : {QStringLiteral("lookup"), m_model}) {
            chat.session()->applySpeculation(choice);
            QCOMPARE(chat.session()->speculation(), choice);
            QCOMPARE(settings.speculation(m_model), choice);
            QCOMPARE(answer(), plain);
            QCOMPARE(chat.session()->speculationError(), QString());
        }
        // stories260K (../shared) is sure of its next words often enough for its own guesses to count.
        if (m_model.endsWith(QStringLiteral("stories260K.gguf")))
            QVERIFY2(chat.session()->speculationResult().contains(QStringLiteral("were right")),
                     qPrintable(chat.session()->speculationResult()));

        // Loaded again, the model guesses ahead as it did.
        chat.session()->loadModel(m_model);
        QVERIFY(ready());
        QCOMPARE(chat.session()->speculation(), m_model);
        QCOMPARE(answer(), plain);

        // Another vocabulary: refused, said so, and the answers go on.
        const QString other = hearth::test::makeTinyModel(m_dir.path(), QStringLiteral("tiny"), { QStringLiteral("--vocab"), QStringLiteral("2000") });
        if (other.isEmpty())
            QSKIP("hearth-synth is not built");
        chat.session()->applySpeculation(other);
        QTRY_VERIFY_WITH_TIMEOUT(!chat.session()->speculationError().isEmpty(), 60000);
        QVERIFY2(chat.session()->speculationError().contains(QStringLiteral("vocabulary")), qPrintable(chat.session()->speculationError()));
        QCOMPARE(answer(), plain);
        chat.session()->applySpeculation(QString());
        QTRY_COMPARE_WITH_TIMEOUT(chat.session()->speculationError(), QString(), 60000);
        QCOMPARE(settings.speculation(m_model), QString());
        chat.session()->setSettings(nullptr);
        chat.setSettings(nullptr);
    }

    void deletingTheAnsweringChatIsRefused()
    {
        newChat();
        m_chat->setMaxTokens(400);
        m_chat->send(QStringLiteral("Tell me a long story."));
        QCOMPARE(m_chat->session()->state(), ModelSession::State::Generating);
        const qint64 id = m_chat->conversationId();
        QVERIFY(!m_chat->deleteConversation(id));
        QVERIFY(m_chat->errorText().contains(QStringLiteral("stop the answer")));
        m_chat->stop();
        QVERIFY(waitReady());
        QVERIFY(m_chat->store()->conversation(id).has_value());
        QVERIFY(m_chat->deleteConversation(id));
        QVERIFY(m_chat->undoDelete());
    }

    void deleteOneMessage()
    {
        // Deleting a message in the middle keeps the ones around it and frees its context.
        newChat();
        m_chat->setMaxTokens(4);
        m_chat->send(QStringLiteral("First question"));
        QVERIFY(waitReady());
        m_chat->send(QStringLiteral("Second question"));
        QVERIFY(waitReady());
        QTRY_VERIFY(m_chat->contextUsed() > 0);
        const int before = m_chat->contextUsed();
        QCOMPARE(m_chat->messages()->rowCount(), 4);
        const QString lastQuestion = m_chat->messages()->at(2).content;
        QVERIFY(m_chat->deleteMessage(1)); // the first answer
        QCOMPARE(m_chat->messages()->rowCount(), 3);
        QCOMPARE(m_chat->messages()->at(1).content, lastQuestion);
        QTRY_VERIFY(m_chat->contextUsed() > 0 && m_chat->contextUsed() < before);
        QVERIFY(!m_chat->deleteMessage(7));
        QCOMPARE(m_chat->store()->activePath(m_chat->conversationId()).size(), 3);
    }

    void contextLengthIsChosenAndRemembered()
    {
        // A model trained on 2048 tokens offers 1024 and 2048; a choice starts a new session of
        // that length, keeps the conversation and is remembered for the file.
        const QString longer = hearth::test::makeTinyModel(m_dir.path(), QStringLiteral("llama3-tiny"));
        if (longer.isEmpty())
            QSKIP("hearth-synth is not built");
        hearth::app::AppSettings settings(m_dir.filePath(QStringLiteral("settings.ini")));
        m_chat->session()->setSettings(&settings);
        m_chat->setSettings(&settings);
        m_chat->session()->loadModel(longer);
        QVERIFY(waitReady());
        QCOMPARE(m_chat->session()->contextLength(), 2048);
        QCOMPARE(m_chat->session()->contextLengthChoices(), (QList<int> { 1024, 2048 }));
        // 2 layers x 2 x 32 halves a token: 256 bytes, so 1024 tokens take 256 KiB.
        QVERIFY2(m_chat->session()->contextLengthLabel(1024).contains(QStringLiteral("1024")), qPrintable(m_chat->session()->contextLengthLabel(1024)));
        QVERIFY2(m_chat->session()->contextLengthLabel(1024).contains(QStringLiteral("256")), qPrintable(m_chat->session()->contextLengthLabel(1024)));
        newChat();
        m_chat->send(QStringLiteral("Hello"));
        QVERIFY(waitReady());
        const qint64 conversation = m_chat->conversationId();
        m_chat->session()->applyContextLength(1024);
        QTRY_COMPARE_WITH_TIMEOUT(m_chat->session()->contextLength(), 1024, 60000);
        QVERIFY(waitReady());
        QCOMPARE(m_chat->conversationId(), conversation);
        QCOMPARE(settings.contextLength(longer), 1024);
        // Loaded again, the file gets its length back.
        m_chat->session()->loadModel(m_model);
        QVERIFY(waitReady());
        m_chat->session()->loadModel(longer);
        QVERIFY(waitReady());
        QCOMPARE(m_chat->session()->contextLength(), 1024);
        m_chat->session()->setSettings(nullptr);
        m_chat->setSettings(nullptr);
        m_chat->session()->loadModel(m_model);
        QVERIFY(waitReady());
    }

    void fasterSparsePromptsReachTheNextLoad()
    {
        // Settings' "Faster prompts" is remembered and applies from the next load of a sparse
        // model, whose status line then says what the copies cost.
        const QString sparse = hearth::test::makeTinyModel(m_dir.path(), QStringLiteral("tiny"),
            { QStringLiteral("--ffn"), QStringLiteral("reglu"), QStringLiteral("--sparsity"), QStringLiteral("0.5") });
        if (sparse.isEmpty())
            QSKIP("hearth-synth is not built");
        const QString ini = m_dir.filePath(QStringLiteral("prompt-copies.ini"));
        {
            hearth::app::AppSettings settings(ini);
            QVERIFY(!settings.fastSparsePrompts());
            settings.setFastSparsePrompts(true);
        }
        hearth::app::AppSettings settings(ini);
        QVERIFY(settings.fastSparsePrompts());
        m_chat->session()->setSettings(&settings);
        m_chat->session()->loadModel(sparse);
        QVERIFY(waitReady());
        QVERIFY2(m_chat->session()->modelDescription().contains(QStringLiteral("faster prompts")),
                 qPrintable(m_chat->session()->modelDescription()));
        settings.setFastSparsePrompts(false);
        m_chat->session()->loadModel(sparse);
        QVERIFY(waitReady());
        QVERIFY(!m_chat->session()->modelDescription().contains(QStringLiteral("faster prompts")));
        m_chat->session()->setSettings(nullptr);
        m_chat->session()->loadModel(m_model);
        QVERIFY(waitReady());
    }

    void kvCacheTypeIsChosenAndRemembered()
    {
        // Heads of 32 suit Q8_0's blocks. The choice holds for every model, starts a new session
        // that keeps the conversation, and the context lengths show the smaller cache.
        const QString model = hearth::test::makeTinyModel(m_dir.path(), QStringLiteral("qwen3-tiny"));
        if (model.isEmpty())
            QSKIP("hearth-synth is not built");
        hearth::app::AppSettings settings(m_dir.filePath(QStringLiteral("kv-settings.ini")));
        m_chat->session()->setSettings(&settings);
        m_chat->setSettings(&settings);
        QCOMPARE(m_chat->session()->kvCacheType(), QStringLiteral("f16"));
        m_chat->session()->loadModel(model);
        QVERIFY(waitReady());
        // 2 layers x K and V x 2 heads of 32: 512 bytes a token in F16, 272 in Q8_0.
        QVERIFY2(m_chat->session()->contextLengthLabel(1024).contains(QStringLiteral("512")), qPrintable(m_chat->session()->contextLengthLabel(1024)));
        newChat();
        m_chat->send(QStringLiteral("Hello"));
        QVERIFY(waitReady());
        const qint64 conversation = m_chat->conversationId();
        m_chat->session()->applyKvCacheType(QStringLiteral("q8_0"));
        QCOMPARE(m_chat->session()->kvCacheType(), QStringLiteral("q8_0"));
        QTRY_VERIFY_WITH_TIMEOUT(m_chat->session()->contextLengthLabel(1024).contains(QStringLiteral("272")), 60000);
        QVERIFY(waitReady());
        QCOMPARE(m_chat->conversationId(), conversation);
        QCOMPARE(settings.kvCacheType(), QStringLiteral("q8_0"));
        QCOMPARE(m_chat->session()->kvCacheTypeInUse(), QStringLiteral("q8_0"));
        m_chat->send(QStringLiteral("And again"));
        QVERIFY(waitReady());
        QCOMPARE(m_chat->errorText(), QString());
        // A name the engine does not know is not stored.
        settings.setKvCacheType(QStringLiteral("q2"));
        QCOMPARE(settings.kvCacheType(), QStringLiteral("q8_0"));
        // A model whose heads (16 wide) do not suit Q8_0's blocks keeps F16, and says so.
        m_chat->session()->loadModel(m_model);
        QVERIFY(waitReady());
        QCOMPARE(m_chat->session()->kvCacheTypeInUse(), QStringLiteral("f16"));
        m_chat->session()->setSettings(nullptr);
        m_chat->setSettings(nullptr);
        m_chat->session()->loadModel(m_model);
        QVERIFY(waitReady());
    }

    void runawayTemplateIsReportedAndTheChatGoesOn()
    {
        // The window says once that the model's template was replaced; the answer still comes,
        // is stored, and loading another model clears the notice.
        const QString runaway = hearth::test::makeTinyModelWithTemplate(m_dir.path(), QStringLiteral("runaway"),
            hearth::test::runawayChatTemplate);
        if (runaway.isEmpty())
            QSKIP("hearth-synth is not built");
        m_chat->session()->loadModel(runaway);
        QVERIFY(waitReady());
        QCOMPARE(m_chat->session()->chatTemplateNotice(), QString());
        newChat();
        m_chat->setMaxTokens(4);
        m_chat->send(QStringLiteral("Hello"));
        QVERIFY(waitReady());
        QTRY_VERIFY(!m_chat->session()->chatTemplateNotice().isEmpty());
        QVERIFY2(m_chat->session()->chatTemplateNotice().contains(QStringLiteral("llama2")), qPrintable(m_chat->session()->chatTemplateNotice()));
        QCOMPARE(m_chat->errorText(), QString());
        const auto messages = m_chat->store()->activePath(m_chat->conversationId());
        QCOMPARE(messages.size(), 2);
        QVERIFY(isAnswered(messages.last()));

        m_chat->session()->loadModel(m_model);
        QVERIFY(waitReady());
        QCOMPARE(m_chat->session()->chatTemplateNotice(), QString());
    }

    // The store holds the streaming answer's one copy: a chat opened again mid-answer shows every
    // piece so far, and the finished answer is exactly the pieces.
    void reopenedChatShowsTheStreamingAnswer()
    {
        m_chat->setMaxTokens(24);
        newChat();
        QString streamed;
        qint64 answering = 0;
        bool reopened = false;
        connect(m_chat.get(), &ChatController::answerToken, this, [&](const QString& text) {
            streamed += text;
            if (reopened || streamed.size() < 2)
                return;
            reopened = true;
            answering = m_chat->conversationId();
            m_chat->newConversation(); // away from the answer, and back
            m_chat->openConversation(answering);
            const MessageModel* rows = m_chat->messages();
            QCOMPARE(rows->rowCount(), 2);
            QCOMPARE(rows->at(1).content, streamed);
        });
        QSignalSpy completed(m_chat.get(), &ChatController::answerCompleted);
        m_chat->send(QStringLiteral("Tell me a story."));
        QVERIFY(completed.wait(60000));
        disconnect(m_chat.get(), &ChatController::answerToken, this, nullptr);
        QVERIFY(reopened);
        QCOMPARE(completed.first().at(0).toString(), streamed);
        QCOMPARE(m_chat->messages()->at(1).content, streamed);
        QCOMPARE(m_chat->store()->activePath(answering).at(1).content, streamed);
        m_chat->setMaxTokens(16);
        QVERIFY(waitReady());
    }

    // The model's session answers on its own (as for any other caller): the answer's signals carry
    // the id generate() returned, it answers one request at a time, and the open chat, which
    // did not ask, keeps its rows and its store.
    void sessionAnswersRequestsByTheirId()
    {
        ModelSession* session = m_chat->session();
        QVERIFY(waitReady());
        const int rows = m_chat->messages()->rowCount();
        const int stored = int(m_chat->store()->allMessages(m_chat->conversationId()).size());
        QSignalSpy tokens(session, &ModelSession::tokenGenerated);
        QSignalSpy finished(session, &ModelSession::answerFinished);
        QSignalSpy completed(m_chat.get(), &ChatController::answerCompleted);
        hearth::app::SamplingSettings sampling;
        sampling.maxTokens = 4;
        sampling.seed = 1;
        const QList<hearth::app::ChatTurn> turns { { QStringLiteral("user"), QStringLiteral("Hi") } };
        const quint64 id = session->generate(turns, sampling);
        QVERIFY(id != 0);
        QCOMPARE(session->state(), ModelSession::State::Generating);
        QCOMPARE(session->generate(turns, sampling), quint64(0)); // busy: refused, not queued
        QVERIFY(finished.wait(60000));
        QCOMPARE(finished.first().at(0).toULongLong(), id);
        QVERIFY(!tokens.isEmpty());
        for (const QList<QVariant>& token : std::as_const(tokens))
            QCOMPARE(token.at(0).toULongLong(), id);
        QCOMPARE(session->state(), ModelSession::State::Ready);
        QVERIFY(session->lastTokensPerSecond() > 0);
        QCOMPARE(completed.count(), 0);
        QCOMPARE(m_chat->messages()->rowCount(), rows);
        QCOMPARE(int(m_chat->store()->allMessages(m_chat->conversationId()).size()), stored);
    }
};

QTEST_MAIN(TestChatController)
#include "tst_chat_controller.moc"
