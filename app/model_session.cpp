// SPDX-License-Identifier: MIT
#include "model_session.h"

#include "app_settings.h"
#include "languagechangewatcher.h"
#include "logging.h"

#include <QJSEngine>
#include <QLocale>
#include <QTimer>

#include <algorithm>
#include <cmath>

namespace hearth::app {

namespace {
QPointer<ModelSession> s_instance;
}

ModelSession::ModelSession(QObject* parent)
    : QObject(parent)
{
    connect(m_worker, &EngineWorker::loadProgress, this, [this](double fraction) {
        m_loadProgress = fraction;
        Q_EMIT loadProgressChanged();
    });
    connect(m_worker, &EngineWorker::modelLoaded, this, &ModelSession::onModelLoaded);
    connect(m_worker, &EngineWorker::modelLoadFailed, this, &ModelSession::onModelLoadFailed);
    connect(m_worker, &EngineWorker::chatTemplateReplaced, this, [this](const QString& reason, const QString& builtinName) {
        qCWarning(lcApp) << "chat template replaced:" << reason;
        m_chatTemplateNotice = tr("This model's own chat template cannot be used (%1), so Hearth formats the chat in "
                                  "its built-in “%2” style; answers may be less accurate.")
                                   .arg(reason, builtinName);
        Q_EMIT modelChanged();
    });
    connect(m_worker, &EngineWorker::sessionReplaced, this, &ModelSession::onSessionReplaced);
    connect(m_worker, &EngineWorker::deviceFailed, this, [this](const Placement& placement) {
        // The status bar follows (Placement::summary), and the chat says it once.
        m_placement = placement;
        Q_EMIT modelChanged();
        Q_EMIT placementChanged();
        setErrorText(tr("The GPU stopped working (%1). The model goes on with the CPU, more slowly; "
                        "load it again to use the GPU.")
                         .arg(QString::fromStdString(placement.facts.deviceFailure)));
    });
    connect(m_worker, &EngineWorker::contextMeasured, this, &ModelSession::contextMeasured);
    connect(m_worker, &EngineWorker::turnsLeftOut, this, &ModelSession::turnsLeftOut);
    connect(m_worker, &EngineWorker::speculationApplied, this, [this](const QString& errorText) {
        m_speculationError = errorText;
        Q_EMIT speculationChanged();
    });

    // A local and a remote model answer through the same signals; the state follows the answer.
    const auto forwardAnswers = [this](auto* engine) {
        using Engine = std::remove_pointer_t<decltype(engine)>;
        connect(engine, &Engine::tokenGenerated, this, &ModelSession::tokenGenerated);
        connect(engine, &Engine::contextUsed, this, &ModelSession::contextUsed);
        connect(engine, &Engine::answerFinished, this, [this](quint64 requestId, const AnswerStats& stats) {
            if (requestId == m_requestId) {
                m_lastTokensPerSecond = stats.tokensPerSecond();
                Q_EMIT lastTokensPerSecondChanged();
                m_lastDrafted = stats.draftedTokens;
                m_lastAccepted = stats.acceptedTokens;
                Q_EMIT speculationChanged();
            }
            onAnswerEnded(requestId);
            Q_EMIT answerFinished(requestId, stats);
        });
        connect(engine, &Engine::answerFailed, this, [this](quint64 requestId, const QString& message) {
            onAnswerEnded(requestId);
            Q_EMIT answerFailed(requestId, message);
        });
    };
    forwardAnswers(m_worker);
    forwardAnswers(&m_remote);
    connect(&m_remote, &hearth::openai::RemoteEngine::modelsListed, this, &ModelSession::onRemoteModelsListed);
    connect(&m_remote, &hearth::openai::RemoteEngine::listFailed, this, &ModelSession::onRemoteListFailed);
    // The placement and the remote server's lines are worded here, in the interface language.
    connect(new hearth::models::LanguageChangeWatcher(this), &hearth::models::LanguageChangeWatcher::languageChanged, this,
        &ModelSession::modelChanged);
}

ModelSession::~ModelSession() = default; // the engine thread ends the answer and the load

ModelSession* ModelSession::create(QQmlEngine*, QJSEngine*)
{
    if (s_instance) {
        QJSEngine::setObjectOwnership(s_instance, QJSEngine::CppOwnership);
        return s_instance;
    }
    return new ModelSession(nullptr);
}

void ModelSession::setInstance(ModelSession* instance)
{
    s_instance = instance;
}

void ModelSession::setSettings(AppSettings* settings)
{
    m_settings = settings;
    if (!settings)
        return;
    m_engine.post([threads = settings->threads()](EngineWorker& worker) { worker.setThreads(threads); });
    connect(settings, &AppSettings::threadsChanged, this, [this] {
        m_engine.post([threads = m_settings->threads()](EngineWorker& worker) { worker.setThreads(threads); });
    });
    const auto postPromptCopies = [this] {
        m_engine.post([on = m_settings->fastSparsePrompts()](EngineWorker& worker) { worker.setSparsePromptCopies(on); });
    };
    postPromptCopies();
    connect(settings, &AppSettings::fastSparsePromptsChanged, this, postPromptCopies);
    Q_EMIT contextChanged(); // the KV cache type comes from the settings
}

void ModelSession::setDeviceOverride(const QString& device)
{
    m_engine.post([device](EngineWorker& worker) { worker.setDeviceOverride(device); });
}

void ModelSession::loadModel(const QString& path)
{
    if (m_state == State::Loading || m_state == State::Generating || path.isEmpty())
        return;
    m_loadingPath = path;
    m_usingRemote = false;
    m_pendingBudgetGiB.reset();
    // The budget the VRAM panel remembered for this file, else automatic.
    m_vramBudgetGiB = m_settings ? m_settings->vramBudgetGiB(path) : -1.0;
    const int tokens = m_settings ? m_settings->contextLength(path) : 0; // Chat Settings' choices
    m_speculation = m_settings ? m_settings->speculation(path) : QString();
    m_speculationError.clear();
    m_lastDrafted = m_lastAccepted = 0;
    Q_EMIT speculationChanged();
    m_engine.post([gib = m_vramBudgetGiB, tokens, kvCache = kvCacheType(), speculation = m_speculation](EngineWorker& worker) {
        worker.setVramBudget(gib);
        worker.setContextLength(tokens);
        worker.setKvCacheType(kvCache);
        worker.setSpeculation(speculation);
    });
    m_trainedContextLength = 0;
    m_readsReasoning = false;
    m_kvCacheTypeInUse.clear();
    m_modelName.clear();
    m_modelDescription.clear();
    m_modelPath.clear();
    m_contextLength = 0;
    m_loadProgress = 0;
    Q_EMIT modelChanged();
    Q_EMIT contextChanged();
    Q_EMIT loadProgressChanged();
    setErrorText({});
    setState(State::Loading);
    // Numbered here, so that a Cancel pressed before the worker gets to it still counts.
    m_engine.post([path, ticket = m_worker->nextLoadTicket()](EngineWorker& worker) { worker.loadModel(path, ticket); });
}

void ModelSession::loadModelUrl(const QUrl& url)
{
    loadModel(url.isLocalFile() ? url.toLocalFile() : url.toString());
}

void ModelSession::cancelLoad()
{
    m_worker->cancelLoad();
}

void ModelSession::onModelLoaded(const QString& name, const QString& description, int contextLength, const Placement& placement)
{
    m_modelName = name;
    m_modelDescription = description;
    m_placement = placement;
    m_chatTemplateNotice.clear();
    m_modelPath = m_loadingPath;
    m_contextLength = contextLength;
    m_trainedContextLength = m_worker->loadedModel().trainedContextLength;
    m_readsReasoning = m_worker->loadedModel().readsReasoning;
    readCacheFacts();
    Q_EMIT modelChanged();
    Q_EMIT contextChanged(); // the meter and Chat Settings compare with the new length
    if (m_settings)
        m_settings->addRecentModel(m_modelPath);
    setErrorText({});
    setState(State::Ready);
    Q_EMIT modelReady();
}

void ModelSession::onModelLoadFailed(const QString& message)
{
    qCWarning(lcApp) << message;
    m_replacing = false;
    m_pendingBudgetGiB.reset();
    if (!m_modelPath.isEmpty()) {
        // A failed re-placement that could not restore the old one: the model is gone.
        m_modelName.clear();
        m_modelDescription.clear();
        m_placement = {};
        m_chatTemplateNotice.clear();
        m_modelPath.clear();
        Q_EMIT modelChanged();
    }
    setErrorText(message);
    setState(State::NoModel);
}

void ModelSession::readCacheFacts()
{
    const LoadedModel loaded = m_worker->loadedModel();
    m_kvBytesPerToken = loaded.kvBytesPerToken;
    m_kvFixedBytes = loaded.kvFixedBytes;
    m_kvCacheTypeInUse = loaded.kvCacheType;
}

QString ModelSession::placementSummary() const
{
    if (m_usingRemote)
        return tr("Remote: %1").arg(m_remote.baseUrl().host());
    return m_placement.summary();
}

QString ModelSession::placementDetails() const
{
    if (m_usingRemote)
        return tr("Remote: the model runs on %1, not on this computer.").arg(m_remote.baseUrl().toString());
    return m_placement.details();
}

void ModelSession::listRemoteModels(const QString& url, const QString& apiKey)
{
    m_remote.listModels(hearth::openai::RemoteEngine::normalizedBaseUrl(url), apiKey);
}

void ModelSession::connectRemote(const QString& url, const QString& apiKey, const QString& model)
{
    if (m_state == State::Loading || m_state == State::Generating)
        return;
    const QUrl baseUrl = hearth::openai::RemoteEngine::normalizedBaseUrl(url);
    m_remote.setServer(baseUrl, apiKey, model.trimmed());
    m_connectingModel = model.trimmed();
    m_loadProgress = 0;
    Q_EMIT loadProgressChanged();
    setErrorText({});
    setState(State::Loading);
    m_remote.listModels(baseUrl, apiKey);
}

void ModelSession::onRemoteModelsListed(const QStringList& models, const QList<int>& contextLengths)
{
    if (!m_connectingModel) {
        Q_EMIT remoteModelsListed(models, {});
        return;
    }
    QString model = *m_connectingModel;
    m_connectingModel.reset();
    if (model.isEmpty() && !models.isEmpty())
        model = models.constFirst();
    const qsizetype index = models.indexOf(model);
    if (model.isEmpty() || (index < 0 && !models.isEmpty())) {
        onRemoteListFailed(model.isEmpty() ? tr("The server offers no models.")
                                           : tr("The server does not offer a model named “%1”.").arg(model));
        return;
    }
    m_remote.setModel(model);
    if (m_settings) {
        m_settings->setRemoteUrl(m_remote.baseUrl().toString());
        m_settings->setRemoteApiKey(m_remote.apiKey());
        m_settings->setRemoteModel(model);
    }
    // One model at a time: the local one gives its memory back.
    m_engine.post([](EngineWorker& worker) { worker.unloadModel(); });
    m_usingRemote = true;
    m_modelName = model;
    m_modelDescription = tr("OpenAI-compatible server at %1").arg(m_remote.baseUrl().host());
    m_placement = {};
    m_chatTemplateNotice.clear();
    m_modelPath.clear();
    m_contextLength = index >= 0 ? contextLengths.value(index) : 0;
    Q_EMIT modelChanged();
    Q_EMIT contextChanged();
    setState(State::Ready);
    Q_EMIT modelReady();
}

void ModelSession::onRemoteListFailed(const QString& message)
{
    if (!m_connectingModel) {
        Q_EMIT remoteModelsListed({}, message);
        return;
    }
    m_connectingModel.reset();
    setErrorText(message);
    setState(hasModel() ? State::Ready : State::NoModel);
}

quint64 ModelSession::generate(const QList<ChatTurn>& turns, const SamplingSettings& sampling, const QString& answerStart)
{
    if (m_state != State::Ready || (m_usingRemote && !answerStart.isEmpty()))
        return 0;
    const quint64 id = ++m_requestId;
    setState(State::Generating);
    if (m_usingRemote) {
        // Servers refuse a max_tokens beyond their model's context.
        SamplingSettings clamped = sampling;
        if (m_contextLength > 0)
            clamped.maxTokens = qMin(clamped.maxTokens, m_contextLength);
        m_remote.generate(id, turns, clamped);
    } else {
        m_engine.post([id, turns, sampling, answerStart](EngineWorker& worker) {
            worker.generate(id, turns, sampling, answerStart);
        });
    }
    return id;
}

void ModelSession::stop(quint64 requestId)
{
    if (m_usingRemote)
        m_remote.stop(requestId);
    else
        m_worker->stop(requestId);
}

void ModelSession::onAnswerEnded(quint64 requestId)
{
    if (requestId == m_requestId && m_state == State::Generating)
        setState(hasModel() ? State::Ready : State::NoModel);
}

void ModelSession::measureContext(qint64 conversationId, const QList<ChatTurn>& turns)
{
    if (m_modelPath.isEmpty())
        return;
    m_engine.post([conversationId, turns](EngineWorker& worker) { worker.measureContext(conversationId, turns); });
}

void ModelSession::applyVramBudget(double budgetBytes, bool autoBudget)
{
    if (!std::isfinite(budgetBytes) || budgetBytes < 0)
        budgetBytes = 0;
    const double gib = autoBudget ? -1.0 : budgetBytes / double(quint64(1) << 30);
    if (m_state == State::NoModel)
        return;
    m_pendingBudgetGiB = gib;
    if (m_state == State::Ready)
        startPendingReplacement();
}

QList<int> ModelSession::contextLengthChoices() const
{
    if (m_usingRemote || m_trainedContextLength <= 0)
        return {};
    // Powers of two from 1024 tokens, and the trained context itself, which is the longest.
    QList<int> choices;
    for (int tokens = 1024; tokens < m_trainedContextLength; tokens *= 2)
        choices.append(tokens);
    choices.append(m_trainedContextLength);
    if (m_contextLength > 0 && !choices.contains(m_contextLength)) {
        choices.append(m_contextLength); // a length chosen elsewhere (the engine's default of 4096)
        std::sort(choices.begin(), choices.end());
    }
    return choices;
}

QString ModelSession::contextLengthLabel(int tokens) const
{
    const QString count = tr("%n token(s)", nullptr, tokens);
    if (m_kvBytesPerToken == 0)
        return count;
    const qint64 bytes = qint64(m_kvFixedBytes + m_kvBytesPerToken * quint64(tokens));
    return tr("%1 (%2 of memory)").arg(count, QLocale().formattedDataSize(bytes, 1, QLocale::DataSizeTraditionalFormat));
}

void ModelSession::applyContextLength(int tokens)
{
    if (m_state == State::NoModel || m_usingRemote || tokens <= 0 || tokens == m_contextLength)
        return;
    if (m_settings)
        m_settings->setContextLength(m_modelPath, tokens);
    m_engine.post([tokens](EngineWorker& worker) { worker.setContextLength(tokens); });
    replaceSessionKeepingBudget(); // the same budget, the new length
}

void ModelSession::applySpeculation(const QString& choice)
{
    if (m_state == State::NoModel || m_usingRemote || choice == m_speculation)
        return;
    m_speculation = choice;
    if (m_settings)
        m_settings->setSpeculation(m_modelPath, choice);
    m_lastDrafted = m_lastAccepted = 0;
    Q_EMIT speculationChanged();
    m_engine.post([choice](EngineWorker& worker) {
        worker.setSpeculation(choice);
        worker.applySpeculation();
    });
}

QString ModelSession::speculationResult() const
{
    if (m_speculation.isEmpty() || m_lastDrafted == 0)
        return {};
    return tr("Last answer: %1 of %2 guessed tokens were right (%3 %).")
        .arg(m_lastAccepted)
        .arg(m_lastDrafted)
        .arg(qRound(100.0 * m_lastAccepted / m_lastDrafted));
}

void ModelSession::replaceSessionKeepingBudget()
{
    // A new session, as for a new VRAM budget: the budget stays, unless one is already pending.
    if (!m_pendingBudgetGiB)
        m_pendingBudgetGiB = m_vramBudgetGiB;
    if (m_state == State::Ready)
        startPendingReplacement();
}

QString ModelSession::kvCacheType() const
{
    return m_settings ? m_settings->kvCacheType() : QStringLiteral("f16");
}

void ModelSession::applyKvCacheType(const QString& name)
{
    if (!m_settings || name == m_settings->kvCacheType())
        return;
    m_settings->setKvCacheType(name);
    const QString stored = m_settings->kvCacheType();
    m_engine.post([stored](EngineWorker& worker) { worker.setKvCacheType(stored); });
    Q_EMIT contextChanged();
    if (m_state == State::NoModel || m_usingRemote)
        return;
    replaceSessionKeepingBudget();
}

void ModelSession::startPendingReplacement()
{
    if (!m_pendingBudgetGiB || m_state != State::Ready)
        return;
    const double gib = *m_pendingBudgetGiB;
    m_pendingBudgetGiB.reset();
    m_replacing = true;
    m_loadProgress = 0;
    Q_EMIT loadProgressChanged();
    setErrorText({});
    setState(State::Loading);
    m_engine.post([gib, ticket = m_worker->nextLoadTicket()](EngineWorker& worker) { worker.replaceSession(gib, ticket); });
}

void ModelSession::onSessionReplaced(const Placement& placement, int contextLength, double budgetGiB, const QString& errorText)
{
    m_replacing = false;
    m_placement = placement;
    m_vramBudgetGiB = budgetGiB;
    if (contextLength > 0)
        m_contextLength = contextLength;
    readCacheFacts();
    Q_EMIT modelChanged();
    Q_EMIT contextChanged();
    if (!errorText.isEmpty())
        qCWarning(lcApp) << errorText;
    setErrorText(errorText);
    setState(hasModel() ? State::Ready : State::NoModel);
    Q_EMIT placementChanged();
}

void ModelSession::setState(State state)
{
    if (state == m_state)
        return;
    m_state = state;
    Q_EMIT stateChanged();
    // An Apply made while answering or loading takes effect once the engine is free.
    if (state == State::Ready && m_pendingBudgetGiB)
        QTimer::singleShot(0, this, &ModelSession::startPendingReplacement);
}

void ModelSession::setErrorText(const QString& text)
{
    if (text == m_errorText)
        return;
    m_errorText = text;
    Q_EMIT errorTextChanged();
}

} // namespace hearth::app
