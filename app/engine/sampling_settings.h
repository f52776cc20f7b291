// SPDX-License-Identifier: MIT
#pragma once

#include <QJsonObject>
#include <QMetaType>
#include <QString>

namespace hearth::app {

/// A chat's generation settings. Stored per conversation as JSON (ChatStore's sampling column)
/// with the keys users know from other apps: temperature, top_k, top_p, min_p, repeat_penalty,
/// repeat_last_n, presence_penalty, frequency_penalty, max_tokens, seed, context_overflow
/// ("drop_oldest" or "stop") and reasoning_effort. Missing keys take the defaults from the
/// Settings page.
struct SamplingSettings
{
    /// The longest answer length accepted (the longest contexts models have).
    static constexpr int kMaxAnswerTokens = 262144;

    double temperature = 0.8;
    int topK = 40;
    double topP = 0.95;
    double minP = 0.05;
    double repeatPenalty = 1.1;
    int repeatLastN = 64;          ///< recent tokens the three penalties look at
    double presencePenalty = 0.0;  ///< subtracted once from every token seen
    double frequencyPenalty = 0.0; ///< subtracted per occurrence
    /// Enough for a reasoning model's thinking and its answer; an answer also ends when the
    /// context is full.
    int maxTokens = 2048;
    qint64 seed = -1; ///< -1: a new seed for every answer
    /// When the chat outgrows the context: leave the oldest turns out of the prompt (the system
    /// prompt and the newest question stay), or stop with a message.
    bool dropOldestTurns = true;
    /// How much a reasoning model thinks (its template's enable_thinking or reasoning_effort,
    /// hearth::Reasoning): "" for the model's own default, "off", "low", "medium" or "high".
    QString reasoning;

    [[nodiscard]] QJsonObject toJson() const;
    /// Reads @p json over @p defaults; out-of-range values are clamped, never trusted.
    [[nodiscard]] static SamplingSettings fromJson(const QJsonObject& json, const SamplingSettings& defaults);
    [[nodiscard]] static SamplingSettings fromJson(const QJsonObject& json);
    /// Keeps every value in a range the sampler accepts.
    [[nodiscard]] SamplingSettings clamped() const;
};

/// One turn of the prompt the engine renders with the model's chat template.
struct ChatTurn
{
    QString role;
    QString content;
};

} // namespace hearth::app

Q_DECLARE_METATYPE(hearth::app::SamplingSettings)
Q_DECLARE_METATYPE(hearth::app::ChatTurn)
