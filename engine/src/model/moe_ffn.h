// SPDX-License-Identifier: MIT
#pragma once

// The feed-forward block of a mixture-of-experts layer (Mixtral, Qwen 2/3 MoE, SmallThinker): a
// router picks a few experts per token, and only their weights are read.
//
//     MoeFfn ffn;
//     HEARTH_TRY(ffn.reserve(hp, maxBatch));
//     ffn.route(pool, layer.moe, hp, xn, tokens);    // the experts of each token
//     ffn.run(pool, layer.moe, hp, xn, tokens, out); // out = sum_k p_k * expert_k(xn) (+ shared)
//
// A batch is grouped by expert: each chosen expert multiplies all the tokens routed to it at
// once, so a prompt reads each expert's weights once, and every expert of the batch runs in
// one parallel section (cpu::matmulGrouped).

#include "cpu/matmul.h"
#include "model/expert_gating.h"
#include "model/ffn_activation.h"
#include "model/layer_offload.h"

#include <hearth/status.h>

#include <cstdint>
#include <span>
#include <vector>

namespace hearth::cpu {
class ThreadPool;
}

namespace hearth::model {

struct HyperParams;

// One gated FFN: nFf neurons between nEmbd-wide input and output.
struct GatedFfnWeights {
    cpu::WeightMatrix gate; // nEmbd -> nFf
    cpu::WeightMatrix up;   // nEmbd -> nFf
    cpu::WeightMatrix down; // nFf -> nEmbd
    // Added to each product's outputs where the family has them (gpt-oss); null elsewhere.
    const float* gateBias = nullptr; // [nFf]
    const float* upBias = nullptr;   // [nFf]
    const float* downBias = nullptr; // [nEmbd]

    [[nodiscard]] bool present() const { return gate.data != nullptr; }
};

struct MoeWeights {
    cpu::WeightMatrix router;            // ffn_gate_inp: nEmbd -> nExpert
    const float* routerBias = nullptr;   // [nExpert], added to the router's logits (gpt-oss)
    std::vector<GatedFfnWeights> experts; // views of the stacked ffn_{gate,up,down}_exps tensors
    GatedFfnWeights shared;              // the shared expert (Qwen 2 MoE); absent elsewhere
    const float* sharedGate = nullptr;   // ffn_gate_inp_shexp [nEmbd]: the shared expert's scale

    [[nodiscard]] bool present() const { return !experts.empty(); }
};

// One expert a token goes to, with the weight its output is added with.
struct ExpertChoice {
    std::int32_t expert = 0;
    float weight = 0.0f;
};

// What a layer's experts did for the last batch run() computed on the CPU: each token's choices
// and, per choice, the activations of its expert's neurons (the gated activation's output).
struct ExpertActivity {
    std::span<const ExpertChoice> choices; // nExpertUsed per token, token by token
    const float* activations = nullptr;    // rows of nFf, grouped by expert
    const std::int32_t* rowOf = nullptr;   // [choices]: the row of each choice
    std::int64_t nFf = 0;

    [[nodiscard]] std::span<const float> of(std::size_t choice) const
    {
        return {activations + std::size_t(rowOf[choice]) * std::size_t(nFf), std::size_t(nFf)};
    }
};

// The @p used experts with the largest @p logits[0..nExpert), the largest first (the lower index
// first among equals, as a stable sort gives), into @p out, weighted as @p gating says; with
// @p normalize the chosen weights are divided by their sum.
void routeToken(const float* logits, int nExpert, int used, ExpertGating gating, bool normalize, ExpertChoice* out);

class MoeFfn {
public:
    // Fails with OutOfMemory instead of throwing.
    [[nodiscard]] Status reserve(const HyperParams& hp, int maxBatch);

    // Chooses the experts of @p tokens rows of @p routerInput (the FFN's normalized input, or
    // the layer's input for a family whose router runs before attention).
    void route(cpu::ThreadPool& pool, const MoeWeights& w, const HyperParams& hp, const float* routerInput, int tokens);

    // Asks the kernel to read ahead the weights of the experts route() chose that are still in
    // the file mapping (LlamaWeights::readExpertsAhead: memory was short), so that their pages
    // come from the disk while attention runs (a router before attention) or all at once
    // instead of one page fault at a time.
    void readChosenAhead(const MoeWeights& w);

    // @p out = the layer's FFN output for @p tokens rows of the normalized @p input, through the
    // experts route() chose for the same tokens. The experts @p offload holds for @p layer run
    // there, at the same time as the CPU's.
    void run(cpu::ThreadPool& pool, const MoeWeights& w, const HyperParams& hp, const float* input, int tokens,
             float* out, LayerOffload* offload = nullptr, int layer = 0);

    // The experts the last route() chose: nExpertUsed per token, token by token.
    [[nodiscard]] std::span<const ExpertChoice> lastChoices() const
    {
        return {m_choices.data(), std::size_t(m_tokens) * std::size_t(m_used)};
    }
    // The last run()'s choices with their experts' activations (of those the CPU computed:
    // the device's stay there).
    [[nodiscard]] ExpertActivity lastActivity(const HyperParams& hp) const;

private:
    // The products of the experts (and the shared expert, flag nExpert) whose @p onDevice flag
    // equals @p deviceOnes (an empty span: all flags 0), into their rows of m_expertOut/m_sharedOut.
    void runOnCpu(cpu::ThreadPool& pool, const MoeWeights& w, const HyperParams& hp, const float* input, int tokens,
                  std::span<const std::uint8_t> onDevice, bool deviceOnes);

    int m_tokens = 0;
    int m_used = 0;
    std::vector<float> m_logits;         // [B][nExpert + 1]: the router's, then the shared gate's
    std::vector<ExpertChoice> m_choices; // [B][used]
    std::vector<std::int32_t> m_first;   // [nExpert + 1]: where each expert's rows start
    std::vector<std::uint8_t> m_readAhead; // [nExpert]: asked for by readChosenAhead()
    std::vector<std::int32_t> m_slotOf;  // [B][used]: the gathered row of each choice
    std::vector<float> m_gathered;       // [B * used][nEmbd] inputs, grouped by expert
    std::vector<float> m_gate;           // [B * used][nFfExpert], then the activation
    std::vector<float> m_up;             // [B * used][nFfExpert]
    std::vector<float> m_expertOut;      // [B * used][nEmbd]
    std::vector<float> m_sharedGate;     // [B][nFfSharedExpert], shared expert only
    std::vector<float> m_sharedUp;
    std::vector<float> m_sharedOut;      // [B][nEmbd]
    std::vector<cpu::MatmulTask> m_tasks;
};

// gate = act(gate) * up (or the family's variant) over @p n values.
void applyGatedActivation(FfnActivation activation, float* gate, const float* up, std::int64_t n);

} // namespace hearth::model
