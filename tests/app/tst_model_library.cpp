// SPDX-License-Identifier: MIT
// The installed-models library (ModelLibrary through ModelManager): imports are checked on a
// worker thread (valid, not a model, truncated, an unfinished .part), a verified download from
// the local Hub imitation appears while its .part never does, a download that fails its hash
// never appears, and the list survives a restart because it lives in the queue's database.

#include "hf_test_server.h"
#include "modelmanager.h"

#include "synth/model_shape.h"
#include "synth/synthetic_model.h"

#include <hearth/convert.h>
#include <hearth/placement.h>

#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using hearth::DownloadState;
using hearth::models::ModelLibrary;
using hearth::models::ModelManager;
using hearth::test::HfTestServer;

namespace {

const QString kRepo = QStringLiteral("hearth-test/tiny-llama");

QByteArray readAll(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

bool writeAll(const QString& path, const QByteArray& data)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly | QIODevice::Truncate) && file.write(data) == data.size();
}

} // namespace

class TestModelLibrary : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_fixtures;
    QString m_model; ///< a small valid GGUF written once
    std::unique_ptr<QTemporaryDir> m_data;
    std::unique_ptr<HfTestServer> m_server;

    std::unique_ptr<ModelManager> newManager()
    {
        auto manager = std::make_unique<ModelManager>(nullptr);
        manager->setEndpoint(m_server->endpoint().toString());
        manager->downloadManager()->setRetryPolicy(50, 200, 2);
        manager->downloadManager()->setProgressInterval(20);
        manager->downloadManager()->setDiskMargin(0);
        if (!manager->open(m_data->path()))
            qWarning() << manager->lastError();
        return manager;
    }

    static bool waitForScan(ModelLibrary* library)
    {
        QSignalSpy scanned(library, &ModelLibrary::scanned);
        return QTest::qWaitFor([&] { return !library->busy(); }, 20000) && (scanned.count() > 0 || !library->busy());
    }

    static bool import(ModelLibrary* library, const QString& path, QString* error = nullptr)
    {
        QSignalSpy imported(library, &ModelLibrary::imported);
        QSignalSpy failed(library, &ModelLibrary::importFailed);
        library->importPath(path);
        if (!QTest::qWaitFor([&] { return imported.count() + failed.count() > 0; }, 20000))
            return false;
        if (error && failed.count() > 0)
            *error = failed.first().first().toString();
        return imported.count() > 0;
    }

    /// Imports a copy of the test model (its path in @p copy) and downloads the model from the
    /// test server through @p manager; returns the download's path, empty when either failed.
    QString downloadAndImport(ModelManager* manager, QString& copy)
    {
        m_server->addFile(kRepo, QStringLiteral("tiny.gguf"), readAll(m_model));
        copy = m_data->filePath(QStringLiteral("imported.gguf"));
        ModelLibrary* library = manager->library();
        if (!QFile::copy(m_model, copy) || !waitForScan(library) || !import(library, copy))
            return {};
        manager->downloadRepoFile(kRepo, QStringLiteral("tiny.gguf"));
        const QString destination = manager->destinationFor(kRepo, QStringLiteral("tiny.gguf"));
        if (!QTest::qWaitFor([&] { return library->rowOfPath(destination) >= 0; }, 20000) || !waitForScan(library))
            return {};
        return destination;
    }

private Q_SLOTS:
    void initTestCase()
    {
        qunsetenv("HF_TOKEN");
        qunsetenv("HF_ENDPOINT");
        QVERIFY(m_fixtures.isValid());
        hearth::synth::SynthOptions options;
        options.shape = *hearth::synth::shapeByName("tiny");
        options.shape.vocabSize = 300;
        options.type = hearth::DType::Q8_0;
        m_model = m_fixtures.filePath(QStringLiteral("tiny.gguf"));
        const hearth::Status written = hearth::synth::writeSyntheticModel(options, m_model.toStdString());
        QVERIFY2(written.ok(), written.message().c_str());
    }

    void init()
    {
        m_data = std::make_unique<QTemporaryDir>();
        QVERIFY(m_data->isValid());
        m_server = std::make_unique<HfTestServer>();
        QVERIFY(m_server->listen());
    }

    void importsAValidModel()
    {
        auto manager = newManager();
        ModelLibrary* library = manager->library();
        QVERIFY(waitForScan(library));
        QCOMPARE(library->rowCount(), 0);

        QString error;
        QVERIFY2(import(library, m_model, &error), qPrintable(error));
        QTRY_COMPARE_WITH_TIMEOUT(library->rowCount(), 1, 20000);
        QVERIFY(waitForScan(library));
        const auto& model = library->models().constFirst();
        QCOMPARE(model.path, m_model);
        QCOMPARE(model.name, QStringLiteral("tiny"));
        QVERIFY(model.imported);
        QVERIFY(model.inspected);
        QCOMPARE(model.architecture, QStringLiteral("llama"));
        QVERIFY(model.sparsifiable); // SwiGLU: magnitude thresholds
        QVERIFY(model.layers > 0);
        QVERIFY(!model.fit.text.isEmpty());
        QVERIFY(library->errorText().isEmpty());
        const QModelIndex index = library->index(0);
        QCOMPARE(library->data(index, ModelLibrary::PathRole).toString(), m_model);
        QCOMPARE(library->data(index, ModelLibrary::FolderUrlRole).toUrl(), QUrl::fromLocalFile(m_fixtures.path()));

        // The same file twice is refused with a reason, not listed twice.
        QVERIFY(!import(library, m_model, &error));
        QVERIFY(error.contains(QStringLiteral("already")));
        QCOMPARE(library->rowCount(), 1);

        // Remove from the list: gone from the list, still on disk.
        QVERIFY(library->removeFromList(model.id));
        QTRY_COMPARE(library->rowCount(), 0);
        QVERIFY(QFile::exists(m_model));
    }

    // A dense ReLU model offers "Make Sparse…"; once sparse, it no longer does.
    void offersSmallerModelsOfTheSameVocabularyAsDrafts()
    {
        // Speculative decoding's draft models: smaller files with the same vocabulary, smallest
        // first; not the model itself, not a larger one, not one of another vocabulary.
        const auto write = [&](const QString& name, hearth::DType type, int vocab) {
            hearth::synth::SynthOptions options;
            options.shape = *hearth::synth::shapeByName("tiny");
            options.shape.vocabSize = vocab;
            options.type = type;
            const QString path = m_fixtures.filePath(name);
            return hearth::synth::writeSyntheticModel(options, path.toStdString()).ok() ? path : QString();
        };
        const QString target = write(QStringLiteral("target-f16.gguf"), hearth::DType::F16, 300);
        const QString q8 = write(QStringLiteral("draft-q8.gguf"), hearth::DType::Q8_0, 300);
        const QString q4 = write(QStringLiteral("draft-q4.gguf"), hearth::DType::Q4_0, 300);
        const QString larger = write(QStringLiteral("larger-f32.gguf"), hearth::DType::F32, 300);
        const QString other = write(QStringLiteral("other-q4.gguf"), hearth::DType::Q4_0, 2000);
        auto manager = newManager();
        ModelLibrary* library = manager->library();
        QVERIFY(waitForScan(library));
        QString error;
        for (const QString& path : {target, q8, q4, larger, other})
            QVERIFY2(!path.isEmpty() && import(library, path, &error), qPrintable(error));
        QTRY_COMPARE_WITH_TIMEOUT(library->rowCount(), 5, 20000);
        QVERIFY(waitForScan(library));
        QStringList offered;
        for (const QVariant& candidate : library->draftCandidates(target))
            offered << candidate.toMap().value(QStringLiteral("path")).toString();
        QCOMPARE(offered, (QStringList {q4, q8}));
        QVERIFY(library->draftCandidates(q4).isEmpty());
    }

    void offersToMakeDenseModelsSparse()
    {
        hearth::synth::SynthOptions options;
        options.shape = *hearth::synth::shapeByName("tiny");
        options.type = hearth::DType::F32;
        options.ffnActivation = "reglu";
        options.activationSparsity = 0.8;
        const QString relu = m_fixtures.filePath(QStringLiteral("relu.gguf"));
        QVERIFY(hearth::synth::writeSyntheticModel(options, relu.toStdString()).ok());
        // A SwiGLU model is offered too (magnitude thresholds); a GeGLU one is not.
        options.ffnActivation = "swiglu";
        options.activationSparsity = 0;
        const QString swiglu = m_fixtures.filePath(QStringLiteral("swiglu.gguf"));
        QVERIFY(hearth::synth::writeSyntheticModel(options, swiglu.toStdString()).ok());
        hearth::synth::SynthOptions gemma;
        gemma.architecture = "gemma2";
        gemma.shape = *hearth::synth::shapeByName("gemma2-tiny");
        gemma.type = hearth::DType::F32;
        gemma.ffnActivation = "geglu";
        const QString geglu = m_fixtures.filePath(QStringLiteral("geglu.gguf"));
        QVERIFY(hearth::synth::writeSyntheticModel(gemma, geglu.toStdString()).ok());
        // A SwiGLU model made sparse: shown as sparse, not offered again.
        hearth::SparsifyParams sparsify;
        sparsify.input = swiglu.toStdString();
        sparsify.output = m_fixtures.filePath(QStringLiteral("magnitude.gguf")).toStdString();
        sparsify.perplexityBound = 1.0; // a random model's perplexity says little
        const auto made = hearth::sparsifyModel(sparsify);
        QVERIFY2(made.ok(), made.message().c_str());
        const QString magnitude = QString::fromStdString(sparsify.output);
        auto manager = newManager();
        ModelLibrary* library = manager->library();
        QVERIFY(waitForScan(library));
        QString error;
        for (const QString& path : {relu, swiglu, geglu, magnitude})
            QVERIFY2(import(library, path, &error), qPrintable(error));
        QTRY_COMPARE_WITH_TIMEOUT(library->rowCount(), 4, 20000);
        QVERIFY(waitForScan(library));
        QHash<QString, bool> offered;
        QHash<QString, bool> sparse;
        for (int row = 0; row < library->rowCount(); ++row) {
            const QModelIndex index = library->index(row);
            const QString name = QFileInfo(library->data(index, ModelLibrary::PathRole).toString()).fileName();
            offered.insert(name, library->data(index, ModelLibrary::SparsifiableRole).toBool());
            sparse.insert(name, library->data(index, ModelLibrary::SparseRole).toBool());
        }
        QCOMPARE(offered.value(QStringLiteral("relu.gguf")), true);
        QCOMPARE(offered.value(QStringLiteral("swiglu.gguf")), true);
        QCOMPARE(offered.value(QStringLiteral("geglu.gguf")), false);
        QCOMPARE(offered.value(QStringLiteral("magnitude.gguf")), false);
        QCOMPARE(sparse.value(QStringLiteral("magnitude.gguf")), true);
        QCOMPARE(sparse.value(QStringLiteral("swiglu.gguf")), false);
        QCOMPARE(library->roleNames().value(ModelLibrary::SparsifiableRole), QByteArray("sparsifiable"));
    }

    void refusesFilesThatAreNotModels_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("expected");
        QTest::newRow("text") << QStringLiteral("text") << QStringLiteral("not a GGUF");
        QTest::newRow("truncated") << QStringLiteral("truncated") << QStringLiteral("truncated");
        QTest::newRow("header only") << QStringLiteral("header") << QStringLiteral("cannot be used");
        QTest::newRow("part file") << QStringLiteral("part") << QStringLiteral("unfinished download");
        QTest::newRow("missing") << QStringLiteral("missing") << QStringLiteral("does not exist");
    }

    void refusesFilesThatAreNotModels()
    {
        QFETCH(QString, kind);
        QFETCH(QString, expected);
        const QByteArray valid = readAll(m_model);
        QVERIFY(valid.size() > 1000);
        QString path = m_fixtures.filePath(kind + QStringLiteral(".gguf"));
        if (kind == QLatin1String("text")) {
            QVERIFY(writeAll(path, QByteArray("just some words, no model here\n").repeated(10)));
        } else if (kind == QLatin1String("truncated")) {
            QVERIFY(writeAll(path, valid.left(valid.size() / 2)));
        } else if (kind == QLatin1String("header")) {
            QVERIFY(writeAll(path, valid.left(200)));
        } else if (kind == QLatin1String("part")) {
            path += QStringLiteral(".part"); // complete bytes, but the name says unfinished
            QVERIFY(writeAll(path, valid));
        }

        auto manager = newManager();
        ModelLibrary* library = manager->library();
        QVERIFY(waitForScan(library));
        QString error;
        QVERIFY(!import(library, path, &error));
        QVERIFY2(error.contains(expected, Qt::CaseInsensitive), qPrintable(error));
        QCOMPARE(library->errorText(), error);
        QVERIFY(waitForScan(library));
        QCOMPARE(library->rowCount(), 0);
        QCOMPARE(manager->downloadManager()->items().size(), 0);
    }

    void verifiedDownloadAppearsAndPartNever()
    {
        const QByteArray body = readAll(m_model);
        // Slow enough to look at the .part while it grows.
        m_server->addFile(kRepo, QStringLiteral("tiny.gguf"), body).throttleBytesPerSecond = int(body.size()) * 2;
        m_server->addFile(kRepo, QStringLiteral("config.json"), QByteArray("{}"), false);

        auto manager = newManager();
        ModelLibrary* library = manager->library();
        QVERIFY(waitForScan(library));
        QSignalSpy queued(manager.get(), &ModelManager::downloadQueued);
        manager->downloadRepoFile(kRepo, QStringLiteral("tiny.gguf"));
        manager->downloadRepoFile(kRepo, QStringLiteral("config.json"));
        QTRY_COMPARE_WITH_TIMEOUT(queued.count(), 2, 10000);
        QCOMPARE(manager->downloads()->rowCount(), 2);

        const QString destination = manager->destinationFor(kRepo, QStringLiteral("tiny.gguf"));
        const QString part = destination + QStringLiteral(".part");
        QVERIFY(QTest::qWaitFor([&] { return QFileInfo(part).size() > 0; }, 10000));
        library->refresh();
        QVERIFY(waitForScan(library));
        QCOMPARE(library->rowCount(), 0); // bytes are arriving: not offered
        QVERIFY(library->paths().filter(QStringLiteral(".part")).isEmpty());

        QTRY_VERIFY_WITH_TIMEOUT(library->rowOfPath(destination) >= 0, 20000);
        QVERIFY(!QFile::exists(part));
        QVERIFY(waitForScan(library));
        QCOMPARE(library->rowCount(), 1); // config.json is a completed download, not a model
        QCOMPARE(manager->installedPath(kRepo, QStringLiteral("tiny.gguf")), destination);
        const auto& model = library->models().constFirst();
        QVERIFY(!model.imported);
        QCOMPARE(model.architecture, QStringLiteral("llama"));
        // The queue shows both downloads as done, the model with how it was checked.
        auto* downloads = manager->downloads();
        for (int row = 0; row < downloads->rowCount(); ++row) {
            const QModelIndex index = downloads->index(row);
            QCOMPARE(downloads->data(index, hearth::models::DownloadListModel::StateRole).toString(),
                QStringLiteral("completed"));
            QCOMPARE(downloads->data(index, hearth::models::DownloadListModel::ProgressRole).toDouble(), 1.0);
        }
    }

    void downloadWithWrongHashNeverAppears()
    {
        auto& file = m_server->addFile(kRepo, QStringLiteral("bad.gguf"), readAll(m_model));
        file.wrongBody = true;
        auto manager = newManager();
        ModelLibrary* library = manager->library();
        QVERIFY(waitForScan(library));
        QSignalSpy failed(manager->downloadManager(), &hearth::DownloadManager::downloadFailed);
        manager->downloadRepoFile(kRepo, QStringLiteral("bad.gguf"));
        QTRY_VERIFY_WITH_TIMEOUT(failed.count() > 0, 20000);
        QVERIFY(!manager->errorText().isEmpty());
        const QString destination = manager->destinationFor(kRepo, QStringLiteral("bad.gguf"));
        QVERIFY(!QFile::exists(destination));
        QVERIFY(!QFile::exists(destination + QStringLiteral(".part")));
        QVERIFY(waitForScan(library));
        QCOMPARE(library->rowCount(), 0);
    }

    void clearingDownloadsKeepsModelsInstalled()
    {
        {
            auto manager = newManager();
            ModelLibrary* library = manager->library();
            QString imported;
            QVERIFY(!downloadAndImport(manager.get(), imported).isEmpty());
            auto* downloads = manager->downloads();
            QVERIFY(downloads->rowCount() > 0);
            // "Clear Finished" tidies the Downloads list; the models stay installed.
            downloads->clearFinished();
            QCOMPARE(downloads->rowCount(), 0);
            QVERIFY(waitForScan(library));
            QCOMPARE(library->rowCount(), 2);
        }
        auto manager = newManager();
        QVERIFY(waitForScan(manager->library()));
        QCOMPARE(manager->library()->rowCount(), 2);
        QCOMPARE(manager->downloads()->rowCount(), 0);
    }

    void deletingADownloadedModelFreesTheDisk()
    {
        auto manager = newManager();
        ModelLibrary* library = manager->library();
        QString imported;
        const QString destination = downloadAndImport(manager.get(), imported);
        QVERIFY(!destination.isEmpty());
        QTRY_COMPARE_WITH_TIMEOUT(library->rowCount(), 2, 20000);
        const auto byPath = [&](const QString& path) {
            return library->models().at(library->rowOfPath(path));
        };
        // A placement cache and a statistics file beside it go too.
        QFile cache(QString::fromStdString(hearth::placementCachePath(destination.toStdString())));
        QVERIFY(cache.open(QIODevice::WriteOnly));
        cache.close();
        QFile stats(QString::fromStdString(hearth::statisticsPathFor(destination.toStdString())));
        QVERIFY(stats.open(QIODevice::WriteOnly));
        stats.close();

        // The user's own file is never deleted.
        QVERIFY(!library->deleteModel(byPath(imported).id));
        QVERIFY(QFile::exists(imported));

        QVERIFY(library->deleteModel(byPath(destination).id));
        QVERIFY(!QFile::exists(destination));
        QVERIFY(!QFile::exists(cache.fileName()));
        QVERIFY(!QFile::exists(stats.fileName()));
        QCOMPARE(library->rowOfPath(destination), -1);
        QCOMPARE(library->rowCount(), 1);
        // Gone from the downloads too, also after a restart.
        manager = newManager();
        QVERIFY(waitForScan(manager->library()));
        QCOMPARE(manager->library()->rowCount(), 1);
        QCOMPARE(manager->library()->models().constFirst().path, imported);
    }

    void catalogTakesTheRealSizes()
    {
        // Two of the catalog's repositories answer; every other listing fails (404).
        const QString ggufRepo = QStringLiteral("PowerInfer/ReluLLaMA-7B-PowerInfer-GGUF");
        const QString sourceRepo = QStringLiteral("SparseLLM/ReluLLaMA-7B");
        m_server->addFile(ggufRepo, QStringLiteral("llama-7b-relu.q4.powerinfer.gguf"), QByteArray(1234567, 'q'));
        m_server->addFile(sourceRepo, QStringLiteral("model.safetensors"), QByteArray(5000, 's'));
        m_server->addFile(sourceRepo, QStringLiteral("config.json"), QByteArray("{}"), false);
        const auto sizeTexts = [](hearth::models::ModelCatalog* catalog, const QString& id) {
            QStringList texts;
            const QVariant files = catalog->data(catalog->index(catalog->rowOf(id)),
                hearth::models::ModelCatalog::FilesRole);
            for (const QVariant& file : files.toList())
                texts.append(file.toMap().value(QStringLiteral("sizeText")).toString());
            return texts;
        };
        const QString exactGguf = hearth::models::formatSize(1234567, false);
        const QString exactSource = hearth::models::formatSize(5002, false);
        {
            auto manager = newManager();
            auto* catalog = manager->catalog();
            const int repos = int(catalog->reposWithApproximateSizes().size());
            QVERIFY(repos > 2);
            QVERIFY(sizeTexts(catalog, QStringLiteral("relullama-7b")).first().startsWith(QStringLiteral("≈")));
            QSignalSpy changed(catalog, &QAbstractItemModel::dataChanged);
            manager->refreshCatalogSizes();
            QTRY_COMPARE_WITH_TIMEOUT(sizeTexts(catalog, QStringLiteral("relullama-7b-source")),
                QStringList { exactSource }, 10000);
            QTRY_COMPARE_WITH_TIMEOUT(sizeTexts(catalog, QStringLiteral("relullama-7b")).first(), exactGguf, 10000);
            // The file the listing lacks keeps the catalog's size, marked approximate.
            QVERIFY(sizeTexts(catalog, QStringLiteral("relullama-7b")).last().startsWith(QStringLiteral("≈")));
            QVERIFY(!changed.isEmpty());
            // Every repository listed once; the failures said nothing.
            QTRY_COMPARE_WITH_TIMEOUT(m_server->requestsFor(QStringLiteral("/tree/")).size(), repos, 10000);
            manager->refreshCatalogSizes();
            QTest::qWait(100);
            QCOMPARE(m_server->requestsFor(QStringLiteral("/tree/")).size(), repos);
            QCOMPARE(manager->errorText(), QString());
            QVERIFY(!catalog->reposWithApproximateSizes().contains(sourceRepo));
        }
        {
            // The next run knows them without a network.
            m_server->clearRequests();
            auto manager = newManager();
            QCOMPARE(sizeTexts(manager->catalog(), QStringLiteral("relullama-7b")).first(), exactGguf);
            QCOMPARE(sizeTexts(manager->catalog(), QStringLiteral("relullama-7b-source")), QStringList { exactSource });
            QVERIFY(m_server->requests().isEmpty());
        }
        // A damaged cache is ignored.
        QFile cache(m_data->filePath(QStringLiteral("catalog-sizes.json")));
        QVERIFY(cache.open(QIODevice::WriteOnly | QIODevice::Truncate));
        cache.write("{\"PowerInfer/ReluLLaMA-7B-PowerInfer-GGUF\": [1, 2");
        cache.close();
        auto manager = newManager();
        QVERIFY(sizeTexts(manager->catalog(), QStringLiteral("relullama-7b")).first().startsWith(QStringLiteral("≈")));
    }

    void keptAcrossRestart()
    {
        const QString copy = m_data->filePath(QStringLiteral("kept.gguf"));
        const QString gone = m_data->filePath(QStringLiteral("gone.gguf"));
        QVERIFY(QFile::copy(m_model, copy));
        QVERIFY(QFile::copy(m_model, gone));
        {
            auto manager = newManager();
            QVERIFY(waitForScan(manager->library()));
            QVERIFY(import(manager->library(), copy));
            QVERIFY(import(manager->library(), gone));
            QTRY_COMPARE_WITH_TIMEOUT(manager->library()->rowCount(), 2, 20000);
        }
        // Deleted while the app was closed: not listed after the restart.
        QVERIFY(QFile::remove(gone));

        auto manager = newManager();
        ModelLibrary* library = manager->library();
        QVERIFY(waitForScan(library));
        QCOMPARE(library->rowCount(), 1);
        QCOMPARE(library->models().constFirst().path, copy);
        QVERIFY(library->models().constFirst().inspected);
    }
};

QTEST_GUILESS_MAIN(TestModelLibrary)
#include "tst_model_library.moc"
