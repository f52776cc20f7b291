// SPDX-License-Identifier: MIT
// The remote engine, over loopback: against Hearth's own API server (a chat streams and adds up
// to the server's whole answer, a wrong key is a message) and against a test server that fails
// on purpose (Stop keeps what arrived; a dropped connection is an error that keeps the partial
// answer). Then the chat window's controller on a remote model: answers are stored like any other.

#include "apiserver.h"
#include "app_test_support.h"
#include "chat_with_session.h"
#include "chatstore.h"
#include "engine_thread.h"
#include "reasoning.h"
#include "remoteengine.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QPointer>
#include <QProcess>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

using hearth::app::AnswerStats;
using hearth::app::ChatController;
using hearth::app::ModelSession;
using hearth::app::ChatTurn;
using hearth::app::EngineThread;
using hearth::app::EngineWorker;
using hearth::app::SamplingSettings;
using hearth::openai::ApiServer;
using hearth::openai::RemoteEngine;

namespace {

const QString Key = QStringLiteral("remote-key");

/// An OpenAI-compatible server that streams "piece 1 ", "piece 2 ", ... one every 20 ms and
/// either never ends or drops the connection after dropAfter pieces.
class FailingServer : public QObject
{
public:
    int dropAfter = 0; ///< 0: stream until the client goes away
    bool errorEvent = false; ///< at dropAfter, send an error event instead of dropping
    bool finishes = false;   ///< at dropAfter, end the answer as a server does ("stop", [DONE])
    int thoughts = 0;        ///< the first pieces come as reasoning_content ("thought 1 ", ...)
    int clientsGone = 0;

    FailingServer()
    {
        connect(&m_server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket* socket = m_server.nextPendingConnection())
                serve(socket);
        });
        m_server.listen(QHostAddress::LocalHost, 0);
    }

    [[nodiscard]] QString url() const { return QStringLiteral("http://127.0.0.1:%1/v1").arg(m_server.serverPort()); }

private:
    void serve(QTcpSocket* socket)
    {
        auto request = std::make_shared<QByteArray>();
        connect(socket, &QTcpSocket::readyRead, socket, [this, socket, request] {
            *request += socket->readAll();
            const qsizetype headerEnd = request->indexOf("\r\n\r\n");
            if (headerEnd < 0)
                return;
            const QByteArray headers = request->left(headerEnd).toLower();
            const qsizetype lengthAt = headers.indexOf("content-length:");
            const int length = lengthAt < 0 ? 0 : headers.mid(lengthAt + 15, headers.indexOf('\r', lengthAt) - lengthAt - 15).trimmed().toInt();
            if (request->size() < headerEnd + 4 + length)
                return;
            disconnect(socket, &QTcpSocket::readyRead, socket, nullptr);
            if (request->startsWith("GET /v1/models")) {
                const QByteArray body = R"({"object":"list","data":[{"id":"fake","object":"model"}]})";
                socket->write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: "
                    + QByteArray::number(body.size()) + "\r\n\r\n" + body);
                socket->disconnectFromHost();
                return;
            }
            socket->write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n");
            stream(socket);
        });
    }

    void stream(QTcpSocket* socket)
    {
        auto* timer = new QTimer(socket);
        auto count = std::make_shared<int>(0);
        connect(socket, &QTcpSocket::disconnected, this, [this, socket] {
            ++clientsGone;
            socket->deleteLater();
        });
        connect(timer, &QTimer::timeout, socket, [this, socket, timer, count] {
            if (dropAfter > 0 && *count == dropAfter) {
                timer->stop();
                if (errorEvent) {
                    socket->write("data: {\"error\":{\"message\":\"the GPU fell off the bus\",\"type\":\"server_error\"}}\n\n");
                    socket->disconnectFromHost();
                } else if (finishes) {
                    socket->write("data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n");
                    socket->disconnectFromHost();
                } else {
                    socket->abort(); // mid-answer, no [DONE]
                }
                return;
            }
            ++*count;
            const bool thought = *count <= thoughts;
            const QJsonObject delta { { thought ? QStringLiteral("reasoning_content") : QStringLiteral("content"),
                (thought ? QStringLiteral("thought %1 ") : QStringLiteral("piece %1 ")).arg(*count) } };
            const QJsonObject chunk { { QStringLiteral("choices"),
                QJsonArray { QJsonObject { { QStringLiteral("index"), 0 }, { QStringLiteral("delta"), delta } } } } };
            socket->write("data: " + QJsonDocument(chunk).toJson(QJsonDocument::Compact) + "\n\n");
        });
        timer->start(20);
    }

    QTcpServer m_server;
};

QString joined(const QSignalSpy& tokens)
{
    QString text;
    for (const QList<QVariant>& token : tokens)
        text += token.at(1).toString();
    return text;
}

} // namespace

class TestRemoteEngine : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::unique_ptr<EngineThread> m_host; ///< the "remote" machine's engine
    std::unique_ptr<ApiServer> m_server;
    const QList<ChatTurn> m_turns { { QStringLiteral("system"), QStringLiteral("Be brief.") },
        { QStringLiteral("user"), QStringLiteral("What is a harbour?") } };

    static SamplingSettings greedy(int maxTokens)
    {
        SamplingSettings sampling;
        sampling.temperature = 0;
        sampling.maxTokens = maxTokens;
        sampling.seed = 5;
        return sampling;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        const QString model = hearth::test::makeTinyModel(m_dir.path());
        if (model.isEmpty())
            QSKIP("no test model: hearth-synth is not built and ../shared is absent");
        m_host = std::make_unique<EngineThread>();
        QSignalSpy loaded(m_host->worker(), &EngineWorker::modelLoaded);
        m_host->post([model](EngineWorker& worker) { worker.loadModel(model); });
        // Emitted on the engine thread: the spy may have it before a wait() would begin.
        QTRY_VERIFY_WITH_TIMEOUT(!loaded.isEmpty(), 60000);
        m_server = std::make_unique<ApiServer>(*m_host);
        hearth::openai::ApiServerOptions options;
        options.port = 0;
        options.apiKey = Key;
        QVERIFY(m_server->start(options));
    }

    void cleanupTestCase()
    {
        m_server.reset();
        m_host.reset();
    }

    void normalizesAddresses_data()
    {
        QTest::addColumn<QString>("typed");
        QTest::addColumn<QString>("expected");
        QTest::newRow("host and port") << "localhost:8080" << "http://localhost:8080/v1";
        QTest::newRow("no path") << "http://10.0.0.2:11434" << "http://10.0.0.2:11434/v1";
        QTest::newRow("trailing slash") << "http://gpu-box:8000/v1/" << "http://gpu-box:8000/v1";
        QTest::newRow("an endpoint pasted") << "https://api.example.com/v1/chat/completions" << "https://api.example.com/v1";
        QTest::newRow("another prefix") << "https://example.com/openai/v1" << "https://example.com/openai/v1";
        QTest::newRow("not http") << "ftp://example.com" << "";
        QTest::newRow("empty") << "  " << "";
    }

    void normalizesAddresses()
    {
        QFETCH(QString, typed);
        QFETCH(QString, expected);
        QCOMPARE(RemoteEngine::normalizedBaseUrl(typed).toString(), expected);
    }

    void listsModelsAndStreamsAChat()
    {
        RemoteEngine remote;
        QSignalSpy listed(&remote, &RemoteEngine::modelsListed);
        remote.listModels(QUrl(m_server->baseUrl()), Key);
        QVERIFY(listed.wait(10000));
        QCOMPARE(listed.first().at(0).toStringList(), QStringList { QStringLiteral("tiny") });
        QVERIFY(listed.first().at(1).value<QList<int>>().value(0) > 0); // the context length is passed on

        remote.setServer(QUrl(m_server->baseUrl()), Key, QStringLiteral("tiny"));
        QSignalSpy tokens(&remote, &RemoteEngine::tokenGenerated);
        QSignalSpy finished(&remote, &RemoteEngine::answerFinished);
        QSignalSpy failed(&remote, &RemoteEngine::answerFailed);
        QSignalSpy context(&remote, &RemoteEngine::contextUsed);
        remote.generate(7, m_turns, greedy(12));
        QVERIFY(finished.wait(30000));
        QVERIFY(failed.isEmpty());
        QCOMPARE(finished.first().at(0).toULongLong(), 7u);
        const QString answer = joined(tokens);
        QVERIFY(!answer.isEmpty());
        QVERIFY(tokens.size() > 1); // streamed, not in one piece
        const auto stats = finished.first().at(1).value<AnswerStats>();
        QVERIFY(stats.generatedTokens > 0 && stats.generatedTokens <= 12); // the server's usage counts
        QVERIFY(!stats.stopped);
        QVERIFY(!context.isEmpty());

        // The local engine on the same model and settings gives the same answer.
        QSignalSpy localTokens(m_host->worker(), &EngineWorker::tokenGenerated);
        QSignalSpy local(m_host->worker(), &EngineWorker::answerFinished);
        SamplingSettings sampling = greedy(12);
        sampling.dropOldestTurns = false;
        m_host->post([this, sampling](EngineWorker& worker) { worker.generate(99, m_turns, sampling); });
        QTRY_VERIFY_WITH_TIMEOUT(!local.isEmpty(), 30000);
        QCOMPARE(joined(localTokens), answer);
    }

    void aWrongKeyIsAMessage()
    {
        RemoteEngine remote;
        QSignalSpy failed(&remote, &RemoteEngine::listFailed);
        remote.listModels(QUrl(m_server->baseUrl()), QStringLiteral("wrong"));
        QVERIFY(failed.wait(10000));
        QVERIFY2(failed.first().at(0).toString().contains(QLatin1String("API key")), qPrintable(failed.first().at(0).toString()));

        QSignalSpy unreachable(&remote, &RemoteEngine::listFailed);
        remote.listModels(QUrl(QStringLiteral("http://127.0.0.1:1/v1")), {});
        QVERIFY(unreachable.wait(20000));
        QVERIFY(!unreachable.first().at(0).toString().isEmpty());
    }

    void stopEndsTheAnswerOnHearthsServer()
    {
        // A model slow enough (two layers of TinyLlama's shape, ~150 tokens/s here) that the
        // answer is still running when Stop is pressed.
        const QString synth = QStringLiteral(HEARTH_BIN_DIR "/hearth-synth" HEARTH_EXE_SUFFIX);
        const QString model = m_dir.filePath(QStringLiteral("slow.gguf"));
        QProcess process;
        process.start(synth, { QStringLiteral("--shape"), QStringLiteral("tinyllama-1.1b"), QStringLiteral("--layers"), QStringLiteral("2"),
                                 QStringLiteral("--type"), QStringLiteral("q8_0"), QStringLiteral("-q"), QStringLiteral("-o"), model });
        if (!process.waitForFinished(120000) || process.exitCode() != 0)
            QSKIP("hearth-synth could not write the slow model");
        EngineThread host;
        QSignalSpy loaded(host.worker(), &EngineWorker::modelLoaded);
        host.post([model](EngineWorker& worker) { worker.loadModel(model); });
        QTRY_VERIFY_WITH_TIMEOUT(!loaded.isEmpty(), 60000);
        ApiServer server(host);
        hearth::openai::ApiServerOptions options;
        options.port = 0;
        QVERIFY(server.start(options));

        RemoteEngine remote;
        remote.setServer(QUrl(server.baseUrl()), {}, QStringLiteral("slow"));
        QSignalSpy tokens(&remote, &RemoteEngine::tokenGenerated);
        QSignalSpy finished(&remote, &RemoteEngine::answerFinished);
        connect(&remote, &RemoteEngine::tokenGenerated, this, [&](quint64 id) {
            if (tokens.size() == 3)
                remote.stop(id);
        });
        SamplingSettings sampling = greedy(2000);
        sampling.temperature = 0.8; // no early end of turn
        remote.generate(8, m_turns, sampling);
        QVERIFY(finished.wait(30000));
        QVERIFY(finished.first().at(1).value<AnswerStats>().stopped);
        QCOMPARE(tokens.size(), 3);
        // The server noticed the closed connection and stopped generating (2000 tokens would take
        // over ten seconds).
        QNetworkAccessManager network;
        QTRY_VERIFY_WITH_TIMEOUT(([&] {
            QNetworkReply* reply = network.get(QNetworkRequest(QUrl(server.baseUrl().replace(QLatin1String("/v1"), QLatin1String("/health")))));
            QSignalSpy done(reply, &QNetworkReply::finished);
            done.wait(5000);
            const QJsonObject health = QJsonDocument::fromJson(reply->readAll()).object();
            reply->deleteLater();
            return health.value(QLatin1String("requests_abandoned")).toInt() == 1 && health.value(QLatin1String("requests_active")).toInt() == 0;
        }()), 5000);
    }

    void stopKeepsWhatArrived()
    {
        FailingServer server; // streams without end
        RemoteEngine remote;
        remote.setServer(QUrl(server.url()), {}, QStringLiteral("fake"));
        QSignalSpy tokens(&remote, &RemoteEngine::tokenGenerated);
        QSignalSpy finished(&remote, &RemoteEngine::answerFinished);
        connect(&remote, &RemoteEngine::tokenGenerated, this, [&](quint64 id) {
            if (tokens.size() == 3)
                remote.stop(id);
        });
        remote.generate(3, m_turns, greedy(100));
        QVERIFY(finished.wait(10000));
        QCOMPARE(joined(tokens), QStringLiteral("piece 1 piece 2 piece 3 "));
        QVERIFY(finished.first().at(1).value<AnswerStats>().stopped);
        QTRY_COMPARE(server.clientsGone, 1); // the connection is closed, so the server stops too
    }

    void aDroppedConnectionIsAnErrorThatKeepsTheTokens()
    {
        FailingServer server;
        server.dropAfter = 2;
        RemoteEngine remote;
        remote.setServer(QUrl(server.url()), {}, QStringLiteral("fake"));
        QSignalSpy tokens(&remote, &RemoteEngine::tokenGenerated);
        QSignalSpy failed(&remote, &RemoteEngine::answerFailed);
        QSignalSpy finished(&remote, &RemoteEngine::answerFinished);
        remote.generate(4, m_turns, greedy(100));
        QVERIFY(failed.wait(10000));
        QVERIFY(finished.isEmpty());
        QCOMPARE(joined(tokens), QStringLiteral("piece 1 piece 2 "));
        QVERIFY(!failed.first().at(1).toString().isEmpty());
    }

    void anErrorEventEndsTheAnswerWithTheServersWords()
    {
        FailingServer server;
        server.dropAfter = 2;
        server.errorEvent = true;
        RemoteEngine remote;
        remote.setServer(QUrl(server.url()), {}, QStringLiteral("fake"));
        QSignalSpy tokens(&remote, &RemoteEngine::tokenGenerated);
        QSignalSpy failed(&remote, &RemoteEngine::answerFailed);
        QSignalSpy finished(&remote, &RemoteEngine::answerFinished);
        remote.generate(5, m_turns, greedy(100));
        QVERIFY(failed.wait(10000));
        QVERIFY(failed.first().at(1).toString().contains(QLatin1String("the GPU fell off the bus")));
        QCOMPARE(joined(tokens), QStringLiteral("piece 1 piece 2 "));
        QTest::qWait(100);
        QVERIFY(finished.isEmpty());
        QCOMPARE(failed.size(), 1); // once, not again when the connection closes
    }

    void reasoningSentApartIsThinkingInTheChat()
    {
        // A server that sends a reasoning model's thinking as reasoning_content (llama.cpp,
        // Hearth's own): the chat gets it in <think> tags, which it folds as a local model's.
        FailingServer server;
        server.thoughts = 2;
        server.dropAfter = 4;
        server.finishes = true;
        RemoteEngine remote;
        remote.setServer(QUrl(server.url()), {}, QStringLiteral("fake"));
        QSignalSpy tokens(&remote, &RemoteEngine::tokenGenerated);
        QSignalSpy finished(&remote, &RemoteEngine::answerFinished);
        remote.generate(6, m_turns, greedy(100));
        QVERIFY(finished.wait(10000));
        const QString answer = joined(tokens);
        QCOMPARE(answer, QStringLiteral("<think>thought 1 thought 2 </think>\n\npiece 3 piece 4 "));
        const hearth::app::ReasoningParts parts = hearth::app::ReasoningParts::split(answer);
        QCOMPARE(parts.thinking, QStringLiteral("thought 1 thought 2"));
        QCOMPARE(parts.answer, QStringLiteral("piece 3 piece 4 "));
    }

    void theChatWindowUsesARemoteModel()
    {
        hearth::test::ChatWithSession chat;
        QVERIFY(chat.openStore(m_dir.filePath(QStringLiteral("remote-chats.sqlite"))));
        chat.session()->connectRemote(m_server->baseUrl(), Key, QStringLiteral("tiny"));
        QTRY_COMPARE_WITH_TIMEOUT(chat.session()->state(), ModelSession::State::Ready, 10000);
        QVERIFY(chat.session()->remote());
        QCOMPARE(chat.session()->modelName(), QStringLiteral("tiny"));
        QVERIFY(chat.session()->contextLength() > 0);
        QVERIFY(chat.errorText().isEmpty());

        QSignalSpy completed(&chat, &ChatController::answerCompleted);
        chat.send(QStringLiteral("Hello there"));
        QVERIFY(completed.wait(30000));
        QTRY_COMPARE(chat.session()->state(), ModelSession::State::Ready);
        const QString answer = completed.first().at(0).toString();
        QVERIFY2(chat.errorText().isEmpty(), qPrintable(chat.errorText()));
        QVERIFY(!answer.isEmpty());
        const qint64 conversation = chat.conversationId();
        QList<hearth::StoredMessage> path = chat.store()->activePath(conversation);
        QCOMPARE(path.size(), 2);
        QCOMPARE(path.last().content, answer);
        QVERIFY(path.last().state == hearth::MessageState::Complete
            || path.last().state == hearth::MessageState::LengthLimit);

        // A server that drops the connection: an error under the answer, and what arrived is kept.
        FailingServer failing;
        failing.dropAfter = 2;
        chat.session()->connectRemote(failing.url(), {}, QStringLiteral("fake"));
        QTRY_COMPARE_WITH_TIMEOUT(chat.session()->modelName(), QStringLiteral("fake"), 10000);
        QTRY_COMPARE(chat.session()->state(), ModelSession::State::Ready);
        QSignalSpy failedAnswer(&chat, &ChatController::answerCompleted);
        chat.send(QStringLiteral("And again"));
        QVERIFY(failedAnswer.wait(10000));
        QVERIFY(!chat.errorText().isEmpty());
        QCOMPARE(chat.session()->state(), ModelSession::State::Ready); // the remote model is still there
        path = chat.store()->activePath(conversation);
        QCOMPARE(path.size(), 4);
        QCOMPARE(path.last().content, QStringLiteral("piece 1 piece 2 "));
        QCOMPARE(path.last().state, hearth::MessageState::Error);

        // A server that cannot be reached leaves the model in place, with a message.
        chat.session()->connectRemote(QStringLiteral("http://127.0.0.1:1"), {}, QStringLiteral("other"));
        QTRY_COMPARE_WITH_TIMEOUT(chat.session()->state(), ModelSession::State::Ready, 20000);
        QCOMPARE(chat.session()->modelName(), QStringLiteral("fake"));
        QVERIFY(!chat.errorText().isEmpty());
    }
};

QTEST_MAIN(TestRemoteEngine)
#include "tst_remote_engine.moc"
