// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// ModelCatalog: the built-in list of known models (resources/catalog/models.json) for the model
/// picker, filtered by a search text, each with a fit badge for this machine. The catalog's file
/// sizes are rounded ("≈ 4.1 GB"); a repository listing replaces them with the real ones, which
/// are kept in a small cache file so that they stay exact without a network.

#include "catalogentry.h"
#include "fitbadge.h"
#include "gpuinfo.h"
#include "huggingfaceapi.h"
#include "machineinfo.h"

#include <QAbstractListModel>
#include <QHash>
#include <QList>
#include <QtQmlIntegration>

#include <memory>

namespace hearth::models {

class ModelCatalog : public QAbstractListModel
{
    Q_OBJECT
    QML_ELEMENT
    /// Case-insensitive words matched against name, repository, architecture and description;
    /// every word must match.
    Q_PROPERTY(QString filter READ filter WRITE setFilter NOTIFY filterChanged)
    /// Badges for a GPU of this many GiB instead of the detected one ("plan for a GPU of N GB");
    /// 0 uses the detected GPU.
    Q_PROPERTY(int previewGpuGiB READ previewGpuGiB WRITE setPreviewGpuGiB NOTIFY previewGpuGiBChanged)
    Q_PROPERTY(int count READ rowCount NOTIFY countChanged)

public:
    /// Roles, from Qt::UserRole + 1; QML names in roleNames().
    enum Role {
        IdRole = Qt::UserRole + 1, ///< "id": the entry's stable key
        NameRole, ///< "name": display name
        RepoRole, ///< "repo": Hugging Face "owner/name"
        ArchitectureRole, ///< "architecture": llama, bamboo, falcon, opt
        SparseRole, ///< "sparse": predictors available (hybrid hot/cold placement)
        PredictorRepoRole, ///< "predictorRepo": where predictors come from, if separate
        LicenceRole, ///< "licence"
        ParametersRole, ///< "parameters": parameter count (double)
        ParametersTextRole, ///< "parametersText": "6.7B"
        SizeTextRole, ///< "sizeText": size of the first (recommended) file, "≈ 4.1 GB"
        QuantizationRole, ///< "quantization": of the first file
        FilesRole, ///< "files": list of {name, quantization, size, sizeText}
        SparsityRole, ///< "reportedSparsity": -1 when unreported
        NeedsConversionRole, ///< "needsConversion": not a GGUF repository
        DescriptionRole, ///< "description"
        FitKindRole, ///< "fitKind": FitBadge::kindName()
        FitTextRole, ///< "fitText": the translated badge
        FitReasonRole, ///< "fitReason": tooltip detail
        TokensPerSecondRole, ///< "tokensPerSecond": the badge's estimate
        CatalogIdRole, ///< "catalogId": the same as "id", which QML delegates cannot declare
        ExpertsRole, ///< "experts": experts of a mixture in each layer; 0 for a dense FFN
        ExpertsUsedRole, ///< "expertsUsed": of those, the ones a token runs
    };
    Q_ENUM(Role)

    /// Uses builtinCatalog(), MachineInfo::detect() and detectGpu().
    explicit ModelCatalog(QObject* parent = nullptr);
    /// For tests: given entries, machine and GPU.
    ModelCatalog(QList<CatalogEntry> entries, const MachineInfo& machine, std::unique_ptr<GpuInfo> gpu,
        QObject* parent = nullptr);
    ~ModelCatalog() override;

    [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] QVariant data(const QModelIndex& index, int role) const override;
    [[nodiscard]] QHash<int, QByteArray> roleNames() const override;

    [[nodiscard]] QString filter() const { return m_filter; }
    void setFilter(const QString& filter);
    [[nodiscard]] int previewGpuGiB() const { return m_previewGpuGiB; }
    void setPreviewGpuGiB(int gib);

    void setMachine(const MachineInfo& machine);
    void setGpu(std::unique_ptr<GpuInfo> gpu);

    /// The entry at a visible row; nullptr when out of range.
    [[nodiscard]] const CatalogEntry* entryAt(int row) const;
    /// Visible row of the entry with @p id, or -1.
    Q_INVOKABLE int rowOf(const QString& id) const;
    [[nodiscard]] FitBadge fitAt(int row) const;
    /// Whether @p entry matches @p filter (exposed for tests).
    [[nodiscard]] static bool matches(const CatalogEntry& entry, const QString& filter);

    /// Takes the sizes of @p repo's files from its listing (what a download of each yields; a
    /// "*" file: the whole repository): exact from then on. Returns whether a size changed.
    bool applyListing(const QString& repo, const QList<HfFileEntry>& files);
    /// The repositories with a file whose size is still approximate.
    [[nodiscard]] QStringList reposWithApproximateSizes() const;
    /// Keeps the exact sizes in @p path (JSON: {repo: {file: bytes}}): those it holds apply now,
    /// and each listing that changes a size rewrites it. An unreadable file is ignored.
    void setSizeCacheFile(const QString& path);

Q_SIGNALS:
    void filterChanged();
    void previewGpuGiBChanged();
    void countChanged();

private:
    void refilter();
    void invalidateFits();
    /// Sets the sizes in @p sizes (file name to bytes) of @p repo's files; true when one changed.
    bool setExactSizes(const QString& repo, const QHash<QString, quint64>& sizes);
    void saveSizeCache() const;
    [[nodiscard]] const GpuInfo& effectiveGpu() const;

    QList<CatalogEntry> m_entries;
    QList<int> m_visible; ///< indices into m_entries
    QString m_filter;
    int m_previewGpuGiB = 0;
    MachineInfo m_machine;
    std::unique_ptr<GpuInfo> m_gpu;
    std::unique_ptr<GpuInfo> m_previewGpu;
    mutable QHash<int, FitBadge> m_fits; ///< by entry index; planned on first display
    QString m_sizeCacheFile;
};

} // namespace hearth::models
