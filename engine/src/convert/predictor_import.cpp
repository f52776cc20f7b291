// SPDX-License-Identifier: MIT
#include "convert/predictor_import.h"

#include "convert/hf_config.h"
#include "convert/json_value.h"
#include "convert/torch_checkpoint.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <map>

namespace hearth::convert {

namespace {

std::string shapeText(const std::vector<std::int64_t>& shape)
{
    std::string s = "[";
    for (std::size_t i = 0; i < shape.size(); ++i) {
        s += (i ? ", " : "") + std::to_string(shape[i]);
    }
    return s + "]";
}

} // namespace

Result<std::vector<std::string>> layerFiles(const std::string& folder, const std::string& prefix, const std::string& suffix)
{
    std::error_code ec;
    std::filesystem::directory_iterator it(folder, ec);
    if (ec) {
        return Status(ErrorCode::IoError, "cannot list '" + folder + "': " + ec.message());
    }
    std::map<long long, std::string> byLayer;
    for (const auto& entry : it) {
        const std::string name = entry.path().filename().string();
        if (name.size() <= prefix.size() + suffix.size() || name.compare(0, prefix.size(), prefix) != 0
            || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) {
            continue;
        }
        const char* first = name.data() + prefix.size();
        const char* last = name.data() + name.size() - suffix.size();
        long long layer = -1;
        const auto [end, error] = std::from_chars(first, last, layer);
        if (error != std::errc() || end != last || layer < 0) {
            continue; // model_final.pt and the like: not a layer file
        }
        if (!byLayer.emplace(layer, entry.path().string()).second) {
            return Status(ErrorCode::InvalidArgument, "'" + folder + "' has two files for layer " + std::to_string(layer));
        }
    }
    std::vector<std::string> ordered;
    for (const auto& [layer, path] : byLayer) {
        if (layer != static_cast<long long>(ordered.size())) {
            return Status(ErrorCode::InvalidArgument, "'" + folder + "': " + prefix + std::to_string(ordered.size())
                                                          + suffix + " is missing");
        }
        ordered.push_back(path);
    }
    if (ordered.empty()) {
        return Status(ErrorCode::InvalidArgument, "'" + folder + "' has no " + prefix + "<layer>" + suffix + " files");
    }
    return ordered;
}

Result<std::vector<PredictorLayer>> loadPredictors(const std::string& folder, int layers, std::int64_t nEmbd,
                                                   std::int64_t nFf)
{
    auto files = layerFiles(folder, "model_", ".pt");
    if (!files) {
        return files.status();
    }
    if (files->size() != static_cast<std::size_t>(layers)) {
        return Status(ErrorCode::InvalidArgument, "'" + folder + "' has predictors for " + std::to_string(files->size())
                                                      + " layers; the model has " + std::to_string(layers));
    }
    std::vector<PredictorLayer> predictors;
    for (const std::string& path : *files) {
        auto tensors = readStateDict(path);
        if (!tensors) {
            return tensors.status();
        }
        PredictorLayer layer;
        for (auto [key, target] : {std::pair("fc1.weight", &layer.fc1), std::pair("fc2.weight", &layer.fc2)}) {
            auto it = tensors->find(key);
            if (it == tensors->end()) {
                return Status(ErrorCode::InvalidFile, "'" + path + "' has no " + key);
            }
            *target = std::move(it->second);
        }
        const std::int64_t h = layer.hidden();
        if (layer.fc1.shape().size() != 2 || layer.fc1.shape()[1] != nEmbd || h <= 0 || h > (1 << 20)) {
            return Status(ErrorCode::InvalidFile, "'" + path + "': fc1.weight has shape " + shapeText(layer.fc1.shape())
                                                      + ", expected [h, " + std::to_string(nEmbd) + "]");
        }
        if (layer.fc2.shape() != std::vector<std::int64_t>{nFf, h}) {
            return Status(ErrorCode::InvalidFile, "'" + path + "': fc2.weight has shape " + shapeText(layer.fc2.shape())
                                                      + ", expected [" + std::to_string(nFf) + ", " + std::to_string(h) + "]");
        }
        predictors.push_back(std::move(layer));
    }
    return predictors;
}

Result<std::vector<std::vector<double>>> loadActivationCounts(const std::string& folder, int layers, std::int64_t nFf)
{
    auto files = layerFiles(folder, "activation_", ".pt");
    if (!files) {
        return files.status();
    }
    if (files->size() != static_cast<std::size_t>(layers)) {
        return Status(ErrorCode::InvalidArgument, "'" + folder + "' has statistics for " + std::to_string(files->size())
                                                      + " layers; the model has " + std::to_string(layers));
    }
    std::vector<std::vector<double>> counts;
    for (const std::string& path : *files) {
        auto tensors = readStateDict(path);
        if (!tensors) {
            return tensors.status();
        }
        // The file holds one tensor: the root itself, or a one-entry dict.
        if (tensors->size() != 1) {
            return Status(ErrorCode::InvalidFile, "'" + path + "' does not hold exactly one tensor");
        }
        const TorchTensor& t = tensors->begin()->second;
        if (t.shape() != std::vector<std::int64_t>{nFf}) {
            return Status(ErrorCode::InvalidFile, "'" + path + "' holds a tensor of shape " + shapeText(t.shape())
                                                      + ", expected [" + std::to_string(nFf) + "]");
        }
        const std::vector<float> values = t.toFloat();
        std::vector<double> layer(values.begin(), values.end());
        for (const double c : layer) {
            if (!(c >= 0.0) || !std::isfinite(c)) {
                return Status(ErrorCode::InvalidFile, "'" + path + "' holds a negative or non-finite count");
            }
        }
        counts.push_back(std::move(layer));
    }
    return counts;
}

Result<std::optional<float>> predictorSparseThreshold(const std::string& folder)
{
    const std::filesystem::path path = std::filesystem::path(folder) / "config.json";
    std::error_code error;
    if (!std::filesystem::is_regular_file(path, error)) {
        return std::optional<float>();
    }
    auto text = readTextFile(path.string(), 1u << 20);
    if (!text) {
        return text.status();
    }
    auto json = parseJson(*text);
    if (!json) {
        return Status(ErrorCode::InvalidFile, "predictor config.json: " + json.message());
    }
    const JsonValue* threshold = json->isObject() ? json->find("sparse_threshold") : nullptr;
    if (threshold == nullptr || threshold->isNull()) {
        return std::optional<float>();
    }
    if (!threshold->isNumber() || !std::isfinite(threshold->toNumber())
        || std::abs(threshold->toNumber()) > 1e30) {
        return Status(ErrorCode::InvalidFile, "predictor config.json: \"sparse_threshold\" is not a finite number");
    }
    return std::optional<float>(static_cast<float>(threshold->toNumber()));
}

} // namespace hearth::convert
