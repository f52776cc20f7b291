// SPDX-License-Identifier: MIT
#include "model/llama_forward.h"

#include "cpu/kernels.h"
#include "cpu/matmul.h"
#include "cpu/ops.h"
#include "cpu/thread_pool.h"
#include "model/decoder_ops.h"
#include "model/llama_model.h"
#include "sparse/down_projection.h"
#include "sparse/input_sparsity.h"
#include "sparse/neuron_pack.h"
#include "sparse/sparse_ffn.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

namespace hearth::model {

LlamaForward::LlamaForward(const LlamaModel& model, int maxBatch, int threads)
    : m_model(model)
    , m_maxBatch(maxBatch)
    , m_pool(std::make_unique<cpu::ThreadPool>(threads))
{
}

LlamaForward::~LlamaForward() = default;

int LlamaForward::threads() const
{
    return m_pool->size();
}

Result<std::unique_ptr<LlamaForward>> LlamaForward::create(const LlamaModel& model, int contextLength, int maxBatch,
                                                           int threads, KvCache::Type cacheType)
{
    const HyperParams& hp = model.hyperParams();
    if (contextLength <= 0 || maxBatch <= 0)
        return Status(ErrorCode::InvalidArgument, "context length and batch size must be positive");
    std::unique_ptr<LlamaForward> f(new LlamaForward(model, std::min(maxBatch, contextLength), threads));
    std::vector<int> windows(std::size_t(hp.nLayer));
    for (int l = 0; l < hp.nLayer; ++l)
        windows[std::size_t(l)] = hp.windowOf(l);
    auto cache = KvCache::create(hp.nLayer, contextLength, hp.kvDim(), KvCache::typeFor(cacheType, hp.headDim), windows,
                                 f->m_maxBatch);
    if (!cache)
        return cache.status();
    f->m_cache = std::move(cache).value();
    f->m_ropeFactors = model.weights().ropeFactors(hp, contextLength);
    if (hp.ropeYarn) {
        f->m_yarn = cpu::yarnRamp(hp.nRot, hp.ropeOriginalContext, hp.ropeFreqBase, hp.yarnBetaFast, hp.yarnBetaSlow);
        if (hp.hasLocalRope())
            f->m_yarnLocal = cpu::yarnRamp(hp.nRot, hp.ropeOriginalContext, hp.ropeFreqBaseSwa, hp.yarnBetaFast,
                                           hp.yarnBetaSlow);
    }

    const std::size_t b = std::size_t(f->m_maxBatch);
    try {
        f->m_x.resize(b * hp.nEmbd);
        f->m_xn.resize(b * hp.nEmbd);
        f->m_tmp.resize(b * hp.nEmbd);
        f->m_residualScales.resize(b);
        f->m_q.resize(b * hp.qDim());
        f->m_k.resize(b * hp.kvDim());
        f->m_v.resize(b * hp.kvDim());
        f->m_attn.resize(b * hp.qDim());
        const auto& layers = model.weights().layers;
        if (std::any_of(layers.begin(), layers.end(), [](const LlamaLayerWeights& l) { return !l.moe.present(); })) {
            f->m_gate.resize(b * hp.nFf);
            f->m_up.resize(b * hp.nFf);
        }
        if (hp.mixtureOfExperts()) {
            f->m_moe = std::make_unique<MoeFfn>();
            HEARTH_TRY(f->m_moe->reserve(hp, f->m_maxBatch));
        }
        const std::size_t tables = hp.hasLocalRope() ? 2 : 1;
        f->m_cos.resize(tables * b * (hp.nRot / 2));
        f->m_sin.resize(tables * b * (hp.nRot / 2));
        const std::size_t threads = std::size_t(f->m_pool->size());
        // Per thread: a decoded token's scores, or a prompt head's transposed keys and scores.
        f->m_scores.resize(threads * cpu::attendHeadScratchFloats(contextLength, model.hyperParams().headDim));
        if (std::any_of(layers.begin(), layers.end(),
                        [](const LlamaLayerWeights& l) { return l.downTransposed || l.fusedNeurons; })) {
            // Input-major projections (magnitude files) run through it too, up to nFf outputs wide.
            const bool inputMajor = std::any_of(layers.begin(), layers.end(), [](const LlamaLayerWeights& l) {
                return l.attentionInputMajor || l.gateUpInputMajor;
            });
            const std::int64_t columns = inputMajor ? std::max({hp.nEmbd, hp.qDim(), hp.nFf}) : hp.nEmbd;
            auto down = sparse::DownProjection::create(f->m_pool->size(), columns, f->m_maxBatch,
                                                       std::max(hp.nFf, hp.qDim()));
            if (!down)
                return down.status();
            f->m_downProjection = std::move(down).value();
        }
        HEARTH_TRY(f->initNeuronFfn());
    } catch (const std::bad_alloc&) {
        return Status(ErrorCode::OutOfMemory, "not enough memory for the session's work buffers");
    }
    return f;
}

namespace {

sparse::NeuronActivation neuronActivation(FfnActivation a)
{
    switch (a) {
    case FfnActivation::SwiGlu:
        return sparse::NeuronActivation::SwiGlu;
    case FfnActivation::ReGlu:
        return sparse::NeuronActivation::ReGlu;
    case FfnActivation::DRelu:
        return sparse::NeuronActivation::DRelu;
    case FfnActivation::Relu2:
        return sparse::NeuronActivation::Relu2;
    case FfnActivation::GeGlu:
    case FfnActivation::SwiGluOai:
        break; // no neuron kernels: initNeuronFfn refuses such files
    }
    return sparse::NeuronActivation::ReGlu;
}

} // namespace

bool LlamaForward::sparseCapable() const
{
    return m_model.weights().sparse;
}

Status LlamaForward::initNeuronFfn()
{
    const HyperParams& hp = m_model.hyperParams();
    const LlamaWeights& w = m_model.weights();
    const bool anyFused = std::any_of(w.layers.begin(), w.layers.end(), [](const LlamaLayerWeights& l) { return l.fusedNeurons; });
    if (w.magnitudeSparse) {
        m_neurons.resize(w.layers.size());
        for (std::size_t i = 0; i < w.layers.size(); ++i) {
            const LlamaLayerWeights& l = w.layers[i];
            // Input-major gate/up layers run through the down projection alone.
            if (!l.gateUpInputMajor)
                m_neurons[i] = sparse::NeuronWeights::separate(cpu::WeightMatrix{}, l.up, l.down,
                                                               sparse::NeuronActivation::GateGiven);
        }
        HEARTH_TRY(m_selection.reserve(1, hp.nFf, 0)); // the ids of a decoded token
        auto ffn = sparse::SparseFfn::create(hp.nEmbd, m_maxBatch, m_pool->size());
        if (!ffn)
            return ffn.status();
        m_sparseFfn = std::move(ffn).value();
        m_ffnMode = FfnMode::Sparse;
        return {};
    }
    if (!w.sparse && !anyFused)
        return {};
    if (hp.ffnActivation == FfnActivation::GeGlu || hp.ffnActivation == FfnActivation::SwiGluOai)
        return {ErrorCode::Unsupported, "sparse files with a " + std::string(ffnActivationName(hp.ffnActivation))
                                            + " FFN are not supported"};
    std::int64_t hidden = 0;
    m_neurons.resize(w.layers.size());
    for (std::size_t i = 0; i < w.layers.size(); ++i) {
        const LlamaLayerWeights& l = w.layers[i];
        hidden = std::max(hidden, l.predictor.hidden());
        const sparse::NeuronActivation act = neuronActivation(hp.ffnActivation);
        m_neurons[i] = l.fusedNeurons ? sparse::NeuronWeights::fused(l.neurons, hp.nEmbd, act)
                                      : sparse::NeuronWeights::separate(l.gate, l.up, l.down, act);
        if (l.fusedNeurons && !m_neurons[i].valid())
            return {ErrorCode::InvalidFile, "layer " + std::to_string(i) + ": the fused neuron tensor is unusable"};
    }
    // HEARTH_SPARSE_INTERLEAVE=1: Q4_0 fused neurons get an interleaved copy (neuron_pack.h),
    // several times fewer instructions per byte for the gate/up dots. Off by default: on the
    // 1.1B shape the sparse FFN waits on memory for scattered neurons, not on instructions, so
    // the copy (the whole FFN again, per session) bought no measurable speed.
    const char* interleave = std::getenv("HEARTH_SPARSE_INTERLEAVE");
    if (interleave && std::string_view(interleave) == "1") {
        m_interleaved.resize(w.layers.size());
        for (std::size_t i = 0; i < w.layers.size(); ++i) {
            if (!w.layers[i].fusedNeurons || !sparse::canInterleave(m_neurons[i]))
                continue;
            auto copy = sparse::InterleavedNeurons::create(m_neurons[i]);
            if (!copy)
                break; // not enough memory: the file's rows work too
            m_interleaved[i] = std::move(copy).value();
            m_neurons[i] = m_interleaved[i]->weights();
        }
    }
    HEARTH_TRY(m_selection.reserve(m_maxBatch, hp.nFf, hidden));
    auto ffn = sparse::SparseFfn::create(hp.nEmbd, m_maxBatch, m_pool->size());
    if (!ffn)
        return ffn.status();
    m_sparseFfn = std::move(ffn).value();
    m_threshold = w.sparseThreshold;
    m_ffnMode = w.sparse ? FfnMode::Sparse : FfnMode::Dense;
    return {};
}

void LlamaForward::inputMajorProducts(const float* thresholds, float* x, std::int64_t width, int n,
                                      std::initializer_list<std::pair<const cpu::WeightMatrix&, float*>> products)
{
    if (m_ffnMode == FfnMode::Sparse)
        sparse::dropSmallInputs(x, n, width, thresholds);
    for (const auto& [w, y] : products)
        m_downProjection->run(*m_pool, w, x, n, y);
}

bool LlamaForward::magnitudeFfn(int layer, int n)
{
    const LlamaWeights& w = m_model.weights();
    const LlamaLayerWeights& lw = w.layers[std::size_t(layer)];
    if (!w.magnitudeSparse || ((m_observer || m_gateObserver) && !lw.gateUpInputMajor))
        return false;
    // Dense mode (comparisons): every neuron, through the same kernels.
    const bool skips = m_ffnMode == FfnMode::Sparse;
    const HyperParams& hp = m_model.hyperParams();
    const std::int64_t nEmbd = hp.nEmbd;
    const std::int64_t nFf = hp.nFf;
    if (lw.gateUpInputMajor) {
        // Every product reads only the rows of the inputs it keeps: gate and up those of the
        // normalized input, down those of the activations.
        if (m_inputObserver)
            m_inputObserver(m_inputObserverContext, layer, ProjectionInput::Ffn, n, m_xn.data());
        inputMajorProducts(lw.ffnInputThresholds, m_xn.data(), nEmbd, n, {{lw.gate, m_gate.data()}, {lw.up, m_up.data()}});
        if (m_gateObserver)
            m_gateObserver(m_gateObserverContext, layer, n, m_gate.data(), m_up.data(), m_x.data());
        cpu::swiglu(m_gate.data(), m_up.data(), std::int64_t(n) * nFf);
        for (int t = 0; t < n && skips; ++t) {
            float* a = m_gate.data() + std::size_t(t) * std::size_t(nFf);
            const float scale = cpu::rootMeanSquare(m_x.data() + std::size_t(t) * std::size_t(nEmbd), nEmbd);
            for (std::int64_t i = 0; i < nFf; ++i)
                a[i] = std::fabs(a[i]) >= lw.activationThresholds[i] * scale ? a[i] : 0.0f;
        }
        if (m_observer)
            m_observer(m_observerContext, layer, n, m_gate.data(), m_x.data());
        m_downProjection->run(*m_pool, lw.down, m_gate.data(), n, m_tmp.data());
        return true;
    }
    const sparse::NeuronWeights& neurons = m_neurons[std::size_t(layer)];
    if (n == 1 && neurons.valid()) {
        // Thresholds are in units of the residual's size: what a skipped neuron leaves out
        // matters relative to the stream it is added to.
        const float scale = cpu::rootMeanSquare(m_x.data(), nEmbd);
        // The first neurons may be on a device, which computes them meanwhile (with the same
        // floors); if it fails, the CPU computes every neuron.
        const std::int64_t hot = skips && m_decodeFfn ? m_decodeFfn->screenedHot(layer) : 0;
        const bool onDevice = hot > 0 && m_decodeFfn->queueScreened(layer, m_xn.data(), 1, &scale);
        const std::int64_t first = onDevice ? hot : 0;
        // The gate densely (one streamed matrix), then the up and down rows of the neurons that
        // pass: the bytes of the others are never read.
        if (first < nFf) {
            cpu::matmul(*m_pool, first > 0 ? cpu::rowsView(lw.gate, first, nFf) : lw.gate, m_xn.data(), 1,
                        m_gate.data() + first);
            cpu::silu(m_gate.data() + first, nFf - first);
        }
        sparse::NeuronSelection::Active active = m_selection.all();
        if (skips) {
            std::int32_t* ids = m_selection.idBuffer();
            std::int64_t count = 0;
            for (std::int64_t i = first; i < nFf; ++i) {
                if (std::fabs(m_gate[std::size_t(i)]) >= lw.gateThresholds[i] * scale)
                    ids[count++] = std::int32_t(i);
            }
            active = m_selection.predicted(count);
        }
        sparse::FfnInput in = m_sparseFfn->prepareInput(neurons.type, m_xn.data(), 1);
        in.gateActs = m_gate.data();
        in.activationFloor = skips ? lw.activationThresholds : nullptr;
        in.floorScale = &scale;
        m_sparseFfn->run(*m_pool, neurons, in, 1, active.ids, active.count, nullptr, m_tmp.data());
        if (onDevice && !m_decodeFfn->addScreened(layer, m_tmp.data(), 1))
            return magnitudeFfn(layer, n); // screenedHot() is 0 from now on
        return true;
    }
    // A prompt: the dense products (every weight block serves the whole batch), with the neurons
    // a decoded token would skip set to zero, so that prompt and decode agree.
    if (!skips) {
        const cpu::WeightMatrix ws[2] = {lw.gate, lw.up};
        float* const ys[2] = {m_gate.data(), m_up.data()};
        cpu::matmulShared(*m_pool, ws, ys, 2, m_xn.data(), n);
        cpu::swiglu(m_gate.data(), m_up.data(), std::int64_t(n) * nFf);
        m_downProjection->run(*m_pool, lw.down, m_gate.data(), n, m_tmp.data());
        return true;
    }
    float* const scales = m_residualScales.data();
    for (int t = 0; t < n; ++t)
        scales[t] = cpu::rootMeanSquare(m_x.data() + std::size_t(t) * std::size_t(nEmbd), nEmbd);
    // As for a decoded token, the device may take the first neurons of every token.
    const std::int64_t hot = m_decodeFfn ? m_decodeFfn->screenedHot(layer) : 0;
    const bool onDevice = hot > 0 && m_decodeFfn->queueScreened(layer, m_xn.data(), n, scales);
    const std::int64_t first = onDevice ? hot : 0;
    const std::int64_t rows = nFf - first; // per token, in m_gate and m_up
    if (rows > 0) {
        const cpu::WeightMatrix ws[2] = {cpu::rowsView(lw.gate, first, nFf), cpu::rowsView(lw.up, first, nFf)};
        float* const ys[2] = {m_gate.data(), m_up.data()};
        cpu::matmulShared(*m_pool, ws, ys, 2, m_xn.data(), n);
        cpu::silu(m_gate.data(), std::int64_t(n) * rows);
        for (int t = 0; t < n; ++t) {
            float* g = m_gate.data() + std::size_t(t) * std::size_t(rows);
            const float* u = m_up.data() + std::size_t(t) * std::size_t(rows);
            const float scale = scales[t];
            for (std::int64_t j = 0; j < rows; ++j) {
                const std::int64_t i = first + j;
                const float a = g[j] * u[j];
                const bool kept = std::fabs(g[j]) >= lw.gateThresholds[i] * scale
                                  && std::fabs(a) >= lw.activationThresholds[i] * scale;
                g[j] = kept ? a : 0.0f;
            }
        }
        m_downProjection->run(*m_pool, cpu::rowsView(lw.down, first, nFf), m_gate.data(), n, m_tmp.data());
    } else {
        std::fill_n(m_tmp.data(), std::size_t(n) * std::size_t(nEmbd), 0.0f);
    }
    if (onDevice && !m_decodeFfn->addScreened(layer, m_tmp.data(), n))
        return magnitudeFfn(layer, n); // screenedHot() is 0 from now on
    return true;
}

bool LlamaForward::neuronFfn(int layer, int n)
{
    if (m_neurons.empty())
        return false;
    const HyperParams& hp = m_model.hyperParams();
    const LlamaLayerWeights& lw = m_model.weights().layers[std::size_t(layer)];
    const sparse::NeuronWeights& neurons = m_neurons[std::size_t(layer)];
    const bool predicted = m_ffnMode == FfnMode::Sparse && lw.predictor.present();
    if ((!predicted && !lw.fusedNeurons) || !neurons.valid())
        return false;
    // A prompt over most of the neurons takes the dense products, which read each weight block
    // once for the whole batch (fused rows too, through strided views; not the interleaved copy),
    // with each token's unpredicted neurons zeroed as its decode would skip them.
    const bool denseCapable = n > 1 && !m_observer && !neurons.interleaved;
    if (denseCapable && !predicted)
        return false;
    const std::int64_t nFf = hp.nFf;

    sparse::NeuronSelection::Active active = m_selection.all();
    // PowerInfer's predictor sees the residual stream before the FFN norm.
    const float* predictorInput = lw.predictor.input(m_x.data(), m_xn.data());
    // A decoded token's predictor may run on the device, which returns the ids as selectActive does.
    const std::int64_t offloaded =
        predicted && n == 1 && m_offload ? m_offload->predict(layer, predictorInput, m_threshold, m_selection.idBuffer())
                                         : -1;
    if (offloaded >= 0) {
        active = m_selection.predicted(offloaded);
    } else if (predicted) {
        active = m_selection.predict(*m_pool, lw.predictor, predictorInput, n, m_threshold);
    }
    // The device's hot neurons take a prompt too, as matrices; the CPU's prompt path is next.
    if (predicted && m_decodeFfn && !m_observer
        && (n == 1 ? m_decodeFfn->run(*m_pool, layer, m_xn.data(), active.ids, active.count, m_tmp.data())
                   : m_decodeFfn->runBatch(*m_pool, layer, m_xn.data(), n, active.ids, active.count, active.mask,
                                           m_tmp.data())))
        return true;
    if (denseCapable && predicted && sparse::NeuronSelection::denseIsCheaper(active.pairs, n, nFf)) {
        denseFfn(layer, n, active.mask);
        return true;
    }
    const sparse::FfnInput in = m_sparseFfn->prepareInput(neurons.type, m_xn.data(), n);
    if (n > 1 && !neurons.interleaved && m_downProjection) {
        // Each token's own neurons, then their down rows through the down projection, which reads
        // only the rows some token needs.
        m_sparseFfn->activations(*m_pool, neurons, in, n, active.ids, active.count, active.mask, m_gate.data());
        if (m_observer)
            m_observer(m_observerContext, layer, n, m_gate.data(), m_x.data());
        m_downProjection->run(*m_pool, denseFfnMatrices(layer).down, m_gate.data(), n, m_tmp.data());
        return true;
    }
    float* acts = nullptr;
    if (m_observer) {
        acts = m_gate.data();
        std::fill_n(acts, std::size_t(n) * std::size_t(nFf), 0.0f);
    }
    m_sparseFfn->run(*m_pool, neurons, in, n, active.ids, active.count, active.mask, m_tmp.data(), acts);
    if (m_observer)
        m_observer(m_observerContext, layer, n, acts, m_x.data());
    return true;
}

void LlamaForward::denseFfn(int layer, int n, const std::uint8_t* mask)
{
    const HyperParams& hp = m_model.hyperParams();
    const std::int64_t nFf = hp.nFf;
    const LlamaLayerWeights& lw = m_model.weights().layers[std::size_t(layer)];
    const DenseFfnMatrices ffn = lw.promptDown.data ? DenseFfnMatrices{lw.promptGate, lw.promptUp, lw.promptDown, false}
                                                    : denseFfnMatrices(layer);
    {
        const cpu::WeightMatrix ws[2] = {ffn.gate, ffn.up};
        float* const ys[2] = {m_gate.data(), m_up.data()};
        cpu::matmulShared(*m_pool, ws, ys, 2, m_xn.data(), n);
    }
    if (m_inputObserver)
        m_inputObserver(m_inputObserverContext, layer, ProjectionInput::Ffn, n, m_xn.data());
    if (m_gateObserver)
        m_gateObserver(m_gateObserverContext, layer, n, m_gate.data(), m_up.data(), m_x.data());
    applyGatedActivation(hp.ffnActivation, m_gate.data(), m_up.data(), std::int64_t(n) * nFf);
    if (mask) {
        for (std::size_t i = 0; i < std::size_t(n) * std::size_t(nFf); ++i)
            m_gate[i] = mask[i] ? m_gate[i] : 0.0f;
    }
    if (m_observer)
        m_observer(m_observerContext, layer, n, m_gate.data(), m_x.data());
    if (ffn.downTransposed)
        m_downProjection->run(*m_pool, ffn.down, m_gate.data(), n, m_tmp.data());
    else
        cpu::matmul(*m_pool, ffn.down, m_gate.data(), n, m_tmp.data());
}

LlamaForward::DenseFfnMatrices LlamaForward::denseFfnMatrices(int layer) const
{
    const LlamaLayerWeights& lw = m_model.weights().layers[std::size_t(layer)];
    if (!lw.fusedNeurons)
        return {lw.gate, lw.up, lw.down, lw.downTransposed};
    const sparse::NeuronWeights& neurons = m_neurons[std::size_t(layer)];
    return {neurons.rows(neurons.gate), neurons.rows(neurons.up), neurons.rows(neurons.down), true};
}

void LlamaForward::attention(int layer, std::int64_t begin, std::int64_t end, int threadIndex)
{
    const HyperParams& hp = m_model.hyperParams();
    const int group = hp.nHead / hp.nHeadKv;
    const int hd = hp.headDim;
    const float scale = hp.attentionScale > 0.0f ? hp.attentionScale : 1.0f / std::sqrt(float(hd));
    const float* sinks = m_model.weights().layers[std::size_t(layer)].attnSinks;
    float* scratch = m_scores.data()
                     + std::size_t(threadIndex) * cpu::attendHeadScratchFloats(m_cache->capacity(), hd);
    if (m_batchTokens == 1) {
        // A decoded token: one item per KV head, its query heads together.
        for (std::int64_t kvh = begin; kvh < end; ++kvh) {
            const std::size_t first = std::size_t(kvh) * std::size_t(group) * std::size_t(hd);
            attendSharedKv(m_q.data() + first, group, m_batchStart, *m_cache, layer, int(kvh) * hd, hd, scale, scratch,
                           m_attn.data() + first, hp.windowOf(layer), hp.attnSoftCap,
                           sinks ? sinks + kvh * group : nullptr);
        }
        return;
    }
    // One item per head, all the batch's tokens together.
    for (std::int64_t h = begin; h < end; ++h) {
        const int kvOffset = (int(h) / group) * hd;
        const float* q = m_q.data() + std::size_t(h) * hd;
        float* out = m_attn.data() + std::size_t(h) * hd;
        attendCausal(q, hp.qDim(), m_batchTokens, m_batchStart, *m_cache, layer, kvOffset, hd, scale, scratch, out,
                     hp.qDim(), hp.windowOf(layer), hp.attnSoftCap, sinks ? sinks + h : nullptr);
    }
}

void LlamaForward::forward(const Token* tokens, int n, int start, float* logits, bool allLogits)
{
    const HyperParams& hp = m_model.hyperParams();
    const LlamaWeights& w = m_model.weights();
    cpu::ThreadPool& pool = *m_pool;
    const std::int64_t nEmbd = hp.nEmbd;
    const int half = hp.nRot / 2;

    m_batchStart = start;
    m_batchTokens = n;
    m_cache->prepare(start, n);

    embed(tokens, n);
    for (int t = 0; t < n; ++t) {
        cpu::ropeTables(start + t, hp.nRot, hp.ropeFreqBase, hp.ropeFreqScale, m_cos.data() + t * half,
                        m_sin.data() + t * half, m_ropeFactors, hp.ropeAttnFactor, m_yarn ? &*m_yarn : nullptr);
    }
    if (hp.hasLocalRope()) {
        const std::size_t local = std::size_t(m_maxBatch) * std::size_t(half);
        for (int t = 0; t < n; ++t) {
            cpu::ropeTables(start + t, hp.nRot, hp.ropeFreqBaseSwa, hp.ropeFreqScaleSwa, m_cos.data() + local + t * half,
                            m_sin.data() + local + t * half, m_ropeFactors, hp.ropeAttnFactor,
                            m_yarnLocal ? &*m_yarnLocal : nullptr);
        }
    }

    int firstLayer = 0;
    if (m_offload && m_offload->wholeLayers() > 0) {
        if (m_offload->runWholeLayers(*m_cache, m_x.data(), n, start)) {
            firstLayer = std::min(m_offload->wholeLayers(), hp.nLayer);
        } else {
            // The residual stream is undefined after a failure: the CPU starts over.
            embed(tokens, n);
        }
    }

    for (int l = firstLayer; l < hp.nLayer; ++l) {
        const LlamaLayerWeights& lw = w.layers[std::size_t(l)];
        m_batchLayer = l;

        // A router that reads the layer's input chooses before attention (SmallThinker): experts
        // read from the disk arrive while attention runs.
        if (lw.moe.present() && hp.flavour.routerBeforeAttention) {
            m_moe->route(pool, lw.moe, hp, m_x.data(), n);
            if (w.readExpertsAhead)
                m_moe->readChosenAhead(lw.moe);
        }

        // Attention block.
        if (!m_offload || !m_offload->hasAttention(l)
            || !m_offload->runAttention(*m_cache, l, m_x.data(), n, start, m_tmp.data()))
            cpuAttentionBlock(l, n, start);
        postNorm(lw.attnPostNorm, n);
        cpu::add(m_x.data(), m_tmp.data(), n * nEmbd);

        // Feed-forward block, on the normalized residual (m_xn; predictors read m_x).
        for (int t = 0; t < n; ++t)
            cpu::rmsNorm(m_x.data() + t * nEmbd, lw.ffnNorm, hp.normEps, nEmbd, m_xn.data() + t * nEmbd);
        if (lw.moe.present()) {
            if (!hp.flavour.routerBeforeAttention) {
                m_moe->route(pool, lw.moe, hp, m_xn.data(), n);
                if (w.readExpertsAhead)
                    m_moe->readChosenAhead(lw.moe);
            }
            m_moe->run(pool, lw.moe, hp, m_xn.data(), n, m_tmp.data(), m_offload, l);
            if (m_expertObserver)
                m_expertObserver(m_expertObserverContext, l, n, m_moe->lastActivity(hp));
            postNorm(lw.ffnPostNorm, n);
            cpu::add(m_x.data(), m_tmp.data(), n * nEmbd);
            continue;
        }
        if (!magnitudeFfn(l, n) && !neuronFfn(l, n))
            denseFfn(l, n, nullptr);
        postNorm(lw.ffnPostNorm, n);
        cpu::add(m_x.data(), m_tmp.data(), n * nEmbd);
    }

    // Output head: every row for perplexity, else only the last token's.
    const int first = allLogits ? 0 : n - 1;
    const int rows = n - first;
    if (!m_offload || !m_offload->runOutput(m_x.data() + first * nEmbd, rows, logits)) {
        for (int t = 0; t < rows; ++t)
            cpu::rmsNorm(m_x.data() + (first + t) * nEmbd, w.outputNorm, hp.normEps, nEmbd, m_xn.data() + t * nEmbd);
        cpu::matmul(pool, w.output, m_xn.data(), rows, logits);
    }
    if (hp.finalSoftCap > 0.0f) {
        const std::int64_t count = std::int64_t(rows) * hp.nVocab;
        for (std::int64_t i = 0; i < count; ++i)
            logits[i] = hp.finalSoftCap * std::tanh(logits[i] / hp.finalSoftCap);
    }
}

void LlamaForward::embed(const Token* tokens, int n)
{
    const HyperParams& hp = m_model.hyperParams();
    const std::int64_t nEmbd = hp.nEmbd;
    // Gemma scales its embeddings (by the float sqrt, as llama.cpp does).
    const float scale = hp.flavour.scaleEmbedding ? std::sqrt(float(nEmbd)) : 1.0f;
    for (int t = 0; t < n; ++t) {
        cpu::getRow(m_model.weights().tokenEmbd, tokens[t], m_x.data() + t * nEmbd);
        if (scale != 1.0f)
            cpu::scale(m_x.data() + t * nEmbd, scale, nEmbd);
    }
}

void LlamaForward::postNorm(const float* weight, int n)
{
    if (!weight)
        return;
    const HyperParams& hp = m_model.hyperParams();
    for (int t = 0; t < n; ++t)
        cpu::rmsNorm(m_tmp.data() + std::size_t(t) * hp.nEmbd, weight, hp.normEps, hp.nEmbd,
                     m_tmp.data() + std::size_t(t) * hp.nEmbd);
}

void LlamaForward::cpuAttentionBlock(int l, int n, int start)
{
    const HyperParams& hp = m_model.hyperParams();
    const LlamaLayerWeights& lw = m_model.weights().layers[std::size_t(l)];
    cpu::ThreadPool& pool = *m_pool;
    const std::int64_t nEmbd = hp.nEmbd;
    const int half = hp.nRot / 2;
    for (int t = 0; t < n; ++t)
        cpu::rmsNorm(m_x.data() + t * nEmbd, lw.attnNorm, hp.normEps, nEmbd, m_xn.data() + t * nEmbd);
    if (m_inputObserver)
        m_inputObserver(m_inputObserverContext, l, ProjectionInput::Attention, n, m_xn.data());
    if (lw.attentionInputMajor) {
        inputMajorProducts(lw.attnInputThresholds, m_xn.data(), nEmbd, n,
                           {{lw.wq, m_q.data()}, {lw.wk, m_k.data()}, {lw.wv, m_v.data()}});
    } else {
        const cpu::WeightMatrix ws[3] = {lw.wq, lw.wk, lw.wv};
        float* const ys[3] = {m_q.data(), m_k.data(), m_v.data()};
        cpu::matmulShared(pool, ws, ys, 3, m_xn.data(), n);
    }
    if (lw.bq) {
        addBias(m_q.data(), lw.bq, n, hp.qDim());
        addBias(m_k.data(), lw.bk, n, hp.kvDim());
        addBias(m_v.data(), lw.bv, n, hp.kvDim());
    }
    const auto rope = hp.flavour.rope == RopeStyle::Neox ? cpu::ropeNeox : cpu::ropeNormal;
    // Gemma 3's local layers have tables of their own, after the global ones.
    const std::size_t table = hp.hasLocalRope() && hp.windowOf(l) > 0 ? std::size_t(m_maxBatch) * half : 0;
    const float* cosTable = m_cos.data() + table;
    const float* sinTable = m_sin.data() + table;
    for (int t = 0; t < n; ++t) {
        float* q = m_q.data() + std::size_t(t) * hp.qDim();
        float* k = m_k.data() + std::size_t(t) * hp.kvDim();
        if (lw.qNorm) {
            for (int h = 0; h < hp.nHead; ++h)
                cpu::rmsNorm(q + h * hp.headDim, lw.qNorm, hp.normEps, hp.headDim, q + h * hp.headDim);
            for (int h = 0; h < hp.nHeadKv; ++h)
                cpu::rmsNorm(k + h * hp.headDim, lw.kNorm, hp.normEps, hp.headDim, k + h * hp.headDim);
        }
        if (hp.rotates(l)) {
            rope(q, hp.nHead, hp.headDim, hp.nRot, cosTable + t * half, sinTable + t * half);
            rope(k, hp.nHeadKv, hp.headDim, hp.nRot, cosTable + t * half, sinTable + t * half);
        }
        m_cache->store(l, start + t, k, m_v.data() + std::size_t(t) * hp.kvDim());
    }
    pool.parallelFor(n == 1 ? hp.nHeadKv : hp.nHead, [this](std::int64_t begin, std::int64_t end, int thread) {
        attention(m_batchLayer, begin, end, thread);
    });
    if (m_inputObserver)
        m_inputObserver(m_inputObserverContext, l, ProjectionInput::AttentionOutput, n, m_attn.data());
    if (lw.attentionInputMajor)
        inputMajorProducts(lw.attnOutputThresholds, m_attn.data(), hp.qDim(), n, {{lw.wo, m_tmp.data()}});
    else
        cpu::matmul(pool, lw.wo, m_attn.data(), n, m_tmp.data());
    addBias(m_tmp.data(), lw.bo, n, nEmbd);
}

} // namespace hearth::model
