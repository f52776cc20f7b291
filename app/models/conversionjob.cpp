// SPDX-License-Identifier: MIT
#include "conversionjob.h"
#include "engine_error.h"
#include "engine_path.h"

#include <hearth/model.h>
#include <hearth/session.h>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLocale>
#include <QStorageInfo>
#include <QThread>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <system_error>

namespace hearth::models {

namespace {

// Share of the progress bar per step: reading the headers, writing, checking the result.
constexpr double kReadEnd = 0.05;
constexpr double kWriteEnd = 0.85;
// Greedy tokens the result must produce after its prompt.
constexpr int kCheckTokens = 4;

using app::enginePath;

std::filesystem::path fsPath(const QString& path)
{
    return std::filesystem::path(enginePath(path));
}

QString sizeText(quint64 bytes)
{
    return QLocale().formattedDataSize(qint64(bytes), 1);
}

// The output type that fits predictors instead of re-encoding (not translated: a type name).
QString sparseType()
{
    return QStringLiteral("Sparse");
}

// Reads the whole of a calibration text; false with @p error set when it cannot.
bool readCalibrationText(const QString& path, std::string* text, QString* error)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = file.errorString();
        return false;
    }
    *text = file.readAll().toStdString();
    return true;
}

bool hasGgufSuffix(const QString& path)
{
    return QFileInfo(path).suffix().compare(QStringLiteral("gguf"), Qt::CaseInsensitive) == 0;
}

bool isGgufFile(const QString& path)
{
    return QFileInfo(path).isFile() && hasGgufSuffix(path);
}

void removeQuietly(const QString& path)
{
    if (!path.isEmpty())
        QFile::remove(path);
}

// Loads @p path through the public API and lets it answer: a prompt, then a few greedy tokens,
// every logit finite. CPU only, so a check never competes with a chat for GPU memory.
Status answersShortPrompt(const std::string& path, const ProgressCallback& progress, const std::atomic<bool>& cancel)
{
    LoadParams load;
    load.progress = progress;
    auto model = Model::load(path, load);
    if (!model)
        return model.status();
    SessionParams params;
    params.contextLength = 64;
    params.batchSize = 16;
    params.threads = 2;
    params.vramBudgetGiB = 0;
    auto session = Session::create(*model, params);
    if (!session)
        return session.status();
    const Tokenizer& tokenizer = (*model)->tokenizer();
    std::vector<Token> prompt = tokenizer.encode("Hello", true, false);
    if (prompt.empty())
        prompt.push_back(tokenizer.bos() != InvalidToken ? tokenizer.bos() : 0);
    if (prompt.size() > 16)
        prompt.resize(16);
    HEARTH_TRY((*session)->prefill(prompt));
    for (int i = 0; i < kCheckTokens; ++i) {
        if (cancel.load(std::memory_order_relaxed))
            return {ErrorCode::Cancelled, "cancelled"};
        const auto logits = (*session)->logits();
        if (logits.empty())
            return {ErrorCode::InvalidFile, "no logits"};
        Token best = 0;
        for (std::size_t t = 0; t < logits.size(); ++t) {
            if (!std::isfinite(logits[t]))
                return {ErrorCode::InvalidFile, "the model computes non-finite logits"};
            if (logits[t] > logits[std::size_t(best)])
                best = Token(t);
        }
        HEARTH_TRY((*session)->decode(best));
    }
    return {};
}

// Moves @p from to @p to. Without @p replace an existing @p to is an error (QFile::rename never
// replaces); with it, the rename replaces it in one step, so @p to is never missing.
bool moveInto(const QString& from, const QString& to, bool replace, QString* error)
{
    if (!replace) {
        if (QFileInfo::exists(to)) {
            *error = ConversionJob::tr("%1 appeared while converting.").arg(QDir::toNativeSeparators(to));
            return false;
        }
        QFile file(from);
        if (!file.rename(to)) {
            *error = file.errorString();
            return false;
        }
        return true;
    }
    std::error_code ec;
    std::filesystem::rename(fsPath(from), fsPath(to), ec);
    if (ec) {
        *error = QString::fromStdString(ec.message());
        return false;
    }
    return true;
}

} // namespace

struct ConversionJob::Spec {
    QString source;
    QString predictorFolder;
    QString activationFolder;
    QString destination;
    WeightType type = WeightType::F16;
    QuantizationPreset preset = QuantizationPreset::Q4_K_M;
    bool replace = false;
    bool quantize = false; // the source is a GGUF file
    bool sparsify = false; // ... to make sparse
    QString calibrationFile;
    FreeSpaceProbe freeSpace;
    WorkerObserver observer;
};

struct ConversionJob::Outcome {
    State state = Failed;
    QString message;
    QString output;
};

ConversionJob::ConversionJob(QObject* parent)
    : QObject(parent)
    , m_freeSpace([](const QString& folder) -> qint64 {
        const QStorageInfo storage(folder);
        return storage.isValid() && storage.isReady() ? storage.bytesAvailable() : -1;
    })
{
}

void ConversionJob::inputsChanged()
{
    // Why the last run failed says nothing about inputs changed since: the panel goes back to
    // its resting state instead of showing an old error beside new folders.
    if (m_state == Failed || m_state == Cancelled) {
        m_state = Idle;
        m_message.clear();
        Q_EMIT stateChanged();
    }
    Q_EMIT settingsChanged();
}

ConversionJob::~ConversionJob()
{
    if (m_thread) {
        m_cancel.store(true);
        m_thread->wait();
        delete m_thread;
    }
}

void ConversionJob::setSource(const QString& source)
{
    if (m_source == source)
        return;
    m_source = source;
    // A folder converts to plain types, a GGUF file re-encodes with presets.
    if (!outputTypes().contains(m_outputType))
        m_outputType = outputTypes().constFirst();
    inputsChanged();
}

void ConversionJob::setPredictorFolder(const QString& folder)
{
    if (m_predictorFolder == folder)
        return;
    m_predictorFolder = folder;
    inputsChanged();
}

void ConversionJob::setActivationFolder(const QString& folder)
{
    if (m_activationFolder == folder)
        return;
    m_activationFolder = folder;
    inputsChanged();
}

void ConversionJob::setDestination(const QString& destination)
{
    if (m_destination == destination)
        return;
    m_destination = destination;
    inputsChanged();
}

void ConversionJob::setOutputType(const QString& type)
{
    const QStringList types = outputTypes();
    const auto known = std::find_if(types.begin(), types.end(),
                                    [&](const QString& t) { return t.compare(type, Qt::CaseInsensitive) == 0; });
    if (known == types.end() || m_outputType == *known)
        return;
    m_outputType = *known;
    inputsChanged();
}

QStringList ConversionJob::outputTypes() const
{
    // By name: the types follow what the user typed, before the file is there.
    if (hasGgufSuffix(m_source)) {
        return {QStringLiteral("Q4_K_M"), QStringLiteral("Q5_K_M"), QStringLiteral("Q6_K"), QStringLiteral("Q8_0"),
                QStringLiteral("Q4_0"), QStringLiteral("IQ4_XS"), sparseType()};
    }
    return {QStringLiteral("F16"), QStringLiteral("Q8_0"), QStringLiteral("Q4_0")};
}

void ConversionJob::setCalibrationFile(const QString& path)
{
    if (m_calibrationFile == path)
        return;
    m_calibrationFile = path;
    inputsChanged();
}

void ConversionJob::setAllowReplace(bool allow)
{
    if (m_allowReplace == allow)
        return;
    m_allowReplace = allow;
    inputsChanged();
}

bool ConversionJob::destinationExists() const
{
    return !m_destination.isEmpty() && QFileInfo::exists(m_destination);
}

void ConversionJob::setFreeSpaceProbe(FreeSpaceProbe probe)
{
    m_freeSpace = std::move(probe);
}

void ConversionJob::setWorkerObserver(WorkerObserver observer)
{
    m_observer = std::move(observer);
}

QString ConversionJob::suggestedDestination() const
{
    if (m_source.isEmpty())
        return {};
    const QFileInfo info(m_source);
    const QString type = m_outputType.toLower();
    if (hasGgufSuffix(m_source))
        return info.dir().filePath(info.completeBaseName() + QLatin1Char('-') + type + QStringLiteral(".gguf"));
    const QDir folder(m_source);
    QDir parent = folder;
    if (!parent.cdUp())
        return {};
    return parent.filePath(folder.dirName() + QLatin1Char('-') + type + QStringLiteral(".gguf"));
}

QString ConversionJob::pathFromUrl(const QUrl& url) const
{
    return url.isLocalFile() ? QDir::toNativeSeparators(url.toLocalFile()) : url.toString();
}

QUrl ConversionJob::urlFromPath(const QString& path) const
{
    return path.isEmpty() ? QUrl() : QUrl::fromLocalFile(path);
}

QString ConversionJob::temporaryPathFor(const QString& destination)
{
    const QFileInfo info(destination);
    return info.dir().filePath(QLatin1Char('.') + info.fileName() + QStringLiteral(".hearth-partial"));
}

void ConversionJob::fail(const QString& message)
{
    Outcome outcome;
    outcome.state = Failed;
    outcome.message = message;
    finish(outcome);
}

bool ConversionJob::start()
{
    if (running())
        return false;
    if (m_thread) {
        m_thread->wait();
        delete m_thread;
        m_thread = nullptr;
    }
    m_cancel.store(false);
    m_outputPath.clear();

    Spec spec;
    spec.source = QDir::cleanPath(m_source);
    spec.predictorFolder = m_predictorFolder.isEmpty() ? QString() : QDir::cleanPath(m_predictorFolder);
    spec.activationFolder = m_activationFolder.isEmpty() ? QString() : QDir::cleanPath(m_activationFolder);
    spec.destination = m_destination.isEmpty() ? QString() : QDir::cleanPath(m_destination);
    spec.type = weightTypeFromName(m_outputType.toStdString()).value_or(WeightType::F16);
    spec.preset = presetFromName(m_outputType.toStdString()).value_or(QuantizationPreset::Q4_K_M);
    spec.replace = m_allowReplace;
    spec.calibrationFile = m_calibrationFile.isEmpty() ? QString() : QDir::cleanPath(m_calibrationFile);
    spec.freeSpace = m_freeSpace;
    spec.observer = m_observer;

    // Checks that need no engine: answered at once, on the GUI thread.
    if (m_source.isEmpty()) {
        fail(tr("Choose a model folder to convert."));
        return false;
    }
    spec.quantize = isGgufFile(spec.source);
    spec.sparsify = spec.quantize && m_outputType == sparseType();
    if (spec.sparsify && !spec.calibrationFile.isEmpty() && !QFileInfo(spec.calibrationFile).isFile()) {
        fail(tr("The calibration text %1 does not exist.").arg(QDir::toNativeSeparators(spec.calibrationFile)));
        return false;
    }
    if (!spec.quantize) {
        if (!QFileInfo(spec.source).isDir()) {
            fail(tr("%1 is neither a model folder nor a GGUF file.").arg(QDir::toNativeSeparators(spec.source)));
            return false;
        }
        if (!QFileInfo::exists(QDir(spec.source).filePath(QStringLiteral("config.json")))) {
            fail(tr("%1 has no config.json. Choose the folder of a Hugging Face model.")
                     .arg(QDir::toNativeSeparators(spec.source)));
            return false;
        }
    }
    for (const QString& folder : {spec.predictorFolder, spec.activationFolder}) {
        if (!folder.isEmpty() && !QFileInfo(folder).isDir()) {
            fail(tr("The folder %1 does not exist.").arg(QDir::toNativeSeparators(folder)));
            return false;
        }
    }
    if (spec.quantize && (!spec.predictorFolder.isEmpty() || !spec.activationFolder.isEmpty())) {
        fail(tr("Predictors and activation statistics can only be added when converting a model folder."));
        return false;
    }
    if (spec.destination.isEmpty()) {
        fail(tr("Choose where to save the converted model."));
        return false;
    }
    if (spec.quantize && QFileInfo(spec.destination) == QFileInfo(spec.source)) {
        fail(tr("The converted model must not replace the model it is made from."));
        return false;
    }
    if (!QFileInfo(spec.destination).dir().exists()) {
        fail(tr("The folder %1 does not exist.").arg(QDir::toNativeSeparators(QFileInfo(spec.destination).path())));
        return false;
    }
    if (!spec.replace) {
        const QString stats = QString::fromStdString(statisticsPathFor(spec.destination.toStdString()));
        const bool withStats = !spec.activationFolder.isEmpty() || spec.sparsify;
        for (const QString& path : {spec.destination, withStats ? stats : QString()}) {
            if (!path.isEmpty() && QFileInfo::exists(path)) {
                fail(tr("%1 already exists. Choose another name, or allow replacing it.")
                         .arg(QDir::toNativeSeparators(path)));
                return false;
            }
        }
    }

    m_state = Running;
    m_message.clear();
    m_progress = 0;
    m_phase = tr("Reading the model");
    m_estimatedBytes = 0;
    Q_EMIT stateChanged();
    Q_EMIT progressChanged();

    m_thread = QThread::create([this, spec]() {
        const Outcome outcome = run(spec);
        QMetaObject::invokeMethod(this, [this, outcome]() { finish(outcome); }, Qt::QueuedConnection);
    });
    m_thread->setObjectName(QStringLiteral("ConversionJob"));
    m_thread->start(QThread::LowPriority);
    return true;
}

void ConversionJob::cancel()
{
    m_cancel.store(true);
}

void ConversionJob::setProgressOnGui(double fraction, const QString& phase, double estimatedBytes)
{
    if (m_state != Running)
        return;
    m_progress = fraction;
    m_phase = phase;
    m_estimatedBytes = estimatedBytes;
    Q_EMIT progressChanged();
}

void ConversionJob::finish(const Outcome& outcome)
{
    if (m_thread) {
        m_thread->wait();
        delete m_thread;
        m_thread = nullptr;
    }
    m_state = outcome.state;
    m_message = outcome.message;
    if (outcome.state == Succeeded) {
        m_outputPath = outcome.output;
        m_progress = 1.0;
        m_phase = tr("Done");
    } else {
        m_phase.clear();
    }
    Q_EMIT progressChanged();
    Q_EMIT stateChanged();
    Q_EMIT settingsChanged(); // destinationExists may have changed
    Q_EMIT finished(outcome.state == Succeeded);
    if (outcome.state == Succeeded)
        Q_EMIT modelReady(outcome.output);
}

// The worker thread's part. Everything it touches is @p spec, m_cancel and queued calls back.
ConversionJob::Outcome ConversionJob::run(const Spec& spec)
{
    const std::string_view type = spec.quantize ? presetName(spec.preset) : weightTypeName(spec.type);
    const QString typeName = QString::fromLatin1(type.data(), qsizetype(type.size()));
    double estimated = 0;
    int lastPermille = -1;
    QString currentPhase = tr("Reading the model");
    const auto report = [&](double fraction, const QString& phase) {
        if (spec.observer)
            spec.observer(fraction);
        const int permille = int(fraction * 1000.0);
        if (permille == lastPermille && phase == currentPhase)
            return; // whole tenths of a percent: the GUI needs no more
        lastPermille = permille;
        currentPhase = phase;
        QMetaObject::invokeMethod(
            this, [this, fraction, phase, estimated]() { setProgressOnGui(fraction, phase, estimated); },
            Qt::QueuedConnection);
    };
    const auto cancelled = [this]() { return m_cancel.load(std::memory_order_relaxed); };
    const auto cancelledOutcome = []() {
        return Outcome{Cancelled, tr("Cancelled. No file was written."), {}};
    };
    const auto failed = [](const QString& message) { return Outcome{Failed, message, {}}; };
    const auto detail = [](const Status& status) { return app::engineErrorText(status); };

    // 1. Read the headers and size the output.
    report(0.0, currentPhase);
    ConvertParams convert;
    QuantizeParams quantize;
    Result<ConversionEstimate> estimate = Status(ErrorCode::Internal, "not estimated");
    if (spec.sparsify) {
        // The weights stay as they are; the predictors and statistics add about a tenth.
        const Status sparsifiable = checkSparsifiable(enginePath(spec.source));
        if (!sparsifiable.ok())
            return failed(tr("This model cannot be made sparse: %1").arg(detail(sparsifiable)));
        ConversionEstimate e;
        e.outputBytes = quint64(QFileInfo(spec.source).size()) + quint64(QFileInfo(spec.source).size()) / 10;
        estimate = e;
    } else if (spec.quantize) {
        quantize.input = enginePath(spec.source);
        quantize.preset = spec.preset;
        estimate = estimateQuantization(quantize);
    } else {
        convert.modelFolder = enginePath(spec.source);
        convert.predictorFolder = spec.predictorFolder.isEmpty() ? std::string() : enginePath(spec.predictorFolder);
        convert.activationFolder = spec.activationFolder.isEmpty() ? std::string() : enginePath(spec.activationFolder);
        convert.type = spec.type;
        estimate = estimateConversion(convert);
    }
    if (cancelled())
        return cancelledOutcome();
    if (!estimate) {
        // The safe unpickler answers Unsupported for pickles that would run code: for people that
        // is a broken (or malicious) file, not a model Hearth lacks support for.
        const bool unsafe = estimate.message().find("refusing to load") != std::string::npos;
        switch (unsafe ? ErrorCode::InvalidFile : estimate.code()) {
        case ErrorCode::Unsupported:
            return failed(tr("This model cannot be converted: %1").arg(detail(estimate.status())));
        case ErrorCode::InvalidFile:
            return failed(tr("A file of the model is damaged, incomplete or unsafe: %1").arg(detail(estimate.status())));
        default:
            return failed(tr("The model could not be read: %1").arg(detail(estimate.status())));
        }
    }
    estimated = double(estimate->totalBytes());

    // 2. Room on the disk for the output (the temporary file becomes the output by a rename).
    const QString folder = QFileInfo(spec.destination).absolutePath();
    report(kReadEnd, tr("Checking free disk space"));
    if (spec.freeSpace) {
        const qint64 available = spec.freeSpace(folder);
        if (available >= 0 && quint64(available) < estimate->totalBytes()) {
            return failed(tr("Not enough disk space in %1: the new model needs %2, but only %3 are free.")
                              .arg(QDir::toNativeSeparators(folder), sizeText(estimate->totalBytes()),
                                   sizeText(quint64(available))));
        }
    }

    // 3. Write the temporary file; the engine itself writes "<temporary>.part" first.
    const QString temporary = temporaryPathFor(spec.destination);
    const QString temporaryStats = QString::fromStdString(statisticsPathFor(enginePath(temporary)));
    const auto cleanUp = [&]() {
        for (const QString& path : {temporary, temporaryStats}) {
            removeQuietly(path);
            removeQuietly(path + QStringLiteral(".part"));
        }
    };
    const QString writing = spec.sparsify   ? tr("Making the model sparse and checking it")
                            : spec.quantize ? tr("Quantizing to %1").arg(typeName)
                                            : tr("Converting to %1").arg(typeName);
    const ProgressCallback writeProgress = [&](float f) {
        // Converting and quantizing report 0..0.9 while writing and 1 when done; making a model
        // sparse reports its whole run, its own checks included.
        const double share = std::clamp(spec.sparsify ? double(f) : double(f) / 0.9, 0.0, 1.0);
        report(kReadEnd + (kWriteEnd - kReadEnd) * share, writing);
        return !cancelled();
    };
    Status written;
    QString statsWritten;
    QString sparseSummary; // what the fitted predictors do, for the result message
    if (spec.sparsify) {
        SparsifyParams sparsify;
        sparsify.input = enginePath(spec.source);
        sparsify.output = enginePath(temporary);
        sparsify.progress = writeProgress;
        sparsify.overwrite = true; // a leftover of a crashed run
        QString error;
        if (!spec.calibrationFile.isEmpty() && !readCalibrationText(spec.calibrationFile, &sparsify.calibrationText, &error))
            return failed(tr("The calibration text %1 cannot be read: %2").arg(QDir::toNativeSeparators(spec.calibrationFile), error));
        auto result = sparsifyModel(sparsify);
        written = result.status();
        if (result.ok()) {
            if (!result->statisticsOutput.empty())
                statsWritten = temporaryStats;
            double recall = 0;
            double predicted = 0;
            double kept = 0;
            for (const SparsifyLayerReport& layer : result->layers) {
                recall += layer.recall / double(result->layers.size());
                predicted += layer.predictedShare / double(result->layers.size());
                kept += layer.firedShare / double(result->layers.size());
            }
            const QLocale locale;
            const QString quality = tr("perplexity %1 instead of %2; expected decode speed-up %3×.")
                                        .arg(locale.toString(result->sparsePerplexity, 'f', 2),
                                             locale.toString(result->densePerplexity, 'f', 2),
                                             locale.toString(result->expectedSpeedup, 'f', 2));
            if (result->method == SparsifyMethod::Magnitude) {
                sparseSummary = tr("On text it was not calibrated on, a token skips %1% of the neurons' outputs and "
                                   "reads %2% of the up projection; %3")
                                    .arg(locale.toString(100.0 * (1.0 - kept), 'f', 0),
                                         locale.toString(100.0 * predicted, 'f', 0), quality);
            } else {
                sparseSummary = tr("On text it was not fitted to, the predictors find %1% of the neurons that fire and "
                                   "select %2% of all; %3")
                                    .arg(locale.toString(100.0 * recall, 'f', 1), locale.toString(100.0 * predicted, 'f', 0),
                                         quality);
            }
        }
    } else if (spec.quantize) {
        quantize.output = enginePath(temporary);
        quantize.progress = writeProgress;
        quantize.verify = false; // checked below, through the public API
        quantize.overwrite = true; // a leftover of a crashed run
        auto result = quantizeModel(quantize);
        written = result.status();
    } else {
        convert.output = enginePath(temporary);
        convert.progress = writeProgress;
        convert.verify = false;
        convert.overwrite = true;
        auto result = convertModel(convert);
        written = result.status();
        if (result.ok() && !result->statisticsOutput.empty())
            statsWritten = temporaryStats;
    }
    if (!written.ok()) {
        cleanUp();
        if (written.code() == ErrorCode::Cancelled || cancelled())
            return cancelledOutcome();
        if (written.code() == ErrorCode::IoError)
            return failed(tr("Writing the model failed: %1").arg(detail(written)));
        if (written.code() == ErrorCode::QualityTooLow)
            return failed(tr("The sparse model answers worse than the dense one allows, so it was not kept: %1")
                              .arg(detail(written)));
        if (spec.sparsify)
            return failed(tr("Making the model sparse failed: %1").arg(detail(written)));
        return failed(tr("The conversion failed: %1").arg(detail(written)));
    }

    // 4. The result must load and answer before it takes the destination's name.
    const QString checking = tr("Checking that the new model loads and answers");
    report(kWriteEnd, checking);
    const ProgressCallback loadProgress = [&](float f) {
        report(kWriteEnd + (0.99 - kWriteEnd) * std::clamp(double(f), 0.0, 1.0), checking);
        return !cancelled();
    };
    // sparsifyModel() has loaded the result and scored the held-out text with it already.
    const Status check = spec.sparsify ? Status() : answersShortPrompt(enginePath(temporary), loadProgress, m_cancel);
    if (!check.ok() || cancelled()) {
        cleanUp();
        if (check.code() == ErrorCode::Cancelled || cancelled())
            return cancelledOutcome();
        return failed(tr("The new model failed its check, so it was not kept: %1").arg(detail(check)));
    }
    if (cancelled()) {
        cleanUp();
        return cancelledOutcome();
    }

    // 5. Rename into place: the statistics first, so the model never appears without them.
    QString error;
    const QString stats = QString::fromStdString(statisticsPathFor(spec.destination.toStdString()));
    if (!statsWritten.isEmpty() && !moveInto(statsWritten, stats, spec.replace, &error)) {
        cleanUp();
        return failed(tr("The new model could not be saved as %1: %2").arg(QDir::toNativeSeparators(stats), error));
    }
    if (!moveInto(temporary, spec.destination, spec.replace, &error)) {
        cleanUp();
        if (!statsWritten.isEmpty() && !spec.replace)
            removeQuietly(stats);
        return failed(
            tr("The new model could not be saved as %1: %2").arg(QDir::toNativeSeparators(spec.destination), error));
    }
    report(1.0, tr("Done"));
    const QString saved = tr("Saved %1 (%2).").arg(QDir::toNativeSeparators(spec.destination),
                                                   sizeText(quint64(QFileInfo(spec.destination).size())));
    return Outcome{Succeeded, sparseSummary.isEmpty() ? saved : saved + QLatin1Char(' ') + sparseSummary,
                   spec.destination};
}

} // namespace hearth::models
