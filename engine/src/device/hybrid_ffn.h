// SPDX-License-Identifier: MIT
#pragma once

// One sparse FFN layer split between a device and the CPU. The layer's hot neurons (the
// planner's choice) live on the device; for each token the predicted-active neurons are split
// into hot ones, computed on the device, and cold ones, computed by the host threads at the same
// time; the two partial outputs are summed:
//
//   y = sum over active i of f(gate_i . x, up_i . x) * down_t_i
//
// with f the gated activation. Weights are neuron-major, as in PowerInfer files: gate row i,
// up row i and down_t row i belong to neuron i (each nFF rows of nEmbd).
//
// The CPU part is sparse::SparseFfn (the CPU-only sparse path itself) over the active cold
// neurons: with nothing on the device the layer computes exactly what the CPU-only path does,
// and results are reproducible for a given thread count and split.

#include "cpu/matmul.h"
#include "device/device.h"
#include "sparse/neuron_weights.h"

#include <hearth/status.h>

#include <cstdint>
#include <memory>
#include <vector>

namespace hearth::cpu {
class ThreadPool;
}

namespace hearth::sparse {
class SparseFfn;
}

namespace hearth::device {

// One type for the three matrices (as sparse::NeuronWeights requires).
struct FfnWeights {
    cpu::WeightMatrix gate;  // nFF rows of nEmbd
    cpu::WeightMatrix up;    // nFF rows of nEmbd
    cpu::WeightMatrix downT; // nFF rows of nEmbd (ffn_down_t)
    Activation activation = Activation::ReGlu;
    // Bytes from a neuron's row to the next neuron's in each matrix; 0: one row (separate
    // matrices). Hearth's fused layout (fused()) has the three rows of a neuron side by side.
    std::size_t rowStride = 0;

    // The views of Hearth's fused ffn_neurons tensor (nFF rows of gate | up | down).
    [[nodiscard]] static FfnWeights fused(const cpu::WeightMatrix& neurons, std::int64_t nEmbd, Activation activation);

    [[nodiscard]] std::int64_t nFF() const { return gate.rows; }
    [[nodiscard]] std::int64_t nEmbd() const { return gate.cols; }
    [[nodiscard]] std::size_t stride() const { return rowStride ? rowStride : rowBytes(gate.type, gate.cols); }
    [[nodiscard]] Status validate() const;
};

// Device buffers shared by every layer of a model (the planner counts them as scratch): one
// decoded token's, or @p rows tokens of a prompt at once. Magnitude-sparse files' screened layers
// (device/screened_ffn.h) use them too.
class HybridFfnScratch {
public:
    [[nodiscard]] static Result<std::unique_ptr<HybridFfnScratch>> create(Device& device, std::int64_t nEmbd,
                                                                          std::int64_t maxHot, std::int64_t rows = 1);
    ~HybridFfnScratch();

    [[nodiscard]] std::int64_t nEmbd() const { return m_nEmbd; }
    [[nodiscard]] std::int64_t maxHot() const { return m_maxHot; }
    [[nodiscard]] std::uint64_t bytes() const;

private:
    friend class HybridFfnLayer;
    friend class ScreenedFfnLayer;
    explicit HybridFfnScratch(Device& device)
        : m_device(device)
    {
    }
    Device& m_device;
    std::int64_t m_nEmbd = 0;
    std::int64_t m_maxHot = 0;
    std::int64_t m_rows = 1;
    DeviceBuffer m_x;     // [rows][nEmbd] the layer input
    DeviceBuffer m_slots; // [maxHot] I32 active hot slots of a decoded token
    DeviceBuffer m_mask;  // [rows][maxHot] U8 the hot neurons each of a prompt's tokens uses
    DeviceBuffer m_gate;  // [rows][maxHot] gate dot products, then activations
    DeviceBuffer m_up;    // [rows][maxHot] up dot products
    DeviceBuffer m_y;     // [rows][nEmbd] the device's partial output
    DeviceBuffer m_scale; // [rows] the residual's root mean square per token (screened layers' floors)
};

struct HybridFfnStats {
    std::int64_t deviceNeurons = 0; // active neurons the device computed (last token)
    std::int64_t hostNeurons = 0;   // active neurons the CPU computed (last token)
};

class HybridFfnLayer {
public:
    // Uploads the rows of @p hotNeurons (ascending ids) to @p device. With no device or no hot
    // neurons the layer runs on the CPU alone and allocates nothing on a device. The weights
    // must outlive the layer. Fails with OutOfMemory when the device budget is exhausted (every
    // buffer this call made is freed again).
    [[nodiscard]] static Result<std::unique_ptr<HybridFfnLayer>> create(Device* device, HybridFfnScratch* scratch,
                                                                        const FfnWeights& weights,
                                                                        std::vector<std::int32_t> hotNeurons);
    ~HybridFfnLayer();
    HybridFfnLayer(const HybridFfnLayer&) = delete;
    HybridFfnLayer& operator=(const HybridFfnLayer&) = delete;

    // y = the FFN of x over the @p count neurons in @p active (ids in [0, nFF), any order,
    // no duplicates). x and y hold nEmbd floats; y is overwritten.
    [[nodiscard]] Status forward(cpu::ThreadPool& pool, const float* x, const std::int32_t* active, std::int64_t count,
                                 float* y);
    // The same for a prompt's @p tokens rows of x and y: @p active the neurons any of them uses,
    // @p mask (tokens x nFF bytes, may be null: every token uses every active neuron) each
    // token's. The device multiplies its hot rows with the whole batch as matrices (a slice of
    // the scratch's rows at a time), the unused ones masked to zero, while the CPU computes the
    // active cold neurons.
    [[nodiscard]] Status forwardBatch(cpu::ThreadPool& pool, const float* x, int tokens, const std::int32_t* active,
                                      std::int64_t count, const std::uint8_t* mask, float* y);

    // The (token, neuron) pairs of such a prompt the CPU would compute: its active cold neurons.
    [[nodiscard]] std::int64_t coldPairs(int tokens, const std::int32_t* active, std::int64_t count,
                                         const std::uint8_t* mask) const;

    [[nodiscard]] std::int64_t nFF() const { return m_w.nFF(); }
    [[nodiscard]] std::int64_t hotCount() const { return std::int64_t(m_hot.size()); }
    [[nodiscard]] const std::vector<std::int32_t>& hotNeurons() const { return m_hot; }
    [[nodiscard]] std::uint64_t deviceBytes() const;
    [[nodiscard]] const HybridFfnStats& lastStats() const { return m_stats; }

private:
    HybridFfnLayer(Device* device, HybridFfnScratch* scratch, const FfnWeights& weights);
    void releaseDevice();
    // The CPU's share, m_hostNeurons, for @p tokens rows (masked per token by @p mask).
    [[nodiscard]] Status computeHost(cpu::ThreadPool& pool, const float* x, int tokens, const std::uint8_t* mask,
                                     float* y);

    Device* m_device;
    HybridFfnScratch* m_scratch;
    FfnWeights m_w;
    sparse::NeuronWeights m_neurons;            // the same weights as the CPU kernels see them
    std::unique_ptr<sparse::SparseFfn> m_cpu;   // made for the first pool that calls forward()
    int m_cpuThreads = 0;
    int m_cpuTokens = 0;
    std::vector<std::int32_t> m_hot;  // ascending neuron ids on the device
    std::vector<std::int32_t> m_slot; // [nFF] neuron -> row on the device, or -1
    DeviceMatrix m_gate;              // hot rows, in m_hot order
    DeviceMatrix m_up;
    DeviceMatrix m_downT;
    DeviceBuffer m_hotIndex;          // [hotCount] I32 neuron ids (for kernels and diagnostics)

    // Per-token host state, allocated once.
    std::vector<std::int32_t> m_deviceSlots;
    std::vector<std::int32_t> m_hostNeurons;
    std::vector<float> m_deviceOut;   // [tokens][nEmbd]
    std::vector<std::uint8_t> m_deviceMask; // [tokens][hotCount] a prompt's hot neurons per token
    HybridFfnStats m_stats;
};

} // namespace hearth::device
