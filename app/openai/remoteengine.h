// SPDX-License-Identifier: MIT
#pragma once

#include "engine_worker.h"
#include "sampling_settings.h"

#include <QElapsedTimer>
#include <QNetworkAccessManager>
#include <QObject>
#include <QPointer>
#include <QUrl>

class QNetworkReply;

namespace hearth::openai {

/// A model on an OpenAI-compatible server (llama.cpp's server, vLLM, Ollama, LM Studio, another
/// Hearth) that the chat window uses like a local one. Its signals are EngineWorker's, so the
/// window handles a streamed remote answer exactly as a local one. Lives on the GUI thread;
/// Qt Network does the waiting.
///
///     RemoteEngine remote;
///     remote.setServer(RemoteEngine::normalizedBaseUrl("http://gpu-box:8000"), key, "qwen3-32b");
///     remote.generate(id, turns, sampling);    // tokenGenerated(id, ...) ..., answerFinished(id, ...)
class RemoteEngine : public QObject
{
    Q_OBJECT

public:
    explicit RemoteEngine(QObject* parent = nullptr);
    ~RemoteEngine() override;

    /// "host:port", "http://host:port" or ".../v1" as users type them, as the base URL the API's
    /// paths follow ("http://host:port/v1"); invalid when it cannot be one.
    [[nodiscard]] static QUrl normalizedBaseUrl(const QString& text);

    void setServer(const QUrl& baseUrl, const QString& apiKey, const QString& model);
    void setModel(const QString& model) { m_model = model; }
    [[nodiscard]] QUrl baseUrl() const { return m_baseUrl; }
    [[nodiscard]] QString apiKey() const { return m_apiKey; }
    [[nodiscard]] QString model() const { return m_model; }

    /// GET /models on @p baseUrl: answered with modelsListed() or listFailed().
    void listModels(const QUrl& baseUrl, const QString& apiKey);
    /// Streams the answer to @p turns from the server's model.
    void generate(quint64 requestId, const QList<hearth::app::ChatTurn>& turns, const hearth::app::SamplingSettings& sampling);
    /// Ends request @p requestId now, keeping what arrived: answerFinished() with stopped set.
    void stop(quint64 requestId);

Q_SIGNALS:
    /// @p contextLengths: per model, what the server says its context holds (0: it does not say).
    void modelsListed(const QStringList& models, const QList<int>& contextLengths);
    void listFailed(const QString& message);

    void tokenGenerated(quint64 requestId, const QString& text);
    void contextUsed(quint64 requestId, int tokens);
    /// Request @p requestId ended; its text is what tokenGenerated() delivered.
    void answerFinished(quint64 requestId, const hearth::app::AnswerStats& stats);
    void answerFailed(quint64 requestId, const QString& message);

private:
    QNetworkRequest request(const QUrl& url, const QString& apiKey) const;
    void readEvents();
    void handleEvent(const QByteArray& data);
    void onReplyFinished();
    /// The server's own words for a failed request, else Qt's.
    static QString failureText(QNetworkReply* reply, const QByteArray& body);

    QNetworkAccessManager m_network;
    QUrl m_baseUrl;
    QString m_apiKey;
    QString m_model;

    // The one answer streaming now.
    QPointer<QNetworkReply> m_reply;
    quint64 m_requestId = 0;
    QByteArray m_buffer; ///< bytes of an event not yet complete
    hearth::app::AnswerStats m_stats;
    QElapsedTimer m_sinceRequest;
    bool m_done = false; ///< the server sent [DONE] or a finish reason
    bool m_thinking = false; ///< inside the `reasoning_content` the server sent, shown as <think>
    bool m_stopped = false;
    bool m_failed = false;
};

} // namespace hearth::openai
