// SPDX-License-Identifier: MIT
// DownloadManager and HuggingFaceApi against HfTestServer, a fake Hugging Face Hub on 127.0.0.1:
// verification, resume with Range, retries, pause/cancel, restart, tokens and redirects.

#include "downloadmanager.h"
#include "downloadqueuestore.h"
#include "ggufprobe.h"
#include "hf_test_server.h"
#include "huggingfaceapi.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSignalSpy>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>
#include <QtEndian>

#include <memory>

using namespace hearth;
using hearth::test::HfTestServer;

namespace {

const QString kRepo = QStringLiteral("hearth-test/tiny-relu");
constexpr int kWaitMs = 10000;

QByteArray readAll(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

bool writeFile(const QString& path, const QByteArray& data)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly | QIODevice::Truncate) && file.write(data) == data.size();
}

QByteArray ggufHeader(quint32 version)
{
    QByteArray header("GGUF");
    char buffer[8];
    qToLittleEndian<quint32>(version, buffer);
    header.append(buffer, 4);
    qToLittleEndian<quint64>(0, buffer);
    header.append(buffer, 8); // tensors
    header.append(buffer, 8); // metadata entries
    return header + QByteArray(64, '\0');
}

} // namespace

class TestDownloads : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<HfTestServer> m_server;
    std::unique_ptr<DownloadManager> m_manager;

    QString dbPath() const { return m_dir->filePath(QStringLiteral("hearth.db")); }
    QString dest(const QString& name) const { return m_dir->filePath(QStringLiteral("models/") + name); }

    DownloadManager* newManager()
    {
        m_manager = std::make_unique<DownloadManager>();
        m_manager->api()->setEndpoint(m_server->endpoint());
        m_manager->setRetryPolicy(50, 400, 5);
        m_manager->setProgressInterval(20);
        m_manager->setDiskMargin(0);
        if (!m_manager->open(dbPath()))
            qWarning() << m_manager->lastError();
        return m_manager.get();
    }

    qint64 enqueueFile(const QString& name, const QByteArray& body, bool withHash = true)
    {
        return m_manager->enqueue(kRepo, name, dest(name), body.size(),
            withHash ? HfTestServer::sha256Hex(body) : QByteArray());
    }

    DownloadState stateOf(qint64 id) const
    {
        const auto item = m_manager->item(id);
        return item ? item->state : DownloadState::Cancelled;
    }
    qint64 bytesOf(qint64 id) const
    {
        const auto item = m_manager->item(id);
        return item ? item->bytesDone : -1;
    }
    bool sawRangeRequest(const QString& name) const
    {
        for (const auto& request : m_server->requestsFor(name)) {
            const QByteArray range = request.headers.value("range");
            if (range.startsWith("bytes=") && !range.startsWith("bytes=0-"))
                return true;
        }
        return false;
    }

private Q_SLOTS:
    void initTestCase()
    {
        qunsetenv("HF_TOKEN");
        qunsetenv("HF_ENDPOINT");
    }

    void init()
    {
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
        m_server = std::make_unique<HfTestServer>();
        QVERIFY(m_server->listen());
        newManager();
    }

    void cleanup()
    {
        m_manager.reset();
        m_server.reset();
        m_dir.reset();
    }

    void endpointAndTokenSettings()
    {
        HuggingFaceApi api;
        QCOMPARE(api.endpoint(), QUrl(QStringLiteral("https://huggingface.co")));
        QVERIFY(api.token().isEmpty());
        qputenv("HF_ENDPOINT", "http://mirror.example:8080");
        qputenv("HF_TOKEN", "hf_env");
        QCOMPARE(api.endpoint().host(), QStringLiteral("mirror.example"));
        QCOMPARE(api.token(), QStringLiteral("hf_env"));
        api.setEndpoint(QUrl(QStringLiteral("https://hub.example")));
        api.setToken(QStringLiteral("hf_settings"));
        QCOMPARE(api.endpoint().host(), QStringLiteral("hub.example"));
        QCOMPARE(api.token(), QStringLiteral("hf_settings"));
        qunsetenv("HF_ENDPOINT");
        qunsetenv("HF_TOKEN");

        QCOMPARE(api.fileUrl(QStringLiteral("a/b"), QStringLiteral("sub/x y.gguf")).toString(QUrl::FullyEncoded),
            QStringLiteral("https://hub.example/a/b/resolve/main/sub/x%20y.gguf"));
        QVERIFY(api.isEndpointOrigin(QUrl(QStringLiteral("https://hub.example:443/x"))));
        QVERIFY(!api.isEndpointOrigin(QUrl(QStringLiteral("https://cdn.hub.example/x"))));
        QVERIFY(!api.isEndpointOrigin(QUrl(QStringLiteral("http://hub.example/x"))));
        // The token goes to the endpoint only.
        QCOMPARE(api.makeRequest(QUrl(QStringLiteral("https://hub.example/a"))).rawHeader("Authorization"),
            QByteArray("Bearer hf_settings"));
        QVERIFY(!api.makeRequest(QUrl(QStringLiteral("https://cdn.example/a"))).hasRawHeader("Authorization"));
        QVERIFY(!HuggingFaceApi::isAllowedRedirect(
            QUrl(QStringLiteral("https://hub.example/a")), QUrl(QStringLiteral("http://hub.example/a"))));
        QVERIFY(!HuggingFaceApi::isAllowedRedirect(
            QUrl(QStringLiteral("https://hub.example/a")), QUrl(QStringLiteral("file:///etc/passwd"))));
    }

    void parseTreeJson()
    {
        const QByteArray json = R"([
            {"type":"directory","oid":"d1","size":0,"path":"sub"},
            {"type":"file","oid":"abc","size":1234,"path":"sub/model.gguf",
             "lfs":{"oid":"ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef0123456789","size":5000000000,"pointerSize":134}},
            {"type":"file","oid":"def","size":42,"path":"config.json"},
            {"type":"file","oid":"bad","size":1,"path":"../escape.bin"}
        ])";
        QString error;
        const auto entries = HuggingFaceApi::parseTree(json, &error);
        QVERIFY2(entries.has_value(), qPrintable(error));
        QCOMPARE(entries->size(), 3); // the escaping path is dropped
        QCOMPARE(entries->at(1).path, QStringLiteral("sub/model.gguf"));
        QVERIFY(entries->at(1).isLfs());
        QCOMPARE(entries->at(1).lfsSha256, QByteArray("abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789"));
        QCOMPARE(entries->at(1).downloadSize(), Q_INT64_C(5000000000));
        QVERIFY(!entries->at(2).isLfs());
        QCOMPARE(entries->at(2).downloadSize(), 42);
        QVERIFY(!HuggingFaceApi::parseTree("{not json", &error).has_value());
        QVERIFY(!error.isEmpty());
    }

    void listingFromServer()
    {
        const QByteArray gguf = HfTestServer::makeBody(300000, 1);
        const QByteArray nested = HfTestServer::makeBody(1000, 2);
        m_server->addFile(kRepo, QStringLiteral("model-q4_0.gguf"), gguf);
        m_server->addFile(kRepo, QStringLiteral("config.json"), "{}", false);
        m_server->addFile(kRepo, QStringLiteral("predictors/layer0/fc1.bin"), nested);
        m_server->setTreePageSize(2); // also walks the Link: rel="next" pages

        HuggingFaceApi* api = m_manager->api();
        QSignalSpy listed(api, &HuggingFaceApi::filesListed);
        QSignalSpy failed(api, &HuggingFaceApi::requestFailed);
        const quint64 requestId = api->listFiles(kRepo);
        QTRY_VERIFY_WITH_TIMEOUT(listed.size() == 1 || failed.size() == 1, kWaitMs);
        QCOMPARE(failed.size(), 0);
        QCOMPARE(listed.at(0).at(0).value<quint64>(), requestId);
        const auto entries = listed.at(0).at(2).value<QList<HfFileEntry>>();
        QHash<QString, HfFileEntry> byPath;
        for (const HfFileEntry& entry : entries)
            byPath.insert(entry.path, entry);
        QCOMPARE(byPath.size(), 5); // 3 files + "predictors" + "predictors/layer0"
        QCOMPARE(byPath.value(QStringLiteral("predictors/layer0")).type, QStringLiteral("directory"));
        const HfFileEntry model = byPath.value(QStringLiteral("model-q4_0.gguf"));
        QCOMPARE(model.downloadSize(), gguf.size());
        QCOMPARE(model.lfsSha256, HfTestServer::sha256Hex(gguf));
        QCOMPARE(byPath.value(QStringLiteral("predictors/layer0/fc1.bin")).lfsSha256, HfTestServer::sha256Hex(nested));
        QVERIFY(!byPath.value(QStringLiteral("config.json")).isLfs());
        QVERIFY(m_server->requestsFor(QStringLiteral("recursive=true")).size() >= 3);
    }

    void searchFromServer()
    {
        m_server->addSearchResult(QJsonObject{{QStringLiteral("id"), QStringLiteral("PowerInfer/ReluLLaMA-7B")},
            {QStringLiteral("tags"), QJsonArray{QStringLiteral("gguf"), QStringLiteral("relu")}},
            {QStringLiteral("downloads"), 1234}, {QStringLiteral("likes"), 56},
            {QStringLiteral("pipeline_tag"), QStringLiteral("text-generation")}});
        m_server->addSearchResult(QJsonObject{{QStringLiteral("id"), QStringLiteral("someone/other-model")}});
        HuggingFaceApi* api = m_manager->api();
        QSignalSpy done(api, &HuggingFaceApi::searchFinished);
        api->search(QStringLiteral("relu"), 10);
        QTRY_COMPARE_WITH_TIMEOUT(done.size(), 1, kWaitMs);
        const auto models = done.at(0).at(1).value<QList<HfModelSummary>>();
        QCOMPARE(models.size(), 1);
        QCOMPARE(models.at(0).id, QStringLiteral("PowerInfer/ReluLLaMA-7B"));
        QCOMPARE(models.at(0).tags, QStringList({QStringLiteral("gguf"), QStringLiteral("relu")}));
        QCOMPARE(models.at(0).downloads, 1234);
        QCOMPARE(models.at(0).likes, 56);
        QCOMPARE(models.at(0).pipelineTag, QStringLiteral("text-generation"));
    }

    void listingErrors()
    {
        HuggingFaceApi* api = m_manager->api();
        QSignalSpy failed(api, &HuggingFaceApi::requestFailed);
        api->listFiles(QStringLiteral("nobody/missing"));
        QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, kWaitMs);
        QCOMPARE(failed.at(0).at(2).toInt(), 404);
        QVERIFY(failed.at(0).at(1).toString().contains(QStringLiteral("not found")));

        m_server->addFile(QStringLiteral("meta/gated"), QStringLiteral("m.gguf"), "x");
        m_server->setRequiredToken(QStringLiteral("meta/gated"), "hf_ok");
        api->listFiles(QStringLiteral("meta/gated"));
        QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 2, kWaitMs);
        QCOMPARE(failed.at(1).at(2).toInt(), 401);
        QVERIFY(failed.at(1).at(1).toString().contains(QStringLiteral("licence")));
    }

    void completeDownload()
    {
        const QByteArray body = HfTestServer::makeBody(2 * 1024 * 1024 + 123, 7);
        m_server->addFile(kRepo, QStringLiteral("model.gguf"), body);
        QSignalSpy installed(m_manager.get(), &DownloadManager::fileInstalled);
        QSignalSpy progress(m_manager.get(), &DownloadManager::progress);
        const qint64 id = enqueueFile(QStringLiteral("model.gguf"), body);
        QVERIFY(id > 0);
        QTRY_COMPARE_WITH_TIMEOUT(installed.size(), 1, kWaitMs);
        QCOMPARE(installed.at(0).at(0).toString(), dest(QStringLiteral("model.gguf")));
        QCOMPARE(stateOf(id), DownloadState::Completed);
        QCOMPARE(m_manager->item(id)->verification, Verification::Sha256);
        QCOMPARE(readAll(dest(QStringLiteral("model.gguf"))), body);
        QVERIFY(!QFile::exists(dest(QStringLiteral("model.gguf.part"))));
        QCOMPARE(m_manager->installedFiles(), QStringList{dest(QStringLiteral("model.gguf"))});
        QVERIFY(!progress.isEmpty());
        QCOMPARE(progress.constLast().at(1).toLongLong(), body.size());
        QCOMPARE(progress.constLast().at(2).toLongLong(), body.size());
    }

    void fileWithoutHashChecksSize()
    {
        const QByteArray body("{\"architectures\":[\"LlamaForCausalLM\"]}");
        m_server->addFile(kRepo, QStringLiteral("config.json"), body, false);
        QSignalSpy installed(m_manager.get(), &DownloadManager::fileInstalled);
        const qint64 id = enqueueFile(QStringLiteral("config.json"), body, false);
        QTRY_COMPARE_WITH_TIMEOUT(installed.size(), 1, kWaitMs);
        QCOMPARE(m_manager->item(id)->verification, Verification::Size);
        QVERIFY(DownloadManager::verificationText(Verification::Size).contains(QStringLiteral("size")));
    }

    void droppedConnectionResumes()
    {
        const QByteArray body = HfTestServer::makeBody(3 * 1024 * 1024, 11);
        auto& file = m_server->addFile(kRepo, QStringLiteral("drop.gguf"), body);
        file.dropAfterBytes = 1024 * 1024 + 17;
        file.dropTimes = 2;
        QSignalSpy installed(m_manager.get(), &DownloadManager::fileInstalled);
        const qint64 id = enqueueFile(QStringLiteral("drop.gguf"), body);
        QTRY_COMPARE_WITH_TIMEOUT(installed.size(), 1, kWaitMs);
        QCOMPARE(stateOf(id), DownloadState::Completed);
        QCOMPARE(readAll(dest(QStringLiteral("drop.gguf"))), body);
        QVERIFY(sawRangeRequest(QStringLiteral("drop.gguf")));
        QCOMPARE(m_server->requestsFor(QStringLiteral("drop.gguf")).size(), 3);
    }

    void stalledConnectionResumes()
    {
        // Sleep or a lost network often leaves a connection open and silent rather than closed.
        const QByteArray body = HfTestServer::makeBody(800000, 59);
        auto& file = m_server->addFile(kRepo, QStringLiteral("stall.gguf"), body);
        file.stallAfterBytes = 300000;
        file.stallTimes = 1;
        m_manager->api()->setTransferTimeout(500);
        QSignalSpy installed(m_manager.get(), &DownloadManager::fileInstalled);
        const qint64 id = enqueueFile(QStringLiteral("stall.gguf"), body);
        QTRY_COMPARE_WITH_TIMEOUT(installed.size(), 1, kWaitMs);
        QCOMPARE(readAll(dest(QStringLiteral("stall.gguf"))), body);
        QVERIFY(sawRangeRequest(QStringLiteral("stall.gguf")));
        QCOMPARE(m_manager->item(id)->state, DownloadState::Completed);
    }

    void serverErrorsAreRetried_data()
    {
        QTest::addColumn<int>("status");
        QTest::addColumn<int>("times");
        QTest::addColumn<int>("retryAfter");
        QTest::newRow("500") << 500 << 2 << -1;
        QTest::newRow("503") << 503 << 3 << -1;
        QTest::newRow("429 with Retry-After") << 429 << 1 << 1;
    }

    void serverErrorsAreRetried()
    {
        QFETCH(int, status);
        QFETCH(int, times);
        QFETCH(int, retryAfter);
        const QByteArray body = HfTestServer::makeBody(100000, 5);
        auto& file = m_server->addFile(kRepo, QStringLiteral("flaky.gguf"), body);
        file.failStatus = status;
        file.failTimes = times;
        file.retryAfterSeconds = retryAfter;
        QSignalSpy installed(m_manager.get(), &DownloadManager::fileInstalled);
        QElapsedTimer clock;
        clock.start();
        const qint64 id = enqueueFile(QStringLiteral("flaky.gguf"), body);
        QTRY_COMPARE_WITH_TIMEOUT(installed.size(), 1, kWaitMs);
        QCOMPARE(m_server->requestsFor(QStringLiteral("flaky.gguf")).size(), times + 1);
        QCOMPARE(m_manager->item(id)->retries, times);
        if (retryAfter > 0)
            QVERIFY(clock.elapsed() >= retryAfter * 1000 - 50);
    }

    void retriesGiveUp()
    {
        auto& file = m_server->addFile(kRepo, QStringLiteral("down.gguf"), HfTestServer::makeBody(1000, 3));
        file.failStatus = 500;
        file.failTimes = 1000;
        m_manager->setRetryPolicy(10, 40, 3);
        QSignalSpy failed(m_manager.get(), &DownloadManager::downloadFailed);
        const qint64 id = m_manager->enqueue(kRepo, QStringLiteral("down.gguf"), dest(QStringLiteral("down.gguf")), 1000);
        QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, kWaitMs);
        QCOMPARE(stateOf(id), DownloadState::Failed);
        QCOMPARE(m_server->requestsFor(QStringLiteral("down.gguf")).size(), 3);
        const QString error = m_manager->item(id)->errorText;
        QVERIFY2(error.contains(QStringLiteral("3 attempt")) && error.contains(QStringLiteral("500")), qPrintable(error));

        // A user retry starts a fresh round.
        file.failTimes = 0;
        QSignalSpy installed(m_manager.get(), &DownloadManager::fileInstalled);
        QVERIFY(m_manager->retry(id));
        QTRY_COMPARE_WITH_TIMEOUT(installed.size(), 1, kWaitMs);
    }

    void wrongHashFails()
    {
        const QByteArray body = HfTestServer::makeBody(500000, 9);
        m_server->addFile(kRepo, QStringLiteral("bad.gguf"), body).wrongBody = true;
        QSignalSpy failed(m_manager.get(), &DownloadManager::downloadFailed);
        QSignalSpy installed(m_manager.get(), &DownloadManager::fileInstalled);
        const qint64 id = enqueueFile(QStringLiteral("bad.gguf"), body);
        QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, kWaitMs);
        QCOMPARE(stateOf(id), DownloadState::Failed);
        QVERIFY(m_manager->item(id)->errorText.contains(QStringLiteral("checksum mismatch")));
        QVERIFY(!QFile::exists(dest(QStringLiteral("bad.gguf"))));
        QVERIFY(!QFile::exists(dest(QStringLiteral("bad.gguf.part"))));
        QCOMPARE(installed.size(), 0);
        QVERIFY(m_manager->installedFiles().isEmpty());
    }

    void wrongHashKeepsExistingFile()
    {
        // A damaged download never replaces a good file of the same name.
        const QByteArray body = HfTestServer::makeBody(20000, 10);
        m_server->addFile(kRepo, QStringLiteral("keep.gguf"), body).wrongBody = true;
        QDir().mkpath(dest(QString()));
        QVERIFY(writeFile(dest(QStringLiteral("keep.gguf")), "old good file"));
        QSignalSpy failed(m_manager.get(), &DownloadManager::downloadFailed);
        enqueueFile(QStringLiteral("keep.gguf"), body);
        QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, kWaitMs);
        QCOMPARE(readAll(dest(QStringLiteral("keep.gguf"))), QByteArray("old good file"));
    }

    void rangeIgnoredRestartsCleanly()
    {
        const QByteArray body = HfTestServer::makeBody(1024 * 1024, 13);
        m_server->addFile(kRepo, QStringLiteral("norange.gguf"), body).ignoreRange = true;
        // A stale .part with wrong bytes: a server answering 200 to the Range request must make
        // the download start over instead of appending to it.
        QDir().mkpath(dest(QString()));
        QVERIFY(writeFile(dest(QStringLiteral("norange.gguf.part")), QByteArray(300000, 'x')));
        QSignalSpy installed(m_manager.get(), &DownloadManager::fileInstalled);
        const qint64 id = enqueueFile(QStringLiteral("norange.gguf"), body);
        QTRY_COMPARE_WITH_TIMEOUT(installed.size(), 1, kWaitMs);
        QCOMPARE(stateOf(id), DownloadState::Completed);
        QCOMPARE(readAll(dest(QStringLiteral("norange.gguf"))), body);
        QVERIFY(sawRangeRequest(QStringLiteral("norange.gguf")));
    }

    void completePartIsVerifiedOn416()
    {
        const QByteArray body = HfTestServer::makeBody(200000, 17);
        m_server->addFile(kRepo, QStringLiteral("whole.gguf"), body);
        QDir().mkpath(dest(QString()));
        QVERIFY(writeFile(dest(QStringLiteral("whole.gguf.part")), body));
        QSignalSpy installed(m_manager.get(), &DownloadManager::fileInstalled);
        enqueueFile(QStringLiteral("whole.gguf"), body);
        QTRY_COMPARE_WITH_TIMEOUT(installed.size(), 1, kWaitMs);
        const auto requests = m_server->requestsFor(QStringLiteral("whole.gguf"));
        QCOMPARE(requests.size(), 1);
        QCOMPARE(requests.at(0).status, 416);
        QCOMPARE(readAll(dest(QStringLiteral("whole.gguf"))), body);
    }

    void pauseAndResume()
    {
        const QByteArray body = HfTestServer::makeBody(1536 * 1024, 19);
        m_server->addFile(kRepo, QStringLiteral("slow.gguf"), body).throttleBytesPerSecond = 2 * 1024 * 1024;
        QSignalSpy progress(m_manager.get(), &DownloadManager::progress);
        const qint64 id = enqueueFile(QStringLiteral("slow.gguf"), body);
        QTRY_VERIFY_WITH_TIMEOUT(bytesOf(id) > 100000, kWaitMs);
        QTRY_VERIFY_WITH_TIMEOUT(progress.size() >= 3, kWaitMs);
        // Smoothed speed and an ETA are known once bytes flow.
        QVERIFY(progress.constLast().at(3).toDouble() > 0.0);
        QVERIFY(progress.constLast().at(4).toInt() >= 0);
        QVERIFY(m_manager->pause(id));
        QCOMPARE(stateOf(id), DownloadState::Paused);
        QVERIFY(QFile::exists(dest(QStringLiteral("slow.gguf.part"))));
        const qint64 pausedAt = bytesOf(id);
        QCOMPARE(QFileInfo(dest(QStringLiteral("slow.gguf.part"))).size(), pausedAt);
        QTest::qWait(150);
        QCOMPARE(bytesOf(id), pausedAt);
        QVERIFY(m_manager->installedFiles().isEmpty());

        m_server->file(kRepo, QStringLiteral("slow.gguf")).throttleBytesPerSecond = 0;
        QSignalSpy installed(m_manager.get(), &DownloadManager::fileInstalled);
        QVERIFY(m_manager->resume(id));
        QTRY_COMPARE_WITH_TIMEOUT(installed.size(), 1, kWaitMs);
        QCOMPARE(readAll(dest(QStringLiteral("slow.gguf"))), body);
        QVERIFY(sawRangeRequest(QStringLiteral("slow.gguf")));
    }

    void cancelRemovesPart()
    {
        const QByteArray body = HfTestServer::makeBody(1024 * 1024, 23);
        m_server->addFile(kRepo, QStringLiteral("cancel.gguf"), body).throttleBytesPerSecond = 1024 * 1024;
        const qint64 id = enqueueFile(QStringLiteral("cancel.gguf"), body);
        QTRY_VERIFY_WITH_TIMEOUT(bytesOf(id) > 50000, kWaitMs);
        QVERIFY(QFile::exists(dest(QStringLiteral("cancel.gguf.part"))));
        QVERIFY(m_manager->cancel(id));
        QCOMPARE(stateOf(id), DownloadState::Cancelled);
        QVERIFY(!QFile::exists(dest(QStringLiteral("cancel.gguf.part"))));
        QVERIFY(!QFile::exists(dest(QStringLiteral("cancel.gguf"))));
        QTest::qWait(100);
        QVERIFY(!QFile::exists(dest(QStringLiteral("cancel.gguf.part"))));
    }

    void restartResumesFromPart()
    {
        const QByteArray body = HfTestServer::makeBody(1536 * 1024, 29);
        m_server->addFile(kRepo, QStringLiteral("restart.gguf"), body).throttleBytesPerSecond = 2 * 1024 * 1024;
        const qint64 id = enqueueFile(QStringLiteral("restart.gguf"), body);
        QTRY_VERIFY_WITH_TIMEOUT(bytesOf(id) > 200000, kWaitMs);
        m_manager.reset(); // the app quits (or dies) mid-download
        const qint64 partSize = QFileInfo(dest(QStringLiteral("restart.gguf.part"))).size();
        QVERIFY(partSize > 0 && partSize < body.size());

        m_server->file(kRepo, QStringLiteral("restart.gguf")).throttleBytesPerSecond = 0;
        m_server->clearRequests();
        DownloadManager* manager = newManager();
        QCOMPARE(manager->items().size(), 1);
        QSignalSpy installed(manager, &DownloadManager::fileInstalled);
        QTRY_COMPARE_WITH_TIMEOUT(installed.size(), 1, kWaitMs);
        QCOMPARE(stateOf(id), DownloadState::Completed);
        QCOMPARE(readAll(dest(QStringLiteral("restart.gguf"))), body);
        const auto requests = m_server->requestsFor(QStringLiteral("restart.gguf"));
        QCOMPARE(requests.size(), 1);
        QCOMPARE(requests.at(0).headers.value("range"), "bytes=" + QByteArray::number(partSize) + '-');

        // And the completed state survives another restart.
        newManager();
        QCOMPARE(m_manager->installedFiles(), QStringList{dest(QStringLiteral("restart.gguf"))});
    }

    void gatedRepository()
    {
        const QString gated = QStringLiteral("meta/gated-relu");
        const QByteArray body = HfTestServer::makeBody(50000, 31);
        m_server->addFile(gated, QStringLiteral("m.gguf"), body);
        m_server->setRequiredToken(gated, "hf_secret");
        QSignalSpy failed(m_manager.get(), &DownloadManager::downloadFailed);
        const qint64 id = m_manager->enqueue(gated, QStringLiteral("m.gguf"), dest(QStringLiteral("m.gguf")), body.size(),
            HfTestServer::sha256Hex(body));
        QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, kWaitMs);
        QString error = m_manager->item(id)->errorText;
        QVERIFY2(error.contains(QStringLiteral("licence")) && error.contains(QStringLiteral("token")), qPrintable(error));
        QCOMPARE(m_server->requestsFor(QStringLiteral("m.gguf")).size(), 1); // not retried

        m_manager->api()->setToken(QStringLiteral("hf_wrong"));
        QVERIFY(m_manager->retry(id));
        QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 2, kWaitMs);
        error = m_manager->item(id)->errorText;
        QVERIFY2(error.contains(QStringLiteral("refused")) && error.contains(QStringLiteral("licence")), qPrintable(error));

        m_manager->api()->setToken(QStringLiteral("hf_secret"));
        QSignalSpy installed(m_manager.get(), &DownloadManager::fileInstalled);
        QVERIFY(m_manager->retry(id));
        QTRY_COMPARE_WITH_TIMEOUT(installed.size(), 1, kWaitMs);
        QCOMPARE(m_server->requestsFor(QStringLiteral("m.gguf")).constLast().headers.value("authorization"),
            QByteArray("Bearer hf_secret"));
    }

    void tokenOnlyForEndpointHost_data()
    {
        QTest::addColumn<QString>("redirectHost");
        QTest::addColumn<bool>("tokenAtCdn");
        QTest::newRow("same origin") << QStringLiteral("127.0.0.1") << true;
        QTest::newRow("other host") << QStringLiteral("localhost") << false;
    }

    void tokenOnlyForEndpointHost()
    {
        QFETCH(QString, redirectHost);
        QFETCH(bool, tokenAtCdn);
        const QByteArray body = HfTestServer::makeBody(300000, 37);
        auto& file = m_server->addFile(kRepo, QStringLiteral("cdn.gguf"), body);
        file.redirect = true;
        file.redirectHost = redirectHost;
        m_manager->api()->setToken(QStringLiteral("hf_secret"));
        QSignalSpy installed(m_manager.get(), &DownloadManager::fileInstalled);
        QSignalSpy failed(m_manager.get(), &DownloadManager::downloadFailed);
        enqueueFile(QStringLiteral("cdn.gguf"), body);
        QTRY_VERIFY_WITH_TIMEOUT(installed.size() == 1 || failed.size() == 1, kWaitMs);
        QCOMPARE(failed.size(), 0);
        QCOMPARE(readAll(dest(QStringLiteral("cdn.gguf"))), body);

        const auto resolve = m_server->requestsFor(QStringLiteral("/resolve/main/cdn.gguf"));
        const auto cdn = m_server->requestsFor(QStringLiteral("/cdn/"));
        QCOMPARE(resolve.size(), 1);
        QCOMPARE(resolve.at(0).status, 302);
        QCOMPARE(resolve.at(0).headers.value("authorization"), QByteArray("Bearer hf_secret"));
        QCOMPARE(cdn.size(), 1);
        QVERIFY(cdn.at(0).headers.value("host").startsWith(redirectHost.toLatin1()));
        QCOMPARE(cdn.at(0).headers.contains("authorization"), tokenAtCdn);
    }

    void notEnoughDiskSpace()
    {
        const QByteArray body = HfTestServer::makeBody(100000, 41);
        m_server->addFile(kRepo, QStringLiteral("big.gguf"), body);
        QString askedFor;
        m_manager->setFreeSpaceFunction([&askedFor](const QString& dir) {
            askedFor = dir;
            return qint64(50000);
        });
        m_manager->setDiskMargin(1000);
        QSignalSpy failed(m_manager.get(), &DownloadManager::downloadFailed);
        const qint64 id = enqueueFile(QStringLiteral("big.gguf"), body);
        QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, kWaitMs);
        QVERIFY(m_manager->item(id)->errorText.contains(QStringLiteral("disk space")));
        QCOMPARE(QDir::cleanPath(askedFor), QDir::cleanPath(dest(QString())));
        QVERIFY(m_server->requestsFor(QStringLiteral("big.gguf")).isEmpty());

        // What a .part already holds is not needed again.
        QVERIFY(writeFile(dest(QStringLiteral("big.gguf.part")), body.left(60000)));
        QSignalSpy installed(m_manager.get(), &DownloadManager::fileInstalled);
        QVERIFY(m_manager->retry(id));
        QTRY_COMPARE_WITH_TIMEOUT(installed.size(), 1, kWaitMs);
    }

    void notFound()
    {
        QSignalSpy failed(m_manager.get(), &DownloadManager::downloadFailed);
        const qint64 id = m_manager->enqueue(kRepo, QStringLiteral("missing.gguf"), dest(QStringLiteral("missing.gguf")));
        QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, kWaitMs);
        QVERIFY(m_manager->item(id)->errorText.contains(QStringLiteral("not found")));
        QCOMPARE(m_server->requestsFor(QStringLiteral("missing.gguf")).size(), 1);
        QVERIFY(!QFile::exists(dest(QStringLiteral("missing.gguf"))));
    }

    void concurrencyLimit()
    {
        m_manager->setMaxConcurrent(1);
        const QByteArray a = HfTestServer::makeBody(400000, 43);
        const QByteArray b = HfTestServer::makeBody(1000, 47);
        m_server->addFile(kRepo, QStringLiteral("a.gguf"), a).throttleBytesPerSecond = 2 * 1024 * 1024;
        m_server->addFile(kRepo, QStringLiteral("b.gguf"), b);
        QSignalSpy installed(m_manager.get(), &DownloadManager::fileInstalled);
        const qint64 first = enqueueFile(QStringLiteral("a.gguf"), a);
        const qint64 second = enqueueFile(QStringLiteral("b.gguf"), b);
        // The same destination is not queued twice while unfinished.
        QCOMPARE(enqueueFile(QStringLiteral("a.gguf"), a), first);
        QTRY_VERIFY_WITH_TIMEOUT(bytesOf(first) > 0, kWaitMs);
        QCOMPARE(stateOf(second), DownloadState::Queued);
        QTRY_COMPARE_WITH_TIMEOUT(installed.size(), 2, kWaitMs);
        QCOMPARE(installed.at(0).at(0).toString(), dest(QStringLiteral("a.gguf")));
        QCOMPARE(m_manager->items().size(), 2);
    }

    void importLocalFile()
    {
        const QString good = m_dir->filePath(QStringLiteral("local.gguf"));
        QVERIFY(writeFile(good, ggufHeader(3)));
        const QString bad = m_dir->filePath(QStringLiteral("notes.txt"));
        QVERIFY(writeFile(bad, QByteArray(100, 'n')));
        const QString old = m_dir->filePath(QStringLiteral("old.gguf"));
        QVERIFY(writeFile(old, ggufHeader(1)));

        QVERIFY(probeGgufFile(good).ok);
        const QString powerInfer = m_dir->filePath(QStringLiteral("relu.powerinfer.gguf"));
        QVERIFY(writeFile(powerInfer, "PWRI" + ggufHeader(3).mid(4)));
        QCOMPARE(probeGgufFile(powerInfer).magic, QStringLiteral("PWRI"));
        QVERIFY(probeGgufFile(powerInfer).ok);
        QCOMPARE(m_manager->importLocalFile(bad), 0);
        QVERIFY(m_manager->lastError().contains(QStringLiteral("not a GGUF")));
        QCOMPARE(m_manager->importLocalFile(old), 0);
        QCOMPARE(m_manager->importLocalFile(m_dir->filePath(QStringLiteral("nothing.gguf"))), 0);

        QSignalSpy installed(m_manager.get(), &DownloadManager::fileInstalled);
        const qint64 referenced = m_manager->importLocalFile(good);
        QVERIFY(referenced > 0);
        QCOMPARE(installed.size(), 1);
        QCOMPARE(stateOf(referenced), DownloadState::Completed);

        const qint64 copied = m_manager->importLocalFile(good, dest(QString()));
        QVERIFY(copied > 0);
        QTRY_COMPARE_WITH_TIMEOUT(installed.size(), 2, kWaitMs);
        QCOMPARE(readAll(dest(QStringLiteral("local.gguf"))), ggufHeader(3));
        QVERIFY(m_manager->installedFiles().contains(dest(QStringLiteral("local.gguf"))));
        QVERIFY(m_manager->installedFiles().contains(QFileInfo(good).absoluteFilePath()));
    }

    void serverHeadAndRanges()
    {
        const QByteArray body = HfTestServer::makeBody(1000, 53);
        m_server->addFile(kRepo, QStringLiteral("h.bin"), body);
        QNetworkAccessManager nam;
        const QUrl url = m_manager->api()->fileUrl(kRepo, QStringLiteral("h.bin"));
        std::unique_ptr<QNetworkReply> head(nam.head(QNetworkRequest(url)));
        QTRY_VERIFY_WITH_TIMEOUT(head->isFinished(), kWaitMs);
        QCOMPARE(head->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 200);
        QCOMPARE(head->header(QNetworkRequest::ContentLengthHeader).toLongLong(), body.size());
        QVERIFY(head->readAll().isEmpty());

        QNetworkRequest ranged(url);
        ranged.setRawHeader("Range", "bytes=990-");
        std::unique_ptr<QNetworkReply> tail(nam.get(ranged));
        QTRY_VERIFY_WITH_TIMEOUT(tail->isFinished(), kWaitMs);
        QCOMPARE(tail->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 206);
        QCOMPARE(tail->rawHeader("Content-Range"), QByteArray("bytes 990-999/1000"));
        QCOMPARE(tail->readAll(), body.mid(990));

        ranged.setRawHeader("Range", "bytes=1000-");
        std::unique_ptr<QNetworkReply> beyond(nam.get(ranged));
        QTRY_VERIFY_WITH_TIMEOUT(beyond->isFinished(), kWaitMs);
        QCOMPARE(beyond->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 416);
    }

    void queueSchemaIsVersioned()
    {
        DownloadQueueStore store;
        QVERIFY(store.open(dbPath()));
        QCOMPARE(store.schemaVersion(), DownloadQueueStore::latestSchemaVersion());
    }

    void resumeStaysOnTheFirstCommit()
    {
        // The repository gets a new version of the file between a dropped connection and the
        // resume: the rest comes from the commit the download began with.
        const QByteArray first = HfTestServer::makeBody(300000, 11);
        const QByteArray second = HfTestServer::makeBody(300000, 12);
        m_server->addFile(kRepo, QStringLiteral("moving.gguf"), first);
        const QString commit = m_server->pinCommit(kRepo);
        hearth::test::HfTestFile& file = m_server->file(kRepo, QStringLiteral("moving.gguf"));
        file.dropAfterBytes = 100000;
        file.dropTimes = 1;
        bool replaced = false;
        connect(m_manager.get(), &DownloadManager::progress, this, [&] {
            if (!replaced) // the first bytes are in: the server has sent all it will on this connection
                m_server->addFile(kRepo, QStringLiteral("moving.gguf"), second);
            replaced = true;
        });
        const qint64 id = enqueueFile(QStringLiteral("moving.gguf"), first);
        QTRY_COMPARE_WITH_TIMEOUT(stateOf(id), DownloadState::Completed, kWaitMs);
        QVERIFY(replaced);
        QCOMPARE(m_manager->item(id)->revision, commit);
        QVERIFY(sawRangeRequest(QStringLiteral("/resolve/") + commit + QStringLiteral("/moving.gguf")));
        QFile done(dest(QStringLiteral("moving.gguf")));
        QVERIFY(done.open(QIODevice::ReadOnly));
        QVERIFY(done.readAll() == first);
        // Kept for a restart too.
        newManager();
        QCOMPARE(m_manager->item(id)->revision, commit);
    }

    void firstSchemaIsMigrated()
    {
        // A queue written by the first schema: its rows come through, none of them cleared.
        const QString path = m_dir->filePath(QStringLiteral("v1.db"));
        {
            QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("v1"));
            db.setDatabaseName(path);
            QVERIFY(db.open());
            QSqlQuery query(db);
            QVERIFY(query.exec(QStringLiteral("CREATE TABLE download_schema (version INTEGER NOT NULL)")));
            QVERIFY(query.exec(QStringLiteral("INSERT INTO download_schema (version) VALUES (1)")));
            QVERIFY(query.exec(QStringLiteral(
                "CREATE TABLE hearth_downloads (id INTEGER PRIMARY KEY AUTOINCREMENT, repo TEXT NOT NULL DEFAULT '',"
                " file TEXT NOT NULL DEFAULT '', revision TEXT NOT NULL DEFAULT 'main', url TEXT NOT NULL,"
                " destination TEXT NOT NULL, expected_size INTEGER NOT NULL DEFAULT -1,"
                " expected_sha256 TEXT NOT NULL DEFAULT '', bytes_done INTEGER NOT NULL DEFAULT 0, state TEXT NOT NULL,"
                " error_text TEXT NOT NULL DEFAULT '', retries INTEGER NOT NULL DEFAULT 0,"
                " verification TEXT NOT NULL DEFAULT 'none', created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL)")));
            QVERIFY(query.exec(QStringLiteral(
                "INSERT INTO hearth_downloads (repo, file, url, destination, state, created_at, updated_at) VALUES"
                " ('o/r', 'm.gguf', 'http://127.0.0.1/o/r/resolve/main/m.gguf', '/tmp/m.gguf', 'completed', 1, 1)")));
            db.close();
        }
        QSqlDatabase::removeDatabase(QStringLiteral("v1"));
        DownloadQueueStore store;
        QVERIFY2(store.open(path), qPrintable(store.lastError()));
        QCOMPARE(store.schemaVersion(), DownloadQueueStore::latestSchemaVersion());
        const QList<DownloadItem> items = store.loadAll();
        QCOMPARE(items.size(), 1);
        QCOMPARE(items.first().file, QStringLiteral("m.gguf"));
        QCOMPARE(items.first().state, DownloadState::Completed);
        QVERIFY(!items.first().cleared);
        DownloadItem cleared = items.first();
        cleared.cleared = true;
        QVERIFY(store.update(cleared));
        QVERIFY(store.loadAll().first().cleared);
    }

    void clearingFromTheListKeepsCompletedItems()
    {
        const QByteArray body = HfTestServer::makeBody(2000, 7);
        m_server->addFile(kRepo, QStringLiteral("done.gguf"), body);
        newManager();
        const qint64 done = enqueueFile(QStringLiteral("done.gguf"), body);
        const qint64 gone = enqueueFile(QStringLiteral("gone.gguf"), body); // not in the repository
        QTRY_COMPARE_WITH_TIMEOUT(stateOf(done), DownloadState::Completed, kWaitMs);
        QTRY_COMPARE_WITH_TIMEOUT(stateOf(gone), DownloadState::Failed, kWaitMs);
        QSignalSpy removed(m_manager.get(), &DownloadManager::itemRemoved);
        QVERIFY(m_manager->clearFromList(done));
        QVERIFY(m_manager->clearFromList(gone));
        QCOMPARE(removed.count(), 1); // the failed one only
        QVERIFY(m_manager->item(done)->cleared);
        QVERIFY(!m_manager->item(gone));
        QVERIFY(QFile::exists(dest(QStringLiteral("done.gguf"))));
        // Kept so across a restart.
        newManager();
        QCOMPARE(m_manager->items().size(), 1);
        QVERIFY(m_manager->items().first().cleared);
        QCOMPARE(m_manager->items().first().state, DownloadState::Completed);
    }
};

QTEST_GUILESS_MAIN(TestDownloads)
#include "tst_downloads.moc"
