// SPDX-License-Identifier: MIT
// Synthetic Falcon files, laid out as llama.cpp's converter writes real ones: fused QKV with
// output rows [Q | K | V], LayerNorms with bias, no feed_forward_length key when n_ff is the
// usual 4 * n_embd, and a second per-layer norm (attn_norm_2) when there is more than one KV
// head, as in Falcon-40B.

#include "synth/synthetic_families.h"
#include "synth/random.h"
#include "synth/synthetic_sparse.h"

#include "gguf/gguf_writer.h"

#include <cmath>
#include <cstdint>

namespace hearth::synth {

std::vector<SynthTensor> plannedFalconTensors(const SynthOptions& options)
{
    const ModelShape& s = options.shape;
    const std::int64_t embd = s.embeddingSize;
    const std::int64_t ff = s.feedForwardSize;
    const std::int64_t kv = s.kvEmbeddingSize();
    const std::int64_t vocab = s.vocabSize;
    const DType w = options.type;
    auto scale = [](std::int64_t nIn) { return 1.0f / std::sqrt(static_cast<float>(nIn)); };
    constexpr float kNormSpread = 0.05f;

    // Activation locality: the FFN's LayerNorm adds 1 to every output, so an up row of mean a
    // gives a pre-activation of about a n_embd + N(0, 1) (Falcon's up projection has no bias).
    const bool locality = options.activationSparsity > 0.0;
    const float ffnNormBias = locality ? 1.0f : 0.0f;
    std::vector<SynthTensor> t;
    t.push_back({"token_embd.weight", {embd, vocab}, w, 0.0f, 1.0f});
    for (int l = 0; l < s.layerCount; ++l) {
        const std::string p = "blk." + std::to_string(l) + ".";
        t.push_back({p + "attn_norm.weight", {embd}, DType::F32, 1.0f, kNormSpread});
        t.push_back({p + "attn_norm.bias", {embd}, DType::F32, s.kvHeadCount > 1 ? 0.0f : ffnNormBias, kNormSpread});
        if (s.kvHeadCount > 1) {
            t.push_back({p + "attn_norm_2.weight", {embd}, DType::F32, 1.0f, kNormSpread});
            t.push_back({p + "attn_norm_2.bias", {embd}, DType::F32, ffnNormBias, kNormSpread});
        }
        t.push_back({p + "attn_qkv.weight", {embd, embd + 2 * kv}, w, 0.0f, scale(embd)});
        t.push_back({p + "attn_output.weight", {embd, embd}, w, 0.0f, scale(embd)});
        t.push_back({p + "ffn_up.weight", {embd, ff}, w, 0.0f, scale(embd)});
        if (locality) {
            t.back().rowMeans = activationLocalityOffsets(ff, options.activationSparsity, mixSeed(options.seed, std::uint64_t(l)));
            for (float& m : t.back().rowMeans)
                m /= float(embd);
        }
        t.push_back({p + "ffn_down.weight", {ff, embd}, w, 0.0f, scale(ff)});
    }
    t.push_back({"output_norm.weight", {embd}, DType::F32, 1.0f, kNormSpread});
    t.push_back({"output_norm.bias", {embd}, DType::F32, 0.0f, kNormSpread});
    t.push_back({"output.weight", {embd, vocab}, w, 0.0f, scale(embd)});
    return t;
}

void declareFalconMetadata(gguf::GgufWriter& writer, const SynthOptions& options)
{
    const ModelShape& s = options.shape;
    writer.setString("general.architecture", "falcon");
    writer.setString("general.name", "hearth-synth " + s.name + " " + std::string(dtypeName(options.type)));
    writer.setUInt32("falcon.context_length", static_cast<std::uint32_t>(s.contextLength));
    writer.setUInt32("falcon.embedding_length", static_cast<std::uint32_t>(s.embeddingSize));
    if (s.feedForwardSize != 4 * s.embeddingSize)
        writer.setUInt32("falcon.feed_forward_length", static_cast<std::uint32_t>(s.feedForwardSize));
    writer.setUInt32("falcon.block_count", static_cast<std::uint32_t>(s.layerCount));
    writer.setUInt32("falcon.attention.head_count", static_cast<std::uint32_t>(s.headCount));
    writer.setUInt32("falcon.attention.head_count_kv", static_cast<std::uint32_t>(s.kvHeadCount));
    writer.setFloat32("falcon.attention.layer_norm_epsilon", s.rmsNormEpsilon);
    writer.setString("hearth.ffn_activation", options.ffnActivation);
    writer.setUInt64("hearth.synth.seed", options.seed);
    declareBpeVocabulary(writer, "falcon", s.vocabSize);
}

} // namespace hearth::synth
