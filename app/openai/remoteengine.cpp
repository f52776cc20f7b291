// SPDX-License-Identifier: MIT
#include "remoteengine.h"

#include "openailogging.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkReply>

namespace hearth::openai {

using hearth::app::AnswerStats;
using hearth::app::ChatTurn;
using hearth::app::SamplingSettings;

namespace {
/// A remote server may think for a long time before its first token (a long prompt), but a
/// connection silent for this long is gone.
constexpr int TransferTimeoutMs = 300000;
} // namespace

RemoteEngine::RemoteEngine(QObject* parent)
    : QObject(parent)
{
    qRegisterMetaType<hearth::app::AnswerStats>();
}

RemoteEngine::~RemoteEngine()
{
    if (m_reply)
        m_reply->abort();
}

QUrl RemoteEngine::normalizedBaseUrl(const QString& text)
{
    QString typed = text.trimmed();
    if (typed.isEmpty())
        return {};
    if (!typed.contains(QLatin1String("://")))
        typed.prepend(QLatin1String("http://"));
    QUrl url(typed, QUrl::StrictMode);
    if (!url.isValid() || url.host().isEmpty() || (url.scheme() != QLatin1String("http") && url.scheme() != QLatin1String("https")))
        return {};
    QString path = url.path();
    while (path.endsWith(QLatin1Char('/')))
        path.chop(1);
    for (const QLatin1String endpoint : { QLatin1String("/chat/completions"), QLatin1String("/models") }) {
        if (path.endsWith(endpoint))
            path.chop(endpoint.size()); // pasted an endpoint's URL
    }
    if (path.isEmpty())
        path = QStringLiteral("/v1"); // what every one of these servers uses
    url.setPath(path);
    url.setQuery(QString());
    url.setFragment(QString());
    return url;
}

void RemoteEngine::setServer(const QUrl& baseUrl, const QString& apiKey, const QString& model)
{
    m_baseUrl = baseUrl;
    m_apiKey = apiKey;
    m_model = model;
}

QNetworkRequest RemoteEngine::request(const QUrl& url, const QString& apiKey) const
{
    QNetworkRequest request(url);
    request.setTransferTimeout(TransferTimeoutMs);
    request.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
    if (!apiKey.isEmpty())
        request.setRawHeader("Authorization", "Bearer " + apiKey.toUtf8());
    return request;
}

QString RemoteEngine::failureText(QNetworkReply* reply, const QByteArray& body)
{
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    const QString serverText = QJsonDocument::fromJson(body).object().value(QLatin1String("error")).toObject().value(QLatin1String("message")).toString();
    if (status == 401 || status == 403)
        return tr("The server refused the API key (%1).").arg(serverText.isEmpty() ? QString::number(status) : serverText);
    if (status > 0 && !serverText.isEmpty())
        return tr("The server answered %1: %2").arg(status).arg(serverText);
    if (status > 0)
        return tr("The server answered %1.").arg(status);
    return tr("Cannot reach the server: %1").arg(reply->errorString());
}

void RemoteEngine::listModels(const QUrl& baseUrl, const QString& apiKey)
{
    if (!baseUrl.isValid()) {
        Q_EMIT listFailed(tr("That is not a server address. Type one like http://127.0.0.1:8080/v1."));
        return;
    }
    QUrl url = baseUrl;
    url.setPath(baseUrl.path() + QStringLiteral("/models"));
    QNetworkRequest get = request(url, apiKey);
    get.setTransferTimeout(15000);
    QNetworkReply* reply = m_network.get(get);
    connect(reply, &QNetworkReply::finished, this, [this, reply] {
        reply->deleteLater();
        const QByteArray body = reply->readAll();
        if (reply->error() != QNetworkReply::NoError) {
            Q_EMIT listFailed(failureText(reply, body));
            return;
        }
        const QJsonValue data = QJsonDocument::fromJson(body).object().value(QLatin1String("data"));
        if (!data.isArray()) {
            Q_EMIT listFailed(tr("The server's answer is not a list of models; is this an OpenAI-compatible server?"));
            return;
        }
        QStringList models;
        QList<int> contexts;
        for (const QJsonValue& entry : data.toArray()) {
            const QJsonObject model = entry.toObject();
            const QString id = model.value(QLatin1String("id")).toString();
            if (id.isEmpty())
                continue;
            models.append(id);
            // Each server names it differently: Hearth and vLLM, LM Studio, llama.cpp.
            int context = model.value(QLatin1String("context_length")).toInt();
            if (context <= 0)
                context = model.value(QLatin1String("max_model_len")).toInt();
            if (context <= 0)
                context = model.value(QLatin1String("max_context_length")).toInt();
            if (context <= 0)
                context = model.value(QLatin1String("meta")).toObject().value(QLatin1String("n_ctx_train")).toInt();
            contexts.append(qMax(0, context));
        }
        Q_EMIT modelsListed(models, contexts);
    });
}

void RemoteEngine::generate(quint64 requestId, const QList<ChatTurn>& turns, const SamplingSettings& sampling)
{
    if (m_reply) {
        Q_EMIT answerFailed(requestId, tr("Another answer is still streaming from the server."));
        return;
    }
    QJsonArray messages;
    for (const ChatTurn& turn : turns) {
        if (turn.role == QLatin1String("system") && turn.content.trimmed().isEmpty())
            continue;
        messages.append(QJsonObject { { QStringLiteral("role"), turn.role }, { QStringLiteral("content"), turn.content } });
    }
    QJsonObject body {
        { QStringLiteral("model"), m_model },
        { QStringLiteral("messages"), messages },
        { QStringLiteral("stream"), true },
        { QStringLiteral("stream_options"), QJsonObject { { QStringLiteral("include_usage"), true } } },
        { QStringLiteral("temperature"), qMin(2.0, sampling.temperature) },
        { QStringLiteral("top_p"), sampling.topP },
        { QStringLiteral("max_tokens"), sampling.maxTokens },
        { QStringLiteral("presence_penalty"), sampling.presencePenalty },
        { QStringLiteral("frequency_penalty"), sampling.frequencyPenalty },
    };
    if (sampling.seed >= 0)
        body.insert(QStringLiteral("seed"), sampling.seed);

    QUrl url = m_baseUrl;
    url.setPath(m_baseUrl.path() + QStringLiteral("/chat/completions"));
    m_requestId = requestId;
    m_buffer.clear();
    m_stats = {};
    m_done = m_stopped = m_failed = m_thinking = false;
    m_sinceRequest.start();
    m_reply = m_network.post(request(url, m_apiKey), QJsonDocument(body).toJson(QJsonDocument::Compact));
    connect(m_reply, &QNetworkReply::readyRead, this, &RemoteEngine::readEvents);
    connect(m_reply, &QNetworkReply::finished, this, &RemoteEngine::onReplyFinished);
}

void RemoteEngine::stop(quint64 requestId)
{
    if (!m_reply || requestId != m_requestId)
        return;
    m_stopped = true;
    m_reply->abort(); // finished() follows at once
}

void RemoteEngine::readEvents()
{
    if (!m_reply)
        return;
    const int status = m_reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (status >= 300)
        return; // the error body is read whole when the reply finishes
    m_buffer += m_reply->readAll();
    // Server-sent events: "data: <json>" lines, an empty line after each event.
    qsizetype end = 0;
    while ((end = m_buffer.indexOf('\n')) >= 0 && !m_failed) {
        QByteArray line = m_buffer.left(end);
        m_buffer.remove(0, end + 1);
        if (line.endsWith('\r'))
            line.chop(1);
        if (line.startsWith("data:"))
            handleEvent(line.mid(5).trimmed());
    }
}

void RemoteEngine::handleEvent(const QByteArray& data)
{
    if (data == "[DONE]") {
        m_done = true;
        return;
    }
    const QJsonObject event = QJsonDocument::fromJson(data).object();
    if (event.contains(QLatin1String("error"))) {
        m_failed = true;
        const QString message = event.value(QLatin1String("error")).toObject().value(QLatin1String("message")).toString();
        Q_EMIT answerFailed(m_requestId, tr("The server failed while answering: %1").arg(message));
        if (m_reply)
            m_reply->abort(); // nothing after an error event is part of the answer
        return;
    }
    const QJsonObject usage = event.value(QLatin1String("usage")).toObject();
    if (!usage.isEmpty()) {
        m_stats.promptTokens = usage.value(QLatin1String("prompt_tokens")).toInt();
        m_stats.generatedTokens = usage.value(QLatin1String("completion_tokens")).toInt(m_stats.generatedTokens);
        m_stats.contextUsed = m_stats.promptTokens + m_stats.generatedTokens;
        Q_EMIT contextUsed(m_requestId, m_stats.contextUsed);
    }
    const QJsonArray choices = event.value(QLatin1String("choices")).toArray();
    if (choices.isEmpty())
        return;
    const QJsonObject choice = choices.first().toObject();
    const QJsonObject delta = choice.value(QLatin1String("delta")).toObject();
    // A reasoning model's thinking, sent apart (llama.cpp, DeepSeek, Hearth): the chat keeps it
    // in <think> tags, as a local model writes it, and folds it the same way.
    const QString reasoning = delta.value(QLatin1String("reasoning_content")).toString();
    const QString content = delta.value(QLatin1String("content")).toString();
    QString text;
    if (!reasoning.isEmpty()) {
        text += (m_thinking ? QString() : QStringLiteral("<think>")) + reasoning;
        m_thinking = true;
    }
    if (!content.isEmpty()) {
        text += (m_thinking ? QStringLiteral("</think>\n\n") : QString()) + content;
        m_thinking = false;
    }
    if (!text.isEmpty()) {
        if (m_stats.generatedTokens == 0)
            m_stats.timeToFirstTokenMs = double(m_sinceRequest.nsecsElapsed()) / 1e6;
        ++m_stats.generatedTokens; // an estimate until the usage counts arrive: a chunk is about a token
        Q_EMIT tokenGenerated(m_requestId, text);
    }
    const QString reason = choice.value(QLatin1String("finish_reason")).toString();
    if (!reason.isEmpty()) {
        m_stats.reachedMaxTokens = reason == QLatin1String("length");
        m_done = true; // some servers end with the finish reason and no [DONE]
    }
}

void RemoteEngine::onReplyFinished()
{
    QNetworkReply* reply = m_reply;
    if (!reply)
        return;
    if (!m_stopped && !m_failed && reply->error() == QNetworkReply::NoError)
        readEvents(); // whatever arrived with the end of the stream
    m_reply.clear();
    reply->deleteLater();
    if (m_failed)
        return;
    const double seconds = double(m_sinceRequest.nsecsElapsed()) / 1e9;
    m_stats.generateSeconds = qMax(0.0, seconds - m_stats.timeToFirstTokenMs / 1e3);
    if (m_stopped) {
        m_stats.stopped = true;
        Q_EMIT answerFinished(m_requestId, m_stats);
        return;
    }
    if (reply->error() != QNetworkReply::NoError) {
        Q_EMIT answerFailed(m_requestId, failureText(reply, reply->readAll()));
        return;
    }
    if (!m_done) {
        Q_EMIT answerFailed(m_requestId, tr("The server closed the connection before the answer was complete."));
        return;
    }
    qCInfo(lcOpenAi) << "remote answer:" << m_stats.generatedTokens << "tokens in" << seconds << "s";
    Q_EMIT answerFinished(m_requestId, m_stats);
}

} // namespace hearth::openai
