// SPDX-License-Identifier: MIT
#include "catalogentry.h"

#include <QCoreApplication>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>

namespace hearth::models {

ModelDescription CatalogEntry::planningDescription(int fileIndex) const
{
    ModelDescription d;
    d.architecture = architecture.toStdString();
    d.parameterCount = parameters;
    d.layerCount = layers;
    d.embeddingSize = embedding;
    d.headCount = heads;
    d.kvHeadCount = kvHeads;
    d.headDim = headDim;
    d.slidingWindow = slidingWindow;
    d.slidingWindowPeriod = slidingWindowPeriod;
    d.feedForwardSize = feedForward;
    d.expertCount = experts;
    d.expertsUsed = expertsUsed;
    d.expertFeedForwardSize = expertFeedForward;
    d.vocabSize = vocab;
    QString quantization = fileIndex >= 0 && fileIndex < files.size() ? files.at(fileIndex).quantization
                                                                      : QStringLiteral("Q4_0");
    if (quantization == QLatin1String("F32") && needsConversion())
        quantization = QStringLiteral("F16");
    d.quantization = quantization.toStdString();
    d.sparse = sparse;
    d.predictorHidden = sparse ? (predictorHidden > 0 ? predictorHidden : 1024) : 0;
    return d;
}

double CatalogEntry::assumedSparsity() const
{
    return reportedSparsity.value_or(kDefaultAssumedSparsity);
}

std::optional<QList<CatalogEntry>> parseCatalog(const QByteArray& json, QString* error)
{
    auto fail = [&](const QString& message) {
        if (error)
            *error = message;
        return std::nullopt;
    };
    QJsonParseError parseError {};
    const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError || !doc.isObject())
        return fail(
            CatalogEntry::tr("The model catalog is not valid JSON: %1").arg(parseError.errorString()));
    const QJsonObject root = doc.object();
    if (root.value(QLatin1String("version")).toInt() != 1)
        return fail(CatalogEntry::tr("The model catalog has an unknown version."));

    QList<CatalogEntry> entries;
    const QJsonArray models = root.value(QLatin1String("models")).toArray();
    for (const QJsonValue& value : models) {
        const QJsonObject o = value.toObject();
        CatalogEntry e;
        e.id = o.value(QLatin1String("id")).toString();
        e.name = o.value(QLatin1String("name")).toString();
        e.repo = o.value(QLatin1String("repo")).toString();
        e.format = o.value(QLatin1String("format")).toString();
        e.architecture = o.value(QLatin1String("architecture")).toString();
        e.sparse = o.value(QLatin1String("sparse")).toBool();
        e.predictorRepo = o.value(QLatin1String("predictorRepo")).toString();
        e.sourceRepo = o.value(QLatin1String("sourceRepo")).toString();
        e.licence = o.value(QLatin1String("licence")).toString();
        e.parameters = static_cast<quint64>(o.value(QLatin1String("parameters")).toDouble());
        const QJsonObject shape = o.value(QLatin1String("shape")).toObject();
        e.layers = shape.value(QLatin1String("layers")).toInt();
        e.embedding = shape.value(QLatin1String("embedding")).toInt();
        e.heads = shape.value(QLatin1String("heads")).toInt();
        e.kvHeads = shape.value(QLatin1String("kvHeads")).toInt();
        e.headDim = shape.value(QLatin1String("headDim")).toInt(); // absent: embedding / heads
        e.slidingWindow = shape.value(QLatin1String("slidingWindow")).toInt();
        e.slidingWindowPeriod = shape.value(QLatin1String("slidingWindowPeriod")).toInt();
        e.feedForward = shape.value(QLatin1String("feedForward")).toInt();
        e.experts = shape.value(QLatin1String("experts")).toInt();
        e.expertsUsed = shape.value(QLatin1String("expertsUsed")).toInt();
        e.expertFeedForward = shape.value(QLatin1String("expertFeedForward")).toInt();
        e.vocab = shape.value(QLatin1String("vocab")).toInt();
        e.predictorHidden = shape.value(QLatin1String("predictorHidden")).toInt();
        const QJsonValue sparsity = o.value(QLatin1String("reportedSparsity"));
        if (sparsity.isDouble())
            e.reportedSparsity = sparsity.toDouble();
        e.description = o.value(QLatin1String("description")).toString();
        for (const QJsonValue& fileValue : o.value(QLatin1String("files")).toArray()) {
            const QJsonObject f = fileValue.toObject();
            CatalogFile file;
            file.name = f.value(QLatin1String("name")).toString();
            file.quantization = f.value(QLatin1String("quantization")).toString();
            file.size = static_cast<quint64>(f.value(QLatin1String("size")).toDouble());
            file.sizeApprox = f.value(QLatin1String("sizeApprox")).toBool(true);
            if (file.name.isEmpty() || file.quantization.isEmpty() || file.size == 0)
                return fail(
                    CatalogEntry::tr("Catalog entry \"%1\" has a file without name, quantization or size.")
                        .arg(e.id));
            e.files.append(file);
        }

        const bool complete = !e.id.isEmpty() && !e.name.isEmpty() && e.repo.contains(QLatin1Char('/'))
            && !e.format.isEmpty() && !e.architecture.isEmpty() && !e.licence.isEmpty() && e.parameters > 0
            && e.layers > 0 && e.embedding > 0 && e.heads > 0 && e.feedForward > 0 && e.vocab > 0
            && !e.files.isEmpty() && !e.description.isEmpty() && (!e.sparse || e.predictorHidden > 0)
            && (!e.reportedSparsity || (*e.reportedSparsity >= 0 && *e.reportedSparsity < 1))
            && (e.experts == 0 || (e.expertsUsed > 0 && e.expertsUsed <= e.experts && e.expertFeedForward > 0));
        if (!complete)
            return fail(CatalogEntry::tr("Catalog entry \"%1\" lacks a required field.")
                            .arg(e.id.isEmpty() ? e.name : e.id));
        for (const CatalogEntry& other : std::as_const(entries)) {
            if (other.id == e.id)
                return fail(CatalogEntry::tr("Catalog entry \"%1\" appears twice.").arg(e.id));
        }
        entries.append(e);
    }
    if (entries.isEmpty())
        return fail(CatalogEntry::tr("The model catalog is empty."));
    return entries;
}

const QList<CatalogEntry>& builtinCatalog()
{
    static const QList<CatalogEntry> catalog = [] {
        QFile file(QStringLiteral(":/hearth/catalog/models.json"));
        if (!file.open(QIODevice::ReadOnly))
            return QList<CatalogEntry>();
        return parseCatalog(file.readAll()).value_or(QList<CatalogEntry>());
    }();
    return catalog;
}

QString formatSize(quint64 bytes, bool approximate)
{
    // Small files (a tokenizer, a config) in kB rather than "0 MB".
    const double gb = static_cast<double>(bytes) / 1e9;
    const QString number = gb >= 1.0 ? CatalogEntry::tr("%1 GB").arg(QLocale().toString(gb, 'f', 1))
        : bytes >= 1000000           ? CatalogEntry::tr("%1 MB").arg(QLocale().toString(static_cast<double>(bytes) / 1e6, 'f', 0))
        : bytes >= 1000              ? CatalogEntry::tr("%1 kB").arg(QLocale().toString(static_cast<double>(bytes) / 1e3, 'f', 0))
                                     : CatalogEntry::tr("%n byte(s)", nullptr, int(bytes));
    return approximate ? CatalogEntry::tr("≈ %1").arg(number) : number;
}

} // namespace hearth::models
