// SPDX-License-Identifier: MIT
#include "catalogdescriptions.h"

#include <QCoreApplication>

namespace hearth::models {

namespace {

constexpr const char* kContext = "hearth::models::CatalogDescription";

// One line per description of resources/catalog/models.json, word for word.
constexpr const char* kDescriptions[] = {
    QT_TRANSLATE_NOOP("hearth::models::CatalogDescription", "Alibaba's Qwen 3, 4B: a reasoning model that thinks in <think> blocks (shown folded) before it answers; 32k-token context."),
    QT_TRANSLATE_NOOP("hearth::models::CatalogDescription", "Qwen 3, 8B: strong reasoning, coding and many languages; thinks before it answers; 32k-token context."),
    QT_TRANSLATE_NOOP("hearth::models::CatalogDescription", "Qwen 3, 14B: the largest dense Qwen 3 that suits 16 GB of RAM; thinks before it answers; 32k-token context."),
    QT_TRANSLATE_NOOP("hearth::models::CatalogDescription", "Qwen 3, 30B mixture of experts: each token runs 3B of its parameters, so it answers about as fast as a 3B model with the knowledge of a much larger one; thinks before it answers."),
    QT_TRANSLATE_NOOP("hearth::models::CatalogDescription", "OpenAI's gpt-oss-20b: a mixture of experts that runs 3.6B of its 21B parameters per token, in OpenAI's own 4-bit MXFP4 weights; reasons before it answers (shown folded)."),
    QT_TRANSLATE_NOOP("hearth::models::CatalogDescription", "Meta's Llama 3.1 8B Instruct: a capable general assistant with a 128k-token context."),
    QT_TRANSLATE_NOOP("hearth::models::CatalogDescription", "Meta's Llama 3.2 3B Instruct: small and quick, good for laptops; 128k-token context."),
    QT_TRANSLATE_NOOP("hearth::models::CatalogDescription", "Google's Gemma 3 4B (text): five local layers to one global keep long chats small in memory; 128k-token context."),
    QT_TRANSLATE_NOOP("hearth::models::CatalogDescription", "Google's Gemma 3 12B (text): strong writing and many languages; 128k-token context."),
    QT_TRANSLATE_NOOP("hearth::models::CatalogDescription", "Mistral 7B Instruct v0.3: a dependable all-rounder with a 32k-token context."),
    QT_TRANSLATE_NOOP("hearth::models::CatalogDescription", "Microsoft's Phi-4-mini: 3.8B, good at reasoning and maths for its size; 128k-token context."),
    QT_TRANSLATE_NOOP("hearth::models::CatalogDescription", "Llama 2 7B fine-tuned to ReLU-gated FFNs; PowerInfer file with predictors. About 70% of FFN neurons stay silent per token."),
    QT_TRANSLATE_NOOP("hearth::models::CatalogDescription", "Llama 2 13B with ReLU-gated FFNs and predictors, ready for hybrid GPU/CPU inference."),
    QT_TRANSLATE_NOOP("hearth::models::CatalogDescription", "Llama 2 70B with ReLU-gated FFNs and predictors. Needs about 40 GB of RAM plus GPU memory."),
    QT_TRANSLATE_NOOP("hearth::models::CatalogDescription", "Llama 2 7B trained for high activation sparsity (about 89% of FFN neurons inactive) with quality close to the original."),
    QT_TRANSLATE_NOOP("hearth::models::CatalogDescription", "Llama 2 13B trained for high activation sparsity (about 89%); PowerInfer file with predictors."),
    QT_TRANSLATE_NOOP("hearth::models::CatalogDescription", "Mistral-sized model with ReLU on both gate and up: keeping only the top 10% of neurons barely changes perplexity (6.48 to 6.52)."),
    QT_TRANSLATE_NOOP("hearth::models::CatalogDescription", "Bamboo-7B tuned for chat with DPO; the fastest sparse chat model in the catalog."),
    QT_TRANSLATE_NOOP("hearth::models::CatalogDescription", "Falcon 40B with ReLU FFNs and predictors; PowerInfer's headline model (up to 11.7x llama.cpp in FP16 on one RTX 4090)."),
    QT_TRANSLATE_NOOP("hearth::models::CatalogDescription", "Original Hugging Face weights; Hearth converts them to GGUF and adds the predictors from PowerInfer/ReluLLaMA-7B-Predictor."),
    QT_TRANSLATE_NOOP("hearth::models::CatalogDescription", "Original weights, converted on this machine with the predictors from PowerInfer/ReluLLaMA-13B-Predictor."),
    QT_TRANSLATE_NOOP("hearth::models::CatalogDescription", "Original FP32 weights (very large); converted on this machine with the predictors from PowerInfer/ReluFalcon-40B-Predictor."),
    QT_TRANSLATE_NOOP("hearth::models::CatalogDescription", "Meta's OPT 1.3B: natively ReLU, so activations are sparse, but no predictors ship for it; runs dense after conversion to GGUF."),
    QT_TRANSLATE_NOOP("hearth::models::CatalogDescription", "Meta's OPT 2.7B: natively ReLU, so activations are sparse, but no predictors ship for it; runs dense after conversion to GGUF."),
    QT_TRANSLATE_NOOP("hearth::models::CatalogDescription", "Meta's OPT 6.7B: natively ReLU, so activations are sparse, but no predictors ship for it; runs dense after conversion to GGUF."),
    QT_TRANSLATE_NOOP("hearth::models::CatalogDescription", "Meta's OPT 13B: natively ReLU, so activations are sparse, but no predictors ship for it; runs dense after conversion to GGUF."),
    QT_TRANSLATE_NOOP("hearth::models::CatalogDescription", "Meta's OPT 30B: natively ReLU, so activations are sparse, but no predictors ship for it; runs dense after conversion to GGUF."),
    QT_TRANSLATE_NOOP("hearth::models::CatalogDescription", "Meta's OPT 66B: natively ReLU, so activations are sparse, but no predictors ship for it; runs dense after conversion to GGUF."),
};

} // namespace

QString translatedDescription(const QString& english)
{
    return QCoreApplication::translate(kContext, english.toUtf8().constData());
}

QStringList translatableDescriptions()
{
    QStringList list;
    for (const char* text : kDescriptions)
        list.append(QString::fromUtf8(text));
    return list;
}

} // namespace hearth::models
