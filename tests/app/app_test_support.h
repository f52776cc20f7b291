// SPDX-License-Identifier: MIT
#pragma once

// Shared by the app tests: a tiny generated model (hearth-synth from the build tree), or the
// shared stories260K model when the checkout has ../shared.

#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QString>
#include <QTranslator>

#ifndef HEARTH_EXE_SUFFIX
#ifdef Q_OS_WIN
#define HEARTH_EXE_SUFFIX ".exe"
#else
#define HEARTH_EXE_SUFFIX ""
#endif
#endif

namespace hearth::test {

/// A translator that marks every text it translates, to see which texts follow a language switch.
class MarkingTranslator : public QTranslator
{
public:
    QString translate(const char*, const char* source, const char*, int) const override
    {
        return QStringLiteral("[zz] ") + QString::fromUtf8(source);
    }
    bool isEmpty() const override { return false; }
};

/// A chat template that parses but would run for hours: it compares two values holding 2^40
/// paths each. The renderer stops it at its work budget.
inline constexpr const char* runawayChatTemplate =
    "{% set ns = namespace(x=[1], y=[1]) %}{% for i in range(40) %}{% set ns.x = [ns.x, ns.x] %}"
    "{% set ns.y = [ns.y, ns.y] %}{% endfor %}{% if ns.x == ns.y %}{% for m in messages %}{{ m.content }}{% endfor %}{% endif %}";

/// Writes a tiny random model with the Jinja chat template @p chatTemplate into @p dir; empty when
/// hearth-synth is missing or fails.
inline QString makeTinyModelWithTemplate(const QString& dir, const QString& name, const QByteArray& chatTemplate)
{
    const QString synth = QStringLiteral(HEARTH_BIN_DIR "/hearth-synth" HEARTH_EXE_SUFFIX);
    const QString model = dir + QLatin1Char('/') + name + QStringLiteral(".gguf");
    QFile templateFile(dir + QLatin1Char('/') + name + QStringLiteral(".jinja"));
    if (!QFileInfo::exists(synth) || !templateFile.open(QIODevice::WriteOnly) || templateFile.write(chatTemplate) != chatTemplate.size())
        return {};
    templateFile.close();
    QProcess process;
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.start(synth, { QStringLiteral("--shape"), QStringLiteral("tiny"), QStringLiteral("--type"), QStringLiteral("q8_0"),
                             QStringLiteral("--chat-template"), templateFile.fileName(), QStringLiteral("-q"), QStringLiteral("-o"), model });
    return process.waitForFinished(120000) && process.exitCode() == 0 && QFileInfo::exists(model) ? model : QString();
}

/// Writes a tiny random model of hearth-synth's @p shape, made with hearth-synth's @p extraArguments,
/// into @p dir; empty when hearth-synth is missing or fails. The "tiny" shape without extra
/// arguments falls back to ../shared's stories260K.
inline QString makeTinyModel(const QString& dir, const QString& shape = QStringLiteral("tiny"),
    const QStringList& extraArguments = {})
{
    const QString synth = QStringLiteral(HEARTH_BIN_DIR "/hearth-synth" HEARTH_EXE_SUFFIX);
    const QString name = extraArguments.isEmpty() ? shape : shape + extraArguments.join(QString()).remove(QLatin1Char(' '));
    const QString model = dir + QLatin1Char('/') + name + QStringLiteral(".gguf");
    if (QFileInfo::exists(synth)) {
        QProcess process;
        process.setProcessChannelMode(QProcess::MergedChannels);
        process.start(synth, QStringList { QStringLiteral("--shape"), shape, QStringLiteral("--type"),
                                 QStringLiteral("q8_0"), QStringLiteral("-o"), model } + extraArguments);
        if (process.waitForFinished(120000) && process.exitCode() == 0 && QFileInfo::exists(model))
            return model;
    }
    const QString shared = QStringLiteral(HEARTH_SHARED_DIR "/models/stories260K.gguf");
    return shape == QLatin1String("tiny") && extraArguments.isEmpty() && QFileInfo::exists(shared) ? shared : QString();
}

} // namespace hearth::test
