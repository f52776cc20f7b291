// SPDX-License-Identifier: MIT
#pragma once

// The output head on the device: the final norm and the projection to the vocabulary's logits.
// Every decoded token reads the whole output matrix (32000 x 4096 in Q6_K is 107 MB), so once a
// model's layers run on the GPU it is the largest read left to the CPU. The residual rows go up,
// the logits come back; a family's soft-capping stays with the caller.
//
//   auto head = OutputHead::create(device, weights, sparse::kOutputHeadRows);
//   if (head && (*head)->run(x, rows, logits).ok()) ... // else the CPU computes them

#include "cpu/matmul.h"
#include "device/device.h"
#include "device/device_attention.h"

#include <hearth/status.h>

#include <cstdint>
#include <memory>
#include <string>

namespace hearth::device {

struct OutputHeadWeights {
    NormKind norm = NormKind::Rms;
    const float* normWeight = nullptr; // [nEmbd]
    const float* normBias = nullptr;   // [nEmbd], LayerNorm only; may be null
    float eps = 1e-5f;
    cpu::WeightMatrix output;          // [nVocab][nEmbd]
};

class OutputHead {
public:
    // Uploads @p w; @p maxRows: rows of residual and logits the scratch holds (run() takes more
    // in slices). Out of memory when the device's budget cannot hold it.
    [[nodiscard]] static Result<std::unique_ptr<OutputHead>> create(Device& device, const OutputHeadWeights& w,
                                                                    int maxRows);
    ~OutputHead();
    OutputHead(const OutputHead&) = delete;
    OutputHead& operator=(const OutputHead&) = delete;

    // logits[r] = output . norm(x[r]) for @p rows rows of nEmbd (before any soft-capping);
    // returns once they are on the host.
    [[nodiscard]] Status run(const float* x, int rows, float* logits);
    // run() for a session's LayerOffload::runOutput: false when @p failure already holds a
    // device error (the CPU computes everything since) or this run fails, whose error it keeps.
    [[nodiscard]] bool runUnlessFailed(const float* x, int rows, float* logits, std::string& failure);

    [[nodiscard]] std::uint64_t deviceBytes() const;

private:
    explicit OutputHead(Device& device)
        : m_device(device)
    {
    }
    void freeAll();
    [[nodiscard]] Status enqueue(const float* x, int rows, float* logits);

    Device& m_device;
    NormKind m_norm = NormKind::Rms;
    float m_eps = 1e-5f;
    int m_maxRows = 1;
    DeviceMatrix m_output;
    DeviceBuffer m_normWeight, m_normBias;
    DeviceBuffer m_x;      // [maxRows][nEmbd]
    DeviceBuffer m_logits; // [maxRows][nVocab]
};

} // namespace hearth::device
