// SPDX-License-Identifier: MIT
#include "placement.h"

#include <QCoreApplication>
#include <QLocale>

namespace hearth::app {

QString Placement::summary() const
{
    const QString device = QString::fromStdString(facts.device);
    if (facts.device.empty() && report.isEmpty())
        return {};
    if (facts.device.empty())
        return QCoreApplication::translate("Placement", "CPU only");
    if (!facts.deviceFailure.empty())
        return QCoreApplication::translate("Placement", "CPU only: the GPU %1 failed").arg(device);
    const QLocale locale;
    if (facts.experts > 0) {
        return QCoreApplication::translate("Placement", "GPU %1: %2 of %3 experts, attention of %4 of %n layer(s)", "",
                                           facts.layers)
            .arg(device, locale.toString(facts.gpuExperts), locale.toString(facts.experts))
            .arg(facts.gpuLayers);
    }
    if (facts.neurons > 0) {
        return QCoreApplication::translate("Placement", "GPU %1: %2 of %3 FFN neurons hot")
            .arg(device, locale.toString(qlonglong(facts.hotNeurons)), locale.toString(qlonglong(facts.neurons)));
    }
    return QCoreApplication::translate("Placement", "GPU %1: %2 of %n layer(s)", "", facts.layers).arg(device).arg(facts.gpuLayers);
}

QString Placement::details() const
{
    QString text = summary();
    if (facts.budgetBytes > 0) {
        text += QLatin1Char('\n')
            + QCoreApplication::translate("Placement", "GPU memory budget: %1")
                  .arg(QLocale().formattedDataSize(qint64(facts.budgetBytes), 1, QLocale::DataSizeTraditionalFormat));
    }
    if (!report.isEmpty())
        text += QLatin1Char('\n') + QCoreApplication::translate("Placement", "Engine: %1").arg(report);
    return text;
}

} // namespace hearth::app
