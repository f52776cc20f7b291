// SPDX-License-Identifier: MIT
#include "convert/safetensors_index.h"

#include "convert/json_value.h"
#include "core/mapped_file.h"

#include <filesystem>
#include <map>

namespace hearth::convert {

namespace {

Status invalidIndex(const std::string& path, const std::string& what)
{
    return Status(ErrorCode::InvalidFile, "'" + path + "': " + what);
}

// A shard must be a plain file name beside the index: an index must not reach elsewhere on disk.
bool isPlainFileName(const std::string& name)
{
    return !name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos
        && name.find('\\') == std::string::npos && name.find(':') == std::string::npos
        && name.find('\0') == std::string::npos;
}

} // namespace

Result<SafetensorsIndex> SafetensorsIndex::open(const std::string& indexPath)
{
    auto file = MappedFile::open(indexPath);
    if (!file) {
        return file.status();
    }
    const auto bytes = (*file)->bytes();
    if (bytes.size() > SafetensorsFile::kMaxHeaderBytes) {
        return invalidIndex(indexPath, "the index is larger than 100 MiB");
    }
    auto json = parseJson(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), 16);
    if (!json) {
        return invalidIndex(indexPath, json.message());
    }
    const JsonValue* weightMap = json->find("weight_map");
    if (weightMap == nullptr || !weightMap->isObject()) {
        return invalidIndex(indexPath, "no \"weight_map\" object");
    }

    // Each shard is opened once, in order of first mention.
    std::map<std::string, std::size_t> shardIndex;
    std::vector<std::string> shardNames;
    std::vector<std::pair<std::string, std::size_t>> assignments;
    for (const auto& [tensor, shard] : weightMap->members()) {
        if (!shard.isString() || !isPlainFileName(shard.toString())) {
            return invalidIndex(indexPath, "the shard of '" + tensor + "' is not a file name beside the index");
        }
        const auto [it, inserted] = shardIndex.emplace(shard.toString(), shardNames.size());
        if (inserted) {
            shardNames.push_back(shard.toString());
        }
        assignments.emplace_back(tensor, it->second);
    }

    SafetensorsIndex index;
    const std::filesystem::path folder = std::filesystem::path(indexPath).parent_path();
    for (const std::string& name : shardNames) {
        auto shard = SafetensorsFile::open((folder / name).string());
        if (!shard) {
            return shard.status();
        }
        index.m_shards.push_back(std::move(*shard));
    }
    for (const auto& [tensor, shard] : assignments) {
        const SafetensorsTensor* found = index.m_shards[shard].find(tensor);
        if (found == nullptr) {
            return invalidIndex(indexPath, "tensor '" + tensor + "' is not in " + shardNames[shard]);
        }
        index.m_names.push_back(tensor);
        index.m_tensors.emplace(
            tensor, std::pair(shard, static_cast<std::size_t>(found - index.m_shards[shard].tensors().data())));
    }
    return index;
}

Result<SafetensorsIndex> SafetensorsIndex::openFolder(const std::string& folder)
{
    const std::filesystem::path dir(folder);
    std::error_code ec;
    if (std::filesystem::exists(dir / "model.safetensors.index.json", ec)) {
        return open((dir / "model.safetensors.index.json").string());
    }
    auto single = SafetensorsFile::open((dir / "model.safetensors").string());
    if (!single) {
        return single.status();
    }
    SafetensorsIndex index;
    index.m_shards.push_back(std::move(*single));
    const auto& tensors = index.m_shards.front().tensors();
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        index.m_names.push_back(tensors[i].name);
        index.m_tensors.emplace(tensors[i].name, std::pair(std::size_t{0}, i));
    }
    return index;
}

const SafetensorsTensor* SafetensorsIndex::find(std::string_view name) const
{
    const auto it = m_tensors.find(std::string(name));
    return it == m_tensors.end() ? nullptr : &m_shards[it->second.first].tensors()[it->second.second];
}

} // namespace hearth::convert
