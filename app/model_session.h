// SPDX-License-Identifier: MIT
#pragma once

#include "engine_thread.h"
#include "remoteengine.h"
#include "sampling_settings.h"

#include <QObject>
#include <QPointer>
#include <QUrl>
#include <QtQml/qqmlregistration.h>

#include <optional>

class QQmlEngine;
class QJSEngine;

namespace hearth::app {

class AppSettings;

/// The model the window chats with, as QML sees it: a local file on the engine thread or a model
/// on an OpenAI-compatible server, its state, load progress, placement (VRAM budget) and context
/// length. Owns the engine thread; every engine call is a queued call to the EngineWorker on it.
/// The open conversation (ChatController) asks it for answers:
///
///     ModelSession session(nullptr);
///     session.loadModel(path);                 // modelReady() once it answers
///     const quint64 id = session.generate(turns, sampling);
///     connect(&session, &ModelSession::tokenGenerated, ...); // (id, text) until answerFinished
class ModelSession : public QObject
{
    Q_OBJECT
    QML_ELEMENT
    QML_SINGLETON

    Q_PROPERTY(State state READ state NOTIFY stateChanged)
    Q_PROPERTY(QString modelName READ modelName NOTIFY modelChanged)
    Q_PROPERTY(QString modelDescription READ modelDescription NOTIFY modelChanged)
    /// Where the model runs, one short line in the interface language ("GPU …: 30 of 32 layers").
    Q_PROPERTY(QString placementSummary READ placementSummary NOTIFY modelChanged)
    /// The summary with the budget and the engine's details, for a tooltip.
    Q_PROPERTY(QString placementDetails READ placementDetails NOTIFY modelChanged)
    /// Set when the model's own chat template could not be used and a built-in one stands in.
    Q_PROPERTY(QString chatTemplateNotice READ chatTemplateNotice NOTIFY modelChanged)
    /// The loaded model's chat template takes a reasoning setting (Qwen 3, gpt-oss): Chat
    /// Settings offers it.
    Q_PROPERTY(bool readsReasoning READ readsReasoning NOTIFY modelChanged)
    Q_PROPERTY(bool usesGpu READ usesGpu NOTIFY modelChanged)
    /// True while the chat uses a model on an OpenAI-compatible server instead of a local file.
    Q_PROPERTY(bool remote READ remote NOTIFY modelChanged)
    /// The remote server's base URL while remote is true.
    Q_PROPERTY(QString remoteUrl READ remoteUrl NOTIFY modelChanged)
    /// The running session's VRAM budget in GiB; < 0: automatic.
    Q_PROPERTY(double vramBudgetGiB READ vramBudgetGiB NOTIFY modelChanged)
    /// True while the loaded model is being placed again for a new budget (state is Loading).
    Q_PROPERTY(bool replacing READ replacing NOTIFY stateChanged)
    Q_PROPERTY(QString modelPath READ modelPath NOTIFY modelChanged)
    Q_PROPERTY(double loadProgress READ loadProgress NOTIFY loadProgressChanged)
    /// Why the last load, connection or re-placement failed; empty when it did not.
    Q_PROPERTY(QString errorText READ errorText NOTIFY errorTextChanged)
    Q_PROPERTY(int contextLength READ contextLength NOTIFY contextChanged)
    /// The context lengths Chat Settings offers for the loaded model (up to its trained context).
    Q_PROPERTY(QList<int> contextLengthChoices READ contextLengthChoices NOTIFY contextChanged)
    /// "f16" or "q8_0": how sessions store the conversation's keys and values (Chat Settings).
    Q_PROPERTY(QString kvCacheType READ kvCacheType NOTIFY contextChanged)
    /// What the loaded model's session really uses ("f16", "q8_0" or "f32"); empty without one.
    Q_PROPERTY(QString kvCacheTypeInUse READ kvCacheTypeInUse NOTIFY contextChanged)
    /// The speed of the last answer, in generated tokens per second.
    Q_PROPERTY(double lastTokensPerSecond READ lastTokensPerSecond NOTIFY lastTokensPerSecondChanged)
    /// How the loaded model's answers guess ahead (AppSettings::speculation): "", "lookup" or a
    /// draft model's path.
    Q_PROPERTY(QString speculation READ speculation NOTIFY speculationChanged)
    /// Why answers do not guess ahead as chosen (a draft model that cannot be used); empty when they do.
    Q_PROPERTY(QString speculationError READ speculationError NOTIFY speculationChanged)
    /// How the last answer's guesses went ("12 of 20 guessed tokens were right"); empty before one.
    Q_PROPERTY(QString speculationResult READ speculationResult NOTIFY speculationChanged)

public:
    enum class State {
        NoModel,
        Loading,
        Ready,
        Generating,
    };
    Q_ENUM(State)

    // No default arguments: Qt 6.4 prefers a default constructor over create(), and QML must
    // get the instance main() made.
    explicit ModelSession(QObject* parent);
    ~ModelSession() override;

    static ModelSession* create(QQmlEngine* qmlEngine, QJSEngine* jsEngine);
    static void setInstance(ModelSession* instance);

    /// Threads, the KV cache type and per-file budgets and context lengths; recent models are
    /// added to it. Not owned, may be null.
    void setSettings(AppSettings* settings);
    /// The device sessions use (SessionParams::deviceOverride), e.g. "emulated:<bytes>" for tests
    /// and demonstrations without a GPU; applies from the next load or re-placement.
    void setDeviceOverride(const QString& device);

    [[nodiscard]] State state() const { return m_state; }
    /// A model answers: a local one loaded, or a remote one connected.
    [[nodiscard]] bool hasModel() const { return m_usingRemote || !m_modelPath.isEmpty(); }
    [[nodiscard]] QString modelName() const { return m_modelName; }
    [[nodiscard]] QString modelDescription() const { return m_modelDescription; }
    /// The engine's own English report (logs, tests).
    [[nodiscard]] QString placementReport() const { return m_placement.report; }
    /// Where the loaded model runs, as the engine reports it.
    [[nodiscard]] const Placement& placement() const { return m_placement; }
    [[nodiscard]] QString placementSummary() const;
    [[nodiscard]] QString placementDetails() const;
    [[nodiscard]] QString chatTemplateNotice() const { return m_chatTemplateNotice; }
    [[nodiscard]] bool readsReasoning() const { return m_readsReasoning; }
    [[nodiscard]] bool usesGpu() const { return !m_usingRemote && m_placement.usesGpu(); }
    [[nodiscard]] QString modelPath() const { return m_modelPath; }
    [[nodiscard]] bool remote() const { return m_usingRemote; }
    [[nodiscard]] QString remoteUrl() const { return m_usingRemote ? m_remote.baseUrl().toString() : QString(); }
    /// The engine thread the window answers on; the API server shares it (and its one model).
    [[nodiscard]] const EngineThread& engine() const { return m_engine; }
    [[nodiscard]] double vramBudgetGiB() const { return m_vramBudgetGiB; }
    [[nodiscard]] bool replacing() const { return m_replacing; }
    [[nodiscard]] double loadProgress() const { return m_loadProgress; }
    [[nodiscard]] QString errorText() const { return m_errorText; }
    [[nodiscard]] int contextLength() const { return m_contextLength; }
    [[nodiscard]] QList<int> contextLengthChoices() const;
    [[nodiscard]] QString kvCacheType() const;
    [[nodiscard]] QString kvCacheTypeInUse() const { return m_kvCacheTypeInUse; }
    [[nodiscard]] double lastTokensPerSecond() const { return m_lastTokensPerSecond; }
    [[nodiscard]] QString speculation() const { return m_speculation; }
    [[nodiscard]] QString speculationError() const { return m_speculationError; }
    [[nodiscard]] QString speculationResult() const;

    Q_INVOKABLE void loadModel(const QString& path);
    Q_INVOKABLE void loadModelUrl(const QUrl& url);
    Q_INVOKABLE void cancelLoad();
    /// Lists the models of the OpenAI-compatible server at @p url: answered with remoteModelsListed().
    Q_INVOKABLE void listRemoteModels(const QString& url, const QString& apiKey);
    /// Chats with @p model on the server at @p url from now on (the local model is unloaded), once
    /// the server has answered; a server that cannot be reached leaves the current model in place.
    Q_INVOKABLE void connectRemote(const QString& url, const QString& apiKey, const QString& model);
    /// Places the loaded model again for @p budgetBytes of GPU memory (@p autoBudget: follow the
    /// free memory) without unloading it; the conversation stays. While an answer streams or a
    /// model loads, this waits until it is done. Without a model it does nothing: the VRAM panel
    /// has remembered the choice, and loadModel() uses it.
    Q_INVOKABLE void applyVramBudget(double budgetBytes, bool autoBudget);
    /// "8192 tokens (1 GiB)": a choice with the memory its KV cache takes.
    Q_INVOKABLE QString contextLengthLabel(int tokens) const;
    /// Starts a session of @p tokens of context for the loaded model, remembered for its file;
    /// the conversation stays. Waits, like applyVramBudget(), while an answer streams.
    Q_INVOKABLE void applyContextLength(int tokens);
    /// Stores @p name for every model and, with a local model loaded, starts a new session that
    /// uses it (the chat stays).
    Q_INVOKABLE void applyKvCacheType(const QString& name);
    /// Lets the loaded model's answers guess ahead as @p choice says (see speculation), remembered
    /// for its file; the next answer uses it.
    Q_INVOKABLE void applySpeculation(const QString& choice);

    /// Starts an answer to @p turns (state Generating until it ends); returns its request id,
    /// which every signal about it carries. Only while Ready. With @p answerStart the answer
    /// continues that text (Continue on a cut-off answer; local models only, as the chat API
    /// of remote servers has no way to ask for it: 0 there).
    quint64 generate(const QList<ChatTurn>& turns, const SamplingSettings& sampling, const QString& answerStart = {});
    /// Ends the answer @p requestId early; it finishes as stopped.
    void stop(quint64 requestId);
    /// Counts the tokens @p turns take with the loaded model: answered with contextMeasured().
    /// Remote models count theirs as they answer.
    void measureContext(qint64 conversationId, const QList<ChatTurn>& turns);

Q_SIGNALS:
    void stateChanged();
    void modelChanged();
    void loadProgressChanged();
    void errorTextChanged();
    void contextChanged();
    void lastTokensPerSecondChanged();
    void speculationChanged();
    /// A model was loaded or connected and answers.
    void modelReady();
    /// A re-placement ended; the placement report is current.
    void placementChanged();
    /// After listRemoteModels(): the server's models, or why there are none.
    void remoteModelsListed(const QStringList& models, const QString& errorText);

    // The running answer's progress, for the request id generate() returned.
    void tokenGenerated(quint64 requestId, const QString& text);
    void answerFinished(quint64 requestId, const hearth::app::AnswerStats& stats);
    void answerFailed(quint64 requestId, const QString& message);
    /// The tokens the answer's conversation takes so far.
    void contextUsed(quint64 requestId, int tokens);
    /// @p turns of the oldest turns did not fit the context and were left out of the prompt.
    void turnsLeftOut(quint64 requestId, int turns);
    /// After measureContext().
    void contextMeasured(qint64 conversationId, int tokens);

private:
    void setState(State state);
    void setErrorText(const QString& text);
    void onModelLoaded(const QString& name, const QString& description, int contextLength, const Placement& placement);
    void onModelLoadFailed(const QString& message);
    void onAnswerEnded(quint64 requestId);
    void onSessionReplaced(const Placement& placement, int contextLength, double budgetGiB, const QString& errorText);
    void startPendingReplacement();
    // Starts a new session for the loaded model with the budget it has (after a setting changed).
    void replaceSessionKeepingBudget();
    void onRemoteModelsListed(const QStringList& models, const QList<int>& contextLengths);
    void onRemoteListFailed(const QString& message);
    /// The loaded session's KV cache facts, after a load or a re-placement.
    void readCacheFacts();

    EngineThread m_engine;
    EngineWorker* m_worker = m_engine.worker(); ///< for connections and the thread-safe calls only
    hearth::openai::RemoteEngine m_remote;
    bool m_usingRemote = false;
    /// Set while connectRemote() waits for the server's model list.
    std::optional<QString> m_connectingModel;
    QPointer<AppSettings> m_settings;
    State m_state = State::NoModel;
    QString m_modelName;
    QString m_modelDescription;
    Placement m_placement;
    QString m_chatTemplateNotice;
    QString m_modelPath;
    QString m_loadingPath;
    double m_vramBudgetGiB = -1;
    int m_contextLength = 0;
    int m_trainedContextLength = 0; // of the loaded model
    bool m_readsReasoning = false;  // its chat template takes a reasoning setting
    quint64 m_kvBytesPerToken = 0;  // its session's KV cache per token of context
    quint64 m_kvFixedBytes = 0;     // and what its sliding-window layers keep whatever the length
    QString m_kvCacheTypeInUse;     // how its session stores the cache
    bool m_replacing = false;
    std::optional<double> m_pendingBudgetGiB; ///< an Apply that waits for the answer or load to end
    double m_loadProgress = 0;
    QString m_errorText;
    quint64 m_requestId = 0; ///< the newest answer's
    double m_lastTokensPerSecond = 0;
    QString m_speculation;
    QString m_speculationError;
    int m_lastDrafted = 0;  // the last answer's guessed tokens
    int m_lastAccepted = 0; // and of those, the right ones
};

} // namespace hearth::app
