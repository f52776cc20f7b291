// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// ModelLibrary: the models a user can load, for the Installed section. They are the
/// DownloadManager's completed entries (verified downloads, and local files imported with
/// importFile()) whose file still exists and is a GGUF model; the queue's database keeps them
/// across restarts. A .part file, a download still running, or an entry that failed its check is
/// never listed. Everything that reads files (the probe, the tensor table for the details and the
/// fit badge) runs on a worker thread; rows change on the GUI thread when the results arrive.

#include "downloadmanager.h"
#include "fitbadge.h"
#include "gpuinfo.h"
#include "machineinfo.h"

#include <QAbstractListModel>
#include <QFutureWatcher>
#include <QPointer>
#include <QUrl>
#include <QVariantList>
#include <QtQmlIntegration>

namespace hearth::models {

/// One listed model and what its file says about it.
struct InstalledModel
{
    qint64 id = 0; ///< the DownloadManager entry
    QString path;
    QString name; ///< file name without ".gguf"
    bool imported = false; ///< a local file (else a download)
    quint64 size = 0;
    bool inspected = false; ///< the tensor table was read (architecture ... fit are set)
    QString architecture;
    QString weightType;
    bool sparse = false; ///< predictors or magnitude thresholds: it skips neurons ("Sparse")
    bool sparsifiable = false; ///< a dense ReLU or SwiGLU model that can be made sparse ("Make Sparse…")
    int layers = 0;
    quint64 vocabulary = 0; ///< hearth::vocabularyFingerprint(); 0 when unknown
    FitBadge fit;
    QString note; ///< translated: why details are missing, or how the file was checked
};

class ModelLibrary : public QAbstractListModel
{
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("Owned by ModelManager")
    Q_PROPERTY(int count READ rowCount NOTIFY countChanged)
    /// A scan or an import check is running.
    Q_PROPERTY(bool busy READ busy NOTIFY busyChanged)
    /// Why the last import was refused; empty after a successful one.
    Q_PROPERTY(QString errorText READ errorText NOTIFY errorTextChanged)

public:
    enum Role {
        IdRole = Qt::UserRole + 1, ///< "modelId": the download entry's id
        PathRole, ///< "path"
        NameRole, ///< "name"
        FolderUrlRole, ///< "folderUrl": the containing folder, for "Show in folder"
        ImportedRole, ///< "imported"
        SizeTextRole, ///< "sizeText"
        ArchitectureRole, ///< "architecture"
        WeightTypeRole, ///< "weightType"
        SparseRole, ///< "sparse"
        SparsifiableRole, ///< "sparsifiable"
        LayersRole, ///< "layers"
        FitKindRole, ///< "fitKind": FitBadge::kindName()
        FitTextRole, ///< "fitText"
        FitReasonRole, ///< "fitReason"
        NoteRole, ///< "note"
    };
    Q_ENUM(Role)

    /// @p manager is not owned and must outlive the library.
    explicit ModelLibrary(DownloadManager* manager, QObject* parent = nullptr);
    ~ModelLibrary() override;

    [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] QVariant data(const QModelIndex& index, int role) const override;
    [[nodiscard]] QHash<int, QByteArray> roleNames() const override;

    [[nodiscard]] bool busy() const { return m_scanning || m_importing > 0; }
    [[nodiscard]] QString errorText() const { return m_errorText; }
    [[nodiscard]] const QList<InstalledModel>& models() const { return m_rows; }
    [[nodiscard]] QStringList paths() const;

    /// The machine and GPU the fit badges are for (default: this machine, detectGpu()).
    void setMachine(const MachineInfo& machine);
    void setGpu(std::unique_ptr<GpuInfo> gpu);

    /// Checks @p file (a path or a file: URL) on a worker thread: GGUF magic and version, then the
    /// whole tensor table against the file's size, so a truncated or damaged file is refused.
    /// A good file is added in place (nothing is copied) and imported() follows; otherwise
    /// importFailed() with the reason, also in errorText.
    Q_INVOKABLE void importFile(const QUrl& file);
    void importPath(const QString& path);
    /// Takes the model off the list; the file stays on disk.
    Q_INVOKABLE bool removeFromList(qint64 id);
    /// Deletes a downloaded model: its file, the placement cache and statistics beside it go
    /// from the disk, and it leaves the list. An imported file is the user's own and is not
    /// deleted (false). The caller makes sure the model is not loaded. False, with errorText,
    /// when the file cannot be deleted.
    Q_INVOKABLE bool deleteModel(qint64 id);
    /// Looks at every entry's file again (a file deleted or moved outside the app disappears).
    Q_INVOKABLE void refresh();
    /// Row of the model at @p path, or -1.
    Q_INVOKABLE int rowOfPath(const QString& path) const;
    /// The models that could guess ahead for the one at @p modelPath (a draft model for
    /// speculative decoding): the smaller ones of the same vocabulary, smallest first, as
    /// {path, name, sizeText}. When the vocabularies are not known, every smaller one; a
    /// choice that cannot guess says so when it is made.
    Q_INVOKABLE QVariantList draftCandidates(const QString& modelPath) const;

    /// The worker-thread part of a scan: nullopt when @p path is not a loadable model file.
    [[nodiscard]] static std::optional<InstalledModel> inspect(
        qint64 id, const QString& path, bool imported, const MachineInfo& machine, const FixedGpuInfo& gpu);
    /// The worker-thread part of an import: an empty string when @p path may be imported.
    [[nodiscard]] static QString validateImport(const QString& path);

Q_SIGNALS:
    void countChanged();
    void busyChanged();
    void errorTextChanged();
    void imported(const QString& path);
    void importFailed(const QString& errorText);
    /// A scan finished and the rows are current.
    void scanned();

private:
    struct Candidate
    {
        qint64 id = 0;
        QString path;
        bool imported = false;
    };

    void applyScan(const QList<InstalledModel>& found);
    void setErrorText(const QString& text);
    [[nodiscard]] FixedGpuInfo gpuSnapshot() const;

    QPointer<DownloadManager> m_manager;
    QList<InstalledModel> m_rows;
    MachineInfo m_machine;
    std::unique_ptr<GpuInfo> m_gpu;
    QString m_errorText;
    bool m_scanning = false;
    bool m_rescan = false; ///< something changed during the running scan
    int m_importing = 0;
    QFutureWatcher<QList<InstalledModel>> m_scan;
};

} // namespace hearth::models
