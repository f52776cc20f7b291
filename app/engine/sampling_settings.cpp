// SPDX-License-Identifier: MIT
#include "sampling_settings.h"

#include <hearth/chat.h>

#include <QtGlobal>

namespace hearth::app {

QJsonObject SamplingSettings::toJson() const
{
    return {
        { QStringLiteral("temperature"), temperature },
        { QStringLiteral("top_k"), topK },
        { QStringLiteral("top_p"), topP },
        { QStringLiteral("min_p"), minP },
        { QStringLiteral("repeat_penalty"), repeatPenalty },
        { QStringLiteral("repeat_last_n"), repeatLastN },
        { QStringLiteral("presence_penalty"), presencePenalty },
        { QStringLiteral("frequency_penalty"), frequencyPenalty },
        { QStringLiteral("max_tokens"), maxTokens },
        { QStringLiteral("seed"), seed },
        { QStringLiteral("context_overflow"), dropOldestTurns ? QStringLiteral("drop_oldest") : QStringLiteral("stop") },
        { QStringLiteral("reasoning_effort"), reasoning },
    };
}

SamplingSettings SamplingSettings::fromJson(const QJsonObject& json, const SamplingSettings& defaults)
{
    SamplingSettings s = defaults;
    s.temperature = json.value(QStringLiteral("temperature")).toDouble(s.temperature);
    s.topK = json.value(QStringLiteral("top_k")).toInt(s.topK);
    s.topP = json.value(QStringLiteral("top_p")).toDouble(s.topP);
    s.minP = json.value(QStringLiteral("min_p")).toDouble(s.minP);
    s.repeatPenalty = json.value(QStringLiteral("repeat_penalty")).toDouble(s.repeatPenalty);
    s.repeatLastN = json.value(QStringLiteral("repeat_last_n")).toInt(s.repeatLastN);
    s.presencePenalty = json.value(QStringLiteral("presence_penalty")).toDouble(s.presencePenalty);
    s.frequencyPenalty = json.value(QStringLiteral("frequency_penalty")).toDouble(s.frequencyPenalty);
    s.maxTokens = json.value(QStringLiteral("max_tokens")).toInt(s.maxTokens);
    s.seed = qint64(json.value(QStringLiteral("seed")).toDouble(double(s.seed)));
    const QString overflow = json.value(QStringLiteral("context_overflow")).toString();
    if (overflow == QLatin1String("drop_oldest") || overflow == QLatin1String("stop"))
        s.dropOldestTurns = overflow == QLatin1String("drop_oldest");
    s.reasoning = json.value(QStringLiteral("reasoning_effort")).toString(s.reasoning);
    return s.clamped();
}

SamplingSettings SamplingSettings::fromJson(const QJsonObject& json)
{
    return fromJson(json, SamplingSettings());
}

SamplingSettings SamplingSettings::clamped() const
{
    // NaN compares false everywhere; qBound would keep it, so replace it first.
    auto finite = [](double value, double fallback) { return qIsFinite(value) ? value : fallback; };
    SamplingSettings s = *this;
    s.temperature = qBound(0.0, finite(s.temperature, 0.8), 5.0);
    s.topK = qBound(0, s.topK, 1000);
    s.topP = qBound(0.0, finite(s.topP, 0.95), 1.0);
    s.minP = qBound(0.0, finite(s.minP, 0.05), 1.0);
    s.repeatPenalty = qBound(0.5, finite(s.repeatPenalty, 1.1), 2.0);
    s.repeatLastN = qBound(0, s.repeatLastN, 32768);
    s.presencePenalty = qBound(-2.0, finite(s.presencePenalty, 0.0), 2.0);
    s.frequencyPenalty = qBound(-2.0, finite(s.frequencyPenalty, 0.0), 2.0);
    s.maxTokens = qBound(1, s.maxTokens, kMaxAnswerTokens);
    s.seed = qMax<qint64>(-1, s.seed);
    if (!hearth::reasoningFromName(s.reasoning.toStdString()))
        s.reasoning.clear();
    return s;
}

} // namespace hearth::app
