// SPDX-License-Identifier: MIT
#pragma once

// Helpers shared by the engine tests.

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QString>
#include <QTest>

#include <string>

namespace hearth::test {

// Path of a file under ../shared, or an empty string when ../shared (or the file) is absent.
inline QString sharedFile(const QString& relative)
{
    const QString path = QDir(QStringLiteral(HEARTH_SHARED_DIR)).filePath(relative);
    return QFileInfo::exists(path) ? QFileInfo(path).canonicalFilePath() : QString();
}

// SHA-256 of a file's bytes; empty when it cannot be read.
inline QByteArray fileSha256(const std::string& path)
{
    QFile f(QString::fromStdString(path));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256);
}

} // namespace hearth::test

// Skips the current test with a message when a ../shared file is missing.
#define HEARTH_REQUIRE_SHARED(var, relative)                                                                 \
    const QString var = hearth::test::sharedFile(QStringLiteral(relative));                                  \
    if (var.isEmpty())                                                                                       \
        QSKIP(qPrintable(QStringLiteral("../shared/%1 is not present; skipping").arg(QStringLiteral(relative))))
