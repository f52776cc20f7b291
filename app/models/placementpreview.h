// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// PlacementPreview: the state behind the VRAM budget panel. It plans a model for the budget the
/// slider (or "Auto") sets and exposes the result: one row per layer (attention on the GPU or
/// not, hot neurons against all neurons) and the GPU memory breakdown with the expected speed.
/// Slider moves are debounced; planning itself takes well under a millisecond. Apply remembers
/// the budget per model (QSettings keyed by the model's path) and emits applied().

#include "gpuinfo.h"
#include "machineinfo.h"

#include <hearth/placement.h>

#include <QAbstractListModel>
#include <QList>
#include <QTimer>
#include <QVariantList>
#include <QtQmlIntegration>

#include <memory>
#include <optional>

class QSettings;

namespace hearth::models {

class PlacementPreview : public QAbstractListModel
{
    Q_OBJECT
    QML_ELEMENT

    // The model: a GGUF/PWRI file, or a built-in catalog entry (its first file).
    Q_PROPERTY(QString modelPath READ modelPath WRITE setModelPath NOTIFY modelChanged)
    Q_PROPERTY(QString catalogId READ catalogId WRITE setCatalogId NOTIFY modelChanged)
    Q_PROPERTY(QString modelName READ modelName NOTIFY modelChanged)
    Q_PROPERTY(bool modelReady READ modelReady NOTIFY modelChanged)
    Q_PROPERTY(QString errorText READ errorText NOTIFY modelChanged)
    /// A file given to loadModelPath() is being read on a worker thread.
    Q_PROPERTY(bool loading READ loading NOTIFY loadingChanged)

    // The GPU: detected through GpuInfo, or a size to plan for when there is none.
    Q_PROPERTY(bool hasGpu READ hasGpu NOTIFY gpuChanged)
    Q_PROPERTY(QString gpuName READ gpuName NOTIFY gpuChanged)
    /// The detected GPU's memory (0: none). Writable so tests and demos can stand in a GPU.
    Q_PROPERTY(double detectedGpuBytes READ detectedGpuBytes WRITE setDetectedGpuBytes NOTIFY gpuChanged)
    /// "Plan for a GPU of N GB" when none is present; 0: no preview.
    Q_PROPERTY(int previewGpuGiB READ previewGpuGiB WRITE setPreviewGpuGiB NOTIFY gpuChanged)
    /// The slider's range: the detected GPU's memory, else the preview size, else 0.
    Q_PROPERTY(double gpuBytes READ gpuBytes NOTIFY gpuChanged)
    Q_PROPERTY(QVariantList previewSizesGiB READ previewSizesGiB CONSTANT)

    // The budget.
    Q_PROPERTY(double budgetBytes READ budgetBytes WRITE setBudgetBytes NOTIFY budgetChanged)
    Q_PROPERTY(bool autoBudget READ autoBudget WRITE setAutoBudget NOTIFY budgetChanged)
    /// What is planned for: the slider's value, or the free memory less 256 MiB under Auto.
    Q_PROPERTY(double effectiveBudgetBytes READ effectiveBudgetBytes NOTIFY budgetChanged)
    Q_PROPERTY(QString budgetText READ budgetText NOTIFY budgetChanged)
    Q_PROPERTY(int contextLength READ contextLength WRITE setContextLength NOTIFY contextLengthChanged)
    /// "f16", "q8_0" or "f32": how the session will keep keys and values in RAM (Chat Settings).
    Q_PROPERTY(QString kvCacheType READ kvCacheType WRITE setKvCacheType NOTIFY kvCacheTypeChanged)
    Q_PROPERTY(int debounceMs READ debounceMs WRITE setDebounceMs NOTIFY debounceMsChanged)
    /// The INI file budgets are remembered in; empty: the application's settings.
    Q_PROPERTY(QString settingsFile READ settingsFile WRITE setSettingsFile NOTIFY settingsFileChanged)

    // The plan (planChanged after each re-plan).
    Q_PROPERTY(bool sparse READ sparse NOTIFY planChanged)
    Q_PROPERTY(double weightsBytes READ weightsBytes NOTIFY planChanged)
    Q_PROPERTY(double kvCacheBytes READ kvCacheBytes NOTIFY planChanged)
    Q_PROPERTY(double scratchBytes READ scratchBytes NOTIFY planChanged)
    Q_PROPERTY(double reserveBytes READ reserveBytes NOTIFY planChanged) ///< CUDA context + cuBLAS workspace
    Q_PROPERTY(double totalBytes READ totalBytes NOTIFY planChanged)
    Q_PROPERTY(double ramBytes READ ramBytes NOTIFY planChanged)
    Q_PROPERTY(double tokensPerSecond READ tokensPerSecond NOTIFY planChanged)
    Q_PROPERTY(int hotNeurons READ hotNeurons NOTIFY planChanged)
    Q_PROPERTY(int totalNeurons READ totalNeurons NOTIFY planChanged)
    Q_PROPERTY(int attentionLayersOnGpu READ attentionLayersOnGpu NOTIFY planChanged)
    Q_PROPERTY(bool fits READ fits NOTIFY planChanged)
    Q_PROPERTY(QString reason READ reason NOTIFY planChanged)
    Q_PROPERTY(QString breakdownText READ breakdownText NOTIFY planChanged)
    Q_PROPERTY(QString speedText READ speedText NOTIFY planChanged)
    Q_PROPERTY(QString summaryText READ summaryText NOTIFY planChanged)

public:
    /// Per-layer roles, from Qt::UserRole + 1.
    enum Role {
        LayerRole = Qt::UserRole + 1, ///< "layerNumber": index from 0 ("layer" is taken by Item)
        AttentionOnGpuRole, ///< "attentionOnGpu": attention weights and KV cache on the GPU
        HotNeuronsRole, ///< "hotNeurons": FFN neurons on the GPU
        FeedForwardRole, ///< "feedForward": all FFN neurons of the layer
        HotFractionRole, ///< "hotFraction": hotNeurons / feedForward, for the bar
        GpuShareRole, ///< "gpuShare": expected share of activations computed on the GPU
        ExpertsRole, ///< "experts": a mixture's routed experts in the layer (0: a plain FFN)
        GpuExpertsRole, ///< "gpuExperts": of those, on the GPU
    };
    Q_ENUM(Role)

    explicit PlacementPreview(QObject* parent = nullptr);
    ~PlacementPreview() override;

    [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] QVariant data(const QModelIndex& index, int role) const override;
    [[nodiscard]] QHash<int, QByteArray> roleNames() const override;

    /// From C++: a planned model with its settings key (usually the file path) and display name.
    void setModel(PlacementModel model, const QString& key, const QString& name);
    void setGpu(std::unique_ptr<GpuInfo> gpu);
    void setMachine(const MachineInfo& machine);
    /// Remember budgets in this file (INI) instead of the application's settings (tests).
    void setSettingsFile(const QString& path);
    [[nodiscard]] QString settingsFile() const { return m_settingsFile; }

    [[nodiscard]] QString modelPath() const { return m_modelPath; }
    void setModelPath(const QString& path);
    [[nodiscard]] QString catalogId() const { return m_catalogId; }
    void setCatalogId(const QString& id);
    [[nodiscard]] QString modelName() const { return m_modelName; }
    [[nodiscard]] bool loading() const { return m_loadingPath.has_value(); }
    /// Like setting modelPath, but the file's tensor table is read on a worker thread, so a
    /// model on a slow disk never stalls the window; the plan follows when it has been read.
    /// The last call wins; an empty path clears the model at once.
    Q_INVOKABLE void loadModelPath(const QString& path);
    [[nodiscard]] bool modelReady() const { return m_model.has_value(); }
    [[nodiscard]] QString errorText() const { return m_errorText; }
    /// The QSettings key part for the current model ("" when none).
    [[nodiscard]] QString modelKey() const { return m_modelKey; }

    [[nodiscard]] bool hasGpu() const;
    [[nodiscard]] QString gpuName() const;
    [[nodiscard]] double detectedGpuBytes() const;
    void setDetectedGpuBytes(double bytes);
    [[nodiscard]] int previewGpuGiB() const { return m_previewGpuGiB; }
    void setPreviewGpuGiB(int gib);
    [[nodiscard]] double gpuBytes() const;
    [[nodiscard]] static QVariantList previewSizesGiB();

    [[nodiscard]] double budgetBytes() const { return static_cast<double>(m_budget); }
    void setBudgetBytes(double bytes);
    [[nodiscard]] bool autoBudget() const { return m_auto; }
    void setAutoBudget(bool on);
    [[nodiscard]] double effectiveBudgetBytes() const { return static_cast<double>(effectiveBudget()); }
    [[nodiscard]] QString budgetText() const;
    [[nodiscard]] int contextLength() const { return m_contextLength; }
    void setContextLength(int tokens);
    [[nodiscard]] QString kvCacheType() const;
    void setKvCacheType(const QString& name);
    [[nodiscard]] int debounceMs() const { return m_debounce.interval(); }
    void setDebounceMs(int ms);

    [[nodiscard]] const std::optional<PlacementSummary>& summary() const { return m_summary; }
    [[nodiscard]] bool sparse() const { return m_summary && m_summary->sparse; }
    [[nodiscard]] double weightsBytes() const { return m_summary ? double(m_summary->gpu.weights) : 0; }
    [[nodiscard]] double kvCacheBytes() const { return m_summary ? double(m_summary->gpu.kvCache) : 0; }
    [[nodiscard]] double scratchBytes() const { return m_summary ? double(m_summary->gpu.scratch) : 0; }
    [[nodiscard]] double reserveBytes() const
    {
        return m_summary ? double(m_summary->gpu.reserve + m_summary->gpu.workspace) : 0;
    }
    [[nodiscard]] double totalBytes() const { return m_summary ? double(m_summary->gpu.total()) : 0; }
    [[nodiscard]] double ramBytes() const { return m_summary ? double(m_summary->hostBytes) : 0; }
    [[nodiscard]] double tokensPerSecond() const { return m_summary ? m_summary->tokensPerSecond : 0; }
    [[nodiscard]] int hotNeurons() const { return m_summary ? int(m_summary->hotNeuronCount()) : 0; }
    [[nodiscard]] int totalNeurons() const { return m_summary ? int(m_summary->neuronCount()) : 0; }
    [[nodiscard]] int attentionLayersOnGpu() const
    {
        return m_summary ? m_summary->attentionLayersOnGpu() : 0;
    }
    [[nodiscard]] bool fits() const { return m_summary && m_summary->fits; }
    [[nodiscard]] QString reason() const;
    [[nodiscard]] QString breakdownText() const;
    [[nodiscard]] QString speedText() const;
    [[nodiscard]] QString summaryText() const;

    /// Plans now instead of after the debounce delay.
    Q_INVOKABLE void replanNow();
    /// Remembers the budget for this model and emits applied().
    Q_INVOKABLE void apply();

    /// The remembered choice for @p modelKey: budget bytes and Auto; nullopt when none.
    struct Remembered
    {
        quint64 budgetBytes = 0;
        bool autoBudget = true;
    };
    [[nodiscard]] static std::optional<Remembered> remembered(QSettings& settings, const QString& modelKey);
    static void remember(QSettings& settings, const QString& modelKey, const Remembered& choice);

Q_SIGNALS:
    void modelChanged();
    void gpuChanged();
    void budgetChanged();
    void contextLengthChanged();
    void kvCacheTypeChanged();
    void debounceMsChanged();
    void settingsFileChanged();
    void loadingChanged();
    void planChanged();
    /// The user applied @p budgetBytes (the effective budget; @p autoBudget tells whether it
    /// follows the free memory) for the model with settings key @p modelKey.
    void applied(const QString& modelKey, double budgetBytes, bool autoBudget);

private:
    [[nodiscard]] quint64 effectiveBudget() const;
    [[nodiscard]] quint64 gpuTotal() const;
    [[nodiscard]] std::unique_ptr<QSettings> openSettings() const;
    void adoptModel(
        std::optional<PlacementModel> model, const QString& key, const QString& name, const QString& error);
    void scheduleReplan();
    void replan();

    std::optional<PlacementModel> m_model;
    std::optional<PlacementSummary> m_summary;
    QString m_modelPath;
    QString m_catalogId;
    QString m_modelKey;
    QString m_modelName;
    QString m_errorText;
    std::unique_ptr<GpuInfo> m_gpu;
    MachineInfo m_machine;
    int m_previewGpuGiB = 0;
    quint64 m_budget = 0;
    bool m_auto = true;
    int m_contextLength = 4096;
    KvCacheType m_kvCacheType = KvCacheType::F16;
    QString m_settingsFile;
    std::optional<QString> m_loadingPath; ///< the file loadModelPath() is reading
    QTimer m_debounce;
};

} // namespace hearth::models
