// SPDX-License-Identifier: MIT
#include "placementpreview.h"
#include "engine_error.h"
#include "engine_path.h"

#include "catalogentry.h"
#include "fitbadge.h"
#include "languagechangewatcher.h"

#include <QCryptographicHash>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QLocale>
#include <QSettings>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <cmath>

namespace hearth::models {

namespace {

constexpr quint64 kGiB = quint64(1) << 30;

QString gibText(double bytes)
{
    return PlacementPreview::tr("%1 GiB").arg(
        QLocale().toString(bytes / double(kGiB), 'f', bytes < 10.0 * kGiB ? 2 : 1));
}

// QSettings keys must not contain '/' or '\\' from a path; a hash of the path is stable and short.
QString settingsGroup(const QString& modelKey)
{
    const QByteArray hash
        = QCryptographicHash::hash(modelKey.toUtf8(), QCryptographicHash::Sha1).toHex().left(16);
    return QStringLiteral("vramBudget/") + QString::fromLatin1(hash);
}

} // namespace

PlacementPreview::PlacementPreview(QObject* parent)
    : QAbstractListModel(parent)
    , m_gpu(detectGpu())
    , m_machine(MachineInfo::detect())
{
    m_debounce.setSingleShot(true);
    m_debounce.setInterval(40);
    connect(&m_debounce, &QTimer::timeout, this, &PlacementPreview::replan);
    // The texts are made when read, except the plan's: plan again, and say that all changed.
    connect(new LanguageChangeWatcher(this), &LanguageChangeWatcher::languageChanged, this, [this] {
        Q_EMIT gpuChanged();
        Q_EMIT budgetChanged();
        m_debounce.start();
    });
}

PlacementPreview::~PlacementPreview() = default;

// Model ------------------------------------------------------------------------------------------

void PlacementPreview::setModelPath(const QString& path)
{
    if (path == m_modelPath && !path.isEmpty())
        return;
    if (loading()) { // a synchronous choice overrides a pending loadModelPath()
        m_loadingPath.reset();
        Q_EMIT loadingChanged();
    }
    m_modelPath = path;
    m_catalogId.clear();
    if (path.isEmpty()) {
        adoptModel(std::nullopt, {}, {}, {});
        return;
    }
    // Reads the tensor table only (a few milliseconds even for a 70B file).
    auto model = PlacementModel::fromFile(app::enginePath(path));
    if (!model) {
        adoptModel(std::nullopt, {}, QFileInfo(path).fileName(),
            tr("Cannot plan this model: %1").arg(app::engineErrorText(model.status())));
        return;
    }
    adoptModel(std::move(model.value()), path, QFileInfo(path).completeBaseName(), {});
}

void PlacementPreview::loadModelPath(const QString& path)
{
    if (path.isEmpty()) {
        const bool wasLoading = loading();
        m_loadingPath.reset();
        setModelPath(path);
        if (wasLoading)
            Q_EMIT loadingChanged();
        return;
    }
    if ((path == m_modelPath && m_catalogId.isEmpty() && !loading()) || m_loadingPath == path)
        return;
    const bool wasLoading = loading();
    m_loadingPath = path;
    if (!wasLoading)
        Q_EMIT loadingChanged();
    using Loaded = std::shared_ptr<Result<PlacementModel>>;
    auto* watcher = new QFutureWatcher<Loaded>(this);
    connect(watcher, &QFutureWatcher<Loaded>::finished, this, [this, watcher, path] {
        watcher->deleteLater();
        if (m_loadingPath != path)
            return; // a later call took over
        m_loadingPath.reset();
        Loaded loaded = watcher->result();
        m_modelPath = path;
        m_catalogId.clear();
        if (!loaded || !*loaded) {
            adoptModel(std::nullopt, {}, QFileInfo(path).fileName(),
                tr("Cannot plan this model: %1")
                    .arg(loaded ? app::engineErrorText(loaded->status()) : QString()));
        } else {
            adoptModel(std::move(loaded->value()), path, QFileInfo(path).completeBaseName(), {});
        }
        Q_EMIT loadingChanged();
    });
    watcher->setFuture(QtConcurrent::run([path] {
        return std::make_shared<Result<PlacementModel>>(PlacementModel::fromFile(app::enginePath(path)));
    }));
}

void PlacementPreview::setCatalogId(const QString& id)
{
    if (id == m_catalogId && !id.isEmpty())
        return;
    if (loading()) {
        m_loadingPath.reset();
        Q_EMIT loadingChanged();
    }
    m_catalogId = id;
    m_modelPath.clear();
    const auto& catalog = builtinCatalog();
    const auto it
        = std::find_if(catalog.begin(), catalog.end(), [&](const CatalogEntry& e) { return e.id == id; });
    if (it == catalog.end()) {
        adoptModel(
            std::nullopt, {}, {}, id.isEmpty() ? QString() : tr("Unknown catalog model \"%1\".").arg(id));
        return;
    }
    auto model = PlacementModel::fromDescription(it->planningDescription(0), it->assumedSparsity());
    if (!model) {
        adoptModel(std::nullopt, {}, it->name,
            tr("Cannot plan this model: %1").arg(app::engineErrorText(model.status())));
        return;
    }
    adoptModel(std::move(model.value()), QStringLiteral("catalog:") + id, it->name, {});
}

void PlacementPreview::setModel(PlacementModel model, const QString& key, const QString& name)
{
    m_modelPath = key;
    m_catalogId.clear();
    adoptModel(std::move(model), key, name, {});
}

void PlacementPreview::adoptModel(
    std::optional<PlacementModel> model, const QString& key, const QString& name, const QString& error)
{
    m_model = std::move(model);
    m_modelKey = key;
    m_modelName = name;
    m_errorText = error;
    // The remembered choice for this model, else Auto.
    std::optional<Remembered> choice;
    if (!key.isEmpty()) {
        auto settings = openSettings();
        choice = remembered(*settings, key);
    }
    m_auto = choice ? choice->autoBudget : true;
    // Kept as remembered even when larger than the GPU at hand (a preview size, a GPU missing
    // for now); effectiveBudget() clamps.
    m_budget = choice ? choice->budgetBytes : 0;
    Q_EMIT modelChanged();
    Q_EMIT budgetChanged();
    m_debounce.stop();
    replan();
}

// GPU --------------------------------------------------------------------------------------------

bool PlacementPreview::hasGpu() const
{
    return m_gpu && m_gpu->present();
}

QString PlacementPreview::gpuName() const
{
    if (hasGpu())
        return m_gpu->name().isEmpty() ? tr("GPU") : m_gpu->name();
    return m_previewGpuGiB > 0 ? tr("Planned GPU of %1 GB").arg(m_previewGpuGiB) : QString();
}

double PlacementPreview::detectedGpuBytes() const
{
    return hasGpu() ? static_cast<double>(m_gpu->totalBytes()) : 0.0;
}

void PlacementPreview::setDetectedGpuBytes(double bytes)
{
    const quint64 value = bytes > 0 && std::isfinite(bytes) ? static_cast<quint64>(bytes) : 0;
    if (value == static_cast<quint64>(detectedGpuBytes()))
        return;
    setGpu(std::make_unique<FixedGpuInfo>(value));
}

void PlacementPreview::setGpu(std::unique_ptr<GpuInfo> gpu)
{
    m_gpu = gpu ? std::move(gpu) : std::make_unique<FixedGpuInfo>(0);
    Q_EMIT gpuChanged();
    Q_EMIT budgetChanged();
    scheduleReplan();
}

void PlacementPreview::setMachine(const MachineInfo& machine)
{
    m_machine = machine;
    scheduleReplan();
}

void PlacementPreview::setPreviewGpuGiB(int gib)
{
    gib = std::clamp(gib, 0, 1024);
    if (gib == m_previewGpuGiB)
        return;
    m_previewGpuGiB = gib;
    Q_EMIT gpuChanged();
    Q_EMIT budgetChanged();
    scheduleReplan();
}

quint64 PlacementPreview::gpuTotal() const
{
    if (hasGpu())
        return m_gpu->totalBytes();
    return quint64(m_previewGpuGiB) * kGiB;
}

double PlacementPreview::gpuBytes() const
{
    return static_cast<double>(gpuTotal());
}

QVariantList PlacementPreview::previewSizesGiB()
{
    return { 8, 12, 16, 24 };
}

// Budget -----------------------------------------------------------------------------------------

quint64 PlacementPreview::effectiveBudget() const
{
    if (!m_auto)
        return std::min(m_budget, gpuTotal());
    if (hasGpu())
        return autoBudgetBytes(*m_gpu);
    return autoBudgetBytes(FixedGpuInfo(gpuTotal()));
}

void PlacementPreview::setBudgetBytes(double bytes)
{
    const quint64 value
        = std::min<quint64>(bytes > 0 && std::isfinite(bytes) ? static_cast<quint64>(bytes) : 0, gpuTotal());
    if (value == m_budget && !m_auto)
        return;
    m_budget = value;
    m_auto = false;
    Q_EMIT budgetChanged();
    scheduleReplan();
}

void PlacementPreview::setAutoBudget(bool on)
{
    if (on == m_auto)
        return;
    // The slider shows the budget Auto picks, and stays there when Auto is switched off.
    m_auto = true;
    m_budget = effectiveBudget();
    m_auto = on;
    Q_EMIT budgetChanged();
    scheduleReplan();
}

QString PlacementPreview::budgetText() const
{
    const QString amount = gibText(effectiveBudgetBytes());
    return m_auto ? tr("Auto (%1)").arg(amount) : amount;
}

void PlacementPreview::setContextLength(int tokens)
{
    tokens = std::clamp(tokens, 1, 1 << 24);
    if (tokens == m_contextLength)
        return;
    m_contextLength = tokens;
    Q_EMIT contextLengthChanged();
    scheduleReplan();
}

QString PlacementPreview::kvCacheType() const
{
    return QString::fromLatin1(kvCacheTypeName(m_kvCacheType));
}

void PlacementPreview::setKvCacheType(const QString& name)
{
    const KvCacheType type = kvCacheTypeFromName(name.toStdString()).value_or(KvCacheType::F16);
    if (type == m_kvCacheType)
        return;
    m_kvCacheType = type;
    Q_EMIT kvCacheTypeChanged();
    scheduleReplan();
}

void PlacementPreview::setDebounceMs(int ms)
{
    ms = std::max(0, ms);
    if (ms == m_debounce.interval())
        return;
    m_debounce.setInterval(ms);
    Q_EMIT debounceMsChanged();
}

// Planning ---------------------------------------------------------------------------------------

void PlacementPreview::scheduleReplan()
{
    m_debounce.start();
}

void PlacementPreview::replanNow()
{
    m_debounce.stop();
    replan();
}

void PlacementPreview::replan()
{
    std::optional<PlacementSummary> next;
    if (m_model) {
        PlacementRequest request;
        request.budgetBytes = effectiveBudget();
        request.contextLength = m_contextLength;
        request.kvCacheType = m_kvCacheType;
        request.hostMemoryBytes = m_machine.ramBytes;
        request.cpuBandwidthGBs = m_machine.cpuBandwidthGBs;
        request.gpuBandwidthGBs = hasGpu() ? m_gpu->bandwidthGBs() : 400.0;
        request.emulatedDevice = hasGpu() && m_gpu->emulated();
        auto planned = m_model->plan(request);
        if (planned) {
            next = std::move(planned.value());
        } else {
            m_errorText = tr("Cannot plan this model: %1").arg(app::engineErrorText(planned.status()));
        }
    }

    const int oldRows = m_summary ? static_cast<int>(m_summary->layers.size()) : 0;
    const int newRows = next ? static_cast<int>(next->layers.size()) : 0;
    if (oldRows != newRows) {
        beginResetModel();
        m_summary = std::move(next);
        endResetModel();
    } else {
        // Same layers: report only the rows whose placement changed (a slider step moves a few).
        int first = -1;
        int last = -1;
        for (int i = 0; i < newRows; ++i) {
            const auto& a = m_summary->layers[static_cast<std::size_t>(i)];
            const auto& b = next->layers[static_cast<std::size_t>(i)];
            if (a.attentionOnGpu != b.attentionOnGpu || a.hotNeurons != b.hotNeurons
                || a.gpuActivationShare != b.gpuActivationShare) {
                first = first < 0 ? i : first;
                last = i;
            }
        }
        m_summary = std::move(next);
        if (first >= 0)
            Q_EMIT dataChanged(index(first), index(last));
    }
    Q_EMIT planChanged();
}

int PlacementPreview::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() || !m_summary ? 0 : static_cast<int>(m_summary->layers.size());
}

QVariant PlacementPreview::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || !m_summary || index.row() >= rowCount())
        return {};
    const LayerPlacementSummary& l = m_summary->layers[static_cast<std::size_t>(index.row())];
    switch (role) {
    case Qt::DisplayRole:
    case LayerRole:
        return index.row();
    case AttentionOnGpuRole:
        return l.attentionOnGpu;
    case HotNeuronsRole:
        return static_cast<double>(l.hotNeurons);
    case FeedForwardRole:
        return static_cast<double>(l.feedForwardSize);
    case HotFractionRole:
        return l.feedForwardSize > 0
            ? static_cast<double>(l.hotNeurons) / static_cast<double>(l.feedForwardSize)
            : 0.0;
    case GpuShareRole:
        return l.gpuActivationShare;
    case ExpertsRole:
        return l.expertCount;
    case GpuExpertsRole:
        return l.gpuExperts;
    default:
        return {};
    }
}

QHash<int, QByteArray> PlacementPreview::roleNames() const
{
    return { { LayerRole, "layerNumber" }, { AttentionOnGpuRole, "attentionOnGpu" },
        { HotNeuronsRole, "hotNeurons" }, { FeedForwardRole, "feedForward" },
        { HotFractionRole, "hotFraction" }, { GpuShareRole, "gpuShare" }, { ExpertsRole, "experts" },
        { GpuExpertsRole, "gpuExperts" } };
}

// Texts ------------------------------------------------------------------------------------------

QString PlacementPreview::reason() const
{
    if (!m_summary)
        return m_errorText;
    if (!m_summary->fitsInRam)
        return tr("Not enough RAM: this placement needs %1 besides the GPU's share.")
            .arg(gibText(ramBytes()));
    if (m_summary->fullyOnGpu())
        return tr("Everything is on the GPU.");
    if (m_summary->cpuOnly())
        return effectiveBudget() == 0
            ? tr("No GPU memory budget: everything runs on the CPU.")
            : tr("The budget is below the GPU's fixed costs: everything runs on the CPU.");
    if (m_summary->mixtureOfExperts)
        return tr("%1 of %2 layers' attention and %3 of %4 experts on the GPU, the most used first; the rest on the CPU.")
            .arg(attentionLayersOnGpu())
            .arg(rowCount())
            .arg(QLocale().toString(m_summary->gpuExpertCount()))
            .arg(QLocale().toString(m_summary->expertCount()));
    return tr("%1 of %2 layers' attention and %3 of %4 FFN neurons on the GPU; the rest on the CPU.")
        .arg(attentionLayersOnGpu())
        .arg(rowCount())
        .arg(QLocale().toString(hotNeurons()))
        .arg(QLocale().toString(totalNeurons()));
}

QString PlacementPreview::breakdownText() const
{
    if (!m_summary)
        return {};
    return tr("Weights %1 · KV cache %2 · Scratch %3 · Reserve %4 · Total %5 of %6")
        .arg(gibText(weightsBytes()), gibText(kvCacheBytes()), gibText(scratchBytes()),
            gibText(reserveBytes()), gibText(totalBytes()), gibText(effectiveBudgetBytes()));
}

QString PlacementPreview::speedText() const
{
    if (!m_summary)
        return {};
    return tr("Expected speed: %1").arg(formatTokensPerSecond(tokensPerSecond()));
}

QString PlacementPreview::summaryText() const
{
    if (!m_summary)
        return m_errorText;
    if (m_summary->mixtureOfExperts)
        return tr("Experts on the GPU: %1 of %2")
            .arg(QLocale().toString(m_summary->gpuExpertCount()), QLocale().toString(m_summary->expertCount()));
    return m_summary->sparse
        ? tr("Hot neurons on the GPU: %1 of %2")
              .arg(QLocale().toString(hotNeurons()), QLocale().toString(totalNeurons()))
        : tr("Layers on the GPU: %1 of %2 (dense model)").arg(attentionLayersOnGpu()).arg(rowCount());
}

// Remembering ------------------------------------------------------------------------------------

void PlacementPreview::setSettingsFile(const QString& path)
{
    if (path == m_settingsFile)
        return;
    m_settingsFile = path;
    Q_EMIT settingsFileChanged();
    // The remembered choice may differ in the other file.
    if (!m_modelKey.isEmpty()) {
        auto settings = openSettings();
        const std::optional<Remembered> choice = remembered(*settings, m_modelKey);
        m_auto = choice ? choice->autoBudget : true;
        m_budget = choice ? choice->budgetBytes : 0;
        Q_EMIT budgetChanged();
        scheduleReplan();
    }
}

std::unique_ptr<QSettings> PlacementPreview::openSettings() const
{
    if (!m_settingsFile.isEmpty())
        return std::make_unique<QSettings>(m_settingsFile, QSettings::IniFormat);
    return std::make_unique<QSettings>();
}

std::optional<PlacementPreview::Remembered> PlacementPreview::remembered(
    QSettings& settings, const QString& modelKey)
{
    settings.beginGroup(settingsGroup(modelKey));
    std::optional<Remembered> choice;
    if (settings.contains(QStringLiteral("auto"))) {
        choice = Remembered { settings.value(QStringLiteral("budgetBytes")).toULongLong(),
            settings.value(QStringLiteral("auto")).toBool() };
    }
    settings.endGroup();
    return choice;
}

void PlacementPreview::remember(QSettings& settings, const QString& modelKey, const Remembered& choice)
{
    settings.beginGroup(settingsGroup(modelKey));
    settings.setValue(QStringLiteral("model"), modelKey); // for people reading the file
    settings.setValue(QStringLiteral("budgetBytes"), choice.budgetBytes);
    settings.setValue(QStringLiteral("auto"), choice.autoBudget);
    settings.endGroup();
    settings.sync();
}

void PlacementPreview::apply()
{
    if (m_modelKey.isEmpty())
        return;
    auto settings = openSettings();
    remember(*settings, m_modelKey, { m_auto ? 0 : m_budget, m_auto });
    Q_EMIT applied(m_modelKey, effectiveBudgetBytes(), m_auto);
}

} // namespace hearth::models
