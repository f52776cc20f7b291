// SPDX-License-Identifier: MIT
#pragma once

#include <QString>
#include <QStringList>

namespace hearth::openai {

/// Cuts a streamed answer before the first stop sequence. Text that might be the start of one
/// is held back until the next piece shows whether it is, so no part of a stop sequence is ever
/// sent to the client.
///
///     StopSequenceFilter filter({ "\nUser:" });
///     send(filter.feed(piece));    // per token, until filter.stopped()
///     send(filter.finish());       // at the end: what was held back
class StopSequenceFilter
{
public:
    explicit StopSequenceFilter(QStringList stops);

    /// The part of @p piece that can be sent now.
    [[nodiscard]] QString feed(const QString& piece);
    /// What is left to send once the answer has ended.
    [[nodiscard]] QString finish();
    /// True once a stop sequence was found: nothing after it is sent.
    [[nodiscard]] bool stopped() const { return m_stopped; }

private:
    QStringList m_stops;
    QString m_held; ///< text that may begin a stop sequence
    bool m_stopped = false;
};

} // namespace hearth::openai
