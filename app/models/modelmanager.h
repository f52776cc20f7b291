// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// ModelManager: what the Models page binds to. One instance per application (main() makes it and
/// hands it to QML); it owns the download queue and the views over it (downloads, installed
/// models), the catalog with fit badges, and the Hugging Face search, and turns "download this
/// file" into a listing (for the file's SHA-256) followed by a queued, verified download.

#include "downloadlistmodel.h"
#include "hubsearch.h"
#include "modelcatalog.h"
#include "modellibrary.h"

#include <QHash>
#include <QObject>
#include <QVariantList>
#include <QtQmlIntegration>

#include <memory>

class QQmlEngine;
class QJSEngine;

namespace hearth::models {

class ModelManager : public QObject
{
    Q_OBJECT
    QML_ELEMENT
    QML_SINGLETON

    Q_PROPERTY(hearth::models::ModelCatalog* catalog READ catalog CONSTANT)
    Q_PROPERTY(hearth::models::HubSearch* hubSearch READ hubSearch CONSTANT)
    Q_PROPERTY(hearth::models::DownloadListModel* downloads READ downloads CONSTANT)
    Q_PROPERTY(hearth::models::ModelLibrary* library READ library CONSTANT)
    /// Where downloads go: <data folder>/models.
    Q_PROPERTY(QString modelsDir READ modelsDir NOTIFY modelsDirChanged)
    /// The last problem with a download request (listing failed, file not in the repository).
    Q_PROPERTY(QString errorText READ errorText NOTIFY errorTextChanged)
    /// The repository whose files are shown (listRepoFiles()), and its files: a list of
    /// {path, size, sizeText, isModel, lfs} maps, models first.
    Q_PROPERTY(QString filesRepo READ filesRepo NOTIFY repoFilesChanged)
    Q_PROPERTY(QVariantList repoFiles READ repoFiles NOTIFY repoFilesChanged)
    Q_PROPERTY(bool listingFiles READ listingFiles NOTIFY repoFilesChanged)
    /// Where the VRAM panel remembers budgets (the application's INI file; empty: the platform's
    /// settings), so that the chat loads each model with the budget chosen for it.
    Q_PROPERTY(QString settingsFile READ settingsFile WRITE setSettingsFile NOTIFY settingsFileChanged)

public:
    // No default arguments: Qt 6.4 prefers a default constructor over create().
    explicit ModelManager(QObject* parent);
    ~ModelManager() override;

    static ModelManager* create(QQmlEngine* qmlEngine, QJSEngine* jsEngine);
    static void setInstance(ModelManager* instance);

    /// Opens the download queue in <@p dataDir>/downloads.sqlite (it resumes what was running)
    /// and downloads into <@p dataDir>/models. Without it, the queue lives in memory only.
    [[nodiscard]] bool open(const QString& dataDir);
    [[nodiscard]] QString lastError() const { return m_downloadManager->lastError(); }

    [[nodiscard]] DownloadManager* downloadManager() const { return m_downloadManager.get(); }
    [[nodiscard]] ModelCatalog* catalog() const { return m_catalog.get(); }
    [[nodiscard]] HubSearch* hubSearch() const { return m_hubSearch.get(); }
    [[nodiscard]] DownloadListModel* downloads() const { return m_downloads.get(); }
    [[nodiscard]] ModelLibrary* library() const { return m_library.get(); }
    [[nodiscard]] QString modelsDir() const { return m_modelsDir; }
    void setModelsDir(const QString& dir);
    [[nodiscard]] QString errorText() const { return m_errorText; }
    [[nodiscard]] QString settingsFile() const { return m_settingsFile; }
    void setSettingsFile(const QString& path);
    [[nodiscard]] QString filesRepo() const { return m_filesRepo; }
    [[nodiscard]] QVariantList repoFiles() const { return m_repoFiles; }
    [[nodiscard]] bool listingFiles() const { return m_filesRequest != 0; }

    /// Hugging Face endpoint and token (settings); empty falls back to HF_ENDPOINT / HF_TOKEN.
    void setEndpoint(const QString& endpoint);
    void setToken(const QString& token);

    /// Downloads @p fileName of the catalog entry @p catalogId ("*": every file of the
    /// repository, for checkpoints that need conversion). Lists the repository first for the
    /// files' hashes; false when the entry is unknown.
    Q_INVOKABLE bool downloadCatalogFile(const QString& catalogId, const QString& fileName);
    /// Lists @p repo's files into repoFiles (and refines its search result with them).
    Q_INVOKABLE void listRepoFiles(const QString& repo);
    /// Lists, once a run, the catalog's repositories whose files have approximate sizes, so that
    /// the catalog shows the real ones (kept beside the downloads for later runs). A listing that
    /// fails leaves the sizes as they were, without a message: the user asked for nothing.
    Q_INVOKABLE void refreshCatalogSizes();
    /// Downloads @p path of @p repo (from repoFiles, or listed first).
    Q_INVOKABLE void downloadRepoFile(const QString& repo, const QString& path);
    /// The installed copy of @p fileName from @p repo, or "" when it is not installed.
    Q_INVOKABLE QString installedPath(const QString& repo, const QString& fileName) const;
    /// Hides the error banner (the page clears it when another section is shown: a failed
    /// download keeps its own entry, with the reason and Retry, in Downloads).
    Q_INVOKABLE void clearError() { setErrorText({}); }
    /// Where @p path of @p repo is stored once downloaded.
    [[nodiscard]] QString destinationFor(const QString& repo, const QString& path) const;

Q_SIGNALS:
    void modelsDirChanged();
    void settingsFileChanged();
    void errorTextChanged();
    void repoFilesChanged();
    /// A download was queued (the Downloads section shows it).
    void downloadQueued(qint64 id);

private:
    struct PendingDownload
    {
        QString repo;
        QStringList files; ///< paths wanted; {"*"} for all
    };

    void onFilesListed(quint64 requestId, const QString& repo, const QList<hearth::HfFileEntry>& files);
    void onRequestFailed(quint64 requestId, const QString& errorText, int httpStatus);
    void enqueueFiles(const QString& repo, const QStringList& wanted, const QList<HfFileEntry>& files);
    void setErrorText(const QString& text);

    std::unique_ptr<DownloadManager> m_downloadManager;
    std::unique_ptr<DownloadListModel> m_downloads;
    std::unique_ptr<ModelLibrary> m_library;
    std::unique_ptr<ModelCatalog> m_catalog;
    std::unique_ptr<HubSearch> m_hubSearch;
    QString m_modelsDir;
    QString m_settingsFile;
    QString m_errorText;
    QHash<quint64, PendingDownload> m_pending;
    QHash<QString, QList<HfFileEntry>> m_listings; ///< repository listings seen in this session
    quint64 m_filesRequest = 0;
    bool m_catalogSizesRequested = false;
    QString m_filesRepo;
    QVariantList m_repoFiles;
};

} // namespace hearth::models
