// SPDX-License-Identifier: MIT
#pragma once

#include "sampling_settings.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

namespace hearth::openai {

/// A POST /v1/chat/completions or /v1/completions body, checked field by field. Fields Hearth
/// does not know are ignored, as OpenAI clients send many; a known field of the wrong type or
/// out of range is an error that names it.
///
///     auto request = CompletionRequest::parse(body, CompletionRequest::Kind::Chat, defaults, 8192);
///     if (!request.error.isEmpty())
///         reply 400 with request.error and request.errorParam
struct CompletionRequest
{
    enum class Kind {
        Chat, ///< messages rendered with the model's chat template
        Text, ///< a prompt continued as is
    };

    Kind kind = Kind::Chat;
    QList<hearth::app::ChatTurn> turns; ///< Chat
    QString prompt; ///< Text
    hearth::app::SamplingSettings sampling;
    QStringList stop; ///< the answer ends before the first of these
    bool stream = false;
    bool includeUsage = false; ///< stream_options.include_usage: a last chunk with the counts
    QString model; ///< as the client named it; the loaded model answers whatever it says

    QString error; ///< empty when the body is acceptable
    QString errorParam; ///< the field at fault, if one is

    /// Reads @p body over @p defaults (the app's sampling settings). max_tokens defaults to
    /// @p contextLength (until the answer ends or the context is full) and may not exceed it.
    [[nodiscard]] static CompletionRequest parse(const QByteArray& body, Kind kind,
        const hearth::app::SamplingSettings& defaults, int contextLength);
};

} // namespace hearth::openai
