// SPDX-License-Identifier: MIT
#include "device/output_head.h"

#include <algorithm>
#include <cstdint>
#include <string>

namespace hearth::device {

OutputHead::~OutputHead()
{
    freeAll();
}

void OutputHead::freeAll()
{
    for (DeviceBuffer* b : {&m_output.data, &m_normWeight, &m_normBias, &m_x, &m_logits})
        m_device.free(*b);
}

std::uint64_t OutputHead::deviceBytes() const
{
    std::uint64_t total = 0;
    for (const DeviceBuffer* b : {&m_output.data, &m_normWeight, &m_normBias, &m_x, &m_logits})
        total += b->charged;
    return total;
}

Result<std::unique_ptr<OutputHead>> OutputHead::create(Device& device, const OutputHeadWeights& w, int maxRows)
{
    const cpu::WeightMatrix& m = w.output;
    if (!w.normWeight || !m.data || m.rows <= 0 || m.cols <= 0 || maxRows <= 0)
        return Status(ErrorCode::InvalidArgument, "output head: no output matrix or norm");
    if (!isDeviceType(m.type))
        return Status(ErrorCode::Unsupported, "the output matrix holds " + std::string(dtypeName(m.type))
                                                  + " weights, which the device does not compute");
    if (cpu::rowStrideOf(m) != rowBytes(m.type, m.cols))
        return Status(ErrorCode::Unsupported, "the output matrix is a strided view");
    std::unique_ptr<OutputHead> head(new OutputHead(device));
    head->m_norm = w.norm;
    head->m_eps = w.eps;
    head->m_maxRows = maxRows;
    const auto nEmbd = std::uint64_t(m.cols);
    const auto nVocab = std::uint64_t(m.rows);
    auto output = device.uploadMatrix(m.type, m.data, m.rows, m.cols, "output");
    if (!output)
        return output.status();
    head->m_output = *output;
    auto norm = device.allocateAndUpload(w.normWeight, nEmbd * 4, "output norm");
    if (!norm)
        return norm.status();
    head->m_normWeight = *norm;
    if (w.norm == NormKind::Layer && w.normBias) {
        auto bias = device.allocateAndUpload(w.normBias, nEmbd * 4, "output norm bias");
        if (!bias)
            return bias.status();
        head->m_normBias = *bias;
    }
    auto x = device.allocate(std::uint64_t(maxRows) * nEmbd * 4, "output head input");
    if (!x)
        return x.status();
    head->m_x = *x;
    auto logits = device.allocate(std::uint64_t(maxRows) * nVocab * 4, "logits");
    if (!logits)
        return logits.status();
    head->m_logits = *logits;
    return head;
}

Status OutputHead::run(const float* x, int rows, float* logits)
{
    const Status queued = enqueue(x, rows, logits);
    // Also after a failure: copies already queued may still write to logits.
    const Status ran = m_device.synchronize();
    return queued.ok() ? ran : queued;
}

bool OutputHead::runUnlessFailed(const float* x, int rows, float* logits, std::string& failure)
{
    if (!failure.empty())
        return false;
    const Status st = run(x, rows, logits);
    if (!st.ok())
        failure = st.message();
    return st.ok();
}

Status OutputHead::enqueue(const float* x, int rows, float* logits)
{
    const std::int64_t nEmbd = m_output.cols;
    const std::int64_t nVocab = m_output.rows;
    for (int done = 0; done < rows; done += m_maxRows) {
        const int count = std::min(m_maxRows, rows - done);
        // One stream: the next slice's upload waits for this slice's product.
        HEARTH_TRY(m_device.upload(m_x, 0, x + std::int64_t(done) * nEmbd, std::uint64_t(count * nEmbd) * 4));
        if (m_norm == NormKind::Rms)
            HEARTH_TRY(m_device.rmsNorm(RmsNormOp{m_x, m_normWeight, m_eps, nEmbd, count, m_x}));
        else
            HEARTH_TRY(m_device.layerNorm(LayerNormOp{m_x, m_normWeight, m_normBias, m_eps, nEmbd, count, m_x}));
        HEARTH_TRY(m_device.matmul(MatmulOp{&m_output, m_x, m_logits, count}));
        HEARTH_TRY(m_device.download(m_logits, 0, logits + std::int64_t(done) * nVocab,
                                     std::uint64_t(count) * std::uint64_t(nVocab) * 4));
    }
    return {};
}

} // namespace hearth::device
