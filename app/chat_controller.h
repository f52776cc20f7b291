// SPDX-License-Identifier: MIT
#pragma once

#include "conversation_list_model.h"
#include "engine_thread.h"
#include "message_model.h"
#include "remoteengine.h"
#include "sampling_settings.h"

#include <QElapsedTimer>
#include <QObject>
#include <QPointer>
#include <QThread>
#include <QUrl>
#include <QVariantMap>
#include <QtQml/qqmlregistration.h>

#include <memory>
#include <optional>

class QQmlEngine;
class QJSEngine;

namespace hearth {
class ChatStore;
}

namespace hearth::app {

class AppSettings;

/// The chat window's state as QML sees it: the loaded model, the conversations in the ChatStore,
/// the active branch of the open one and the engine's progress. Owns the engine thread; every
/// engine call is a queued call to the EngineWorker on it, and every streamed token goes to the
/// store as it arrives (the store batches the writes).
class ChatController : public QObject
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
    Q_PROPERTY(QString errorText READ errorText NOTIFY errorTextChanged)
    Q_PROPERTY(hearth::app::MessageModel* messages READ messages CONSTANT)
    Q_PROPERTY(hearth::app::ConversationListModel* conversations READ conversations CONSTANT)
    Q_PROPERTY(qint64 conversationId READ conversationId NOTIFY conversationChanged)
    Q_PROPERTY(QString conversationTitle READ conversationTitle NOTIFY conversationChanged)
    Q_PROPERTY(QString systemPrompt READ systemPrompt WRITE setSystemPrompt NOTIFY conversationChanged)
    /// The open chat's sampling: temperature, top_k, top_p, min_p, repeat_penalty, max_tokens, seed.
    Q_PROPERTY(QVariantMap sampling READ sampling WRITE setSampling NOTIFY conversationChanged)
    Q_PROPERTY(int maxTokens READ maxTokens WRITE setMaxTokens NOTIFY conversationChanged)
    Q_PROPERTY(int contextLength READ contextLength NOTIFY contextChanged)
    /// The context lengths Chat Settings offers for the loaded model (up to its trained context).
    Q_PROPERTY(QList<int> contextLengthChoices READ contextLengthChoices NOTIFY contextChanged)
    /// "f16" or "q8_0": how sessions store the conversation's keys and values (Chat Settings).
    Q_PROPERTY(QString kvCacheType READ kvCacheType NOTIFY contextChanged)
    /// What the loaded model's session really uses ("f16", "q8_0" or "f32"); empty without one.
    Q_PROPERTY(QString kvCacheTypeInUse READ kvCacheTypeInUse NOTIFY contextChanged)
    Q_PROPERTY(int contextUsed READ contextUsed NOTIFY contextChanged)
    /// Set when the last answer's prompt left the oldest turns out to fit the context.
    Q_PROPERTY(QString contextNote READ contextNote NOTIFY contextChanged)
    Q_PROPERTY(double lastTokensPerSecond READ lastTokensPerSecond NOTIFY answerCompleted)
    Q_PROPERTY(bool canUndoDelete READ canUndoDelete NOTIFY undoChanged)
    Q_PROPERTY(QString deletedTitle READ deletedTitle NOTIFY undoChanged)

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
    explicit ChatController(QObject* parent);
    ~ChatController() override;

    static ChatController* create(QQmlEngine* qmlEngine, QJSEngine* jsEngine);
    static void setInstance(ChatController* instance);

    /// Opens (or creates) the history database; without it chats are not kept.
    [[nodiscard]] bool openStore(const QString& path);
    [[nodiscard]] hearth::ChatStore* store() const { return m_store.get(); }
    /// Defaults for new chats, threads and recent models; not owned, may be null.
    void setSettings(AppSettings* settings);

    [[nodiscard]] State state() const { return m_state; }
    [[nodiscard]] QString modelName() const { return m_modelName; }
    [[nodiscard]] QString modelDescription() const { return m_modelDescription; }
    /// The engine's own English report (logs, tests).
    [[nodiscard]] QString placementReport() const { return m_placement.report; }
    /// Where the loaded model runs, as the engine reports it.
    [[nodiscard]] const Placement& placement() const { return m_placement; }
    [[nodiscard]] QString placementSummary() const;
    [[nodiscard]] QString placementDetails() const;
    [[nodiscard]] QString chatTemplateNotice() const { return m_chatTemplateNotice; }
    [[nodiscard]] QString contextNote() const { return m_contextNote; }
    [[nodiscard]] bool usesGpu() const { return !m_usingRemote && m_placement.usesGpu(); }
    [[nodiscard]] QString modelPath() const { return m_modelPath; }
    [[nodiscard]] bool remote() const { return m_usingRemote; }
    [[nodiscard]] QString remoteUrl() const { return m_usingRemote ? m_remote.baseUrl().toString() : QString(); }
    /// The engine thread the window answers on; the API server shares it (and its one model).
    [[nodiscard]] const EngineThread& engine() const { return m_engine; }
    [[nodiscard]] double vramBudgetGiB() const { return m_vramBudgetGiB; }
    [[nodiscard]] bool replacing() const { return m_replacing; }
    /// The device sessions use (SessionParams::deviceOverride), e.g. "emulated:<bytes>" for tests
    /// and demonstrations without a GPU; applies from the next load or re-placement.
    void setDeviceOverride(const QString& device);
    [[nodiscard]] double loadProgress() const { return m_loadProgress; }
    [[nodiscard]] QString errorText() const { return m_errorText; }
    [[nodiscard]] MessageModel* messages() { return &m_messages; }
    [[nodiscard]] ConversationListModel* conversations() { return &m_conversations; }
    [[nodiscard]] qint64 conversationId() const { return m_conversationId; }
    [[nodiscard]] QString conversationTitle() const { return m_title; }
    [[nodiscard]] QString systemPrompt() const { return m_systemPrompt; }
    void setSystemPrompt(const QString& prompt);
    [[nodiscard]] QVariantMap sampling() const { return m_sampling.toJson().toVariantMap(); }
    void setSampling(const QVariantMap& sampling);
    [[nodiscard]] int maxTokens() const { return m_sampling.maxTokens; }
    void setMaxTokens(int maxTokens);
    [[nodiscard]] int contextLength() const { return m_contextLength; }
    [[nodiscard]] int contextUsed() const { return m_contextUsed; }
    [[nodiscard]] QList<int> contextLengthChoices() const;
    /// "8192 tokens (1 GiB)": a choice with the memory its KV cache takes.
    Q_INVOKABLE QString contextLengthLabel(int tokens) const;
    /// Starts a session of @p tokens of context for the loaded model, remembered for its file;
    /// the conversation stays. Waits, like applyVramBudget(), while an answer streams.
    Q_INVOKABLE void applyContextLength(int tokens);
    [[nodiscard]] QString kvCacheType() const;
    [[nodiscard]] QString kvCacheTypeInUse() const { return m_kvCacheTypeInUse; }
    /// Stores @p name for every model and, with a local model loaded, starts a new session that
    /// uses it (the chat stays).
    Q_INVOKABLE void applyKvCacheType(const QString& name);
    [[nodiscard]] double lastTokensPerSecond() const { return m_lastTokensPerSecond; }
    [[nodiscard]] bool canUndoDelete() const { return m_deletedId != 0; }
    [[nodiscard]] QString deletedTitle() const { return m_deletedTitle; }

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
    /// Sends @p text as the user's next message. Ignored while loading or answering.
    Q_INVOKABLE void send(const QString& text);
    Q_INVOKABLE void stop();
    /// Answers again the question before the answer in @p row; the old answer stays as a sibling.
    Q_INVOKABLE void regenerate(int row);
    /// Replaces the user message in @p row with @p text on a new branch and answers it.
    Q_INVOKABLE void editAndResend(int row, const QString& text);
    /// Shows the previous (-1) or next (+1) alternative of the message in @p row.
    Q_INVOKABLE void switchSibling(int row, int delta);
    Q_INVOKABLE void copyMessage(int row);
    /// Deletes the message at @p row only; the messages after it stay (to free context, or to
    /// drop a wrong turn).
    Q_INVOKABLE bool deleteMessage(int row);
    /// Puts @p text on the clipboard (code blocks' copy buttons).
    Q_INVOKABLE void copyText(const QString& text);
    /// Copies the newest answer; false when there is none.
    Q_INVOKABLE bool copyLastAnswer();

    /// An empty chat; it is stored once its first message is sent.
    Q_INVOKABLE void newConversation();
    Q_INVOKABLE void openConversation(qint64 id);
    Q_INVOKABLE bool renameConversation(qint64 id, const QString& title);
    /// Moves a chat to the bin; undoDelete() brings back the last one.
    Q_INVOKABLE bool deleteConversation(qint64 id);
    Q_INVOKABLE bool undoDelete();
    /// Writes @p id as "markdown" or "json" to @p file; returns the path written, or an empty
    /// string (and errorText says why).
    Q_INVOKABLE QString exportConversation(qint64 id, const QUrl& file, const QString& format);
    /// Where an export of the chat titled @p title goes unless the user says otherwise: the
    /// title made safe as a file name, with @p suffix, in the Documents folder.
    Q_INVOKABLE static QUrl suggestedExportFile(const QString& title, const QString& suffix);
    Q_INVOKABLE void setSearchText(const QString& text);

Q_SIGNALS:
    void stateChanged();
    void modelChanged();
    void loadProgressChanged();
    void errorTextChanged();
    void conversationChanged();
    void contextChanged();
    void undoChanged();
    /// Each streamed piece of the running answer (logs, the test hook in main()).
    void answerToken(const QString& text);
    /// An answer ended (finished, stopped or failed) and its row is final in the store.
    void answerCompleted(const QString& answer);
    void modelReady();
    /// After listRemoteModels(): the server's models, or why there are none.
    void remoteModelsListed(const QStringList& models, const QString& errorText);
    /// A re-placement ended; the placement report is current.
    void placementChanged();

private:
    void setState(State state);
    void setErrorText(const QString& text);
    void reloadMessages();
    /// The system prompt and the open branch, as the model sees them.
    [[nodiscard]] QList<ChatTurn> openTurns() const;
    /// Sets the meter to the open chat's own use: its tokens, counted on the worker.
    void measureOpenConversation();
    [[nodiscard]] bool ensureConversation(const QString& firstMessage);
    /// Starts an answer below the last row of the view.
    void startAnswer();
    void onToken(quint64 requestId, const QString& text);
    void onFinished(quint64 requestId, const AnswerStats& stats);
    /// A message's text as the store has it, streamed pieces not yet written included: the one
    /// copy of a streaming answer besides the view's.
    [[nodiscard]] QString storedText(qint64 messageId) const;
    void onFailed(quint64 requestId, const QString& message);
    void onSessionReplaced(const Placement& placement, int contextLength, double budgetGiB, const QString& errorText);
    void startPendingReplacement();
    // Starts a new session for the loaded model with the budget it has (after a setting changed).
    void replaceSessionKeepingBudget();
    void onRemoteModelsListed(const QStringList& models, const QList<int>& contextLengths);
    void onRemoteListFailed(const QString& message);
    void refreshSiblings(int row);
    /// A model answers: a local one loaded, or a remote one connected.
    [[nodiscard]] bool hasModel() const { return m_usingRemote || !m_modelPath.isEmpty(); }
    [[nodiscard]] SamplingSettings defaultSampling() const;

    EngineThread m_engine;
    EngineWorker* m_worker = m_engine.worker(); ///< for connections and stop() only
    hearth::openai::RemoteEngine m_remote;
    bool m_usingRemote = false;
    /// Set while connectRemote() waits for the server's model list.
    std::optional<QString> m_connectingModel;
    std::unique_ptr<hearth::ChatStore> m_store;
    QPointer<AppSettings> m_settings;
    MessageModel m_messages;
    ConversationListModel m_conversations;
    State m_state = State::NoModel;
    QString m_modelName;
    QString m_modelDescription;
    Placement m_placement;
    QString m_chatTemplateNotice;
    QString m_contextNote;
    QString m_modelPath;
    QString m_loadingPath;
    double m_vramBudgetGiB = -1;
    int m_trainedContextLength = 0; // of the loaded model
    quint64 m_kvBytesPerToken = 0;  // its session's KV cache per token of context
    quint64 m_kvFixedBytes = 0;     // and what its sliding-window layers keep whatever the length
    QString m_kvCacheTypeInUse;     // how its session stores the cache
    bool m_replacing = false;
    std::optional<double> m_pendingBudgetGiB; ///< an Apply that waits for the answer or load to end
    double m_loadProgress = 0;
    QString m_errorText;

    qint64 m_conversationId = 0;
    QString m_title;
    QString m_systemPrompt;
    SamplingSettings m_sampling;
    int m_contextLength = 0;
    int m_contextUsed = 0;
    double m_lastTokensPerSecond = 0;

    // The running answer.
    quint64 m_requestId = 0;
    qint64 m_answerId = 0;
    qint64 m_answerConversation = 0;
    QElapsedTimer m_sinceRequest;
    double m_firstTokenMs = 0;

    qint64 m_deletedId = 0;
    QString m_deletedTitle;
};

} // namespace hearth::app
