// SPDX-License-Identifier: MIT
#include "machineinfo.h"

#include <QByteArray>
#include <QFile>
#include <QList>

#include <algorithm>
#include <thread>

namespace hearth::models {

MachineInfo MachineInfo::fromMeminfo(const QByteArray& text)
{
    MachineInfo info;
    for (const QByteArray& line : text.split('\n')) {
        const QList<QByteArray> parts = line.simplified().split(' ');
        if (parts.size() < 2)
            continue;
        bool ok = false;
        const quint64 kib = parts.at(1).toULongLong(&ok);
        if (!ok || kib > (quint64(1) << 44)) // beyond 16 EiB in kB: not a real value
            continue;
        if (parts.at(0) == "MemTotal:")
            info.ramBytes = kib * 1024;
        else if (parts.at(0) == "MemAvailable:")
            info.availableRamBytes = kib * 1024;
    }
    return info;
}

MachineInfo MachineInfo::detect()
{
    MachineInfo info;
    QFile meminfo(QStringLiteral("/proc/meminfo"));
    if (meminfo.open(QIODevice::ReadOnly))
        info = fromMeminfo(meminfo.readAll());
    info.cores = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
    return info;
}

} // namespace hearth::models
