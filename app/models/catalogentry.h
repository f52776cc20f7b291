// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// One model of the built-in catalog (resources/catalog/models.json) and its parser.

#include <hearth/placement.h>

#include <QCoreApplication>
#include <QList>
#include <QString>
#include <QtGlobal>

#include <optional>

namespace hearth::models {

struct CatalogFile
{
    QString name; ///< file name in the repository; "*" for every weight file of a checkpoint
    QString quantization; ///< "Q4_0", "F16", "F32"
    quint64 size = 0; ///< bytes
    bool sizeApprox = true;
};

struct CatalogEntry
{
    Q_DECLARE_TR_FUNCTIONS(CatalogEntry)

public:
    QString id; ///< stable key, e.g. "relullama-7b"
    QString name;
    QString repo; ///< Hugging Face "owner/name"
    QString format; ///< "gguf", "safetensors" or "pytorch" (the last two need conversion)
    QString architecture; ///< "llama", "bamboo", "falcon", "opt"
    bool sparse = false; ///< predictors ship with the file or in predictorRepo
    QString predictorRepo;
    QString sourceRepo;
    QString licence;
    quint64 parameters = 0;
    int layers = 0;
    int embedding = 0;
    int heads = 0;
    int kvHeads = 0;
    int headDim = 0; // 0: embedding / heads
    int slidingWindow = 0;       // ModelDescription::slidingWindow
    int slidingWindowPeriod = 0; // ModelDescription::slidingWindowPeriod
    int feedForward = 0;
    int experts = 0;            // ModelDescription::expertCount; 0: a dense FFN
    int expertsUsed = 0;        // ModelDescription::expertsUsed
    int expertFeedForward = 0;  // ModelDescription::expertFeedForwardSize
    int vocab = 0;
    int predictorHidden = 0;
    std::optional<double> reportedSparsity; ///< share of FFN neurons inactive per token
    QList<CatalogFile> files;
    QString description;

    [[nodiscard]] bool needsConversion() const { return format != QLatin1String("gguf"); }
    /// The numbers the planner needs, for @p fileIndex's quantization (F32 sources plan as F16:
    /// conversion writes F16 or smaller).
    [[nodiscard]] ModelDescription planningDescription(int fileIndex = 0) const;
    /// What the planner should assume when no statistics are at hand.
    [[nodiscard]] double assumedSparsity() const;
};

/// Parses the catalog. Entries missing a required field are rejected with a message naming
/// them, so a broken edit of the JSON fails the tests instead of showing half a model.
[[nodiscard]] std::optional<QList<CatalogEntry>> parseCatalog(
    const QByteArray& json, QString* error = nullptr);

/// The catalog compiled into the library (:/hearth/catalog/models.json).
[[nodiscard]] const QList<CatalogEntry>& builtinCatalog();

/// "≈ 4.1 GB" / "13.9 GB" in decimal units, as download sizes are usually given.
[[nodiscard]] QString formatSize(quint64 bytes, bool approximate = false);

} // namespace hearth::models
