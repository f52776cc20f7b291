// SPDX-License-Identifier: MIT
#include "apiserver.h"

#include "completionrequest.h"
#include "engine_thread.h"
#include "openailogging.h"
#include "pendinganswer.h"
#include "reasoning.h"
#include "stopsequencefilter.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <unordered_map>

namespace hearth::openai {

using hearth::app::AnswerStats;
using hearth::app::EngineWorker;
using hearth::app::ReasoningParts;
using hearth::app::ReasoningStream;

namespace {

using namespace std::chrono_literals;

/// API requests' ids have the top bit set; the window counts up from 1, so the two never meet.
constexpr quint64 ServerRequestBit = quint64(1) << 63;
/// A client that has gone away is noticed when a write fails; without tokens to write, a
/// heartbeat is written this often (an SSE comment, or a space before the JSON body).
constexpr auto HeartbeatInterval = 1000ms;

std::string compact(const QJsonObject& object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact).toStdString();
}

QJsonObject errorBody(const QString& message, const QString& type, const QString& param = {}, const QString& code = {})
{
    QJsonObject error {
        { QStringLiteral("message"), message },
        { QStringLiteral("type"), type },
        { QStringLiteral("param"), param.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(param) },
        { QStringLiteral("code"), code.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(code) },
    };
    return { { QStringLiteral("error"), error } };
}

void sendError(httplib::Response& response, int status, const QString& message, const QString& param = {}, const QString& code = {})
{
    const QString type = status == 401 ? QStringLiteral("authentication_error")
        : status >= 500                ? QStringLiteral("server_error")
                                       : QStringLiteral("invalid_request_error");
    response.status = status;
    response.set_content(compact(errorBody(message, type, param, code)), "application/json");
}

/// Compares without leaking, through the time taken, how much of a key was right.
bool sameKey(const std::string& given, const std::string& expected)
{
    unsigned char difference = given.size() == expected.size() ? 0 : 1;
    for (size_t i = 0; i < given.size(); ++i)
        difference |= static_cast<unsigned char>(given[i] ^ expected[i % std::max<size_t>(1, expected.size())]);
    return difference == 0;
}

} // namespace

/// The requests waiting for the engine, shared with the connections on the engine thread that
/// feed them; outlives the server object while a signal may still be on its way.
struct RequestRouter
{
    std::mutex mutex;
    std::unordered_map<quint64, std::shared_ptr<PendingAnswer>> pending; ///< under mutex
    std::unordered_map<quint64, bool> started; ///< under mutex
    std::atomic<int> active { 0 };
    std::atomic<int> abandoned { 0 }; ///< answers stopped because their client went away

    bool tryAcquire(int limit)
    {
        int now = active.load();
        do {
            if (now >= limit)
                return false;
        } while (!active.compare_exchange_weak(now, now + 1));
        return true;
    }

    std::shared_ptr<PendingAnswer> add(quint64 id)
    {
        auto answer = std::make_shared<PendingAnswer>();
        const std::lock_guard lock(mutex);
        pending.emplace(id, answer);
        started.emplace(id, false);
        return answer;
    }

    /// Hands @p event to request @p id; the last event of a request frees its place in the queue.
    void deliver(quint64 id, AnswerEvent event)
    {
        if ((id & ServerRequestBit) == 0)
            return;
        std::shared_ptr<PendingAnswer> answer;
        {
            const std::lock_guard lock(mutex);
            const auto found = pending.find(id);
            if (found == pending.end())
                return;
            answer = found->second;
            if (event.kind == AnswerEvent::Kind::Started) {
                bool& seen = started[id];
                if (seen)
                    return; // contextUsed comes once per token; only the first one starts
                seen = true;
            }
            if (event.kind == AnswerEvent::Kind::Finished || event.kind == AnswerEvent::Kind::Failed) {
                pending.erase(found);
                started.erase(id);
                active.fetch_sub(1);
            }
        }
        answer->push(std::move(event));
    }
};

struct ApiServer::Private
{
    explicit Private(const hearth::app::EngineThread& engineThread)
        : engine(engineThread)
    {
    }

    const hearth::app::EngineThread& engine;
    std::shared_ptr<RequestRouter> router = std::make_shared<RequestRouter>();
    QList<QMetaObject::Connection> connections;

    std::shared_ptr<httplib::Server> http;
    std::thread listener;
    std::vector<std::thread> closing; ///< listeners of stopped servers, joined at the end
    ApiServerOptions options;
    int port = 0;
    QString error;
    std::atomic<int> turnedAway { 0 };
    std::atomic<quint64> lastId { 0 };

    /// The handlers keep their own copy of @p options: a stopped server's last connections may
    /// still answer while the next one starts.
    void route(httplib::Server& server, std::shared_ptr<const ApiServerOptions> options);
    void listModels(httplib::Response& response) const;
    void complete(const httplib::Request& httpRequest, httplib::Response& response, CompletionRequest::Kind kind,
        const ApiServerOptions& options);
};

void ApiServer::Private::listModels(httplib::Response& response) const
{
    const hearth::app::LoadedModel model = engine.worker()->loadedModel();
    QJsonArray data;
    if (model.contextLength > 0) {
        data.append(QJsonObject {
            { QStringLiteral("id"), model.id },
            { QStringLiteral("object"), QStringLiteral("model") },
            { QStringLiteral("created"), QDateTime::currentSecsSinceEpoch() },
            { QStringLiteral("owned_by"), QStringLiteral("hearth") },
            { QStringLiteral("name"), model.name },
            { QStringLiteral("context_length"), model.contextLength },
        });
    }
    response.set_content(compact({ { QStringLiteral("object"), QStringLiteral("list") }, { QStringLiteral("data"), data } }),
        "application/json");
}

/// Writes one answer to its client as the engine produces it, streamed or as one JSON body.
class AnswerWriter
{
public:
    AnswerWriter(CompletionRequest request, std::shared_ptr<PendingAnswer> answer, quint64 id, QString model,
        EngineWorker* worker)
        : m_request(std::move(request))
        , m_answer(std::move(answer))
        , m_id(id)
        , m_model(std::move(model))
        , m_worker(worker)
        , m_filter(m_request.stop)
        , m_created(QDateTime::currentSecsSinceEpoch())
    {
        m_sinceWrite.start();
    }

    /// One step of httplib's chunked content provider; false drops the connection.
    bool step(httplib::DataSink& sink)
    {
        if (m_request.stream && chat() && !m_sentRole) {
            m_sentRole = true;
            return sendChunk(sink, roleDelta(), QJsonValue::Null);
        }
        AnswerEvent event;
        if (!m_answer->next(event, HeartbeatInterval))
            return heartbeat(sink);
        switch (event.kind) {
        case AnswerEvent::Kind::Token: {
            const QString text = m_filter.feed(event.text);
            m_text += text;
            if (m_filter.stopped() && !m_stopSent) {
                m_stopSent = true;
                m_worker->stop(m_id); // what it writes after this is cut anyway
            }
            if (!m_request.stream)
                return m_sinceWrite.hasExpired(HeartbeatInterval.count()) ? heartbeat(sink) : true;
            return sendText(sink, text);
        }
        case AnswerEvent::Kind::Finished:
            return finish(sink, event.stats);
        case AnswerEvent::Kind::Failed: {
            const std::string body = compact(errorBody(event.text, QStringLiteral("server_error")));
            const bool ok = m_request.stream ? write(sink, "data: " + body + "\n\n") : write(sink, body);
            sink.done();
            return ok;
        }
        case AnswerEvent::Kind::Started:
        case AnswerEvent::Kind::TooLong:
            return true;
        }
        return true;
    }

    /// The client went away (or the server stops) before the answer ended.
    void abandon() { m_worker->stop(m_id); }

private:
    [[nodiscard]] bool chat() const { return m_request.kind == CompletionRequest::Kind::Chat; }

    QJsonObject roleDelta() const
    {
        return { { QStringLiteral("role"), QStringLiteral("assistant") }, { QStringLiteral("content"), QString() } };
    }

    QJsonObject delta(const QString& text) const
    {
        if (chat())
            return { { QStringLiteral("content"), text } };
        return { { QStringLiteral("text"), text } };
    }

    /// A chat answer's text as it streams: a reasoning model's thinking (Qwen 3's <think>,
    /// gpt-oss's analysis channel) goes out as `reasoning_content`, as llama.cpp's server and
    /// DeepSeek's API send it, the answer as `content`; a completion's text as it is.
    bool sendText(httplib::DataSink& sink, const QString& text, bool last = false)
    {
        if (!chat())
            return text.isEmpty() || sendChunk(sink, delta(text), QJsonValue::Null);
        const ReasoningStream::Delta parts = m_reasoning.feed(text, last);
        QJsonObject d;
        if (!parts.thinking.isEmpty())
            d.insert(QStringLiteral("reasoning_content"), parts.thinking);
        if (!parts.answer.isEmpty())
            d.insert(QStringLiteral("content"), parts.answer);
        return d.isEmpty() || sendChunk(sink, d, QJsonValue::Null);
    }

    QString idText() const
    {
        return (chat() ? QStringLiteral("chatcmpl-") : QStringLiteral("cmpl-")) + QString::number(m_id & ~ServerRequestBit, 16);
    }

    QJsonObject envelope(const QString& object) const
    {
        return { { QStringLiteral("id"), idText() }, { QStringLiteral("object"), object },
            { QStringLiteral("created"), m_created }, { QStringLiteral("model"), m_model } };
    }

    bool write(httplib::DataSink& sink, const std::string& text)
    {
        m_sinceWrite.start();
        return sink.write(text.data(), text.size());
    }

    /// Something harmless to write, to learn whether the client is still there: an SSE comment,
    /// or whitespace before the JSON body (which JSON allows).
    bool heartbeat(httplib::DataSink& sink) { return write(sink, m_request.stream ? ": waiting\n\n" : " "); }

    bool sendChunk(httplib::DataSink& sink, const QJsonObject& delta, const QJsonValue& finishReason)
    {
        QJsonObject choice { { QStringLiteral("index"), 0 }, { QStringLiteral("finish_reason"), finishReason } };
        if (chat()) {
            choice.insert(QStringLiteral("delta"), delta);
        } else {
            choice.insert(QStringLiteral("text"), delta.value(QStringLiteral("text")).toString());
            choice.insert(QStringLiteral("logprobs"), QJsonValue::Null);
        }
        QJsonObject chunk = envelope(chat() ? QStringLiteral("chat.completion.chunk") : QStringLiteral("text_completion"));
        chunk.insert(QStringLiteral("choices"), QJsonArray { choice });
        return write(sink, "data: " + compact(chunk) + "\n\n");
    }

    QJsonObject usage(const AnswerStats& stats) const
    {
        const int prompt = stats.promptTokens + stats.cachedPromptTokens;
        return { { QStringLiteral("prompt_tokens"), prompt }, { QStringLiteral("completion_tokens"), stats.generatedTokens },
            { QStringLiteral("total_tokens"), prompt + stats.generatedTokens } };
    }

    bool finish(httplib::DataSink& sink, const AnswerStats& stats)
    {
        const QString tail = m_filter.finish();
        m_text += tail;
        const bool full = stats.reachedMaxTokens || stats.contextFull;
        const QString reason = !m_filter.stopped() && full ? QStringLiteral("length") : QStringLiteral("stop");
        bool ok = true;
        if (m_request.stream) {
            ok = sendText(sink, tail, true) && sendChunk(sink, chat() ? QJsonObject {} : delta(QString()), reason);
            if (ok && m_request.includeUsage) {
                QJsonObject chunk = envelope(chat() ? QStringLiteral("chat.completion.chunk") : QStringLiteral("text_completion"));
                chunk.insert(QStringLiteral("choices"), QJsonArray {});
                chunk.insert(QStringLiteral("usage"), usage(stats));
                ok = write(sink, "data: " + compact(chunk) + "\n\n");
            }
            ok = ok && write(sink, "data: [DONE]\n\n");
        } else {
            QJsonObject choice { { QStringLiteral("index"), 0 }, { QStringLiteral("finish_reason"), reason } };
            if (chat()) {
                const ReasoningParts parts = ReasoningParts::split(m_text);
                QJsonObject message { { QStringLiteral("role"), QStringLiteral("assistant") },
                    { QStringLiteral("content"), parts.answer } };
                if (!parts.thinking.isEmpty())
                    message.insert(QStringLiteral("reasoning_content"), parts.thinking);
                choice.insert(QStringLiteral("message"), message);
            } else {
                choice.insert(QStringLiteral("text"), m_text);
                choice.insert(QStringLiteral("logprobs"), QJsonValue::Null);
            }
            QJsonObject body = envelope(chat() ? QStringLiteral("chat.completion") : QStringLiteral("text_completion"));
            body.insert(QStringLiteral("choices"), QJsonArray { choice });
            body.insert(QStringLiteral("usage"), usage(stats));
            ok = write(sink, compact(body));
        }
        sink.done();
        return ok;
    }

    const CompletionRequest m_request;
    const std::shared_ptr<PendingAnswer> m_answer;
    const quint64 m_id;
    const QString m_model;
    EngineWorker* const m_worker;
    StopSequenceFilter m_filter;
    ReasoningStream m_reasoning; // a chat answer's thinking and answer, as they stream
    const qint64 m_created;
    QString m_text;
    QElapsedTimer m_sinceWrite;
    bool m_sentRole = false;
    bool m_stopSent = false;
};

void ApiServer::Private::complete(const httplib::Request& httpRequest, httplib::Response& response,
    CompletionRequest::Kind kind, const ApiServerOptions& options)
{
    const hearth::app::LoadedModel model = engine.worker()->loadedModel();
    CompletionRequest request = CompletionRequest::parse(
        QByteArray::fromStdString(httpRequest.body), kind, options.defaults, model.contextLength);
    if (!request.error.isEmpty())
        return sendError(response, 400, request.error, request.errorParam);
    if (model.contextLength == 0)
        return sendError(response, 503, QStringLiteral("No model is loaded."));
    if (!router->tryAcquire(options.maxRequests)) {
        turnedAway.fetch_add(1);
        response.set_header("Retry-After", "1");
        return sendError(response, 503,
            QStringLiteral("The server is busy: %1 requests are running or waiting. Try again shortly.").arg(options.maxRequests));
    }
    const quint64 id = ServerRequestBit | (lastId.fetch_add(1) + 1);
    auto answer = router->add(id);
    if (kind == CompletionRequest::Kind::Chat) {
        engine.post([id, turns = request.turns, sampling = request.sampling](EngineWorker& worker) {
            worker.generate(id, turns, sampling);
        });
    } else {
        engine.post([id, prompt = request.prompt, sampling = request.sampling](EngineWorker& worker) {
            worker.complete(id, prompt, sampling);
        });
    }

    // Wait for the engine to take the request, so a prompt it cannot take is still a 400.
    AnswerEvent first;
    int promptTokens = 0;
    while (true) {
        if (!answer->next(first, HeartbeatInterval))
            continue;
        if (first.kind == AnswerEvent::Kind::TooLong) {
            promptTokens = first.number;
            continue;
        }
        break;
    }
    if (first.kind == AnswerEvent::Kind::Failed) {
        if (promptTokens > 0) {
            return sendError(response, 400,
                QStringLiteral("This model's maximum context length is %1 tokens; the request's prompt has %2.")
                    .arg(model.contextLength)
                    .arg(promptTokens),
                kind == CompletionRequest::Kind::Chat ? QStringLiteral("messages") : QStringLiteral("prompt"),
                QStringLiteral("context_length_exceeded"));
        }
        const bool noModel = engine.worker()->loadedModel().contextLength == 0;
        return sendError(response, noModel ? 503 : 400, first.text);
    }
    if (first.kind == AnswerEvent::Kind::Finished) {
        // Stopped before it started: the server is stopping.
        return sendError(response, 503, QStringLiteral("The server is stopping."));
    }

    const bool stream = request.stream;
    auto writer = std::make_shared<AnswerWriter>(std::move(request), answer, id, model.id, engine.worker());
    response.set_header("Cache-Control", "no-cache");
    response.set_chunked_content_provider(stream ? "text/event-stream" : "application/json",
        [writer](size_t, httplib::DataSink& sink) { return writer->step(sink); },
        [writer, router = router](bool success) {
            if (success)
                return;
            router->abandoned.fetch_add(1);
            writer->abandon();
        });
}

void ApiServer::Private::route(httplib::Server& server, std::shared_ptr<const ApiServerOptions> options)
{
    const std::string key = options->apiKey.toStdString();
    server.set_pre_routing_handler([key](const httplib::Request& request, httplib::Response& response) {
        if (key.empty() || request.path == "/health")
            return httplib::Server::HandlerResponse::Unhandled;
        const std::string given = request.get_header_value("Authorization");
        const std::string bearer = "Bearer ";
        if (given.compare(0, bearer.size(), bearer) == 0 && sameKey(given.substr(bearer.size()), key))
            return httplib::Server::HandlerResponse::Unhandled;
        sendError(response, 401, QStringLiteral("Incorrect or missing API key. Send it as 'Authorization: Bearer <key>'."), {},
            QStringLiteral("invalid_api_key"));
        return httplib::Server::HandlerResponse::Handled;
    });
    server.set_error_handler([](const httplib::Request&, httplib::Response& response) {
        if (!response.body.empty())
            return;
        if (response.status == 413)
            sendError(response, 413, QStringLiteral("The request body is too large."));
        else if (response.status == 404)
            sendError(response, 404, QStringLiteral("No such endpoint: this server answers /v1/models, /v1/chat/completions and /v1/completions."));
        else
            sendError(response, response.status, QStringLiteral("The request could not be read."));
    });
    server.set_exception_handler([](const httplib::Request&, httplib::Response& response, std::exception_ptr) {
        sendError(response, 500, QStringLiteral("The server failed to answer this request."));
    });
    server.Get("/health", [this](const httplib::Request&, httplib::Response& response) {
        const bool loaded = engine.worker()->loadedModel().contextLength > 0;
        response.set_content(compact({
                                 { QStringLiteral("status"), loaded ? QStringLiteral("ok") : QStringLiteral("no model") },
                                 { QStringLiteral("requests_active"), router->active.load() },
                                 { QStringLiteral("requests_abandoned"), router->abandoned.load() },
                                 { QStringLiteral("requests_turned_away"), turnedAway.load() },
                             }),
            "application/json");
    });
    server.Get("/v1/models", [this](const httplib::Request&, httplib::Response& response) { listModels(response); });
    server.Post("/v1/chat/completions", [this, options](const httplib::Request& request, httplib::Response& response) {
        complete(request, response, CompletionRequest::Kind::Chat, *options);
    });
    server.Post("/v1/completions", [this, options](const httplib::Request& request, httplib::Response& response) {
        complete(request, response, CompletionRequest::Kind::Text, *options);
    });
}

ApiServer::ApiServer(const hearth::app::EngineThread& engine, QObject* parent)
    : QObject(parent)
    , d(std::make_unique<Private>(engine))
{
    // The worker's signals are delivered on the engine thread, straight to the waiting request.
    EngineWorker* worker = engine.worker();
    const std::shared_ptr<RequestRouter> router = d->router;
    d->connections = {
        connect(worker, &EngineWorker::contextUsed, worker,
            [router](quint64 id, int) { router->deliver(id, { AnswerEvent::Kind::Started, {}, 0, {} }); }, Qt::DirectConnection),
        connect(worker, &EngineWorker::tokenGenerated, worker,
            [router](quint64 id, const QString& text) { router->deliver(id, { AnswerEvent::Kind::Token, text, 0, {} }); },
            Qt::DirectConnection),
        connect(worker, &EngineWorker::promptTooLong, worker,
            [router](quint64 id, int tokens, int) { router->deliver(id, { AnswerEvent::Kind::TooLong, {}, tokens, {} }); },
            Qt::DirectConnection),
        connect(worker, &EngineWorker::answerFinished, worker,
            [router](quint64 id, const AnswerStats& stats) {
                router->deliver(id, { AnswerEvent::Kind::Finished, {}, 0, stats });
            },
            Qt::DirectConnection),
        connect(worker, &EngineWorker::answerFailed, worker,
            [router](quint64 id, const QString& message) { router->deliver(id, { AnswerEvent::Kind::Failed, message, 0, {} }); },
            Qt::DirectConnection),
    };
}

ApiServer::~ApiServer()
{
    stop();
    for (std::thread& thread : d->closing)
        thread.join();
    for (const QMetaObject::Connection& connection : std::as_const(d->connections))
        disconnect(connection);
}

bool ApiServer::start(const ApiServerOptions& options)
{
    stop();
    d->options = options;
    d->options.maxRequests = qMax(1, options.maxRequests);
    d->turnedAway = 0;
    auto http = std::make_shared<httplib::Server>();
    // Enough threads for every request the queue admits, and some idle keep-alive connections.
    const int threads = d->options.maxRequests + 8;
    http->new_task_queue = [threads] { return new httplib::ThreadPool(size_t(threads)); };
    // Not httplib's default SO_REUSEPORT: with it a second server (another Hearth, llama.cpp's)
    // binds the same port and the kernel splits the requests between the two.
    http->set_socket_options([](socket_t socket) {
        int yes = 1;
#ifdef _WIN32
        setsockopt(socket, SOL_SOCKET, SO_EXCLUSIVEADDRUSE, reinterpret_cast<char*>(&yes), sizeof(yes));
#else
        setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
#endif
    });
    http->set_payload_max_length(size_t(qMax<qint64>(1024, options.maxBodyBytes)));
    http->set_keep_alive_timeout(2);
    http->set_read_timeout(30);
    http->set_write_timeout(30);
    d->route(*http, std::make_shared<const ApiServerOptions>(d->options));

    const std::string host = options.host.toStdString();
    const int port = options.port <= 0 ? http->bind_to_any_port(host) : (http->bind_to_port(host, options.port) ? options.port : -1);
    if (port <= 0) {
        d->error = tr("Cannot listen on %1:%2. Another program may use that port, or the address is not this computer's.")
                       .arg(options.host)
                       .arg(options.port);
        qCWarning(lcOpenAi) << d->error;
        return false;
    }
    d->error.clear();
    d->port = port;
    d->http = http;
    d->listener = std::thread([http] { http->listen_after_bind(); });
    // httplib's stop() does nothing until its loop runs: a stop() right after start() (a model
    // that fails at once under --serve) would leave the loop, and the join, waiting forever.
    QElapsedTimer waiting;
    waiting.start();
    while (!http->is_running() && waiting.elapsed() < 10000)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    qCInfo(lcOpenAi) << "listening on" << baseUrl();
    Q_EMIT runningChanged();
    return true;
}

void ApiServer::stop()
{
    if (!d->http)
        return;
    // Unblock the requests' threads: the running answer stops, waiting ones never start.
    {
        const std::lock_guard lock(d->router->mutex);
        for (const auto& [id, answer] : d->router->pending)
            d->engine.worker()->stop(id);
    }
    d->http->stop(); // closes the listening socket now; connections end within the keep-alive time
    d->closing.push_back(std::move(d->listener));
    d->http.reset();
    d->port = 0;
    qCInfo(lcOpenAi) << "stopped";
    Q_EMIT runningChanged();
}

bool ApiServer::isRunning() const
{
    return d->http != nullptr;
}

int ApiServer::port() const
{
    return d->port;
}

QString ApiServer::baseUrl() const
{
    if (!d->http)
        return {};
    const QString host = d->options.host.contains(QLatin1Char(':')) ? QStringLiteral("[%1]").arg(d->options.host) : d->options.host;
    return QStringLiteral("http://%1:%2/v1").arg(host).arg(d->port);
}

QString ApiServer::errorString() const
{
    return d->error;
}

int ApiServer::turnedAway() const
{
    return d->turnedAway.load();
}

} // namespace hearth::openai
