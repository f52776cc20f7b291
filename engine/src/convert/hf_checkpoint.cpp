// SPDX-License-Identifier: MIT
#include "convert/hf_checkpoint.h"

#include "convert/hf_config.h"
#include "convert/json_value.h"
#include "convert/torch_checkpoint.h"

#include <filesystem>
#include <set>

namespace hearth::convert {

namespace {

bool isFile(const std::filesystem::path& path)
{
    std::error_code ec;
    return std::filesystem::is_regular_file(path, ec);
}

// A shard must be a plain file name beside the index, never a path elsewhere on disk.
bool isPlainFileName(const std::string& name)
{
    return !name.empty() && name != "." && name != ".." && name.find_first_of("/\\:") == std::string::npos
        && name.find('\0') == std::string::npos;
}

// The shard file names listed by a pytorch_model.bin.index.json, in order of first mention.
Result<std::vector<std::string>> torchShards(const std::filesystem::path& indexPath)
{
    auto text = readTextFile(indexPath.string(), 100u << 20);
    if (!text) {
        return text.status();
    }
    auto json = parseJson(*text, 16);
    if (!json) {
        return Status(ErrorCode::InvalidFile, std::string("'") + indexPath.string() + "': " + json.message());
    }
    const JsonValue* weightMap = json->find("weight_map");
    if (weightMap == nullptr || !weightMap->isObject()) {
        return Status(ErrorCode::InvalidFile, std::string("'") + indexPath.string() + "': no \"weight_map\" object");
    }
    std::vector<std::string> shards;
    std::set<std::string> seen;
    for (const auto& [tensor, shard] : weightMap->members()) {
        if (!shard.isString() || !isPlainFileName(shard.toString())) {
            return Status(ErrorCode::InvalidFile, "'" + indexPath.string() + "': the shard of '" + tensor
                                                      + "' is not a file name beside the index");
        }
        if (seen.insert(shard.toString()).second) {
            shards.push_back(shard.toString());
        }
    }
    return shards;
}

} // namespace

Result<HfCheckpoint> HfCheckpoint::open(const std::string& folder)
{
    const std::filesystem::path dir(folder);
    HfCheckpoint checkpoint;
    if (isFile(dir / "model.safetensors.index.json") || isFile(dir / "model.safetensors")) {
        auto index = SafetensorsIndex::openFolder(folder);
        if (!index) {
            return index.status();
        }
        checkpoint.m_format = "safetensors";
        checkpoint.m_safetensors = std::make_shared<SafetensorsIndex>(std::move(*index));
        for (const std::string& name : checkpoint.m_safetensors->names()) {
            const SafetensorsTensor* t = checkpoint.m_safetensors->find(name);
            checkpoint.m_info.emplace(name, CheckpointTensorInfo{t->dtype, t->shape});
        }
        return checkpoint;
    }

    std::vector<std::string> shards;
    if (isFile(dir / "pytorch_model.bin.index.json")) {
        auto listed = torchShards(dir / "pytorch_model.bin.index.json");
        if (!listed) {
            return listed.status();
        }
        shards = std::move(*listed);
    } else if (isFile(dir / "pytorch_model.bin")) {
        shards.push_back("pytorch_model.bin");
    } else {
        return Status(ErrorCode::InvalidArgument, "'" + folder + "' holds no model weights (model.safetensors, "
                                                      "model.safetensors.index.json, pytorch_model.bin or "
                                                      "pytorch_model.bin.index.json)");
    }
    checkpoint.m_format = "pytorch";
    for (const std::string& shard : shards) {
        const std::filesystem::path path = dir / shard;
        if (!isFile(path)) {
            return Status(ErrorCode::InvalidFile, "the shard '" + path.string() + "' is missing");
        }
        auto tensors = readStateDict(path.string());
        if (!tensors) {
            return tensors.status();
        }
        for (auto& [name, tensor] : *tensors) {
            if (checkpoint.m_torch.count(name) != 0) {
                return Status(ErrorCode::InvalidFile, "tensor '" + name + "' appears in two shards");
            }
            checkpoint.m_info.emplace(name, CheckpointTensorInfo{tensor.dtype(), tensor.shape()});
            checkpoint.m_torch.emplace(name, std::move(tensor));
        }
    }
    return checkpoint;
}

std::vector<std::string> HfCheckpoint::names() const
{
    std::vector<std::string> out;
    out.reserve(m_info.size());
    for (const auto& entry : m_info) {
        out.push_back(entry.first);
    }
    return out;
}

const CheckpointTensorInfo* HfCheckpoint::find(std::string_view name) const
{
    const auto it = m_info.find(name);
    return it == m_info.end() ? nullptr : &it->second;
}

Result<std::vector<float>> HfCheckpoint::read(std::string_view name) const
{
    if (m_safetensors) {
        const SafetensorsTensor* t = m_safetensors->find(name);
        if (t == nullptr) {
            return Status(ErrorCode::InvalidArgument, "tensor '" + std::string(name) + "' is not in the checkpoint");
        }
        return t->toFloat();
    }
    const auto it = m_torch.find(name);
    if (it == m_torch.end()) {
        return Status(ErrorCode::InvalidArgument, "tensor '" + std::string(name) + "' is not in the checkpoint");
    }
    return it->second.toFloat();
}

} // namespace hearth::convert
