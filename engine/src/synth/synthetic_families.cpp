// SPDX-License-Identifier: MIT
#include "synth/synthetic_families.h"

#include "gguf/gguf_writer.h"
#include "synth/synthetic_bpe_vocab.h"

#include <cstdint>

namespace hearth::synth {

bool isFamilyArchitecture(std::string_view architecture)
{
    return architecture == "falcon" || architecture == "opt";
}

std::vector<ModelShape> familyShapes(std::string_view architecture)
{
    // Name, n_embd, n_ff, layers, heads, KV heads, vocabulary, context, LayerNorm epsilon.
    // The tiny shapes keep every size a multiple of 32 so all of them quantize to Q4_0/Q8_0.
    if (architecture == "falcon") {
        return {
            {"falcon-tiny", 64, 256, 2, 4, 1, 320, 256, 1e-5f, 10000.0f},     // 7B-style multi-query
            {"falcon-tiny-gqa", 64, 256, 2, 4, 2, 320, 256, 1e-5f, 10000.0f}, // 40B-style: 2 norms
            {"falcon-1b", 2048, 8192, 24, 32, 1, 65024, 2048, 1e-5f, 10000.0f},
            {"falcon-7b", 4544, 18176, 32, 71, 1, 65024, 2048, 1e-5f, 10000.0f},
            {"falcon-40b", 8192, 32768, 60, 128, 8, 65024, 2048, 1e-5f, 10000.0f},
        };
    }
    if (architecture == "opt") {
        return {
            {"opt-tiny", 64, 256, 2, 4, 4, 320, 256, 1e-5f, 10000.0f},
            {"opt-125m", 768, 3072, 12, 12, 12, 50272, 2048, 1e-5f, 10000.0f},
            {"opt-1.3b", 2048, 8192, 24, 32, 32, 50272, 2048, 1e-5f, 10000.0f},
            {"opt-6.7b", 4096, 16384, 32, 32, 32, 50272, 2048, 1e-5f, 10000.0f},
        };
    }
    return {};
}

Result<ModelShape> shapeByName(std::string_view architecture, std::string_view name)
{
    if (!isFamilyArchitecture(architecture))
        return shapeByName(name);
    std::string known;
    for (const ModelShape& shape : familyShapes(architecture)) {
        if (shape.name == name)
            return shape;
        known += (known.empty() ? "" : ", ") + shape.name;
    }
    return Result<ModelShape>(ErrorCode::InvalidArgument, "unknown " + std::string(architecture) + " shape '"
                                                               + std::string(name) + "' (known: " + known + ")");
}

Status validateFamilyOptions(const SynthOptions& options)
{
    const ModelShape& s = options.shape;
    HEARTH_TRY(s.validate());
    const auto style = options.architecture == "falcon" ? SyntheticBpeVocab::Style::Falcon : SyntheticBpeVocab::Style::Opt;
    if (s.vocabSize < SyntheticBpeVocab::minimumSize(style))
        return {ErrorCode::InvalidArgument,
                "the vocabulary size must be at least " + std::to_string(SyntheticBpeVocab::minimumSize(style))};
    const std::string& a = options.ffnActivation;
    if (options.architecture == "falcon") {
        if (a != "gelu" && a != "relu")
            return {ErrorCode::InvalidArgument, "falcon's FFN activation must be gelu or relu, not '" + a + "'"};
    } else if (options.architecture == "opt") {
        if (a != "relu")
            return {ErrorCode::InvalidArgument, "opt's FFN activation is relu, not '" + a + "'"};
        if (s.kvHeadCount != s.headCount)
            return {ErrorCode::InvalidArgument, "opt has as many KV heads as heads"};
    } else {
        return {ErrorCode::InvalidArgument, "unknown architecture '" + options.architecture + "'"};
    }
    if (options.activationSparsity != 0.0) {
        if (!(options.activationSparsity > 0.0 && options.activationSparsity < 1.0))
            return {ErrorCode::InvalidArgument, "the activation sparsity must be in (0, 1)"};
        if (a != "relu")
            return {ErrorCode::InvalidArgument, "activation sparsity needs a ReLU FFN"};
    }
    return {};
}

std::vector<SynthTensor> plannedFamilyTensors(const SynthOptions& options)
{
    return options.architecture == "falcon" ? plannedFalconTensors(options) : plannedOptTensors(options);
}

void declareFamilyMetadata(gguf::GgufWriter& writer, const SynthOptions& options)
{
    if (options.architecture == "falcon")
        declareFalconMetadata(writer, options);
    else
        declareOptMetadata(writer, options);
    if (!options.chatTemplate.empty())
        writer.setString("tokenizer.chat_template", options.chatTemplate);
}

void declareBpeVocabulary(gguf::GgufWriter& writer, const std::string& architecture, int vocabSize)
{
    const auto style = architecture == "falcon" ? SyntheticBpeVocab::Style::Falcon : SyntheticBpeVocab::Style::Opt;
    const SyntheticBpeVocab vocab = SyntheticBpeVocab::build(vocabSize, style);
    writer.setString("tokenizer.ggml.model", "gpt2");
    writer.setString("tokenizer.ggml.pre", vocab.preTokenizer);
    writer.setStringArray("tokenizer.ggml.tokens", vocab.tokens);
    writer.setInt32Array("tokenizer.ggml.token_type", vocab.types);
    writer.setStringArray("tokenizer.ggml.merges", vocab.merges);
    writer.setUInt32("tokenizer.ggml.bos_token_id", std::uint32_t(vocab.bos));
    writer.setUInt32("tokenizer.ggml.eos_token_id", std::uint32_t(vocab.eos));
    writer.setBool("tokenizer.ggml.add_bos_token", vocab.addBos);
    // Falcon-Instruct's plain "User:/Assistant:" turns: works with any vocabulary.
    writer.setString("tokenizer.chat_template",
                     "{% for message in messages %}"
                     "{% if message['role'] == 'user' %}{{ 'User: ' + message['content'] + '\n' }}"
                     "{% elif message['role'] == 'system' %}{{ message['content'] + '\n' }}"
                     "{% else %}{{ 'Assistant: ' + message['content'] + eos_token + '\n' }}{% endif %}"
                     "{% endfor %}"
                     "{% if add_generation_prompt %}{{ 'Assistant:' }}{% endif %}");
}

} // namespace hearth::synth
