// SPDX-License-Identifier: MIT
#include "server_controller.h"

#include "app_settings.h"

#include <QJSEngine>

namespace hearth::app {

namespace {
QPointer<ServerController> s_instance;
}

ServerController::ServerController(QObject* parent)
    : QObject(parent)
{
}

void ServerController::attach(const EngineThread& engine, AppSettings* settings)
{
    m_server = std::make_unique<hearth::openai::ApiServer>(engine);
    m_settings = settings;
    connect(m_server.get(), &hearth::openai::ApiServer::runningChanged, this, &ServerController::statusChanged);
    if (settings) {
        connect(settings, &AppSettings::serverChanged, this, &ServerController::apply);
    }
    apply();
}

ServerController::~ServerController() = default;

ServerController* ServerController::create(QQmlEngine*, QJSEngine*)
{
    if (s_instance) {
        QJSEngine::setObjectOwnership(s_instance, QJSEngine::CppOwnership);
        return s_instance;
    }
    return new ServerController(nullptr); // never attached: a window without the server (tests)
}

void ServerController::setInstance(ServerController* instance)
{
    s_instance = instance;
}

void ServerController::apply()
{
    if (!m_server)
        return;
    m_server->stop();
    m_errorText.clear();
    if (m_settings && m_settings->serverEnabled()) {
        hearth::openai::ApiServerOptions options;
        options.host = m_settings->serverHost();
        options.port = m_settings->serverPort();
        options.apiKey = m_settings->serverApiKey();
        options.defaults = m_settings->defaultSampling();
        if (!m_server->start(options))
            m_errorText = m_server->errorString();
    }
    Q_EMIT statusChanged();
}

} // namespace hearth::app
