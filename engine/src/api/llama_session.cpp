// SPDX-License-Identifier: MIT
#include "api/llama_session.h"

#include "api/dense_offload_session.h"
#include "api/expert_offload_session.h"
#include "api/hybrid_decode.h"
#include "api/hybrid_device_layers.h"
#include "api/session_device.h"

#include "model/falcon_forward.h"
#include "model/falcon_model.h"
#include "model/llama_forward.h"
#include "model/llama_model.h"
#include "model/opt_forward.h"
#include "model/opt_model.h"

#include <algorithm>
#include <new>

namespace hearth {

namespace {
// The context a session gets when it does not ask (an F16 cache of 4096 tokens is 512 MiB for an
// 8B model with grouped-query attention); longer ones are asked for, up to the model's trained
// context (or this, for models trained on less).
constexpr int DefaultContextLength = 4096;

// A forward pass with the session's device parts: the hybrid FFN, whole-layer offload of a dense
// file, attention and predictors of a sparse one, attention and experts of a mixture. Declared
// here so they outlive the forward pass (in the derived class) that points at them.
class DeviceForward : public model::ArchitectureForward {
public:
    struct Parts {
        std::unique_ptr<HybridDecode> hybrid;
        std::unique_ptr<DenseOffloadSession> dense;
        std::unique_ptr<HybridDeviceLayers> layers;
        std::unique_ptr<ExpertOffloadSession> experts;
    };

    // Whole-layer offload of a dense file, or null.
    [[nodiscard]] const DenseOffloadSession* denseOffload() const { return m_dense.get(); }
    // Attention and predictors of a sparse file beside its hybrid FFN, or null.
    [[nodiscard]] const HybridDeviceLayers* deviceLayers() const { return m_layers.get(); }
    // Attention and experts of a mixture of experts, or null.
    [[nodiscard]] const ExpertOffloadSession* expertOffload() const { return m_experts.get(); }

protected:
    explicit DeviceForward(Parts parts)
        : m_hybrid(std::move(parts.hybrid))
        , m_dense(std::move(parts.dense))
        , m_layers(std::move(parts.layers))
        , m_experts(std::move(parts.experts))
    {
    }
    // What the forward pass's layer hook gets: at most one of them is there.
    [[nodiscard]] model::LayerOffload* layerOffload() const
    {
        if (m_dense)
            return m_dense.get();
        if (m_experts)
            return m_experts.get();
        return m_layers.get();
    }

    std::unique_ptr<HybridDecode> m_hybrid;
    std::unique_ptr<DenseOffloadSession> m_dense;
    std::unique_ptr<HybridDeviceLayers> m_layers;
    std::unique_ptr<ExpertOffloadSession> m_experts;
};

// LlamaForward predates ArchitectureForward; this keeps it unaware of the interface.
class LlamaForwardAdapter final : public DeviceForward {
public:
    LlamaForwardAdapter(std::unique_ptr<model::LlamaForward> forward, int vocab, Parts parts)
        : DeviceForward(std::move(parts))
        , m_forward(std::move(forward))
        , m_vocab(vocab)
    {
        m_forward->setDecodeFfn(m_hybrid.get());
        m_forward->setLayerOffload(layerOffload());
    }
    [[nodiscard]] int contextLength() const override { return m_forward->contextLength(); }
    [[nodiscard]] const model::KvCache& kvCache() const override { return m_forward->kvCache(); }
    [[nodiscard]] int maxBatch() const override { return m_forward->maxBatch(); }
    [[nodiscard]] int vocabSize() const override { return m_vocab; }
    void forward(const Token* tokens, int n, int start, float* logits, bool allLogits) override
    {
        m_forward->forward(tokens, n, start, logits, allLogits);
    }

private:
    std::unique_ptr<model::LlamaForward> m_forward;
    int m_vocab;
};

model::KvCache::Type cacheType(const SessionParams& params)
{
    return model::KvCache::typeOf(params.kvCache);
}

template <typename Forward>
Result<std::unique_ptr<model::ArchitectureForward>> upcast(Result<std::unique_ptr<Forward>> forward)
{
    if (!forward)
        return forward.status();
    return std::unique_ptr<model::ArchitectureForward>(std::move(forward).value());
}

// Whole layers of a plain dense file on the device (the sparse files' FFN goes through
// HybridDecode instead); null with @p report updated when they stay on the CPU.
std::unique_ptr<DenseOffloadSession> denseOffload(const Model& model, bool sparse, const SessionParams& params,
                                                  int contextLength, int batchSize, std::string& report)
{
    if (sparse)
        return nullptr;
    return DenseOffloadSession::create(model, params, contextLength, batchSize, report);
}

// The attention and predictors the hybrid FFN's plan puts on its device, or null.
std::unique_ptr<HybridDeviceLayers> hybridDeviceLayers(HybridDecode* hybrid, const Model& model,
                                                       const SessionParams& params, int contextLength, int batchSize)
{
    if (!hybrid)
        return nullptr;
    std::vector<std::string> notes; // what did not fit stays on the CPU; the summary counts it
    return HybridDeviceLayers::create(hybrid->device(), model,
                                      HybridDeviceLayers::fromPlan(hybrid->plan(), deviceHalfCache(params.kvCache)),
                                      contextLength, batchSize, notes);
}

// Falcon and opt: the forward pass and its device parts, as for llama.
class FamilyForwardAdapter final : public DeviceForward {
public:
    FamilyForwardAdapter(std::unique_ptr<model::FamilyForward> forward, Parts parts)
        : DeviceForward(std::move(parts))
        , m_forward(std::move(forward))
    {
        m_forward->setDecodeFfn(m_hybrid.get());
        m_forward->setLayerOffload(layerOffload());
    }
    [[nodiscard]] int contextLength() const override { return m_forward->contextLength(); }
    [[nodiscard]] const model::KvCache& kvCache() const override { return m_forward->kvCache(); }
    [[nodiscard]] int maxBatch() const override { return m_forward->maxBatch(); }
    [[nodiscard]] int vocabSize() const override { return m_forward->vocabSize(); }
    void forward(const Token* tokens, int n, int start, float* logits, bool allLogits) override
    {
        m_forward->forward(tokens, n, start, logits, allLogits);
    }

private:
    std::unique_ptr<model::FamilyForward> m_forward;
};

template <typename Forward, typename FamilyModel>
Result<std::unique_ptr<model::ArchitectureForward>> createFamilyForward(const FamilyModel& model, int contextLength,
                                                                        const SessionParams& params,
                                                                        HybridDecode*& hybrid, std::string& report)
{
    auto forward = Forward::create(model, contextLength, params.batchSize, params.threads, cacheType(params));
    if (!forward)
        return forward.status();
    if (params.denseFfn)
        (*forward)->setFfnMode(model::FamilyForward::FfnMode::Dense);
    const int batch = (*forward)->maxBatch();
    const bool sparse = model.weights().sparse;
    std::unique_ptr<HybridDecode> decode;
    if (sparse) {
        decode = HybridDecode::create(model, params, contextLength, batch, report);
        hybrid = decode.get();
    }
    auto dense = denseOffload(model, sparse, params, contextLength, batch, report);
    auto layers = hybridDeviceLayers(decode.get(), model, params, contextLength, batch);
    if (!decode && !dense)
        return upcast(std::move(forward));
    return std::unique_ptr<model::ArchitectureForward>(std::make_unique<FamilyForwardAdapter>(
        std::move(forward).value(), DeviceForward::Parts{std::move(decode), std::move(dense), std::move(layers), nullptr}));
}

// The forward pass of @p model's architecture, or Unsupported.
// @p hybrid receives the hybrid FFN of a sparse file (null when it runs on the CPU), @p report
// where the work runs.
Result<std::unique_ptr<model::ArchitectureForward>> createForward(const Model& model, int contextLength,
                                                                  const SessionParams& params, HybridDecode*& hybrid,
                                                                  std::string& report)
{
    const int batch = params.batchSize;
    const int threads = params.threads;
    const model::ArchitectureModel* known = model::ArchitectureModel::of(model);
    if (!known)
        return Status(ErrorCode::Unsupported, "sessions for the " + model.info().architecture
                                                  + " architecture are not supported");
    switch (known->architecture().block) {
    case model::BlockKind::Llama: {
        const auto& llama = static_cast<const model::LlamaModel&>(*known);
        auto forward = model::LlamaForward::create(llama, contextLength, batch, threads, cacheType(params));
        if (!forward)
            return forward.status();
        if (params.denseFfn)
            (*forward)->setFfnMode(model::LlamaForward::FfnMode::Dense);
        const int maxBatch = (*forward)->maxBatch();
        DeviceForward::Parts parts;
        if (llama.hyperParams().mixtureOfExperts()) {
            parts.experts = ExpertOffloadSession::create(llama, params, contextLength, maxBatch, report);
        } else {
            parts.hybrid = HybridDecode::create(llama, params, contextLength, maxBatch, report);
            hybrid = parts.hybrid.get();
            // A magnitude-sparse file goes by neuron when it can (statistics beside it), else by
            // whole layers as a dense file.
            parts.dense = denseOffload(llama, llama.weights().sparse || parts.hybrid, params, contextLength, maxBatch, report);
            parts.layers = hybridDeviceLayers(parts.hybrid.get(), llama, params, contextLength, maxBatch);
        }
        return std::unique_ptr<model::ArchitectureForward>(
            std::make_unique<LlamaForwardAdapter>(std::move(forward).value(), llama.hyperParams().nVocab, std::move(parts)));
    }
    case model::BlockKind::Falcon:
        return createFamilyForward<model::FalconForward>(static_cast<const model::FalconModel&>(*known), contextLength,
                                                         params, hybrid, report);
    case model::BlockKind::Opt:
        return createFamilyForward<model::OptForward>(static_cast<const model::OptModel&>(*known), contextLength,
                                                      params, hybrid, report);
    }
    return Status(ErrorCode::Internal, "unknown block kind");
}

} // namespace

LlamaSession::LlamaSession(std::shared_ptr<const Model> model, std::unique_ptr<model::ArchitectureForward> forward)
    : m_model(std::move(model))
    , m_forward(std::move(forward))
{
}

LlamaSession::~LlamaSession() = default;

Result<std::unique_ptr<Session>> LlamaSession::create(std::shared_ptr<const Model> model, const SessionParams& params)
{
    if (!model)
        return Status(ErrorCode::InvalidArgument, "no model");
    const int trained = model->info().trainedContextLength;
    const int longest = std::max(trained, DefaultContextLength);
    if (params.contextLength < 0 || params.contextLength > longest)
        return Status(ErrorCode::InvalidArgument, "context length " + std::to_string(params.contextLength)
                                                      + " is out of range (0 to " + std::to_string(longest)
                                                      + ", the model's trained context)");
    if (params.batchSize <= 0)
        return Status(ErrorCode::InvalidArgument, "batch size must be positive");
    if (params.threads < 0 || params.threads > 1024)
        return Status(ErrorCode::InvalidArgument, "thread count " + std::to_string(params.threads) + " is out of range");

    const int contextLength = params.contextLength > 0 ? params.contextLength : std::min(trained, DefaultContextLength);

    HybridDecode* hybrid = nullptr;
    std::string report;
    auto forward = createForward(*model, contextLength, params, hybrid, report);
    if (!forward)
        return forward.status();

    const int vocab = (*forward)->vocabSize();
    std::unique_ptr<LlamaSession> session(new LlamaSession(std::move(model), std::move(forward).value()));
    session->m_hybrid = hybrid;
    session->m_placementReport = std::move(report);
    try {
        session->m_history.reserve(std::size_t(contextLength));
        session->m_logits.resize(std::size_t(vocab));
    } catch (const std::bad_alloc&) {
        return Status(ErrorCode::OutOfMemory, "not enough memory for the session");
    }
    return std::unique_ptr<Session>(std::move(session));
}

Status LlamaSession::checkTokens(std::span<const Token> tokens) const
{
    if (tokens.empty())
        return {ErrorCode::InvalidArgument, "no tokens to evaluate"};
    const int vocab = m_forward->vocabSize();
    for (Token t : tokens) {
        if (t < 0 || t >= vocab)
            return {ErrorCode::InvalidArgument, "token id " + std::to_string(t) + " is outside the vocabulary"};
    }
    if (tokens.size() > std::size_t(contextLength() - position()))
        return {ErrorCode::ContextFull, std::to_string(tokens.size()) + " tokens do not fit: "
                                            + std::to_string(position()) + " of " + std::to_string(contextLength())
                                            + " context positions are used"};
    return {};
}

void LlamaSession::run(std::span<const Token> tokens, float* allLogits)
{
    const std::size_t vocab = std::size_t(m_forward->vocabSize());
    const std::size_t batch = std::size_t(m_forward->maxBatch());
    for (std::size_t done = 0; done < tokens.size(); done += batch) {
        const int n = int(std::min(batch, tokens.size() - done));
        const bool last = done + std::size_t(n) == tokens.size();
        float* out = allLogits ? allLogits + done * vocab : m_logits.data();
        // Intermediate batches of a prefill need no logits at all, but the output head of one
        // row is cheap next to a batch; computing it keeps forward() simple.
        m_forward->forward(tokens.data() + done, n, position(), out, allLogits != nullptr);
        m_history.insert(m_history.end(), tokens.begin() + std::ptrdiff_t(done),
                         tokens.begin() + std::ptrdiff_t(done) + n);
        if (allLogits && last)
            std::copy_n(allLogits + (tokens.size() - 1) * vocab, vocab, m_logits.data());
    }
    m_logitsValid = true;
}

Status LlamaSession::prefill(std::span<const Token> tokens)
{
    HEARTH_TRY(checkTokens(tokens));
    run(tokens, nullptr);
    return {};
}

Status LlamaSession::decode(Token token)
{
    return prefill(std::span<const Token>(&token, 1));
}

std::span<const float> LlamaSession::logits() const
{
    if (!m_logitsValid)
        return {};
    return m_logits;
}

Status LlamaSession::evaluateAll(std::span<const Token> tokens, std::vector<float>& allLogits)
{
    HEARTH_TRY(checkTokens(tokens));
    try {
        allLogits.resize(tokens.size() * std::size_t(m_forward->vocabSize()));
    } catch (const std::bad_alloc&) {
        return {ErrorCode::OutOfMemory, "not enough memory for the logits of " + std::to_string(tokens.size()) + " tokens"};
    }
    run(tokens, allLogits.data());
    return {};
}

void LlamaSession::truncate(int keep)
{
    keep = std::clamp(keep, 0, position());
    // Sliding-window layers that have let go of the keys before `keep` make it start over.
    if (!m_forward->kvCache().holdsContextOf(keep))
        keep = 0;
    if (keep == position())
        return;
    // The cache rows past `keep` are simply overwritten by the next tokens. The logits belonged
    // to a dropped token, so there are none until the next prefill/decode.
    m_history.resize(std::size_t(keep));
    m_logitsValid = false;
}

KvCacheType LlamaSession::kvCacheType() const
{
    return model::KvCache::publicType(m_forward->kvCache().type());
}

Result<std::unique_ptr<Session>> Session::create(std::shared_ptr<const Model> model, const SessionParams& params)
{
    return LlamaSession::create(std::move(model), params);
}

std::string LlamaSession::placementReport() const
{
    const auto* adapter = dynamic_cast<const DeviceForward*>(m_forward.get());
    if (m_hybrid) {
        if (adapter && adapter->deviceLayers())
            return m_hybrid->report() + "; " + adapter->deviceLayers()->summary();
        return m_hybrid->report();
    }
    if (adapter && adapter->denseOffload())
        return adapter->denseOffload()->report();
    if (adapter && adapter->expertOffload())
        return adapter->expertOffload()->report();
    return m_placementReport;
}

SessionPlacement LlamaSession::placement() const
{
    const auto* adapter = dynamic_cast<const DeviceForward*>(m_forward.get());
    if (m_hybrid) {
        SessionPlacement placement = m_hybrid->placement();
        if (placement.deviceFailure.empty() && adapter && adapter->deviceLayers())
            placement.deviceFailure = adapter->deviceLayers()->failure();
        return placement;
    }
    if (adapter && adapter->denseOffload())
        return adapter->denseOffload()->placement();
    if (adapter && adapter->expertOffload())
        return adapter->expertOffload()->placement();
    SessionPlacement placement;
    // The report of a session on the CPU alone is cpuOnlyReport(why), the only place that writes one.
    constexpr std::string_view prefix = "CPU only: ";
    placement.cpuOnlyReason = m_placementReport.rfind(prefix, 0) == 0 ? m_placementReport.substr(prefix.size()) : m_placementReport;
    return placement;
}

} // namespace hearth
