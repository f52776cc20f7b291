// SPDX-License-Identifier: MIT
#include "ggufprobe.h"

#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>
#include <QtEndian>

namespace hearth {

GgufProbe probeGgufFile(const QString& path)
{
    GgufProbe probe;
    const QFileInfo info(path);
    if (!info.exists() || !info.isFile()) {
        probe.errorText = QCoreApplication::translate("hearth::GgufProbe", "%1 does not exist or is not a file.").arg(path);
        return probe;
    }
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        probe.errorText = QCoreApplication::translate("hearth::GgufProbe", "Cannot read %1: %2").arg(path, file.errorString());
        return probe;
    }
    // magic (4 bytes), version (u32 LE), tensor count (u64), metadata count (u64)
    const QByteArray header = file.read(24);
    if (header.size() < 24) {
        probe.errorText = QCoreApplication::translate("hearth::GgufProbe", "%1 is too small to be a GGUF model.").arg(info.fileName());
        return probe;
    }
    const QByteArray magic = header.left(4);
    if (magic != "GGUF" && magic != "PWRI") {
        probe.errorText = QCoreApplication::translate("hearth::GgufProbe", "%1 is not a GGUF model file.").arg(info.fileName());
        return probe;
    }
    probe.magic = QString::fromLatin1(magic);
    probe.version = qFromLittleEndian<quint32>(header.constData() + 4);
    // GGUF versions 2 and 3 are in use (1 had 32-bit counts and is long gone).
    if (probe.version < 2 || probe.version > 3) {
        probe.errorText = QCoreApplication::translate("hearth::GgufProbe", "%1 uses GGUF version %2, which Hearth cannot read.")
                              .arg(info.fileName())
                              .arg(probe.version);
        return probe;
    }
    const quint64 tensorCount = qFromLittleEndian<quint64>(header.constData() + 8);
    const quint64 kvCount = qFromLittleEndian<quint64>(header.constData() + 16);
    // Plausibility only: a header claiming more entries than the file has bytes is damaged.
    const auto size = static_cast<quint64>(info.size());
    if (tensorCount > size || kvCount > size) {
        probe.errorText = QCoreApplication::translate("hearth::GgufProbe", "%1 has a damaged GGUF header.").arg(info.fileName());
        return probe;
    }
    probe.ok = true;
    return probe;
}

} // namespace hearth
