// SPDX-License-Identifier: MIT
// The window loads with every QML import resolved and shows the parts users rely on.
// With HEARTH_SCREENSHOT=file.png it also saves what it rendered (HEARTH_SCREENSHOT_LANGUAGE picks
// the language, HEARTH_SCREENSHOT_MODEL=model.gguf adds a conversation with that model).

#include "app_info.h"
#include "app_test_support.h"
#include "chat_with_session.h"
#include "language_manager.h"

#include <QQmlApplicationEngine>
#include <QQmlExtensionPlugin>
#include <QQuickItem>
#include <QQuickStyle>
#include <QQuickWindow>
#include <QTemporaryDir>
#include <QTest>

Q_IMPORT_QML_PLUGIN(Hearth_AppPlugin)
Q_IMPORT_QML_PLUGIN(Hearth_UiPlugin)

namespace {
/// The services main() makes, handed to QML as its singletons, and the engine with Main.qml.
struct Window
{
    explicit Window(const QString& dataDir)
        : info(dataDir)
    {
        hearth::app::AppInfo::setInstance(&info);
        hearth::app::ModelSession::setInstance(chat.session());
        hearth::app::ChatController::setInstance(&chat);
        hearth::app::LanguageManager::setInstance(&languages);
        languages.setQmlEngine(&engine);
        engine.addImportPath(QStringLiteral("qrc:/qt/qml"));
    }

    /// In English, as the checks read it; false when Main.qml does not load.
    bool load()
    {
        if (!languages.setLanguage(QStringLiteral("en")))
            return false;
        engine.load(QUrl(QStringLiteral("qrc:/qt/qml/Hearth/Ui/Main.qml")));
        return engine.rootObjects().size() == 1;
    }

    /// load(), then @p model into the chat's session; false when either fails.
    bool loadWithModel(const QString& model)
    {
        if (!load())
            return false;
        chat.session()->loadModel(model);
        return QTest::qWaitFor(
            [this] { return chat.session()->state() == hearth::app::ModelSession::State::Ready; }, 60000);
    }

    hearth::app::AppInfo info;
    hearth::test::ChatWithSession chat;
    hearth::app::LanguageManager languages { nullptr };
    QQmlApplicationEngine engine;
};
} // namespace

class TestMainWindow : public QObject
{
    Q_OBJECT

    // The tiny model the chat checks load, made once; empty without hearth-synth and ../shared.
    QString tinyModel()
    {
        if (m_model.isEmpty())
            m_model = hearth::test::makeTinyModel(m_dir.path());
        return m_model;
    }

    QTemporaryDir m_dir;
    QString m_model;

private Q_SLOTS:
    void initTestCase() { QQuickStyle::setStyle(QStringLiteral("Fusion")); }

    void loadsAndSwitchesLanguage()
    {
        Window w(QStringLiteral("/tmp/hearth-test-data"));
        hearth::app::ChatController& chat = w.chat;
        hearth::app::LanguageManager& languages = w.languages;
        QQmlApplicationEngine& engine = w.engine;
        QStringList warnings;
        connect(&engine, &QQmlEngine::warnings, this, [&](const QList<QQmlError>& errors) {
            for (const QQmlError& error : errors)
                warnings.append(error.toString());
        });
        QVERIFY(w.load());
        auto* window = qobject_cast<QQuickWindow*>(engine.rootObjects().constFirst());
        QVERIFY(window);
        QVERIFY(QTest::qWaitForWindowExposed(window));
        QCOMPARE(window->title(), QStringLiteral("Hearth"));
        QVERIFY2(warnings.isEmpty(), qPrintable(warnings.join(QLatin1Char('\n'))));

        // QML sees the instances made here (the singletons' factories), not copies of its own.
        auto* languageBox = window->findChild<QObject*>(QStringLiteral("languageBox"));
        QVERIFY(languageBox);
        QCOMPARE(languageBox->property("displayText").toString(), QStringLiteral("English"));

        // Runtime switch: bindings re-evaluate through QQmlEngine::retranslate().
        QVERIFY(languages.setLanguage(QStringLiteral("id")));
        QTRY_COMPARE(languageBox->property("displayText").toString(), QStringLiteral("Bahasa Indonesia"));
        auto* composer = window->findChild<QObject*>(QStringLiteral("composerInput"));
        QVERIFY(composer);
        QTRY_COMPARE(
            composer->property("placeholderText").toString(), QStringLiteral("Buka model terlebih dahulu"));
        QVERIFY(languages.setLanguage(QStringLiteral("en")));
        QTRY_COMPARE(composer->property("placeholderText").toString(), QStringLiteral("Open a model first"));

        const QByteArray screenshot = qgetenv("HEARTH_SCREENSHOT");
        const QString model = QString::fromLocal8Bit(qgetenv("HEARTH_SCREENSHOT_MODEL"));
        if (!screenshot.isEmpty() && !model.isEmpty()) {
            // A conversation for the picture: the real engine, on its thread.
            chat.session()->loadModel(model);
            QTRY_COMPARE_WITH_TIMEOUT(chat.session()->state(), hearth::app::ModelSession::State::Ready, 60000);
            chat.send(QStringLiteral("Tell me a story about a little flame."));
            QTRY_COMPARE_WITH_TIMEOUT(chat.session()->state(), hearth::app::ModelSession::State::Ready, 60000);
            QCOMPARE(chat.messages()->rowCount(), 2);
        }
        if (!screenshot.isEmpty()) {
            QVERIFY(languages.setLanguage(QString::fromUtf8(qgetenv("HEARTH_SCREENSHOT_LANGUAGE").isEmpty()
                    ? QByteArray("en")
                    : qgetenv("HEARTH_SCREENSHOT_LANGUAGE"))));
            QTest::qWait(100);
            QVERIFY(window->grabWindow().save(QString::fromLocal8Bit(screenshot)));
        }
        QVERIFY2(warnings.isEmpty(), qPrintable(warnings.join(QLatin1Char('\n'))));
    }

    void statusBarPlacementFollowsTheLanguage()
    {
        // Where the model runs is worded by the app from the engine's facts, so it switches
        // language with the rest of the window (it was the engine's English before).
        if (tinyModel().isEmpty())
            QSKIP("no test model: hearth-synth is not built and ../shared is absent");
        Window w(m_dir.path());
        hearth::app::LanguageManager& languages = w.languages;
        QVERIFY(w.loadWithModel(tinyModel()));
        QObject* window = w.engine.rootObjects().constFirst();
        auto* label = window->findChild<QObject*>(QStringLiteral("placementLabel"));
        QVERIFY(label);
        QTRY_COMPARE(label->property("text").toString(), QStringLiteral("CPU only"));
        QVERIFY(languages.setLanguage(QStringLiteral("id")));
        QTRY_COMPARE(label->property("text").toString(), QStringLiteral("Hanya CPU"));
        QVERIFY(languages.setLanguage(QStringLiteral("zh_CN")));
        QTRY_COMPARE(label->property("text").toString(), QStringLiteral("仅 CPU"));
        QVERIFY(languages.setLanguage(QStringLiteral("en")));
    }

    void continueIsOfferedOnTheNewestCutOffAnswer()
    {
        if (tinyModel().isEmpty())
            QSKIP("no test model: hearth-synth is not built and ../shared is absent");
        Window w(m_dir.path());
        hearth::app::ChatController& chat = w.chat;
        QVERIFY(chat.openStore(m_dir.filePath(QStringLiteral("chats.sqlite"))));
        QVERIFY(w.loadWithModel(tinyModel()));
        QObject* window = w.engine.rootObjects().constFirst();
        // The list's delegates are its content item's visual children, not QObject children.
        auto* list = window->findChild<QQuickItem*>(QStringLiteral("messageList"));
        QVERIFY(list);
        const auto visibleButtons = [list] {
            QList<QQuickItem*> shown;
            QList<QQuickItem*> items = list->property("contentItem").value<QQuickItem*>()->childItems();
            while (!items.isEmpty()) {
                QQuickItem* item = items.takeLast();
                if (item->objectName() == QLatin1String("continueButton") && item->isVisible())
                    shown.append(item);
                items.append(item->childItems());
            }
            return shown;
        };
        // A fixed seed: the random model writes the same tokens on every run (and no early end
        // of turn here).
        QVariantMap seeded = chat.sampling();
        seeded.insert(QStringLiteral("seed"), 1);
        chat.setSampling(seeded);
        chat.setMaxTokens(3);
        chat.send(QStringLiteral("Tell me about candles."));
        QTRY_COMPARE_WITH_TIMEOUT(chat.session()->state(), hearth::app::ModelSession::State::Ready, 60000);
        QTRY_COMPARE(visibleButtons().size(), 1);
        QVERIFY(QMetaObject::invokeMethod(visibleButtons().constFirst(), "clicked"));
        QTRY_COMPARE_WITH_TIMEOUT(chat.session()->state(), hearth::app::ModelSession::State::Ready, 60000);
        QCOMPARE(chat.messages()->rowCount(), 2);
        QCOMPARE(chat.messages()->at(1).tokenCount, 6);
        // A newer question and answer: the earlier answer can no longer go on.
        chat.setMaxTokens(64);
        chat.send(QStringLiteral("And lamps?"));
        QTRY_COMPARE_WITH_TIMEOUT(chat.session()->state(), hearth::app::ModelSession::State::Ready, 60000);
        // Cut off by the length limit, or by a full context (its sampled length varies).
        const bool newestCut = chat.messages()->data(chat.messages()->index(3), hearth::app::MessageModel::EndedEarlyRole).toBool();
        QTRY_COMPARE(visibleButtons().size(), newestCut ? 1 : 0);
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_main_window.moc"
