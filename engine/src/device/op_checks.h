// SPDX-License-Identifier: MIT
#pragma once

// Argument checks shared by the back ends: shapes, types and buffer sizes of each operation, so
// that a wrong call fails with a message on every device instead of reading out of bounds on one.

#include "device/device_ops.h"

#include <hearth/status.h>

#include <cstdint>

namespace hearth::device {

[[nodiscard]] Status checkMatrix(const DeviceMatrix* w, const char* what);
[[nodiscard]] Status checkOp(const MatmulOp& op);
[[nodiscard]] Status checkOp(const RowsDotOp& op);
[[nodiscard]] Status checkOp(const DownAccumulateOp& op);
[[nodiscard]] Status checkOp(const ActivateOp& op);
[[nodiscard]] Status checkOp(const PredictorOp& op);
[[nodiscard]] Status checkOp(const RmsNormOp& op);
[[nodiscard]] Status checkOp(const AttentionOp& op);
[[nodiscard]] Status checkOp(const AddOp& op);
[[nodiscard]] Status checkOp(const LayerNormOp& op);
[[nodiscard]] Status checkOp(const BiasAddOp& op);
[[nodiscard]] Status checkRange(const DeviceBuffer& buffer, std::uint64_t offset, std::uint64_t bytes, const void* host);

} // namespace hearth::device
