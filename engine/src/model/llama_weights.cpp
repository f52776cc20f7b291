// SPDX-License-Identifier: MIT
#include "model/llama_weights.h"

#include "cpu/quant.h"
#include "cpu/weight_pack.h"
#include "gguf/gguf_file.h"
#include "model/tensor_binder.h"
#include "sparse/neuron_weights.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace hearth::model {

namespace {

// Rows [first, first + count) of @p m: a view into the same bytes.
cpu::WeightMatrix rowView(const cpu::WeightMatrix& m, std::int64_t first, std::int64_t count)
{
    cpu::WeightMatrix v = m;
    v.data = static_cast<const std::byte*>(m.data) + std::size_t(first) * rowBytes(m.type, m.cols);
    v.rows = count;
    return v;
}

// A mixture-of-experts layer's router, its stacked experts as one view each, and the shared
// expert where the family has one.
Status bindExperts(TensorBinder& b, const std::string& p, const HyperParams& hp, MoeWeights& moe,
                   std::vector<std::vector<float>>& converted)
{
    const std::int64_t nEmbd = hp.nEmbd;
    const std::int64_t nFf = hp.nFfExpert;
    HEARTH_TRY(b.matrix(p + "ffn_gate_inp.weight", nEmbd, hp.nExpert, moe.router));
    cpu::WeightMatrix gate;
    cpu::WeightMatrix up;
    cpu::WeightMatrix down;
    HEARTH_TRY(b.stackedMatrices(p + "ffn_gate_exps.weight", nEmbd, nFf, hp.nExpert, gate));
    HEARTH_TRY(b.stackedMatrices(p + "ffn_up_exps.weight", nEmbd, nFf, hp.nExpert, up));
    HEARTH_TRY(b.stackedMatrices(p + "ffn_down_exps.weight", nFf, nEmbd, hp.nExpert, down));
    moe.experts.resize(std::size_t(hp.nExpert));
    for (std::int64_t e = 0; e < hp.nExpert; ++e)
        moe.experts[std::size_t(e)] = {rowView(gate, e * nFf, nFf), rowView(up, e * nFf, nFf),
                                       rowView(down, e * nEmbd, nEmbd)};
    if (hp.flavour.expertBiases) {
        HEARTH_TRY(b.vector(p + "ffn_gate_inp.bias", hp.nExpert, moe.routerBias, converted));
        const float* gateBias = nullptr;
        const float* upBias = nullptr;
        const float* downBias = nullptr;
        HEARTH_TRY(b.stackedVectors(p + "ffn_gate_exps.bias", nFf, hp.nExpert, gateBias, converted));
        HEARTH_TRY(b.stackedVectors(p + "ffn_up_exps.bias", nFf, hp.nExpert, upBias, converted));
        HEARTH_TRY(b.stackedVectors(p + "ffn_down_exps.bias", nEmbd, hp.nExpert, downBias, converted));
        for (std::int64_t e = 0; e < hp.nExpert; ++e) {
            GatedFfnWeights& x = moe.experts[std::size_t(e)];
            x.gateBias = gateBias + e * nFf;
            x.upBias = upBias + e * nFf;
            x.downBias = downBias + e * nEmbd;
        }
    }
    if (!b.has(p + "ffn_gate_inp_shexp.weight"))
        return {};
    const std::int64_t nShared = hp.nFfSharedExpert;
    HEARTH_TRY(b.vector(p + "ffn_gate_inp_shexp.weight", nEmbd, moe.sharedGate, converted));
    HEARTH_TRY(b.matrix(p + "ffn_gate_shexp.weight", nEmbd, nShared, moe.shared.gate));
    HEARTH_TRY(b.matrix(p + "ffn_up_shexp.weight", nEmbd, nShared, moe.shared.up));
    return b.matrix(p + "ffn_down_shexp.weight", nShared, nEmbd, moe.shared.down);
}

} // namespace

Result<std::unique_ptr<LlamaWeights>> LlamaWeights::bind(const gguf::GgufFile& file, const HyperParams& hp,
                                                          const ProgressCallback& progress, std::uint64_t packingLimit,
                                                          bool promptCopies)
{
    auto w = std::make_unique<LlamaWeights>();
    w->m_packed.setLimit(std::size_t(packingLimit));
    const bool tied = file.findTensor("output.weight") == nullptr;
    const std::size_t extras = (hp.flavour.qkvBias ? 3 : 0) + (hp.flavour.qkNorm ? 2 : 0)
                               + (hp.flavour.outputBias ? 1 : 0) + (hp.flavour.attentionSinks ? 1 : 0)
                               + (hp.flavour.expertBiases ? 4 : 0)
                               + (hp.mixtureOfExperts() ? 1 : 0) + (file.findTensor("blk.0.ffn_gate_inp_shexp.weight") ? 4 : 0);
    TensorBinder b(file, progress, std::size_t(hp.nLayer) * (9 + extras) + 2 + (tied ? 0 : 1));

    HEARTH_TRY(b.matrix("token_embd.weight", hp.nEmbd, hp.nVocab, w->tokenEmbd));
    HEARTH_TRY(b.vector("output_norm.weight", hp.nEmbd, w->outputNorm, w->m_convertedNorms));
    for (const auto& [name, target] : {std::pair{"rope_freqs.weight", &w->ropeFreqs},
                                        std::pair{"rope_factors_short.weight", &w->ropeFactorsShort},
                                        std::pair{"rope_factors_long.weight", &w->ropeFactorsLong}}) {
        if (!b.has(name))
            continue;
        HEARTH_TRY(b.vector(name, hp.nRot / 2, *target, w->m_convertedNorms));
        if (!std::all_of(*target, *target + hp.nRot / 2, [](float f) { return std::isfinite(f) && f > 0.0f; }))
            return Status(ErrorCode::InvalidFile, std::string("tensor ") + name + " holds a factor that is not a positive number");
    }
    if (tied)
        w->output = w->tokenEmbd;
    else
        HEARTH_TRY(b.matrix("output.weight", hp.nEmbd, hp.nVocab, w->output));

    w->layers.resize(std::size_t(hp.nLayer));
    for (int i = 0; i < hp.nLayer; ++i) {
        const std::string p = "blk." + std::to_string(i) + ".";
        LlamaLayerWeights& l = w->layers[std::size_t(i)];
        HEARTH_TRY(b.vector(p + "attn_norm.weight", hp.nEmbd, l.attnNorm, w->m_convertedNorms));
        if (b.has(p + "attn_q_t.weight")) {
            // Input-major (magnitude-sparse files with input sparsity): row i is input i's weights.
            HEARTH_TRY(b.matrix(p + "attn_q_t.weight", hp.qDim(), hp.nEmbd, l.wq));
            HEARTH_TRY(b.matrix(p + "attn_k_t.weight", hp.kvDim(), hp.nEmbd, l.wk));
            HEARTH_TRY(b.matrix(p + "attn_v_t.weight", hp.kvDim(), hp.nEmbd, l.wv));
            l.attentionInputMajor = true;
        } else if (b.has(p + "attn_qkv.weight")) {
            // One fused product (Phi-3): rows Q | K | V, used as three views.
            cpu::WeightMatrix qkv;
            HEARTH_TRY(b.matrix(p + "attn_qkv.weight", hp.nEmbd, hp.qDim() + 2 * std::int64_t(hp.kvDim()), qkv));
            l.wq = rowView(qkv, 0, hp.qDim());
            l.wk = rowView(qkv, hp.qDim(), hp.kvDim());
            l.wv = rowView(qkv, hp.qDim() + std::int64_t(hp.kvDim()), hp.kvDim());
        } else {
            HEARTH_TRY(b.matrix(p + "attn_q.weight", hp.nEmbd, hp.qDim(), l.wq));
            HEARTH_TRY(b.matrix(p + "attn_k.weight", hp.nEmbd, hp.kvDim(), l.wk));
            HEARTH_TRY(b.matrix(p + "attn_v.weight", hp.nEmbd, hp.kvDim(), l.wv));
        }
        if (l.attentionInputMajor)
            HEARTH_TRY(b.matrix(p + "attn_output_t.weight", hp.nEmbd, hp.qDim(), l.wo));
        else
            HEARTH_TRY(b.matrix(p + "attn_output.weight", hp.qDim(), hp.nEmbd, l.wo));
        if (hp.flavour.qkvBias) {
            HEARTH_TRY(b.vector(p + "attn_q.bias", hp.qDim(), l.bq, w->m_convertedNorms));
            HEARTH_TRY(b.vector(p + "attn_k.bias", hp.kvDim(), l.bk, w->m_convertedNorms));
            HEARTH_TRY(b.vector(p + "attn_v.bias", hp.kvDim(), l.bv, w->m_convertedNorms));
        }
        if (hp.flavour.qkNorm) {
            HEARTH_TRY(b.vector(p + "attn_q_norm.weight", hp.headDim, l.qNorm, w->m_convertedNorms));
            HEARTH_TRY(b.vector(p + "attn_k_norm.weight", hp.headDim, l.kNorm, w->m_convertedNorms));
        }
        if (hp.flavour.outputBias)
            HEARTH_TRY(b.vector(p + "attn_output.bias", hp.nEmbd, l.bo, w->m_convertedNorms));
        if (hp.flavour.attentionSinks)
            HEARTH_TRY(b.vector(p + "attn_sinks.weight", hp.nHead, l.attnSinks, w->m_convertedNorms));
        HEARTH_TRY(b.vector(p + std::string(hp.flavour.ffnNorm) + ".weight", hp.nEmbd, l.ffnNorm, w->m_convertedNorms));
        if (hp.flavour.postNorms) {
            HEARTH_TRY(b.vector(p + "post_attention_norm.weight", hp.nEmbd, l.attnPostNorm, w->m_convertedNorms));
            HEARTH_TRY(b.vector(p + "post_ffw_norm.weight", hp.nEmbd, l.ffnPostNorm, w->m_convertedNorms));
        }
        if (b.has(p + "ffn_gate_inp.weight")) {
            if (!hp.mixtureOfExperts())
                return Status(ErrorCode::InvalidFile, "layer " + std::to_string(i) + " has a router (ffn_gate_inp) but the file "
                                                      "says nothing of its experts (" + hp.architecture + ".expert_count)");
            HEARTH_TRY(bindExperts(b, p, hp, l.moe, w->m_convertedNorms));
            continue;
        }
        if (b.has(p + "ffn_neurons.weight")) {
            // Hearth's fused sparse layout: one row of gate|up|down per neuron.
            HEARTH_TRY(b.matrix(p + "ffn_neurons.weight", 3 * std::int64_t(hp.nEmbd), hp.nFf, l.neurons));
            l.fusedNeurons = true;
        } else if (b.has(p + "ffn_gate_t.weight")) {
            HEARTH_TRY(b.matrix(p + "ffn_gate_t.weight", hp.nFf, hp.nEmbd, l.gate));
            HEARTH_TRY(b.matrix(p + "ffn_up_t.weight", hp.nFf, hp.nEmbd, l.up));
            l.gateUpInputMajor = true;
        } else if (hp.flavour.fusedGateUp) {
            // One product of 2 nFf rows: the gate's, then the up projection's.
            cpu::WeightMatrix gateUp;
            HEARTH_TRY(b.matrix(p + "ffn_up.weight", hp.nEmbd, 2 * std::int64_t(hp.nFf), gateUp));
            l.gate = rowView(gateUp, 0, hp.nFf);
            l.up = rowView(gateUp, hp.nFf, hp.nFf);
        } else {
            HEARTH_TRY(b.matrix(p + "ffn_gate.weight", hp.nEmbd, hp.nFf, l.gate));
            HEARTH_TRY(b.matrix(p + "ffn_up.weight", hp.nEmbd, hp.nFf, l.up));
        }
        if (l.fusedNeurons) {
            // Nothing else: the down rows are part of ffn_neurons.
        } else if (!b.has(p + "ffn_down.weight") && b.has(p + "ffn_down_t.weight")) {
            // PowerInfer files store the down projection neuron-major: row i is neuron i's
            // n_embd output weights, ggml shape [n_embd, n_ff].
            HEARTH_TRY(b.matrix(p + "ffn_down_t.weight", hp.nEmbd, hp.nFf, l.down));
            l.downTransposed = true;
        } else {
            HEARTH_TRY(b.matrix(p + "ffn_down.weight", hp.nFf, hp.nEmbd, l.down));
        }
        HEARTH_TRY(b.predictor(p, hp.nEmbd, hp.nFf, l.predictor));
    }
    w->sparse = std::all_of(w->layers.begin(), w->layers.end(),
                            [](const LlamaLayerWeights& l) { return l.predictor.present(); });
    if (w->layers.empty())
        w->sparse = false;
    const bool anyFused = std::any_of(w->layers.begin(), w->layers.end(),
                                      [](const LlamaLayerWeights& l) { return l.fusedNeurons; });
    if (anyFused && !w->sparse)
        return Status(ErrorCode::InvalidFile, "the fused neuron layout (ffn_neurons) needs a predictor in every layer");
    HEARTH_TRY(w->bindGateThresholds(file, b, hp));
    if (const auto threshold = file.getFloat("powerinfer.sparse_threshold")) {
        if (!std::isfinite(*threshold))
            return Status(ErrorCode::InvalidFile, "powerinfer.sparse_threshold is not a finite number");
        w->sparseThreshold = float(*threshold);
    }

    w->packForKernels(file.mapping() != nullptr);
    if (promptCopies && w->sparse)
        w->makePromptCopies();

    w->dominantType = b.dominantType();
    w->parameterCount = b.parameters();
    return w;
}

Status LlamaWeights::bindGateThresholds(const gguf::GgufFile& file, TensorBinder& b, const HyperParams& hp)
{
    if (file.getString("hearth.sparse.layout").value_or("") != "magnitude") {
        for (std::size_t i = 0; i < layers.size(); ++i) {
            if (layers[i].attentionInputMajor || layers[i].gateUpInputMajor)
                return {ErrorCode::InvalidFile, "layer " + std::to_string(i) + " stores input-major projections "
                                                "(attn_q_t, ffn_gate_t), which only magnitude-sparse files have"};
        }
        return {};
    }
    if (hp.ffnActivation != FfnActivation::SwiGlu)
        return {ErrorCode::InvalidFile, "magnitude-sparse files need a SwiGLU FFN"};
    for (std::size_t i = 0; i < layers.size(); ++i) {
        LlamaLayerWeights& l = layers[i];
        if (!l.downTransposed || l.fusedNeurons || l.predictor.present() || l.moe.present())
            return {ErrorCode::InvalidFile, "layer " + std::to_string(i) + " of a magnitude-sparse file needs ffn_gate, ffn_up "
                                            "and ffn_down_t and no predictor"};
        const std::string p = "blk." + std::to_string(i) + ".";
        struct Thresholds {
            std::string name;
            std::int64_t size;
            const float** target;
        };
        std::vector<Thresholds> wanted{{p + "ffn_act_threshold", hp.nFf, &l.activationThresholds}};
        if (l.gateUpInputMajor)
            wanted.push_back({p + "ffn_input_threshold", hp.nEmbd, &l.ffnInputThresholds});
        else
            wanted.push_back({p + "ffn_gate_threshold", hp.nFf, &l.gateThresholds});
        if (l.attentionInputMajor) {
            wanted.push_back({p + "attn_input_threshold", hp.nEmbd, &l.attnInputThresholds});
            wanted.push_back({p + "attn_output_threshold", hp.qDim(), &l.attnOutputThresholds});
        }
        for (const Thresholds& t : wanted) {
            HEARTH_TRY(b.vector(t.name, t.size, *t.target, m_convertedNorms));
            if (!std::all_of(*t.target, *t.target + t.size, [](float v) { return v >= 0.0f; }))
                return {ErrorCode::InvalidFile, "tensor " + t.name + " holds a negative or NaN threshold"};
        }
    }
    magnitudeSparse = true;
    return {};
}

void LlamaWeights::packForKernels(bool fileMapped)
{
    // Only what the dense matmuls read; the mapped rows stay valid for getRow() and row-wise
    // readers (embeddings, the sparse FFN), and a matrix that cannot be packed simply is not.
    const auto pack = [&](cpu::WeightMatrix& m) {
        if (!m_packed.pack(m))
            return false;
        if (fileMapped)
            cpu::releaseMappedPages(m.data, std::size_t(m.packedRows) * rowBytes(m.type, m.cols));
        return true;
    };
    // The sparse FFN reads its neuron rows in place; huge pages spare the hardware prefetcher a
    // stop at every 4 KiB page of the mapping.
    const auto moveToHugePages = [&](cpu::WeightMatrix& m) { m_packed.moveToHugePages(m, fileMapped); };
    pack(output);
    for (LlamaLayerWeights& l : layers) {
        for (cpu::WeightMatrix* m : {&l.wq, &l.wk, &l.wv, &l.wo}) {
            if (l.attentionInputMajor)
                moveToHugePages(*m);
            else
                pack(*m);
        }
        pack(l.moe.router);
        for (cpu::WeightMatrix* m : {&l.moe.shared.gate, &l.moe.shared.up, &l.moe.shared.down})
            pack(*m);
        // Predictors are dense matmuls read for every token.
        pack(l.predictor.fc1);
        pack(l.predictor.fc2);
        if (l.fusedNeurons) {
            moveToHugePages(l.neurons);
        } else if (sparse) {
            for (cpu::WeightMatrix* m : {&l.gate, &l.up, &l.down})
                moveToHugePages(*m);
        } else if (magnitudeSparse) {
            // The gate is a dense product for every token, unless input-major; up and down rows
            // are read by neuron or by input.
            if (l.gateUpInputMajor)
                moveToHugePages(l.gate);
            else
                pack(l.gate);
            moveToHugePages(l.up);
            moveToHugePages(l.down);
        } else {
            pack(l.gate);
            pack(l.up);
            if (!l.downTransposed)
                pack(l.down);
        }
    }
    // The routed experts last: where memory is short, they are what stays in the mapping, read
    // a few experts a token (MoeFfn asks for them ahead of use) where every other matrix is read
    // for every token.
    for (LlamaLayerWeights& l : layers) {
        for (GatedFfnWeights& expert : l.moe.experts) {
            for (cpu::WeightMatrix* m : {&expert.gate, &expert.up, &expert.down}) {
                const bool packed = pack(*m);
                readExpertsAhead = readExpertsAhead || (!packed && fileMapped && m_packed.refusedBytes() > 0);
            }
        }
    }
}

void LlamaWeights::makePromptCopies()
{
    // A prompt whose tokens need most of a layer's neurons runs its FFN as a dense file does
    // (LlamaForward::denseFfn): the rows kept for decoding would otherwise be packed into the
    // kernels' layout as they are used and the neuron-major down projection decoded into
    // columns, prompt after prompt (7B shape, 128 tokens: 0.78x the dense file's prefill).
    for (LlamaLayerWeights& l : layers) {
        if (!l.predictor.present() || l.moe.present())
            continue;
        cpu::WeightMatrix gate = l.gate;
        cpu::WeightMatrix up = l.up;
        cpu::WeightMatrix down = l.down;
        if (l.fusedNeurons) {
            const sparse::NeuronWeights fused = sparse::NeuronWeights::fused(l.neurons, l.neurons.cols / 3,
                                                                             sparse::NeuronActivation::ReGlu);
            gate = fused.rows(fused.gate);
            up = fused.rows(fused.up);
            down = fused.rows(fused.down);
        } else if (!l.downTransposed || !gate.data) {
            continue;
        }
        // Types without an interleaved layout (F16, ...) already run the dense kernels from
        // their rows: a copy would gain nothing.
        if (cpu::interleavedPacking(gate.type) == cpu::Packing::None)
            return;
        const std::size_t before = m_packed.bytes();
        if (!m_packed.pack(gate) || !m_packed.pack(up))
            return; // memory is short: the next layers would not fit either
        const cpu::WeightMatrix rowsByOutput = m_packed.transposedQ8Copy(down);
        if (!rowsByOutput.data)
            return;
        l.promptGate = gate;
        l.promptUp = up;
        l.promptDown = rowsByOutput;
        m_promptCopyBytes += m_packed.bytes() - before;
    }
}

} // namespace hearth::model
