// SPDX-License-Identifier: MIT
// Hugging Face search results classified by what Hearth can run: sparse, dense only or not at
// all, from ids, tags and file listings (fixtures shaped like the Hub's answers).

#include "hubsearch.h"

#include <QTest>

using namespace hearth;
using namespace hearth::models;

namespace {

HfModelSummary hit(const char* id, QStringList tags)
{
    HfModelSummary m;
    m.id = QLatin1String(id);
    m.tags = std::move(tags);
    return m;
}

HfFileEntry file(const char* path)
{
    HfFileEntry f;
    f.path = QLatin1String(path);
    f.type = QStringLiteral("file");
    return f;
}

const QStringList gguf = { QStringLiteral("gguf") };

} // namespace

Q_DECLARE_METATYPE(hearth::models::HubClassification::Support)

class TestHubClassification : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void classifies_data()
    {
        QTest::addColumn<HfModelSummary>("model");
        QTest::addColumn<QList<HfFileEntry>>("files");
        QTest::addColumn<HubClassification::Support>("support");
        QTest::addColumn<QString>("architecture");

        using S = HubClassification;
        QTest::newRow("powerinfer gguf by id") << hit(
            "PowerInfer/ReluLLaMA-7B-PowerInfer-GGUF", { QStringLiteral("llama"), QStringLiteral("gguf") })
                                               << QList<HfFileEntry> {} << S::RunsSparse
                                               << QStringLiteral("llama");
        QTest::newRow("powerinfer gguf by file name")
            << hit("someone/bamboo-mirror", gguf)
            << QList<HfFileEntry> { file("bamboo-7b-v0.1.Q4_0.powerinfer.gguf") } << S::RunsSparse
            << QStringLiteral("bamboo");
        QTest::newRow("catalog gguf repo")
            << hit("PowerInfer/prosparse-llama-2-7b-gguf", gguf) << QList<HfFileEntry> {} << S::RunsSparse
            << QStringLiteral("llama");
        QTest::newRow("gguf with activation folder")
            << hit("someone/relu-llama-gguf", { QStringLiteral("llama"), QStringLiteral("gguf") })
            << QList<HfFileEntry> { file("model.gguf"), file("activation/activation_0.pt") } << S::RunsSparse
            << QStringLiteral("llama");
        QTest::newRow("source with predictor repo")
            << hit("SparseLLM/ReluLLaMA-13B", { QStringLiteral("llama"), QStringLiteral("safetensors") })
            << QList<HfFileEntry> {} << S::RunsSparse << QStringLiteral("llama");
        QTest::newRow("plain llama gguf")
            << hit("TheBloke/Llama-2-7B-GGUF", { QStringLiteral("llama"), QStringLiteral("gguf") })
            << QList<HfFileEntry> { file("llama-2-7b.Q4_0.gguf") } << S::DenseOnly << QStringLiteral("llama");
        QTest::newRow("falcon gguf from the id")
            << hit("someone/falcon-7b-gguf", gguf) << QList<HfFileEntry> {} << S::DenseOnly
            << QStringLiteral("falcon");
        QTest::newRow("opt pytorch") << hit(
            "facebook/opt-1.3b", { QStringLiteral("opt"), QStringLiteral("pytorch") })
                                     << QList<HfFileEntry> { file("pytorch_model.bin") } << S::DenseOnly
                                     << QStringLiteral("opt");
        QTest::newRow("qwen gguf") << hit(
            "Qwen/Qwen2-7B-Instruct-GGUF", { QStringLiteral("qwen2"), QStringLiteral("gguf") })
                                   << QList<HfFileEntry> {} << S::DenseOnly << QStringLiteral("qwen2");
        QTest::newRow("qwen3 gguf from the id")
            << hit("unsloth/Qwen3-8B-GGUF", gguf) << QList<HfFileEntry> { file("Qwen3-8B-Q4_K_M.gguf") }
            << S::DenseOnly << QStringLiteral("qwen3");
        QTest::newRow("phi3 gguf") << hit(
            "microsoft/Phi-3-mini-4k-instruct-gguf", { QStringLiteral("phi3"), QStringLiteral("gguf") })
                                   << QList<HfFileEntry> {} << S::DenseOnly << QStringLiteral("phi3");
        QTest::newRow("qwen3 safetensors converts") << hit(
            "Qwen/Qwen3-4B", { QStringLiteral("qwen3"), QStringLiteral("safetensors") })
                                                    << QList<HfFileEntry> {} << S::DenseOnly << QStringLiteral("qwen3");
        QTest::newRow("gemma2 safetensors converts") << hit(
            "google/gemma-2-2b-it", { QStringLiteral("gemma2"), QStringLiteral("safetensors") })
                                                     << QList<HfFileEntry> {} << S::DenseOnly << QStringLiteral("gemma2");
        QTest::newRow("gemma3 safetensors converts") << hit(
            "google/gemma-3-4b-it", { QStringLiteral("gemma3"), QStringLiteral("safetensors") })
                                                     << QList<HfFileEntry> {} << S::DenseOnly << QStringLiteral("gemma3");
        QTest::newRow("mpt safetensors does not") << hit(
            "mosaicml/mpt-7b", { QStringLiteral("mpt"), QStringLiteral("safetensors") })
                                                  << QList<HfFileEntry> {} << S::Unsupported << QStringLiteral("mpt");
        QTest::newRow("qwen3 moe gguf") << hit(
            "Qwen/Qwen3-30B-A3B-GGUF", { QStringLiteral("qwen3_moe"), QStringLiteral("gguf") })
                                        << QList<HfFileEntry> {} << S::DenseOnly << QStringLiteral("qwen3_moe");
        QTest::newRow("qwen3 moe gguf from the id")
            << hit("unsloth/Qwen3-30B-A3B-GGUF", gguf) << QList<HfFileEntry> {} << S::DenseOnly
            << QStringLiteral("qwen3_moe");
        QTest::newRow("qwen3 moe safetensors convert") << hit(
            "Qwen/Qwen3-30B-A3B", { QStringLiteral("qwen3_moe"), QStringLiteral("safetensors") })
                                        << QList<HfFileEntry> {} << S::DenseOnly << QStringLiteral("qwen3_moe");
        QTest::newRow("mixtral safetensors convert") << hit(
            "mistralai/Mixtral-8x7B-Instruct-v0.1", { QStringLiteral("mixtral"), QStringLiteral("safetensors") })
                                        << QList<HfFileEntry> {} << S::DenseOnly << QStringLiteral("mixtral");
        QTest::newRow("gpt-oss gguf") << hit("ggml-org/gpt-oss-20b-GGUF", { QStringLiteral("gpt_oss"), QStringLiteral("gguf") })
                                      << QList<HfFileEntry> {} << S::DenseOnly << QStringLiteral("gpt_oss");
        QTest::newRow("gpt-oss gguf from the id") << hit("unsloth/gpt-oss-120b-GGUF", gguf) << QList<HfFileEntry> {}
                                                  << S::DenseOnly << QStringLiteral("gpt_oss");
        QTest::newRow("mistral gguf") << hit("bartowski/Mistral-7B-Instruct-v0.3-GGUF", gguf)
                                      << QList<HfFileEntry> { file("Mistral-7B-Instruct-v0.3-Q4_K_M.gguf") }
                                      << S::DenseOnly << QStringLiteral("mistral");
        QTest::newRow("mistral safetensors converts") << hit(
            "mistralai/Mistral-7B-Instruct-v0.3", { QStringLiteral("mistral"), QStringLiteral("safetensors") })
                                                      << QList<HfFileEntry> {} << S::DenseOnly << QStringLiteral("mistral");
        QTest::newRow("ministral gguf by tag") << hit(
            "someone/Ministral-8B-Instruct-2410-GGUF", { QStringLiteral("mistral"), QStringLiteral("gguf") })
                                               << QList<HfFileEntry> {} << S::DenseOnly << QStringLiteral("mistral");
        QTest::newRow("mixtral gguf") << hit("TheBloke/Mixtral-8x7B-Instruct-v0.1-GGUF", gguf) << QList<HfFileEntry> {}
                                      << S::DenseOnly << QStringLiteral("mixtral");
        QTest::newRow("gemma3 gguf from the id") << hit("unsloth/gemma-3-4b-it-GGUF", gguf) << QList<HfFileEntry> {}
                                                 << S::DenseOnly << QStringLiteral("gemma3");
        QTest::newRow("gemma3 text checkpoint") << hit(
            "google/gemma-3-1b-it", { QStringLiteral("gemma3_text"), QStringLiteral("safetensors") })
                                                << QList<HfFileEntry> {} << S::DenseOnly << QStringLiteral("gemma3_text");
        QTest::newRow("phi4 gguf from the id") << hit("unsloth/Phi-4-mini-instruct-GGUF", gguf) << QList<HfFileEntry> {}
                                               << S::DenseOnly << QStringLiteral("phi3");
        QTest::newRow("gemma 1 is not supported") << hit("google/gemma-7b", { QStringLiteral("gemma"), QStringLiteral("safetensors") })
                                                  << QList<HfFileEntry> {} << S::Unsupported << QStringLiteral("gemma");
        QTest::newRow("gpt2 safetensors")
            << hit("openai-community/gpt2", { QStringLiteral("gpt2"), QStringLiteral("safetensors") })
            << QList<HfFileEntry> {} << S::Unsupported << QStringLiteral("gpt2");
        QTest::newRow("unknown architecture") << hit("someone/mystery", { QStringLiteral("text-generation") })
                                              << QList<HfFileEntry> {} << S::Unsupported << QString();
        QTest::newRow("llama without weights")
            << hit("someone/llama-notes", { QStringLiteral("llama") })
            << QList<HfFileEntry> { file("README.md") } << S::Unsupported << QStringLiteral("llama");
        QTest::newRow("predictor repo alone")
            << hit("PowerInfer/ReluLLaMA-7B-Predictor", {}) << QList<HfFileEntry> { file("model_0.pt") }
            << S::Unsupported << QStringLiteral("llama");
    }

    void classifies()
    {
        QFETCH(HfModelSummary, model);
        QFETCH(QList<HfFileEntry>, files);
        QFETCH(HubClassification::Support, support);
        QFETCH(QString, architecture);
        const HubClassification c = classifyHubModel(model, files, builtinCatalog());
        QVERIFY2(c.support == support, qPrintable(c.supportName() + QStringLiteral(": ") + c.reason));
        QCOMPARE(c.architecture, architecture);
        QVERIFY(!c.reason.isEmpty());
    }

    void predictorRepoFromTheCatalog()
    {
        const HubClassification c = classifyHubModel(
            hit("SparseLLM/ReluFalcon-40B", { QStringLiteral("falcon") }), {}, builtinCatalog());
        QCOMPARE(c.predictorRepo, QStringLiteral("PowerInfer/ReluFalcon-40B-Predictor"));
        QVERIFY(c.reason.contains(c.predictorRepo));
    }

    void listModelRefinesWithFiles()
    {
        HubSearch search;
        search.setResults(
            { hit("someone/relu-model-gguf", { QStringLiteral("llama"), QStringLiteral("gguf") }),
                hit("Qwen/Qwen2-7B", { QStringLiteral("qwen2") }) });
        QCOMPARE(search.rowCount(), 2);
        QCOMPARE(search.index(0).data(HubSearch::SupportRole).toString(), QStringLiteral("dense"));
        QCOMPARE(search.index(1).data(HubSearch::SupportRole).toString(), QStringLiteral("unsupported"));
        search.setFiles(QStringLiteral("someone/relu-model-gguf"), { file("relu-model.powerinfer.gguf") });
        QCOMPARE(search.index(0).data(HubSearch::SupportRole).toString(), QStringLiteral("sparse"));
        QCOMPARE(search.roleNames().value(HubSearch::ReasonRole), QByteArray("reason"));
    }
};

QTEST_GUILESS_MAIN(TestHubClassification)
#include "tst_catalog_hub.moc"
