// SPDX-License-Identifier: MIT
#include "device/reference_ops.h"

#include "core/fp16.h"

#include "cpu/block_dot.h"
#include "cpu/ops.h"
#include "cpu/quant.h"
#include "cpu/thread_pool.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>

namespace hearth::device {

cpu::WeightMatrix hostMatrix(const DeviceMatrix& w)
{
    return cpu::WeightMatrix{w.type, w.data.ptr, w.rows, w.cols};
}

namespace {

cpu::GemmFn gemmFor(const cpu::CpuKernels& k, DType type)
{
    switch (type) {
    case DType::F32:
        return k.gemmF32;
    case DType::F16:
        return k.gemmF16;
    case DType::Q4_0:
        return k.gemmQ4_0;
    case DType::Q8_0:
        return k.gemmQ8_0;
    default:
        return nullptr;
    }
}

bool quantizedInput(DType type)
{
    return type == DType::Q4_0 || type == DType::Q8_0;
}

// A one-thread pool per calling thread: the reference runs on whichever thread calls it (the
// emulated device's worker, a test), never on the forward pass's pool.
cpu::ThreadPool& inlinePool()
{
    thread_local std::unique_ptr<cpu::ThreadPool> pool = std::make_unique<cpu::ThreadPool>(1);
    return *pool;
}

} // namespace

RowDot::RowDot(DType type, std::int64_t cols)
    : m_kernels(cpu::activeKernels())
    , m_type(type)
    , m_cols(cols)
    , m_gemm(gemmFor(m_kernels, type))
{
    // The other block types through their dot products, against activations in their format
    // (Q8 blocks, Q8_K super-blocks or floats), as cpu::matmul multiplies them.
    const cpu::BlockFormat* format = m_gemm ? nullptr : cpu::blockFormat(type);
    if (format) {
        m_blockDot = cpu::blockDotFor(m_kernels, type);
        m_activations = format->activations;
    }
    if (quantizedInput(type) || (m_blockDot && m_activations == cpu::ActivationFormat::Q8))
        m_q8.resize(std::size_t(cols / QK8_0));
    if (m_blockDot && m_activations == cpu::ActivationFormat::Q8K)
        m_q8k.resize(std::size_t(cols / cpu::QK_K));
}

void RowDot::setInput(const float* x)
{
    m_x = x;
    if (!m_q8.empty())
        m_kernels.quantizeActivations(x, m_q8.data(), m_cols);
    if (!m_q8k.empty())
        (m_kernels.quantizeActivationsQ8K ? m_kernels.quantizeActivationsQ8K : cpu::quantizeActivationsQ8K)(x, m_q8k.data(), m_cols);
}

float RowDot::dot(const void* row) const
{
    float out = 0.0f;
    if (m_blockDot) {
        const void* activations = m_activations == cpu::ActivationFormat::Q8    ? static_cast<const void*>(m_q8.data())
                                  : m_activations == cpu::ActivationFormat::Q8K ? static_cast<const void*>(m_q8k.data())
                                                                                : static_cast<const void*>(m_x);
        return m_blockDot(row, activations, m_cols);
    }
    if (!m_gemm)
        return out;
    cpu::GemmArgs args;
    args.w = static_cast<const std::uint8_t*>(row);
    args.wStride = rowBytes(m_type, m_cols);
    args.cols = m_cols;
    if (quantizedInput(m_type)) {
        args.x = m_q8.data();
        args.xStride = m_q8.size() * sizeof(cpu::ActBlockQ8);
    } else {
        args.x = m_x;
        args.xStride = std::size_t(m_cols) * sizeof(float);
    }
    args.tokens = 1;
    args.y = &out;
    args.yStride = 1;
    m_gemm(args, 0, 1);
    return out;
}

namespace reference {

void matmul(const MatmulOp& op)
{
    if (!op.transposed) {
        cpu::matmul(inlinePool(), hostMatrix(*op.w), op.x.as<const float>(), op.tokens, op.y.as<float>());
        return;
    }
    // Each row dequantized once, added to every token's output in row order.
    const cpu::WeightMatrix w = hostMatrix(*op.w);
    const auto* x = op.x.as<const float>();
    float* y = op.y.as<float>();
    std::fill_n(y, std::size_t(op.tokens) * std::size_t(w.cols), 0.0f);
    std::vector<float> row(std::size_t(w.cols));
    for (std::int64_t r = 0; r < w.rows; ++r) {
        cpu::getRow(w, r, row.data());
        for (std::int64_t t = 0; t < op.tokens; ++t) {
            const float a = x[t * w.rows + r];
            if (a != 0.0f)
                cpu::axpy(y + t * w.cols, a, row.data(), w.cols);
        }
    }
}

void rowsDot(const RowsDotOp& op)
{
    const DeviceMatrix& w = *op.w;
    RowDot dot(w.type, w.cols);
    dot.setInput(op.x.as<const float>());
    const std::size_t stride = rowBytes(w.type, w.cols);
    const auto* base = w.data.as<const std::uint8_t>();
    const auto* index = op.index.as<const std::int32_t>();
    float* y = op.y.as<float>();
    for (std::int64_t j = 0; j < op.count; ++j) {
        const std::int32_t r = index[j];
        y[j] = (r >= 0 && r < w.rows) ? dot.dot(base + std::size_t(r) * stride) : 0.0f;
    }
}

void downRows(const cpu::WeightMatrix& w, const float* act, const std::int32_t* index, std::int64_t count,
              float* y, float* rowScratch)
{
    for (std::int64_t j = 0; j < count; ++j) {
        if (act[j] == 0.0f || index[j] < 0 || index[j] >= w.rows)
            continue;
        cpu::getRow(w, index[j], rowScratch);
        cpu::axpy(y, act[j], rowScratch, w.cols);
    }
}

void downAccumulate(const DownAccumulateOp& op)
{
    const DeviceMatrix& w = *op.w;
    float* y = op.y.as<float>();
    if (!op.accumulate)
        std::fill_n(y, std::size_t(w.cols), 0.0f);
    std::vector<float> row(std::size_t(w.cols));
    downRows(hostMatrix(w), op.act.as<const float>(), op.index.as<const std::int32_t>(), op.count, y, row.data());
}

void activate(Activation kind, float* gate, const float* up, std::int64_t n)
{
    switch (kind) {
    case Activation::SwiGlu:
        cpu::swiglu(gate, up, n);
        break;
    case Activation::ReGlu:
        cpu::reglu(gate, up, n);
        break;
    case Activation::DRelu:
        cpu::drelu(gate, up, n);
        break;
    case Activation::Relu2:
        cpu::relu2(gate, up, n);
        break;
    case Activation::Relu:
        cpu::relu(gate, n);
        break;
    case Activation::Gelu:
        gelu(gate, n);
        break;
    case Activation::GeGlu:
        cpu::geglu(gate, up, n);
        break;
    case Activation::SwiGluOai:
        cpu::swigluOai(gate, up, n);
        break;
    }
}

void gelu(float* x, std::int64_t n)
{
    constexpr float k = 0.7978845608028654f; // sqrt(2 / pi)
    for (std::int64_t i = 0; i < n; ++i) {
        const float v = x[i];
        const float u = k * v * (1.0f + 0.044715f * v * v);
        x[i] = v / (1.0f + std::exp(-2.0f * u));
    }
}

void activate(const ActivateOp& op)
{
    if (op.n <= 0)
        return;
    float* gate = op.gate.as<float>();
    // The gate part the floors compare, from the gate before the activation replaces it: silu
    // through cpu::silu, as a magnitude-sparse layer's CPU path computes it.
    std::vector<float> part;
    if (op.floorWidth > 0) {
        part.assign(gate, gate + op.n);
        if (op.kind == Activation::SwiGlu) {
            cpu::silu(part.data(), op.n);
        } else {
            for (float& v : part) {
                const float r = std::max(v, 0.0f);
                v = op.kind == Activation::Relu2 ? r * r
                    : op.kind == Activation::GeGlu
                        ? 0.5f * v * (1.0f + std::tanh(0.7978845608028654f * v * (1.0f + 0.044715f * v * v)))
                        : r;
            }
        }
    }
    activate(op.kind, gate, isGated(op.kind) ? op.up.as<const float>() : nullptr, op.n);
    if (const auto* mask = op.mask.as<const std::uint8_t>()) {
        for (std::int64_t i = 0; i < op.n; ++i)
            gate[i] = mask[i] ? gate[i] : 0.0f;
    }
    if (op.floorWidth > 0) {
        const float* gateFloor = op.gateFloor.as<const float>();
        const float* activationFloor = op.activationFloor.as<const float>();
        const float* scale = op.floorScale.as<const float>();
        for (std::int64_t i = 0; i < op.n; ++i) {
            const std::int64_t j = i % op.floorWidth;
            const float s = scale[i / op.floorWidth];
            const bool kept = std::fabs(part[std::size_t(i)]) >= gateFloor[j] * s && std::fabs(gate[i]) >= activationFloor[j] * s;
            gate[i] = kept ? gate[i] : 0.0f;
        }
    }
}

std::int32_t predictor(const PredictorOp& op)
{
    float* hidden = op.hidden.as<float>();
    float* logits = op.logits.as<float>();
    cpu::matmul(inlinePool(), hostMatrix(*op.fc1), op.x.as<const float>(), 1, hidden);
    if (op.relu)
        cpu::relu(hidden, op.fc1->rows);
    cpu::matmul(inlinePool(), hostMatrix(*op.fc2), hidden, 1, logits);
    if (!op.bias.empty())
        cpu::add(logits, op.bias.as<const float>(), op.fc2->rows);
    auto* active = op.active.as<std::int32_t>();
    std::int32_t count = 0;
    for (std::int64_t i = 0; i < op.fc2->rows; ++i) {
        if (logits[i] >= op.threshold)
            active[count++] = std::int32_t(i);
    }
    *op.activeCount.as<std::int32_t>() = count;
    return count;
}

void rmsNorm(const RmsNormOp& op)
{
    for (std::int64_t t = 0; t < op.tokens; ++t)
        cpu::rmsNorm(op.x.as<const float>() + t * op.n, op.weight.as<const float>(), op.eps, op.n,
                     op.out.as<float>() + t * op.n);
}

void attention(const AttentionOp& op)
{
    const int hd = op.headDim;
    const std::size_t kvDim = std::size_t(op.nHeadKv) * std::size_t(hd);
    std::vector<float> cosTable(std::size_t(op.nRot / 2) + 1);
    std::vector<float> sinTable(std::size_t(op.nRot / 2) + 1);
    cpu::ropeTables(op.pos, op.nRot, op.freqBase, op.freqScale, cosTable.data(), sinTable.data(),
                    op.freqFactors.empty() ? nullptr : op.freqFactors.as<const float>(), op.attnFactor);
    float* q = op.q.as<float>();
    const auto rowStart = [&](int pos) { return std::size_t(pos % op.capacity) * kvDim; };
    // K is rotated before it is stored, so a half cache rounds the rotated key, as the CPU's does.
    std::vector<float> k(op.k.as<const float>(), op.k.as<const float>() + kvDim);
    if (op.rope == RopeStyle::Normal) {
        cpu::ropeNormal(q, op.nHead, hd, op.nRot, cosTable.data(), sinTable.data());
        cpu::ropeNormal(k.data(), op.nHeadKv, hd, op.nRot, cosTable.data(), sinTable.data());
    } else if (op.rope == RopeStyle::Neox) {
        cpu::ropeNeox(q, op.nHead, hd, op.nRot, cosTable.data(), sinTable.data());
        cpu::ropeNeox(k.data(), op.nHeadKv, hd, op.nRot, cosTable.data(), sinTable.data());
    }
    // Both caches, widened to floats for the products below (a half cache as its halves read).
    const int rows = std::min(op.capacity, op.pos + 1);
    std::vector<float> kCache(std::size_t(op.capacity) * kvDim);
    std::vector<float> vCache(kCache.size());
    const float* v = op.v.as<const float>();
    if (op.halfCache) {
        auto* kHalves = op.kCache.as<std::uint16_t>();
        auto* vHalves = op.vCache.as<std::uint16_t>();
        for (std::size_t i = 0; i < kvDim; ++i) {
            kHalves[rowStart(op.pos) + i] = floatToHalf(k[i]);
            vHalves[rowStart(op.pos) + i] = floatToHalf(v[i]);
        }
        for (std::size_t i = 0; i < std::size_t(rows) * kvDim; ++i) {
            kCache[i] = halfToFloat(kHalves[i]);
            vCache[i] = halfToFloat(vHalves[i]);
        }
    } else {
        std::memcpy(op.kCache.as<float>() + rowStart(op.pos), k.data(), kvDim * sizeof(float));
        std::memcpy(op.vCache.as<float>() + rowStart(op.pos), v, kvDim * sizeof(float));
        std::memcpy(kCache.data(), op.kCache.ptr, std::size_t(rows) * kvDim * sizeof(float));
        std::memcpy(vCache.data(), op.vCache.ptr, std::size_t(rows) * kvDim * sizeof(float));
    }
    const auto row = rowStart;

    const int group = op.nHead / op.nHeadKv;
    const float scale = op.scale > 0.0f ? op.scale : 1.0f / std::sqrt(float(hd));
    const int first = op.window > 0 ? std::max(0, op.pos - op.window + 1) : 0;
    for (int h = 0; h < op.nHead; ++h) {
        float* scores = op.scores.as<float>() + std::size_t(h) * std::size_t(op.capacity);
        const std::size_t kvOffset = std::size_t(h / group) * std::size_t(hd);
        const float* qh = q + std::size_t(h) * std::size_t(hd);
        float* out = op.out.as<float>() + std::size_t(h) * std::size_t(hd);
        // scores[j - first] for the keys first .. pos.
        for (int j = first; j <= op.pos; ++j) {
            float& score = scores[j - first];
            score = cpu::dot(qh, kCache.data() + row(j) + kvOffset, hd) * scale;
            if (op.softCap > 0.0f)
                score = op.softCap * std::tanh(score / op.softCap);
        }
        const int keys = op.pos + 1 - first;
        if (op.sinks.empty()) {
            cpu::softmax(scores, keys);
        } else {
            // The sink joins the maximum and the sum, and weighs no value.
            const float sink = op.sinks.as<const float>()[h];
            const float top = std::max(*std::max_element(scores, scores + keys), sink);
            double sum = std::exp(double(sink - top));
            for (int j = 0; j < keys; ++j) {
                scores[j] = std::exp(scores[j] - top);
                sum += scores[j];
            }
            cpu::scale(scores, float(1.0 / sum), keys);
        }
        std::fill_n(out, std::size_t(hd), 0.0f);
        for (int j = first; j <= op.pos; ++j)
            cpu::axpy(out, scores[j - first], vCache.data() + row(j) + kvOffset, hd);
    }
}

void add(const AddOp& op)
{
    if (op.n > 0)
        cpu::add(op.y.as<float>(), op.x.as<const float>(), op.n);
}

void layerNorm(const LayerNormOp& op)
{
    for (std::int64_t t = 0; t < op.tokens; ++t)
        cpu::layerNorm(op.x.as<const float>() + t * op.n, op.weight.as<const float>(), op.bias.as<const float>(),
                       op.eps, op.n, op.out.as<float>() + t * op.n);
}

void biasAdd(const BiasAddOp& op)
{
    for (std::int64_t t = 0; t < op.tokens; ++t)
        cpu::add(op.y.as<float>() + t * op.n, op.bias.as<const float>(), op.n);
}

} // namespace reference

} // namespace hearth::device
