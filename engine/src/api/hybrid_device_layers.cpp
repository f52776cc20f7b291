// SPDX-License-Identifier: MIT
#include "api/hybrid_device_layers.h"

#include "api/session_device.h"
#include "device/byte_format.h"
#include "sparse/scratch_layout.h"

#include <algorithm>
#include <cstdint>

namespace hearth {

HybridDeviceLayers::Choice HybridDeviceLayers::fromPlan(const sparse::PlacementPlan& plan, bool halfCache)
{
    Choice c;
    c.halfCache = halfCache;
    for (const sparse::LayerPlacement& l : plan.layers) {
        c.attention.push_back(l.attentionOnGpu);
        c.predictor.push_back(l.predictorOnGpu || l.hotCount > 0);
    }
    c.output = plan.outputOnGpu;
    return c;
}

HybridDeviceLayers::~HybridDeviceLayers()
{
    freeAll();
}

void HybridDeviceLayers::freeAll()
{
    m_attention.clear();
    m_attnScratch.reset();
    m_output.reset();
    for (Predictor& p : m_predictors)
        freePredictor(p);
    m_predictors.clear();
    for (device::DeviceBuffer* b : {&m_x, &m_out, &m_hidden, &m_logits, &m_active, &m_count})
        m_device.free(*b);
}

std::unique_ptr<HybridDeviceLayers> HybridDeviceLayers::create(device::Device& dev, const Model& model,
                                                               const Choice& choice, int contextLength, int batchSize,
                                                               std::vector<std::string>& notes)
{
    auto described = deviceModelLayers(model, contextLength, batchSize, choice.halfCache);
    if (!described) {
        notes.push_back("attention and predictors stay on the CPU: " + described.message());
        return nullptr;
    }
    const device::AttentionParams& ap = described->params;
    const int nLayer = int(described->layers.size());
    std::unique_ptr<HybridDeviceLayers> h(new HybridDeviceLayers(dev));
    h->m_nLayer = nLayer;
    h->m_halfCache = choice.halfCache;
    h->m_nEmbd = ap.nEmbd;
    h->m_nFf = described->params.nFF;
    h->m_attention.resize(std::size_t(nLayer));
    h->m_predictors.resize(std::size_t(nLayer));
    const auto wanted = [](const std::vector<bool>& v, int l) { return std::size_t(l) < v.size() && v[std::size_t(l)]; };
    // Rows of a batch the device attention takes at once: the scratch grows with it and takes
    // budget from neurons, and a few rows already keep a GPU busy for a prompt.
    const int rows = std::clamp(batchSize, 1, int(sparse::kDeviceAttentionRows));

    // Shared buffers first: without them no layer can use the device.
    const bool anyAttention = std::any_of(choice.attention.begin(), choice.attention.end(), [](bool b) { return b; });
    const bool anyPredictor = std::any_of(choice.predictor.begin(), choice.predictor.end(), [](bool b) { return b; });
    std::int64_t hidden = 0;
    for (const sparse::PredictorWeights& p : described->predictors)
        hidden = std::max(hidden, p.hidden());
    Status shared;
    const auto allocate = [&](device::DeviceBuffer& b, std::uint64_t bytes, const char* label) {
        if (!shared.ok())
            return;
        auto r = dev.allocate(bytes, label);
        if (r)
            b = *r;
        else
            shared = r.status();
    };
    if (anyAttention || anyPredictor)
        allocate(h->m_x, std::uint64_t(rows) * std::uint64_t(h->m_nEmbd) * 4, "layer input");
    if (anyAttention) {
        allocate(h->m_out, std::uint64_t(rows) * std::uint64_t(h->m_nEmbd) * 4, "attention block output");
        if (shared.ok()) {
            auto s = device::AttentionScratch::create(dev, ap, rows);
            if (s) {
                h->m_attnScratch = std::move(s).value();
                h->m_scratchBytes = device::AttentionScratch::bytesFor(dev, ap, rows);
            }
            else
                shared = s.status();
        }
    }
    if (anyPredictor && hidden > 0) {
        allocate(h->m_hidden, std::uint64_t(hidden) * 4, "predictor hidden");
        allocate(h->m_logits, std::uint64_t(h->m_nFf) * 4, "predictor logits");
        allocate(h->m_active, std::uint64_t(h->m_nFf) * 4, "active neurons");
        allocate(h->m_count, 4, "active count");
    }
    if (!shared.ok()) {
        notes.push_back("attention and predictors stay on the CPU: " + shared.message());
        return nullptr;
    }

    for (int l = 0; l < nLayer; ++l) {
        const device::AttentionWeights& aw = described->layers[std::size_t(l)];
        const sparse::PredictorWeights& predictor = described->predictors[std::size_t(l)];
        if (wanted(choice.attention, l)) {
            auto a = device::DeviceAttentionLayer::create(dev, ap, aw);
            if (a)
                h->m_attention[std::size_t(l)] = std::move(a).value();
            else
                notes.push_back("attention of layer " + std::to_string(l) + " stays on the CPU: " + a.message());
        }
        if (wanted(choice.predictor, l) && predictor.present() && h->m_count.ptr) {
            const Status st = h->uploadPredictor(predictor, h->m_predictors[std::size_t(l)]);
            if (!st.ok())
                notes.push_back("predictor of layer " + std::to_string(l) + " stays on the CPU: " + st.message());
        }
    }
    if (choice.output) {
        auto head = device::OutputHead::create(dev, described->output, sparse::kOutputHeadRows);
        if (head)
            h->m_output = std::move(head).value();
        else
            notes.push_back("the output head stays on the CPU: " + head.message());
    }
    if (h->attentionLayers() == 0 && h->predictorLayers() == 0 && !h->m_output)
        return nullptr;
    return h;
}

bool HybridDeviceLayers::hasAttention(int layer) const
{
    return m_failure.empty() && layer >= 0 && layer < m_nLayer && m_attention[std::size_t(layer)];
}

bool HybridDeviceLayers::runAttention(model::KvCache& cache, int layer, const float* x, int n, int start, float* out)
{
    if (!hasAttention(layer))
        return false;
    device::DeviceAttentionLayer& a = *m_attention[std::size_t(layer)];
    const int rows = m_attnScratch->maxTokens();
    const std::size_t nEmbd = std::size_t(m_nEmbd);
    Status st;
    for (int done = 0; done < n && st.ok(); done += rows) {
        const int count = std::min(rows, n - done);
        const std::uint64_t bytes = std::uint64_t(count) * nEmbd * 4;
        st = m_device.upload(m_x, 0, x + std::size_t(done) * nEmbd, bytes);
        if (st.ok())
            st = a.enqueue(*m_attnScratch, m_x, m_out, count, start + done,
                           {cache.k(layer, start + done), cache.v(layer, start + done)});
        if (st.ok())
            st = m_device.download(m_out, 0, out + std::size_t(done) * nEmbd, bytes);
        // The next chunk reuses the buffers (and the host rows must stay put until then); after
        // a failure too, as queued copies may still write to them.
        const Status ran = m_device.synchronize();
        if (st.ok())
            st = ran;
    }
    if (st.ok())
        return true;
    m_failure = st.message();
    return false;
}

bool HybridDeviceLayers::runOutput(const float* x, int rows, float* logits)
{
    return m_output && m_output->runUnlessFailed(x, rows, logits, m_failure);
}

Status HybridDeviceLayers::uploadPredictor(const sparse::PredictorWeights& w, Predictor& out)
{
    Predictor p;
    p.relu = w.relu;
    const auto upload = [&]() -> Status {
        auto fc1 = m_device.uploadMatrix(w.fc1.type, w.fc1.data, w.fc1.rows, w.fc1.cols, "predictor fc1");
        if (!fc1)
            return fc1.status();
        p.fc1 = *fc1;
        auto fc2 = m_device.uploadMatrix(w.fc2.type, w.fc2.data, w.fc2.rows, w.fc2.cols, "predictor fc2");
        if (!fc2)
            return fc2.status();
        p.fc2 = *fc2;
        if (!w.bias)
            return {};
        auto bias = m_device.allocateAndUpload(w.bias, std::uint64_t(w.fc2.rows) * 4, "predictor bias");
        if (!bias)
            return bias.status();
        p.bias = *bias;
        return {};
    };
    const Status st = upload();
    if (!st.ok()) {
        freePredictor(p);
        return st;
    }
    out = p;
    return {};
}

void HybridDeviceLayers::freePredictor(Predictor& p)
{
    m_device.free(p.fc1.data);
    m_device.free(p.fc2.data);
    m_device.free(p.bias);
}

std::int64_t HybridDeviceLayers::predict(int layer, const float* x, float threshold, std::int32_t* active)
{
    if (!m_failure.empty() || layer < 0 || layer >= m_nLayer || m_predictors[std::size_t(layer)].fc1.data.empty())
        return -1;
    const Predictor& p = m_predictors[std::size_t(layer)];
    device::PredictorOp op{&p.fc1, &p.fc2, m_x, threshold, m_hidden, m_logits, m_active, m_count, p.relu, p.bias};
    Status st = m_device.upload(m_x, 0, x, std::uint64_t(m_nEmbd) * 4);
    if (st.ok())
        st = m_device.predictor(op);
    // The whole list comes back with the count: one round trip instead of two.
    if (st.ok())
        st = m_device.download(m_count, 0, &m_activeCount, 4);
    if (st.ok())
        st = m_device.download(m_active, 0, active, std::uint64_t(m_nFf) * 4);
    const Status ran = m_device.synchronize(); // after a failure too: copies may be in flight
    if (st.ok())
        st = ran;
    if (st.ok() && (m_activeCount < 0 || m_activeCount > m_nFf))
        st = Status(ErrorCode::Internal, "the device predictor returned " + std::to_string(m_activeCount) + " neurons");
    if (st.ok())
        return m_activeCount;
    m_failure = st.message();
    return -1;
}

int HybridDeviceLayers::attentionLayers() const
{
    return int(std::count_if(m_attention.begin(), m_attention.end(), [](const auto& a) { return bool(a); }));
}

int HybridDeviceLayers::predictorLayers() const
{
    return int(std::count_if(m_predictors.begin(), m_predictors.end(),
                             [](const Predictor& p) { return !p.fc1.data.empty(); }));
}

std::uint64_t HybridDeviceLayers::deviceBytes() const
{
    std::uint64_t total = m_scratchBytes;
    for (const auto& a : m_attention)
        total += a ? a->deviceBytes() : 0;
    for (const Predictor& p : m_predictors)
        total += p.fc1.data.charged + p.fc2.data.charged + p.bias.charged;
    for (const device::DeviceBuffer* b : {&m_x, &m_out, &m_hidden, &m_logits, &m_active, &m_count})
        total += b->charged;
    return total + (m_output ? m_output->deviceBytes() : 0);
}

std::string HybridDeviceLayers::summary() const
{
    std::string text = "attention of " + std::to_string(attentionLayers()) + "/" + std::to_string(m_nLayer)
                       + " layers and predictors of " + std::to_string(predictorLayers()) + "/"
                       + std::to_string(m_nLayer) + " layers" + (m_output ? " and the output head" : "") + " on the GPU";
    if (!m_failure.empty())
        text += "; the device failed (" + m_failure + "): attention, predictors and the output head run on the CPU";
    return text;
}

} // namespace hearth
