// SPDX-License-Identifier: MIT
#pragma once

#include "sampling_settings.h"

#include <QObject>
#include <QString>

#include <memory>

namespace hearth::app {
class EngineThread;
}

namespace hearth::openai {

struct ApiServerOptions
{
    QString host = QStringLiteral("127.0.0.1"); ///< only this machine, unless the user says otherwise
    int port = 8080; ///< 0: any free port (tests)
    QString apiKey; ///< when set, every request but GET /health must send "Authorization: Bearer <key>"
    int maxRequests = 8; ///< running and waiting at once; more are answered 503
    qint64 maxBodyBytes = 8 << 20; ///< larger request bodies are answered 413
    hearth::app::SamplingSettings defaults; ///< for what a request leaves out
};

/// The OpenAI-compatible HTTP API over the one loaded model: GET /v1/models,
/// POST /v1/chat/completions and POST /v1/completions (streamed as server-sent events when the
/// request asks), GET /health. Requests run on the shared EngineThread one after another, between
/// the window's own answers; each renders its whole prompt, so the KV cache keeps only what a
/// request shares with the one before and no request sees another's turns. A client that goes
/// away stops its answer at the next token.
///
///     ApiServer server(engine);
///     if (!server.start({ .port = 8080 }))
///         qWarning() << server.errorString();   // e.g. the port is taken
///
/// HTTP is cpp-httplib's: requests are answered on its threads, which wait for the engine.
class ApiServer : public QObject
{
    Q_OBJECT

public:
    explicit ApiServer(const hearth::app::EngineThread& engine, QObject* parent = nullptr);
    /// Waits for the server's threads; requests still running are stopped.
    ~ApiServer() override;

    /// Listens as @p options say; false with errorString() when the address cannot be used.
    bool start(const ApiServerOptions& options);
    /// Stops listening at once; requests still running are stopped and their threads end soon after.
    void stop();

    [[nodiscard]] bool isRunning() const;
    [[nodiscard]] int port() const;
    /// The base URL clients use: "http://127.0.0.1:8080/v1".
    [[nodiscard]] QString baseUrl() const;
    [[nodiscard]] QString errorString() const;
    /// Requests answered 503 because maxRequests were running or waiting, since start().
    [[nodiscard]] int turnedAway() const;

Q_SIGNALS:
    void runningChanged();

private:
    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace hearth::openai
