// SPDX-License-Identifier: MIT
#pragma once

// What a session puts on a device, as the placement planner counts it. The VRAM panel
// (PlacementModel) and the sessions (HybridDecode, DenseOffloadSession) both plan with these, so
// the plan a user sees before loading is the placement the session then makes:
//  * the device keeps its KV cache in F16, or in F32 when the session asks for F32
//    (deviceHalfCache(); DeviceAttentionLayer), whatever the file assumes;
//  * the output matrix stays on the CPU;
//  * a sparse session keeps the norms on the CPU too, but the attention's own norm goes to the
//    device with the attention (a LayerNorm's weight and bias: two allocations);
//  * a dense session offloads whole layers, norms included (DenseOffload);
//  * a mixture's session places attention as a sparse one does, then experts (ExpertOffloadSession).
// The host keeps every layer's keys and values in the session's cache type (F16 for a Q8_0 the
// heads do not suit), or in the device's once any layer runs on a device, whose rows it mirrors.
// The fixed costs follow the device: the CUDA back end sets aside the planner's reserve and
// workspace, the emulated device (host memory) nothing.

#include "device/device.h"
#include "sparse/activation_stats.h"
#include "sparse/model_shape.h"
#include "sparse/placement_planner.h"

#include <hearth/session.h>
#include <hearth/status.h>

#include <cstdint>
#include <string>

namespace hearth::gguf {
class GgufFile;
}

namespace hearth {

// @p shape (the file's or a description's, its architecture naming the family) as a @p sparse or
// dense session places it, its device KV caches in F16 with @p halfCache.
[[nodiscard]] sparse::ModelShape sessionShape(sparse::ModelShape shape, bool sparse, bool halfCache);

// The file's shape, its windows from its hyper-parameters, before sessionShape().
[[nodiscard]] Result<sparse::ModelShape> fileShape(const gguf::GgufFile& file);

// The statistics file beside the model when it loads and matches @p shape, else none (@p note
// says why one there was ignored). A magnitude-sparse file is placed by neuron only with these.
[[nodiscard]] sparse::ActivationStats measuredStats(const sparse::ModelShape& shape, const std::string& modelPath,
                                                    std::string& note);

// The statistics a sparse session plans with: the file beside the model when it has one that
// loads (@p note says when one was ignored), otherwise a power law of @p assumedSparsity over the
// neuron ids (each layer's neurons are then placed in file order).
[[nodiscard]] Result<sparse::ActivationStats> sessionStats(const sparse::ModelShape& shape, const std::string& modelPath,
                                                           double assumedSparsity, std::string& note);

// The expert statistics a mixture's session plans with: hearth-profile's file beside the model
// when it loads and matches (@p note says what happened otherwise), else none (every expert
// equally used).
[[nodiscard]] sparse::ActivationStats sessionExpertStats(const sparse::ModelShape& shape, const std::string& modelPath,
                                                         std::string& note);

// Synthetic statistics for @p shape: per neuron, a power law over its id with mean
// 1 - @p sparsity, as measured ReLU activations look (a hot core and a long, rarely firing tail).
[[nodiscard]] Result<sparse::ActivationStats> assumedStats(const sparse::ModelShape& shape, double sparsity);

// The host KV cache of a session of @p shape (the file's) at @p contextLength tokens with batches
// of @p batchSize, storing @p type, or the device's type when @p deviceInUse: what
// Session::kvCacheBytesAt says.
[[nodiscard]] std::uint64_t hostKvCacheBytes(const sparse::ModelShape& shape, KvCacheType type, bool deviceInUse,
                                             int contextLength, int batchSize);

// Planner parameters for a session of @p contextLength tokens and batches of @p batchSize on a
// device with @p budgetBytes: the emulated device's fixed costs when @p emulated.
[[nodiscard]] sparse::PlannerParams sessionPlannerParams(std::uint64_t budgetBytes, int contextLength, int batchSize,
                                                         bool emulated);
// The same for the device a session opened: its budget, back end and allocation granularity.
[[nodiscard]] sparse::PlannerParams sessionPlannerParams(const device::DeviceInfo& device, int contextLength,
                                                         int batchSize);

} // namespace hearth
