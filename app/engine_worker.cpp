// SPDX-License-Identifier: MIT
#include "engine_worker.h"

#include "logging.h"

#include <hearth/hearth.h>

#include <QFileInfo>

namespace hearth::app {

EngineWorker::EngineWorker(QObject* parent)
    : QObject(parent)
{
    qRegisterMetaType<hearth::app::AnswerStats>();
}

EngineWorker::~EngineWorker() = default;

void EngineWorker::loadModel(const QString& path)
{
    m_session.reset();
    m_model.reset();
    m_history.clear();

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
#ifdef Q_OS_WIN
    const std::string enginePath = path.toStdString(); // the engine takes UTF-8 paths on Windows
#else
    const std::string enginePath = QFile::encodeName(path).toStdString();
#endif
    auto model = hearth::Model::load(enginePath);
    if (!model) {
        Q_EMIT modelLoadFailed(
            tr("Could not load %1: %2").arg(file.fileName(), QString::fromStdString(model.message())));
        return;
    }
    auto session = hearth::Session::create(model.value());
    if (!session) {
        Q_EMIT modelLoadFailed(tr("Could not start a session with %1: %2")
                                   .arg(file.fileName(), QString::fromStdString(session.message())));
        return;
    }
    m_model = std::move(model).value();
    m_session = std::move(session).value();

    const hearth::ModelInfo& info = m_model->info();
    const QString name = info.name.empty() ? file.completeBaseName() : QString::fromStdString(info.name);
    const QString description = QStringLiteral("%1 · %2").arg(
        QString::fromStdString(info.architecture), QString::fromStdString(info.weightType));
    qCInfo(lcEngine) << "loaded" << name << description;
    Q_EMIT modelLoaded(name, description);
}

void EngineWorker::chat(const QString& prompt, int maxTokens)
{
    if (!m_model) {
        Q_EMIT answerFailed(tr("No model is loaded."));
        return;
    }
    m_history.push_back({ "user", prompt.toStdString() });
    const hearth::ChatTemplate chatTemplate = hearth::ChatTemplate::forModel(*m_model);
    auto text = chatTemplate.apply(m_history, true);
    if (!text) {
        m_history.pop_back();
        Q_EMIT answerFailed(tr("The chat template failed: %1").arg(QString::fromStdString(text.message())));
        return;
    }
    // The whole conversation is rendered again each turn: templates may change earlier text
    // (system prompt placement), so reusing the KV cache is only safe for a shared prefix.
    m_session->reset();
    generate(text.value(), true, maxTokens, true);
}

void EngineWorker::complete(const QString& text, int maxTokens)
{
    if (!m_model) {
        Q_EMIT answerFailed(tr("No model is loaded."));
        return;
    }
    m_session->reset();
    generate(text.toStdString(), false, maxTokens, false);
}

void EngineWorker::resetConversation()
{
    m_history.clear();
    if (m_session)
        m_session->reset();
}

void EngineWorker::generate(const std::string& promptText, bool parseSpecial, int maxTokens, bool recordTurn)
{
    m_stopRequested.store(false, std::memory_order_relaxed);
    const std::vector<hearth::Token> prompt = m_model->tokenizer().encode(promptText, true, parseSpecial);
    if (prompt.empty()) {
        Q_EMIT answerFailed(tr("The prompt is empty."));
        return;
    }

    hearth::Sampler sampler;
    std::string answer;
    auto stats
        = m_session->generate(prompt, sampler, maxTokens, [&](hearth::Token, const std::string& piece) {
              if (!piece.empty()) {
                  answer += piece;
                  Q_EMIT tokenGenerated(QString::fromStdString(piece));
              }
              return !m_stopRequested.load(std::memory_order_relaxed);
          });
    if (!stats) {
        if (recordTurn)
            m_history.pop_back();
        Q_EMIT answerFailed(QString::fromStdString(stats.message()));
        return;
    }
    if (recordTurn)
        m_history.push_back({ "assistant", answer });

    AnswerStats result;
    result.promptTokens = stats->promptTokens;
    result.generatedTokens = stats->generatedTokens;
    result.promptSeconds = stats->promptSeconds;
    result.generateSeconds = stats->generateSeconds;
    Q_EMIT answerFinished(QString::fromStdString(answer), result);
}

} // namespace hearth::app
