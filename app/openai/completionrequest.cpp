// SPDX-License-Identifier: MIT
#include "completionrequest.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>

#include <cmath>

namespace hearth::openai {

namespace {

constexpr int MaxStopSequences = 16;

/// Reads the fields of one body, keeping the first problem it finds.
class FieldReader
{
public:
    FieldReader(const QJsonObject& object, CompletionRequest& request)
        : m_object(object)
        , m_request(request)
    {
    }

    [[nodiscard]] bool ok() const { return m_request.error.isEmpty(); }

    void fail(const QString& param, const QString& message)
    {
        if (!ok())
            return;
        m_request.error = message;
        m_request.errorParam = param;
    }

    /// A number in [low, high] into @p target; absent or null leaves it.
    void number(const char* name, double low, double high, double& target)
    {
        const QJsonValue value = m_object.value(QLatin1String(name));
        if (value.isUndefined() || value.isNull())
            return;
        if (!value.isDouble() || !std::isfinite(value.toDouble())) {
            fail(QLatin1String(name), QStringLiteral("'%1' must be a number.").arg(QLatin1String(name)));
            return;
        }
        const double number = value.toDouble();
        if (number < low || number > high) {
            fail(QLatin1String(name),
                QStringLiteral("'%1' is %2; it must lie between %3 and %4.").arg(QLatin1String(name)).arg(number).arg(low).arg(high));
            return;
        }
        target = number;
    }

    /// A whole number in [low, high]; true when present.
    bool integer(const char* name, double low, double high, qint64& target)
    {
        const QJsonValue value = m_object.value(QLatin1String(name));
        if (value.isUndefined() || value.isNull())
            return false;
        const double number = value.toDouble(std::nan(""));
        if (!value.isDouble() || !std::isfinite(number) || std::floor(number) != number) {
            fail(QLatin1String(name), QStringLiteral("'%1' must be an integer.").arg(QLatin1String(name)));
            return false;
        }
        if (number < low || number > high) {
            fail(QLatin1String(name),
                QStringLiteral("'%1' is %2; it must lie between %3 and %4.").arg(QLatin1String(name)).arg(number, 0, 'f', 0).arg(low, 0, 'f', 0).arg(high, 0, 'f', 0));
            return false;
        }
        target = qint64(number);
        return true;
    }

    void boolean(const char* name, bool& target)
    {
        const QJsonValue value = m_object.value(QLatin1String(name));
        if (value.isUndefined() || value.isNull())
            return;
        if (!value.isBool()) {
            fail(QLatin1String(name), QStringLiteral("'%1' must be true or false.").arg(QLatin1String(name)));
            return;
        }
        target = value.toBool();
    }

    void string(const char* name, QString& target)
    {
        const QJsonValue value = m_object.value(QLatin1String(name));
        if (value.isUndefined() || value.isNull())
            return;
        if (!value.isString()) {
            fail(QLatin1String(name), QStringLiteral("'%1' must be a string.").arg(QLatin1String(name)));
            return;
        }
        target = value.toString();
    }

private:
    const QJsonObject& m_object;
    CompletionRequest& m_request;
};

/// A message's content: a string, or an array of parts of which only text parts are understood.
bool readContent(const QJsonValue& content, QString& text, QString& problem)
{
    if (content.isString()) {
        text = content.toString();
        return true;
    }
    if (content.isNull() || content.isUndefined())
        return true; // an assistant turn that only called tools
    if (!content.isArray()) {
        problem = QStringLiteral("must be a string or an array of content parts");
        return false;
    }
    QStringList parts;
    for (const QJsonValue& part : content.toArray()) {
        const QJsonObject object = part.toObject();
        if (object.value(QLatin1String("type")).toString() != QLatin1String("text") || !object.value(QLatin1String("text")).isString()) {
            problem = QStringLiteral("has a part that is not text; this server reads text only");
            return false;
        }
        parts.append(object.value(QLatin1String("text")).toString());
    }
    text = parts.join(QLatin1Char('\n'));
    return true;
}

void readMessages(const QJsonObject& body, CompletionRequest& request, FieldReader& fields)
{
    const QJsonValue messages = body.value(QLatin1String("messages"));
    if (!messages.isArray() || messages.toArray().isEmpty()) {
        fields.fail(QStringLiteral("messages"), QStringLiteral("'messages' must be a non-empty array."));
        return;
    }
    const QJsonArray list = messages.toArray();
    for (qsizetype i = 0; i < list.size() && fields.ok(); ++i) {
        const QString param = QStringLiteral("messages[%1]").arg(i);
        const QJsonObject message = list.at(i).toObject();
        if (!list.at(i).isObject()) {
            fields.fail(param, QStringLiteral("'%1' must be an object.").arg(param));
            return;
        }
        QString role = message.value(QLatin1String("role")).toString();
        if (role == QLatin1String("developer"))
            role = QStringLiteral("system"); // the newer name for the same turn
        static const QStringList roles { QStringLiteral("system"), QStringLiteral("user"), QStringLiteral("assistant"),
            QStringLiteral("tool") };
        if (!roles.contains(role)) {
            fields.fail(param + QStringLiteral(".role"),
                QStringLiteral("'%1.role' must be one of system, developer, user, assistant or tool.").arg(param));
            return;
        }
        hearth::app::ChatTurn turn { role, {} };
        QString problem;
        if (!readContent(message.value(QLatin1String("content")), turn.content, problem)) {
            fields.fail(param + QStringLiteral(".content"), QStringLiteral("'%1.content' %2.").arg(param, problem));
            return;
        }
        request.turns.append(turn);
    }
}

void readPrompt(const QJsonObject& body, CompletionRequest& request, FieldReader& fields)
{
    const QJsonValue prompt = body.value(QLatin1String("prompt"));
    if (prompt.isString()) {
        request.prompt = prompt.toString();
    } else if (prompt.isArray() && prompt.toArray().size() == 1 && prompt.toArray().first().isString()) {
        request.prompt = prompt.toArray().first().toString();
    } else if (prompt.isArray() && prompt.toArray().size() > 1) {
        fields.fail(QStringLiteral("prompt"), QStringLiteral("'prompt' may hold one text; this server answers one prompt per request."));
        return;
    } else {
        fields.fail(QStringLiteral("prompt"), QStringLiteral("'prompt' must be a string."));
        return;
    }
    if (request.prompt.isEmpty())
        fields.fail(QStringLiteral("prompt"), QStringLiteral("'prompt' is empty."));
}

void readStop(const QJsonObject& body, CompletionRequest& request, FieldReader& fields)
{
    const QJsonValue stop = body.value(QLatin1String("stop"));
    if (stop.isUndefined() || stop.isNull())
        return;
    QJsonArray list;
    if (stop.isString())
        list.append(stop);
    else if (stop.isArray())
        list = stop.toArray();
    if ((!stop.isString() && !stop.isArray()) || list.size() > MaxStopSequences) {
        fields.fail(QStringLiteral("stop"),
            QStringLiteral("'stop' must be a string or an array of at most %1 strings.").arg(MaxStopSequences));
        return;
    }
    for (const QJsonValue& value : list) {
        if (!value.isString() || value.toString().isEmpty()) {
            fields.fail(QStringLiteral("stop"), QStringLiteral("Every stop sequence must be a non-empty string."));
            return;
        }
        request.stop.append(value.toString());
    }
}

} // namespace

CompletionRequest CompletionRequest::parse(
    const QByteArray& body, Kind kind, const hearth::app::SamplingSettings& defaults, int contextLength)
{
    CompletionRequest request;
    request.kind = kind;
    request.sampling = defaults;
    request.sampling.dropOldestTurns = false; // an API client decides what its prompt holds
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(body, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        request.error = QStringLiteral("The body is not valid JSON: %1 at offset %2.").arg(parseError.errorString()).arg(parseError.offset);
        return request;
    }
    if (!document.isObject()) {
        request.error = QStringLiteral("The body must be a JSON object.");
        return request;
    }
    const QJsonObject object = document.object();
    FieldReader fields(object, request);

    if (kind == Kind::Chat)
        readMessages(object, request, fields);
    else
        readPrompt(object, request, fields);
    fields.string("model", request.model);
    fields.boolean("stream", request.stream);
    const QJsonValue streamOptions = object.value(QLatin1String("stream_options"));
    if (streamOptions.isObject()) {
        FieldReader options(streamOptions.toObject(), request);
        options.boolean("include_usage", request.includeUsage);
    } else if (!streamOptions.isUndefined() && !streamOptions.isNull()) {
        fields.fail(QStringLiteral("stream_options"), QStringLiteral("'stream_options' must be an object."));
    }

    hearth::app::SamplingSettings& s = request.sampling;
    fields.number("temperature", 0.0, 2.0, s.temperature);
    fields.number("top_p", 0.0, 1.0, s.topP);
    fields.number("min_p", 0.0, 1.0, s.minP);
    fields.number("presence_penalty", -2.0, 2.0, s.presencePenalty);
    fields.number("frequency_penalty", -2.0, 2.0, s.frequencyPenalty);
    fields.number("repeat_penalty", 0.5, 2.0, s.repeatPenalty);
    qint64 number = 0;
    if (fields.integer("top_k", 0, 1000, number))
        s.topK = int(number);
    if (fields.integer("seed", -double(qint64(1) << 53), double(qint64(1) << 53), number))
        s.seed = number < 0 ? -1 : number;
    (void)fields.integer("n", 1, 1, number); // one answer per request
    // OpenAI's reasoning_effort, for the templates that take one (Qwen 3: thinking on or off).
    QString effort;
    fields.string("reasoning_effort", effort);
    if (effort == QLatin1String("none") || effort == QLatin1String("minimal"))
        s.reasoning = QStringLiteral("off");
    else if (effort == QLatin1String("low") || effort == QLatin1String("medium") || effort == QLatin1String("high"))
        s.reasoning = effort;
    else if (!effort.isEmpty())
        fields.fail(QStringLiteral("reasoning_effort"),
            QStringLiteral("'reasoning_effort' must be one of none, minimal, low, medium and high."));

    // max_completion_tokens is the newer name; either may be given.
    s.maxTokens = qMax(1, contextLength);
    for (const char* name : { "max_tokens", "max_completion_tokens" }) {
        if (fields.integer(name, 1, double(qint64(1) << 53), number)) {
            if (contextLength > 0 && number > contextLength) {
                fields.fail(QLatin1String(name),
                    QStringLiteral("'%1' is %2, but the model's context holds %3 tokens.").arg(QLatin1String(name)).arg(number).arg(contextLength));
            }
            s.maxTokens = int(qMin<qint64>(number, qMax(1, contextLength)));
        }
    }
    readStop(object, request, fields);
    if (!request.error.isEmpty())
        return request;
    // The engine's own limits; the ranges above are OpenAI's and lie within them.
    const int maxTokens = s.maxTokens;
    s = s.clamped();
    s.maxTokens = maxTokens;
    return request;
}

} // namespace hearth::openai
