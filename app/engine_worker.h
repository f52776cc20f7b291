// SPDX-License-Identifier: MIT
#pragma once

#include <QObject>
#include <QString>

#include <atomic>
#include <memory>
#include <vector>

namespace hearth {
class Model;
class Session;
struct ChatMessage;
} // namespace hearth

namespace hearth::app {

/// Speed and size of one answer, for the line under it and for --self-test.
struct AnswerStats
{
    int promptTokens = 0;
    int generatedTokens = 0;
    double promptSeconds = 0;
    double generateSeconds = 0;

    [[nodiscard]] double tokensPerSecond() const
    {
        return generateSeconds > 0 ? generatedTokens / generateSeconds : 0.0;
    }
};

/// Owns the engine objects and runs every engine call. Lives on its own QThread: requests arrive
/// as queued slot calls and results leave as signals, so the GUI thread never waits on the engine.
/// Only stop() may be called from another thread.
class EngineWorker : public QObject
{
    Q_OBJECT

public:
    explicit EngineWorker(QObject* parent = nullptr);
    ~EngineWorker() override;

    /// Thread-safe: the running answer ends after its current token.
    void stop() { m_stopRequested.store(true, std::memory_order_relaxed); }

public Q_SLOTS:
    void loadModel(const QString& path);
    /// Answers @p prompt as the next user turn of the conversation.
    void chat(const QString& prompt, int maxTokens);
    /// Continues @p text as is, without a chat template (self-test, story models).
    void complete(const QString& text, int maxTokens);
    /// Forgets the conversation; the model stays loaded.
    void resetConversation();

Q_SIGNALS:
    void modelLoaded(const QString& name, const QString& description);
    void modelLoadFailed(const QString& message);
    void tokenGenerated(const QString& text);
    void answerFinished(const QString& answer, const hearth::app::AnswerStats& stats);
    void answerFailed(const QString& message);

private:
    void generate(const std::string& promptText, bool parseSpecial, int maxTokens, bool recordTurn);

    std::shared_ptr<const hearth::Model> m_model;
    std::unique_ptr<hearth::Session> m_session;
    std::vector<hearth::ChatMessage> m_history;
    std::atomic<bool> m_stopRequested { false };
};

} // namespace hearth::app

Q_DECLARE_METATYPE(hearth::app::AnswerStats)
