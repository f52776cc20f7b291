// SPDX-License-Identifier: MIT
// Every dialog of the real window opens, the file and folder choosers included; a QML module
// that Qt's own file chooser needs but this installation lacks is a message, not a crash; the
// export dialog proposes a name, saves and says where; the empty first screen leads to the
// catalog; fields sit inside their dialogs and bubbles, framed, and no button is cut.

#include "app_info.h"
#include "app_test_support.h"
#include "app_settings.h"
#include "chat_with_session.h"
#include "chatstore.h"
#include "dialog_tour.h"
#include "filedialogsupport.h"
#include "language_manager.h"
#include "modelmanager.h"

#include <QDir>
#include <QFile>
#include <QFontMetricsF>
#include <QLibraryInfo>
#include <QQmlApplicationEngine>
#include <QQmlExtensionPlugin>
#include <QQuickItem>
#include <QQuickStyle>
#include <QQuickWindow>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <functional>

Q_IMPORT_QML_PLUGIN(Hearth_AppPlugin)
Q_IMPORT_QML_PLUGIN(Hearth_UiPlugin)

using hearth::app::DialogTour;
using hearth::app::FileDialogSupport;

namespace {

/// A copy of Qt's QML import folder, as links, without the modules named in @p hidden
/// ("Qt/labs/folderlistmodel"): an installation that lacks those packages.
bool mirrorQmlImportsWithout(const QString& target, const QStringList& hidden, const QString& relative = {})
{
    const QDir source(QLibraryInfo::path(QLibraryInfo::QmlImportsPath) + QLatin1Char('/') + relative);
    if (!QDir().mkpath(target + QLatin1Char('/') + relative))
        return false;
    const QStringList entries = source.entryList(QDir::AllEntries | QDir::NoDotAndDotDot);
    for (const QString& entry : entries) {
        const QString path = relative.isEmpty() ? entry : relative + QLatin1Char('/') + entry;
        if (hidden.contains(path))
            continue;
        const bool above = std::any_of(hidden.begin(), hidden.end(),
            [&](const QString& h) { return h.startsWith(path + QLatin1Char('/')); });
        if (above) {
            if (!mirrorQmlImportsWithout(target, hidden, path))
                return false;
        } else if (!QFile::link(source.filePath(entry), target + QLatin1Char('/') + path)) {
            return false;
        }
    }
    return true;
}

} // namespace

class TestFileDialogs : public QObject
{
    Q_OBJECT

    struct App {
        QTemporaryDir data;
        hearth::app::AppSettings settings{data.filePath(QStringLiteral("settings.ini"))};
        hearth::app::AppInfo info{data.path()};
        hearth::test::ChatWithSession chat;
        hearth::app::LanguageManager languages{nullptr};
        hearth::models::ModelManager models{nullptr};
        QQmlApplicationEngine engine;
        QStringList warnings;
        bool opened = false;

        App()
        {
            chat.session()->setSettings(&settings);
            chat.setSettings(&settings);
            models.setSettingsFile(settings.iniPath());
            opened = chat.openStore(data.filePath(QStringLiteral("chats.sqlite"))) && models.open(data.path());
            hearth::app::AppInfo::setInstance(&info);
            hearth::app::ModelSession::setInstance(chat.session());
            hearth::app::ChatController::setInstance(&chat);
            hearth::app::LanguageManager::setInstance(&languages);
            hearth::app::AppSettings::setInstance(&settings);
            hearth::models::ModelManager::setInstance(&models);
            languages.setLanguage(QStringLiteral("en"));
            languages.setQmlEngine(&engine);
            QObject::connect(&engine, &QQmlEngine::warnings, &engine, [this](const QList<QQmlError>& errors) {
                for (const QQmlError& error : errors)
                    warnings.append(error.toString());
            });
        }
        QQuickWindow* load()
        {
            if (!opened)
                return nullptr;
            engine.addImportPath(QStringLiteral("qrc:/qt/qml"));
            engine.load(QUrl(QStringLiteral("qrc:/qt/qml/Hearth/Ui/Main.qml")));
            if (engine.rootObjects().size() != 1)
                return nullptr;
            auto* window = qobject_cast<QQuickWindow*>(engine.rootObjects().constFirst());
            return window && QTest::qWaitForWindowExposed(window) ? window : nullptr;
        }
    };

    // Delegates of views have no QObject parent: found through the item tree.
    static QQuickItem* findItem(QQuickItem* root, const QString& name)
    {
        if (root->objectName() == name)
            return root;
        for (QQuickItem* child : root->childItems()) {
            if (QQuickItem* found = findItem(child, name))
                return found;
        }
        return nullptr;
    }

    // @p inner lies within @p outer, in scene coordinates.
    static bool inside(const QQuickItem* inner, const QQuickItem* outer)
    {
        const QRectF a = inner->mapRectToScene(QRectF(0, 0, inner->width(), inner->height()));
        const QRectF b = outer->mapRectToScene(QRectF(0, 0, outer->width(), outer->height()));
        return b.adjusted(-0.5, -0.5, 0.5, 0.5).contains(a);
    }

    static void click(QQuickWindow* window, const char* objectName)
    {
        auto* item = window->findChild<QQuickItem*>(QString::fromLatin1(objectName));
        QVERIFY2(item, objectName);
        QTest::mouseClick(window, Qt::LeftButton, {}, item->mapToScene(QPointF(item->width() / 2, item->height() / 2)).toPoint());
    }

    QTemporaryDir m_home;

private Q_SLOTS:
    void initTestCase()
    {
        QQuickStyle::setStyle(QStringLiteral("Fusion"));
        // Exports are proposed in the Documents folder: one of the test's own.
        QVERIFY(m_home.isValid());
        QVERIFY(QDir(m_home.path()).mkpath(QStringLiteral("Documents")));
        qputenv("HOME", m_home.path().toLocal8Bit());
        qunsetenv("XDG_DOCUMENTS_DIR");
        qputenv("XDG_CONFIG_HOME", m_home.filePath(QStringLiteral(".config")).toLocal8Bit());
    }

    // In a process of its own: once an engine has imported a module, Qt keeps it registered for
    // every later engine, and remembers where each plugin was found.
    void missingModuleIsAMessage()
    {
        if (qEnvironmentVariableIsEmpty("HEARTH_TEST_WITHOUT_FOLDERLISTMODEL")) {
            QProcess child;
            QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
            env.insert(QStringLiteral("HEARTH_TEST_WITHOUT_FOLDERLISTMODEL"), QStringLiteral("1"));
            child.setProcessEnvironment(env);
            child.setProcessChannelMode(QProcess::MergedChannels);
            child.start(QCoreApplication::applicationFilePath(), {QStringLiteral("missingModuleIsAMessage")});
            QVERIFY(child.waitForFinished(120000));
            const QByteArray output = child.readAll();
            QVERIFY2(child.exitStatus() == QProcess::NormalExit && child.exitCode() == 0, output.constData());
            QVERIFY2(output.contains("PASS   : TestFileDialogs::missingModuleIsAMessage()"), output.constData());
            return;
        }
        QTemporaryDir imports;
        QVERIFY(mirrorQmlImportsWithout(imports.path(), {QStringLiteral("Qt/labs/folderlistmodel")}));
        App app;
        app.engine.setImportPathList({imports.path()});
        QQuickWindow* window = app.load();
        QVERIFY(window);
        FileDialogSupport probe(&app.engine, FileDialogSupport::defaultRequirements());
        QVERIFY2(!probe.available(), qPrintable(app.engine.importPathList().join(QLatin1Char(' '))));

        click(window, "openModelButton");
        auto* problem = window->findChild<QObject*>(QStringLiteral("dialogProblem"));
        QVERIFY(problem);
        QTRY_VERIFY(problem->property("visible").toBool());
        auto* text = window->findChild<QObject*>(QStringLiteral("dialogProblemText"));
        QVERIFY(text);
        QVERIFY2(text->property("text").toString().contains(QStringLiteral("qml6-module-qt-labs-folderlistmodel")),
                 qPrintable(text->property("text").toString()));
        auto* chooser = window->findChild<QObject*>(QStringLiteral("modelDialog"));
        QVERIFY(chooser);
        QVERIFY(!chooser->property("visible").toBool());

        // The package check's tour says so too, without opening (and crashing in) a chooser.
        DialogTour tour(window);
        QSignalSpy finished(&tour, &DialogTour::finished);
        tour.start();
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 60000);
        QVERIFY(!finished.at(0).at(0).toBool());
        QVERIFY(tour.report().constFirst().contains(QStringLiteral("Qt.labs.folderlistmodel")));
    }

    void everyDialogOpens()
    {
        App app;
        QQuickWindow* window = app.load();
        QVERIFY(window);
        QVERIFY2(app.warnings.isEmpty(), qPrintable(app.warnings.join(QLatin1Char('\n'))));

        DialogTour tour(window);
        QStringList names;
        for (QObject* dialog : tour.dialogs())
            names.append(DialogTour::describe(dialog));
        // The choosers of the window, the Installed section and the Convert tab, and the app's own.
        for (const char* expected : {"modelDialog", "exportDialog", "settingsDialog", "chatSettingsDialog"})
            QVERIFY2(names.contains(QString::fromLatin1(expected)), qPrintable(names.join(QLatin1Char('\n'))));
        QVERIFY2(names.filter(QStringLiteral("QQuickFolderDialog")).size() >= 3, qPrintable(names.join(QLatin1Char('\n'))));
        QVERIFY2(names.filter(QStringLiteral("QQuickFileDialog")).size() >= 3, qPrintable(names.join(QLatin1Char('\n'))));

        QSignalSpy finished(&tour, &DialogTour::finished);
        tour.start();
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 60000);
        QVERIFY2(finished.at(0).at(0).toBool(), qPrintable(tour.report().join(QLatin1Char('\n'))));
        QCOMPARE(tour.report().filter(QStringLiteral("opened ")).size(), names.size());
    }

    void supportNamesModulesAndPackages()
    {
        QQmlEngine engine;
        FileDialogSupport present(&engine, FileDialogSupport::defaultRequirements());
        QVERIFY2(present.available(), qPrintable(present.problem()));
        QVERIFY(present.problem().isEmpty());
        FileDialogSupport absent(&engine, {{QStringLiteral("Hearth.NoSuchModule"), QStringLiteral("hearth-no-such-package")},
                                           {QStringLiteral("QtQuick"), QStringLiteral("qml6-module-qtquick")}});
        QVERIFY(!absent.available());
        QCOMPARE(absent.missingModules(), QStringList{QStringLiteral("Hearth.NoSuchModule")});
        QVERIFY(absent.problem().contains(QStringLiteral("hearth-no-such-package")));
        QVERIFY(!absent.problem().contains(QStringLiteral("qml6-module-qtquick ")));
    }

    void exportProposesANameSavesAndConfirms()
    {
        App app;
        QQuickWindow* window = app.load();
        QVERIFY(window);
        const auto id = app.chat.store()->createConversation(QStringLiteral("Trip: Bali / Lombok?"));
        QVERIFY(id);
        QVERIFY(app.chat.store()->addMessage(*id, 0, QStringLiteral("user"), QStringLiteral("Where first?")));

        auto* sidebar = window->findChild<QObject*>(QStringLiteral("sidebar"));
        QVERIFY(sidebar);
        QVERIFY(QMetaObject::invokeMethod(sidebar, "exportRequested", Q_ARG(QVariant, QVariant::fromValue(*id)),
                                          Q_ARG(QString, QStringLiteral("Trip: Bali / Lombok?")),
                                          Q_ARG(QString, QStringLiteral("markdown"))));
        auto* dialog = window->findChild<QObject*>(QStringLiteral("exportDialog"));
        QVERIFY(dialog);
        QTRY_VERIFY(dialog->property("visible").toBool());
        QCOMPARE(dialog->property("acceptLabel").toString(), QStringLiteral("Save"));
        const QString target = QDir(m_home.path()).filePath(QStringLiteral("Documents/Trip Bali Lombok.md"));
        QCOMPARE(dialog->property("selectedFile").toUrl(), QUrl::fromLocalFile(target));

        // The user takes the proposal: Save.
        QVERIFY(QMetaObject::invokeMethod(dialog, "accept"));
        QTRY_VERIFY(QFile::exists(target));
        QFile written(target);
        QVERIFY(written.open(QIODevice::ReadOnly));
        QVERIFY(written.readAll().contains("Where first?"));
        auto* notice = window->findChild<QObject*>(QStringLiteral("noticeLabel"));
        QVERIFY(notice);
        QTRY_VERIFY(notice->property("visible").toBool());
        QVERIFY(notice->property("text").toString().contains(target));
    }

    void emptyScreenPointsToTheCatalog()
    {
        App app;
        QQuickWindow* window = app.load();
        QVERIFY(window);
        QCOMPARE(window->property("showingModels").toBool(), false);
        auto* button = window->findChild<QQuickItem*>(QStringLiteral("browseCatalogButton"));
        QVERIFY(button);
        QTRY_VERIFY(button->isVisible());
        click(window, "browseCatalogButton");
        QTRY_VERIFY(window->property("showingModels").toBool());
    }

    void controlsFitAndShow()
    {
        App app;
        QQuickWindow* window = app.load();
        QVERIFY(window);
        const auto id = app.chat.store()->createConversation(QStringLiteral("Short"));
        QVERIFY(app.chat.store()->addMessage(*id, 0, QStringLiteral("user"), QStringLiteral("Hi")));
        app.chat.openConversation(*id);

        // Editing a two-letter message: the editor is framed and both buttons show whole.
        QTRY_VERIFY(findItem(window->contentItem(), QStringLiteral("editArea")));
        QQuickItem* editor = findItem(window->contentItem(), QStringLiteral("editArea"));
        QQuickItem* bubble = editor;
        while (bubble && !bubble->property("editing").isValid())
            bubble = bubble->parentItem();
        QVERIFY(bubble);
        bubble->setProperty("editing", true);
        QTRY_VERIFY(editor->isVisible());
        auto* frame = editor->property("background").value<QQuickItem*>();
        QVERIFY(frame && frame->isVisible() && frame->width() > 0);
        // The buttons of the row under the editor, inside the bubble's frame.
        QQuickItem* frameOfBubble = editor->parentItem()->parentItem();
        QList<QQuickItem*> buttons;
        for (QQuickItem* sibling : editor->parentItem()->childItems()) {
            for (QQuickItem* item : sibling->childItems()) {
                if (item->inherits("QQuickButton") && item->isVisible())
                    buttons.append(item);
            }
        }
        QCOMPARE(buttons.size(), 2);
        for (QQuickItem* button : buttons) {
            const QString text = button->property("text").toString();
            QVERIFY2(button->width() >= button->implicitWidth() - 0.5, qPrintable(text));
            QVERIFY2(inside(button, frameOfBubble), qPrintable(text));
        }
        bubble->setProperty("editing", false);

        // The rename field lies inside its dialog.
        QQuickItem* rename = findItem(window->contentItem(), QStringLiteral("renameField"));
        QObject* renameDialog = nullptr;
        for (QObject* o : window->findChildren<QObject*>()) {
            if (o->inherits("QQuickDialog") && o->property("title").toString() == QStringLiteral("Rename Chat"))
                renameDialog = o;
        }
        QVERIFY(renameDialog);
        QVERIFY(QMetaObject::invokeMethod(renameDialog, "open"));
        QTRY_VERIFY(renameDialog->property("opened").toBool());
        if (!rename)
            rename = findItem(window->contentItem(), QStringLiteral("renameField"));
        QVERIFY(rename);
        QVERIFY(inside(rename, renameDialog->property("contentItem").value<QQuickItem*>()));
        QVERIFY(QMetaObject::invokeMethod(renameDialog, "close"));

        // The system prompt field shows a frame before it has focus.
        QObject* settings = window->findChild<QObject*>(QStringLiteral("chatSettingsDialog"));
        QVERIFY(QMetaObject::invokeMethod(settings, "open"));
        QTRY_VERIFY(settings->property("opened").toBool());
        QQuickItem* prompt = findItem(window->contentItem(), QStringLiteral("systemPromptField"));
        QVERIFY(prompt);
        QVERIFY(!prompt->hasActiveFocus());
        auto* promptFrame = prompt->property("background").value<QQuickItem*>();
        QVERIFY(promptFrame && promptFrame->isVisible() && promptFrame->width() > 0);
    }

    // Chat Settings warn when the answer may be longer than the model's context, offer what to do
    // when the chat outgrows it, and let the loaded model guess ahead: off, from the conversation,
    // or with a smaller installed model; the note under that choice explains it.
    void chatSettingsOfALoadedModel()
    {
        App app;
        QQuickWindow* window = app.load();
        QVERIFY(window);
        const QString model = hearth::test::makeTinyModel(app.data.path());
        if (model.isEmpty())
            QSKIP("no test model: hearth-synth is not built and ../shared is absent");
        app.chat.session()->loadModel(model);
        QTRY_VERIFY_WITH_TIMEOUT(app.chat.session()->state() == hearth::app::ModelSession::State::Ready, 60000);
        QObject* dialog = window->findChild<QObject*>(QStringLiteral("chatSettingsDialog"));
        QVERIFY(dialog);
        QVERIFY(QMetaObject::invokeMethod(dialog, "open"));
        QTRY_VERIFY(dialog->property("opened").toBool());
        QQuickItem* warning = findItem(window->contentItem(), QStringLiteral("maxTokensWarning"));
        QQuickItem* overflow = findItem(window->contentItem(), QStringLiteral("overflowBox"));
        QVERIFY(warning && overflow);

        const int context = app.chat.session()->contextLength();
        QVERIFY(context > 0);
        app.chat.setMaxTokens(2048); // the default, on a model of a few hundred tokens or less
        QCOMPARE(warning->isVisible(), 2048 >= context);
        app.chat.setMaxTokens(context + 1);
        QTRY_VERIFY(warning->isVisible());
        QVERIFY(warning->property("text").toString().contains(QString::number(context)));
        app.chat.setMaxTokens(std::max(1, context / 4));
        QTRY_VERIFY(!warning->isVisible());

        QCOMPARE(overflow->property("displayText").toString(), QStringLiteral("Leave the oldest messages out"));
        QVERIFY(QMetaObject::invokeMethod(overflow, "activated", Q_ARG(int, 1)));
        QCOMPARE(app.chat.sampling().value(QStringLiteral("context_overflow")).toString(), QStringLiteral("stop"));
        QTRY_COMPARE(overflow->property("displayText").toString(), QStringLiteral("Stop and say so"));

        QQuickItem* guessing = findItem(window->contentItem(), QStringLiteral("speculationBox"));
        QQuickItem* note = findItem(window->contentItem(), QStringLiteral("speculationNote"));
        QVERIFY(guessing && note);
        QVERIFY(guessing->isVisible() && note->isVisible());
        QCOMPARE(guessing->property("displayText").toString(), QStringLiteral("Off"));
        QVERIFY(note->property("text").toString().contains(QStringLiteral("same family")));
        QVERIFY(QMetaObject::invokeMethod(guessing, "activated", Q_ARG(int, 1)));
        QCOMPARE(app.chat.session()->speculation(), QStringLiteral("lookup"));
        QTRY_COMPARE(guessing->property("displayText").toString(), QStringLiteral("From the conversation's own text"));
        QVERIFY(QMetaObject::invokeMethod(guessing, "activated", Q_ARG(int, 0)));
        QCOMPARE(app.chat.session()->speculation(), QString());
    }

    // The font size steps through readable sizes, applies to the open window and its dialogs at
    // once, and at 16 pt the longer names and hints still fit their fields.
    void fontSizeAppliesAtOnceAndNothingClips()
    {
        App app;
        QQuickWindow* window = app.load();
        QVERIFY(window);
        QObject* dialog = window->findChild<QObject*>(QStringLiteral("settingsDialog"));
        QVERIFY(dialog);
        QVERIFY(QMetaObject::invokeMethod(dialog, "open"));
        QTRY_VERIFY(dialog->property("opened").toBool());
        QQuickItem* box = findItem(window->contentItem(), QStringLiteral("fontSizeBox"));
        QVERIFY(box);
        const QVariantList sizes = box->property("sizes").toList();
        QCOMPARE(sizes.value(0).toInt(), 0);
        QVERIFY(sizes.value(1).toInt() >= 8); // the step after "System" is readable

        QVERIFY(QMetaObject::invokeMethod(box, "activated", Q_ARG(int, int(sizes.indexOf(16)))));
        QCOMPARE(app.settings.fontSize(), 16);
        QTRY_COMPARE(window->property("font").value<QFont>().pointSize(), 16);
        QTRY_COMPARE(dialog->property("font").value<QFont>().pointSize(), 16);
        QCOMPARE(box->property("displayText").toString(), QStringLiteral("16 pt"));
        app.settings.setFontSize(3);
        QCOMPARE(app.settings.fontSize(), int(hearth::app::AppSettings::MinFontSize));
        app.settings.setFontSize(16);
        QTRY_COMPARE(window->property("font").value<QFont>().pointSize(), 16);

        const auto fits = [](QQuickItem* item, const QString& text) {
            const QFontMetricsF metrics(item->property("font").value<QFont>());
            const double room = item->width() - item->property("leftPadding").toDouble() - item->property("rightPadding").toDouble();
            return metrics.horizontalAdvance(text) <= room + 0.5;
        };
        QTRY_VERIFY(dialog->property("width").toDouble() > 520); // the dialog grows with the font
        for (const QString& code : {QStringLiteral("en"), QStringLiteral("id"), QStringLiteral("zh_CN")}) {
            QVERIFY(app.languages.setLanguage(code));
            QQuickItem* hint = findItem(window->contentItem(), QStringLiteral("hfTokenHint"));
            QVERIFY(hint);
            // The language boxes of the toolbar and of the dialog.
            for (const QString& name : {QStringLiteral("languageBox"), QStringLiteral("settingsLanguageBox")}) {
                QQuickItem* language = findItem(window->contentItem(), name);
                QVERIFY2(language, qPrintable(name));
                QTRY_VERIFY2(fits(language, language->property("displayText").toString()),
                             qPrintable(QStringLiteral("%1 %2: %3 in %4").arg(name, code, language->property("displayText").toString()).arg(language->width())));
                // As tall as its text, too.
                QTRY_VERIFY2(language->height() >= QFontMetricsF(language->property("font").value<QFont>()).height(),
                             qPrintable(QStringLiteral("%1: %2 high").arg(name).arg(language->height())));
            }
            // Hints wrap inside the dialog instead of running past its edge.
            QTRY_VERIFY2(inside(hint, dialog->property("contentItem").value<QQuickItem*>()), qPrintable(code));
        }
        app.languages.setLanguage(QStringLiteral("en"));
        app.settings.setFontSize(0);
    }

    // The Settings dialog speaks the chosen language everywhere, Qt's own buttons included, and
    // shows the theme in use when it opens.
    void settingsDialogFollowsTheLanguage()
    {
        App app;
        QQuickWindow* window = app.load();
        QVERIFY(window);
        app.settings.setTheme(QStringLiteral("dark"));
        QObject* dialog = window->findChild<QObject*>(QStringLiteral("settingsDialog"));
        QVERIFY(dialog);
        QVERIFY(QMetaObject::invokeMethod(dialog, "open"));
        QTRY_VERIFY(dialog->property("opened").toBool());
        QQuickItem* theme = findItem(window->contentItem(), QStringLiteral("themeBox"));
        QQuickItem* fontSize = findItem(window->contentItem(), QStringLiteral("fontSizeBox"));
        QQuickItem* threads = findItem(window->contentItem(), QStringLiteral("threadsBox"));
        QVERIFY(theme && fontSize && threads);
        QCOMPARE(theme->property("displayText").toString(), QStringLiteral("Dark"));
        QCOMPARE(fontSize->property("displayText").toString(), QStringLiteral("System"));
        QCOMPARE(threads->property("displayText").toString(), QStringLiteral("Automatic"));

        QVERIFY(app.languages.setLanguage(QStringLiteral("zh_CN")));
        QTRY_COMPARE(fontSize->property("displayText").toString(), QStringLiteral("系统"));
        QTRY_COMPARE(threads->property("displayText").toString(), QStringLiteral("自动"));
        QCOMPARE(theme->property("displayText").toString(), QStringLiteral("深色"));
        // Qt's own "Close" comes from qt6-translations-l10n, a dependency of the package.
        const QString qtTranslations = QLibraryInfo::path(QLibraryInfo::TranslationsPath);
        if (!QFile::exists(qtTranslations + QStringLiteral("/qtbase_zh_CN.qm")))
            QSKIP("Qt's translations are not installed here (scripts/setup-deps.sh installs them)");
        QQuickItem* footer = dialog->property("footer").value<QQuickItem*>();
        QVERIFY(footer);
        bool translatedClose = false;
        std::function<void(QQuickItem*)> scan = [&](QQuickItem* item) {
            if (item->inherits("QQuickAbstractButton") && item->property("text").toString() == QStringLiteral("关闭"))
                translatedClose = true;
            for (QQuickItem* child : item->childItems())
                scan(child);
        };
        QTRY_VERIFY((scan(footer), translatedClose));
        QVERIFY(app.languages.setLanguage(QStringLiteral("en")));
    }

    void suggestedNamesAreSafe()
    {
        using hearth::app::ChatController;
        QCOMPARE(ChatController::suggestedExportFile(QStringLiteral("a<b>c|d"), QStringLiteral("json")).fileName(),
                 QStringLiteral("a b c d.json"));
        QCOMPARE(ChatController::suggestedExportFile(QStringLiteral("../../etc/passwd"), QStringLiteral("md")).fileName(),
                 QStringLiteral("etc passwd.md"));
        QCOMPARE(ChatController::suggestedExportFile(QStringLiteral("   "), QStringLiteral("md")).fileName(),
                 QStringLiteral("Chat.md"));
        QVERIFY(ChatController::suggestedExportFile(QString(300, QLatin1Char('x')), QStringLiteral("md")).fileName().size() <= 83);
    }
};

QTEST_MAIN(TestFileDialogs)
#include "tst_file_dialogs.moc"
