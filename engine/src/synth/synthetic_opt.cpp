// SPDX-License-Identifier: MIT
// Synthetic OPT files (pre-LayerNorm, as every OPT but opt-350m): biases on every projection
// and norm, and a learned position table of context + 2 rows, as in Hugging Face's checkpoints
// (rows 0 and 1 are never used; position p reads row p + 2). The output matrix is tied to the
// token embeddings, as in OPT.

#include "synth/synthetic_families.h"
#include "synth/random.h"
#include "synth/synthetic_sparse.h"

#include "gguf/gguf_writer.h"

#include <cmath>
#include <cstdint>

namespace hearth::synth {

std::vector<SynthTensor> plannedOptTensors(const SynthOptions& options)
{
    const ModelShape& s = options.shape;
    const std::int64_t embd = s.embeddingSize;
    const std::int64_t ff = s.feedForwardSize;
    const std::int64_t vocab = s.vocabSize;
    const DType w = options.type;
    auto scale = [](std::int64_t nIn) { return 1.0f / std::sqrt(static_cast<float>(nIn)); };
    constexpr float kNormSpread = 0.05f;
    constexpr float kBiasSpread = 0.05f;

    std::vector<SynthTensor> t;
    t.push_back({"token_embd.weight", {embd, vocab}, w, 0.0f, 1.0f});
    t.push_back({"position_embd.weight", {embd, std::int64_t(s.contextLength) + 2}, w, 0.0f, 0.5f});
    for (int l = 0; l < s.layerCount; ++l) {
        const std::string p = "blk." + std::to_string(l) + ".";
        t.push_back({p + "attn_norm.weight", {embd}, DType::F32, 1.0f, kNormSpread});
        t.push_back({p + "attn_norm.bias", {embd}, DType::F32, 0.0f, kNormSpread});
        for (const char* m : {"attn_q", "attn_k", "attn_v", "attn_output"}) {
            t.push_back({p + m + ".weight", {embd, embd}, w, 0.0f, scale(embd)});
            t.push_back({p + m + ".bias", {embd}, DType::F32, 0.0f, kBiasSpread});
        }
        t.push_back({p + "ffn_norm.weight", {embd}, DType::F32, 1.0f, kNormSpread});
        t.push_back({p + "ffn_norm.bias", {embd}, DType::F32, 0.0f, kNormSpread});
        t.push_back({p + "ffn_up.weight", {embd, ff}, w, 0.0f, scale(embd)});
        t.push_back({p + "ffn_up.bias", {ff}, DType::F32, 0.0f, kBiasSpread});
        // Activation locality: each neuron's up bias sets how often it fires (an up row of
        // spread 1/sqrt(n_embd) over the LayerNorm's unit-variance output gives N(0, 1)).
        if (options.activationSparsity > 0.0)
            t.back().values = activationLocalityOffsets(ff, options.activationSparsity, mixSeed(options.seed, std::uint64_t(l)));
        t.push_back({p + "ffn_down.weight", {ff, embd}, w, 0.0f, scale(ff)});
        t.push_back({p + "ffn_down.bias", {embd}, DType::F32, 0.0f, kBiasSpread});
    }
    t.push_back({"output_norm.weight", {embd}, DType::F32, 1.0f, kNormSpread});
    t.push_back({"output_norm.bias", {embd}, DType::F32, 0.0f, kNormSpread});
    return t;
}

void declareOptMetadata(gguf::GgufWriter& writer, const SynthOptions& options)
{
    const ModelShape& s = options.shape;
    writer.setString("general.architecture", "opt");
    writer.setString("general.name", "hearth-synth " + s.name + " " + std::string(dtypeName(options.type)));
    writer.setUInt32("opt.context_length", static_cast<std::uint32_t>(s.contextLength));
    writer.setUInt32("opt.embedding_length", static_cast<std::uint32_t>(s.embeddingSize));
    writer.setUInt32("opt.feed_forward_length", static_cast<std::uint32_t>(s.feedForwardSize));
    writer.setUInt32("opt.block_count", static_cast<std::uint32_t>(s.layerCount));
    writer.setUInt32("opt.attention.head_count", static_cast<std::uint32_t>(s.headCount));
    writer.setFloat32("opt.attention.layer_norm_epsilon", s.rmsNormEpsilon);
    writer.setString("hearth.ffn_activation", options.ffnActivation);
    writer.setUInt64("hearth.synth.seed", options.seed);
    declareBpeVocabulary(writer, "opt", s.vocabSize);
}

} // namespace hearth::synth
