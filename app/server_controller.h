// SPDX-License-Identifier: MIT
#pragma once

#include "apiserver.h"

#include <QObject>
#include <QPointer>
#include <QtQml/qqmlregistration.h>

#include <memory>

class QQmlEngine;
class QJSEngine;

namespace hearth::app {

class AppSettings;
class EngineThread;

/// The API server of Settings, as QML sees it: runs while AppSettings::serverEnabled is on, with
/// the address, port and key there, over the window's own engine thread (the one loaded model).
class ServerController : public QObject
{
    Q_OBJECT
    QML_ELEMENT
    QML_SINGLETON

    Q_PROPERTY(bool running READ running NOTIFY statusChanged)
    /// Where clients connect while running: "http://127.0.0.1:8080/v1".
    Q_PROPERTY(QString url READ url NOTIFY statusChanged)
    /// Why the server does not run although it is enabled (the port is taken, ...).
    Q_PROPERTY(QString errorText READ errorText NOTIFY statusChanged)

public:
    explicit ServerController(QObject* parent); // no default: QML must use create()
    ~ServerController() override;

    /// Serves over @p engine as @p settings say, from now on and whenever they change.
    void attach(const EngineThread& engine, AppSettings* settings);

    static ServerController* create(QQmlEngine*, QJSEngine*);
    static void setInstance(ServerController* instance);

    [[nodiscard]] bool running() const { return m_server && m_server->isRunning(); }
    [[nodiscard]] QString url() const { return m_server ? m_server->baseUrl() : QString(); }
    [[nodiscard]] QString errorText() const { return m_errorText; }

Q_SIGNALS:
    void statusChanged();

private:
    /// Starts, restarts or stops the server to match the settings.
    void apply();

    std::unique_ptr<hearth::openai::ApiServer> m_server; ///< once attached
    QPointer<AppSettings> m_settings;
    QString m_errorText;
};

} // namespace hearth::app
