// SPDX-License-Identifier: MIT
// The Models page in the real Main.qml, offscreen: reachable from the sidebar button and Ctrl+M,
// every section shows, the catalog has rows with fit badges, search results come from the local
// Hub imitation (HfTestServer), and the Downloads and Installed lists are bound to a
// DownloadManager downloading from it.

#include "app_info.h"
#include "app_settings.h"
#include "chat_with_session.h"
#include "hf_test_server.h"
#include "language_manager.h"
#include "modelmanager.h"
#include "placementpreview.h"

#include "synth/model_shape.h"
#include "synth/synthetic_model.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QQmlApplicationEngine>
#include <QQmlExtensionPlugin>
#include <QQuickItem>
#include <QQuickStyle>
#include <QQuickWindow>
#include <QTemporaryDir>
#include <QSignalSpy>
#include <QTest>

Q_IMPORT_QML_PLUGIN(Hearth_AppPlugin)
Q_IMPORT_QML_PLUGIN(Hearth_UiPlugin)

using hearth::models::ModelManager;
using hearth::test::HfTestServer;

namespace {
const QString kRepo = QStringLiteral("PowerInfer/ReluLLaMA-7B-PowerInfer-GGUF");
}

class TestModelsPage : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QByteArray m_model;
    HfTestServer m_server;
    std::unique_ptr<hearth::app::AppInfo> m_info;
    std::unique_ptr<hearth::app::AppSettings> m_settings;
    std::unique_ptr<hearth::app::ChatController> m_chat;
    std::unique_ptr<hearth::app::LanguageManager> m_languages;
    std::unique_ptr<ModelManager> m_models;
    std::unique_ptr<QQmlApplicationEngine> m_engine;
    QQuickWindow* m_window = nullptr;
    QStringList m_warnings;

    template<typename T = QObject>
    T* find(const QString& name) const
    {
        return m_window ? m_window->findChild<T*>(name) : nullptr;
    }

    /// Items named @p name below the window's content, delegates of views included (they have
    /// a parent item but no QObject parent, so findChildren() misses them).
    QList<QQuickItem*> items(const QString& name) const
    {
        QList<QQuickItem*> found;
        QList<QQuickItem*> pending { m_window->contentItem() };
        while (!pending.isEmpty()) {
            QQuickItem* item = pending.takeLast();
            if (item->objectName() == name)
                found.append(item);
            pending.append(item->childItems());
        }
        return found;
    }

    bool isShown(const QString& name) const
    {
        auto* item = find<QQuickItem>(name);
        return item && item->isVisible() && item->width() > 0 && item->height() > 0;
    }

    void showSection(int section)
    {
        QObject* page = find(QStringLiteral("modelsPage"));
        QVERIFY(page);
        QVERIFY(QMetaObject::invokeMethod(page, "showSection", Q_ARG(QVariant, section)));
    }

private Q_SLOTS:
    void initTestCase()
    {
        qunsetenv("HF_TOKEN");
        qunsetenv("HF_ENDPOINT");
        qunsetenv("HEARTH_FAKE_GPU_GB");
        QQuickStyle::setStyle(QStringLiteral("Fusion"));
        QVERIFY(m_dir.isValid());

        hearth::synth::SynthOptions options;
        options.shape = *hearth::synth::shapeByName("tiny");
        options.shape.vocabSize = 300;
        options.type = hearth::DType::Q8_0;
        const QString model = m_dir.filePath(QStringLiteral("fixture.gguf"));
        const hearth::Status written = hearth::synth::writeSyntheticModel(options, model.toStdString());
        QVERIFY2(written.ok(), written.message().c_str());
        QFile file(model);
        QVERIFY(file.open(QIODevice::ReadOnly));
        m_model = file.readAll();

        QVERIFY(m_server.listen());
        m_server.addFile(kRepo, QStringLiteral("tiny-relu.q8.gguf"), m_model);
        m_server.addFile(kRepo, QStringLiteral("README.md"), QByteArray("# tiny\n"), false);
        m_server.addSearchResult(QJsonObject { { QStringLiteral("id"), kRepo },
            { QStringLiteral("tags"), QJsonArray { QStringLiteral("gguf"), QStringLiteral("llama") } },
            { QStringLiteral("downloads"), 1234 }, { QStringLiteral("likes"), 56 } });
        m_server.addSearchResult(QJsonObject { { QStringLiteral("id"), QStringLiteral("someone/vision-model") },
            { QStringLiteral("tags"), QJsonArray { QStringLiteral("clip") } } });

        const QString data = m_dir.filePath(QStringLiteral("data"));
        m_info = std::make_unique<hearth::app::AppInfo>(data);
        m_settings = std::make_unique<hearth::app::AppSettings>(m_dir.filePath(QStringLiteral("settings.ini")));
        m_chat = std::make_unique<hearth::test::ChatWithSession>();
        m_chat->session()->setSettings(m_settings.get());
        m_chat->setSettings(m_settings.get());
        m_languages = std::make_unique<hearth::app::LanguageManager>(nullptr);
        QVERIFY(m_languages->setLanguage(QStringLiteral("en")));
        m_models = std::make_unique<ModelManager>(nullptr);
        m_models->setEndpoint(m_server.endpoint().toString());
        m_models->setSettingsFile(m_settings->iniPath());
        m_models->downloadManager()->setDiskMargin(0);
        QVERIFY2(m_models->open(data), qPrintable(m_models->lastError()));

        hearth::app::AppInfo::setInstance(m_info.get());
        hearth::app::AppSettings::setInstance(m_settings.get());
        hearth::app::ModelSession::setInstance(m_chat->session());
        hearth::app::ChatController::setInstance(m_chat.get());
        hearth::app::LanguageManager::setInstance(m_languages.get());
        ModelManager::setInstance(m_models.get());

        m_engine = std::make_unique<QQmlApplicationEngine>();
        m_languages->setQmlEngine(m_engine.get());
        m_engine->addImportPath(QStringLiteral("qrc:/qt/qml"));
        connect(m_engine.get(), &QQmlEngine::warnings, this, [this](const QList<QQmlError>& errors) {
            for (const QQmlError& error : errors)
                m_warnings.append(error.toString());
        });
        m_engine->load(QUrl(QStringLiteral("qrc:/qt/qml/Hearth/Ui/Main.qml")));
        QCOMPARE(m_engine->rootObjects().size(), 1);
        m_window = qobject_cast<QQuickWindow*>(m_engine->rootObjects().constFirst());
        QVERIFY(m_window);
        QVERIFY(QTest::qWaitForWindowExposed(m_window));
        QVERIFY2(m_warnings.isEmpty(), qPrintable(m_warnings.join(QLatin1Char('\n'))));
    }

    void cleanupTestCase()
    {
        m_engine.reset();
        m_models.reset();
        m_chat.reset();
    }

    void opensFromSidebarAndShortcut()
    {
        QVERIFY(!isShown(QStringLiteral("modelsPage")));
        QObject* button = find(QStringLiteral("modelsButton"));
        QVERIFY(button);
        QVERIFY(QMetaObject::invokeMethod(button, "clicked"));
        QTRY_VERIFY(isShown(QStringLiteral("modelsPage")));
        QVERIFY(button->property("checked").toBool());

        // Ctrl+M goes back to the chat and opens the page again.
        m_window->requestActivate();
        QTest::keyClick(m_window, Qt::Key_M, Qt::ControlModifier);
        QTRY_VERIFY(!isShown(QStringLiteral("modelsPage")));
        QVERIFY(isShown(QStringLiteral("composerInput")));
        QTest::keyClick(m_window, Qt::Key_M, Qt::ControlModifier);
        QTRY_VERIFY(isShown(QStringLiteral("modelsPage")));

        // "Back to Chat".
        QObject* back = find(QStringLiteral("backToChatButton"));
        QVERIFY(back);
        QVERIFY(QMetaObject::invokeMethod(back, "clicked"));
        QTRY_VERIFY(!isShown(QStringLiteral("modelsPage")));
        QVERIFY(QMetaObject::invokeMethod(m_window, "showModelsSection", Q_ARG(QVariant, QStringLiteral("catalog")),
            Q_ARG(QVariant, QString())));
        QTRY_VERIFY(isShown(QStringLiteral("modelsPage")));
    }

    void catalogShowsRowsWithBadges()
    {
        showSection(0);
        QTRY_VERIFY(isShown(QStringLiteral("catalogSection")));
        QObject* list = find(QStringLiteral("catalogList"));
        QVERIFY(list);
        QVERIFY(list->property("count").toInt() >= 5);
        QCOMPARE(list->property("count").toInt(), m_models->catalog()->rowCount());
        QTRY_VERIFY(!items(QStringLiteral("fitBadge")).isEmpty());
        const auto badges = items(QStringLiteral("fitBadge"));
        QVERIFY(std::any_of(badges.begin(), badges.end(),
            [](const QQuickItem* badge) { return !badge->property("text").toString().isEmpty(); }));
        QVERIFY(!items(QStringLiteral("downloadButton")).isEmpty());

        // The filter narrows the list.
        QObject* filter = find(QStringLiteral("catalogFilter"));
        QVERIFY(filter);
        filter->setProperty("text", QStringLiteral("falcon"));
        QTRY_VERIFY(list->property("count").toInt() < int(hearth::models::builtinCatalog().size()));
        QVERIFY(list->property("count").toInt() >= 1);
        // A mixture of experts says so instead of "Dense".
        filter->setProperty("text", QStringLiteral("30B-A3B"));
        QTRY_COMPARE(list->property("count").toInt(), 1);
        const auto mixtureBadgeShown = [this] {
            const auto kinds = items(QStringLiteral("kindBadge"));
            return std::any_of(kinds.begin(), kinds.end(),
                [](const QQuickItem* badge) { return badge->property("kind").toString() == QLatin1String("mixture"); });
        };
        QTRY_VERIFY(mixtureBadgeShown());
        filter->setProperty("text", QString());
        QTRY_COMPARE(list->property("count").toInt(), int(hearth::models::builtinCatalog().size()));
    }

    void searchMarksResultsAndListsFiles()
    {
        showSection(1);
        QTRY_VERIFY(isShown(QStringLiteral("searchSection")));
        QObject* field = find(QStringLiteral("hubSearchField"));
        QVERIFY(field);
        field->setProperty("text", QStringLiteral("e")); // both results' ids contain it
        QVERIFY(QMetaObject::invokeMethod(field, "accepted"));
        QObject* results = find(QStringLiteral("hubResultList"));
        QVERIFY(results);
        QTRY_COMPARE_WITH_TIMEOUT(results->property("count").toInt(), 2, 10000);
        auto* search = m_models->hubSearch();
        QCOMPARE(search->data(search->index(0), hearth::models::HubSearch::RepoIdRole).toString(), kRepo);
        QCOMPARE(search->data(search->index(1), hearth::models::HubSearch::SupportRole).toString(),
            QStringLiteral("unsupported"));
        QVERIFY(!search->data(search->index(1), hearth::models::HubSearch::ReasonRole).toString().isEmpty());

        m_models->listRepoFiles(kRepo);
        QTRY_VERIFY(isShown(QStringLiteral("repoFilesPane")));
        QObject* files = find(QStringLiteral("repoFileList"));
        QVERIFY(files);
        QTRY_COMPARE_WITH_TIMEOUT(files->property("count").toInt(), 2, 10000);
        QCOMPARE(m_models->repoFiles().constFirst().toMap().value(QStringLiteral("isModel")).toBool(), true);
    }

    void downloadsAndInstalledAreBoundToTheQueue()
    {
        showSection(2);
        QTRY_VERIFY(isShown(QStringLiteral("downloadsSection")));
        QObject* downloads = find(QStringLiteral("downloadList"));
        QVERIFY(downloads);
        QCOMPARE(downloads->property("count").toInt(), 0);

        m_models->downloadRepoFile(kRepo, QStringLiteral("tiny-relu.q8.gguf"));
        QTRY_COMPARE_WITH_TIMEOUT(downloads->property("count").toInt(), 1, 10000);
        QTRY_COMPARE_WITH_TIMEOUT(m_models->downloads()
                                      ->data(m_models->downloads()->index(0), hearth::models::DownloadListModel::StateRole)
                                      .toString(),
            QStringLiteral("completed"), 20000);
        QTRY_VERIFY(!items(QStringLiteral("downloadState")).isEmpty());
        QTRY_COMPARE(items(QStringLiteral("downloadState")).constFirst()->property("text").toString(),
            QStringLiteral("Installed"));

        showSection(3);
        QTRY_VERIFY(isShown(QStringLiteral("installedSection")));
        QObject* installed = find(QStringLiteral("installedList"));
        QVERIFY(installed);
        QTRY_COMPARE_WITH_TIMEOUT(installed->property("count").toInt(), 1, 20000);
        QObject* tab = find(QStringLiteral("installedTab"));
        QVERIFY(tab);
        QCOMPARE(tab->property("text").toString(), QStringLiteral("Installed (1)"));
        QTRY_VERIFY(!items(QStringLiteral("loadButton")).isEmpty());
    }

    void failedDownloadKeepsAnEntryWithRetry()
    {
        // A gated repository: its listing fails (401), the download is queued all the same and
        // fails with its reason; Downloads keeps the entry with Retry, and the error banner
        // stays on the Downloads section only.
        const QString gated = QStringLiteral("someone/gated-model");
        m_server.addFile(gated, QStringLiteral("gated.gguf"), m_model);
        m_server.setRequiredToken(gated, "licence-accepted");
        showSection(2);
        QTRY_VERIFY(isShown(QStringLiteral("downloadsSection")));
        hearth::models::DownloadListModel* list = m_models->downloads();
        const int before = list->rowCount();
        m_models->downloadRepoFile(gated, QStringLiteral("gated.gguf"));
        QTRY_COMPARE_WITH_TIMEOUT(list->rowCount(), before + 1, 10000);
        int row = -1;
        for (int r = 0; r < list->rowCount(); ++r) {
            if (list->data(list->index(r), hearth::models::DownloadListModel::FileNameRole).toString() == QStringLiteral("gated.gguf"))
                row = r;
        }
        QVERIFY(row >= 0);
        const QModelIndex index = list->index(row);
        QTRY_COMPARE_WITH_TIMEOUT(index.data(hearth::models::DownloadListModel::StateRole).toString(), QStringLiteral("failed"), 10000);
        QVERIFY(index.data(hearth::models::DownloadListModel::CanRetryRole).toBool());
        QVERIFY(!index.data(hearth::models::DownloadListModel::ErrorTextRole).toString().isEmpty());
        QVERIFY(!m_models->errorText().isEmpty());
        QTRY_VERIFY(isShown(QStringLiteral("modelsErrorLabel")));

        showSection(0);
        QTRY_VERIFY(!isShown(QStringLiteral("modelsErrorLabel")));
        QCOMPARE(m_models->errorText(), QString());
        // The entry stays, and goes when the user removes it.
        QCOMPARE(list->rowCount(), before + 1);
        QVERIFY(list->remove(index.data(hearth::models::DownloadListModel::IdRole).toLongLong()));
        QTRY_COMPARE(list->rowCount(), before);
    }

    void vramSectionShowsThePanel()
    {
        showSection(4);
        QTRY_VERIFY(isShown(QStringLiteral("vramSection")));
        QTRY_VERIFY(isShown(QStringLiteral("vramPanel")));
        QVERIFY(find(QStringLiteral("budgetSlider")));
        QVERIFY(find(QStringLiteral("applyButton")));

        // A catalog model planned from the page.
        QVERIFY(QMetaObject::invokeMethod(m_window, "showModelsSection", Q_ARG(QVariant, QStringLiteral("vram")),
            Q_ARG(QVariant, QStringLiteral("relullama-7b"))));
        QObject* summary = find(QStringLiteral("summaryLabel"));
        QVERIFY(summary);
        QTRY_VERIFY(!summary->property("text").toString().isEmpty());
        QObject* section = find(QStringLiteral("vramSection"));
        QVERIFY(section);
        auto* preview = section->property("preview").value<hearth::models::PlacementPreview*>();
        QVERIFY(preview);
        QCOMPARE(preview->modelName(), QStringLiteral("ReluLLaMA-7B"));

        // An installed file ("GPU Memory…" in the Installed section), read off the GUI thread.
        const QString installed = m_models->installedPath(kRepo, QStringLiteral("tiny-relu.q8.gguf"));
        QVERIFY(!installed.isEmpty());
        QObject* page = find(QStringLiteral("modelsPage"));
        page->setProperty("vramCatalogId", QString());
        page->setProperty("vramModelPath", installed);
        QTRY_COMPARE(preview->modelPath(), installed);
        QTRY_VERIFY(preview->modelReady());
        QVERIFY(!preview->loading());
        QCOMPARE(preview->modelName(), QStringLiteral("tiny-relu.q8"));
        QVERIFY(preview->rowCount() > 0);
        QVERIFY2(m_warnings.isEmpty(), qPrintable(m_warnings.join(QLatin1Char('\n'))));
    }

    // A catalog plan has nothing to apply; a model that starts running takes the section back,
    // and "Show the Running Model" returns to it from another model's plan.
    void vramSectionFollowsTheRunningModel()
    {
        QVERIFY(QMetaObject::invokeMethod(m_window, "showModelsSection", Q_ARG(QVariant, QStringLiteral("vram")),
            Q_ARG(QVariant, QStringLiteral("relullama-7b"))));
        QObject* section = find(QStringLiteral("vramSection"));
        QVERIFY(section);
        auto* preview = section->property("preview").value<hearth::models::PlacementPreview*>();
        QTRY_COMPARE(preview->modelName(), QStringLiteral("ReluLLaMA-7B"));
        QTRY_VERIFY(!isShown(QStringLiteral("applyButton")));
        QVERIFY(!isShown(QStringLiteral("showRunningButton"))); // nothing runs yet

        const QString installed = m_models->installedPath(kRepo, QStringLiteral("tiny-relu.q8.gguf"));
        QVERIFY(!installed.isEmpty());
        QSignalSpy ready(m_chat->session(), &hearth::app::ModelSession::modelReady);
        m_chat->session()->loadModel(installed);
        QVERIFY(ready.wait(60000));
        QTRY_COMPARE(preview->modelPath(), installed);
        QTRY_VERIFY(preview->modelReady());
        QVERIFY(preview->catalogId().isEmpty());
        QVERIFY(isShown(QStringLiteral("applyButton")));
        QVERIFY(isShown(QStringLiteral("runningPlacement")));
        QCOMPARE(preview->contextLength(), m_chat->session()->contextLength());

        // Another model's plan, then back.
        QVERIFY(QMetaObject::invokeMethod(m_window, "showModelsSection", Q_ARG(QVariant, QStringLiteral("vram")),
            Q_ARG(QVariant, QStringLiteral("relullama-7b"))));
        QTRY_VERIFY(isShown(QStringLiteral("showRunningButton")));
        QVERIFY(QMetaObject::invokeMethod(find(QStringLiteral("showRunningButton")), "clicked"));
        QTRY_COMPARE(preview->modelPath(), installed);
        QTRY_VERIFY(!isShown(QStringLiteral("showRunningButton")));
        QVERIFY2(m_warnings.isEmpty(), qPrintable(m_warnings.join(QLatin1Char('\n'))));
    }

    void convertSectionShowsThePanel()
    {
        QVERIFY(QMetaObject::invokeMethod(m_window, "showModelsSection", Q_ARG(QVariant, QStringLiteral("convert")),
            Q_ARG(QVariant, QString())));
        QTRY_VERIFY(isShown(QStringLiteral("convertSection")));
        QObject* section = find(QStringLiteral("convertSection"));
        QVERIFY(section);
        // The panel drives a conversion job of its own; a converted file goes to the Installed list.
        QVERIFY(section->property("job").value<QObject*>());
        QVERIFY2(m_warnings.isEmpty(), qPrintable(m_warnings.join(QLatin1Char('\n'))));
    }
};

QTEST_MAIN(TestModelsPage)
#include "tst_models_page.moc"
