// SPDX-License-Identifier: MIT
#include "chatrecords.h"

namespace hearth {

QString messageStateName(MessageState state)
{
    switch (state) {
    case MessageState::Complete:
        return QStringLiteral("complete");
    case MessageState::Streaming:
        return QStringLiteral("streaming");
    case MessageState::Interrupted:
        return QStringLiteral("interrupted");
    case MessageState::Error:
        return QStringLiteral("error");
    case MessageState::Stopped:
        return QStringLiteral("stopped");
    case MessageState::LengthLimit:
        return QStringLiteral("length_limit");
    case MessageState::ContextFull:
        return QStringLiteral("context_full");
    }
    return QStringLiteral("complete");
}

MessageState messageStateFromName(const QString& name)
{
    if (name == QLatin1String("streaming"))
        return MessageState::Streaming;
    if (name == QLatin1String("interrupted"))
        return MessageState::Interrupted;
    if (name == QLatin1String("error"))
        return MessageState::Error;
    if (name == QLatin1String("stopped"))
        return MessageState::Stopped;
    if (name == QLatin1String("length_limit"))
        return MessageState::LengthLimit;
    if (name == QLatin1String("context_full"))
        return MessageState::ContextFull;
    return MessageState::Complete;
}

} // namespace hearth
