// SPDX-License-Identifier: MIT
#include "modellibrary.h"
#include "engine_error.h"
#include "engine_path.h"

#include "catalogentry.h"
#include "ggufprobe.h"
#include "languagechangewatcher.h"

#include <hearth/convert.h>
#include <hearth/placement.h>
#include <hearth/speculative.h>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>

namespace hearth::models {

namespace {

using app::enginePath;

bool isPartial(const QString& path)
{
    return path.endsWith(QLatin1String(".part"), Qt::CaseInsensitive);
}

} // namespace

ModelLibrary::ModelLibrary(DownloadManager* manager, QObject* parent)
    : QAbstractListModel(parent)
    , m_manager(manager)
    , m_machine(MachineInfo::detect())
    , m_gpu(detectGpu())
{
    // Fit badges and notes are made with the scan: scanning again makes them in the new language.
    connect(new LanguageChangeWatcher(this), &LanguageChangeWatcher::languageChanged, this, &ModelLibrary::refresh);
    connect(&m_scan, &QFutureWatcher<QList<InstalledModel>>::finished, this, [this] {
        m_scanning = false;
        applyScan(m_scan.result());
        if (m_rescan) {
            m_rescan = false;
            refresh();
        } else {
            Q_EMIT busyChanged();
            Q_EMIT scanned();
        }
    });
    if (manager) {
        // Only a change that can add or remove a listed model needs a scan.
        connect(manager, &DownloadManager::itemAdded, this, [this](qint64 id) {
            const auto item = m_manager->item(id);
            if (item && item->state == DownloadState::Completed)
                refresh();
        });
        connect(manager, &DownloadManager::itemChanged, this, [this](qint64 id) {
            const auto item = m_manager->item(id);
            const bool listed = std::any_of(
                m_rows.begin(), m_rows.end(), [id](const InstalledModel& m) { return m.id == id; });
            if (listed || (item && item->state == DownloadState::Completed))
                refresh();
        });
        connect(manager, &DownloadManager::itemRemoved, this, [this](qint64 id) {
            for (int row = 0; row < m_rows.size(); ++row) {
                if (m_rows.at(row).id == id) {
                    beginRemoveRows({}, row, row);
                    m_rows.removeAt(row);
                    endRemoveRows();
                    Q_EMIT countChanged();
                    return;
                }
            }
        });
        refresh();
    }
}

ModelLibrary::~ModelLibrary() = default;

int ModelLibrary::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

QVariant ModelLibrary::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= m_rows.size())
        return {};
    const InstalledModel& m = m_rows.at(index.row());
    switch (role) {
    case Qt::DisplayRole:
    case NameRole:
        return m.name;
    case IdRole:
        return m.id;
    case PathRole:
        return m.path;
    case FolderUrlRole:
        return QUrl::fromLocalFile(QFileInfo(m.path).absolutePath());
    case ImportedRole:
        return m.imported;
    case SizeTextRole:
        return formatSize(m.size);
    case ArchitectureRole:
        return m.architecture;
    case WeightTypeRole:
        return m.weightType;
    case SparseRole:
        return m.sparse;
    case SparsifiableRole:
        return m.sparsifiable;
    case LayersRole:
        return m.layers;
    case FitKindRole:
        return m.fit.kindName();
    case FitTextRole:
        return m.fit.text;
    case FitReasonRole:
        return m.fit.reason;
    case NoteRole:
        return m.note;
    default:
        return {};
    }
}

QHash<int, QByteArray> ModelLibrary::roleNames() const
{
    return { { IdRole, "modelId" }, { PathRole, "path" }, { NameRole, "name" }, { FolderUrlRole, "folderUrl" },
        { ImportedRole, "imported" }, { SizeTextRole, "sizeText" }, { ArchitectureRole, "architecture" },
        { WeightTypeRole, "weightType" }, { SparseRole, "sparse" }, { SparsifiableRole, "sparsifiable" }, { LayersRole, "layers" },
        { FitKindRole, "fitKind" }, { FitTextRole, "fitText" }, { FitReasonRole, "fitReason" },
        { NoteRole, "note" } };
}

QStringList ModelLibrary::paths() const
{
    QStringList result;
    for (const InstalledModel& m : m_rows)
        result.append(m.path);
    return result;
}

int ModelLibrary::rowOfPath(const QString& path) const
{
    for (int row = 0; row < m_rows.size(); ++row) {
        if (m_rows.at(row).path == path)
            return row;
    }
    return -1;
}

void ModelLibrary::setMachine(const MachineInfo& machine)
{
    m_machine = machine;
    refresh();
}

void ModelLibrary::setGpu(std::unique_ptr<GpuInfo> gpu)
{
    m_gpu = gpu ? std::move(gpu) : std::make_unique<FixedGpuInfo>(0);
    refresh();
}

FixedGpuInfo ModelLibrary::gpuSnapshot() const
{
    if (!m_gpu || !m_gpu->present())
        return FixedGpuInfo(0);
    return FixedGpuInfo(m_gpu->totalBytes(), m_gpu->name(), m_gpu->bandwidthGBs(), m_gpu->freeBytes(), m_gpu->emulated());
}

// Scanning ---------------------------------------------------------------------------------------

std::optional<InstalledModel> ModelLibrary::inspect(
    qint64 id, const QString& path, bool imported, const MachineInfo& machine, const FixedGpuInfo& gpu)
{
    if (isPartial(path))
        return std::nullopt;
    const QFileInfo info(path);
    if (!info.isFile())
        return std::nullopt;
    const GgufProbe probe = probeGgufFile(path);
    if (!probe.ok)
        return std::nullopt; // a completed download that is not a model (config.json, shards)
    InstalledModel model;
    model.id = id;
    model.path = path;
    model.name = info.fileName().endsWith(QLatin1String(".gguf"), Qt::CaseInsensitive) ? info.completeBaseName()
                                                                                        : info.fileName();
    model.imported = imported;
    model.size = quint64(info.size());
    auto placement = PlacementModel::fromFile(enginePath(path));
    if (!placement) {
        model.note = tr("Cannot read the model's layout: %1").arg(app::engineErrorText(placement.status()));
        return model;
    }
    model.inspected = true;
    model.architecture = QString::fromStdString(placement->architecture());
    model.weightType = QString::fromStdString(placement->weightType());
    model.sparse = placement->sparseCapable() || placement->magnitudeSparse();
    model.sparsifiable = !model.sparse && checkSparsifiable(enginePath(path)).ok();
    model.layers = placement->layerCount();
    model.fit = estimateFit(placement.value(), machine, gpu);
    if (const auto vocabulary = hearth::vocabularyFingerprint(enginePath(path)))
        model.vocabulary = *vocabulary;
    return model;
}

void ModelLibrary::refresh()
{
    if (!m_manager)
        return;
    if (m_scanning) {
        m_rescan = true;
        return;
    }
    QList<Candidate> candidates;
    for (const DownloadItem& item : m_manager->items()) {
        if (item.state == DownloadState::Completed)
            candidates.append({ item.id, item.destination, item.repo.isEmpty() && item.url.isLocalFile() });
    }
    m_scanning = true;
    Q_EMIT busyChanged();
    const MachineInfo machine = m_machine;
    const FixedGpuInfo gpu = gpuSnapshot();
    m_scan.setFuture(QtConcurrent::run([candidates, machine, gpu] {
        QList<InstalledModel> found;
        for (const Candidate& c : candidates) {
            if (auto model = inspect(c.id, c.path, c.imported, machine, gpu))
                found.append(std::move(*model));
        }
        return found;
    }));
}

void ModelLibrary::applyScan(const QList<InstalledModel>& found)
{
    // Row by row, so views keep their selection and scroll position.
    const int before = int(m_rows.size());
    for (int row = int(m_rows.size()) - 1; row >= 0; --row) {
        const qint64 id = m_rows.at(row).id;
        if (std::none_of(found.begin(), found.end(), [id](const InstalledModel& m) { return m.id == id; })) {
            beginRemoveRows({}, row, row);
            m_rows.removeAt(row);
            endRemoveRows();
        }
    }
    for (const InstalledModel& model : found) {
        auto it = std::find_if(m_rows.begin(), m_rows.end(), [&](const InstalledModel& m) { return m.id == model.id; });
        if (it != m_rows.end()) {
            *it = model;
            const int row = int(it - m_rows.begin());
            Q_EMIT dataChanged(index(row), index(row));
        } else {
            beginInsertRows({}, int(m_rows.size()), int(m_rows.size()));
            m_rows.append(model);
            endInsertRows();
        }
    }
    if (before != m_rows.size())
        Q_EMIT countChanged();
}

// Importing --------------------------------------------------------------------------------------

QString ModelLibrary::validateImport(const QString& path)
{
    const QFileInfo info(path);
    if (isPartial(path))
        return tr("%1 is an unfinished download and cannot be imported.").arg(info.fileName());
    const GgufProbe probe = probeGgufFile(path);
    if (!probe.ok)
        return probe.errorText;
    // The probe looks at the header only; the tensor table tells a complete file from a cut one.
    auto placement = PlacementModel::fromFile(enginePath(path));
    if (!placement) {
        return tr("%1 cannot be used: %2").arg(info.fileName(), app::engineErrorText(placement.status()));
    }
    return {};
}

void ModelLibrary::importFile(const QUrl& file)
{
    importPath(file.isLocalFile() ? file.toLocalFile() : file.toString());
}

void ModelLibrary::importPath(const QString& path)
{
    if (!m_manager)
        return;
    const QString absolute = QFileInfo(path).absoluteFilePath();
    if (path.isEmpty()) {
        setErrorText(tr("Choose a model file to import."));
        Q_EMIT importFailed(m_errorText);
        return;
    }
    if (rowOfPath(absolute) >= 0) {
        setErrorText(tr("%1 is already in the list.").arg(QFileInfo(path).fileName()));
        Q_EMIT importFailed(m_errorText);
        return;
    }
    ++m_importing;
    Q_EMIT busyChanged();
    auto* watcher = new QFutureWatcher<QString>(this);
    connect(watcher, &QFutureWatcher<QString>::finished, this, [this, watcher, absolute] {
        watcher->deleteLater();
        --m_importing;
        QString error = watcher->result();
        if (error.isEmpty() && m_manager && m_manager->importLocalFile(absolute) == 0)
            error = m_manager->lastError();
        setErrorText(error);
        Q_EMIT busyChanged();
        if (error.isEmpty())
            Q_EMIT imported(absolute);
        else
            Q_EMIT importFailed(error);
    });
    watcher->setFuture(QtConcurrent::run([absolute] { return validateImport(absolute); }));
}

bool ModelLibrary::removeFromList(qint64 id)
{
    return m_manager && m_manager->remove(id);
}

bool ModelLibrary::deleteModel(qint64 id)
{
    const auto it = std::find_if(m_rows.cbegin(), m_rows.cend(), [id](const InstalledModel& m) { return m.id == id; });
    if (!m_manager || it == m_rows.cend() || it->imported)
        return false;
    const QString path = it->path;
    QFile file(path);
    if (file.exists() && !file.remove()) {
        setErrorText(tr("Cannot delete %1: %2").arg(QDir::toNativeSeparators(path), file.errorString()));
        return false;
    }
    // What was made for this file alone goes with it: the neuron placement cached for it and the
    // activation statistics hearth-profile wrote beside it.
    const std::string model = enginePath(path);
    for (const std::string& madeForIt : {hearth::placementCachePath(model), hearth::statisticsPathFor(model)})
        QFile::remove(QFile::decodeName(madeForIt.c_str()));
    setErrorText({});
    return m_manager->remove(id);
}

QVariantList ModelLibrary::draftCandidates(const QString& modelPath) const
{
    const int row = rowOfPath(modelPath);
    const quint64 size = row >= 0 ? m_rows.at(row).size : quint64(QFileInfo(modelPath).size());
    const quint64 vocabulary = row >= 0 ? m_rows.at(row).vocabulary : 0;
    QList<InstalledModel> smaller;
    for (const InstalledModel& model : m_rows) {
        const bool sameVocabulary = vocabulary == 0 || model.vocabulary == 0 || model.vocabulary == vocabulary;
        if (model.path != modelPath && model.size < size && sameVocabulary)
            smaller.append(model);
    }
    std::sort(smaller.begin(), smaller.end(), [](const InstalledModel& a, const InstalledModel& b) { return a.size < b.size; });
    QVariantList candidates;
    for (const InstalledModel& model : smaller) {
        candidates.append(QVariantMap {{QStringLiteral("path"), model.path},
                                       {QStringLiteral("name"), model.name},
                                       {QStringLiteral("sizeText"), formatSize(model.size)}});
    }
    return candidates;
}

void ModelLibrary::setErrorText(const QString& text)
{
    if (text == m_errorText)
        return;
    m_errorText = text;
    Q_EMIT errorTextChanged();
}

} // namespace hearth::models
