// SPDX-License-Identifier: MIT
#include "device/op_checks.h"

#include <cstdint>
#include <string>

namespace hearth::device {

namespace {

constexpr std::int64_t kMaxElements = std::int64_t(1) << 40;

Status tooSmall(const char* op, const char* what, std::uint64_t need, std::uint64_t have)
{
    return Status(ErrorCode::InvalidArgument, std::string(op) + ": buffer '" + what + "' holds " + std::to_string(have)
                                                  + " bytes, needs " + std::to_string(need));
}

Status need(const char* op, const char* what, const DeviceBuffer& b, std::int64_t elements, std::uint64_t elementBytes)
{
    if (b.empty())
        return Status(ErrorCode::InvalidArgument, std::string(op) + ": buffer '" + what + "' is missing");
    const std::uint64_t bytes = std::uint64_t(elements) * elementBytes;
    if (b.bytes < bytes)
        return tooSmall(op, what, bytes, b.bytes);
    return {};
}

bool countOk(std::int64_t n)
{
    return n >= 0 && n <= kMaxElements;
}

} // namespace

Status checkMatrix(const DeviceMatrix* w, const char* what)
{
    if (!w || w->data.empty())
        return Status(ErrorCode::InvalidArgument, std::string(what) + ": no weight matrix");
    if (!isDeviceType(w->type))
        return Status(ErrorCode::Unsupported,
                      std::string(what) + ": weight type " + std::string(dtypeName(w->type)) + " is not supported on the device");
    if (w->rows <= 0 || w->cols <= 0 || w->rows > kMaxElements || w->cols > kMaxElements)
        return Status(ErrorCode::InvalidArgument, std::string(what) + ": bad weight shape");
    if (w->cols % weightBlockElements(w->type) != 0)
        return Status(ErrorCode::InvalidArgument, std::string(what) + ": rows are not whole blocks of their type");
    const std::uint64_t bytes = std::uint64_t(rowBytes(w->type, w->cols)) * std::uint64_t(w->rows);
    if (w->data.bytes < bytes)
        return tooSmall(what, "weights", bytes, w->data.bytes);
    return {};
}

Status checkOp(const MatmulOp& op)
{
    HEARTH_TRY(checkMatrix(op.w, "matmul"));
    if (op.tokens <= 0 || op.tokens > kMaxElements)
        return Status(ErrorCode::InvalidArgument, "matmul: bad token count");
    const std::int64_t in = op.transposed ? op.w->rows : op.w->cols;
    const std::int64_t out = op.transposed ? op.w->cols : op.w->rows;
    HEARTH_TRY(need("matmul", "x", op.x, op.tokens * in, 4));
    return need("matmul", "y", op.y, op.tokens * out, 4);
}

Status checkOp(const RowsDotOp& op)
{
    HEARTH_TRY(checkMatrix(op.w, "rowsDot"));
    if (!countOk(op.count))
        return Status(ErrorCode::InvalidArgument, "rowsDot: bad count");
    if (op.count == 0)
        return {};
    HEARTH_TRY(need("rowsDot", "x", op.x, op.w->cols, 4));
    HEARTH_TRY(need("rowsDot", "index", op.index, op.count, 4));
    return need("rowsDot", "y", op.y, op.count, 4);
}

Status checkOp(const DownAccumulateOp& op)
{
    HEARTH_TRY(checkMatrix(op.w, "downAccumulate"));
    if (!countOk(op.count))
        return Status(ErrorCode::InvalidArgument, "downAccumulate: bad count");
    HEARTH_TRY(need("downAccumulate", "y", op.y, op.w->cols, 4));
    if (op.count == 0)
        return {};
    HEARTH_TRY(need("downAccumulate", "act", op.act, op.count, 4));
    return need("downAccumulate", "index", op.index, op.count, 4);
}

Status checkOp(const ActivateOp& op)
{
    if (int(op.kind) < 0 || int(op.kind) > int(kLastActivation))
        return Status(ErrorCode::InvalidArgument, "activate: unknown activation");
    if (!countOk(op.n))
        return Status(ErrorCode::InvalidArgument, "activate: bad count");
    if (op.n == 0)
        return {};
    HEARTH_TRY(need("activate", "gate", op.gate, op.n, 4));
    if (!op.mask.empty())
        HEARTH_TRY(need("activate", "mask", op.mask, op.n, 1));
    if (op.floorWidth != 0) {
        if (!isGated(op.kind) || op.kind == Activation::SwiGluOai || op.floorWidth < 0 || op.n % op.floorWidth != 0 || !op.mask.empty())
            return Status(ErrorCode::InvalidArgument, "activate: floors need a gated activation, whole rows and no mask");
        HEARTH_TRY(need("activate", "gate floor", op.gateFloor, op.floorWidth, 4));
        HEARTH_TRY(need("activate", "activation floor", op.activationFloor, op.floorWidth, 4));
        HEARTH_TRY(need("activate", "floor scale", op.floorScale, op.n / op.floorWidth, 4));
    }
    if (!isGated(op.kind))
        return {}; // up is not read
    return need("activate", "up", op.up, op.n, 4);
}

Status checkOp(const PredictorOp& op)
{
    HEARTH_TRY(checkMatrix(op.fc1, "predictor fc1"));
    HEARTH_TRY(checkMatrix(op.fc2, "predictor fc2"));
    if (op.fc2->cols != op.fc1->rows)
        return Status(ErrorCode::InvalidArgument, "predictor: fc2's input width differs from fc1's output width");
    HEARTH_TRY(need("predictor", "x", op.x, op.fc1->cols, 4));
    HEARTH_TRY(need("predictor", "hidden", op.hidden, op.fc1->rows, 4));
    HEARTH_TRY(need("predictor", "logits", op.logits, op.fc2->rows, 4));
    HEARTH_TRY(need("predictor", "active", op.active, op.fc2->rows, 4));
    if (!op.bias.empty())
        HEARTH_TRY(need("predictor", "bias", op.bias, op.fc2->rows, 4));
    return need("predictor", "activeCount", op.activeCount, 1, 4);
}

Status checkOp(const RmsNormOp& op)
{
    if (op.n <= 0 || op.tokens <= 0 || op.n > kMaxElements || op.tokens > kMaxElements)
        return Status(ErrorCode::InvalidArgument, "rmsNorm: bad shape");
    HEARTH_TRY(need("rmsNorm", "x", op.x, op.n * op.tokens, 4));
    HEARTH_TRY(need("rmsNorm", "weight", op.weight, op.n, 4));
    return need("rmsNorm", "out", op.out, op.n * op.tokens, 4);
}

Status checkOp(const AttentionOp& op)
{
    if (op.nHead <= 0 || op.nHeadKv <= 0 || op.headDim <= 0 || op.nHead % op.nHeadKv != 0)
        return Status(ErrorCode::InvalidArgument, "attention: bad head counts");
    if (op.nRot < 0 || op.nRot > op.headDim || op.nRot % 2 != 0)
        return Status(ErrorCode::InvalidArgument, "attention: bad rotary width");
    if (op.rope != RopeStyle::Normal && op.rope != RopeStyle::Neox && op.rope != RopeStyle::None)
        return Status(ErrorCode::InvalidArgument, "attention: unknown rotary style");
    // Past the cache's rows only with a window the rows hold.
    if (op.capacity <= 0 || op.pos < 0 || (op.pos >= op.capacity && (op.window <= 0 || op.window > op.capacity)))
        return Status(ErrorCode::InvalidArgument, "attention: position outside the cache");
    if (op.window < 0 || !(op.scale >= 0.0f) || !(op.softCap >= 0.0f) || !(op.attnFactor > 0.0f))
        return Status(ErrorCode::InvalidArgument, "attention: bad window, scale or soft-cap");
    const std::int64_t qDim = std::int64_t(op.nHead) * op.headDim;
    const std::int64_t kvDim = std::int64_t(op.nHeadKv) * op.headDim;
    HEARTH_TRY(need("attention", "q", op.q, qDim, 4));
    HEARTH_TRY(need("attention", "k", op.k, kvDim, 4));
    HEARTH_TRY(need("attention", "v", op.v, kvDim, 4));
    const int cacheElement = op.halfCache ? 2 : 4;
    HEARTH_TRY(need("attention", "kCache", op.kCache, kvDim * op.capacity, cacheElement));
    HEARTH_TRY(need("attention", "vCache", op.vCache, kvDim * op.capacity, cacheElement));
    HEARTH_TRY(need("attention", "scores", op.scores, std::int64_t(op.nHead) * op.capacity, 4));
    if (!op.sinks.empty())
        HEARTH_TRY(need("attention", "sinks", op.sinks, op.nHead, 4));
    return need("attention", "out", op.out, qDim, 4);
}

Status checkOp(const AddOp& op)
{
    if (!countOk(op.n))
        return Status(ErrorCode::InvalidArgument, "add: bad count");
    if (op.n == 0)
        return {};
    HEARTH_TRY(need("add", "y", op.y, op.n, 4));
    return need("add", "x", op.x, op.n, 4);
}

Status checkOp(const LayerNormOp& op)
{
    if (op.n <= 0 || op.tokens <= 0 || op.n > kMaxElements || op.tokens > kMaxElements)
        return Status(ErrorCode::InvalidArgument, "layerNorm: bad shape");
    HEARTH_TRY(need("layerNorm", "x", op.x, op.n * op.tokens, 4));
    HEARTH_TRY(need("layerNorm", "weight", op.weight, op.n, 4));
    if (!op.bias.empty()) // optional
        HEARTH_TRY(need("layerNorm", "bias", op.bias, op.n, 4));
    return need("layerNorm", "out", op.out, op.n * op.tokens, 4);
}

Status checkOp(const BiasAddOp& op)
{
    if (!countOk(op.n) || op.tokens < 0 || op.tokens > kMaxElements || (op.n > 0 && op.tokens > kMaxElements / op.n))
        return Status(ErrorCode::InvalidArgument, "biasAdd: bad shape");
    if (op.n == 0 || op.tokens == 0)
        return {};
    HEARTH_TRY(need("biasAdd", "y", op.y, op.n * op.tokens, 4));
    return need("biasAdd", "bias", op.bias, op.n, 4);
}

Status checkRange(const DeviceBuffer& buffer, std::uint64_t offset, std::uint64_t bytes, const void* host)
{
    if (buffer.empty())
        return Status(ErrorCode::InvalidArgument, "copy: empty device buffer");
    if (bytes > 0 && !host)
        return Status(ErrorCode::InvalidArgument, "copy: no host memory");
    if (offset > buffer.bytes || bytes > buffer.bytes - offset)
        return Status(ErrorCode::InvalidArgument, "copy: " + std::to_string(bytes) + " bytes at offset "
                                                      + std::to_string(offset) + " overrun a buffer of "
                                                      + std::to_string(buffer.bytes));
    return {};
}

} // namespace hearth::device
