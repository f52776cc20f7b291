// SPDX-License-Identifier: MIT
// The built-in model catalog: the JSON parses, every entry has what the planner and the
// downloads need, and ModelCatalog filters and exposes it with fit badges.

#include "app_test_support.h"
#include "catalogdescriptions.h"
#include "catalogentry.h"
#include "modelcatalog.h"

#include <hearth/model.h>
#include <hearth/placement.h>

#include <algorithm>
#include <cstdint>

#include <QFile>
#include <QLocale>
#include <QMap>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTest>

using namespace hearth::models;

class TestCatalog : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void builtinCatalogParses()
    {
        QFile file(QStringLiteral(":/hearth/catalog/models.json"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray json = file.readAll();
        QString error;
        const auto entries = parseCatalog(json, &error);
        QVERIFY2(entries.has_value(), qPrintable(error));
        QCOMPARE(builtinCatalog().size(), entries->size());
        // Hashes come from the repository's LFS metadata at download time, never from here.
        QVERIFY(!json.contains("sha256"));
        QVERIFY(!QString::fromUtf8(json).contains(QRegularExpression(QStringLiteral("[0-9a-f]{64}"))));
    }

    // Sizes read as a person would write them: no "0 MB" for a tokenizer file.
    void sizesOfEveryMagnitude()
    {
        QLocale::setDefault(QLocale::c());
        QCOMPARE(formatSize(2'500'000'000ull), QStringLiteral("2.5 GB"));
        QCOMPARE(formatSize(420'000'000ull), QStringLiteral("420 MB"));
        QCOMPARE(formatSize(3'500ull), QStringLiteral("4 kB"));
        QVERIFY(formatSize(999ull).startsWith(QStringLiteral("999 byte")));
        QCOMPARE(formatSize(3'500ull, true), QStringLiteral("≈ 4 kB"));
    }

    void everyEntryIsComplete()
    {
        const QList<CatalogEntry>& catalog = builtinCatalog();
        QVERIFY(catalog.size() >= 15);
        QStringList runnable; // what the engine's registry knows
        for (const hearth::ArchitectureName& a : hearth::supportedArchitectures())
            runnable << QString::fromStdString(a.name);
        for (const CatalogEntry& e : catalog) {
            QVERIFY2(!e.id.isEmpty() && !e.name.isEmpty() && !e.description.isEmpty(), qPrintable(e.id));
            QVERIFY2(e.repo.count(QLatin1Char('/')) == 1, qPrintable(e.repo));
            QVERIFY2(runnable.contains(e.architecture), qPrintable(e.id));
            QVERIFY2(!e.licence.isEmpty() && e.parameters > 0, qPrintable(e.id));
            QVERIFY2(!e.files.isEmpty(), qPrintable(e.id));
            for (const CatalogFile& f : e.files)
                QVERIFY2(f.size > 100'000'000 && !f.quantization.isEmpty(), qPrintable(e.id + f.name));
            // The planner accepts the numbers, and its weight total agrees with the first
            // file's size to within a third (the sizes are approximate; F32 sources plan as F16).
            auto model
                = hearth::PlacementModel::fromDescription(e.planningDescription(0), e.assumedSparsity());
            QVERIFY2(
                model.ok(), qPrintable(e.id + QLatin1Char(' ') + QString::fromStdString(model.message())));
            QCOMPARE(model->sparseCapable(), e.sparse);
            if (e.files.first().quantization != QLatin1String("F32")) {
                const double ratio = double(model->weightBytes()) / double(e.files.first().size);
                QVERIFY2(ratio > 0.67 && ratio < 1.5, qPrintable(e.id + QStringLiteral(": %1").arg(ratio)));
            }
        }
    }

    void coversThePowerInferFamily()
    {
        QStringList repos;
        for (const CatalogEntry& e : builtinCatalog())
            repos << e.repo;
        for (const char* repo : { "PowerInfer/ReluLLaMA-7B-PowerInfer-GGUF",
                 "PowerInfer/ReluLLaMA-13B-PowerInfer-GGUF", "PowerInfer/prosparse-llama-2-7b-gguf",
                 "PowerInfer/prosparse-llama-2-13b-gguf", "PowerInfer/Bamboo-base-v0.1-gguf",
                 "PowerInfer/Bamboo-DPO-v0.1-gguf", "PowerInfer/ReluFalcon-40B-PowerInfer-GGUF",
                 "SparseLLM/ReluLLaMA-7B", "facebook/opt-1.3b", "facebook/opt-66b" })
            QVERIFY2(repos.contains(QLatin1String(repo)), repo);
        for (const CatalogEntry& e : builtinCatalog()) {
            if (e.repo.startsWith(QLatin1String("SparseLLM/")))
                QVERIFY2(e.predictorRepo.endsWith(QLatin1String("-Predictor")), qPrintable(e.repo));
            if (e.architecture == QLatin1String("opt"))
                QVERIFY(!e.sparse && e.needsConversion());
        }
    }

    // The dense instruct models people chat with, each with its Q4_K_M file.
    void coversTodaysFamilies()
    {
        QMap<QString, QString> architectureOf;
        for (const CatalogEntry& e : builtinCatalog()) {
            if (!e.sparse && e.files.first().quantization == QLatin1String("Q4_K_M"))
                architectureOf.insert(e.name, e.architecture);
        }
        const std::pair<const char*, const char*> wanted[] = {
            { "Qwen3-4B", "qwen3" }, { "Qwen3-8B", "qwen3" }, { "Qwen3-14B", "qwen3" },
            { "Llama-3.1-8B-Instruct", "llama" }, { "Llama-3.2-3B-Instruct", "llama" },
            { "Gemma-3-4B-it", "gemma3" }, { "Gemma-3-12B-it", "gemma3" },
            { "Mistral-7B-Instruct-v0.3", "llama" }, { "Phi-4-mini-instruct", "phi3" },
        };
        for (const auto& [name, architecture] : wanted)
            QVERIFY2(architectureOf.value(QLatin1String(name)) == QLatin1String(architecture), name);
    }

    // Qwen3-30B-A3B: the plan counts all 128 experts' bytes and reads 8 of them a token, so it
    // expects nearly the speed of a model of its active parameters; on a 12 GB GPU its attention
    // and part of its experts go there.
    void mixtureOfExpertsPlansItsActiveExperts()
    {
        const auto moe = std::find_if(builtinCatalog().begin(), builtinCatalog().end(),
            [](const CatalogEntry& e) { return e.id == QLatin1String("qwen3-30b-a3b"); });
        QVERIFY(moe != builtinCatalog().end());
        QCOMPARE(moe->architecture, QStringLiteral("qwen3moe"));
        hearth::ModelDescription routed = moe->planningDescription(0);
        QCOMPARE(routed.expertCount, 128);
        QCOMPARE(routed.expertsUsed, 8);
        QCOMPARE(routed.expertFeedForwardSize, 768);
        hearth::ModelDescription everyExpert = routed;
        everyExpert.expertsUsed = everyExpert.expertCount;
        auto a = hearth::PlacementModel::fromDescription(routed, 0.0);
        auto b = hearth::PlacementModel::fromDescription(everyExpert, 0.0);
        QVERIFY(a.ok() && b.ok());
        QCOMPARE(a->weightBytes(), b->weightBytes());
        hearth::PlacementRequest r;
        r.contextLength = 4096;
        const auto planned = a->plan(r);
        const auto dense = b->plan(r);
        QVERIFY(planned.ok() && dense.ok());
        QVERIFY(planned->mixtureOfExperts && planned->cpuOnly());
        r.budgetBytes = std::uint64_t(12) << 30;
        const auto onGpu = a->plan(r);
        QVERIFY(onGpu.ok());
        QCOMPARE(onGpu->attentionLayersOnGpu(), 48);
        QCOMPARE(onGpu->expertCount(), 48 * 128);
        QVERIFY(onGpu->gpuExpertCount() > 0 && onGpu->gpuExpertCount() < onGpu->expertCount());
        QVERIFY(onGpu->tokensPerSecond > planned->tokensPerSecond);
        // 3.3B of 30.5B parameters a token: several times the speed of reading every expert.
        QVERIFY2(planned->tokensPerSecond > 5 * dense->tokensPerSecond,
                 qPrintable(QStringLiteral("%1 vs %2").arg(planned->tokensPerSecond).arg(dense->tokensPerSecond)));
    }

    // Gemma 3's five local layers to one global keep a window's rows of cache: at 32k tokens
    // the plan counts 8 x 32768 + 40 x 2047 rows for 12B, not 48 x 32768.
    void slidingWindowsShrinkThePlannedCache()
    {
        const auto gemma = std::find_if(builtinCatalog().begin(), builtinCatalog().end(),
            [](const CatalogEntry& e) { return e.id == QLatin1String("gemma-3-12b-it"); });
        QVERIFY(gemma != builtinCatalog().end());
        QCOMPARE(gemma->slidingWindow, 1024);
        hearth::ModelDescription windowed = gemma->planningDescription(0);
        hearth::ModelDescription full = windowed;
        full.slidingWindow = 0;
        hearth::PlacementRequest r;
        r.budgetBytes = std::uint64_t(64) << 30; // everything fits
        r.contextLength = 32768;
        r.batchSize = 512;
        auto small = hearth::PlacementModel::fromDescription(windowed, 0.0);
        auto large = hearth::PlacementModel::fromDescription(full, 0.0);
        QVERIFY(small.ok() && large.ok());
        const auto a = small->plan(r);
        const auto b = large->plan(r);
        QVERIFY(a.ok() && b.ok());
        QCOMPARE(a->gpu.kvCache * 48 * 32768, b->gpu.kvCache * (8 * 32768 + 40 * 2047));
    }

    void rejectsBrokenCatalogs()
    {
        QString error;
        QVERIFY(!parseCatalog("{", &error));
        QVERIFY(!error.isEmpty());
        QVERIFY(!parseCatalog(R"({"version": 2, "models": []})"));
        QVERIFY(!parseCatalog(R"({"version": 1, "models": []})"));
        // A sparse entry without its predictor width, and one without files.
        const char* missing
            = R"({"version": 1, "models": [{"id": "x", "name": "X", "repo": "a/b", "format": "gguf",
            "architecture": "llama", "sparse": true, "licence": "mit", "parameters": 1e9,
            "shape": {"layers": 2, "embedding": 64, "heads": 4, "feedForward": 128, "vocab": 100},
            "files": [{"name": "x.gguf", "quantization": "F16", "size": 1000}], "description": "d"}]})";
        QVERIFY(!parseCatalog(missing, &error));
        QVERIFY(error.contains(QLatin1String("\"x\"")));
    }

    void filtersAndExposesRoles()
    {
        MachineInfo machine;
        machine.ramBytes = 64ull << 30;
        ModelCatalog catalog(builtinCatalog(), machine, std::make_unique<FixedGpuInfo>(0));
        const int all = catalog.rowCount();
        QCOMPARE(all, builtinCatalog().size());
        QSignalSpy countSpy(&catalog, &ModelCatalog::countChanged);

        catalog.setFilter(QStringLiteral("bamboo"));
        QCOMPARE(catalog.rowCount(), 2);
        QCOMPARE(countSpy.count(), 1);
        catalog.setFilter(QStringLiteral("OPT 66"));
        QCOMPARE(catalog.rowCount(), 1);
        QCOMPARE(catalog.data(catalog.index(0), ModelCatalog::RepoRole).toString(),
            QStringLiteral("facebook/opt-66b"));
        catalog.setFilter(QStringLiteral("no such model"));
        QCOMPARE(catalog.rowCount(), 0);
        catalog.setFilter(QString());
        QCOMPARE(catalog.rowCount(), all);

        const QHash<int, QByteArray> roles = catalog.roleNames();
        QCOMPARE(roles.value(ModelCatalog::FitTextRole), QByteArray("fitText"));
        const int row = catalog.rowOf(QStringLiteral("relullama-7b"));
        QVERIFY(row >= 0);
        const QModelIndex index = catalog.index(row);
        QCOMPARE(index.data(ModelCatalog::SparseRole).toBool(), true);
        QCOMPARE(index.data(ModelCatalog::QuantizationRole).toString(), QStringLiteral("Q4_0"));
        QVERIFY(index.data(ModelCatalog::SizeTextRole).toString().startsWith(QStringLiteral("≈")));
        QCOMPARE(index.data(ModelCatalog::FilesRole).toList().size(), 2);
        // No GPU here: the badge says CPU only with a speed.
        QCOMPARE(index.data(ModelCatalog::FitKindRole).toString(), QStringLiteral("cpuOnly"));
        QVERIFY(index.data(ModelCatalog::TokensPerSecondRole).toDouble() > 0);

        // "Plan for a GPU of 24 GB" changes the badges in place.
        QSignalSpy changed(&catalog, &QAbstractItemModel::dataChanged);
        catalog.setPreviewGpuGiB(24);
        QCOMPARE(changed.count(), 1);
        QCOMPARE(index.data(ModelCatalog::FitKindRole).toString(), QStringLiteral("fullyOnGpu"));
    }

    void textsFollowTheLanguage()
    {
        // A language switch installs a translator; the badges, parameter counts and sizes the
        // views show must come again in the new language, not stay in the old one beside it.
        MachineInfo machine;
        machine.ramBytes = 64ull << 30;
        ModelCatalog catalog(builtinCatalog(), machine, std::make_unique<FixedGpuInfo>(0));
        const QModelIndex first = catalog.index(0);
        const QString badge = first.data(ModelCatalog::FitTextRole).toString();
        QVERIFY(!badge.startsWith(QStringLiteral("[zz]")));
        QSignalSpy changed(&catalog, &QAbstractItemModel::dataChanged);
        hearth::test::MarkingTranslator translator;
        QCoreApplication::installTranslator(&translator);
        QVERIFY(changed.count() >= 1);
        QCOMPARE(changed.last().at(0).toModelIndex().row(), 0);
        QCOMPARE(changed.last().at(1).toModelIndex().row(), catalog.rowCount() - 1);
        QVERIFY(first.data(ModelCatalog::FitTextRole).toString().startsWith(QStringLiteral("[zz] ")));
        QVERIFY(first.data(ModelCatalog::ParametersTextRole).toString().startsWith(QStringLiteral("[zz] ")));
        for (int row = 0; row < catalog.rowCount(); ++row) {
            const QString description = catalog.index(row).data(ModelCatalog::DescriptionRole).toString();
            QVERIFY2(description.startsWith(QStringLiteral("[zz] ")), qPrintable(description));
        }
        QCoreApplication::removeTranslator(&translator);
        QCOMPARE(first.data(ModelCatalog::FitTextRole).toString(), badge);
    }

    // Every description of the catalog is one the translations list, word for word.
    void everyDescriptionIsTranslatable()
    {
        const QStringList known = hearth::models::translatableDescriptions();
        for (const CatalogEntry& e : builtinCatalog())
            QVERIFY2(known.contains(e.description), qPrintable(e.id + QStringLiteral(": not in catalogdescriptions.cpp")));
    }
};

QTEST_GUILESS_MAIN(TestCatalog)
#include "tst_catalog.moc"
