// SPDX-License-Identifier: MIT
#include "synth/model_shape.h"

#include "synth/synthetic_vocab.h"

namespace hearth::synth {

namespace {

// @p shape with YaRN scaling (gpt-oss: 32x over 4096 tokens).
ModelShape withYarn(ModelShape shape, float factor, int originalContext)
{
    shape.ropeYarnFactor = factor;
    shape.yarnOriginalContext = originalContext;
    return shape;
}

// @p shape with a mixture of experts in every layer.
ModelShape withExperts(ModelShape shape, int count, int used, int width, int sharedWidth = 0, int gating = 0)
{
    shape.expertCount = count;
    shape.expertUsedCount = used;
    shape.expertFeedForwardSize = width;
    shape.sharedExpertFeedForwardSize = sharedWidth;
    shape.expertGating = gating;
    return shape;
}

std::vector<ModelShape> knownShapes()
{
    // n_ff of "tiny" is a multiple of 32 (unlike llama's 2/3 * 4 * n_embd rounding to 172/176)
    // so that every matrix can be stored as Q4_0/Q8_0, whose blocks hold 32 elements.
    return {
        {"tiny", 64, 192, 2, 4, 2, 320, 256, 1e-5f, 10000.0f},
        // The smallest shape whose rows are whole 256-weight super-blocks (K-quants, IQ4_XS).
        {"tiny-256", 256, 768, 2, 4, 2, 320, 256, 1e-5f, 10000.0f},
        {"tinyllama-1.1b", 2048, 5632, 22, 32, 4, 32000, 2048, 1e-5f, 10000.0f},
        {"llama2-7b", 4096, 11008, 32, 32, 32, 32000, 4096, 1e-5f, 10000.0f},
        {"llama2-13b", 5120, 13824, 40, 40, 40, 32000, 4096, 1e-5f, 10000.0f},
        // Llama 3.1's RoPE (base 500000 and rope_freqs) at the tiny size; an original context of
        // 64 puts the blended band among its eight rotated pairs.
        {"llama3-tiny", 64, 192, 2, 4, 2, 320, 2048, 1e-5f, 500000.0f, {8.0f, 1.0f, 4.0f, 64}},
        {"llama3.1-8b", 4096, 14336, 32, 32, 8, 128256, 131072, 1e-5f, 500000.0f, {8.0f, 1.0f, 4.0f, 8192}},
        {"llama3.2-1b", 2048, 8192, 16, 32, 8, 128256, 131072, 1e-5f, 500000.0f, {32.0f, 1.0f, 4.0f, 8192}, 0, 0, 0, true},
        // Mistral 7B v0.1's sliding window, at the tiny size: 8 keys.
        {"mistral-tiny", 64, 192, 2, 4, 2, 320, 1024, 1e-5f, 10000.0f, {0.0f}, 0, 8},
        {"mistral-7b", 4096, 14336, 32, 32, 8, 32000, 32768, 1e-5f, 10000.0f, {0.0f}, 0, 4096},
        // Qwen: write them with --arch qwen2 / qwen3. qwen3-tiny's heads are wider than
        // n_embd / n_head, as Qwen3-0.6B's are (16 heads of 128 in 1024).
        {"qwen2-tiny", 64, 192, 2, 4, 2, 320, 1024, 1e-6f, 1000000.0f},
        {"qwen3-tiny", 64, 192, 2, 4, 2, 320, 1024, 1e-6f, 1000000.0f, {0.0f}, 32},
        {"qwen2.5-7b", 3584, 18944, 28, 28, 4, 152064, 32768, 1e-6f, 1000000.0f},
        {"qwen3-0.6b", 1024, 3072, 28, 16, 8, 151936, 40960, 1e-6f, 1000000.0f, {0.0f}, 128},
        {"qwen3-8b", 4096, 12288, 36, 32, 8, 151936, 40960, 1e-6f, 1000000.0f, {0.0f}, 128},
        // Phi: write them with --arch phi3. phi3-tiny has a sliding window of 8 keys and LongRoPE
        // factors whose short ones serve sessions up to 256 tokens.
        {"phi3-tiny", 64, 192, 2, 4, 2, 320, 1024, 1e-5f, 10000.0f, {0.0f}, 0, 8, 256},
        {"phi3-mini-4k", 3072, 8192, 32, 32, 32, 32064, 4096, 1e-5f, 10000.0f, {0.0f}, 0, 2047},
        {"phi4-mini", 3072, 8192, 32, 24, 8, 200064, 131072, 1e-5f, 10000.0f, {0.0f}, 0, 0, 4096, true},
        // Gemma 2: write them with --arch gemma2. The tiny one has Gemma 2 2B's 26 layers (the
        // layer count llama.cpp tells its models apart by), heads twice as wide as n_embd / n_head
        // like 9B's, a window of 8 keys on the even layers and small caps that bite.
        {"gemma2-tiny", 64, 192, 26, 4, 2, 320, 1024, 1e-6f, 10000.0f, {0.0f}, 32, 8, 0, true, 5.0f, 15.0f},
        {"gemma2-2b", 2304, 9216, 26, 8, 4, 256000, 8192, 1e-6f, 10000.0f, {0.0f}, 256, 4096, 0, true, 50.0f, 30.0f},
        {"gemma2-9b", 3584, 14336, 42, 16, 8, 256000, 8192, 1e-6f, 10000.0f, {0.0f}, 256, 4096, 0, true, 50.0f, 30.0f},
        // Gemma 3: write them with --arch gemma3. The tiny one has two groups of five local layers
        // (a window of 8 keys, base 10000) and one global (base 1M, linear scaling 8x, as 4B and up).
        {"gemma3-tiny", 64, 192, 12, 4, 2, 320, 2048, 1e-6f, 1000000.0f, {0.0f}, 32, 8, 0, true, 0.0f, 0.0f, 8.0f},
        {"gemma3-1b", 1152, 6912, 26, 4, 1, 262144, 32768, 1e-6f, 1000000.0f, {0.0f}, 256, 512, 0, true},
        {"gemma3-4b", 2560, 10240, 34, 8, 4, 262208, 131072, 1e-6f, 1000000.0f, {0.0f}, 256, 1024, 0, true, 0.0f, 0.0f, 8.0f},
        {"gemma3-12b", 3840, 15360, 48, 16, 8, 262208, 131072, 1e-6f, 1000000.0f, {0.0f}, 256, 1024, 0, true, 0.0f, 0.0f, 8.0f},
        // Mixtures of experts. Mixtral is a llama file (--arch llama) whose experts are
        // feed_forward_length wide; Qwen's say their width (--arch qwen3moe / qwen2moe). The tiny
        // ones have 8 experts, of which a token takes 2 (4 for Qwen 2 MoE, with a shared expert).
        withExperts({"mixtral-tiny", 64, 64, 2, 4, 2, 320, 1024, 1e-5f, 1000000.0f}, 8, 2, 0),
        withExperts({"mixtral-8x7b", 4096, 14336, 32, 32, 8, 32000, 32768, 1e-5f, 1000000.0f}, 8, 2, 0),
        withExperts({"qwen3moe-tiny", 64, 192, 2, 4, 2, 320, 1024, 1e-6f, 1000000.0f, {0.0f}, 32}, 8, 2, 64),
        withExperts({"qwen3-30b-a3b", 2048, 6144, 48, 32, 4, 151936, 40960, 1e-6f, 1000000.0f, {0.0f}, 128}, 128, 8, 768),
        withExperts({"qwen2moe-tiny", 64, 192, 2, 4, 2, 320, 1024, 1e-6f, 1000000.0f}, 8, 4, 32, 128),
        withExperts({"qwen1.5-moe-a2.7b", 2048, 5632, 24, 16, 16, 151936, 8192, 1e-6f, 1000000.0f}, 60, 4, 1408, 5632),
        // SmallThinker (--arch smallthinker): a window on three layers of four (the file's value
        // only switches it on: 4096 keys), ReGLU experts, the gating written in the file. The tiny
        // ones have five layers, so two see every key without RoPE (0 and 4).
        withExperts({"smallthinker-tiny", 64, 192, 5, 4, 2, 320, 1024, 1e-6f, 1500000.0f, {0.0f}, 0, 4096}, 8, 2, 64, 0, 1),
        withExperts({"smallthinker-tiny-sigmoid", 64, 192, 5, 4, 2, 320, 1024, 1e-6f, 1500000.0f, {0.0f}, 0, 4096}, 8, 2, 64, 0, 2),
        withExperts({"smallthinker-4b-a0.6b", 1536, 4608, 32, 12, 2, 151936, 32768, 1e-6f, 1500000.0f, {0.0f}, 128, 4096}, 32, 4, 768, 0, 2),
        withExperts({"smallthinker-21b-a3b", 2560, 6144, 52, 28, 4, 151936, 16384, 1e-6f, 1500000.0f, {0.0f}, 128, 4096}, 64, 6, 768, 0, 1),
        // gpt-oss (--arch gpt-oss): heads of 64 whatever n_embd, a window on the even layers
        // (128 keys; 8 for the tiny one), YaRN 32x over 4096 tokens, 4 experts a token.
        withYarn(withExperts({"gpt-oss-tiny", 64, 64, 2, 4, 2, 320, 2048, 1e-5f, 150000.0f, {0.0f}, 32, 8}, 8, 4, 64), 32.0f, 4096),
        withYarn(withExperts({"gpt-oss-20b", 2880, 2880, 24, 64, 8, 201088, 131072, 1e-5f, 150000.0f, {0.0f}, 64, 128}, 32, 4, 2880), 32.0f, 4096),
        withYarn(withExperts({"gpt-oss-120b", 2880, 2880, 36, 64, 8, 201088, 131072, 1e-5f, 150000.0f, {0.0f}, 64, 128}, 128, 4, 2880), 32.0f, 4096),
    };
}

} // namespace

Status ModelShape::validate() const
{
    if (embeddingSize <= 0 || feedForwardSize <= 0 || layerCount <= 0 || headCount <= 0 || kvHeadCount <= 0
        || contextLength <= 0)
        return {ErrorCode::InvalidArgument, "every dimension of the shape must be positive"};
    if (layerCount > 1024)
        return {ErrorCode::InvalidArgument, "at most 1024 layers are supported"};
    if (keyLength < 0 || (keyLength == 0 && embeddingSize % headCount != 0))
        return {ErrorCode::InvalidArgument, "the embedding size must be a multiple of the head count"};
    if (headCount % kvHeadCount != 0)
        return {ErrorCode::InvalidArgument, "the head count must be a multiple of the KV head count"};
    if (headDim() % 2 != 0)
        return {ErrorCode::InvalidArgument, "the head dimension must be even (RoPE rotates pairs)"};
    // The generator's own vocabulary needs the three special tokens and the 256 byte tokens.
    if (vocabSize < SyntheticVocab::kMinimumSize || vocabSize > 1'000'000)
        return {ErrorCode::InvalidArgument, "the vocabulary size must be between " + std::to_string(SyntheticVocab::kMinimumSize)
                                                + " and 1000000"};
    if (embeddingSize % 32 != 0 || feedForwardSize % 32 != 0 || expertWidth() % 32 != 0
        || sharedExpertFeedForwardSize % 32 != 0)
        return {ErrorCode::InvalidArgument, "embedding and feed-forward sizes must be multiples of 32 (quantization blocks)"};
    if (expertGating < 0 || expertGating > 3)
        return {ErrorCode::InvalidArgument, "the expert gating function must be 1 (softmax), 2 (sigmoid) or 3"};
    if (expertCount < 0 || expertCount > 1024 || expertUsedCount < 0 || expertUsedCount > expertCount
        || (expertCount > 0 && expertUsedCount == 0))
        return {ErrorCode::InvalidArgument, "a mixture needs 1 to 1024 experts, of which a token uses at least one"};
    return {};
}

Result<ModelShape> shapeByName(std::string_view name)
{
    for (auto& shape : knownShapes()) {
        if (shape.name == name)
            return shape;
    }
    std::string known;
    for (const auto& n : knownShapeNames())
        known += (known.empty() ? "" : ", ") + n;
    return Result<ModelShape>(ErrorCode::InvalidArgument, "unknown shape '" + std::string(name) + "' (known: " + known + ")");
}

std::vector<std::string> knownShapeNames()
{
    std::vector<std::string> names;
    for (const auto& shape : knownShapes())
        names.push_back(shape.name);
    return names;
}

} // namespace hearth::synth
