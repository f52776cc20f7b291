// SPDX-License-Identifier: MIT
#include "sparse/activation_profile.h"

#include "convert/torch_checkpoint.h"
#include "gguf/gguf_file.h"
#include "gguf/gguf_writer.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <span>

namespace hearth::sparse {

namespace {

constexpr const char* kArchitecture = "hearth.activation_stats";
constexpr std::int64_t kMaxLayers = 4096;
constexpr std::int64_t kMaxNeurons = std::int64_t(1) << 24;

std::string tensorName(std::size_t layer, StatsUnit unit)
{
    const char* name = unit == StatsUnit::Experts         ? ".ffn_expert_freq"
                       : unit == StatsUnit::ExpertNeurons ? ".ffn_expert_neuron_freq"
                                                          : ".ffn_freq";
    return "blk." + std::to_string(layer) + name;
}

struct StatsSection {
    StatsUnit unit;
    const std::vector<std::vector<float>>* frequencies;
};

Status writeSections(const std::string& path, std::span<const StatsSection> sections, std::uint64_t tokens)
{
    const std::size_t layers = sections.front().frequencies->size();
    if (layers == 0)
        return {ErrorCode::InvalidArgument, "no activation statistics to write"};
    gguf::GgufWriter writer;
    writer.setString("general.architecture", kArchitecture);
    writer.setUInt32("hearth.stats.layer_count", std::uint32_t(layers));
    writer.setUInt64("hearth.stats.tokens", tokens);
    for (const StatsSection& s : sections) {
        for (std::size_t l = 0; l < layers; ++l)
            writer.addTensor(tensorName(l, s.unit), DType::F32, {std::int64_t((*s.frequencies)[l].size())});
    }
    HEARTH_TRY(writer.begin(path));
    for (const StatsSection& s : sections) {
        for (const auto& layer : *s.frequencies)
            HEARTH_TRY(writer.writeTensorData(std::as_bytes(std::span<const float>(layer.data(), layer.size()))));
    }
    return writer.finish();
}

} // namespace

ActivationCounter::ActivationCounter(int layers, std::int64_t nFf)
    : m_counts(std::size_t(std::max(layers, 0)), std::vector<std::uint64_t>(std::size_t(std::max<std::int64_t>(nFf, 0)), 0))
{
}

void ActivationCounter::add(int layer, int tokens, const float* acts)
{
    if (layer < 0 || std::size_t(layer) >= m_counts.size() || tokens <= 0 || !acts)
        return;
    std::vector<std::uint64_t>& c = m_counts[std::size_t(layer)];
    const std::size_t nFf = c.size();
    for (int t = 0; t < tokens; ++t) {
        const float* row = acts + std::size_t(t) * nFf;
        for (std::size_t i = 0; i < nFf; ++i)
            c[i] += row[i] != 0.0f ? 1 : 0;
    }
    if (layer == 0)
        m_tokens += std::uint64_t(tokens);
}

void ActivationCounter::addUnits(int layer, int tokens, std::span<const std::int32_t> units)
{
    if (layer < 0 || std::size_t(layer) >= m_counts.size() || tokens <= 0)
        return;
    std::vector<std::uint64_t>& c = m_counts[std::size_t(layer)];
    for (const std::int32_t u : units) {
        if (u >= 0 && std::size_t(u) < c.size())
            ++c[std::size_t(u)];
    }
    if (layer == 0)
        m_tokens += std::uint64_t(tokens);
}

void ActivationCounter::addSlice(int layer, std::int64_t first, std::span<const float> acts)
{
    if (layer < 0 || std::size_t(layer) >= m_counts.size() || first < 0)
        return;
    std::vector<std::uint64_t>& c = m_counts[std::size_t(layer)];
    if (std::size_t(first) + acts.size() > c.size())
        return;
    for (std::size_t i = 0; i < acts.size(); ++i)
        c[std::size_t(first) + i] += acts[i] != 0.0f ? 1 : 0;
}

std::vector<std::vector<float>> ActivationCounter::frequencies() const
{
    std::vector<std::vector<float>> f(m_counts.size());
    for (std::size_t l = 0; l < m_counts.size(); ++l) {
        f[l].resize(m_counts[l].size());
        for (std::size_t i = 0; i < m_counts[l].size(); ++i)
            f[l][i] = m_tokens ? float(double(m_counts[l][i]) / double(m_tokens)) : 0.0f;
    }
    return f;
}

std::string defaultStatsPath(const std::string& modelPath)
{
    std::string base = modelPath;
    constexpr std::string_view extension = ".gguf";
    if (base.size() > extension.size() && base.ends_with(extension))
        base.resize(base.size() - extension.size());
    return base + ".hearth-stats.gguf";
}

Status writeStatsFile(const std::string& path, const std::vector<std::vector<float>>& frequencies, std::uint64_t tokens,
                      StatsUnit unit)
{
    const StatsSection section{unit, &frequencies};
    return writeSections(path, std::span(&section, 1), tokens);
}

std::vector<std::vector<float>> expertNeuronFrequencies(const ActivationCounter& experts,
                                                        const ActivationCounter& expertNeurons)
{
    const auto& routed = experts.counts();
    const auto& fired = expertNeurons.counts();
    if (routed.size() != fired.size())
        return {};
    std::vector<std::vector<float>> freq(fired.size());
    for (std::size_t l = 0; l < fired.size(); ++l) {
        const std::size_t nExpert = routed[l].size();
        if (nExpert == 0 || fired[l].size() % nExpert != 0)
            return {};
        const std::size_t nFf = fired[l].size() / nExpert;
        freq[l].resize(fired[l].size());
        for (std::size_t i = 0; i < fired[l].size(); ++i) {
            const std::uint64_t tokens = routed[l][i / nFf];
            freq[l][i] = tokens ? float(double(fired[l][i]) / double(tokens)) : 0.0f;
        }
    }
    return freq;
}

Status writeExpertStatsFile(const std::string& path, const ActivationCounter& experts,
                            const std::vector<std::vector<float>>& neuronFrequencies)
{
    const std::vector<std::vector<float>> expertFreq = experts.frequencies();
    if (neuronFrequencies.size() != expertFreq.size())
        return {ErrorCode::InvalidArgument, "expert and neuron statistics of different layer counts"};
    const StatsSection sections[] = {{StatsUnit::Experts, &expertFreq}, {StatsUnit::ExpertNeurons, &neuronFrequencies}};
    return writeSections(path, sections, experts.tokens());
}

Result<ActivationStats> loadStatsFile(const std::string& path, StatsUnit unit)
{
    auto fail = [&path](const std::string& why) {
        return Result<ActivationStats>(ErrorCode::InvalidFile, path + ": " + why);
    };
    auto file = gguf::GgufFile::open(path);
    if (!file)
        return Result<ActivationStats>(file.code(), path + ": " + file.message());
    const gguf::GgufFile& f = **file;
    if (f.getString("general.architecture").value_or("") != kArchitecture)
        return fail("not a Hearth activation statistics file");
    const auto layersValue = f.getInt("hearth.stats.layer_count");
    if (!layersValue || *layersValue <= 0 || *layersValue > kMaxLayers)
        return fail("missing or implausible hearth.stats.layer_count");
    const std::int64_t layers = *layersValue;
    std::vector<std::vector<float>> freq(static_cast<std::size_t>(layers));
    std::int64_t nFf = -1;
    for (std::int64_t l = 0; l < layers; ++l) {
        const std::string name = tensorName(std::size_t(l), unit);
        const gguf::TensorInfo* t = f.findTensor(name);
        if (!t)
            return fail("tensor " + name + " is missing");
        if (t->type != DType::F32 || t->shape.size() != 1 || t->shape[0] <= 0 || t->shape[0] > kMaxNeurons)
            return fail("tensor " + name + " must be a 1-D F32 tensor of neuron frequencies");
        if (nFf >= 0 && t->shape[0] != nFf)
            return fail("tensor " + name + " has " + std::to_string(t->shape[0]) + " neurons, layer 0 has " + std::to_string(nFf));
        nFf = t->shape[0];
        if (!t->data || t->byteSize < std::uint64_t(nFf) * sizeof(float))
            return fail("tensor " + name + " has no data (truncated file?)");
        std::vector<float>& v = freq[std::size_t(l)];
        v.resize(std::size_t(nFf));
        std::memcpy(v.data(), t->data, v.size() * sizeof(float));
        for (float x : v) {
            if (!std::isfinite(x) || x < 0.0f || x > 1.0f)
                return fail("tensor " + name + " holds a frequency outside [0, 1]");
        }
    }
    auto stats = ActivationStats::fromFrequencies(std::move(freq));
    if (!stats)
        return fail(stats.message());
    return stats;
}

Result<ActivationStats> loadPowerInferActivations(const std::string& folder, double tokens)
{
    std::error_code ec;
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(folder, ec)) {
        if (entry.is_regular_file(ec))
            names.push_back(entry.path().string());
    }
    if (ec)
        return Result<ActivationStats>(ErrorCode::IoError, "cannot list '" + folder + "': " + ec.message());
    auto ordered = ActivationStats::orderActivationFiles(names);
    if (!ordered)
        return Result<ActivationStats>(ordered.code(), folder + ": " + ordered.message());
    std::vector<std::vector<double>> counts;
    for (const std::string& path : *ordered) {
        auto dict = convert::readStateDict(path);
        if (!dict)
            return Result<ActivationStats>(dict.code(), path + ": " + dict.message());
        if (dict->size() != 1)
            return Result<ActivationStats>(ErrorCode::InvalidFile, path + ": expected one tensor of activation counts");
        const convert::TorchTensor& t = dict->begin()->second;
        if (t.shape().size() != 1 || t.shape()[0] <= 0 || t.shape()[0] > kMaxNeurons)
            return Result<ActivationStats>(ErrorCode::InvalidFile, path + ": expected a 1-D tensor of activation counts");
        const std::vector<float> values = t.toFloat();
        counts.emplace_back(values.begin(), values.end());
    }
    return ActivationStats::fromCounts(counts, tokens);
}

} // namespace hearth::sparse
