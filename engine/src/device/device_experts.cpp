// SPDX-License-Identifier: MIT
#include "device/device_experts.h"

#include <algorithm>
#include <string>

namespace hearth::device {

namespace {

struct ScratchSizes {
    std::uint64_t in, hidden, out;
};

ScratchSizes scratchSizes(const ExpertShape& s)
{
    const auto rows = std::uint64_t(std::max(s.maxRows, 1));
    return {rows * std::uint64_t(s.nEmbd) * 4, rows * std::uint64_t(s.maxFf) * 4, rows * std::uint64_t(s.nEmbd) * 4};
}

} // namespace

std::uint64_t DeviceExperts::scratchBytes(const Device& device, const ExpertShape& shape)
{
    const ScratchSizes s = scratchSizes(shape);
    return device.chargedBytes(s.in) + 2 * device.chargedBytes(s.hidden) + device.chargedBytes(s.out);
}

Result<std::unique_ptr<DeviceExperts>> DeviceExperts::create(Device& device, const ExpertShape& shape)
{
    if (shape.nLayer <= 0 || shape.nExpert <= 0 || shape.nEmbd <= 0 || shape.maxFf <= 0 || shape.maxRows <= 0
        || !isGated(shape.activation))
        return Status(ErrorCode::InvalidArgument, "device experts: bad shape");
    std::unique_ptr<DeviceExperts> d(new DeviceExperts(device, shape));
    d->m_experts.resize(std::size_t(shape.nLayer));
    d->m_flags.resize(std::size_t(shape.nLayer));
    const ScratchSizes s = scratchSizes(shape);
    for (auto [buffer, bytes, label] : {std::tuple{&d->m_in, s.in, "expert input"},
                                        std::tuple{&d->m_gate, s.hidden, "expert gate"},
                                        std::tuple{&d->m_up, s.hidden, "expert up"},
                                        std::tuple{&d->m_out, s.out, "expert output"}}) {
        auto b = device.allocate(bytes, label);
        if (!b)
            return b.status();
        *buffer = *b;
    }
    return d;
}

DeviceExperts::~DeviceExperts()
{
    freeAll();
}

void DeviceExperts::freeAll()
{
    for (std::vector<Expert>& layer : m_experts) {
        for (Expert& e : layer) {
            for (DeviceBuffer* b : e.buffers())
                m_device.free(*b);
        }
    }
    for (DeviceBuffer* b : {&m_in, &m_gate, &m_up, &m_out})
        m_device.free(*b);
}

Status DeviceExperts::place(int layer, int expert, const ExpertWeights& w)
{
    if (layer < 0 || layer >= m_shape.nLayer || expert < 0 || expert > m_shape.nExpert)
        return Status(ErrorCode::InvalidArgument, "device experts: no such expert");
    const std::int64_t nFf = w.gate.rows;
    if (w.gate.cols != m_shape.nEmbd || w.up.rows != nFf || w.up.cols != m_shape.nEmbd || w.down.rows != m_shape.nEmbd
        || w.down.cols != nFf || nFf > m_shape.maxFf)
        return Status(ErrorCode::InvalidArgument, "device experts: the expert's matrices do not match the layer");
    const std::string name = "expert " + std::to_string(expert) + " of layer " + std::to_string(layer);
    for (const cpu::WeightMatrix* m : {&w.gate, &w.up, &w.down}) {
        if (!isDeviceType(m->type))
            return Status(ErrorCode::Unsupported, name + " holds " + std::string(dtypeName(m->type))
                                                      + " weights, which the device does not compute");
        if (cpu::rowStrideOf(*m) != rowBytes(m->type, m->cols))
            return Status(ErrorCode::Unsupported, name + " is a strided view");
    }
    Expert e;
    const auto upload = [&](const cpu::WeightMatrix& m, DeviceMatrix& to) {
        auto r = m_device.uploadMatrix(m.type, m.data, m.rows, m.cols, "expert weights");
        if (r)
            to = *r;
        return r.status();
    };
    const auto uploadBias = [&](const float* bias, std::int64_t n, DeviceBuffer& to) {
        if (!bias)
            return Status();
        auto r = m_device.allocateAndUpload(bias, std::uint64_t(n) * 4, "expert bias");
        if (r)
            to = *r;
        return r.status();
    };
    Status st = upload(w.gate, e.gate);
    if (st.ok())
        st = upload(w.up, e.up);
    if (st.ok())
        st = upload(w.down, e.down);
    if (st.ok())
        st = uploadBias(w.gateBias, nFf, e.gateBias);
    if (st.ok())
        st = uploadBias(w.upBias, nFf, e.upBias);
    if (st.ok())
        st = uploadBias(w.downBias, m_shape.nEmbd, e.downBias);
    if (!st.ok()) {
        for (DeviceBuffer* b : e.buffers())
            m_device.free(*b);
        return st;
    }
    std::vector<Expert>& experts = m_experts[std::size_t(layer)];
    std::vector<std::uint8_t>& flags = m_flags[std::size_t(layer)];
    if (experts.empty()) {
        experts.resize(std::size_t(m_shape.nExpert) + 1);
        flags.assign(std::size_t(m_shape.nExpert) + 1, 0);
    }
    if (flags[std::size_t(expert)]) {
        for (DeviceBuffer* b : experts[std::size_t(expert)].buffers())
            m_device.free(*b);
    }
    experts[std::size_t(expert)] = e;
    flags[std::size_t(expert)] = 1;
    return {};
}

std::span<const std::uint8_t> DeviceExperts::flags(int layer) const
{
    if (layer < 0 || layer >= m_shape.nLayer)
        return {};
    return m_flags[std::size_t(layer)];
}

int DeviceExperts::routedExpertsOn(int layer) const
{
    const std::span<const std::uint8_t> f = flags(layer);
    return f.empty() ? 0 : int(std::count(f.begin(), f.end() - 1, std::uint8_t(1)));
}

bool DeviceExperts::sharedExpertOn(int layer) const
{
    const std::span<const std::uint8_t> f = flags(layer);
    return !f.empty() && f.back();
}

Status DeviceExperts::enqueueExpert(const Expert& expert, const float* x, std::int64_t count, bool uploaded, float* y)
{
    const auto nEmbd = std::uint64_t(m_shape.nEmbd);
    const std::int64_t nFf = expert.gate.rows;
    const std::int64_t step = uploaded ? count : m_shape.maxRows;
    for (std::int64_t done = 0; done < count; done += step) {
        const std::int64_t rows = std::min(step, count - done);
        const std::uint64_t inBytes = std::uint64_t(rows) * nEmbd * 4;
        const std::uint64_t hiddenBytes = std::uint64_t(rows) * std::uint64_t(nFf) * 4;
        if (!uploaded)
            HEARTH_TRY(m_device.upload(m_in, 0, x + std::uint64_t(done) * nEmbd, inBytes));
        const DeviceBuffer in = slice(m_in, 0, inBytes);
        const DeviceBuffer gate = slice(m_gate, 0, hiddenBytes);
        const DeviceBuffer up = slice(m_up, 0, hiddenBytes);
        const DeviceBuffer out = slice(m_out, 0, inBytes);
        HEARTH_TRY(m_device.matmul({&expert.gate, in, gate, rows}));
        HEARTH_TRY(m_device.matmul({&expert.up, in, up, rows}));
        if (!expert.gateBias.empty())
            HEARTH_TRY(m_device.biasAdd({gate, expert.gateBias, nFf, rows}));
        if (!expert.upBias.empty())
            HEARTH_TRY(m_device.biasAdd({up, expert.upBias, nFf, rows}));
        HEARTH_TRY(m_device.activate({m_shape.activation, gate, up, rows * nFf}));
        HEARTH_TRY(m_device.matmul({&expert.down, gate, out, rows}));
        if (!expert.downBias.empty())
            HEARTH_TRY(m_device.biasAdd({out, expert.downBias, std::int64_t(nEmbd), rows}));
        HEARTH_TRY(m_device.download(out, 0, y + std::uint64_t(done) * nEmbd, inBytes));
    }
    return {};
}

Status DeviceExperts::enqueue(int layer, const ExpertRows& rows)
{
    const std::span<const std::uint8_t> on = flags(layer);
    if (on.empty())
        return {};
    const std::vector<Expert>& experts = m_experts[std::size_t(layer)];
    const auto nEmbd = std::size_t(m_shape.nEmbd);
    // A decoded token: every chosen expert reads the token itself, uploaded once.
    const bool single = rows.tokens == 1;
    if (single)
        HEARTH_TRY(m_device.upload(m_in, 0, rows.input, nEmbd * 4));
    for (int e = 0; e < m_shape.nExpert; ++e) {
        const std::int64_t begin = rows.first[e];
        const std::int64_t count = rows.first[e + 1] - begin;
        if (count > 0 && on[std::size_t(e)])
            HEARTH_TRY(enqueueExpert(experts[std::size_t(e)], rows.gathered + std::size_t(begin) * nEmbd, count, single,
                                     rows.out + std::size_t(begin) * nEmbd));
    }
    if (rows.sharedOut && on.back())
        HEARTH_TRY(enqueueExpert(experts.back(), rows.input, rows.tokens, single, rows.sharedOut));
    return {};
}

std::uint64_t DeviceExperts::deviceBytes() const
{
    std::uint64_t total = 0;
    for (const std::vector<Expert>& layer : m_experts) {
        for (const Expert& e : layer) {
            for (const DeviceBuffer* b : e.buffers())
                total += b->charged;
        }
    }
    for (const DeviceBuffer* b : {&m_in, &m_gate, &m_up, &m_out})
        total += b->charged;
    return total;
}

} // namespace hearth::device
