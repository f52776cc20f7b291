// SPDX-License-Identifier: MIT
#include "modelcatalog.h"

#include "catalogdescriptions.h"
#include "languagechangewatcher.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>
#include <QSaveFile>
#include <QVariantMap>

#include <algorithm>

namespace hearth::models {

ModelCatalog::ModelCatalog(QObject* parent)
    : ModelCatalog(builtinCatalog(), MachineInfo::detect(), detectGpu(), parent)
{
}

ModelCatalog::ModelCatalog(
    QList<CatalogEntry> entries, const MachineInfo& machine, std::unique_ptr<GpuInfo> gpu, QObject* parent)
    : QAbstractListModel(parent)
    , m_entries(std::move(entries))
    , m_machine(machine)
    , m_gpu(gpu ? std::move(gpu) : std::make_unique<FixedGpuInfo>(0))
{
    for (int i = 0; i < m_entries.size(); ++i)
        m_visible.append(i);
    // Badges, parameter counts and sizes are translated text: all of it anew.
    connect(new LanguageChangeWatcher(this), &LanguageChangeWatcher::languageChanged, this, [this] {
        m_fits.clear();
        if (!m_visible.isEmpty())
            Q_EMIT dataChanged(index(0), index(static_cast<int>(m_visible.size()) - 1));
    });
}

ModelCatalog::~ModelCatalog() = default;

int ModelCatalog::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_visible.size());
}

const CatalogEntry* ModelCatalog::entryAt(int row) const
{
    return row >= 0 && row < m_visible.size() ? &m_entries.at(m_visible.at(row)) : nullptr;
}

int ModelCatalog::rowOf(const QString& id) const
{
    for (int row = 0; row < m_visible.size(); ++row) {
        if (m_entries.at(m_visible.at(row)).id == id)
            return row;
    }
    return -1;
}

const GpuInfo& ModelCatalog::effectiveGpu() const
{
    return m_previewGpu ? *m_previewGpu : *m_gpu;
}

FitBadge ModelCatalog::fitAt(int row) const
{
    if (row < 0 || row >= m_visible.size())
        return {};
    const int index = m_visible.at(row);
    if (auto it = m_fits.constFind(index); it != m_fits.constEnd())
        return *it;
    const CatalogEntry& entry = m_entries.at(index);
    const FitBadge badge
        = estimateFit(entry.planningDescription(0), entry.assumedSparsity(), m_machine, effectiveGpu());
    m_fits.insert(index, badge);
    return badge;
}

QVariant ModelCatalog::data(const QModelIndex& index, int role) const
{
    const CatalogEntry* e = index.isValid() ? entryAt(index.row()) : nullptr;
    if (!e)
        return {};
    switch (role) {
    case Qt::DisplayRole:
    case NameRole:
        return e->name;
    case IdRole:
    case CatalogIdRole:
        return e->id;
    case RepoRole:
        return e->repo;
    case ArchitectureRole:
        return e->architecture;
    case SparseRole:
        return e->sparse;
    case ExpertsRole:
        return e->experts;
    case ExpertsUsedRole:
        return e->expertsUsed;
    case PredictorRepoRole:
        return e->predictorRepo;
    case LicenceRole:
        return e->licence;
    case ParametersRole:
        return static_cast<double>(e->parameters);
    case ParametersTextRole:
        return tr("%1B", "billions of parameters")
            .arg(QLocale().toString(static_cast<double>(e->parameters) / 1e9, 'f', 1));
    case SizeTextRole:
        return e->files.isEmpty() ? QString()
                                  : formatSize(e->files.first().size, e->files.first().sizeApprox);
    case QuantizationRole:
        return e->files.isEmpty() ? QString() : e->files.first().quantization;
    case FilesRole: {
        QVariantList files;
        for (const CatalogFile& f : e->files) {
            files.append(QVariantMap { { QStringLiteral("name"), f.name },
                { QStringLiteral("quantization"), f.quantization },
                { QStringLiteral("size"), static_cast<double>(f.size) },
                { QStringLiteral("sizeText"), formatSize(f.size, f.sizeApprox) } });
        }
        return files;
    }
    case SparsityRole:
        return e->reportedSparsity.value_or(-1.0);
    case NeedsConversionRole:
        return e->needsConversion();
    case DescriptionRole:
        return translatedDescription(e->description);
    case FitKindRole:
        return fitAt(index.row()).kindName();
    case FitTextRole:
        return fitAt(index.row()).text;
    case FitReasonRole:
        return fitAt(index.row()).reason;
    case TokensPerSecondRole:
        return fitAt(index.row()).tokensPerSecond;
    default:
        return {};
    }
}

QHash<int, QByteArray> ModelCatalog::roleNames() const
{
    return {
        { IdRole, "id" },
        { NameRole, "name" },
        { RepoRole, "repo" },
        { ArchitectureRole, "architecture" },
        { SparseRole, "sparse" },
        { PredictorRepoRole, "predictorRepo" },
        { LicenceRole, "licence" },
        { ParametersRole, "parameters" },
        { ParametersTextRole, "parametersText" },
        { SizeTextRole, "sizeText" },
        { QuantizationRole, "quantization" },
        { FilesRole, "files" },
        { SparsityRole, "reportedSparsity" },
        { NeedsConversionRole, "needsConversion" },
        { DescriptionRole, "description" },
        { FitKindRole, "fitKind" },
        { FitTextRole, "fitText" },
        { FitReasonRole, "fitReason" },
        { TokensPerSecondRole, "tokensPerSecond" },
        { CatalogIdRole, "catalogId" },
        { ExpertsRole, "experts" },
        { ExpertsUsedRole, "expertsUsed" },
    };
}

bool ModelCatalog::matches(const CatalogEntry& e, const QString& filter)
{
    const QStringList words = filter.split(QLatin1Char(' '), Qt::SkipEmptyParts);
    for (const QString& word : words) {
        const bool hit = e.name.contains(word, Qt::CaseInsensitive)
            || e.repo.contains(word, Qt::CaseInsensitive)
            || e.architecture.contains(word, Qt::CaseInsensitive)
            || e.description.contains(word, Qt::CaseInsensitive)
            || translatedDescription(e.description).contains(word, Qt::CaseInsensitive)
            || e.id.contains(word, Qt::CaseInsensitive);
        if (!hit)
            return false;
    }
    return true;
}

void ModelCatalog::setFilter(const QString& filter)
{
    if (filter == m_filter)
        return;
    m_filter = filter;
    refilter();
    Q_EMIT filterChanged();
}

void ModelCatalog::refilter()
{
    // A filter change rebuilds the visible list: rows come and go in arbitrary places, and the
    // catalog is a few dozen entries, so a reset is cheaper than computing moves.
    const auto before = m_visible.size();
    beginResetModel();
    m_visible.clear();
    for (int i = 0; i < m_entries.size(); ++i) {
        if (matches(m_entries.at(i), m_filter))
            m_visible.append(i);
    }
    endResetModel();
    if (before != m_visible.size())
        Q_EMIT countChanged();
}

void ModelCatalog::setPreviewGpuGiB(int gib)
{
    gib = std::max(0, gib);
    if (gib == m_previewGpuGiB)
        return;
    m_previewGpuGiB = gib;
    m_previewGpu = gib > 0 ? std::make_unique<FixedGpuInfo>(quint64(gib) << 30) : nullptr;
    invalidateFits();
    Q_EMIT previewGpuGiBChanged();
}

void ModelCatalog::setMachine(const MachineInfo& machine)
{
    m_machine = machine;
    invalidateFits();
}

void ModelCatalog::setGpu(std::unique_ptr<GpuInfo> gpu)
{
    m_gpu = gpu ? std::move(gpu) : std::make_unique<FixedGpuInfo>(0);
    invalidateFits();
}

void ModelCatalog::invalidateFits()
{
    m_fits.clear();
    if (!m_visible.isEmpty())
        Q_EMIT dataChanged(index(0), index(static_cast<int>(m_visible.size()) - 1),
            { FitKindRole, FitTextRole, FitReasonRole, TokensPerSecondRole });
}

bool ModelCatalog::applyListing(const QString& repo, const QList<HfFileEntry>& files)
{
    QHash<QString, quint64> sizes;
    quint64 all = 0;
    for (const HfFileEntry& file : files) {
        if (!file.isFile() || file.downloadSize() <= 0)
            continue;
        sizes.insert(file.path, quint64(file.downloadSize()));
        all += quint64(file.downloadSize());
    }
    // A "*" file is every file of the repository, as its download takes them.
    if (all > 0)
        sizes.insert(QStringLiteral("*"), all);
    if (!setExactSizes(repo, sizes))
        return false;
    saveSizeCache();
    return true;
}

QStringList ModelCatalog::reposWithApproximateSizes() const
{
    QStringList repos;
    for (const CatalogEntry& entry : m_entries) {
        const bool approximate = std::any_of(
            entry.files.begin(), entry.files.end(), [](const CatalogFile& f) { return f.sizeApprox; });
        if (approximate && !repos.contains(entry.repo))
            repos.append(entry.repo);
    }
    return repos;
}

bool ModelCatalog::setExactSizes(const QString& repo, const QHash<QString, quint64>& sizes)
{
    bool changed = false;
    for (int i = 0; i < m_entries.size(); ++i) {
        CatalogEntry& entry = m_entries[i];
        if (entry.repo != repo)
            continue;
        bool entryChanged = false;
        for (CatalogFile& file : entry.files) {
            const auto size = sizes.constFind(file.name);
            if (size == sizes.constEnd() || *size == 0 || (!file.sizeApprox && file.size == *size))
                continue;
            file.size = *size;
            file.sizeApprox = false;
            entryChanged = true;
        }
        if (!entryChanged)
            continue;
        changed = true;
        const int row = static_cast<int>(m_visible.indexOf(i));
        if (row >= 0)
            Q_EMIT dataChanged(index(row), index(row), { SizeTextRole, FilesRole });
    }
    return changed;
}

void ModelCatalog::setSizeCacheFile(const QString& path)
{
    m_sizeCacheFile.clear(); // nothing to write back while the file's own sizes apply
    QFile file(path);
    if (file.open(QIODevice::ReadOnly)) {
        const QJsonObject repos = QJsonDocument::fromJson(file.readAll()).object();
        for (auto repo = repos.begin(); repo != repos.end(); ++repo) {
            QHash<QString, quint64> sizes;
            const QJsonObject files = repo.value().toObject();
            for (auto f = files.begin(); f != files.end(); ++f) {
                const double bytes = f.value().toDouble();
                if (bytes >= 1 && bytes < 1e18)
                    sizes.insert(f.key(), static_cast<quint64>(bytes));
            }
            setExactSizes(repo.key(), sizes);
        }
    }
    m_sizeCacheFile = path;
}

void ModelCatalog::saveSizeCache() const
{
    if (m_sizeCacheFile.isEmpty())
        return;
    QJsonObject repos;
    for (const CatalogEntry& entry : m_entries) {
        QJsonObject files = repos.value(entry.repo).toObject();
        for (const CatalogFile& file : entry.files) {
            if (!file.sizeApprox)
                files.insert(file.name, static_cast<double>(file.size));
        }
        if (!files.isEmpty())
            repos.insert(entry.repo, files);
    }
    // Only a convenience: a disk that refuses it leaves the sizes exact for this run.
    QSaveFile out(m_sizeCacheFile);
    if (out.open(QIODevice::WriteOnly) && out.write(QJsonDocument(repos).toJson(QJsonDocument::Compact)) >= 0)
        out.commit();
}

} // namespace hearth::models
