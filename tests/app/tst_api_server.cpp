// SPDX-License-Identifier: MIT
// The OpenAI-compatible API server over a real engine thread and a real model, through real
// HTTP on loopback: its error paths (key, bodies, sizes, no model, a taken port, a full queue),
// stop sequences cut across tokens, and requests of the window and of the server that share the
// engine without seeing each other's turns.

#include "apiserver.h"
#include "app_test_support.h"
#include "engine_thread.h"
#include "stopsequencefilter.h"

#include <QEventLoop>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <semaphore>

using hearth::app::AnswerStats;
using hearth::app::ChatTurn;
using hearth::app::EngineThread;
using hearth::app::EngineWorker;
using hearth::app::SamplingSettings;
using hearth::openai::ApiServer;
using hearth::openai::ApiServerOptions;
using hearth::openai::StopSequenceFilter;

namespace {
const QString Key = QStringLiteral("secret-key");

struct Reply
{
    int status = 0;
    QJsonObject json;
    QByteArray body;
};
} // namespace

class TestApiServer : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::unique_ptr<EngineThread> m_engine;
    std::unique_ptr<ApiServer> m_server;
    QNetworkAccessManager m_network;

    QUrl url(const QString& path, const ApiServer* server = nullptr) const
    {
        return QUrl(QStringLiteral("http://127.0.0.1:%1%2").arg((server ? server : m_server.get())->port()).arg(path));
    }

    Reply call(const QUrl& target, const QByteArray& body, const QString& key = Key, bool post = true)
    {
        QNetworkRequest request(target);
        request.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
        if (!key.isEmpty())
            request.setRawHeader("Authorization", "Bearer " + key.toUtf8());
        QNetworkReply* reply = post ? m_network.post(request, body) : m_network.get(request);
        QEventLoop loop;
        connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
        loop.exec();
        Reply result;
        result.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        result.body = reply->readAll();
        result.json = QJsonDocument::fromJson(result.body).object();
        reply->deleteLater();
        return result;
    }

    Reply chat(const QJsonObject& body) { return call(url(QStringLiteral("/v1/chat/completions")), QJsonDocument(body).toJson()); }

    static QJsonObject question(const QString& text, int maxTokens = 8)
    {
        return { { QStringLiteral("messages"),
                     QJsonArray { QJsonObject { { QStringLiteral("role"), QStringLiteral("user") }, { QStringLiteral("content"), text } } } },
            { QStringLiteral("max_tokens"), maxTokens }, { QStringLiteral("temperature"), 0 } };
    }

    static QString content(const Reply& reply)
    {
        return reply.json.value(QLatin1String("choices")).toArray().first().toObject().value(QLatin1String("message")).toObject().value(QLatin1String("content")).toString();
    }

    bool loadModel(EngineThread& engine, const QString& path)
    {
        QSignalSpy loaded(engine.worker(), &EngineWorker::modelLoaded);
        engine.post([path](EngineWorker& worker) { worker.loadModel(path); });
        // The worker emits on its own thread: the spy may have it before any wait() begins.
        return QTest::qWaitFor([&] { return !loaded.isEmpty(); }, 60000);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        const QString model = hearth::test::makeTinyModel(m_dir.path());
        if (model.isEmpty())
            QSKIP("no test model: hearth-synth is not built and ../shared is absent");
        m_engine = std::make_unique<EngineThread>();
        QVERIFY(loadModel(*m_engine, model));
        m_server = std::make_unique<ApiServer>(*m_engine);
        ApiServerOptions options;
        options.port = 0;
        options.apiKey = Key;
        options.maxRequests = 2;
        options.maxBodyBytes = 64 * 1024;
        QVERIFY2(m_server->start(options), qPrintable(m_server->errorString()));
        QVERIFY(m_server->baseUrl().startsWith(QStringLiteral("http://127.0.0.1:")));
    }

    void cleanupTestCase()
    {
        m_server.reset();
        m_engine.reset();
    }

    void keyIsRequired()
    {
        const Reply none = call(url(QStringLiteral("/v1/models")), {}, QString(), false);
        QCOMPARE(none.status, 401);
        QCOMPARE(none.json.value(QLatin1String("error")).toObject().value(QLatin1String("code")).toString(), QStringLiteral("invalid_api_key"));
        QCOMPARE(call(url(QStringLiteral("/v1/models")), {}, QStringLiteral("secret-kez"), false).status, 401);
        QCOMPARE(call(url(QStringLiteral("/v1/models")), {}, QStringLiteral("secret-key-and-more"), false).status, 401);
        QCOMPARE(chat(question(QStringLiteral("hi"))).status, 200);
        // Health checks (load balancers, scripts waiting for the model) need no key.
        const Reply health = call(url(QStringLiteral("/health")), {}, QString(), false);
        QCOMPARE(health.status, 200);
        QCOMPARE(health.json.value(QLatin1String("status")).toString(), QStringLiteral("ok"));
    }

    void listsTheLoadedModel()
    {
        const Reply models = call(url(QStringLiteral("/v1/models")), {}, Key, false);
        QCOMPARE(models.status, 200);
        const QJsonArray data = models.json.value(QLatin1String("data")).toArray();
        QCOMPARE(data.size(), 1);
        QCOMPARE(data.first().toObject().value(QLatin1String("id")).toString(), QStringLiteral("tiny"));
        QVERIFY(data.first().toObject().value(QLatin1String("context_length")).toInt() > 0);
    }

    void badBodiesAreRefused_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<QString>("param");
        const QString chatPath = QStringLiteral("/v1/chat/completions");
        const QByteArray hi = R"("messages":[{"role":"user","content":"hi"}])";
        QTest::newRow("not JSON") << chatPath << QByteArray(R"({"messages": [)") << QString();
        QTest::newRow("not an object") << chatPath << QByteArray("[1, 2]") << QString();
        QTest::newRow("no messages") << chatPath << QByteArray("{}") << QStringLiteral("messages");
        QTest::newRow("messages not a list") << chatPath << QByteArray(R"({"messages":"hi"})") << QStringLiteral("messages");
        QTest::newRow("empty messages") << chatPath << QByteArray(R"({"messages":[]})") << QStringLiteral("messages");
        QTest::newRow("unknown role") << chatPath << QByteArray(R"({"messages":[{"role":"wizard","content":"hi"}]})") << QStringLiteral("messages[0].role");
        QTest::newRow("content a number") << chatPath << QByteArray(R"({"messages":[{"role":"user","content":5}]})") << QStringLiteral("messages[0].content");
        QTest::newRow("image part") << chatPath
                                    << QByteArray(R"({"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"x"}}]}]})")
                                    << QStringLiteral("messages[0].content");
        QTest::newRow("temperature a string") << chatPath << QByteArray("{" + hi + R"(,"temperature":"hot"})") << QStringLiteral("temperature");
        QTest::newRow("temperature too high") << chatPath << QByteArray("{" + hi + R"(,"temperature":3})") << QStringLiteral("temperature");
        QTest::newRow("top_p negative") << chatPath << QByteArray("{" + hi + R"(,"top_p":-0.5})") << QStringLiteral("top_p");
        QTest::newRow("max_tokens zero") << chatPath << QByteArray("{" + hi + R"(,"max_tokens":0})") << QStringLiteral("max_tokens");
        QTest::newRow("max_tokens a fraction") << chatPath << QByteArray("{" + hi + R"(,"max_tokens":1.5})") << QStringLiteral("max_tokens");
        QTest::newRow("max_tokens absurd") << chatPath << QByteArray("{" + hi + R"(,"max_tokens":1000000000})") << QStringLiteral("max_tokens");
        QTest::newRow("max_completion_tokens absurd") << chatPath << QByteArray("{" + hi + R"(,"max_completion_tokens":99999999})")
                                                      << QStringLiteral("max_completion_tokens");
        QTest::newRow("two answers") << chatPath << QByteArray("{" + hi + R"(,"n":2})") << QStringLiteral("n");
        QTest::newRow("stream not a bool") << chatPath << QByteArray("{" + hi + R"(,"stream":"yes"})") << QStringLiteral("stream");
        QTest::newRow("stop a number") << chatPath << QByteArray("{" + hi + R"(,"stop":5})") << QStringLiteral("stop");
        QTest::newRow("empty stop") << chatPath << QByteArray("{" + hi + R"(,"stop":[""]})") << QStringLiteral("stop");
        QTest::newRow("seed a string") << chatPath << QByteArray("{" + hi + R"(,"seed":"x"})") << QStringLiteral("seed");
        QTest::newRow("penalty out of range") << chatPath << QByteArray("{" + hi + R"(,"presence_penalty":7})") << QStringLiteral("presence_penalty");
        QTest::newRow("model not a string") << chatPath << QByteArray("{" + hi + R"(,"model":42})") << QStringLiteral("model");
        QTest::newRow("completion without prompt") << QStringLiteral("/v1/completions") << QByteArray("{}") << QStringLiteral("prompt");
        QTest::newRow("completion of two prompts") << QStringLiteral("/v1/completions") << QByteArray(R"({"prompt":["a","b"]})") << QStringLiteral("prompt");
        QTest::newRow("unknown reasoning effort") << QStringLiteral("/v1/chat/completions")
                                                  << QByteArray(R"({"messages":[{"role":"user","content":"hi"}],"reasoning_effort":"extreme"})")
                                                  << QStringLiteral("reasoning_effort");
    }

    void badBodiesAreRefused()
    {
        QFETCH(QString, path);
        QFETCH(QByteArray, body);
        QFETCH(QString, param);
        const Reply reply = call(url(path), body);
        QCOMPARE(reply.status, 400);
        const QJsonObject error = reply.json.value(QLatin1String("error")).toObject();
        QCOMPARE(error.value(QLatin1String("type")).toString(), QStringLiteral("invalid_request_error"));
        QVERIFY(!error.value(QLatin1String("message")).toString().isEmpty());
        if (!param.isEmpty())
            QCOMPARE(error.value(QLatin1String("param")).toString(), param);
        // Unknown fields are not errors: clients send many.
        QCOMPARE(call(url(QStringLiteral("/v1/chat/completions")),
                     R"({"messages":[{"role":"user","content":"hi"}],"max_tokens":2,"logit_bias":{},"user":"me","tools":[],"reasoning_effort":"low"})")
                     .status,
            200);
    }

    void tooLongAPromptIsA400()
    {
        const Reply reply = chat(question(QStringLiteral("word ").repeated(5000), 4));
        QCOMPARE(reply.status, 400);
        QCOMPARE(reply.json.value(QLatin1String("error")).toObject().value(QLatin1String("code")).toString(),
            QStringLiteral("context_length_exceeded"));
    }

    void largeBodiesAreRefused()
    {
        const Reply reply = chat(question(QString(100 * 1024, QLatin1Char('x'))));
        QCOMPARE(reply.status, 413);
        QVERIFY(reply.json.value(QLatin1String("error")).toObject().value(QLatin1String("message")).toString().contains(QLatin1String("too large")));
    }

    void unknownPathsAre404()
    {
        const Reply reply = call(url(QStringLiteral("/v1/embeddings")), "{}");
        QCOMPARE(reply.status, 404);
        QVERIFY(reply.json.contains(QLatin1String("error")));
    }

    void withoutAModelRequestsGet503()
    {
        EngineThread empty;
        ApiServer server(empty);
        ApiServerOptions options;
        options.port = 0;
        QVERIFY(server.start(options));
        QCOMPARE(call(url(QStringLiteral("/v1/models"), &server), {}, {}, false).json.value(QLatin1String("data")).toArray().size(), 0);
        const Reply reply = call(url(QStringLiteral("/v1/chat/completions"), &server), QJsonDocument(question(QStringLiteral("hi"))).toJson(), {});
        QCOMPARE(reply.status, 503);
        QVERIFY(reply.json.value(QLatin1String("error")).toObject().value(QLatin1String("message")).toString().contains(QLatin1String("No model")));
    }

    void aTakenPortIsAnError()
    {
        EngineThread engine;
        ApiServer second(engine);
        ApiServerOptions options;
        options.port = m_server->port();
        QVERIFY(!second.start(options));
        QVERIFY(!second.isRunning());
        QVERIFY(second.errorString().contains(QString::number(options.port)));
    }

    void aFullQueueAnswers503AndTheRestAreServed()
    {
        // Hold the engine: everything posted after this waits behind it, as behind a long answer.
        std::binary_semaphore release(0);
        m_engine->post([&release](EngineWorker&) { release.acquire(); });

        const int before = m_server->turnedAway();
        QList<QNetworkReply*> replies;
        QNetworkRequest request(url(QStringLiteral("/v1/chat/completions")));
        request.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
        request.setRawHeader("Authorization", "Bearer " + Key.toUtf8());
        for (int i = 0; i < 2; ++i)
            replies.append(m_network.post(request, QJsonDocument(question(QStringLiteral("first %1").arg(i))).toJson()));
        // Both admitted ones wait; the server counts them before the third arrives.
        QTRY_COMPARE(call(url(QStringLiteral("/health")), {}, {}, false).json.value(QLatin1String("requests_active")).toInt(), 2);
        const Reply busy = chat(question(QStringLiteral("third")));
        QCOMPARE(busy.status, 503);
        QCOMPARE(m_server->turnedAway(), before + 1);
        release.release();
        for (QNetworkReply* reply : std::as_const(replies)) {
            if (!reply->isFinished())
                QVERIFY(QSignalSpy(reply, &QNetworkReply::finished).wait(30000));
            QCOMPARE(reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 200);
            reply->deleteLater();
        }
        QCOMPARE(chat(question(QStringLiteral("third"))).status, 200);
    }

    void windowAndServerDoNotSeeEachOthersTurns()
    {
        // Alone first: the window's answer to its chat, and the server's to its request.
        SamplingSettings greedy;
        greedy.temperature = 0;
        greedy.maxTokens = 10;
        greedy.seed = 3;
        const QList<ChatTurn> windowChat { { QStringLiteral("user"), QStringLiteral("The window asks about the moon.") } };
        QSignalSpy tokens(m_engine->worker(), &EngineWorker::tokenGenerated);
        QSignalSpy finished(m_engine->worker(), &EngineWorker::answerFinished);
        // The window's answers, from the pieces of its requests (the server's pass the worker too).
        const auto answerOf = [&tokens](quint64 id) {
            QString text;
            for (const QList<QVariant>& token : std::as_const(tokens)) {
                if (token.at(0).toULongLong() == id)
                    text += token.at(1).toString();
            }
            return text;
        };
        m_engine->post([&](EngineWorker& worker) { worker.generate(1, windowChat, greedy); });
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 30000);
        finished.clear();
        const QString windowAlone = answerOf(1);
        const QString serverAlone = content(chat(question(QStringLiteral("A client asks about the sea."), 10)));
        QVERIFY(!windowAlone.isEmpty() && !serverAlone.isEmpty());

        // Then interleaved, the server's request between two of the window's.
        std::binary_semaphore release(0);
        m_engine->post([&release](EngineWorker&) { release.acquire(); });
        m_engine->post([&](EngineWorker& worker) { worker.generate(2, windowChat, greedy); });
        QNetworkRequest request(url(QStringLiteral("/v1/chat/completions")));
        request.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
        request.setRawHeader("Authorization", "Bearer " + Key.toUtf8());
        QNetworkReply* reply = m_network.post(request, QJsonDocument(question(QStringLiteral("A client asks about the sea."), 10)).toJson());
        QTRY_COMPARE(call(url(QStringLiteral("/health")), {}, {}, false).json.value(QLatin1String("requests_active")).toInt(), 1);
        m_engine->post([&](EngineWorker& worker) { worker.generate(3, windowChat, greedy); });
        release.release();
        // The server's answers pass the worker's signal too (and may still arrive): count the window's.
        const auto windowAnswers = [&finished, &answerOf] {
            QStringList answers;
            for (const QList<QVariant>& answer : std::as_const(finished)) {
                if (answer.at(0).toULongLong() == 2 || answer.at(0).toULongLong() == 3)
                    answers.append(answerOf(answer.at(0).toULongLong()));
            }
            return answers;
        };
        QTRY_COMPARE_WITH_TIMEOUT(windowAnswers().size(), 2, 30000);
        QCOMPARE(windowAnswers(), QStringList({ windowAlone, windowAlone }));
        if (!reply->isFinished())
            QVERIFY(QSignalSpy(reply, &QNetworkReply::finished).wait(30000));
        const QJsonObject body = QJsonDocument::fromJson(reply->readAll()).object();
        reply->deleteLater();
        QCOMPARE(body.value(QLatin1String("choices")).toArray().first().toObject().value(QLatin1String("message")).toObject().value(QLatin1String("content")).toString(),
            serverAlone);
    }

    void stopSequencesAreCutAcrossPieces()
    {
        StopSequenceFilter filter({ QStringLiteral("\nUser:"), QStringLiteral("###") });
        QCOMPARE(filter.feed(QStringLiteral("Hello")), QStringLiteral("Hello"));
        QCOMPARE(filter.feed(QStringLiteral(" there\nUs")), QStringLiteral(" there")); // "\nUs" may begin a stop
        QCOMPARE(filter.feed(QStringLiteral("e")), QString());
        QCOMPARE(filter.feed(QStringLiteral("r: and more")), QString());
        QVERIFY(filter.stopped());
        QCOMPARE(filter.feed(QStringLiteral("ignored")), QString());
        QCOMPARE(filter.finish(), QString());

        StopSequenceFilter falseAlarm({ QStringLiteral("###") });
        QCOMPARE(falseAlarm.feed(QStringLiteral("a#")), QStringLiteral("a"));
        QCOMPARE(falseAlarm.feed(QStringLiteral("#b")), QStringLiteral("##b"));
        QCOMPARE(falseAlarm.feed(QStringLiteral("##")), QString());
        QVERIFY(!falseAlarm.stopped());
        QCOMPARE(falseAlarm.finish(), QStringLiteral("##")); // the answer ended: held text is sent

        StopSequenceFilter none({});
        QCOMPARE(none.feed(QStringLiteral("as is")), QStringLiteral("as is"));
    }

    void stopSequenceEndsTheAnswerOnTheServer()
    {
        QJsonObject body = question(QStringLiteral("Count with me."), 24);
        const QString whole = content(chat(body));
        QVERIFY(whole.size() > 6);
        const QString stop = whole.mid(3, 2);
        body.insert(QStringLiteral("stop"), stop);
        const Reply cut = chat(body);
        QCOMPARE(content(cut), whole.left(whole.indexOf(stop)));
        QCOMPARE(cut.json.value(QLatin1String("choices")).toArray().first().toObject().value(QLatin1String("finish_reason")).toString(),
            QStringLiteral("stop"));
    }
};

QTEST_GUILESS_MAIN(TestApiServer)
#include "tst_api_server.moc"
