// SPDX-License-Identifier: MIT
#include "engine_worker.h"
#include "engine_error.h"
#include "engine_path.h"

#include "enginelogging.h"

#include <hearth/hearth.h>

#include <QElapsedTimer>
#include <QFileInfo>
#include <QLocale>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>

namespace hearth::app {

EngineWorker::EngineWorker(QObject* parent)
    : QObject(parent)
{
    qRegisterMetaType<hearth::app::AnswerStats>();
    qRegisterMetaType<hearth::app::SamplingSettings>();
    qRegisterMetaType<QList<hearth::app::ChatTurn>>();
    qRegisterMetaType<hearth::app::Placement>();
}

Placement EngineWorker::placement() const
{
    return { m_session->placement(), QString::fromStdString(m_session->placementReport()) };
}

EngineWorker::~EngineWorker() = default;

hearth::Result<std::string> EngineWorker::renderTurns(
    const QList<ChatTurn>& turns, bool addGenerationPrompt, hearth::Reasoning reasoning)
{
    std::vector<hearth::ChatMessage> messages;
    messages.reserve(size_t(turns.size()));
    for (const ChatTurn& turn : turns) {
        if (turn.role == QLatin1String("system") && turn.content.trimmed().isEmpty())
            continue;
        messages.push_back({ turn.role.toStdString(), turn.content.toStdString() });
    }
    auto text = m_chatTemplate->apply(messages, addGenerationPrompt, reasoning);
    if (text || !hearth::ChatTemplate::ranAway(text.code()))
        return text; // its own complaints (roles that do not alternate) are the user's to see
    // A template from a model file that would run away is not retried: the built-in format it
    // falls back to is what the chat uses from now on.
    const QString reason = QString::fromStdString(text.message());
    *m_chatTemplate = hearth::ChatTemplate::fallbackFor(*m_model);
    qCWarning(lcEngine) << "chat template replaced by" << m_chatTemplate->name().c_str() << ":" << reason;
    Q_EMIT chatTemplateReplaced(reason, QString::fromStdString(m_chatTemplate->name()));
    return m_chatTemplate->apply(messages, addGenerationPrompt, reasoning);
}

hearth::Result<std::string> EngineWorker::fitTurns(
    QList<ChatTurn> turns, const std::string& answerStart, int reserve, hearth::Reasoning reasoning, int& dropped)
{
    dropped = 0;
    const int first = !turns.isEmpty() && turns.first().role == QLatin1String("system") ? 1 : 0;
    const int rest = int(turns.size()) - first;
    // Where the kept turns may start: at a question, so the roles still alternate as templates
    // expect, or at the newest turn, which always stays (run() reports when even that is too long).
    QList<int> starts;
    for (int i = 0; i < rest; ++i) {
        if (i == 0 || i == rest - 1 || turns.at(first + i).role == QLatin1String("user"))
            starts.append(i);
    }
    const auto render = [&](int start) {
        QList<ChatTurn> kept = turns.mid(0, first);
        kept.append(turns.mid(first + start));
        return renderTurns(kept, true, reasoning);
    };
    const auto fits = [&](const std::string& text) {
        return int(m_model->tokenizer().encode(text + answerStart, true, true).size()) + reserve
            <= m_session->contextLength();
    };
    auto text = render(0);
    if (!text || fits(text.value()) || starts.size() < 2)
        return text;
    // Fewer turns never take more tokens: a binary search renders a long chat a few times, not
    // once per turn left out. starts[low] does not fit; starts[high] is the answer unless nothing fits.
    qsizetype low = 0;
    qsizetype high = starts.size() - 1;
    while (high - low > 1) {
        const qsizetype middle = (low + high) / 2;
        auto tried = render(starts.at(middle));
        if (!tried)
            return tried;
        if (fits(tried.value()))
            high = middle;
        else
            low = middle;
    }
    dropped = starts.at(high);
    return render(dropped);
}

void EngineWorker::stop(quint64 requestId)
{
    const std::lock_guard lock(m_stopMutex);
    // A stop that arrives after its answer ended stays listed; ids are never reused, so it
    // matches nothing, and the list is emptied before it could matter.
    if (m_stoppedRequests.size() > 1024)
        m_stoppedRequests.clear();
    m_stoppedRequests.insert(requestId);
}

bool EngineWorker::stopRequested(quint64 requestId)
{
    if (m_stopAll.load(std::memory_order_relaxed))
        return true;
    const std::lock_guard lock(m_stopMutex);
    return m_stoppedRequests.count(requestId) != 0;
}

bool EngineWorker::takeStop(quint64 requestId)
{
    const bool all = m_stopAll.load(std::memory_order_relaxed);
    const std::lock_guard lock(m_stopMutex);
    return m_stoppedRequests.erase(requestId) != 0 || all;
}

LoadedModel EngineWorker::loadedModel() const
{
    const std::lock_guard lock(m_loadedMutex);
    return m_loaded;
}

void EngineWorker::setLoadedModel(LoadedModel model)
{
    const std::lock_guard lock(m_loadedMutex);
    m_loaded = std::move(model);
}

void EngineWorker::setKvCost(LoadedModel& model) const
{
    // The cost at two lengths past every sliding window gives its slope and its fixed part exactly.
    const int longer = qMax(qMax(m_session->contextLength(), model.trainedContextLength), 2);
    const int shorter = longer / 2;
    const quint64 atLonger = m_session->kvCacheBytesAt(longer);
    const quint64 atShorter = m_session->kvCacheBytesAt(shorter);
    model.kvBytesPerToken = (atLonger - atShorter) / quint64(longer - shorter);
    model.kvFixedBytes = atLonger - qMin(atLonger, model.kvBytesPerToken * quint64(longer));
    model.kvCacheType = QString::fromLatin1(hearth::kvCacheTypeName(m_session->kvCacheType()));
}

void EngineWorker::unloadModel()
{
    setLoadedModel({});
    m_drafter.reset();
    m_draftModel.reset();
    m_draftPath.clear();
    m_session.reset();
    m_chatTemplate.reset();
    m_model.reset();
}

void EngineWorker::setSparsePromptCopies(bool on)
{
    m_sparsePromptCopies = on;
}

void EngineWorker::setThreads(int threads)
{
    m_threads = qMax(0, threads);
}

void EngineWorker::setVramBudget(double gib)
{
    m_vramBudgetGiB = std::isfinite(gib) ? std::max(-1.0, gib) : -1.0;
}

void EngineWorker::setDeviceOverride(const QString& device)
{
    m_deviceOverride = device.toStdString();
}

void EngineWorker::setContextLength(int tokens)
{
    m_contextLength = qMax(0, tokens);
}

void EngineWorker::setKvCacheType(const QString& name)
{
    m_kvCache = hearth::kvCacheTypeFromName(name.toStdString()).value_or(hearth::KvCacheType::F16);
}

hearth::SessionParams EngineWorker::sessionParams(double gib) const
{
    hearth::SessionParams params;
    params.threads = m_threads;
    params.kvCache = m_kvCache;
    if (m_model && m_contextLength > 0)
        params.contextLength = qMin(m_contextLength, qMax(m_model->info().trainedContextLength, 4096));
    params.vramBudgetGiB = gib;
    params.deviceOverride = m_deviceOverride;
    return params;
}

void EngineWorker::setSpeculation(const QString& choice)
{
    m_speculation = choice;
}

void EngineWorker::applySpeculation()
{
    m_drafter.reset();
    if (!m_session || !m_model)
        return;
    QString error;
    if (m_speculation == QLatin1String("lookup")) {
        m_drafter = std::make_unique<hearth::PromptLookup>();
    } else if (!m_speculation.isEmpty()) {
        const QString fileName = QFileInfo(m_speculation).fileName();
        if (m_speculation != m_draftPath || !m_draftModel) {
            m_draftModel.reset();
            m_draftPath = m_speculation;
            qCInfo(lcEngine) << "loading the draft model" << m_draftPath;
            auto draft = hearth::Model::load(enginePath(m_draftPath));
            if (draft)
                m_draftModel = std::move(draft).value();
            else
                error = tr("The draft model %1 cannot be loaded: %2").arg(fileName, engineErrorText(draft.status()));
        }
        if (m_draftModel) {
            const hearth::SessionParams params =
                hearth::DraftModel::sessionParamsFor(*m_session, sessionParams(m_sessionBudgetGiB));
            auto drafter = hearth::DraftModel::create(m_draftModel, *m_model, params);
            if (drafter)
                m_drafter = std::move(drafter).value();
            else
                error = tr("The draft model %1 cannot guess for this model: %2").arg(fileName, engineErrorText(drafter.status()));
        }
    }
    if (!error.isEmpty())
        qCWarning(lcEngine) << error;
    Q_EMIT speculationApplied(error);
}

void EngineWorker::loadModel(const QString& path, quint64 ticket)
{
    m_ticket = ticket ? ticket : nextLoadTicket();
    setLoadedModel({});
    m_drafter.reset();
    m_session.reset();
    m_chatTemplate.reset();
    m_model.reset();

    const QFileInfo file(path);
    if (!file.exists()) {
        Q_EMIT modelLoadFailed(tr("The model file %1 does not exist.").arg(path));
        return;
    }
    if (!file.isFile() || !file.isReadable()) {
        Q_EMIT modelLoadFailed(tr("The model file %1 cannot be read.").arg(path));
        return;
    }

    qCInfo(lcEngine) << "loading" << path;
    hearth::LoadParams params;
    params.sparsePromptCopies = m_sparsePromptCopies;
    // Whole percents only: the GUI does not need thousands of queued signals.
    int lastPercent = -1;
    params.progress = [this, &lastPercent](float fraction) {
        const int percent = int(fraction * 100.0f);
        if (percent != lastPercent) {
            lastPercent = percent;
            Q_EMIT loadProgress(double(fraction));
        }
        return !loadCancelled();
    };
    auto model = hearth::Model::load(enginePath(path), params);
    if (loadCancelled()) {
        Q_EMIT modelLoadFailed(tr("Loading %1 was cancelled.").arg(file.fileName()));
        return;
    }
    if (!model) {
        Q_EMIT modelLoadFailed(
            tr("Could not load %1: %2").arg(file.fileName(), engineErrorText(model.status())));
        return;
    }
    m_model = std::move(model).value(); // sessionParams() reads its trained context
    auto session = hearth::Session::create(m_model, sessionParams(m_vramBudgetGiB));
    if (!session) {
        m_model.reset();
        Q_EMIT modelLoadFailed(tr("Could not start a session with %1: %2")
                                   .arg(file.fileName(), engineErrorText(session.status())));
        return;
    }
    adoptSession(std::move(session).value(), m_vramBudgetGiB);
    std::string templateProblem;
    m_chatTemplate = std::make_unique<hearth::ChatTemplate>(hearth::ChatTemplate::forModel(*m_model, &templateProblem));

    const hearth::ModelInfo& info = m_model->info();
    const QString name = info.name.empty() ? file.completeBaseName() : QString::fromStdString(info.name);
    QString description = QStringLiteral("%1 · %2").arg(
        QString::fromStdString(info.architecture), QString::fromStdString(info.weightType));
    // A model larger than the free memory still runs, reading part of its weights from the disk.
    if (info.bytesLeftMapped > 0)
        description += QStringLiteral(" · ")
            + tr("%1 read from the disk as needed (not enough free memory)")
                  .arg(QLocale().formattedDataSize(qint64(info.bytesLeftMapped)));
    if (info.promptCopyBytes > 0)
        description += QStringLiteral(" · ")
            + tr("%1 more memory for faster prompts").arg(QLocale().formattedDataSize(qint64(info.promptCopyBytes)));
    const Placement placement = this->placement();
    qCInfo(lcEngine) << "loaded" << name << description << placement.report;
    LoadedModel loaded { file.completeBaseName(), name, m_session->contextLength(), info.trainedContextLength };
    loaded.readsReasoning = m_chatTemplate->readsReasoning();
    setKvCost(loaded);
    setLoadedModel(loaded);
    Q_EMIT modelLoaded(name, description, m_session->contextLength(), placement);
    if (!templateProblem.empty()) {
        qCWarning(lcEngine) << "chat template does not parse:" << templateProblem.c_str();
        Q_EMIT chatTemplateReplaced(QString::fromStdString(templateProblem), QString::fromStdString(m_chatTemplate->name()));
    }
}

void EngineWorker::replaceSession(double gib, quint64 ticket)
{
    m_ticket = ticket ? ticket : nextLoadTicket();
    if (!m_model || !m_session) {
        Q_EMIT sessionReplaced(Placement {}, 0, gib, tr("No model is loaded."));
        return;
    }
    gib = std::isfinite(gib) ? std::max(-1.0, gib) : -1.0;
    const double previous = m_sessionBudgetGiB;
    // The old session's device memory (and its draft model's) must be free before the new one
    // asks for its share.
    m_drafter.reset();
    m_session.reset();
    Q_EMIT loadProgress(0.1);
    qCInfo(lcEngine) << "placing again with a budget of" << gib << "GiB";
    std::unique_ptr<hearth::Session> fresh;
    QString error;
    if (auto session = hearth::Session::create(m_model, sessionParams(gib)); !session) {
        error = tr("Could not place the model for this budget: %1").arg(engineErrorText(session.status()));
    } else if (loadCancelled()) {
        error = tr("Placing the model again was cancelled; the previous placement is kept.");
    } else {
        fresh = std::move(session).value();
    }
    if (fresh) {
        adoptSession(std::move(fresh), gib);
    } else {
        auto restored = hearth::Session::create(m_model, sessionParams(previous));
        if (!restored) {
            // Without a session the model is unusable; say so the way a failed load does.
            setLoadedModel({});
            m_chatTemplate.reset();
            m_model.reset();
            Q_EMIT modelLoadFailed(tr("Could not restore the previous placement: %1")
                                       .arg(engineErrorText(restored.status())));
            return;
        }
        adoptSession(std::move(restored).value(), previous);
    }
    Q_EMIT loadProgress(1.0);
    LoadedModel loaded = loadedModel();
    loaded.contextLength = m_session->contextLength();
    setKvCost(loaded);
    setLoadedModel(loaded);
    const Placement placement = this->placement();
    qCInfo(lcEngine) << "placed" << placement.report;
    Q_EMIT sessionReplaced(placement, m_session->contextLength(), m_sessionBudgetGiB, error);
}

void EngineWorker::generate(
    quint64 requestId, const QList<ChatTurn>& turns, const SamplingSettings& sampling, const QString& answerStart)
{
    if (!m_model) {
        Q_EMIT answerFailed(requestId, tr("No model is loaded."));
        return;
    }
    int dropped = 0;
    // Room for the answer: what it may use, but never more than a quarter of the context, so
    // that a long answer limit does not push the chat's history out (an answer may still run on
    // until the context is full).
    const int reserve = std::min(sampling.maxTokens, m_session->contextLength() / 4);
    const std::string start = answerStart.toStdString();
    // clamped() keeps only names the engine knows.
    const hearth::Reasoning reasoning = hearth::reasoningFromName(sampling.reasoning.toStdString()).value_or(hearth::Reasoning::Default);
    auto text = sampling.dropOldestTurns ? fitTurns(turns, start, reserve, reasoning, dropped)
                                         : renderTurns(turns, true, reasoning);
    if (!text) {
        Q_EMIT answerFailed(
            requestId, tr("The chat template failed: %1").arg(QString::fromStdString(text.message())));
        return;
    }
    if (dropped > 0)
        Q_EMIT turnsLeftOut(requestId, dropped);
    // The earlier part of the answer is what the model generated after this very prompt: parsed
    // like it, so that a thinking tag it wrote becomes its token again, and the cache keeps the
    // tokens the answer had so far.
    run(requestId, text.value() + start, true, sampling);
}

void EngineWorker::measureContext(qint64 conversationId, const QList<ChatTurn>& turns)
{
    if (!m_model)
        return;
    int tokens = 0;
    bool anything = false;
    for (const ChatTurn& turn : turns)
        anything = anything || !turn.content.trimmed().isEmpty();
    if (anything) {
        const auto text = renderTurns(turns, false);
        if (!text)
            return; // the next answer reports the template's error
        tokens = int(m_model->tokenizer().encode(text.value(), true, true).size());
    }
    Q_EMIT contextMeasured(conversationId, tokens);
}

void EngineWorker::complete(quint64 requestId, const QString& text, const SamplingSettings& sampling)
{
    if (!m_model) {
        Q_EMIT answerFailed(requestId, tr("No model is loaded."));
        return;
    }
    run(requestId, text.toStdString(), false, sampling);
}

void EngineWorker::run(quint64 requestId, const std::string& promptText, bool parseSpecial,
    const SamplingSettings& settings)
{
    QElapsedTimer sinceRequest;
    sinceRequest.start();
    if (takeStop(requestId)) {
        // Stopped while it waited its turn (its client went away): nothing was generated.
        AnswerStats stopped;
        stopped.stopped = true;
        stopped.contextUsed = m_session->position();
        Q_EMIT answerFinished(requestId, stopped);
        return;
    }
    const std::vector<hearth::Token> prompt = m_model->tokenizer().encode(promptText, true, parseSpecial);
    if (prompt.empty()) {
        Q_EMIT answerFailed(requestId, tr("The prompt is empty."));
        return;
    }
    if (int(prompt.size()) >= m_session->contextLength()) {
        Q_EMIT promptTooLong(requestId, int(prompt.size()), m_session->contextLength());
        Q_EMIT answerFailed(requestId,
            tr("The conversation (%1 tokens) no longer fits the model's context of %2 tokens. Delete earlier "
               "messages, let Chat Settings leave the oldest out, or start a new chat.")
                .arg(prompt.size())
                .arg(m_session->contextLength()));
        return;
    }

    // Keep the cached tokens the new prompt starts with (the earlier turns of the same branch);
    // at least one prompt token is always evaluated so there are fresh logits to sample.
    const std::span<const hearth::Token> cached = m_session->history();
    size_t keep = 0;
    const size_t limit = std::min(cached.size(), prompt.size() - 1);
    while (keep < limit && cached[keep] == prompt[keep])
        ++keep;
    m_session->truncate(int(keep));
    keep = size_t(m_session->position()); // less when sliding-window layers let go of older keys

    hearth::SamplingParams params;
    params.temperature = float(settings.temperature);
    params.topK = settings.topK;
    params.topP = float(settings.topP);
    params.minP = float(settings.minP);
    params.repeatPenalty = float(settings.repeatPenalty);
    params.repeatLastN = settings.repeatLastN;
    params.presencePenalty = float(settings.presencePenalty);
    params.frequencyPenalty = float(settings.frequencyPenalty);
    params.seed = settings.seed >= 0 ? std::uint64_t(settings.seed) : std::random_device {}();
    hearth::Sampler sampler(params);
    for (size_t i = 0; i < keep; ++i)
        sampler.accept(prompt[i]); // penalties see the whole context, cached or not

    double firstTokenMs = 0;
    const std::span<const hearth::Token> rest(prompt.data() + keep, prompt.size() - keep);
    Q_EMIT contextUsed(requestId, int(prompt.size()));
    // The session hands over whole UTF-8 characters only, so each piece converts as it is.
    auto stats = m_session->generate(rest, sampler, settings.maxTokens, [&](hearth::Token, const std::string& piece) {
        if (firstTokenMs == 0)
            firstTokenMs = double(sinceRequest.nsecsElapsed()) / 1e6;
        Q_EMIT contextUsed(requestId, m_session->position());
        if (!piece.empty())
            Q_EMIT tokenGenerated(requestId, QString::fromStdString(piece));
        return !stopRequested(requestId);
    }, m_drafter.get());
    const bool stopped = takeStop(requestId);
    checkDevice();
    if (!stats) {
        // The cache may hold part of a failed prompt; start clean next time.
        (void)takeStop(requestId);
        m_session->reset();
        Q_EMIT answerFailed(requestId, engineErrorText(stats.status()));
        return;
    }

    AnswerStats result;
    result.promptTokens = stats->promptTokens;
    result.cachedPromptTokens = int(keep);
    result.generatedTokens = stats->generatedTokens;
    result.promptSeconds = stats->promptSeconds;
    result.generateSeconds = stats->generateSeconds;
    result.timeToFirstTokenMs = firstTokenMs;
    result.contextUsed = m_session->position();
    result.stopped = stopped || stats->stopReason == hearth::StopReason::Cancelled;
    result.reachedMaxTokens = stats->stopReason == hearth::StopReason::MaxTokens;
    result.contextFull = stats->stopReason == hearth::StopReason::ContextFull;
    result.draftedTokens = stats->draftedTokens;
    result.acceptedTokens = stats->acceptedTokens;
    Q_EMIT answerFinished(requestId, result);
}

void EngineWorker::adoptSession(std::unique_ptr<hearth::Session> session, double budgetGiB)
{
    m_session = std::move(session);
    m_sessionBudgetGiB = budgetGiB;
    applySpeculation(); // a draft session as long as the new one
    // A device that failed while the session was made: the load's placement says so already.
    m_deviceFailureReported = !m_session->placement().deviceFailure.empty();
}

void EngineWorker::checkDevice()
{
    // The engine goes on with the CPU by itself; the user must not be left believing otherwise.
    if (!m_session || m_deviceFailureReported)
        return;
    const Placement now = placement();
    if (now.facts.deviceFailure.empty())
        return;
    m_deviceFailureReported = true;
    qCWarning(lcEngine) << "the GPU failed, the CPU goes on:" << now.facts.deviceFailure.c_str();
    Q_EMIT deviceFailed(now);
}

} // namespace hearth::app
