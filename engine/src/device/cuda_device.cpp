// SPDX-License-Identifier: MIT
#include "device/cuda_device.h"

#include "device/byte_format.h"
#include "device/op_checks.h"
#include "device/shared_library.h"

#include <cstdint>
#include <new>

namespace hearth::device {

namespace {

constexpr std::uint64_t kAutoMargin = std::uint64_t(256) << 20;
// cudaMalloc returns 256-byte aligned blocks; the planner assumes the same padding.
constexpr std::uint64_t kGranularity = 256;

HearthCudaMatrix cudaMatrix(const DeviceMatrix& w)
{
    return HearthCudaMatrix{static_cast<std::uint32_t>(w.type), w.data.ptr, w.rows, w.cols,
                            static_cast<std::uint64_t>(rowBytes(w.type, w.cols))};
}

ErrorCode errorCodeFor(int code)
{
    switch (code) {
    case HEARTH_CUDA_OUT_OF_MEMORY:
        return ErrorCode::OutOfMemory;
    case HEARTH_CUDA_INVALID_ARGUMENT:
        return ErrorCode::InvalidArgument;
    case HEARTH_CUDA_UNSUPPORTED:
    case HEARTH_CUDA_NO_DRIVER:
    case HEARTH_CUDA_NO_DEVICE:
        return ErrorCode::Unsupported;
    default:
        return ErrorCode::Internal;
    }
}

} // namespace

Result<std::unique_ptr<CudaDevice>> CudaDevice::open(std::shared_ptr<SharedLibrary> library,
                                                     const HearthCudaBackendV1* api, int deviceIndex,
                                                     std::uint64_t budgetBytes)
{
    if (!api)
        return Status(ErrorCode::InvalidArgument, "no CUDA back-end table");
    std::unique_ptr<CudaDevice> d(new CudaDevice());
    d->m_library = std::move(library);
    d->m_api = api;
    char message[512] = {};
    const int rc = api->create(deviceIndex, &d->m_ctx, message, sizeof(message));
    if (rc != HEARTH_CUDA_OK || !d->m_ctx) {
        d->m_ctx = nullptr;
        return Status(ErrorCode::Unsupported, message[0] ? std::string(message) : std::string("no CUDA device"));
    }
    char name[256] = {};
    std::uint64_t total = 0;
    std::uint64_t freeBytes = 0;
    HEARTH_TRY(d->check(api->device_info(d->m_ctx, name, sizeof(name), &total, &freeBytes), "reading device info"));
    d->m_info.backend = "cuda";
    d->m_info.name = name;
    d->m_info.totalBytes = total;
    d->m_info.freeBytes = freeBytes;
    const std::uint64_t internal = api->internal_bytes(d->m_ctx);
    // The module's own buffers were allocated before the free figure was read, so "auto" is
    // what is left after them, plus them (they count against the same budget).
    d->m_info.budgetBytes = budgetBytes ? budgetBytes : (freeBytes > kAutoMargin ? freeBytes - kAutoMargin : 0) + internal;
    d->m_info.granularity = kGranularity;
    d->m_budget = std::make_unique<MemoryBudget>(d->m_info.budgetBytes, kGranularity);
    auto charged = d->m_budget->reserve(internal, "the CUDA back end's workspace");
    if (!charged)
        return charged.status();
    d->m_internalCharged = *charged;
    return d;
}

CudaDevice::~CudaDevice()
{
    if (m_ctx) {
        (void)m_api->synchronize(m_ctx);
        for (const auto& [id, ptr] : m_live)
            m_api->free(m_ctx, ptr);
        m_api->destroy(m_ctx);
    }
}

Status CudaDevice::check(int code, const char* what) const
{
    if (code == HEARTH_CUDA_OK)
        return {};
    const char* detail = m_ctx ? m_api->last_error(m_ctx) : nullptr;
    return Status(errorCodeFor(code), std::string("CUDA ") + what + ": " + (detail && *detail ? detail : "failed"));
}

Result<DeviceBuffer> CudaDevice::allocate(std::uint64_t bytes, const char* label)
{
    auto charged = m_budget->reserve(bytes, label);
    if (!charged)
        return charged.status();
    void* ptr = nullptr;
    const int rc = m_api->alloc(m_ctx, *charged, &ptr);
    if (rc != HEARTH_CUDA_OK || !ptr) {
        m_budget->release(*charged);
        return Status(rc == HEARTH_CUDA_OUT_OF_MEMORY ? ErrorCode::OutOfMemory : errorCodeFor(rc),
                      std::string("device allocation failed for ") + (label ? label : "a buffer") + " ("
                          + formatBytes(bytes) + "): " + m_api->last_error(m_ctx));
    }
    std::lock_guard lock(m_idMutex);
    const std::uint64_t id = m_nextId++;
    try {
        m_live.emplace(id, ptr);
    } catch (const std::bad_alloc&) {
        m_api->free(m_ctx, ptr);
        m_budget->release(*charged);
        return Status(ErrorCode::OutOfMemory, "host memory exhausted tracking a device buffer");
    }
    return DeviceBuffer{ptr, bytes, *charged, id};
}

void CudaDevice::free(DeviceBuffer& buffer)
{
    if (buffer.empty())
        return;
    {
        std::lock_guard lock(m_idMutex);
        const auto it = m_live.find(buffer.id);
        if (it == m_live.end() || it->second != buffer.ptr)
            return; // not this device's buffer, or freed before through a copy of the handle
        m_live.erase(it);
    }
    m_api->free(m_ctx, buffer.ptr); // cudaFree waits for the work that may still use it
    m_budget->release(buffer.charged);
    buffer = DeviceBuffer{};
}

Status CudaDevice::upload(const DeviceBuffer& buffer, std::uint64_t offset, const void* host, std::uint64_t bytes)
{
    HEARTH_TRY(checkRange(buffer, offset, bytes, host));
    if (bytes == 0)
        return {};
    return check(m_api->upload(m_ctx, static_cast<std::uint8_t*>(buffer.ptr) + offset, host, bytes), "upload");
}

Status CudaDevice::download(const DeviceBuffer& buffer, std::uint64_t offset, void* host, std::uint64_t bytes)
{
    HEARTH_TRY(checkRange(buffer, offset, bytes, host));
    if (bytes == 0)
        return {};
    return check(m_api->download(m_ctx, host, static_cast<const std::uint8_t*>(buffer.ptr) + offset, bytes),
                 "download");
}

Status CudaDevice::synchronize()
{
    return check(m_api->synchronize(m_ctx), "synchronize");
}

Status CudaDevice::matmul(const MatmulOp& op)
{
    HEARTH_TRY(checkOp(op));
    const HearthCudaMatrix w = cudaMatrix(*op.w);
    if (op.transposed) {
        const auto fn =
            optional(&HearthCudaBackendV1::matmul_transposed, offsetof(HearthCudaBackendV1, matmul_transposed));
        if (!fn)
            return Status(ErrorCode::Unsupported, "the CUDA module predates batched down projections; update it");
        return check(fn(m_ctx, &w, op.x.as<const float>(), op.tokens, op.y.as<float>()), "matmul (transposed)");
    }
    return check(m_api->matmul(m_ctx, &w, op.x.as<const float>(), op.tokens, op.y.as<float>()), "matmul");
}

Status CudaDevice::rowsDot(const RowsDotOp& op)
{
    HEARTH_TRY(checkOp(op));
    if (op.count == 0)
        return {};
    const HearthCudaMatrix w = cudaMatrix(*op.w);
    return check(m_api->rows_dot(m_ctx, &w, op.x.as<const float>(), op.index.as<const std::int32_t>(), op.count,
                                 op.y.as<float>()),
                 "rowsDot");
}

Status CudaDevice::downAccumulate(const DownAccumulateOp& op)
{
    HEARTH_TRY(checkOp(op));
    const HearthCudaMatrix w = cudaMatrix(*op.w);
    return check(m_api->down_accumulate(m_ctx, &w, op.act.as<const float>(), op.index.as<const std::int32_t>(),
                                        op.count, op.y.as<float>(), op.accumulate ? 1 : 0),
                 "downAccumulate");
}

Status CudaDevice::activate(const ActivateOp& op)
{
    HEARTH_TRY(checkOp(op));
    if (op.n == 0)
        return {};
    if (op.floorWidth > 0) {
        auto floored = optional(&HearthCudaBackendV1::activate_floored, offsetof(HearthCudaBackendV1, activate_floored));
        if (!floored)
            return Status(ErrorCode::Unsupported, "the CUDA module predates activation floors; update it");
        return check(floored(m_ctx, int(op.kind), op.gate.as<float>(), op.up.as<const float>(),
                             op.gateFloor.as<const float>(), op.activationFloor.as<const float>(),
                             op.floorScale.as<const float>(), op.floorWidth, op.n),
                     "activate");
    }
    return check(m_api->activate(m_ctx, int(op.kind), op.gate.as<float>(),
                                 isGated(op.kind) ? op.up.as<const float>() : nullptr,
                                 op.mask.as<const std::uint8_t>(), op.n),
                 "activate");
}

Status CudaDevice::predictor(const PredictorOp& op)
{
    HEARTH_TRY(checkOp(op));
    const HearthCudaMatrix fc1 = cudaMatrix(*op.fc1);
    const HearthCudaMatrix fc2 = cudaMatrix(*op.fc2);
    if (!op.bias.empty()) {
        auto biased = optional(&HearthCudaBackendV1::predictor_biased, offsetof(HearthCudaBackendV1, predictor_biased));
        if (!biased)
            return Status(ErrorCode::Unsupported, "the CUDA module predates predictors with a bias; update it");
        return check(biased(m_ctx, &fc1, &fc2, op.x.as<const float>(), op.relu ? 1 : 0, op.bias.as<const float>(),
                            op.threshold, op.hidden.as<float>(), op.logits.as<float>(), op.active.as<std::int32_t>(),
                            op.activeCount.as<std::int32_t>()),
                     "predictor");
    }
    auto fn = m_api->predictor;
    if (!op.relu) {
        fn = optional(&HearthCudaBackendV1::predictor_linear, offsetof(HearthCudaBackendV1, predictor_linear));
        if (!fn)
            return Status(ErrorCode::Unsupported, "the CUDA module predates linear predictors; update it");
    }
    return check(fn(m_ctx, &fc1, &fc2, op.x.as<const float>(), op.threshold, op.hidden.as<float>(),
                    op.logits.as<float>(), op.active.as<std::int32_t>(), op.activeCount.as<std::int32_t>()),
                 "predictor");
}

Status CudaDevice::rmsNorm(const RmsNormOp& op)
{
    HEARTH_TRY(checkOp(op));
    return check(m_api->rms_norm(m_ctx, op.x.as<const float>(), op.weight.as<const float>(), op.eps, op.n, op.tokens,
                                 op.out.as<float>()),
                 "rmsNorm");
}

Status CudaDevice::attention(const AttentionOp& op)
{
    HEARTH_TRY(checkOp(op));
    const HearthCudaAttention a{op.q.as<float>(),      op.k.as<const float>(), op.v.as<const float>(),
                                op.kCache.ptr,         op.vCache.ptr,          op.scores.as<float>(),
                                op.out.as<float>(),    op.pos,                 op.capacity,
                                op.nHead,              op.nHeadKv,             op.headDim,
                                op.nRot,               op.freqBase,            op.freqScale,
                                op.freqFactors.empty() ? nullptr : op.freqFactors.as<const float>(),
                                op.attnFactor,         op.window,
                                op.scale,              op.softCap,
                                op.halfCache ? 1 : 0};
    if (!op.sinks.empty()) {
        const auto fn = optional(&HearthCudaBackendV1::attention_sinks, offsetof(HearthCudaBackendV1, attention_sinks));
        if (!fn)
            return Status(ErrorCode::Unsupported, "the CUDA module predates attention sinks; update it");
        return check(fn(m_ctx, &a, int(op.rope), op.sinks.as<const float>()), "attention");
    }
    if (op.rope == RopeStyle::Normal)
        return check(m_api->attention(m_ctx, &a), "attention");
    const auto fn = optional(&HearthCudaBackendV1::attention_rope, offsetof(HearthCudaBackendV1, attention_rope));
    if (!fn)
        return Status(ErrorCode::Unsupported, "the CUDA module predates attention without llama RoPE; update it");
    return check(fn(m_ctx, &a, int(op.rope)), "attention");
}

Status CudaDevice::add(const AddOp& op)
{
    HEARTH_TRY(checkOp(op));
    if (op.n == 0)
        return {};
    return check(m_api->add(m_ctx, op.y.as<float>(), op.x.as<const float>(), op.n), "add");
}

Status CudaDevice::layerNorm(const LayerNormOp& op)
{
    HEARTH_TRY(checkOp(op));
    const auto fn = optional(&HearthCudaBackendV1::layer_norm, offsetof(HearthCudaBackendV1, layer_norm));
    if (!fn)
        return Status(ErrorCode::Unsupported, "the CUDA module predates LayerNorm; update it");
    return check(fn(m_ctx, op.x.as<const float>(), op.weight.as<const float>(), op.bias.as<const float>(), op.eps, op.n,
                    op.tokens, op.out.as<float>()),
                 "layerNorm");
}

Status CudaDevice::biasAdd(const BiasAddOp& op)
{
    HEARTH_TRY(checkOp(op));
    if (op.n == 0 || op.tokens == 0)
        return {};
    const auto fn = optional(&HearthCudaBackendV1::bias_add, offsetof(HearthCudaBackendV1, bias_add));
    if (!fn)
        return Status(ErrorCode::Unsupported, "the CUDA module predates bias adds; update it");
    return check(fn(m_ctx, op.y.as<float>(), op.bias.as<const float>(), op.n, op.tokens), "biasAdd");
}

} // namespace hearth::device
