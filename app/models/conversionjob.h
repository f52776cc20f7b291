// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// ConversionJob: turns a Hugging Face model folder (with optional predictor and activation
/// folders) into a GGUF file, re-encodes a GGUF file with a llama-quantize preset, or makes a
/// dense ReLU GGUF model sparse (output type "Sparse": predictors fitted on a calibration text,
/// kept only when the held-out perplexity stays within 5% of the dense model's), on a worker thread.
///
/// Steps, each visible as a phase with a fraction: read the model's headers and estimate the
/// output size; check the destination's free space against the estimate (before a byte is
/// written); write a hidden temporary file beside the destination; load that file with the public
/// engine API and let it answer a short prompt (a few greedy tokens, finite logits; for "Sparse"
/// sparsifyModel() has run the result over held-out text already); only then
/// rename it to the destination. Any failure or cancel removes the temporary files, leaves the
/// destination as it was, and ends with a translated message. An existing destination is only
/// replaced when allowReplace is set.
///
/// Everything the engine does runs on the job's own thread; the GUI thread only sees queued
/// property updates. Destroying a running job cancels it and waits for the thread.

#include <hearth/convert.h>

#include <QObject>
#include <QString>
#include <QStringList>
#include <QUrl>
#include <QtQmlIntegration>

#include <atomic>
#include <functional>
#include <memory>

class QThread;

namespace hearth::models {

class ConversionJob : public QObject
{
    Q_OBJECT
    QML_ELEMENT

    /// A Hugging Face model folder to convert, or a .gguf file to re-encode.
    Q_PROPERTY(QString source READ source WRITE setSource NOTIFY settingsChanged)
    /// Optional: PowerInfer predictors (model_<n>.pt); the result is a sparse file.
    Q_PROPERTY(QString predictorFolder READ predictorFolder WRITE setPredictorFolder NOTIFY settingsChanged)
    /// Optional: activation statistics (activation_<n>.pt), written beside the result.
    Q_PROPERTY(QString activationFolder READ activationFolder WRITE setActivationFolder NOTIFY settingsChanged)
    /// The .gguf file to create.
    Q_PROPERTY(QString destination READ destination WRITE setDestination NOTIFY settingsChanged)
    /// For a model folder "F16", "Q8_0" or "Q4_0"; for a GGUF file one of llama-quantize's
    /// presets ("Q4_K_M", ...), the same mix of types per tensor as llama-quantize's, or
    /// "Sparse" (same weights, fitted predictors).
    Q_PROPERTY(QString outputType READ outputType WRITE setOutputType NOTIFY settingsChanged)
    /// The types outputType takes for the current source, the usual choice first.
    Q_PROPERTY(QStringList outputTypes READ outputTypes NOTIFY settingsChanged)
    /// "Sparse" only, optional: a text file to calibrate on instead of the built-in text.
    Q_PROPERTY(QString calibrationFile READ calibrationFile WRITE setCalibrationFile NOTIFY settingsChanged)
    /// Replace an existing destination (and its statistics file). Off by default.
    Q_PROPERTY(bool allowReplace READ allowReplace WRITE setAllowReplace NOTIFY settingsChanged)
    /// True when the destination exists (the UI asks before setting allowReplace).
    Q_PROPERTY(bool destinationExists READ destinationExists NOTIFY settingsChanged)

    Q_PROPERTY(State state READ state NOTIFY stateChanged)
    Q_PROPERTY(bool running READ running NOTIFY stateChanged)
    /// The result (the written path) or why there is none; empty before the first run.
    Q_PROPERTY(QString message READ message NOTIFY stateChanged)
    /// The file written by the last successful run.
    Q_PROPERTY(QString outputPath READ outputPath NOTIFY stateChanged)
    Q_PROPERTY(double progress READ progress NOTIFY progressChanged)
    Q_PROPERTY(QString phase READ phase NOTIFY progressChanged)
    /// Bytes the output needs (model and statistics), known once the model has been read; 0 before.
    Q_PROPERTY(double estimatedBytes READ estimatedBytes NOTIFY progressChanged)

public:
    enum State { Idle, Running, Succeeded, Failed, Cancelled };
    Q_ENUM(State)

    /// Bytes available to a new file in @p folder; < 0 when unknown (the check is skipped).
    using FreeSpaceProbe = std::function<qint64(const QString& folder)>;
    /// Sees every progress fraction on the worker thread (tests cancel mid-way with it).
    using WorkerObserver = std::function<void(double fraction)>;

    explicit ConversionJob(QObject* parent = nullptr);
    ~ConversionJob() override;

    [[nodiscard]] QString source() const { return m_source; }
    void setSource(const QString& source);
    [[nodiscard]] QString predictorFolder() const { return m_predictorFolder; }
    void setPredictorFolder(const QString& folder);
    [[nodiscard]] QString activationFolder() const { return m_activationFolder; }
    void setActivationFolder(const QString& folder);
    [[nodiscard]] QString destination() const { return m_destination; }
    void setDestination(const QString& destination);
    [[nodiscard]] QString outputType() const { return m_outputType; }
    void setOutputType(const QString& type);
    [[nodiscard]] QStringList outputTypes() const;
    [[nodiscard]] QString calibrationFile() const { return m_calibrationFile; }
    void setCalibrationFile(const QString& path);
    [[nodiscard]] bool allowReplace() const { return m_allowReplace; }
    void setAllowReplace(bool allow);
    [[nodiscard]] bool destinationExists() const;

    [[nodiscard]] State state() const { return m_state; }
    [[nodiscard]] bool running() const { return m_state == Running; }
    [[nodiscard]] QString message() const { return m_message; }
    [[nodiscard]] QString outputPath() const { return m_outputPath; }
    [[nodiscard]] double progress() const { return m_progress; }
    [[nodiscard]] QString phase() const { return m_phase; }
    [[nodiscard]] double estimatedBytes() const { return m_estimatedBytes; }

    /// Replaces the QStorageInfo check (tests stand in a small disk).
    void setFreeSpaceProbe(FreeSpaceProbe probe);
    void setWorkerObserver(WorkerObserver observer);

    /// Where a conversion of the current source and type goes by default: beside the source,
    /// named after it and the type ("<folder>-q4_0.gguf").
    Q_INVOKABLE QString suggestedDestination() const;
    /// A file dialog's URL as a path, and back (QML has no portable way to do either).
    Q_INVOKABLE QString pathFromUrl(const QUrl& url) const;
    Q_INVOKABLE QUrl urlFromPath(const QString& path) const;
    /// The hidden temporary file a run writes before renaming it to @p destination.
    [[nodiscard]] static QString temporaryPathFor(const QString& destination);

    /// Starts a run; false (with message set and finished() emitted) when the settings are
    /// unusable, or when a run is already going.
    Q_INVOKABLE bool start();
    /// Asks the running job to stop; it ends in state Cancelled with nothing written. Safe to
    /// call from any thread.
    Q_INVOKABLE void cancel();

Q_SIGNALS:
    void settingsChanged();
    void stateChanged();
    void progressChanged();
    /// The run ended: Succeeded, Failed or Cancelled.
    void finished(bool succeeded);
    /// A new model file is ready at @p path (the Models page adds it to the installed list).
    void modelReady(const QString& path);

private:
    struct Outcome;
    struct Spec;

    void fail(const QString& message);
    /// After a setter: forgets a failed run's outcome, then settingsChanged().
    void inputsChanged();
    void setProgressOnGui(double fraction, const QString& phase, double estimatedBytes);
    void finish(const Outcome& outcome);
    [[nodiscard]] Outcome run(const Spec& spec);

    QString m_source;
    QString m_predictorFolder;
    QString m_activationFolder;
    QString m_destination;
    QString m_outputType = QStringLiteral("F16");
    QString m_calibrationFile;
    bool m_allowReplace = false;

    State m_state = Idle;
    QString m_message;
    QString m_outputPath;
    double m_progress = 0;
    QString m_phase;
    double m_estimatedBytes = 0;

    FreeSpaceProbe m_freeSpace;
    WorkerObserver m_observer;
    std::atomic<bool> m_cancel{false};
    QThread* m_thread = nullptr;
};

} // namespace hearth::models
