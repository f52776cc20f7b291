// SPDX-License-Identifier: MIT
#include "sparse/gpu_index.h"

#include "gguf/gguf_file.h"
#include "gguf/gguf_writer.h"

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <span>
#include <system_error>

namespace hearth::sparse {

namespace {

constexpr std::string_view kArchitecture = "generic.gpu_index";
constexpr std::string_view kBlockCountKey = "generic.gpu_index.block_count";
constexpr std::string_view kCapacityKey = "split.vram_capacity";
constexpr std::int64_t kMaxLayers = 4096;

std::string layerTensor(std::size_t layer, const char* what)
{
    return "blk." + std::to_string(layer) + "." + what;
}

std::string hearthKey(const char* name)
{
    return std::string("hearth.gpu_index.") + name;
}

// Unsigned 64-bit metadata as written (uint64), or any non-negative integer type.
std::optional<std::uint64_t> getUInt64(const gguf::GgufFile& file, std::string_view key)
{
    const gguf::Value* v = file.find(key);
    if (!v) {
        return std::nullopt;
    }
    if (const auto* u = std::get_if<std::uint64_t>(&v->data)) {
        return *u;
    }
    if (const auto* i = std::get_if<std::int64_t>(&v->data); i && *i >= 0) {
        return static_cast<std::uint64_t>(*i);
    }
    return std::nullopt;
}

Result<std::vector<std::int32_t>> readI32Tensor(const gguf::GgufFile& file, const std::string& name)
{
    const gguf::TensorInfo* t = file.findTensor(name);
    if (!t) {
        return Status(ErrorCode::InvalidFile, "the GPU index has no tensor '" + name + "'");
    }
    if (t->type != DType::I32 || t->shape.size() != 1) {
        return Status(ErrorCode::InvalidFile, "tensor '" + name + "' of the GPU index is not a 1-D I32 tensor");
    }
    std::vector<std::int32_t> values(static_cast<std::size_t>(t->shape[0]));
    if (!values.empty()) {
        // Tensor data is only as aligned as the file says; copy rather than cast.
        std::memcpy(values.data(), t->data, values.size() * sizeof(std::int32_t));
    }
    return values;
}

std::optional<GpuIndexKey> readKey(const gguf::GgufFile& file)
{
    const auto version = getUInt64(file, hearthKey("version"));
    if (!version) {
        return std::nullopt;
    }
    GpuIndexKey key;
    key.version = static_cast<std::uint32_t>(*version);
    std::uint64_t* fields[] = {&key.modelSize, &key.modelMtime, &key.budgetBytes, &key.contextLength,
                               &key.batchSize, &key.groupSize, &key.statsFingerprint};
    const char* names[] = {"model_size", "model_mtime", "budget", "context", "batch", "group_size", "stats"};
    for (std::size_t i = 0; i < std::size(fields); ++i) {
        const auto v = getUInt64(file, hearthKey(names[i]));
        if (!v) {
            return std::nullopt; // an incomplete key never matches
        }
        *fields[i] = *v;
    }
    return key;
}

} // namespace

std::string gpuIndexPath(const std::string& modelPath)
{
    return modelPath + ".generated.gpuidx";
}

Result<GpuIndexKey> gpuIndexKey(const std::string& modelPath, const PlannerParams& params, std::uint64_t statsFingerprint)
{
    std::error_code ec;
    const auto size = std::filesystem::file_size(modelPath, ec);
    if (ec) {
        return Status(ErrorCode::IoError, "cannot read the size of '" + modelPath + "': " + ec.message());
    }
    const auto mtime = std::filesystem::last_write_time(modelPath, ec);
    if (ec) {
        return Status(ErrorCode::IoError, "cannot read the modification time of '" + modelPath + "': " + ec.message());
    }
    GpuIndexKey key;
    key.modelSize = size;
    key.modelMtime = static_cast<std::uint64_t>(mtime.time_since_epoch().count());
    key.budgetBytes = params.budgetBytes;
    key.contextLength = static_cast<std::uint64_t>(params.contextLength);
    key.batchSize = static_cast<std::uint64_t>(params.batchSize);
    key.groupSize = static_cast<std::uint64_t>(params.groupSize);
    key.statsFingerprint = statsFingerprint;
    return key;
}

GpuIndex gpuIndexFromPlan(const PlacementPlan& plan, std::optional<GpuIndexKey> key)
{
    GpuIndex index;
    index.vramCapacity = plan.ffnCapacityBytes();
    index.key = key;
    index.nFF.reserve(plan.layers.size());
    index.hotNeurons.reserve(plan.layers.size());
    for (const LayerPlacement& layer : plan.layers) {
        index.nFF.push_back(layer.nFF);
        index.hotNeurons.push_back(layer.hotNeurons());
    }
    return index;
}

Status writeGpuIndex(const std::string& path, const GpuIndex& index)
{
    if (index.nFF.size() != index.hotNeurons.size() || index.nFF.empty()
        || static_cast<std::int64_t>(index.nFF.size()) > kMaxLayers) {
        return Status(ErrorCode::InvalidArgument, "a GPU index needs 1 to 4096 layers, each with its FFN width");
    }
    // Flags first: they also validate the buckets.
    std::vector<std::vector<std::int32_t>> flags(index.nFF.size());
    for (std::size_t l = 0; l < index.nFF.size(); ++l) {
        if (index.nFF[l] < 0 || index.nFF[l] > std::numeric_limits<std::int32_t>::max()) {
            return Status(ErrorCode::InvalidArgument, "layer " + std::to_string(l) + " has an invalid FFN width");
        }
        flags[l].assign(static_cast<std::size_t>(index.nFF[l]), 0);
        const auto& bucket = index.hotNeurons[l];
        for (std::size_t i = 0; i < bucket.size(); ++i) {
            if (bucket[i] < 0 || bucket[i] >= index.nFF[l] || (i > 0 && bucket[i] <= bucket[i - 1])) {
                return Status(ErrorCode::InvalidArgument,
                              "the GPU neurons of layer " + std::to_string(l) + " are not ascending ids below n_ff");
            }
            flags[l][static_cast<std::size_t>(bucket[i])] = 1;
        }
    }

    // Plain GGUF magic: PowerInfer's own writer uses the stock GGUF writer for this file, and
    // every GGUF reader accepts it.
    gguf::GgufWriter writer(gguf::Magic::Gguf);
    writer.setString("general.architecture", std::string(kArchitecture));
    writer.setUInt32(std::string(kBlockCountKey), static_cast<std::uint32_t>(index.nFF.size()));
    writer.setUInt64(std::string(kCapacityKey), index.vramCapacity);
    if (index.key) {
        const GpuIndexKey& k = *index.key;
        writer.setUInt32(hearthKey("version"), k.version);
        writer.setUInt64(hearthKey("model_size"), k.modelSize);
        writer.setUInt64(hearthKey("model_mtime"), k.modelMtime);
        writer.setUInt64(hearthKey("budget"), k.budgetBytes);
        writer.setUInt64(hearthKey("context"), k.contextLength);
        writer.setUInt64(hearthKey("batch"), k.batchSize);
        writer.setUInt64(hearthKey("group_size"), k.groupSize);
        writer.setUInt64(hearthKey("stats"), k.statsFingerprint);
    }
    for (std::size_t l = 0; l < index.nFF.size(); ++l) {
        writer.addTensor(layerTensor(l, "gpu_idx"), DType::I32, {index.nFF[l]});
        writer.addTensor(layerTensor(l, "gpu_bucket"), DType::I32, {static_cast<std::int64_t>(index.hotNeurons[l].size())});
    }

    const std::string temporary = path + ".tmp";
    HEARTH_TRY(writer.begin(temporary));
    auto asBytes = [](const std::vector<std::int32_t>& v) { return std::as_bytes(std::span(v)); };
    for (std::size_t l = 0; l < index.nFF.size(); ++l) {
        HEARTH_TRY(writer.writeTensorData(asBytes(flags[l])));
        HEARTH_TRY(writer.writeTensorData(asBytes(index.hotNeurons[l])));
    }
    HEARTH_TRY(writer.finish());
    std::error_code ec;
    std::filesystem::rename(temporary, path, ec);
    if (ec) {
        std::filesystem::remove(temporary, ec);
        return Status(ErrorCode::IoError, "cannot replace '" + path + "': " + ec.message());
    }
    return {};
}

Result<GpuIndex> readGpuIndex(const std::string& path)
{
    auto opened = gguf::GgufFile::open(path);
    if (!opened) {
        return opened.status();
    }
    const gguf::GgufFile& file = **opened;
    if (file.getString("general.architecture") != std::string(kArchitecture)) {
        return Status(ErrorCode::InvalidFile, "'" + path + "' is not a GPU index (architecture is not generic.gpu_index)");
    }
    const auto blocks = file.getInt(kBlockCountKey);
    if (!blocks || *blocks < 1 || *blocks > kMaxLayers) {
        return Status(ErrorCode::InvalidFile, "'" + path + "' has no valid generic.gpu_index.block_count");
    }
    GpuIndex index;
    index.vramCapacity = getUInt64(file, kCapacityKey).value_or(0);
    index.key = readKey(file);
    for (std::size_t l = 0; l < static_cast<std::size_t>(*blocks); ++l) {
        auto flags = readI32Tensor(file, layerTensor(l, "gpu_idx"));
        if (!flags) {
            return flags.status();
        }
        auto bucket = readI32Tensor(file, layerTensor(l, "gpu_bucket"));
        if (!bucket) {
            return bucket.status();
        }
        const auto nFF = static_cast<std::int64_t>(flags->size());
        std::size_t flagged = 0;
        for (std::int32_t f : *flags) {
            if (f != 0 && f != 1) {
                return Status(ErrorCode::InvalidFile, "blk." + std::to_string(l) + ".gpu_idx holds a value other than 0 or 1");
            }
            flagged += static_cast<std::size_t>(f);
        }
        const auto& ids = *bucket;
        bool consistent = flagged == ids.size();
        for (std::size_t i = 0; consistent && i < ids.size(); ++i) {
            consistent = ids[i] >= 0 && ids[i] < nFF && (i == 0 || ids[i] > ids[i - 1]) && (*flags)[static_cast<std::size_t>(ids[i])] == 1;
        }
        if (!consistent) {
            return Status(ErrorCode::InvalidFile,
                          "blk." + std::to_string(l) + ".gpu_bucket does not list the neurons gpu_idx flags, in ascending order");
        }
        index.nFF.push_back(nFF);
        index.hotNeurons.push_back(std::move(bucket).value());
    }
    return index;
}

Result<CachedPlacement> planWithGpuIndex(PlacementPlanner& planner, PlannerParams params, const std::string& modelPath,
                                         GpuIndexMode mode)
{
    CachedPlacement out;
    if (mode == GpuIndexMode::Disable) {
        params.ffnOnGpu = false;
    }
    if (mode == GpuIndexMode::Disable || !planner.sparseCapable() || params.dense) {
        auto plan = planner.plan(params);
        if (!plan) {
            return plan.status();
        }
        out.plan = std::move(plan).value();
        return out;
    }

    const std::string path = gpuIndexPath(modelPath);
    auto key = gpuIndexKey(modelPath, params, planner.statsFingerprint());
    if (mode == GpuIndexMode::Use && key) {
        std::error_code ec;
        if (std::filesystem::exists(path, ec)) {
            auto cached = readGpuIndex(path);
            if (!cached) {
                out.note = "the cached GPU index is unreadable (" + cached.message() + "); recomputed";
            } else if (!cached->key) {
                out.note = "the cached GPU index was not written by Hearth (its budget ignores scratch buffers); recomputed";
            } else if (!(*cached->key == *key)) {
                out.note = "the cached GPU index is stale (model, budget, context, batch or statistics changed); recomputed";
            } else {
                auto plan = planner.planWithHotSets(params, cached->hotNeurons);
                if (plan && plan->fits) {
                    out.plan = std::move(plan).value();
                    out.fromCache = true;
                    return out;
                }
                out.note = "the cached GPU index does not fit this model or budget; recomputed";
            }
        }
    }

    auto plan = planner.plan(params);
    if (!plan) {
        return plan.status();
    }
    out.plan = std::move(plan).value();
    if (!key) {
        out.note = key.message() + "; the GPU index is not cached";
        return out;
    }
    const Status written = writeGpuIndex(path, gpuIndexFromPlan(out.plan, *key));
    if (!written.ok()) {
        out.note += (out.note.empty() ? "" : "; ") + ("the GPU index could not be cached: " + written.message());
    } else {
        out.cacheWritten = true;
    }
    return out;
}

} // namespace hearth::sparse
