// SPDX-License-Identifier: MIT
#pragma once

#include "placement.h"
#include "sampling_settings.h"

#include <hearth/chat.h>
#include <hearth/status.h>

#include <QList>
#include <QObject>
#include <QString>

#include <atomic>
#include <memory>
#include <mutex>
#include <unordered_set>

namespace hearth {
class Drafter;
class Model;
class Session;
struct SessionParams;
} // namespace hearth

namespace hearth::app {

/// Speed and size of one answer, for the line under it and for --self-test.
struct AnswerStats
{
    int promptTokens = 0; ///< evaluated for this answer
    int cachedPromptTokens = 0; ///< the prompt's start that the KV cache already held
    int generatedTokens = 0;
    double promptSeconds = 0;
    double generateSeconds = 0;
    /// From the request reaching the engine to the first token's text (prompt processing and
    /// the first sampling step), as the user waits for it.
    double timeToFirstTokenMs = 0;
    /// Tokens in the context after the answer, of contextLength.
    int contextUsed = 0;
    bool stopped = false; ///< stop() ended it
    bool reachedMaxTokens = false; ///< it ended at SamplingSettings::maxTokens, not at an end of turn
    int draftedTokens = 0; ///< speculative decoding: tokens guessed ahead and checked
    int acceptedTokens = 0; ///< of those, the ones the model wrote itself
    bool contextFull = false; ///< it ended because the context window had no room for another token

    [[nodiscard]] double tokensPerSecond() const
    {
        return generateSeconds > 0 ? generatedTokens / generateSeconds : 0.0;
    }
};

/// What is loaded, for callers on other threads (EngineWorker::loadedModel()).
struct LoadedModel
{
    QString id; ///< the file's base name: how API clients name it
    QString name; ///< the model's own name, or the file's
    int contextLength = 0; ///< 0: nothing is loaded
    int trainedContextLength = 0; ///< the longest context the model was trained for
    /// The session's KV cache memory at a context of n tokens, about kvFixedBytes + n *
    /// kvBytesPerToken (sliding-window layers keep a fixed number of rows past their window).
    quint64 kvBytesPerToken = 0;
    quint64 kvFixedBytes = 0;
    QString kvCacheType; ///< what the session stores the cache in ("f16", "q8_0", "f32"), by the engine's name
    bool readsReasoning = false; ///< its chat template takes SamplingSettings::reasoning (Qwen 3, gpt-oss)
};

/// Owns the engine objects and runs every engine call. Lives on its own QThread: requests arrive
/// as queued slot calls and results leave as queued signals, so the GUI thread never waits on
/// the engine. Only stop(), stopAll(), nextLoadTicket(), cancelLoad() and loadedModel() may be
/// called from another thread.
///
/// Every answer carries the request id its caller chose, so a late token of a stopped answer can
/// never land in the next one. Callers sharing the worker (the window, the API server) keep
/// their ids apart; requests run one after another in the order they arrive.
class EngineWorker : public QObject
{
    Q_OBJECT

public:
    explicit EngineWorker(QObject* parent = nullptr);
    ~EngineWorker() override;

    /// Thread-safe: request @p requestId ends after its current token, or does not start when it
    /// is still waiting its turn.
    void stop(quint64 requestId);
    /// Thread-safe: whatever answer runs ends after its current token (closing the application).
    void stopAll() { m_stopAll.store(true, std::memory_order_relaxed); }
    /// Thread-safe: the model that requests posted now would run on (none while one loads).
    [[nodiscard]] LoadedModel loadedModel() const;
    /// Thread-safe: a number for a load or re-placement request to carry, so that cancelLoad()
    /// reaches it even while it still waits in the worker's queue.
    [[nodiscard]] quint64 nextLoadTicket() { return ++m_loadTickets; }
    /// Thread-safe: the running load or re-placement, and every one numbered before, give up
    /// (a running one at its next progress step).
    void cancelLoad() { m_cancelledTickets.store(m_loadTickets.load()); }

public Q_SLOTS:
    /// Threads for the next model load; 0 picks one per physical core.
    void setThreads(int threads);
    /// Whether the next load keeps a sparse model's FFN laid out for prompts too
    /// (hearth::LoadParams::sparsePromptCopies).
    void setSparsePromptCopies(bool on);
    /// GPU memory for the next load in GiB (SessionParams::vramBudgetGiB): < 0 automatic, 0 CPU only.
    void setVramBudget(double gib);
    /// The device the next session uses (SessionParams::deviceOverride); "" picks the GPU back end.
    void setDeviceOverride(const QString& device);
    /// Tokens of context the next session gets; 0: the engine's default. Longer than the model
    /// was trained for is cut to that.
    void setContextLength(int tokens);
    /// How the next sessions store keys and values: "f16" or "q8_0" (AppSettings::kvCacheType).
    void setKvCacheType(const QString& name);
    /// How answers guess ahead (AppSettings::speculation): "", "lookup" or a draft model's path;
    /// from the next load or re-placement on, or at once with applySpeculation().
    void setSpeculation(const QString& choice);
    /// Makes the loaded session guess ahead as setSpeculation() said; ends with speculationApplied().
    void applySpeculation();
    /// @p ticket from nextLoadTicket(); 0 takes a new one.
    void loadModel(const QString& path, quint64 ticket = 0);
    /// Places the loaded model again for a budget of @p gib (see setVramBudget), keeping the model
    /// mapped: a new session replaces the old one. The conversation lives in the caller, so only
    /// the KV cache is lost; the next answer evaluates the history again. Ends with
    /// sessionReplaced(); when the new placement fails or cancelLoad() is called, the previous
    /// budget is restored and the message says why.
    void replaceSession(double gib, quint64 ticket = 0);
    /// Answers the last user turn of @p turns, rendered with the model's chat template. The KV
    /// cache keeps the prefix the previous prompt shares with this one. With @p answerStart the
    /// answer goes on from that text (an answer cut off earlier), which follows the rendered
    /// turns as the model wrote it.
    void generate(quint64 requestId, const QList<hearth::app::ChatTurn>& turns,
        const hearth::app::SamplingSettings& sampling, const QString& answerStart = {});
    /// Continues @p text as is, without a chat template (self-test, story models, the API's
    /// completions).
    void complete(quint64 requestId, const QString& text, const hearth::app::SamplingSettings& sampling);
    /// Frees the model and its session (the chat moved to a remote server).
    void unloadModel();
    /// The tokens @p turns take in the context, rendered as generate() would render them:
    /// answered with contextMeasured(), for the meter of a chat that has not run yet.
    void measureContext(qint64 conversationId, const QList<hearth::app::ChatTurn>& turns);

Q_SIGNALS:
    void loadProgress(double fraction);
    /// @p placement: where the engine placed the model.
    void modelLoaded(const QString& name, const QString& description, int contextLength, const hearth::app::Placement& placement);
    void modelLoadFailed(const QString& message);
    /// After replaceSession(): where the model runs now, and an error text when the requested
    /// placement could not be made (the previous one is back then). @p budgetGiB is what is in use.
    void sessionReplaced(const hearth::app::Placement& placement, int contextLength, double budgetGiB, const QString& errorText);
    void tokenGenerated(quint64 requestId, const QString& text);
    /// Tokens in the context while request @p requestId runs: after the prompt, then per token.
    /// The first one also says the request was accepted: an answerFailed() before it means the
    /// request itself could not be answered (too long, empty, no model), not that the engine failed.
    void contextUsed(quint64 requestId, int tokens);
    void contextMeasured(qint64 conversationId, int tokens);
    /// Request @p requestId ended; its text is what tokenGenerated() delivered (whole characters).
    void answerFinished(quint64 requestId, const hearth::app::AnswerStats& stats);
    void answerFailed(quint64 requestId, const QString& message);
    /// The GPU failed while answering and its work moved to the CPU (once per session):
    /// @p placement says so (Placement::facts.deviceFailure).
    void deviceFailed(const hearth::app::Placement& placement);
    /// Just before answerFailed(): request @p requestId needs @p promptTokens tokens, more than the
    /// @p contextLength the session holds (an API error code of its own).
    void promptTooLong(quint64 requestId, int promptTokens, int contextLength);
    /// The loaded model's own chat template cannot be used (it does not parse, or it ran into the
    /// renderer's limits); from now on its built-in @p builtinName format is used. Once per model.
    void chatTemplateReplaced(const QString& reason, const QString& builtinName);
    /// Request @p requestId left its @p turns oldest turns out of the prompt to fit the context.
    void turnsLeftOut(quint64 requestId, int turns);
    /// The speculation setSpeculation() asked for is in place for the loaded session, or
    /// @p errorText says why answers go on without guessing ahead.
    void speculationApplied(const QString& errorText);

private:
    /// @p turns through the model's chat template, empty system prompts left out; a template that
    /// runs into the renderer's limits is replaced by the built-in fallback, and the text rendered again.
    [[nodiscard]] hearth::Result<std::string> renderTurns(const QList<ChatTurn>& turns, bool addGenerationPrompt,
        hearth::Reasoning reasoning = hearth::Reasoning::Default);
    /// The prompt for @p turns that leaves @p reserve tokens of the context for the answer
    /// after @p answerStart (a continued answer's text so far), leaving out the oldest turns
    /// after the system prompt as needed; @p dropped says how many. Without @p answerStart.
    [[nodiscard]] hearth::Result<std::string> fitTurns(QList<ChatTurn> turns, const std::string& answerStart, int reserve,
        hearth::Reasoning reasoning, int& dropped);

    void run(quint64 requestId, const std::string& promptText, bool parseSpecial,
        const SamplingSettings& sampling);
    /// True once stop(@p requestId) or stopAll() was called; takes a stop of @p requestId out of the list.
    [[nodiscard]] bool takeStop(quint64 requestId);
    [[nodiscard]] bool stopRequested(quint64 requestId);

    [[nodiscard]] hearth::SessionParams sessionParams(double gib) const;
    [[nodiscard]] Placement placement() const;
    void setLoadedModel(LoadedModel model);
    // Fills @p model's KV cache cost from the session.
    void setKvCost(LoadedModel& model) const;

    std::shared_ptr<const hearth::Model> m_model;
    /// Makes @p session, placed for @p budgetGiB, the current one.
    void adoptSession(std::unique_ptr<hearth::Session> session, double budgetGiB);
    /// Emits deviceFailed() when the session's device failed since the last check.
    void checkDevice();

    std::unique_ptr<hearth::Session> m_session;
    std::unique_ptr<hearth::ChatTemplate> m_chatTemplate; ///< the model's, parsed once at load
    QString m_speculation; ///< AppSettings::speculation of the loaded model
    std::shared_ptr<const hearth::Model> m_draftModel; ///< loaded once for m_draftPath
    QString m_draftPath;
    std::unique_ptr<hearth::Drafter> m_drafter; ///< null: answers do not guess ahead
    int m_threads = 0;
    bool m_sparsePromptCopies = false;
    double m_vramBudgetGiB = -1; ///< for the next load
    double m_sessionBudgetGiB = -1; ///< the running session's
    std::string m_deviceOverride;
    int m_contextLength = 0;
    hearth::KvCacheType m_kvCache = hearth::KvCacheType::F16;
    std::mutex m_stopMutex;
    std::unordered_set<quint64> m_stoppedRequests; ///< under m_stopMutex
    std::atomic<bool> m_stopAll { false };
    mutable std::mutex m_loadedMutex;
    LoadedModel m_loaded; ///< under m_loadedMutex
    [[nodiscard]] bool loadCancelled() const { return m_ticket <= m_cancelledTickets.load(); }
    std::atomic<quint64> m_loadTickets { 0 };
    std::atomic<quint64> m_cancelledTickets { 0 };
    quint64 m_ticket = 0; ///< the running load's or re-placement's
    bool m_deviceFailureReported = false; ///< deviceFailed() was emitted for this session
};

} // namespace hearth::app

Q_DECLARE_METATYPE(hearth::app::AnswerStats)
