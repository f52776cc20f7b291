// SPDX-License-Identifier: MIT
#include "chat_controller.h"

#include "app_settings.h"
#include "chatstore.h"
#include "languagechangewatcher.h"
#include "logging.h"
#include "message_blocks.h"
#include "reasoning.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QHash>
#include <QJSEngine>
#include <QJsonObject>
#include <QLocale>
#include <QQmlExtensionPlugin>
#include <QRegularExpression>
#include <QSaveFile>
#include <QStandardPaths>
#include <QTimer>

#include <algorithm>
#include <cmath>

// The Models page's QML module (Hearth.Models) comes with the chat's: every program that links
// the controller (the app, the window tests) can load the Main.qml that shows it.
Q_IMPORT_QML_PLUGIN(Hearth_ModelsPlugin)

namespace hearth::app {

namespace {
QPointer<ChatController> s_instance;

/// A title from the first question: its first line, shortened on a word boundary.
QString titleFrom(const QString& text)
{
    QString title = text.simplified();
    constexpr int MaxLength = 60;
    if (title.size() > MaxLength) {
        title.truncate(MaxLength);
        const qsizetype space = title.lastIndexOf(QLatin1Char(' '));
        if (space > MaxLength / 2)
            title.truncate(space);
        title += QChar(0x2026);
    }
    return title;
}

MessageModel::Message toRow(const hearth::StoredMessage& message)
{
    MessageModel::Message row;
    row.id = message.id;
    row.role = message.role;
    row.content = message.content;
    row.streaming = false; // shown rows are never live after a reload; the live one is kept apart
    row.tokensPerSecond = message.stats.tokensPerSecond;
    row.tokenCount = message.stats.tokens;
    row.timeToFirstTokenMs = message.stats.timeToFirstTokenMs;
    row.state = hearth::messageStateName(message.state);
    row.errorText = message.errorText;
    return row;
}
} // namespace

ChatController::ChatController(QObject* parent)
    : QObject(parent)
    , m_store(std::make_unique<hearth::ChatStore>())
{
    connect(m_worker, &EngineWorker::loadProgress, this, [this](double fraction) {
        m_loadProgress = fraction;
        Q_EMIT loadProgressChanged();
    });
    connect(m_worker, &EngineWorker::modelLoaded, this,
        [this](const QString& name, const QString& description, int contextLength, const Placement& placement) {
            m_modelName = name;
            m_modelDescription = description;
            m_placement = placement;
            m_chatTemplateNotice.clear();
            m_modelPath = m_loadingPath;
            m_contextLength = contextLength;
            const LoadedModel loaded = m_worker->loadedModel();
            m_trainedContextLength = loaded.trainedContextLength;
            m_kvBytesPerToken = loaded.kvBytesPerToken;
            m_kvFixedBytes = loaded.kvFixedBytes;
            m_kvCacheTypeInUse = loaded.kvCacheType;
            Q_EMIT modelChanged();
            Q_EMIT contextChanged(); // the meter and Chat Settings compare with the new length
            if (m_settings)
                m_settings->addRecentModel(m_modelPath);
            setErrorText({});
            setState(State::Ready);
            measureOpenConversation(); // with this model's tokenizer and template
            Q_EMIT modelReady();
        });
    connect(m_worker, &EngineWorker::modelLoadFailed, this, [this](const QString& message) {
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
    });
    connect(m_worker, &EngineWorker::chatTemplateReplaced, this, [this](const QString& reason, const QString& builtinName) {
        qCWarning(lcApp) << "chat template replaced:" << reason;
        m_chatTemplateNotice = tr("This model's own chat template cannot be used (%1), so Hearth formats the chat in "
                                  "its built-in “%2” style; answers may be less accurate.")
                                   .arg(reason, builtinName);
        Q_EMIT modelChanged();
    });
    connect(m_worker, &EngineWorker::turnsLeftOut, this, [this](quint64 requestId, int turns) {
        if (requestId != m_requestId)
            return;
        m_contextNote = tr("%n earlier message(s) no longer fit the model's context and were left out of this answer.", "", turns);
        Q_EMIT contextChanged();
    });
    connect(m_worker, &EngineWorker::sessionReplaced, this, &ChatController::onSessionReplaced);
    connect(m_worker, &EngineWorker::tokenGenerated, this, &ChatController::onToken);
    // The meter shows the open chat's use: live while it answers, measured when it is opened.
    connect(m_worker, &EngineWorker::contextUsed, this, [this](quint64 requestId, int tokens) {
        if (requestId != m_requestId || m_answerConversation != m_conversationId || tokens == m_contextUsed)
            return;
        m_contextUsed = tokens;
        Q_EMIT contextChanged();
    });
    connect(m_worker, &EngineWorker::contextMeasured, this, [this](qint64 conversationId, int tokens) {
        if (conversationId != m_conversationId || m_state == State::Generating)
            return;
        m_contextUsed = tokens;
        Q_EMIT contextChanged();
    });
    connect(m_worker, &EngineWorker::answerFinished, this, &ChatController::onFinished);
    connect(m_worker, &EngineWorker::answerFailed, this, &ChatController::onFailed);
    // A remote server's answers take the same way into the chat and the store.
    connect(&m_remote, &hearth::openai::RemoteEngine::tokenGenerated, this, &ChatController::onToken);
    connect(&m_remote, &hearth::openai::RemoteEngine::answerFinished, this, &ChatController::onFinished);
    connect(&m_remote, &hearth::openai::RemoteEngine::answerFailed, this, &ChatController::onFailed);
    connect(&m_remote, &hearth::openai::RemoteEngine::contextUsed, this, [this](quint64 requestId, int tokens) {
        if (requestId != m_requestId || m_answerConversation != m_conversationId)
            return;
        m_contextUsed = tokens;
        Q_EMIT contextChanged();
    });
    connect(&m_remote, &hearth::openai::RemoteEngine::modelsListed, this, &ChatController::onRemoteModelsListed);
    connect(&m_remote, &hearth::openai::RemoteEngine::listFailed, this, &ChatController::onRemoteListFailed);
    // The placement and the remote server's lines are worded here, in the interface language.
    connect(new hearth::models::LanguageChangeWatcher(this), &hearth::models::LanguageChangeWatcher::languageChanged, this,
        &ChatController::modelChanged);
    connect(m_store.get(), &hearth::ChatStore::errorOccurred, this, &ChatController::setErrorText);
    connect(m_store.get(), &hearth::ChatStore::conversationsChanged, &m_conversations,
        &ConversationListModel::refresh);
}

ChatController::~ChatController()
{
    m_worker->stopAll();
    m_worker->cancelLoad();
    if (m_answerId != 0)
        m_store->markError(m_answerId, tr("The application was closed while answering."));
    m_store->close();
}

ChatController* ChatController::create(QQmlEngine*, QJSEngine*)
{
    if (s_instance) {
        QJSEngine::setObjectOwnership(s_instance, QJSEngine::CppOwnership);
        return s_instance;
    }
    return new ChatController(nullptr);
}

void ChatController::setInstance(ChatController* instance)
{
    s_instance = instance;
}

bool ChatController::openStore(const QString& path)
{
    if (!m_store->open(path)) {
        setErrorText(m_store->lastError());
        return false;
    }
    // The bin keeps deleted chats for a month, long enough to change one's mind.
    if (!m_store->isReadOnly())
        m_store->purgeDeletedConversations(QDateTime::currentDateTimeUtc().addDays(-30));
    m_conversations.setStore(m_store.get());
    return true;
}

void ChatController::setSettings(AppSettings* settings)
{
    m_settings = settings;
    m_sampling = defaultSampling();
    m_systemPrompt = settings ? settings->systemPrompt() : QString();
    if (settings) {
        m_engine.post([threads = settings->threads()](EngineWorker& worker) { worker.setThreads(threads); });
        connect(settings, &AppSettings::threadsChanged, this, [this] {
            m_engine.post([threads = m_settings->threads()](EngineWorker& worker) { worker.setThreads(threads); });
        });
    }
    Q_EMIT conversationChanged();
}

SamplingSettings ChatController::defaultSampling() const
{
    return m_settings ? m_settings->defaultSampling() : SamplingSettings {};
}

void ChatController::setSystemPrompt(const QString& prompt)
{
    if (prompt == m_systemPrompt)
        return;
    m_systemPrompt = prompt;
    if (m_conversationId != 0)
        m_store->setSystemPrompt(m_conversationId, prompt);
    Q_EMIT conversationChanged();
}

void ChatController::setSampling(const QVariantMap& sampling)
{
    const SamplingSettings settings = SamplingSettings::fromJson(QJsonObject::fromVariantMap(sampling), m_sampling);
    if (settings.toJson() == m_sampling.toJson())
        return;
    m_sampling = settings;
    if (m_conversationId != 0)
        m_store->setSamplingSettings(m_conversationId, m_sampling.toJson());
    Q_EMIT conversationChanged();
}

void ChatController::setMaxTokens(int maxTokens)
{
    QVariantMap map = sampling();
    map.insert(QStringLiteral("max_tokens"), maxTokens);
    setSampling(map);
}

void ChatController::loadModel(const QString& path)
{
    if (m_state == State::Loading || m_state == State::Generating || path.isEmpty())
        return;
    m_loadingPath = path;
    m_usingRemote = false;
    m_pendingBudgetGiB.reset();
    // The budget the VRAM panel remembered for this file, else automatic.
    m_vramBudgetGiB = m_settings ? m_settings->vramBudgetGiB(path) : -1.0;
    const int tokens = m_settings ? m_settings->contextLength(path) : 0; // Chat Settings' choices
    m_engine.post([gib = m_vramBudgetGiB, tokens, kvCache = kvCacheType()](EngineWorker& worker) {
        worker.setVramBudget(gib);
        worker.setContextLength(tokens);
        worker.setKvCacheType(kvCache);
    });
    m_trainedContextLength = 0;
    m_kvCacheTypeInUse.clear();
    m_modelName.clear();
    m_modelDescription.clear();
    m_modelPath.clear();
    m_contextLength = 0;
    m_contextUsed = 0;
    m_loadProgress = 0;
    Q_EMIT modelChanged();
    Q_EMIT contextChanged();
    Q_EMIT loadProgressChanged();
    setErrorText({});
    setState(State::Loading);
    m_engine.post([path](EngineWorker& worker) { worker.loadModel(path); });
}

QString ChatController::placementSummary() const
{
    if (m_usingRemote)
        return tr("Remote: %1").arg(m_remote.baseUrl().host());
    return m_placement.summary();
}

QString ChatController::placementDetails() const
{
    if (m_usingRemote)
        return tr("Remote: the model runs on %1, not on this computer.").arg(m_remote.baseUrl().toString());
    return m_placement.details();
}

void ChatController::listRemoteModels(const QString& url, const QString& apiKey)
{
    m_remote.listModels(hearth::openai::RemoteEngine::normalizedBaseUrl(url), apiKey);
}

void ChatController::connectRemote(const QString& url, const QString& apiKey, const QString& model)
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

void ChatController::onRemoteModelsListed(const QStringList& models, const QList<int>& contextLengths)
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
    m_contextUsed = 0;
    Q_EMIT modelChanged();
    Q_EMIT contextChanged();
    setState(State::Ready);
    Q_EMIT modelReady();
}

void ChatController::onRemoteListFailed(const QString& message)
{
    if (!m_connectingModel) {
        Q_EMIT remoteModelsListed({}, message);
        return;
    }
    m_connectingModel.reset();
    setErrorText(message);
    setState(hasModel() ? State::Ready : State::NoModel);
}

void ChatController::loadModelUrl(const QUrl& url)
{
    loadModel(url.isLocalFile() ? url.toLocalFile() : url.toString());
}

void ChatController::cancelLoad()
{
    m_worker->cancelLoad();
}

void ChatController::setDeviceOverride(const QString& device)
{
    m_engine.post([device](EngineWorker& worker) { worker.setDeviceOverride(device); });
}

void ChatController::applyVramBudget(double budgetBytes, bool autoBudget)
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

QList<int> ChatController::contextLengthChoices() const
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

QString ChatController::contextLengthLabel(int tokens) const
{
    const QString count = tr("%n token(s)", nullptr, tokens);
    if (m_kvBytesPerToken == 0)
        return count;
    const qint64 bytes = qint64(m_kvFixedBytes + m_kvBytesPerToken * quint64(tokens));
    return tr("%1 (%2 of memory)").arg(count, QLocale().formattedDataSize(bytes, 1, QLocale::DataSizeTraditionalFormat));
}

void ChatController::applyContextLength(int tokens)
{
    if (m_state == State::NoModel || m_usingRemote || tokens <= 0 || tokens == m_contextLength)
        return;
    if (m_settings)
        m_settings->setContextLength(m_modelPath, tokens);
    m_engine.post([tokens](EngineWorker& worker) { worker.setContextLength(tokens); });
    replaceSessionKeepingBudget(); // the same budget, the new length
}

void ChatController::replaceSessionKeepingBudget()
{
    // A new session, as for a new VRAM budget: the budget stays, unless one is already pending.
    if (!m_pendingBudgetGiB)
        m_pendingBudgetGiB = m_vramBudgetGiB;
    if (m_state == State::Ready)
        startPendingReplacement();
}

QString ChatController::kvCacheType() const
{
    return m_settings ? m_settings->kvCacheType() : QStringLiteral("f16");
}

void ChatController::applyKvCacheType(const QString& name)
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

void ChatController::startPendingReplacement()
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
    m_engine.post([gib](EngineWorker& worker) { worker.replaceSession(gib); });
}

void ChatController::onSessionReplaced(
    const Placement& placement, int contextLength, double budgetGiB, const QString& errorText)
{
    m_replacing = false;
    m_placement = placement;
    m_vramBudgetGiB = budgetGiB;
    if (contextLength > 0)
        m_contextLength = contextLength;
    const LoadedModel loaded = m_worker->loadedModel();
    m_kvBytesPerToken = loaded.kvBytesPerToken;
    m_kvFixedBytes = loaded.kvFixedBytes;
    m_kvCacheTypeInUse = loaded.kvCacheType;
    Q_EMIT modelChanged();
    Q_EMIT contextChanged();
    if (!errorText.isEmpty())
        qCWarning(lcApp) << errorText;
    setErrorText(errorText);
    setState(hasModel() ? State::Ready : State::NoModel);
    Q_EMIT placementChanged();
}

bool ChatController::ensureConversation(const QString& firstMessage)
{
    if (m_conversationId != 0)
        return true;
    const auto id = m_store->createConversation(titleFrom(firstMessage), m_systemPrompt, m_modelPath, m_sampling.toJson());
    if (!id) {
        setErrorText(m_store->lastError());
        return false;
    }
    m_conversationId = *id;
    m_title = titleFrom(firstMessage);
    Q_EMIT conversationChanged();
    return true;
}

void ChatController::send(const QString& text)
{
    const QString prompt = text.trimmed();
    if (m_state != State::Ready || prompt.isEmpty())
        return;
    setErrorText({});
    if (!ensureConversation(prompt))
        return;
    const qint64 parent = m_messages.rowCount() > 0 ? m_messages.at(m_messages.rowCount() - 1).id : 0;
    const auto id = m_store->addMessage(m_conversationId, parent, QStringLiteral("user"), prompt);
    if (!id) {
        setErrorText(m_store->lastError());
        return;
    }
    MessageModel::Message row;
    row.id = *id;
    row.role = QStringLiteral("user");
    row.content = prompt;
    m_messages.append(row);
    refreshSiblings(m_messages.rowCount() - 1);
    startAnswer();
}

void ChatController::startAnswer()
{
    if (!m_modelPath.isEmpty())
        m_store->setModelPath(m_conversationId, m_modelPath);
    const qint64 parent = m_messages.rowCount() > 0 ? m_messages.at(m_messages.rowCount() - 1).id : 0;
    const auto answerId = m_store->beginAssistantMessage(m_conversationId, parent, m_modelName);
    if (!answerId) {
        setErrorText(m_store->lastError());
        return;
    }

    const QList<ChatTurn> turns = openTurns();

    MessageModel::Message answer;
    answer.id = *answerId;
    answer.role = QStringLiteral("assistant");
    answer.streaming = true;
    answer.state = QStringLiteral("streaming");
    m_messages.append(answer);
    refreshSiblings(m_messages.rowCount() - 1);

    m_answerId = *answerId;
    m_answerConversation = m_conversationId;
    m_firstTokenMs = 0;
    m_sinceRequest.start();
    ++m_requestId;
    if (!m_contextNote.isEmpty()) {
        m_contextNote.clear(); // the worker says again if this answer leaves turns out too
        Q_EMIT contextChanged();
    }
    setState(State::Generating);
    if (m_usingRemote) {
        // Servers refuse a max_tokens beyond their model's context.
        SamplingSettings sampling = m_sampling;
        if (m_contextLength > 0)
            sampling.maxTokens = qMin(sampling.maxTokens, m_contextLength);
        m_remote.generate(m_requestId, turns, sampling);
        return;
    }
    m_engine.post([id = m_requestId, turns, sampling = m_sampling](EngineWorker& worker) {
        worker.generate(id, turns, sampling);
    });
}

void ChatController::onToken(quint64 requestId, const QString& text)
{
    if (requestId != m_requestId || m_answerId == 0)
        return;
    if (m_firstTokenMs == 0)
        m_firstTokenMs = double(m_sinceRequest.nsecsElapsed()) / 1e6;
    m_store->appendToken(m_answerId, text);
    if (m_answerConversation == m_conversationId)
        m_messages.appendToContent(m_messages.rowOfId(m_answerId), text);
    Q_EMIT answerToken(text);
}

void ChatController::onFinished(quint64 requestId, const AnswerStats& stats)
{
    if (requestId != m_requestId || m_answerId == 0)
        return;
    hearth::StoredAnswerStats stored;
    stored.tokens = stats.generatedTokens;
    stored.tokensPerSecond = stats.tokensPerSecond();
    stored.timeToFirstTokenMs = m_firstTokenMs > 0 ? m_firstTokenMs : stats.timeToFirstTokenMs;
    stored.model = m_modelName;
    m_store->finishMessage(m_answerId, stored, stats.stopped);
    if (m_answerConversation == m_conversationId) {
        m_messages.finish(m_messages.rowOfId(m_answerId), stored.tokensPerSecond, stored.tokens,
            stored.timeToFirstTokenMs, stats.stopped ? QStringLiteral("stopped") : QStringLiteral("complete"));
    }
    m_lastTokensPerSecond = stored.tokensPerSecond;
    if (m_answerConversation == m_conversationId) {
        m_contextUsed = stats.contextUsed;
        Q_EMIT contextChanged();
    }
    const QString answer = storedText(m_answerId);
    m_answerId = 0;
    setState(State::Ready);
    Q_EMIT answerCompleted(answer);
}

void ChatController::onFailed(quint64 requestId, const QString& message)
{
    if (requestId != m_requestId || m_answerId == 0)
        return;
    m_store->markError(m_answerId, message);
    if (m_answerConversation == m_conversationId)
        m_messages.finish(m_messages.rowOfId(m_answerId), 0, 0, 0, QStringLiteral("error"), message);
    const QString answer = storedText(m_answerId);
    m_answerId = 0;
    setErrorText(message);
    setState(hasModel() ? State::Ready : State::NoModel);
    Q_EMIT answerCompleted(answer);
}

QString ChatController::storedText(qint64 messageId) const
{
    const std::optional<hearth::StoredMessage> message = m_store->message(messageId);
    return message ? message->content : QString();
}

void ChatController::stop()
{
    if (m_usingRemote)
        m_remote.stop(m_requestId);
    else
        m_worker->stop(m_requestId);
}

void ChatController::regenerate(int row)
{
    if (m_state != State::Ready || row < 0 || row >= m_messages.rowCount()
        || m_messages.at(row).role != QLatin1String("assistant"))
        return;
    setErrorText({});
    // The new answer hangs below the same question; the old one stays as its sibling.
    m_messages.truncate(row);
    startAnswer();
}

void ChatController::editAndResend(int row, const QString& text)
{
    const QString edited = text.trimmed();
    if (m_state != State::Ready || edited.isEmpty() || row < 0 || row >= m_messages.rowCount()
        || m_messages.at(row).role != QLatin1String("user"))
        return;
    setErrorText({});
    const qint64 parent = row > 0 ? m_messages.at(row - 1).id : 0;
    const auto id = m_store->addMessage(m_conversationId, parent, QStringLiteral("user"), edited);
    if (!id) {
        setErrorText(m_store->lastError());
        return;
    }
    m_messages.truncate(row);
    MessageModel::Message message;
    message.id = *id;
    message.role = QStringLiteral("user");
    message.content = edited;
    m_messages.append(message);
    refreshSiblings(row);
    startAnswer();
}

void ChatController::switchSibling(int row, int delta)
{
    if (m_state == State::Generating || row < 0 || row >= m_messages.rowCount())
        return;
    const hearth::SiblingInfo siblings = m_store->siblings(m_messages.at(row).id);
    const int target = siblings.index + delta;
    if (target < 0 || target >= siblings.count())
        return;
    if (m_store->switchBranch(siblings.ids.at(target)))
        reloadMessages();
}

void ChatController::refreshSiblings(int row)
{
    if (row < 0 || row >= m_messages.rowCount())
        return;
    const hearth::SiblingInfo siblings = m_store->siblings(m_messages.at(row).id);
    m_messages.setSiblings(row, qMax(0, siblings.index), qMax(1, siblings.count()));
}

bool ChatController::deleteMessage(int row)
{
    if (m_state == State::Generating || row < 0 || row >= m_messages.rowCount())
        return false;
    if (!m_store->deleteMessage(m_messages.at(row).id, true)) {
        setErrorText(m_store->lastError());
        return false;
    }
    reloadMessages();
    measureOpenConversation();
    return true;
}

void ChatController::copyMessage(int row)
{
    // A reasoning model's answer is copied without its thinking.
    if (row < 0 || row >= m_messages.rowCount())
        return;
    const auto& message = m_messages.at(row);
    MessageBlocks::copyToClipboard(
        message.role == QLatin1String("assistant") ? ReasoningParts::split(message.content).answer : message.content);
}

void ChatController::copyText(const QString& text)
{
    MessageBlocks::copyToClipboard(text);
}

bool ChatController::copyLastAnswer()
{
    for (int row = m_messages.rowCount() - 1; row >= 0; --row) {
        if (m_messages.at(row).role == QLatin1String("assistant")) {
            copyMessage(row);
            return true;
        }
    }
    return false;
}

void ChatController::newConversation()
{
    m_contextNote.clear();
    m_conversationId = 0;
    m_title.clear();
    m_systemPrompt = m_settings ? m_settings->systemPrompt() : QString();
    m_sampling = defaultSampling();
    m_messages.clear();
    Q_EMIT conversationChanged();
    measureOpenConversation();
}

void ChatController::openConversation(qint64 id)
{
    if (id == m_conversationId)
        return;
    const auto conversation = m_store->conversation(id);
    if (!conversation || conversation->deleted)
        return;
    m_contextNote.clear();
    m_conversationId = id;
    m_title = conversation->title;
    m_systemPrompt = conversation->systemPrompt;
    m_sampling = SamplingSettings::fromJson(conversation->sampling, defaultSampling());
    reloadMessages();
    Q_EMIT conversationChanged();
    // The chat's own model, when it is another file that is still there.
    if (!conversation->modelPath.isEmpty() && conversation->modelPath != m_modelPath
        && (m_state == State::Ready || m_state == State::NoModel) && QFileInfo::exists(conversation->modelPath))
        loadModel(conversation->modelPath);
}

QList<ChatTurn> ChatController::openTurns() const
{
    QList<ChatTurn> turns;
    turns.reserve(m_messages.rowCount() + 1);
    turns.append({ QStringLiteral("system"), m_systemPrompt });
    // Earlier answers go back without their thinking, as reasoning models' templates expect
    // (Qwen 3's drops it itself; templates that do not would show the model its old thoughts).
    for (int row = 0; row < m_messages.rowCount(); ++row) {
        const auto& message = m_messages.at(row);
        const bool answer = message.role == QLatin1String("assistant");
        turns.append({ message.role, answer ? ReasoningParts::split(message.content).answer : message.content });
    }
    return turns;
}

void ChatController::measureOpenConversation()
{
    // Never another chat's count while the worker counts this one.
    if (m_contextUsed != 0) {
        m_contextUsed = 0;
        Q_EMIT contextChanged();
    }
    if (m_modelPath.isEmpty())
        return; // no local model (a remote one counts its tokens as it answers)
    m_engine.post([id = m_conversationId, turns = openTurns()](EngineWorker& worker) { worker.measureContext(id, turns); });
}

void ChatController::reloadMessages()
{
    QList<MessageModel::Message> rows;
    if (m_conversationId != 0) {
        const QList<hearth::StoredMessage> path = m_store->activePath(m_conversationId);
        // One query for every branch instead of one per message: long chats open quickly.
        QHash<qint64, QList<qint64>> children;
        for (const hearth::StoredMessage& message : m_store->allMessages(m_conversationId))
            children[message.parentId].append(message.id);
        rows.reserve(path.size());
        for (const hearth::StoredMessage& message : path) {
            MessageModel::Message row = toRow(message);
            const QList<qint64>& siblings = children.value(message.parentId);
            row.siblingCount = qMax(1, int(siblings.size()));
            row.siblingIndex = qMax(0, int(siblings.indexOf(message.id)));
            row.streaming = message.id == m_answerId; // its text so far comes with it
            rows.append(row);
        }
    }
    m_messages.setMessages(rows);
    if (m_state != State::Generating)
        measureOpenConversation();
}

bool ChatController::renameConversation(qint64 id, const QString& title)
{
    const QString name = title.simplified();
    if (name.isEmpty() || !m_store->renameConversation(id, name))
        return false;
    if (id == m_conversationId) {
        m_title = name;
        Q_EMIT conversationChanged();
    }
    return true;
}

bool ChatController::deleteConversation(qint64 id)
{
    if (id == m_answerConversation && m_answerId != 0)
        return false; // still answering there; stop first
    const auto conversation = m_store->conversation(id);
    if (!conversation || !m_store->deleteConversation(id))
        return false;
    m_deletedId = id;
    m_deletedTitle = conversation->title;
    Q_EMIT undoChanged();
    if (id == m_conversationId)
        newConversation();
    return true;
}

bool ChatController::undoDelete()
{
    if (m_deletedId == 0)
        return false;
    const qint64 id = m_deletedId;
    m_deletedId = 0;
    m_deletedTitle.clear();
    Q_EMIT undoChanged();
    if (!m_store->restoreConversation(id))
        return false;
    openConversation(id);
    return true;
}

QString ChatController::exportConversation(qint64 id, const QUrl& file, const QString& format)
{
    const QString path = file.isLocalFile() ? file.toLocalFile() : file.toString();
    QByteArray bytes;
    if (format == QLatin1String("json")) {
        const auto json = m_store->exportJson(id);
        if (!json)
            return {};
        bytes = *json;
    } else {
        const auto markdown = m_store->exportMarkdown(id);
        if (!markdown)
            return {};
        bytes = markdown->toUtf8();
    }
    QSaveFile out(path);
    if (!out.open(QIODevice::WriteOnly) || out.write(bytes) != bytes.size() || !out.commit()) {
        setErrorText(tr("Could not write %1: %2").arg(path, out.errorString()));
        return {};
    }
    return QDir::toNativeSeparators(path);
}

QUrl ChatController::suggestedExportFile(const QString& title, const QString& suffix)
{
    // Characters no file system takes (Windows' set, the strictest), runs of them folded.
    static const QRegularExpression unsafe(QStringLiteral(R"([\\/:*?"<>|\x00-\x1f]+)"));
    QString name = title.simplified().replace(unsafe, QStringLiteral(" ")).simplified();
    while (name.startsWith(QLatin1Char('.')) || name.startsWith(QLatin1Char(' ')))
        name.remove(0, 1); // no hidden files, no ".." left of "../"
    name.truncate(80);
    if (name.trimmed().isEmpty())
        name = tr("Chat", "file name of an exported chat without a title");
    QString folder = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
    if (folder.isEmpty() || !QDir(folder).exists())
        folder = QStandardPaths::writableLocation(QStandardPaths::HomeLocation);
    return QUrl::fromLocalFile(QDir(folder).filePath(name.trimmed() + QLatin1Char('.') + suffix));
}

void ChatController::setSearchText(const QString& text)
{
    m_conversations.setSearchText(text);
}

void ChatController::setState(State state)
{
    if (state == m_state)
        return;
    m_state = state;
    Q_EMIT stateChanged();
    // An Apply made while answering or loading takes effect once the engine is free.
    if (state == State::Ready && m_pendingBudgetGiB)
        QTimer::singleShot(0, this, &ChatController::startPendingReplacement);
}

void ChatController::setErrorText(const QString& text)
{
    if (text == m_errorText)
        return;
    m_errorText = text;
    Q_EMIT errorTextChanged();
}

} // namespace hearth::app
