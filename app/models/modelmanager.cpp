// SPDX-License-Identifier: MIT
#include "modelmanager.h"

#include "catalogentry.h"

#include <QDir>
#include <QJSEngine>
#include <QPointer>
#include <QStandardPaths>

namespace hearth::models {

namespace {
QPointer<ModelManager> s_instance;

bool isModelFile(const QString& path)
{
    return path.endsWith(QLatin1String(".gguf"), Qt::CaseInsensitive);
}
} // namespace

ModelManager::ModelManager(QObject* parent)
    : QObject(parent)
    , m_downloadManager(std::make_unique<DownloadManager>())
{
    m_downloads = std::make_unique<DownloadListModel>(m_downloadManager.get());
    m_library = std::make_unique<ModelLibrary>(m_downloadManager.get());
    m_catalog = std::make_unique<ModelCatalog>();
    m_hubSearch = std::make_unique<HubSearch>(m_downloadManager->api());
    m_modelsDir = QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation))
                      .absoluteFilePath(QStringLiteral("models"));
    connect(m_downloadManager->api(), &HuggingFaceApi::filesListed, this, &ModelManager::onFilesListed);
    connect(m_downloadManager->api(), &HuggingFaceApi::requestFailed, this, &ModelManager::onRequestFailed);
    connect(m_downloadManager.get(), &DownloadManager::downloadFailed, this,
        [this](qint64, const QString& text) { setErrorText(text); });
}

ModelManager::~ModelManager()
{
    // The views hold plain pointers to the manager: they go first.
    m_library.reset();
    m_downloads.reset();
    m_hubSearch.reset();
}

ModelManager* ModelManager::create(QQmlEngine*, QJSEngine*)
{
    if (s_instance) {
        QJSEngine::setObjectOwnership(s_instance, QJSEngine::CppOwnership);
        return s_instance;
    }
    return new ModelManager(nullptr);
}

void ModelManager::setInstance(ModelManager* instance)
{
    s_instance = instance;
}

bool ModelManager::open(const QString& dataDir)
{
    const QDir dir(dataDir);
    setModelsDir(dir.absoluteFilePath(QStringLiteral("models")));
    m_catalog->setSizeCacheFile(dir.absoluteFilePath(QStringLiteral("catalog-sizes.json")));
    const bool ok = m_downloadManager->open(dir.absoluteFilePath(QStringLiteral("downloads.sqlite")));
    m_downloads->reload();
    m_library->refresh();
    if (!ok)
        setErrorText(m_downloadManager->lastError());
    return ok;
}

void ModelManager::setModelsDir(const QString& dir)
{
    if (dir == m_modelsDir)
        return;
    m_modelsDir = dir;
    Q_EMIT modelsDirChanged();
}

void ModelManager::setSettingsFile(const QString& path)
{
    if (path == m_settingsFile)
        return;
    m_settingsFile = path;
    Q_EMIT settingsFileChanged();
}

void ModelManager::setEndpoint(const QString& endpoint)
{
    m_downloadManager->api()->setEndpoint(endpoint.isEmpty() ? QUrl() : QUrl::fromUserInput(endpoint));
}

void ModelManager::setToken(const QString& token)
{
    m_downloadManager->api()->setToken(token);
}

QString ModelManager::destinationFor(const QString& repo, const QString& path) const
{
    // <models>/<owner>/<name>/<path>: two repositories may ship files of the same name.
    return QDir(m_modelsDir).absoluteFilePath(repo + QLatin1Char('/') + path);
}

QString ModelManager::installedPath(const QString& repo, const QString& fileName) const
{
    const QString destination = destinationFor(repo, fileName);
    return m_library->rowOfPath(destination) >= 0 ? destination : QString();
}

bool ModelManager::downloadCatalogFile(const QString& catalogId, const QString& fileName)
{
    const QList<CatalogEntry>& entries = builtinCatalog();
    const auto it = std::find_if(entries.begin(), entries.end(), [&](const CatalogEntry& e) { return e.id == catalogId; });
    if (it == entries.end() || fileName.isEmpty()) {
        setErrorText(tr("Unknown catalog model \"%1\".").arg(catalogId));
        return false;
    }
    setErrorText({});
    const QStringList wanted { fileName };
    if (m_listings.contains(it->repo)) {
        enqueueFiles(it->repo, wanted, m_listings.value(it->repo));
        return true;
    }
    m_pending.insert(m_downloadManager->api()->listFiles(it->repo), { it->repo, wanted });
    return true;
}

void ModelManager::listRepoFiles(const QString& repo)
{
    if (repo.isEmpty())
        return;
    m_filesRepo = repo;
    m_repoFiles.clear();
    m_filesRequest = m_downloadManager->api()->listFiles(repo);
    Q_EMIT repoFilesChanged();
}

void ModelManager::refreshCatalogSizes()
{
    if (m_catalogSizesRequested)
        return;
    m_catalogSizesRequested = true;
    // The answers arrive through onFilesListed; a failure is no request of m_pending's, so it
    // shows nothing.
    for (const QString& repo : m_catalog->reposWithApproximateSizes()) {
        if (m_listings.contains(repo))
            m_catalog->applyListing(repo, m_listings.value(repo));
        else
            m_downloadManager->api()->listFiles(repo);
    }
}

void ModelManager::downloadRepoFile(const QString& repo, const QString& path)
{
    setErrorText({});
    if (m_listings.contains(repo)) {
        enqueueFiles(repo, { path }, m_listings.value(repo));
        return;
    }
    m_pending.insert(m_downloadManager->api()->listFiles(repo), { repo, { path } });
}

void ModelManager::onFilesListed(quint64 requestId, const QString& repo, const QList<HfFileEntry>& files)
{
    m_listings.insert(repo, files);
    m_catalog->applyListing(repo, files);
    if (requestId == m_filesRequest) {
        m_filesRequest = 0;
        QVariantList models;
        QVariantList others;
        for (const HfFileEntry& entry : files) {
            if (!entry.isFile())
                continue;
            const bool model = isModelFile(entry.path);
            const QVariantMap row { { QStringLiteral("path"), entry.path },
                { QStringLiteral("size"), double(entry.downloadSize()) },
                { QStringLiteral("sizeText"), formatSize(quint64(std::max<qint64>(0, entry.downloadSize()))) },
                { QStringLiteral("isModel"), model }, { QStringLiteral("lfs"), entry.isLfs() } };
            (model ? models : others).append(row);
        }
        m_repoFiles = models + others;
        m_hubSearch->setFiles(repo, files);
        Q_EMIT repoFilesChanged();
    }
    if (m_pending.contains(requestId))
        enqueueFiles(repo, m_pending.take(requestId).files, files);
}

void ModelManager::onRequestFailed(quint64 requestId, const QString& errorText, int)
{
    if (requestId == m_filesRequest) {
        m_filesRequest = 0;
        Q_EMIT repoFilesChanged();
        setErrorText(errorText);
    }
    if (!m_pending.contains(requestId))
        return;
    // Without the listing the file is queued all the same (its size and hash unchecked): the
    // download then fails with its own reason, or works, and either way Downloads has an entry
    // the user can retry, instead of a banner that leaves nothing behind.
    const PendingDownload pending = m_pending.take(requestId);
    setErrorText(errorText);
    if (pending.files.contains(QStringLiteral("*")))
        return;
    const QDir repoDir(QDir(m_modelsDir).absoluteFilePath(pending.repo));
    for (const QString& file : pending.files) {
        const qint64 id = m_downloadManager->enqueue(pending.repo, file, repoDir.absoluteFilePath(file));
        if (id != 0)
            Q_EMIT downloadQueued(id);
    }
}

void ModelManager::enqueueFiles(const QString& repo, const QStringList& wanted, const QList<HfFileEntry>& files)
{
    const bool all = wanted.contains(QStringLiteral("*"));
    const QString repoDir = QDir(m_modelsDir).absoluteFilePath(repo);
    int queued = 0;
    for (const HfFileEntry& entry : files) {
        if (!entry.isFile() || (!all && !wanted.contains(entry.path)))
            continue;
        const qint64 id = m_downloadManager->enqueue(repo, entry, repoDir);
        if (id == 0) {
            setErrorText(m_downloadManager->lastError());
            continue;
        }
        ++queued;
        Q_EMIT downloadQueued(id);
    }
    if (queued == 0 && m_errorText.isEmpty())
        setErrorText(tr("%1 has no file named %2.").arg(repo, wanted.join(QStringLiteral(", "))));
}

void ModelManager::setErrorText(const QString& text)
{
    if (text == m_errorText)
        return;
    m_errorText = text;
    Q_EMIT errorTextChanged();
}

} // namespace hearth::models
