// SPDX-License-Identifier: MIT
#include "stopsequencefilter.h"

namespace hearth::openai {

StopSequenceFilter::StopSequenceFilter(QStringList stops)
    : m_stops(std::move(stops))
{
    m_stops.removeAll(QString());
}

QString StopSequenceFilter::feed(const QString& piece)
{
    if (m_stopped)
        return {};
    m_held += piece;
    if (m_stops.isEmpty()) {
        QString out;
        out.swap(m_held);
        return out;
    }
    qsizetype first = -1;
    for (const QString& stop : std::as_const(m_stops)) {
        const qsizetype at = m_held.indexOf(stop);
        if (at >= 0 && (first < 0 || at < first))
            first = at;
    }
    if (first >= 0) {
        m_stopped = true;
        const QString out = m_held.left(first);
        m_held.clear();
        return out;
    }
    // Hold back the longest tail that is the start of some stop sequence.
    qsizetype keep = 0;
    for (const QString& stop : std::as_const(m_stops)) {
        for (qsizetype length = qMin(stop.size() - 1, m_held.size()); length > keep; --length) {
            if (QStringView(m_held).right(length) == QStringView(stop).left(length)) {
                keep = length;
                break;
            }
        }
    }
    const QString out = m_held.left(m_held.size() - keep);
    m_held.remove(0, m_held.size() - keep);
    return out;
}

QString StopSequenceFilter::finish()
{
    QString out;
    if (!m_stopped)
        out.swap(m_held);
    m_held.clear();
    return out;
}

} // namespace hearth::openai
