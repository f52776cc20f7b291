// SPDX-License-Identifier: MIT
#pragma once

// The sparse FFN of falcon and opt: per layer, PowerInfer's predictor picks the neurons
// expected to fire, and only their rows are read:
//
//   out = sum over active i of ReLU(up_i . x + upBias_i) * down_i + downBias
//
// PowerInfer's predictor reads FfnBatch::predictorInput (falcon: the layer input; opt: the
// residual stream before the FFN norm), Hearth's fitted ones the normalized FFN input as the
// neurons do (sparse/predictor.h). There is no gate row, so a
// neuron is two rows (up, down) instead of the llama family's three; the fc1 bias of OPT goes
// with its neuron, the fc2 (down) bias is added once per token. Rows come from PowerInfer's
// separate matrices (ffn_up, ffn_down_t) or Hearth's fused ffn_neurons.
//
// Decoded tokens may be handed to a FamilyDecodeFfn (the hybrid CPU/device path lives in the
// api layer). Prompt batches whose tokens need many neurons each take the dense matrix
// products instead, which reuse each weight block across the batch, with each token's
// unpredicted neurons zeroed so that a prompt computes what its tokens' decodes would; the
// others compute each token's own neurons and pass the activations to the dense FFN's down
// projection (sparse::DownProjection, which reads only the rows some token needs).
//
// Header-only: it belongs to the forward passes in family_forward.h, which are header-only too.

#include "cpu/ops.h"
#include "cpu/thread_pool.h"
#include "model/dense_ffn.h"
#include "model/hyper_params.h"
#include "model/layer_offload.h"
#include "sparse/neuron_selection.h"
#include "sparse/neuron_weights.h"
#include "sparse/sparse_ffn.h"

#include <hearth/status.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <new>
#include <string>
#include <vector>

namespace hearth::model {

// Computes a decoded token's sparse FFN somewhere else. Called only for one-token batches in
// sparse mode with the normalized FFN input and the predicted-active neurons; it writes y (n_embd)
// = the sum over those neurons, without the down bias. Returning false makes the layer take the
// CPU path, so a failing device never loses a token. (The same contract as
// LlamaForward::DecodeFfn, so one implementation can serve both.)
class FamilyDecodeFfn {
public:
    virtual ~FamilyDecodeFfn() = default;
    [[nodiscard]] virtual bool run(cpu::ThreadPool& pool, int layer, const float* xn, const std::int32_t* active,
                                   std::int64_t count, float* y) = 0;
};

class FamilySparseFfn {
public:
    enum class Mode { Sparse, Dense };

    // The neuron views of @p layers (each has a .ffn UpDownFfn) and the buffers for @p maxBatch
    // tokens. Layers whose rows the neuron kernels cannot read (a plain ffn_down) run densely;
    // InvalidFile when a fused layer is unusable.
    template <typename Layers>
    [[nodiscard]] static Result<std::unique_ptr<FamilySparseFfn>> create(const Layers& layers, const HyperParams& hp,
                                                                       int maxBatch, int threads, bool sparse,
                                                                       float threshold);

    // Sparse (the default for files with predictors): predicted-active neurons only. Dense: every
    // neuron (comparisons, profiling); a fused layer then runs a decoded token through the neuron
    // kernels over all neurons, a prompt through the dense products over its rows.
    void setMode(Mode mode) { m_mode = mode; }
    [[nodiscard]] Mode mode() const { return m_mode; }
    // Overrides powerinfer.sparse_threshold (-infinity: every neuron predicted active).
    void setThreshold(float threshold) { m_threshold = threshold; }
    [[nodiscard]] float threshold() const { return m_threshold; }
    // Null switches it off. @p ffn must outlive every later run().
    void setDecodeFfn(FamilyDecodeFfn* ffn) { m_decodeFfn = ffn; }
    // Where a decoded token's predictor may run instead (LayerOffload::predict); null: the CPU.
    void setLayerOffload(LayerOffload* offload) { m_offload = offload; }

    // The neuron view of layer @p layer (invalid for layers that run densely).
    [[nodiscard]] const sparse::NeuronWeights& neurons(int layer) const { return m_neurons[std::size_t(layer)]; }

    // Runs @p ffn (layer batch.layer) on @p batch, a prompt over most of the neurons through
    // @p dense with each token's unpredicted neurons zeroed; false: the caller runs the dense FFN.
    [[nodiscard]] bool run(cpu::ThreadPool& pool, const UpDownFfn& ffn, const FfnBatch& batch, DenseFfn& dense)
    {
        const sparse::NeuronWeights& neurons = m_neurons[std::size_t(batch.layer)];
        const bool predicted = m_mode == Mode::Sparse && ffn.predictor.present();
        const int n = batch.tokens;
        // Prompts over every neuron take the dense products (fused rows through strided views).
        if ((!predicted && (!ffn.fusedNeurons || n > 1)) || !neurons.valid())
            return false;
        sparse::NeuronSelection::Active active = m_selection.all();
        const float* predictorInput = ffn.predictor.input(batch.predictorInput, batch.input);
        // A decoded token's predictor may run on the device, which returns the ids as the CPU would.
        const std::int64_t offloaded =
            predicted && n == 1 && m_offload
                ? m_offload->predict(batch.layer, predictorInput, m_threshold, m_selection.idBuffer())
                : -1;
        if (offloaded >= 0) {
            active = m_selection.predicted(offloaded);
        } else if (predicted) {
            active = m_selection.predict(pool, ffn.predictor, predictorInput, n, m_threshold);
            if (n > 1 && sparse::NeuronSelection::denseIsCheaper(active.pairs, n, neurons.nFf)) {
                dense.run(pool, ffn.denseView(), batch.input, n, batch.out, active.mask);
                return true;
            }
        }
        if (n > 1) {
            // Each token's own neurons, then their down rows through the dense FFN's projection.
            const sparse::FfnInput in = m_cpu->prepareInput(neurons.type, batch.input, n);
            m_cpu->activations(pool, neurons, in, n, active.ids, active.count, active.mask, dense.hidden());
            dense.project(pool, ffn.denseView(), n, batch.out);
            return true;
        }
        const bool device = predicted && m_decodeFfn
                            && m_decodeFfn->run(pool, batch.layer, batch.input, active.ids, active.count, batch.out);
        if (!device) {
            const sparse::FfnInput in = m_cpu->prepareInput(neurons.type, batch.input, n);
            m_cpu->run(pool, neurons, in, n, active.ids, active.count, active.mask, batch.out);
        }
        if (ffn.downBias) {
            for (int t = 0; t < n; ++t)
                cpu::add(batch.out + std::size_t(t) * std::size_t(m_nEmbd), ffn.downBias, m_nEmbd);
        }
        return true;
    }

private:
    FamilySparseFfn() = default;

    Mode m_mode = Mode::Dense;
    float m_threshold = 0.0f;
    std::int64_t m_nEmbd = 0;
    FamilyDecodeFfn* m_decodeFfn = nullptr;
    LayerOffload* m_offload = nullptr;
    std::unique_ptr<sparse::SparseFfn> m_cpu;
    std::vector<sparse::NeuronWeights> m_neurons; // per layer
    sparse::NeuronSelection m_selection;
};

template <typename Layers>
Result<std::unique_ptr<FamilySparseFfn>> FamilySparseFfn::create(const Layers& layers, const HyperParams& hp,
                                                                 int maxBatch, int threads, bool sparse, float threshold)
{
    std::unique_ptr<FamilySparseFfn> f(new FamilySparseFfn());
    f->m_nEmbd = hp.nEmbd;
    f->m_threshold = threshold;
    f->m_mode = sparse ? Mode::Sparse : Mode::Dense;
    std::int64_t hidden = 0;
    try {
        f->m_neurons.resize(layers.size());
        for (std::size_t i = 0; i < layers.size(); ++i) {
            const UpDownFfn& ffn = layers[i].ffn;
            hidden = std::max(hidden, ffn.predictor.hidden());
            sparse::NeuronWeights& w = f->m_neurons[i];
            if (ffn.fusedNeurons) {
                w = sparse::NeuronWeights::fused(ffn.neurons, hp.nEmbd, sparse::NeuronActivation::Relu);
                if (!w.valid())
                    return Status(ErrorCode::InvalidFile,
                                  "layer " + std::to_string(i) + ": the fused neuron tensor is unusable");
            } else if (ffn.downTransposed && ffn.activation == DenseActivation::Relu) {
                w = sparse::NeuronWeights::separate(cpu::WeightMatrix{}, ffn.up, ffn.down, sparse::NeuronActivation::Relu);
            }
            w.upBias = ffn.upBias;
        }
    } catch (const std::bad_alloc&) {
        return Status(ErrorCode::OutOfMemory, "not enough memory for the sparse FFN's buffers");
    }
    HEARTH_TRY(f->m_selection.reserve(maxBatch, hp.nFf, hidden));
    auto cpu = sparse::SparseFfn::create(hp.nEmbd, maxBatch, threads);
    if (!cpu)
        return cpu.status();
    f->m_cpu = std::move(cpu).value();
    return f;
}

} // namespace hearth::model
