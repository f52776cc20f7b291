// SPDX-License-Identifier: MIT
// Qt Quick Test runner for the QML components in ui_qml/. The setup gives QML a ChatController with
// a real ChatStore holding a few conversations, so the sidebar's search runs FTS5 for real.

#include "app_settings.h"
#include "chat_with_session.h"
#include "chatstore.h"

#include <QQmlEngine>
#include <QQmlExtensionPlugin>
#include <QQuickStyle>
#include <QTemporaryDir>
#include <QtQuickTest>

Q_IMPORT_QML_PLUGIN(Hearth_AppPlugin)
Q_IMPORT_QML_PLUGIN(Hearth_UiPlugin)

class Setup : public QObject
{
    Q_OBJECT

public:
    Setup() { QQuickStyle::setStyle(QStringLiteral("Fusion")); }

public Q_SLOTS:
    void qmlEngineAvailable(QQmlEngine* engine)
    {
        engine->addImportPath(QStringLiteral("qrc:/qt/qml"));
        if (m_chat)
            return;
        m_settings = std::make_unique<hearth::app::AppSettings>(m_dir.filePath(QStringLiteral("settings.ini")));
        m_chat = std::make_unique<hearth::test::ChatWithSession>();
        m_chat->session()->setSettings(m_settings.get());
        m_chat->setSettings(m_settings.get());
        if (!m_chat->openStore(m_dir.filePath(QStringLiteral("chats.sqlite"))))
            qFatal("cannot open the test store");
        hearth::ChatStore* store = m_chat->store();
        const QList<QPair<QString, QString>> chats {
            { QStringLiteral("Baking bread"), QStringLiteral("How long should sourdough proof?") },
            { QStringLiteral("Rust lifetimes"), QStringLiteral("Why does the borrow checker complain?") },
            { QStringLiteral("Garden"), QStringLiteral("When do tomatoes need support?") },
        };
        for (const auto& [title, question] : chats) {
            if (auto id = store->createConversation(title))
                (void)store->addMessage(*id, 0, QStringLiteral("user"), question);
        }
        m_chat->conversations()->refresh();
        hearth::app::ModelSession::setInstance(m_chat->session());
        hearth::app::ChatController::setInstance(m_chat.get());
        hearth::app::AppSettings::setInstance(m_settings.get());
    }

private:
    QTemporaryDir m_dir;
    std::unique_ptr<hearth::app::AppSettings> m_settings;
    std::unique_ptr<hearth::app::ChatController> m_chat;
};

QUICK_TEST_MAIN_WITH_SETUP(tst_qml_components, Setup)
#include "tst_qml_components.moc"
